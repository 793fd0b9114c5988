"""Rules of one's own written with the state keys (seen, min_read_lines, min_code_lines, fnox,
secret_vars, secret_args, secret_files) and their example keys, run through real hooks in sessions
that read, edit and read again."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from testing import make_repo, run_jouet

from jouet_git import fnox

MINE = """\
[[rule]]
name = "my-reread"
why = "read once"
mode = "deny"
message = "you have read this already"
[[rule.match]]
tool = "Read"
seen = true
[[rule.match]]
command = ["cat", "head", "tail", "sed", "nl"]
seen = true
[rule.examples]
fires = [{ tool = "Read", path = "a.py", seen = true }, { command = "sed -n '1,5p' a.py", seen = true }]
quiet = [{ tool = "Read", path = "a.py" }, { command = "cat a.py", seen = false }]

[[rule]]
name = "my-long-read"
why = "long reads"
mode = "deny"
message = "that is a lot of lines"
[[rule.match]]
command = ["cat", "head", "tail", "sed", "nl"]
min_read_lines = 100
[rule.examples]
fires = [{ command = "cat big.log", read_lines = 100 }]
quiet = [{ command = "cat big.log", read_lines = 99 }, "cat big.log"]

[[rule]]
name = "my-code-read"
why = "long code reads"
mode = "deny"
message = "that is a lot of code"
[[rule.match]]
tool = "Read"
min_code_lines = 200
[rule.examples]
fires = [{ tool = "Read", path = "a.py", code_lines = 250, read_lines = 250 }]
quiet = [{ tool = "Read", path = "a.log", read_lines = 250 }]

[[rule]]
name = "my-fnox"
why = "fnox projects"
mode = "deny"
message = "that is a fnox secret"
[[rule.match]]
command = ["echo", "printf"]
secret_vars = true
[[rule.match]]
command = ["printenv", "fnox get"]
secret_args = true
[[rule.match]]
command = ["cat", "head"]
secret_files = true
[[rule.match]]
tool = "Read"
secret_files = true
[[rule.match]]
command = "deploy"
fnox = false
[rule.examples]
fires = [
    { command = "echo $BILLING", fnox = { secrets = ["BILLING"] } },
    { command = "printenv BILLING", fnox = { secrets = ["BILLING"] } },
    { command = "cat conf/s.env", fnox = { files = ["conf/s.env"] } },
    { tool = "Read", path = "conf/s.env", fnox = { files = ["conf/s.env"] } },
    "deploy",
]
quiet = [
    "echo $BILLING",
    { command = "echo '$BILLING'", fnox = { secrets = ["BILLING"] } },
    { command = "printenv HOME", fnox = { secrets = ["BILLING"] } },
    { command = "deploy", fnox = {} },
]
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # The built-in rules that use the same keys would answer first: these tests are about one's own.
    monkeypatch.setenv("JOUET_RULES_DISABLE", "reread,large-read")
    rules = Path(os.environ["JOUET_CONFIG_DIR"]) / "rules"
    rules.mkdir(parents=True, exist_ok=True)
    (rules / "mine.toml").write_text(MINE)
    files = {
        "src/app.py": "".join(f"def f{i}():\n    return {i}\n" for i in range(150)),
        "src/util.py": "".join(f"x{i} = {i}\n" for i in range(50)),
        "build.log": "".join(f"step {i}\n" for i in range(400)),
    }
    return make_repo(tmp_path / "repo", files)


def payload(cwd: Path, tool: str, session: str = "s1", agent: str | None = None, **tool_input: Any) -> str:
    out = {"session_id": session, "cwd": str(cwd), "hook_event_name": "PreToolUse", "tool_name": tool,
           "tool_input": tool_input}
    if agent is not None:
        out["agent_id"] = agent
    return json.dumps(out)


