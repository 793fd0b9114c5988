"""Scripts run through PowerShell (pwsh, powershell, Invoke-Expression) and cmd are read like a
`sh -c` script: an agent on Claude Code's PowerShell tool, or any shell, cannot hide a command in
them. Checked through `jouet check` with the built-in force-push rule."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from testing import make_repo, run_jouet

from jouet_git.shell import parse

ENCODED = base64.b64encode("git push --force origin main".encode("utf-16-le")).decode()


@pytest.mark.parametrize("command", [
    'pwsh -c "git push --force origin main"',
    'powershell.exe -NoProfile -ExecutionPolicy Bypass -Command "git push -f origin main"',
    'pwsh -Com git push --force origin main',
    f"pwsh -NoProfile -EncodedCommand {ENCODED}",
    f"powershell -enc {ENCODED}",
    'Invoke-Expression "git push --force origin main"',
    "iex 'git push -f origin main'",
    'cmd /c "git push --force origin main"',
    "cmd.exe /C git push --force origin main",
])
def test_a_script_in_another_shell_is_read(command: str, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    proc = run_jouet("check", "--no-record", command, cwd=repo)
    assert proc.returncode == 1 and "[jouet rule: force-push]" in proc.stdout, (command, proc.stdout)


@pytest.mark.parametrize("command", ["pwsh -File deploy.ps1 -c x", "pwsh -NoProfile", "cmd /c", "iex"])
def test_no_script_to_read(command: str) -> None:
    result = parse(command)
    assert [c.program for c in result.commands if not c.nested] == [command.split()[0]]
    assert not any(c.nested for c in result.commands)
