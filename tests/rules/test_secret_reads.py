"""secret-files through other means of reading: each command is run for real with bash, to check it
really prints the secret (or really does not), and jouet is asked about it as Claude Code would."""

from __future__ import annotations

import base64
import os
import random
import string
import subprocess
from pathlib import Path

import pytest
from testing import have, make_repo
from testing.gitrules import hook


def run(command: str, cwd: Path) -> str:
    proc = subprocess.run(["bash", "-c", command], cwd=cwd, env=dict(os.environ, TERM="dumb"), capture_output=True,
                          text=True, timeout=30, stdin=subprocess.DEVNULL)
    return proc.stdout + proc.stderr


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "app", {"README.md": "app\n", "src/main.py": "print('hi')\n",
                                        "config.yaml": "server:\n  key: not-a-secret\n"})


@pytest.fixture
def value(project: Path) -> str:
    value = "sk_live_" + "".join(random.choice(string.ascii_letters) for _ in range(24))
    (project / ".env").write_text(f"DEBUG=1\nSTRIPE_KEY={value}\n")
    (project / ".env.example").write_text("DEBUG=1\nSTRIPE_KEY=\n")
    (project / "src" / ".env").write_text(f"NESTED={value}\n")
    return value


def shows(out: str, value: str) -> bool:
    """Whether OUT shows VALUE, as text or in base64."""
    if value in out:
        return True
    for word in out.split():
        try:
            if value in base64.b64decode(word + "==").decode("utf-8", "replace"):
                return True
        except ValueError:
            continue
    return False


READS = [
    "cat .en?", "cat .env*", "head -50 */.env", "cat .e[n]v", "cat $(echo .env)", "cat `ls .env`",
    "echo \"$(<.env)\"", "echo $(cat .env)", "dd if=.env status=none", "paste .env", "paste -d, .env .env.example",
    "iconv -f utf-8 -t ascii .env", "git diff --no-index /dev/null .env", "sort .env", "sed -n p .env",
    "grep . .env", "base64 .env", "xargs cat <<< .env", "echo .env | xargs cat", "ls .env | xargs -I{} cat {}",
    "find . -name .env -exec cat {} \\;", "find . -name '.env*' -execdir head -20 {} +",
    "cp .env /tmp/jouet-secret-copy && cat /tmp/jouet-secret-copy", "cat .env > .e; cat .e",
    "dd if=.env of=.e status=none && base64 .e", "bash -x .env", "ed -s .env <<< ',p'",
    "vim -es -c '%p' -c 'q!' .env", "ex -s +%p +q! .env",
]


@pytest.mark.parametrize("command", READS)
def test_other_reads_of_a_secret_file(project: Path, value: str, command: str) -> None:
    for program in ("vim", "ex", "ed", "iconv"):
        if command.startswith(program) and not have(program):
            pytest.skip(f"{program} is not installed")
    assert shows(run(command, project), value), f"{command} does not really print the secret"
    verdict = hook(command, project)
    assert verdict.rule == "secret-files", f"{command}: {verdict}"
    assert value not in verdict.reason


def test_git_show_of_a_committed_secret(project: Path, value: str) -> None:
    subprocess.run(["git", "add", "-f", ".env"], cwd=project, check=True)
    subprocess.run(["git", "commit", "-qm", "oops"], cwd=project, check=True)
    for command in ("git show HEAD:.env", "git show :.env", "git cat-file -p HEAD:.env"):
        assert shows(run(command, project), value)
        assert hook(command, project).rule == "secret-files"


QUIET = [
    "yq eval '.server.key' config.yaml", "yq '.server.key' config.yaml", "jq -n '.key'", "cat *.md",
    "cat .env.exam*", "cp .env /tmp/jouet-secret-copy2", "dd if=.env of=.e2 status=none",
    "git diff --no-index --stat .env .env.example", "echo .env | xargs ls -l", "find . -name .env -exec ls -l {} \\;",
    "find . -name '*.py' -exec cat {} +", "ed .env <<< ''", "ls | xargs wc -l",
]


@pytest.mark.parametrize("command", QUIET)
def test_reads_that_show_no_secret(project: Path, value: str, command: str) -> None:
    assert not shows(run(command, project), value), f"{command} does print the secret"
    verdict = hook(command, project)
    assert verdict.rule is None, f"{command}: {verdict}"
