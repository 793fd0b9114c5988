"""jouet under every name it runs under, read as `jouet` itself.

    python3 -m jouet_git trust --yes                 ->  jouet trust --yes      (via python3)
    python3 -I -m jouet_git.cli setup claude ...     ->  jouet setup claude ...
    python3 ~/.local/bin/jouet trust                 ->  jouet trust
    python3 -c "from jouet_git.cli import main; main(['trust', '--yes'])"   ->  jouet trust --yes
    uv run jouet trust, uv tool run jouet-git trust  ->  jouet trust           (via uv)
    uvx jouet-git trust, uvx --from jouet-git jouet trust
    pipx run jouet-git trust, pipx run --spec jouet-git jouet trust

Each runner is registered in shell/wrappers.py's table, so the reader gives such a command the
program `jouet` and the argv jouet would see, and every rule written for `jouet ...` judges it.
A runner that starts anything else is left alone (`uv run pytest` stays uv): these are wrappers
only on the way to jouet. Inline Python that imports jouet_git but is not just a literal call of
its CLI stays Python; the jouet-config rule denies that.

On the hook path: imports nothing.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    # (words, index of what runs): ["jouet", ...] from 0, or None when it is not jouet.
    Found = tuple[list[str], int] | None

# The names jouet's distribution and console script go by.
PACKAGE = "jouet-git"
MODULES = frozenset({"jouet_git", "jouet_git.cli", "jouet_git.__main__"})

# Python's options that take a value (`-W error`, `-Xdev` is one word).
_PY_VALUES = frozenset("WX")
_PY_FLAGS = frozenset("bBdEhiIOPqsSuvVx3R")


def _name(word: str) -> str:
    base = word.rpartition("/")[2]
    if len(base) > 4 and base[-4:].lower() == ".exe":
        base = base[:-4]
    return base


def is_jouet_program(word: str) -> bool:
    """Whether WORD runs jouet's console script: `jouet`, a path to it, `jouet.exe`."""
    return _name(word) == "jouet"


def _jouet(args: list[str]) -> Found:
    return ["jouet", *args], 0


def python(words: list[str], i: int) -> Found:
    """`python -m jouet_git ...`, `python PATH/jouet ...`, `python -c "...main([...])"`."""
    n = len(words)
    i += 1
    while i < n:
        word = words[i]
        if word == "--":
            i += 1
            break
        if not word.startswith("-") or word == "-":
            break
        if word.startswith("--"):
            return None  # --version, --help, --check-hash-based-pycs ...: not jouet
        k = 1
        while k < len(word):
            letter = word[k]
            if letter in ("m", "c"):
                rest = word[k + 1:]
                value = rest if rest else (words[i + 1] if i + 1 < n else None)
                if value is None:
                    return None
                after = i + 1 if rest else i + 2
                if letter == "m":
                    return _jouet(words[after:]) if value in MODULES else None
                args = cli_call(value, words[after:])
                return _jouet(args) if args is not None else None
            if letter in _PY_VALUES:
                if k + 1 == len(word):
                    i += 1  # the value is the next word
                break
            if letter not in _PY_FLAGS:
                return None
            k += 1
        i += 1
    if i < n and is_jouet_program(words[i]):
        return _jouet(words[i + 1:])
    return None


_STATEMENT_SPLIT = ";\n"


def cli_call(code: str, extra: list[str]) -> list[str] | None:
    """The argv of inline Python that does nothing but import jouet's CLI and call it: with a literal
    list of strings (`main([...])`, `sys.exit(main([...]))`), or with none (`main()` reads
    sys.argv, which is EXTRA: the words after `-c CODE`). None for anything else."""
    if "jouet_git" not in code:
        return None
    found: list[str] | None = None
    for raw in _statements(code):
        statement = raw.strip()
        if not statement or statement.startswith("#"):
            continue
        if statement.startswith(("import ", "from ")):
            continue
        args = _main_call(statement, extra)
        if args is None or found is not None:
            return None  # something else runs too, or jouet runs twice: not a plain jouet call
        found = args
    return found


def _statements(code: str) -> list[str]:
    out = [code]
    for sep in _STATEMENT_SPLIT:
        out = [part for piece in out for part in piece.split(sep)]
    return out


_WRAPS = ("sys.exit(", "raise SystemExit(", "exit(", "SystemExit(")


def _main_call(statement: str, extra: list[str]) -> list[str] | None:
    text = statement
    for wrap in _WRAPS:
        if text.startswith(wrap) and text.endswith(")"):
            text = text[len(wrap):-1].strip()
            break
    head, paren, rest = text.partition("(")
    if not paren or not rest.endswith(")"):
        return None
    if head.rpartition(".")[2].strip() != "main":
        return None
    inside = rest[:-1].strip()
    return list(extra) if not inside else _string_list(inside)


def _string_list(text: str) -> list[str] | None:
    """A Python list (or tuple) literal of plain strings, read without importing ast."""
    if len(text) < 2 or (text[0], text[-1]) not in (("[", "]"), ("(", ")")):
        return None
    body = text[1:-1]
    out: list[str] = []
    i = 0
    n = len(body)
    while True:
        while i < n and body[i] in " \t":
            i += 1
        if i >= n:
            return out
        quote = body[i]
        if quote not in "'\"":
            return None
        j = i + 1
        chars: list[str] = []
        while j < n and body[j] != quote:
            if body[j] == "\\" and j + 1 < n:
                j += 1
            chars.append(body[j])
            j += 1
        if j >= n:
            return None
        out.append("".join(chars))
        i = j + 1
        while i < n and body[i] in " \t":
            i += 1
        if i < n:
            if body[i] != ",":
                return None
            i += 1


