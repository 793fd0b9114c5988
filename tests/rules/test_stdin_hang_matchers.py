"""stdin-hang's matchers for filters, pattern programs and interpreters let a call through to the
script only when the script could speak: `cat README.md`, `grep -n TODO app.py` and `python3 x.py`
start no Lua VM. They must never hold back a call the script would deny, nor let through one it
would not have seen. Checked here against the same script behind the matchers it had before they
read options (every call of those programs, run alone with nothing fed to it), over many spellings:
options alone, with values, attached and in clusters, long options with and without `=`, `--`, `-`,
and every count of operands the script tells apart."""

from __future__ import annotations

import itertools
import random
import shutil
from pathlib import Path

from testing import ROOT

from jouet_git.call import Call
from jouet_git.engine.decide import Outcome, decide
from jouet_git.engine.load import load_file
from jouet_git.engine.model import BUILTIN, Rule
from jouet_git.engine.scripts import HookScripts

FILTERS = ["cat", "tac", "sort", "uniq", "wc", "head", "tail", "nl", "rev", "base64", "xxd", "od", "md5sum",
           "sha1sum", "sha256sum", "cut", "tee", "fold", "fmt", "expand", "strings", "tr"]
PATTERNS = ["grep", "egrep", "fgrep", "rg", "sed", "awk", "gawk", "mawk", "jq"]
INTERPRETERS = ["python", "python2", "python3", "python3.12", "node", "nodejs", "ruby", "perl", "lua", "luajit",
                "bash", "sh", "zsh", "dash", "ksh", "fish", "irb", "php", "bc", "deno"]

# The script's matchers for these programs before they read options: every call of the program, run
# as the whole call with nothing fed to it.
BROAD = f"""
[[rule]]
name = "stdin-hang"
why = "the script behind matchers that let every call of these programs through"
script = "stdin-hang.luau"

[[rule.match]]
command = {FILTERS!r}
unless_flags = ["--help", "--version"]
unless_with = {{ command = "*" }}
stdin_redirected = false

[[rule.match]]
command = {PATTERNS!r}
unless_flags = ["--help", "--version", "--files", "--type-list"]
unless_with = {{ command = "*" }}
stdin_redirected = false

[[rule.match]]
command = ["python", "python2", "python3", "python3.*", "node", "nodejs", "ruby", "perl", "lua", "luajit",
           "bash", "sh", "zsh", "dash", "ksh", "fish", "irb", "php", "bc", "deno"]
unless_flags = ["--help", "-h", "--version", "-V"]
unless_with = {{ command = "*" }}
stdin_redirected = false
"""

# Every letter some program's script reads as taking a value, and some that take none.
LETTERS = "ncskotSTfwbdhilvgpAjNemBCDMFWXLrRaqEu"
LONGS = [["--lines", "5"], ["--lines=5"], ["--key", "2"], ["--width=80"], ["--regexp", "x"], ["--file", "p.txt"],
         ["--expression=s/a/b/"], ["--max-count", "3"], ["--arg", "a", "1"], ["--argjson", "b", "2"],
         ["--arg", "a", "1", "--arg", "b", "2"], ["--slurpfile", "c", "c.json"], ["--glob", "*.py"],
         ["--recursive"], ["--in-place"], ["--interactive"], ["--null-input"], ["--print"], ["--eval"],
         ["--command"], ["--help"], ["--version"], ["--type-list"], ["--verbose"], ["--bytes=3"]]
OPERANDS = [[], ["-"], ["f.txt"], ["f.txt", "-"], ["x"], ["p", "f.txt"], ["p", "-"], ["p", "f.txt", "-"],
            ["p", "q", "-"], ["--", "-"], ["--", "-n"], ["--", "p", "-"], ["BEGIN { print 1 }"]]