def hook(cwd: Path, tool: str, session: str = "s1", agent: str | None = None, **tool_input: Any) -> str | None:
    """What the pre-tool hook answers: the rule that denied, or None."""
    proc = run_jouet("hook", "claude", "pre", input=payload(cwd, tool, session, agent, **tool_input), cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    if not proc.stdout.strip():
        return None
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny", out
    reason: str = out["permissionDecisionReason"]
    return reason.rsplit("[jouet rule: ", 1)[1].rstrip("]")


def read(cwd: Path, path: str, session: str = "s1", **given: Any) -> str | None:
    return hook(cwd, "Read", session, file_path=str(cwd / path), **given)


def bash(cwd: Path, command: str, session: str = "s1") -> str | None:
    return hook(cwd, "Bash", session, command=command)


def test_the_rules_load_and_pass_their_examples(repo: Path) -> None:
    proc = run_jouet("rule", "test", "--all", cwd=repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for name in ("my-reread", "my-long-read", "my-code-read", "my-fnox"):
        assert f"ok   {name} " in proc.stdout or f"ok {name} " in " ".join(proc.stdout.split())


def test_a_session_that_reads_edits_and_reads_again(repo: Path) -> None:
    # The first read goes through; the same lines again are `seen`, by any read tool or shell read.
    assert read(repo, "src/util.py") is None
    assert read(repo, "src/util.py") == "my-reread"
    # The way through: a denied read is forgotten, so making it again goes through.
    assert read(repo, "src/util.py", offset=10, limit=5) is None
    assert bash(repo, "sed -n '10,14p' src/util.py") == "my-reread"
    assert bash(repo, "sed -n '10,15p' src/util.py") is None  # line 15 was never shown
    assert bash(repo, "cd src && head -n 15 util.py | tail -n 3 | nl") == "my-reread"
    # Another session, and a subagent of this one, have seen nothing.
    assert read(repo, "src/util.py", session="s2") is None
    assert read(repo, "src/util.py") is None
    assert read(repo, "src/util.py") == "my-reread"
    assert read(repo, "src/util.py") is None
    assert hook(repo, "Read", "s1", "subagent-1", file_path=str(repo / "src/util.py")) is None
    assert hook(repo, "Read", "s1", "subagent-1", file_path=str(repo / "src/util.py")) == "my-reread"
    # An edit changes the file: what was read of it is no longer what it holds.
    assert hook(repo, "Edit", file_path=str(repo / "src/util.py"), old_string="x1 = 1", new_string="x1 = 2") is None
    (repo / "src" / "util.py").write_text((repo / "src" / "util.py").read_text().replace("x1 = 1\n", "x1 = 2\n"))
    assert read(repo, "src/util.py") is None
    assert read(repo, "src/util.py") == "my-reread"
    # A shell read, then the Read tool over part of the same lines.
    assert bash(repo, "head -n 100 build.log") == "my-long-read"  # 100 lines: the long-read rule denies
    assert bash(repo, "head -n 99 build.log") is None
    assert read(repo, "build.log", offset=1, limit=50) == "my-reread"
    assert read(repo, "build.log", offset=90, limit=20) is None  # lines 100 to 109 were never shown


def test_line_counts_for_min_read_lines_and_min_code_lines(repo: Path) -> None:
    assert read(repo, "src/app.py") == "my-code-read"            # 300 lines of Python
    assert read(repo, "src/app.py", limit=150) is None             # 150 lines
    assert read(repo, "build.log", session="s3") is None          # 400 lines, but not code
    assert bash(repo, "cat build.log", session="s4") == "my-long-read"
    assert bash(repo, "tail -n 5 build.log", session="s4") is None
    assert bash(repo, "cat build.log | head -n 20", session="s5") is None


def test_a_fnox_project(repo: Path) -> None:
    fnox.clear_cache()
    (repo / "fnox.toml").write_text(
        '[providers]\nage = { type = "age", recipients = ["age1x"] }\n'
        'dotenv = { type = "plain", file = "conf/secrets.env", format = "env" }\n'
        '[secrets]\nBILLING = { provider = "age", value = "YWdl" }\nLOG_LEVEL = { default = "info" }\n'
        'DB = { provider = "dotenv", value = "DATABASE_URL" }\n')
    (repo / "conf").mkdir()
    (repo / "conf" / "secrets.env").write_text("DATABASE_URL=postgres://u:p@db/app\n")
    assert bash(repo, "echo $BILLING") == "print-secrets"   # the built-in rule knows the project's names
    assert bash(repo, "printenv DB") == "print-secrets"
    assert bash(repo, "echo \"$LOG_LEVEL\"") is None
    assert bash(repo, "cat conf/secrets.env") == "secret-files"
    assert read(repo, "conf/secrets.env") == "secret-files"
    assert bash(repo, "deploy") is None   # fnox = false: this is a fnox project
    (repo / "fnox.toml").unlink()
    assert bash(repo, "deploy") == "my-fnox"
    assert bash(repo, "cat conf/secrets.env") is None