def _operand(words: list[str], i: int, values: frozenset[str]) -> int | None:
    """The index of the first operand in words[i:], past options (VALUES take the next word)."""
    n = len(words)
    while i < n:
        word = words[i]
        if word == "--":
            return i + 1 if i + 1 < n else None
        if not word.startswith("-") or word == "-":
            return i
        if "=" not in word and word in values:
            i += 1
        i += 1
    return None


def _value(words: list[str], start: int, end: int, names: tuple[str, ...]) -> str | None:
    """The value of the option NAMES among words[start:end]."""
    k = start
    while k < end:
        word = words[k]
        for name in names:
            if word == name and k + 1 < end:
                return words[k + 1]
            if word.startswith(name + "="):
                return word[len(name) + 1:]
        k += 1
    return None


def _is_package(spec: str | None) -> bool:
    """Whether a package spec names jouet-git: `jouet-git`, `jouet_git==1.2`, `jouet-git[x]`, or a
    URL or path ending in it (`git+https://host/me/jouet-git.git@v1`, `#egg=jouet-git`)."""
    if not spec:
        return False
    text = spec.strip().lower().replace("_", "-")
    if "#egg=" in text:
        return _is_package(text.split("#egg=", 1)[1])
    if "/" in text:
        last = text.split("#", 1)[0].rstrip("/").rsplit("/", 1)[-1]
        return last.split("@", 1)[0].removesuffix(".git") == PACKAGE
    for stop in "=<>!~[@ ;":
        text = text.split(stop, 1)[0]
    return text == PACKAGE


def _through(words: list[str], at: int) -> Found:
    """What words[at:] runs when it leads to jouet: jouet itself, or python running it."""
    if at >= len(words):
        return None
    word = words[at]
    if is_jouet_program(word) or _name(word) == PACKAGE:
        return _jouet(words[at + 1:])
    if _name(word).startswith(("python", "pypy")):
        return python(words, at)
    return None


_UV_RUN_VALUES = frozenset({
    "--with", "-w", "--with-editable", "--with-requirements", "--python", "-p", "--package", "--directory",
    "--project", "--env-file", "--index", "--default-index", "--index-url", "-i", "--extra-index-url",
    "--find-links", "-f", "--group", "--only-group", "--no-group", "--extra", "--config-file", "--cache-dir",
    "--color", "--python-preference", "--resolution", "--prerelease", "--exclude-newer", "--link-mode",
    "--index-strategy", "--keyring-provider", "--refresh-package", "--reinstall-package",
    "--upgrade-package", "-P", "--no-binary-package", "--no-build-package", "--config-setting", "-C",
    "--from", "--constraints", "-c", "--overrides", "--build-constraints", "-b", "--allow-insecure-host",
})


def uv(words: list[str], i: int) -> Found:
    """`uv run [OPTIONS] jouet ...` and `uv tool run [OPTIONS] PACKAGE ...`."""
    k = _operand(words, i + 1, _UV_RUN_VALUES)
    if k is None:
        return None
    if words[k] == "run":
        return _through(words, _operand(words, k + 1, _UV_RUN_VALUES) or len(words))
    if words[k] == "tool" and k + 1 < len(words) and words[k + 1] == "run":
        return uvx(words, k + 1)
    return None


def uvx(words: list[str], i: int) -> Found:
    """`uvx [--from SPEC] COMMAND ...`: jouet when the command or the package it comes from is."""
    k = _operand(words, i + 1, _UV_RUN_VALUES)
    if k is None:
        return None
    spec = _value(words, i + 1, k, ("--from",))
    if _is_package(spec) or _is_package(words[k]) or is_jouet_program(words[k]):
        return _jouet(words[k + 1:])
    return None


_PIPX_VALUES = frozenset({"--spec", "--python", "--index-url", "-i", "--pip-args", "--backend"})


def pipx(words: list[str], i: int) -> Found:
    """`pipx run [--spec SPEC] APP ...`: jouet when the app or its package is."""
    k = _operand(words, i + 1, _PIPX_VALUES)
    if k is None or words[k] != "run":
        return None
    j = _operand(words, k + 1, _PIPX_VALUES)
    if j is None:
        return None
    spec = _value(words, k + 1, j, ("--spec",))
    if _is_package(spec) or _is_package(words[j]) or is_jouet_program(words[j]):
        return _jouet(words[j + 1:])
    return None


def _pythons() -> list[str]:
    names = ["python", "python2", "python3", "pypy", "pypy3"]
    names += [f"python3.{minor}" for minor in range(0, 21)]
    return names


RUNNERS: dict[str, Callable[[list[str], int], Found]] = {name: python for name in _pythons()}
RUNNERS.update({"uv": uv, "uvx": uvx, "pipx": pipx})


def register(table: dict[str, Any], more: dict[str, Any]) -> None:
    """Put the runners into the reader's table of wrappers (shell/wrappers.py WRAPPERS): each answers
    first, and a wrapper the reader already knows by that name (`uv run X`, in TABLE or in MORE, the
    handlers loaded on first use) handles everything else."""
    for name, runner in RUNNERS.items():
        table[name] = _chained(runner, table.get(name) or more.get(name))


def _chained(runner: Callable[[list[str], int], Found], fallback: Any) -> Any:
    def handler(words: list[str], i: int, found: Any) -> Found:
        step = runner(words, i)
        if step is not None or fallback is None:
            return step
        result: Found = fallback(words, i, found)
        return result

    return handler
