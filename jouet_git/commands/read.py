"""Show what a source file defines, with line numbers, so an agent can read just the part it needs.

examples:
  jouet read --outline src/engine.py           each def and class, with its line number
  jouet read --outline src/*.ts                several files, one after the other

The outline is a light one: the lines that define something (functions, classes, types, modules),
found by a pattern per language, without parsing. The languages, by file extension: Python,
JavaScript, TypeScript, Rust, Go, Lua and Luau, shell, Ruby, Java, Kotlin, Scala, C, C++, C#,
Swift and PHP. They are also what the `min_code_lines` matcher key counts as code.
"""

from __future__ import annotations

import argparse
import os
import sys

from jouet_git.errors import JouetError


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="the source files to outline")
    parser.add_argument("--outline", action="store_true", required=True,
                        help="print the lines that define something, with their line numbers")


def run(args: argparse.Namespace) -> int:
    from jouet_git import outline

    out: list[str] = []
    for path in args.files:
        lang = outline.language(path)
        if lang is None:
            known = ", ".join(sorted(set(outline.LANGUAGES.values())))
            raise JouetError(f"{path}: jouet cannot outline this kind of file (it knows {known}, by extension); "
                             "search it with grep -n instead")
        try:
            with open(path, "rb") as f:
                text = f.read().decode("utf-8", "replace")
        except OSError as error:
            raise JouetError(f"{path}: cannot read it: {error.strerror}") from None
        lines = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
        out.append(f"{path}  ({lines} lines, {lang})")
        found = outline.outline(text, lang)
        width = len(str(found[-1][0])) if found else 1
        out.extend(f"{number:>{width}}  {line}" for number, line in found)
        if not found:
            out.append(f"(nothing {os.path.basename(path)} defines matched the {lang} outline)")
    sys.stdout.write("\n".join(out) + "\n")
    return 0