def option_forms() -> list[list[str]]:
    forms: list[list[str]] = [[]]
    for letter in LETTERS:
        forms += [[f"-{letter}"], [f"-{letter}", "5"], [f"-{letter}5"], [f"-a{letter}", "5"], [f"-{letter}a"]]
    return forms + LONGS


def spellings(program: str, rng: random.Random) -> list[str]:
    """Every option form, each with two operand lists drawn at random (a fixed seed), and a sample of two
    options together (every form with every operand list would take the suite a minute)."""
    forms = option_forms()
    out = [" ".join([program, *f, *o]) for f in forms for o in rng.sample(OPERANDS, 2)]
    pairs = list(itertools.product(forms, forms, OPERANDS))
    out += [" ".join([program, *a, *b, *o]) for a, b, o in rng.sample(pairs, 80)]
    return out


def _rules(tmp_path: Path) -> tuple[Rule, Rule]:
    [builtin] = load_file(str(ROOT / "rules" / "stdin-hang.toml"), BUILTIN, BUILTIN)
    shutil.copy(ROOT / "rules" / "stdin-hang.luau", tmp_path / "stdin-hang.luau")
    (tmp_path / "broad.toml").write_text(BROAD)
    [broad] = load_file(str(tmp_path / "broad.toml"), BUILTIN, BUILTIN)
    assert builtin.state == broad.state == "enabled", (builtin.error, broad.error)
    return builtin, broad


def _denial(rule: Rule, command: str, scripts: HookScripts) -> str | None:
    decision = decide([rule], Call(command=command, cwd="/tmp"), scripts=scripts)
    assert not decision.errors, (command, decision.errors)
    return decision.deny.message if decision.deny else None


def test_the_matchers_change_no_verdict(tmp_path: Path) -> None:
    builtin, broad = _rules(tmp_path)
    scripts = HookScripts()
    rng = random.Random(18)
    differ: list[str] = []
    denied = 0
    for program in FILTERS + PATTERNS + INTERPRETERS:
        for command in spellings(program, rng):
            wanted = _denial(broad, command, scripts)
            denied += wanted is not None
            if _denial(builtin, command, scripts) != wanted:
                differ.append(command)
    assert not differ, f"{len(differ)} calls the matchers decide otherwise than the script alone: {differ[:20]}"
    assert denied > 3000  # the corpus does reach the script's denials


class Counted(HookScripts):
    """The hook's scripts, counting the rules they run."""

    def __init__(self) -> None:
        super().__init__()
        self.ran: list[str] = []

    def run(self, rule: Rule, call: Call, matched: list[int]) -> Outcome | None:
        self.ran.append(rule.name)
        return super().run(rule, call, matched)


def test_ordinary_reads_start_no_script(tmp_path: Path) -> None:
    builtin, _ = _rules(tmp_path)
    scripts = Counted()
    for command in ["cat README.md", "head -n 40 app.log", "tail -n 5 app.log", "wc -l src/*.py", "sort -u names.txt",
                    "cut -d, -f1 data.csv", "grep -n TODO src/app.py", "grep -rn TODO", "rg -n TODO src/",
                    "sed -n '1,20p' app.py", "sed -i 's/a/b/' app.py", "awk '{print $1}' access.log",
                    "jq .name package.json", "python3 script.py", "python3 -m pytest -q",
                    "python3 -W ignore script.py", "node server.js", "bash build.sh", "ruby -e 'puts 1'",
                    "python3 -c 'print(1)'", "bash -c 'make test'", "node -e 'console.log(1)'", "bun test"]:
        assert _denial(builtin, command, scripts) is None, command
        assert scripts.ran == [], command
    # ... and what may wait still meets the script
    for command in ["cat", "head -n 5", "grep TODO", "sed -n 1p -", "jq --arg a 1 --arg b 2 .x", "python3 -Wd",
                    "python3 -i script.py", "node -i"]:
        assert _denial(builtin, command, scripts) is not None, command
    assert len(scripts.ran) == 8
