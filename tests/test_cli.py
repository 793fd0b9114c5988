"""The command line as a newcomer meets it: usage errors, suggestions, colour, width, completions."""

from __future__ import annotations

import json
import os
import pty
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from testing import jouet_exe, run_jouet

from jouet_git import cli

ESC = "\033["


def test_help_lists_every_command_and_option() -> None:
    proc = run_jouet("--help")
    assert proc.returncode == 0
    for name in ("check", "parse", "rule", "setup", "hook", "trust", "plugin", "claim", "secrets", "completions"):
        assert f"  {name}" in proc.stdout
    for option in ("-h, --help", "-V, --version", "--color WHEN"):
        assert option in proc.stdout
    assert "explain" not in proc.stdout


def test_no_command_is_a_usage_error_with_usage_on_stderr() -> None:
    proc = run_jouet()
    assert proc.returncode == 2
    assert proc.stdout == "" and proc.stderr.startswith("usage: jouet")


def test_hook_with_no_arguments_is_a_usage_error() -> None:
    proc = run_jouet("hook")
    assert proc.returncode == 2
    assert proc.stdout == "" and proc.stderr.startswith("usage: jouet hook HARNESS EVENT")


def test_unknown_command_is_a_usage_error_with_a_suggestion() -> None:
    proc = run_jouet("frobnicate")
    assert proc.returncode == 2
    assert "unknown command 'frobnicate'" in proc.stderr and "did you mean" not in proc.stderr
    proc = run_jouet("chek", "git add -A")
    assert proc.returncode == 2
    assert proc.stderr.startswith("jouet: unknown command 'chek'; did you mean `check`?")


@pytest.mark.parametrize(("args", "hint"), [
    (["rule", "lst"], "did you mean `list`?"),
    (["rule", "tset", "--all"], "did you mean `test`?"),
    (["rule", "list", "--jsn"], "did you mean `--json`?"),
    (["secrets", "scan", "--scope", "staeged"], "did you mean `staged`?"),
    (["plugin", "lis"], "did you mean `list`?"),
])
def test_mistyped_subcommands_choices_and_options_get_suggestions(args: list[str], hint: str,
                                                                  tmp_path: Path) -> None:
    proc = run_jouet(*args, cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout
    assert hint in proc.stderr


def test_version_and_help_spellings() -> None:
    for flag in ("-V", "--version", "version"):
        proc = run_jouet(flag)
        assert proc.returncode == 0 and proc.stdout.startswith("jouet ")
    assert run_jouet("help", "rule").stdout.startswith("usage: jouet rule")


def test_no_help_text_names_a_command_that_does_not_exist() -> None:
    from jouet_git import cli
    from jouet_git.commands_index import COMMANDS

    texts = [run_jouet("--help").stdout]
    for name in cli.COMMANDS:
        if name != "hook":
            texts.append(run_jouet(name, "--help").stdout)
    text = "\n".join(texts)
    assert "explain" not in text
    for name in cli.COMMANDS:
        assert (name,) in COMMANDS, f"commands_index lacks {name}"


def _on_a_terminal(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> str:
    """Run jouet with its standard output on a pseudo-terminal; return what it printed."""
    main, child = pty.openpty()
    full = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "COLUMNS")}
    full.update(env or {})
    proc = subprocess.Popen([*jouet_exe(), *args], stdout=child, stderr=subprocess.PIPE, env=full, cwd=cwd)
    os.close(child)
    chunks = []
    while True:
        try:
            data = os.read(main, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=60)
    os.close(main)
    return b"".join(chunks).decode("utf-8", "replace")


def test_colour_only_on_a_terminal_and_as_asked(tmp_path: Path) -> None:
    env = {"TERM": "xterm", "FORCE_COLOR": ""}
    assert ESC in _on_a_terminal("rule", "list", env=env, cwd=tmp_path)
    assert ESC not in _on_a_terminal("rule", "list", env={**env, "NO_COLOR": "1"}, cwd=tmp_path)
    assert ESC not in _on_a_terminal("--color", "never", "rule", "list", env=env, cwd=tmp_path)
    assert ESC not in _on_a_terminal("rule", "list", "--color=never", env=env, cwd=tmp_path)
    assert ESC not in _on_a_terminal("rule", "list", env={**env, "TERM": "dumb"}, cwd=tmp_path)
    # In a pipe: no colour unless asked for.
    assert ESC not in run_jouet("rule", "list", cwd=tmp_path, env={"FORCE_COLOR": ""}).stdout
    assert ESC in run_jouet("rule", "list", cwd=tmp_path, env={"FORCE_COLOR": "1"}).stdout
    assert ESC in run_jouet("--color=always", "rule", "list", cwd=tmp_path, env={"NO_COLOR": "1"}).stdout
    bad = run_jouet("--color", "sometimes", "rule", "list", cwd=tmp_path)
    assert bad.returncode == 2 and "--color takes one of auto, always, never" in bad.stderr


