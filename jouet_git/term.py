"""What jouet prints for a person: colour only on a terminal, text fitted to its width, plurals.

Colour is decided once per stream, in this order:

    --color always|never      the command line (`jouet --color never ...`, or after any command)
    NO_COLOR                  set and not empty: no colour (https://no-color.org)
    FORCE_COLOR               set and not empty (and not 0 or false): colour even in a pipe
    TERM=dumb                 no colour
    otherwise                 colour when the stream is a terminal

This module imports only os and sys: the git hooks may use it on their hot path.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

WHEN = ("auto", "always", "never")
# The widest jouet's tables get, even on a wide terminal: longer lines are hard to read.
MAX_WIDTH = 100

_STYLES = {
    "deny": "1;31",  # bold red: a denial must stand out among git's own lines
    "warn": "1;33",  # bold yellow
    "ok": "32",  # green
    "bad": "31",  # red
    "note": "36",  # cyan
    "dim": "2",
    "bold": "1",
}

_when = "auto"


def set_when(when: str) -> None:
    """Apply `--color WHEN` for the rest of the process."""
    global _when
    if when not in WHEN:
        raise ValueError(f"--color takes one of {', '.join(WHEN)}, not {when!r}")
    _when = when


def colour(stream: TextIO | None = None) -> bool:
    """Whether to colour what goes to STREAM (standard output by default)."""
    if _when != "auto":
        return _when == "always"
    if os.environ.get("NO_COLOR"):
        return False
    force = os.environ.get("FORCE_COLOR", "")
    if force and force.lower() not in ("0", "false", "no"):
        return True
    if os.environ.get("TERM") == "dumb":
        return False
    target = sys.stdout if stream is None else stream
    try:
        return target.isatty()
    except (AttributeError, ValueError):
        return False


def paint(text: str, style: str, stream: TextIO | None = None) -> str:
    """TEXT in STYLE (deny, warn, ok, bad, note, dim, bold) when STREAM gets colour, else TEXT."""
    if not text or not colour(stream):
        return text
    return f"\033[{_STYLES[style]}m{text}\033[0m"


def width(stream: TextIO | None = None, cap: int = MAX_WIDTH) -> int:
    """The columns to fit output into: the terminal's width (or $COLUMNS), at most CAP."""
    columns = 0
    env = os.environ.get("COLUMNS", "")
    if env.isdigit():
        columns = int(env)
    else:
        target = sys.stdout if stream is None else stream
        try:
            if target.isatty():
                columns = os.get_terminal_size(target.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    if columns <= 0:
        return cap
    return max(min(columns, cap), 40)


def wrap(text: str, columns: int) -> list[str]:
    """TEXT broken at spaces into lines of at most COLUMNS characters (a longer word gets a line
    of its own)."""
    if columns <= 0 or len(text) <= columns:
        return [text]
    lines: list[str] = []
    line = ""
    for word in text.split():
        if not line:
            line = word
        elif len(line) + 1 + len(word) <= columns:
            line += " " + word
        else:
            lines.append(line)
            line = word
    if line:
        lines.append(line)
    return lines or [""]


def count(n: int, noun: str, plural: str | None = None) -> str:
    """`1 file`, `2 files`: N and NOUN in the right number."""
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"
