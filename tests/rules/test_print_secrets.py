"""print-secrets and secret-files through `jouet hook claude pre`, with real files and real shells.

Each denial is checked against what the command would really print (run here with a secret in the
environment or in the file), and the alternatives the messages suggest are checked to be quiet and
to print no secret when run.
"""

from __future__ import annotations

import json
import os
import random
import re
import string
import subprocess
from pathlib import Path
from typing import Any

import pytest
from testing import claude_payload, make_repo, run_jouet


def secret(prefix: str = "") -> str:
    rng = random.Random()
    return prefix + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(32))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "app", {"README.md": "app\n", "src/main.py": "print('hi')\n"})


def reply(payload: str, cwd: Path) -> dict[str, Any] | None:
    proc = run_jouet("hook", "claude", "pre", input=payload, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout) if proc.stdout.strip() else None


def bash(command: str, cwd: Path) -> dict[str, Any] | None:
    return reply(claude_payload(command, cwd), cwd)


def tool(name: str, cwd: Path, **tool_input: Any) -> dict[str, Any] | None:
    return reply(claude_payload("", cwd, tool_name=name, tool_input=tool_input), cwd)


def denied_by(answer: dict[str, Any] | None, rule: str) -> str:
    assert answer is not None, "expected a denial, the hook said nothing"
    out = answer["hookSpecificOutput"]
    assert out.get("permissionDecision") == "deny", out
    reason: str = out["permissionDecisionReason"]
    assert reason.endswith(f"[jouet rule: {rule}]"), reason
    return reason


def run(command: str, cwd: Path, env: dict[str, str] | None = None) -> str:
    """Run COMMAND in bash for real; what it prints."""
    full = dict(os.environ)
    full.update(env or {})
    proc = subprocess.run(["bash", "-c", command], cwd=cwd, env=full, capture_output=True, text=True, timeout=30)
    return proc.stdout + proc.stderr


def suggested(reason: str) -> list[str]:
    """The commands a message suggests, in backticks."""
    return re.findall(r"`([^`]+)`", reason)


# -- print-secrets ---------------------------------------------------------------------------------


PRINTS_A_SECRET = [
    ("echo $GITHUB_TOKEN", "GITHUB_TOKEN"),
    ('echo "${OPENAI_API_KEY}"', "OPENAI_API_KEY"),
    ("printenv AWS_SECRET_ACCESS_KEY", "AWS_SECRET_ACCESS_KEY"),
    ("printf '%s\\n' \"$DATABASE_URL\"", "DATABASE_URL"),
    ("echo $GITHUB_TOKEN | base64", "GITHUB_TOKEN"),
    ("bash -c 'echo $NPM_TOKEN'", "NPM_TOKEN"),
    ("declare -p GITHUB_TOKEN", "GITHUB_TOKEN"),
    ("python3 -c 'import os; print(os.environ[\"OPENAI_API_KEY\"])'", "OPENAI_API_KEY"),
    ("python3 - <<'EOF'\nimport os\nprint(os.getenv('DB_PASSWORD'))\nEOF", "DB_PASSWORD"),
    ("perl -e 'print $ENV{STRIPE_SECRET_KEY}'", "STRIPE_SECRET_KEY"),
]


@pytest.mark.parametrize(("command", "name"), PRINTS_A_SECRET)
def test_printing_a_secret_variable_is_denied(project: Path, command: str, name: str) -> None:
    value = secret("s3cr3t")
    printed = run(command, project, {name: value})
    assert value in printed or value in _b64_decoded(printed)  # it really would print it
    reason = denied_by(bash(command, project), "print-secrets")
    assert name in reason
    assert value not in reason


def _b64_decoded(text: str) -> str:
    import base64

    try:
        return base64.b64decode(text.strip()).decode("utf-8", "replace")
    except ValueError:
        return ""


