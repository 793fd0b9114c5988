"""The `stdin_redirected` matcher key: a here-document, a here-string or `< FILE` is a redirection,
a pipe is not; and stdin-hang's matchers use it so that `cat > f <<EOF` starts no Lua VM."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from testing import claude_payload, make_repo, run_jouet

RULE = """
[[rule]]
name = "fed-sort"
why = "w"
mode = "deny"
message = "sort fed a file"
[rule.match]
command = "sort"
stdin_redirected = true
[rule.examples]
fires = ["sort < names.txt"]
quiet = ["sort names.txt"]
"""


@pytest.mark.parametrize(("command", "fires"), [
    ("sort < names.txt", True), ("sort <<< 'b a'", True), ("sort <<EOF\nb\na\nEOF", True),
    ("sort names.txt", False), ("cat names.txt | sort", False),
])
def test_the_key_reads_redirections_not_pipes(tmp_path: Path, command: str, fires: bool) -> None:
    rules = Path(os.environ["JOUET_CONFIG_DIR"], "rules")
    rules.mkdir(parents=True, exist_ok=True)
    (rules / "fed-sort.toml").write_text(RULE)
    proc = run_jouet("check", "--json", command, cwd=tmp_path)
    decided = json.loads(proc.stdout)
    assert ((decided.get("deny") or {}).get("rule") == "fed-sort") is fires, decided


def test_a_non_boolean_value_is_refused(tmp_path: Path) -> None:
    rules = Path(os.environ["JOUET_CONFIG_DIR"], "rules")
    rules.mkdir(parents=True, exist_ok=True)
    (rules / "fed-sort.toml").write_text(RULE.replace("stdin_redirected = true", 'stdin_redirected = "yes"'))
    proc = run_jouet("rule", "list", cwd=tmp_path)
    assert "`stdin_redirected` must be true or false" in proc.stdout + proc.stderr


def test_writing_a_file_from_a_here_document_starts_no_script(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    payload = claude_payload("cat > notes.md <<'EOF'\nplan\nEOF", repo)
    code = ("import sys\nfrom jouet_git.cli import main\n"
            "try:\n    main(['hook', 'claude', 'pre'])\nexcept SystemExit:\n    pass\n"
            "sys.stderr.write('\\nMODULES ' + ' '.join(sorted(sys.modules)))\n")
    import subprocess
    import sys

    subprocess.run([sys.executable, "-c", code], input=payload, cwd=repo, capture_output=True, text=True)
    proc = subprocess.run([sys.executable, "-c", code], input=payload, cwd=repo, capture_output=True, text=True)
    modules = set(proc.stderr.rsplit("MODULES ", 1)[1].split())
    assert "lupa" not in {m.split(".")[0] for m in modules}
    assert proc.stdout == ""
