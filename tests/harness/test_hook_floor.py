"""The common hook path (issue 18): what a `git status` hook imports, and the cheap tests that keep
the write finder, guarded.py, the alias reader and the read tracker off it, each checked against
the full answer it stands in front of."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from testing import claude_payload, git, make_repo, run_jouet

from jouet_git.engine.model import Rule
from jouet_git.reads import READERS
from jouet_git.shell import parse
from jouet_git.shell.maywrite import may_write
from jouet_git.shell.writes import writes

# Modules the common path used to import and no longer needs for a call that writes nothing, runs
# no alias and shows no file.
OFF_THE_PATH = ("jouet_git.guarded", "jouet_git.shell.writes", "jouet_git.shell.workdirs", "jouet_git.gitalias",
                "jouet_git.reads")


def hook_modules(command: str, repo: Path) -> tuple[set[str], str]:
    """The modules `jouet hook claude pre` imports for COMMAND in REPO, and what it printed."""
    payload = claude_payload(command, repo)
    run_jouet("hook", "claude", "pre", input=payload, cwd=repo)  # builds the rule set cache
    code = ("import sys\nfrom jouet_git.cli import main\nmain(['hook', 'claude', 'pre'])\n"
            "sys.stderr.write('\\nMODULES ' + ' '.join(sorted(sys.modules)))\n")
    proc = subprocess.run([sys.executable, "-c", code], input=payload, cwd=repo, capture_output=True, text=True,
                          env=dict(os.environ))
    assert proc.returncode == 0, proc.stderr
    return set(proc.stderr.rsplit("MODULES ", 1)[1].split()), proc.stdout


def test_git_status_imports_none_of_the_write_alias_or_read_modules(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    modules, out = hook_modules("git status", repo)
    assert "jouet_git.engine.runner" in modules
    assert not set(OFF_THE_PATH) & modules, set(OFF_THE_PATH) & modules
    assert "deny" not in out


@pytest.mark.parametrize("command", [
    "sed -n 1,40p src/app.py", "cat README.md", "grep -n TODO src/app.py", "head -n 40 app.log", "python3 script.py",
    "python3 -c 'import json, sys; print(sorted(json.load(sys.stdin)))' < data.json", "node server.js",
])
def test_ordinary_reads_and_programs_start_no_lua_vm_and_parse_no_python(command: str, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    modules, _ = hook_modules(command, repo)  # (the second read of a file may meet reread: not the point here)
    unwanted = {"lupa", "jouet_git.luau.sandbox", "ast", "jouet_git.guarded", "jouet_git.shell.writes", "contextlib"}
    assert not unwanted & modules, unwanted & modules


@pytest.mark.parametrize(("command", "needed"), [
    ("echo hi > notes.txt", ("jouet_git.guarded", "jouet_git.shell.writes")),  # a redirection writes
    ("git config user.name me", ("jouet_git.guarded", "jouet_git.shell.writes")),
    ("cat README.md", ("jouet_git.reads",)),  # a read is tracked
    ("git nuke", ("jouet_git.gitalias",)),  # not one of git's own subcommands: maybe an alias
])
def test_a_call_that_needs_them_still_imports_them(command: str, needed: tuple[str, ...], tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    modules, _ = hook_modules(command, repo)
    assert set(needed) <= modules, set(needed) - modules


def test_an_alias_still_expands(tmp_path: Path) -> None:
    """The alias reader still runs for a subcommand that is not git's own: `git aa` is the `git add -A` it runs."""
    repo = make_repo(tmp_path / "r")
    git(repo, "config", "alias.aa", "add -A")
    proc = run_jouet("hook", "claude", "pre", input=claude_payload("git aa", repo), cwd=repo)
    assert "git-add-all" in proc.stdout and "deny" in proc.stdout, proc.stdout