@pytest.mark.parametrize("command", ["env", "printenv", "export -p", "env | sort", "printenv | grep -i token"])
def test_dumping_every_variable_is_denied(project: Path, command: str) -> None:
    value = secret()
    assert value in run(command, project, {"SOME_API_TOKEN": value})
    reason = denied_by(bash(command, project), "print-secrets")
    assert "env | cut -d= -f1" in reason


QUIET_ABOUT_VARIABLES = [
    "echo $PATH",
    "echo '$GITHUB_TOKEN'",
    "echo ${#GITHUB_TOKEN}",
    '[ -n "$GITHUB_TOKEN" ] && echo set',
    "echo $TOKENIZERS_PARALLELISM",
    "echo $KEYBOARD",
    "printenv HOME",
    "env | cut -d= -f1",
    "printenv | wc -l",
    "echo $GITHUB_TOKEN > token.txt",
    "x=$(printenv GITHUB_TOKEN); test -n \"$x\"",
    "echo \"$GITHUB_TOKEN\" | tr -d '[:print:]' | wc -c",
]


@pytest.mark.parametrize("command", QUIET_ABOUT_VARIABLES)
def test_quiet_where_no_secret_reaches_the_transcript(project: Path, command: str) -> None:
    value = secret()
    assert bash(command, project) is None
    assert value not in run(command, project, {"GITHUB_TOKEN": value, "KEYBOARD": "us"})


def test_the_suggested_checks_are_quiet_and_print_no_secret(project: Path) -> None:
    value = secret()
    reason = denied_by(bash("echo $GITHUB_TOKEN", project), "print-secrets")
    checks = [c for c in suggested(reason) if "GITHUB_TOKEN" in c and c != "echo $GITHUB_TOKEN"]
    assert checks, reason
    for command in checks:
        assert bash(command, project) is None, command
        out = run(command, project, {"GITHUB_TOKEN": value})
        assert value not in out and out.strip(), command
    dump = denied_by(bash("env", project), "print-secrets")
    assert bash("env | cut -d= -f1", project) is None
    assert "env | cut -d= -f1" in suggested(dump)
    assert value not in run("env | cut -d= -f1", project, {"GITHUB_TOKEN": value})


# -- secret-files ----------------------------------------------------------------------------------


@pytest.fixture
def env_file(project: Path) -> str:
    value = secret("sk_live_")
    (project / ".env").write_text(f"DEBUG=1\nSTRIPE_KEY={value}\n")
    (project / ".env.example").write_text("DEBUG=1\nSTRIPE_KEY=\n")
    return value


@pytest.mark.parametrize("command", [
    "cat .env", "head -n 5 .env", "grep STRIPE .env", "sed -n '1,5p' .env", "cat .env | sort",
    "awk -F= '{print $2}' .env", "cd src && cat ../.env", "base64 .env",
])
def test_shell_reads_of_env_files_are_denied(project: Path, env_file: str, command: str) -> None:
    out = run(command, project)
    assert env_file in out or env_file in _b64_decoded(out)  # it really would show the value
    reason = denied_by(bash(command, project), "secret-files")
    assert ".env" in reason
    assert env_file not in reason


@pytest.mark.parametrize("command", [
    "cat .env.example", "grep -c STRIPE .env", "grep -l STRIPE .env", "cut -d= -f1 .env",
    "grep -o '^[A-Za-z_][A-Za-z0-9_]*=' .env", "sed 's/=.*//' .env", "awk -F= '{print $1}' .env",
    "cat .env > /tmp/jouet-test-copy", "wc -l .env", "test -f .env && echo exists",
])
def test_reads_that_show_no_value_are_quiet(project: Path, env_file: str, command: str) -> None:
    assert bash(command, project) is None
    if ">" not in command:
        assert env_file not in run(command, project)


def test_the_suggested_alternatives_for_env_files_are_quiet(project: Path, env_file: str) -> None:
    reason = denied_by(bash("cat .env", project), "secret-files")
    alternatives = [c for c in suggested(reason) if ".env" in c and c != "cat .env"]
    assert len(alternatives) >= 3, reason
    for command in alternatives:
        assert bash(command, project) is None, command
        out = run(command, project)
        assert env_file not in out, command
    assert "STRIPE_KEY=" in run("grep -o '^[A-Za-z_][A-Za-z0-9_]*=' .env", project)