@pytest.mark.parametrize("columns", [None, "80", "60", "250"])
def test_rule_list_fits_the_width(columns: str | None, tmp_path: Path) -> None:
    env = {"COLUMNS": columns} if columns else {}
    proc = run_jouet("rule", "list", cwd=tmp_path, env=env)
    assert proc.returncode == 0
    limit = min(int(columns or 100), 100)
    widest = max(len(line) for line in proc.stdout.splitlines())
    assert widest <= limit, [line for line in proc.stdout.splitlines() if len(line) > limit]
    # Nothing is lost: every rule's why is there, wrapped.
    joined = " ".join(proc.stdout.split())
    for row in __import__("json").loads(run_jouet("rule", "list", "--json", cwd=tmp_path).stdout):
        assert " ".join(row["why"].split()) in joined


def test_rule_list_on_a_narrow_terminal(tmp_path: Path) -> None:
    out = _on_a_terminal("rule", "list", env={"TERM": "xterm", "COLUMNS": "70", "NO_COLOR": "1"}, cwd=tmp_path)
    assert max(len(line) for line in out.splitlines()) <= 70


def _bash_complete(script: str, *words: str) -> list[str]:
    line = " ".join(f"'{w}'" for w in words)
    code = (f"{script}\nCOMP_WORDS=({line}); COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 )); COMPREPLY=()\n"
            "_jouet; printf '%s\\n' \"${COMPREPLY[@]}\"")
    # A `jouet` on PATH that only leaves a mark: completing must never start jouet.
    marks = Path(os.environ["HOME"]) / "jouet-ran"
    fake = Path(os.environ["HOME"]) / "bin" / "jouet"
    fake.parent.mkdir(exist_ok=True)
    fake.write_text(f"#!/bin/sh\ntouch {marks}\n")
    fake.chmod(0o755)
    proc = subprocess.run(["bash", "-c", code], capture_output=True, text=True, timeout=30,
                          env={**os.environ, "PATH": f"{fake.parent}:/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    assert not marks.exists()
    return [w for w in proc.stdout.split("\n") if w]


def test_bash_completions_come_from_the_parsers() -> None:
    proc = run_jouet("completions", "bash")
    assert proc.returncode == 0
    script = proc.stdout
    assert "complete -o default -F _jouet jouet" in script
    assert _bash_complete(script, "jouet", "ch") == ["check"]
    assert "completions" in _bash_complete(script, "jouet", "")
    assert _bash_complete(script, "jouet", "rule", "") == ["list", "test", "new", "promote", "log", "schema",
                                                            "gap", "types"]
    assert _bash_complete(script, "jouet", "rule", "list", "--j") == ["--json"]
    assert _bash_complete(script, "jouet", "secrets", "scan", "--scope", "") == ["staged", "tracked", "outgoing"]
    # A value option's value is skipped when finding the sub-command.
    assert _bash_complete(script, "jouet", "secrets", "scan", "--range", "a..b", "--j") == ["--json"]
    assert _bash_complete(script, "jouet", "--color", "") == ["auto", "always", "never"]
    assert _bash_complete(script, "jouet", "--color", "never", "ru") == ["rule"]
    # After a positional argument, bash falls back to file names (-o default).
    assert _bash_complete(script, "jouet", "rule", "test", "./x") == []


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed here")
def test_zsh_completions_load_and_complete(tmp_path: Path) -> None:
    script = tmp_path / "_jouet"
    script.write_text(run_jouet("completions", "zsh").stdout)
    assert subprocess.run(["zsh", "-n", str(script)], capture_output=True).returncode == 0
    # zsh's completion widgets need a terminal; stand-ins print what they were given.
    test = tmp_path / "t.zsh"
    test.write_text(
        "compdef() { print -r -- compdef $*; }\n"
        "_describe() { local -a arr; arr=(\"${(@P)${@[-1]}}\");\n"
        "  print -r -- \"describe $3: ${(j: :)${arr[@]%%:*}}\"; }\n"
        "compadd() { print -r -- \"compadd $*\"; }\n"
        "_files() { print -r -- files; }\n"
        f"source {script}\n"
        "t() { words=(\"$@\"); CURRENT=${#words}; _jouet; }\n"
        "t jouet ''\nt jouet rule ''\nt jouet rule list --\nt jouet secrets scan --scope ''\nt jouet rule test x\n")
    out = subprocess.run(["zsh", str(test)], capture_output=True, text=True, timeout=30).stdout.splitlines()
    assert out[0] == "compdef _jouet jouet"
    assert out[1].startswith("describe command: check parse rule")
    assert out[2] == "describe command: list test new promote log schema gap types"
    assert out[3] == "describe option: -h --help --json --cwd --color"
    assert out[4] == "compadd -- staged tracked outgoing"
    assert out[5] == "files"


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed here")
def test_fish_completions_complete(tmp_path: Path) -> None:
    script = tmp_path / "jouet.fish"
    script.write_text(run_jouet("completions", "fish").stdout)

    def complete(line: str) -> list[str]:
        proc = subprocess.run(["fish", "-c", f"source {script}; complete -C '{line}'"], capture_output=True,
                              text=True, timeout=30)
        assert proc.returncode == 0, proc.stderr
        return [row.split("\t")[0] for row in proc.stdout.splitlines()]

    assert complete("jouet chec") == ["check"]
    assert complete("jouet rule ") == sorted(["list", "test", "new", "promote", "log", "schema", "gap", "types"])
    assert complete("jouet secrets scan --scope ") == ["outgoing", "staged", "tracked"]
    assert "--json" in complete("jouet rule list --")


def test_the_command_index_knows_every_command_and_sub_command() -> None:
    """A rule's `needs` and scripts' jouet.has_command() read commands_index: it must not lag the CLI."""
    from jouet_git.commands_index import COMMANDS
    from jouet_git.completions import tree

    for node in tree():
        if node.path and node.path[0] != "hook":
            assert node.path in COMMANDS, f"commands_index lacks {' '.join(node.path)}"


def test_a_denial_stands_out_on_a_terminal(tmp_path: Path) -> None:
    out = _on_a_terminal("check", "git add -A", env={"TERM": "xterm"}, cwd=tmp_path)
    assert out.startswith("\033[1;31mdeny:\033[0m This stages every change")
    piped = run_jouet("check", "git add -A", cwd=tmp_path)
    assert piped.stdout.startswith("deny: This stages every change")


@pytest.mark.parametrize("args", [
    ["--jsonl"], ["--jsonl", "--workers", "1"], ["--workers=3", "--jsonl"], ["--jsonl", "--no-record"],
    ["--cwd", "/tmp", "--jsonl", "--harness", "codex"], ["--jsonl", "--cwd=/srv/app", "--harness=claude"],
    ["--jsonl", "--harness="], ["--jsonl", "--workers", "0"], ["--jsonl", "--workers", "40"],
])
def test_a_stream_reads_its_options_as_argparse_does(args: list[str]) -> None:
    """`jouet check --jsonl` with only the stream's own options, spelled out, starts without argparse
    (cli.check_stream_args): what it reads is what the command's parser would read."""
    parser, _ = cli.build_parser("check")
    assert vars(cli.check_stream_args(args)) == vars(parser.parse_args(args))


@pytest.mark.parametrize("args", [
    [], ["--workers", "2"], ["--jsonl", "git status"], ["--jsonl", "--json"], ["--jsonl", "--work", "2"],
    ["--jsonl", "--workers", "two"], ["--jsonl", "--workers", "-1"], ["--jsonl", "--workers"],
    ["--jsonl", "--cwd"], ["--jsonl", "--cwd", "--no-record"], ["--jsonl", "--jsonl"], ["--jsonl=yes"],
    ["--jsonl", "--color", "never"], ["--jsonl", "-h"], ["--jsonl", "--workers", "²"],
])
def test_anything_else_is_left_to_argparse(args: list[str]) -> None:
    """Any other spelling (a command, another option, an abbreviation, a bad or missing value, an
    option twice, --help) goes through argparse, which reads it or says what is wrong."""
    assert cli.check_stream_args(args) is None


def test_a_stream_starts_without_argparse_and_answers_as_before(tmp_path: Path) -> None:
    """A real `jouet check --jsonl` process: the stream's path imports neither argparse nor typing,
    and its answers and errors are those of the parsed command (a bad --workers is refused the same
    way, whichever way it was read)."""
    code = ("import sys\nfrom jouet_git.cli import main\ncode = main(sys.argv[1:])\n"
            "sys.stderr.write('\\nMODULES ' + ' '.join(sorted(sys.modules)))\nsys.exit(code)\n")
    line = json.dumps({"command": "git add -A"}) + "\n"
    run_jouet("check", "--jsonl", input=line, cwd=tmp_path)  # builds the rule set cache
    proc = subprocess.run([sys.executable, "-c", code, "check", "--jsonl", "--workers", "1"], input=line,
                          cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["deny"]["rule"] == "git-add-all"
    modules = set(proc.stderr.rsplit("MODULES ", 1)[1].split())
    assert "jouet_git.commands.check" in modules
    assert not {"argparse", "typing", "shutil"} & modules
    for spelling in (["--workers", "0"], ["--workers=0"]):
        refused = run_jouet("check", "--jsonl", *spelling, input=line, cwd=tmp_path)
        assert refused.returncode == 2 and "--workers 0: give a number from 1" in refused.stderr
    slow = run_jouet("check", "--jsonl", "--workers", "x", input=line, cwd=tmp_path)
    assert slow.returncode == 2 and "invalid int value: 'x'" in slow.stderr