# Commands writes() finds writes in, and commands it finds none in, of every kind it looks at.
COMMANDS = [
    "git status", "git log --oneline -5", "git diff HEAD~1", "ls -la", "grep -rn foo src", "cat a b",
    "echo x > a.txt", "echo x >> ~/.bashrc", "echo x > /dev/null", "echo x 2> err.txt", "printf x | tee f",
    "sed -i 's/a/b/' f", "sed -n 1p f", "perl -pi -e 's/a/b/' f", "perl -e 'unlink q(f)'", "rm -rf d",
    "unlink f", "rmdir d", "truncate -s 0 f", "touch f", "chmod -x .git/hooks/pre-commit", "chown me f",
    "cp a b", "mv a b", "install -m 755 a /usr/local/bin/a", "ln -sf a b", "rsync -a src/ dst/",
    "dd if=/dev/zero of=f bs=1", "find d -delete", "find d -name x -exec rm {} +", "find d -name x",
    "tar xzf a.tgz -C out", "tar czf a.tgz d", "unzip a.zip -d out", "curl -o f https://x", "curl https://x",
    "wget -O f https://x", "python3 -c 'open(\"f\", \"w\").write(\"x\")'", "python -c 'print(1)'",
    "pypy3 -c 'import os; os.remove(\"f\")'", "node -e 'require(\"fs\").writeFileSync(\"f\", \"x\")'",
    "ruby -e 'File.write(\"f\", \"x\")'", "git rm -q f", "git rm --cached f", "git -C sub mv a b",
    "git config core.hooksPath /tmp/x", "git config --get user.name", "git -c core.editor=vim config -e",
    "cd sub && echo x > f", "sh -c 'echo x > f'", "bash -c 'rm -rf d'", "xargs rm < list", "sudo rm -rf /x",
    "env X=1 touch f", "timeout 5 cp a b", "vim f", "nano f", "patch -p1 < fix.diff", "shred -u f",
    "cat > notes.md <<'EOF'\nhello\nEOF", "python3 - <<'EOF'\nopen('f', 'w').write('x')\nEOF",
    "git log --grep rm", "echo rm", "ls > listing.txt", "git status > out.txt",
    "python3 script.py", "python3 -W ignore -c 'import shutil; shutil.copy(\"a\", \"b\")'", "node server.js",
    "node -e 'console.log(1)'", "deno eval 'Deno.removeSync(\"f\")'", "php -r 'unlink(\"f\");'",
    "python3 -c 'import pathlib; pathlib.Path(\"f\").write_text(\"x\")'", "perl script.pl",
    "python3 -c 'import os; os.rename(\"a\", \"b\")'", "bun -e 'await Bun.write(\"f\", \"x\")'",
    "python3 -c \"import os; os.system('rm -rf d')\"", "node -p 'fs.unlinkSync(\"f\")'",
    "curl -sSo f https://x", "curl --output=f https://x", "curl -ofile https://x", "curl -s -o f https://x",
    "curl -sL https://x", "wget -qO f https://x", "wget --output-document=f https://x", "wget -Of https://x",
    "wget https://x", "curl --output-dir d -O https://x/f", "sort -o f in", "sort -ruo f in", "sort --output=f in",
    "uniq in out", "uniq -c in", "sort in", "echo x | sponge f", "gzip f", "gzip -c f", "split -l 5 f p",
    "git clone https://x/r.git", "git worktree add ../wt", "git archive -o a.tar HEAD", "7z x a.7z -oout",
    "sed -n 'w out.txt' in", "sed 's/a/b/w out.txt' in", "sed -e '1W out.txt' in", "sed -ne 'w out.txt' in",
    "sed --expression='w out.txt' in", "sed -n '/x/w out.txt' in",
    "awk '{print > \"a/b.txt\"}' in", "gawk -e 'BEGIN{printf 1 >> \"./c.json\"}'", "awk '{print $1}' in",
    "python3 -m json.tool a.json b.json", "openssl rand -out r.bin 16", "ruby -pi -e 'x' f", "gawk -i inplace 1 f",
    "sd a b f", "yq -i .a f", "iconv -o o i", "vim -es -c 'w o' i",
    "python3 -c 'import sys; open(sys.argv[1], \"w\")' f",
]


@pytest.mark.parametrize("command", COMMANDS)
def test_may_write_is_true_whenever_writes_finds_a_write(command: str) -> None:
    commands = parse(command).commands
    assert may_write(commands) or not writes(commands), [w.to_json() for w in writes(commands)]


@pytest.mark.parametrize("command", ["git status", "git log --oneline -5", "ls -la", "grep -rn foo src",
                                     "echo x > /dev/null", "cat a b", "python3 script.py", "python3 -c 'print(1)'",
                                     "node -e 'console.log(1)'", "python3 -m pytest -q",
                                     "curl -s https://example.com", "curl -sSL -H 'Accept: x' https://x",
                                     "sort -u names.txt", "uniq -c names.txt", "sort -k2 -t, data.csv",
                                     "sed -n 1,40p src/app.py", "sed 's/a/b/' f"])
