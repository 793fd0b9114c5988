"""stdin-hang's matchers for filters, pattern programs and interpreters let a call through to the
script only when the script could speak: `cat README.md`, `grep -n TODO app.py` and `python3 x.py`
start no Lua VM. They must never hold back a call the script would deny. Checked here against the
same script behind the same matchers cut down to the program and how its options are read (every
call of those programs run alone with nothing fed to it), over many spellings: options alone, with
values, attached and in clusters, long options with and without `=`, `--`, `-`, and every count of
operands the script tells apart."""

from __future__ import annotations

import itertools
import json
import random
import shutil
import tomllib
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

# What a matcher of these programs keeps in the reference: which program, read with which value
# options, alone and with nothing fed to it, without --help or --version. Everything else (how many
# operands, which ones, the options that make the script stay silent) is what is checked.
KEPT = ("command", "value_flags", "unless_with", "stdin_redirected")
HELP = {"--help", "-h", "--version", "-V", "--files", "--type-list"}


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + " }"
    return json.dumps(value)  # strings and lists of strings: JSON's quoting is TOML's


def broad_rule_text() -> str:
    """stdin-hang.toml with each matcher of these programs cut down to KEPT (and --help, --version):
    every call the built-in matchers let through, and the ones they keep from the script (--help,
    --version and rg's listings are kept from it in both)."""
    doc = tomllib.loads((ROOT / "rules" / "stdin-hang.toml").read_text())
    [rule] = doc["rule"]
    programs = set(FILTERS + PATTERNS + INTERPRETERS) | {"python3.*"}
    lines = ["[[rule]]", 'name = "stdin-hang"', 'why = "the reference"', 'script = "stdin-hang.luau"']
    for matcher in rule["match"]:
        commands = matcher.get("command")
        commands = [commands] if isinstance(commands, str) else commands
        if not commands or not set(commands) <= programs:
            continue
        lines.append("[[rule.match]]")
        for key in KEPT:
            if key in matcher:
                lines.append(f"{key} = {_toml(matcher[key])}")
        help_flags = [flag for flag in matcher.get("unless_flags", []) if flag in HELP]
        lines.append(f"unless_flags = {_toml(help_flags)}")
    return "\n".join(lines) + "\n"


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
    """Every option form, each with one operand list (taken in turn from a shuffled OPERANDS, so every
    list meets every kind of option), and a sample of two options together (every form with every
    operand list would take the suite a minute)."""
    forms = option_forms()
    operands = rng.sample(OPERANDS, len(OPERANDS))
    out = [" ".join([program, *f, *operands[k % len(operands)]]) for k, f in enumerate(forms)]
    pairs = list(itertools.product(forms, forms, OPERANDS))
    out += [" ".join([program, *a, *b, *o]) for a, b, o in rng.sample(pairs, 60)]
    return out


def _rules(tmp_path: Path) -> tuple[Rule, Rule]:
    [builtin] = load_file(str(ROOT / "rules" / "stdin-hang.toml"), BUILTIN, BUILTIN)
    shutil.copy(ROOT / "rules" / "stdin-hang.luau", tmp_path / "stdin-hang.luau")
    (tmp_path / "broad.toml").write_text(broad_rule_text())
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
    assert denied > 2000  # the corpus does reach the script's denials


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