def test_read_tool_on_secret_files_is_denied(project: Path, env_file: str) -> None:
    reason = denied_by(tool("Read", project, file_path=str(project / ".env")), "secret-files")
    assert env_file not in reason
    assert tool("Read", project, file_path=str(project / ".env.example")) is None
    assert tool("Read", project, file_path=str(project / "src" / "main.py")) is None

    ssh = Path(os.environ["HOME"]) / ".ssh"
    ssh.mkdir()
    (ssh / "id_ed25519").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nx\n-----END OPENSSH PRIVATE KEY-----\n")
    (ssh / "id_ed25519.pub").write_text("ssh-ed25519 AAAA test\n")
    reason = denied_by(tool("Read", project, file_path=str(ssh / "id_ed25519")), "secret-files")
    assert "ssh-keygen -lf" in reason
    assert tool("Read", project, file_path=str(ssh / "id_ed25519.pub")) is None


def test_credentials_under_home_are_denied_by_path(project: Path) -> None:
    aws = Path(os.environ["HOME"]) / ".aws"
    aws.mkdir()
    value = secret()
    (aws / "credentials").write_text(f"[default]\naws_secret_access_key = {value}\n")
    reason = denied_by(bash("cat ~/.aws/credentials", project), "secret-files")
    assert "aws sts get-caller-identity" in reason and value not in reason
    denied_by(tool("Read", project, file_path=str(aws / "credentials")), "secret-files")
    assert bash("ls -l ~/.aws/credentials", project) is None


def test_npmrc_is_a_secret_only_when_it_holds_a_token(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JOUET_RULES_DISABLE", "reread")  # the same file read twice in one session
    npmrc = project / ".npmrc"
    npmrc.write_text("save-exact=true\n")
    assert bash("cat .npmrc", project) is None
    assert tool("Read", project, file_path=str(npmrc)) is None
    npmrc.write_text(f"//registry.npmjs.org/:_authToken={secret('npm_')}\n")
    denied_by(bash("cat .npmrc", project), "secret-files")
    denied_by(tool("Read", project, file_path=str(npmrc)), "secret-files")


def test_grep_tool_showing_lines_of_a_secret_file_is_denied(project: Path, env_file: str) -> None:
    path = str(project / ".env")
    denied_by(tool("Grep", project, pattern="STRIPE", path=path, output_mode="content"), "secret-files")
    denied_by(tool("Grep", project, pattern="STRIPE", glob="*.env*", output_mode="content"), "secret-files")
    assert tool("Grep", project, pattern="STRIPE", path=path, output_mode="files_with_matches") is None
    assert tool("Grep", project, pattern="STRIPE", path=path, output_mode="count") is None
    assert tool("Grep", project, pattern="print", path=str(project / "src"), output_mode="content") is None


def test_a_file_tool_that_writes_a_secret_file_is_not_a_read(project: Path, env_file: str) -> None:
    answer = tool("Edit", project, file_path=str(project / ".env"), old_string="DEBUG=1", new_string="DEBUG=0")
    assert answer is None


def test_a_credential_command_is_denied_and_the_suggested_form_is_quiet(project: Path, tmp_path: Path) -> None:
    """`git credential fill` really prints a stored password (a store helper in a file here); the
    suggested ways through hand it on instead."""
    value = secret("pw")
    store = tmp_path / "credentials"
    store.write_text(f"https://me:{value}@example.com\n")
    subprocess.run(["git", "config", "credential.helper", f"store --file={store}"], cwd=project, check=True)
    command = "printf 'protocol=https\\nhost=example.com\\n\\n' | git credential fill"
    assert value in run(command, project)
    reason = denied_by(bash(command, project), "print-secrets")
    assert "credential" in reason and value not in reason
    assert bash("GH_TOKEN=$(gh auth token) gh pr list", project) is None
    assert bash("gh auth status", project) is None