def test_may_write_is_false_for_plain_reads(command: str) -> None:
    assert not may_write(parse(command).commands)


def test_matchers_for_skips_only_matchers_about_other_programs() -> None:
    rule = Rule({"name": "r", "match": [
        {"command": ["npm publish"]},  # another program: never made
        {"command": ["git push", "npm publish"]},  # one of them is git
        {"command": ["g*t push"]},  # a wildcard program may match anything
        {"tool": "Edit"},  # no command: about the tool
        {"command": ["cargo publish"], "flags": ["--force"]},
    ]}, "user", "user", "rules.toml", 1)
    picked = rule.matchers_for({"git"})
    assert [m.command for m in picked] == [(("git", "push"), ("npm", "publish")), (("g*t", "push"),), None]
    every = rule.matchers
    assert [m.command for m in every] == [(("npm", "publish"),), (("git", "push"), ("npm", "publish")),
                                         (("g*t", "push"),), None, (("cargo", "publish"),)]
    assert every[1] is picked[0]  # made once
    assert rule.matchers_for({"git"}) is every


def test_shell_readers_are_the_read_trackers() -> None:
    assert {"cat", "head", "tail", "sed", "nl"} == READERS


def test_a_hook_ends_with_its_answer_and_ledger_line_written(tmp_path: Path) -> None:
    """`jouet hook` ends without the interpreter's teardown: what it prints and its ledger line are
    complete when the process is gone."""
    repo = make_repo(tmp_path / "r")
    proc = subprocess.run([sys.executable, "-m", "jouet_git", "hook", "claude", "pre"],
                          input=claude_payload("git add -A", repo), cwd=repo, capture_output=True, text=True,
                          env=dict(os.environ))
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    ledger = Path(os.environ["JOUET_STATE_DIR"]) / "ledger.jsonl"
    last = json.loads(ledger.read_text().splitlines()[-1])
    assert last["command"] == "git add -A" and last["decision"] == "deny"


def test_a_heredoc_written_to_a_file_compiles_no_wildcard_or_printf_and_tracks_no_read(tmp_path: Path) -> None:
    """`cat > notes/plan.md <<'EOF'` shows no file (cat reads the here-document): the read tracker stays
    off; the built-in rules' stdout_to wildcards (`*.gitleaksignore`...) are matched without compiling
    a regular expression, importing the shell's printf does not compile its format, and guarded.py's
    pattern of jouet's directories is not compiled for a path without `/jouet`."""
    repo = make_repo(tmp_path / "r")
    command = "cat > notes/plan.md <<'EOF'\n" + "- step: write the test\n" * 20 + "EOF"
    payload = claude_payload(command, repo)
    run_jouet("hook", "claude", "pre", input=payload, cwd=repo)
    code = ("import re, sys\nfrom jouet_git.cli import main\nmain(['hook', 'claude', 'pre'])\n"
            "sys.stderr.write('\\nMODULES ' + ' '.join(sorted(sys.modules)))\n"
            "sys.stderr.write('\\nPATTERNS ' + repr([str(key[1]) for key in re._cache]))\n")
    proc = subprocess.run([sys.executable, "-c", code], input=payload, cwd=repo, capture_output=True, text=True,
                          env=dict(os.environ))
    assert proc.returncode == 0, proc.stderr
    modules = set(proc.stderr.split("\nMODULES ", 1)[1].split("\nPATTERNS ", 1)[0].split())
    patterns = proc.stderr.rsplit("\nPATTERNS ", 1)[1]
    assert "jouet_git.shell.writes" in modules and "jouet_git.guarded" in modules  # the write was looked at
    # ... but what cat writes is not worked out: no later command could run it (shell/reader.py: flush_feeds)
    assert not {"jouet_git.reads", "jouet_git.shell.pure", "jouet_git.shell.follow"} & modules
    assert "gitleaks" not in patterns and "jouet/rules" not in patterns and "sbqdiou" not in patterns, patterns
    assert "local/state" not in patterns, patterns  # guarded.py's default layout: the path holds no /jouet
