"""Every example in the README, re-run.

- A ```console block holds commands (`$ ...`) each followed by the output it shows: each command
  runs in a scratch directory (its own HOME and jouet directories, a git repository) in README
  order, and its output, stdout and stderr as a terminal interleaves them, must be the one shown.
- A ```toml block whose first line is `# NAME.toml` is a file the examples after it use: it is
  written into the scratch directory.
- An HTML comment just before a block steers it: `<!-- readme-test: skip: REASON -->` (an output
  that depends on the machine; the reason is required and reported), `<!-- readme-test: before:
  COMMAND -->` (a shell command run first, such as an edit the prose describes).
- Every `jouet ...` line of a ```sh block, and every `jouet ...` in inline code without
  placeholders, must be accepted by jouet's own argument parser, so the README never shows an
  option or a sub-command that does not exist.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from testing import BIN, ROOT

README = ROOT / "README.md"


@dataclass
class Block:
    lang: str
    line: int  # 1-based line of the opening fence
    text: str
    steer: dict[str, str] = field(default_factory=dict)


def blocks(text: str) -> list[Block]:
    out: list[Block] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        fence = re.match(r"^```(\w*)\s*$", lines[index])
        if not fence:
            index += 1
            continue
        start = index
        index += 1
        body: list[str] = []
        while index < len(lines) and not lines[index].startswith("```"):
            body.append(lines[index])
            index += 1
        steer: dict[str, str] = {}
        back = start - 1
        while back >= 0 and lines[back].startswith("<!-- readme-test:"):
            m = re.match(r"<!-- readme-test: (\w+): (.*) -->$", lines[back])
            assert m, f"README.md:{back + 1}: a readme-test comment is `<!-- readme-test: skip|before: TEXT -->`"
            steer[m.group(1)] = m.group(2)
            back -= 1
        out.append(Block(fence.group(1), start + 1, "\n".join(body), steer))
        index += 1
    return out


def commands(block: Block) -> list[tuple[str, str]]:
    """(command, expected output) pairs of a console block."""
    pairs: list[tuple[str, list[str]]] = []
    for line in block.text.splitlines():
        if line.startswith("$ "):
            pairs.append((line[2:], []))
        else:
            assert pairs, f"README.md:{block.line}: a console block starts with a `$ ` command"
            pairs[-1][1].append(line)
    return [(command, "\n".join(output)) for command, output in pairs]


ALL = blocks(README.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """One directory and environment for every console example, in README order."""
    base = tmp_path_factory.mktemp("readme")
    home = base / "home"
    home.mkdir()
    work = base / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JOUET_", "XDG_", "GIT_"))}
    env.update({
        "HOME": str(home), "PATH": f"{BIN}:{env.get('PATH', '')}", "PYTHONUNBUFFERED": "1",
        "NO_COLOR": "1", "COLUMNS": "100", "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"), "JOUET_SYSTEM_DIR": str(base / "etc-jouet"),
    })
    env.pop("FORCE_COLOR", None)
    (home / ".gitconfig").write_text("[user]\n\tname = Test\n\temail = test@example.com\n"
                                     "[init]\n\tdefaultBranch = main\n")
    subprocess.run(["git", "init", "-q", str(work)], check=True, env=env)
    return work, env


def _file_name(block: Block) -> str | None:
    first = block.text.splitlines()[0] if block.text else ""
    m = re.fullmatch(r"# ([\w.-]+\.toml)", first)
    return m.group(1) if m else None


CONSOLE = [b for b in ALL if b.lang == "console"]


def test_the_readme_has_console_examples() -> None:
    assert len(CONSOLE) >= 4


@pytest.mark.parametrize("block", CONSOLE, ids=[f"line{b.line}" for b in CONSOLE])
def test_console_example(block: Block, scratch: tuple[Path, dict[str, str]]) -> None:
    work, env = scratch
    if "skip" in block.steer:
        pytest.skip(f"README.md:{block.line}: {block.steer['skip']}")
    # The files shown before this example, as the README shows them.
    for earlier in ALL:
        if earlier.line >= block.line:
            break
        name = _file_name(earlier)
        if earlier.lang == "toml" and name:
            (work / name).write_text(earlier.text + "\n", encoding="utf-8")
    if "before" in block.steer:
        subprocess.run(["sh", "-c", block.steer["before"]], cwd=work, env=env, check=True)
    for command, expected in commands(block):
        proc = subprocess.run(["sh", "-c", command], cwd=work, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=120)
        shown = proc.stdout.replace(env["HOME"], "~").rstrip("\n")
        assert shown == expected, f"README.md:{block.line}: `{command}` printed\n{shown}"


# -- every jouet command the README shows must parse -------------------------------------------------

def _jouet_lines() -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for block in ALL:
        if block.lang == "sh":
            for offset, line in enumerate(block.text.splitlines(), 1):
                code = line.split("  #", 1)[0].strip()
                if code.startswith("jouet ") and not _synopsis(code):
                    found.append((block.line + offset, code))
    text = README.read_text(encoding="utf-8")
    for m in re.finditer(r"`(jouet [^`]+)`", text):
        code = " ".join(m.group(1).split())
        if not _synopsis(code):
            found.append((text.count("\n", 0, m.start()) + 1, code))
    return found


def _synopsis(code: str) -> bool:
    """A usage line with placeholders (NAME, PATH|NAME, [--json], ...), not a command to run."""
    return bool(re.search(r"\[-|\w\]|\|[A-Za-z-]|\.\.\.|\b[A-Z][A-Z_]{1,}\b", code))


def _words(code: str) -> list[str]:
    """The words of CODE up to the first redirection, pipe or list operator."""
    lexer = shlex.shlex(code, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    words = []
    for word in lexer:
        if word in (">", ">>", "<", "|", "||", "&&", ";", "&", "2>"):
            break
        words.append(word)
    return words


def _parses(code: str) -> str:
    """"" when jouet's parser accepts CODE, else what it said."""
    from jouet_git import cli

    words = _words(code)[1:]
    if words and words[0] == "--color":
        words = words[2:]
    if not words or words[0] in ("-h", "--help", "-V", "--version", "help", "version"):
        return ""
    name = words[0]
    if name not in cli.COMMANDS:
        return f"no command {name}"
    if name == "hook":
        return ""  # `jouet hook` skips argparse
    parser, _ = cli.build_parser(name)
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            parser.parse_args([w for w in words[1:] if w != "--help"])
        except SystemExit as exit_:
            said = err.getvalue().strip()
            # Prose names a command without its arguments ("`jouet rule new` also writes...").
            if exit_.code and "the following arguments are required" not in said:
                return said
    return ""


JOUET_LINES = _jouet_lines()


def test_the_readme_shows_jouet_commands() -> None:
    assert len(JOUET_LINES) > 40


@pytest.mark.parametrize(("line", "code"), JOUET_LINES, ids=[f"line{n}" for n, _ in JOUET_LINES])
def test_every_jouet_command_in_the_readme_parses(line: int, code: str) -> None:
    problem = _parses(code)
    assert not problem, f"README.md:{line}: `{code}`: {problem}"


def test_no_output_example_hides_outside_a_console_block() -> None:
    for block in ALL:
        if block.lang != "console":
            assert not re.search(r"^\$ jouet", block.text, re.M), \
                f"README.md:{block.line}: an example with output goes in a ```console block"
