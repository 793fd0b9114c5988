"""The in-process plugins for OpenCode, Pi and OpenClaw, installed by `jouet setup HOST` and run
under node by a stand-in host (tests/hosts/standin.mjs) that calls their hooks as the host does."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from testing import TESTS, make_repo, run_jouet
from testing.screening import Planted

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")
STANDIN = TESTS / "hosts" / "standin.mjs"
HOSTS = ["opencode", "pi", "openclaw"]
ENTRY = {"opencode": "jouet.js", "pi": "index.js", "openclaw": ""}
SETTINGS = {"opencode": "jouet/jouet.json", "pi": "jouet.json", "openclaw": "jouet.json"}


def install(host: str, cwd: Path) -> Path:
    proc = run_jouet("setup", host, "--json", cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return Path(json.loads(proc.stdout)["path"])


def run_host(host: str, plugin: Path, steps: list[dict[str, Any]], cwd: Path) -> dict[str, Any]:
    assert NODE is not None
    target = plugin / ENTRY[host] if ENTRY[host] else plugin
    proc = subprocess.run([NODE, str(STANDIN), host, str(target)], input=json.dumps(steps), cwd=cwd,
                          capture_output=True, text=True, timeout=300, env=dict(os.environ))
    assert proc.returncode == 0, proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


def fake_jouet(plugin: Path, host: str, script: str, limit_ms: int | None = None) -> None:
    """Point the installed plugin at a stand-in jouet (a shell script) instead of the real one."""
    fake = plugin.parent / f"fake-jouet-{host}"
    fake.write_text("#!/bin/sh\n" + script)
    fake.chmod(0o755)
    settings = plugin / SETTINGS[host]
    data = json.loads(settings.read_text())
    data["command"] = [str(fake)]
    if limit_ms is not None:
        data["limitMs"] = limit_ms
    settings.write_text(json.dumps(data))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "r")


@pytest.fixture
def planted() -> Planted:
    return Planted()


@pytest.mark.parametrize("host", HOSTS)
def test_a_denied_call_is_blocked_with_the_advice_and_a_clean_one_runs(host: str, repo: Path) -> None:
    plugin = install(host, repo)
    shell = {"opencode": "bash", "pi": "bash", "openclaw": "exec"}[host]
    out = run_host(host, plugin, [
        {"kind": "tool_call", "tool": shell, "args": {"command": "git push --force origin main"}, "session": "s1"},
        {"kind": "tool_call", "tool": shell, "args": {"command": "git status"}, "session": "s1"},
    ], repo)
    denied, allowed = out["results"]
    assert denied["ran"] is False
    assert denied["error"].startswith("Blocked: ") and denied["error"].endswith("[jouet rule: force-push]")
    assert allowed["ran"] is True
    if host == "openclaw":
        assert denied["timeoutMs"] == 65_000  # the runner's 60 s, not OpenClaw's default 15 s
    ledger = Path(os.environ["JOUET_STATE_DIR"]) / "ledger.jsonl"
    assert {json.loads(line)["harness"] for line in ledger.read_text().splitlines()} == {host}


@pytest.mark.parametrize("host", HOSTS)
def test_file_tools_are_decided_by_path(host: str, repo: Path) -> None:
    (repo / ".env").write_text("A=1\n")
    plugin = install(host, repo)
    args = {"opencode": {"filePath": str(repo / ".env")}, "pi": {"path": ".env"}, "openclaw": {"path": ".env"}}[host]
    [result] = run_host(host, plugin, [{"kind": "tool_call", "tool": "read", "args": args}], repo)["results"]
    assert result["ran"] is False and "[jouet rule: secret-files]" in result["error"]


@pytest.mark.parametrize("host", HOSTS)
def test_secrets_in_a_tool_result_are_replaced_and_clean_results_untouched(host: str, repo: Path,
                                                                           planted: Planted) -> None:
    plugin = install(host, repo)
    clean = "".join(f"test_{i} ... ok\n" for i in range(200))
    out = run_host(host, plugin, [
        {"kind": "tool_result", "tool": "bash", "text": f"TOKEN={planted.github}\nAWS={planted.aws}\n"},
        {"kind": "tool_result", "tool": "bash", "text": clean},
    ], repo)
    dirty, untouched = out["results"]
    assert dirty["text"] == "TOKEN=[secret redacted: github-pat]\nAWS=[secret redacted: aws-access-token]\n"
    assert untouched["text"] == clean
    assert out["warnings"] == []


def test_pi_leaves_a_failed_tools_result_alone(repo: Path, planted: Planted) -> None:
    """Pi ignores what a handler returns for a failed tool, so the plugin does not screen it."""
    plugin = install("pi", repo)
    text = f"error: {planted.github}"
    [result] = run_host("pi", plugin, [{"kind": "tool_result", "tool": "bash", "text": text, "isError": True}],
                        repo)["results"]
    assert result["text"] == text and result["errors"] == []


@pytest.mark.parametrize("host", HOSTS)
def test_the_persons_prompt_is_screened_and_kept_for_the_session(host: str, repo: Path, planted: Planted) -> None:
    plugin = install(host, repo)
    text = f"deploy with {planted.github} but do not push"
    [result] = run_host(host, plugin, [{"kind": "input", "text": text, "session": "sess-42"}], repo)["results"]
    redacted = "deploy with [secret redacted: github-pat] but do not push"
    # OpenClaw's prompt hook cannot change the prompt: the secret is not withheld there.
    assert result["text"] == (text if host == "openclaw" else redacted)
    stored = Path(os.environ["JOUET_STATE_DIR"]) / "sessions" / "prompts" / "sess-42"
    assert stored.read_text() == redacted


@pytest.mark.parametrize("host", HOSTS)
@pytest.mark.parametrize(("script", "says"), [
    ("cat >/dev/null\necho 'Traceback: boom' >&2\nexit 1\n", "exited 1 without an answer: Traceback: boom"),
    ("cat >/dev/null\necho 'not json at all'\n", "exited 0 without an answer"),
    ("cat >/dev/null\necho '{\"decision\": \"allow\"}'\n", "exited 0 without an answer"),
    ("cat >/dev/null\nkill -9 $$\n", "was killed by SIGKILL without an answer"),
    ("exec sleep 30\n", "took more than 0.5 s and was stopped"),
])
def test_no_answer_blocks_a_tool_call_and_passes_a_result_on(host: str, repo: Path, script: str, says: str) -> None:
    plugin = install(host, repo)
    fake_jouet(plugin, host, script, limit_ms=500)
    shell = "exec" if host == "openclaw" else "bash"
    out = run_host(host, plugin, [
        {"kind": "tool_call", "tool": shell, "args": {"command": "ls"}},
        {"kind": "tool_result", "tool": shell, "text": "output as it was"},
    ], repo)
    call, result = out["results"]
    assert call["ran"] is False
    assert call["error"] == f"Blocked: jouet did not answer. (jouet {says})"
    assert result["text"] == "output as it was"
    assert any(says in w for w in out["warnings"])


@pytest.mark.parametrize("host", HOSTS)
def test_a_missing_jouet_blocks_tool_calls(host: str, repo: Path, tmp_path: Path) -> None:
    plugin = install(host, repo)
    settings = plugin / SETTINGS[host]
    data = json.loads(settings.read_text())
    data["command"] = [str(tmp_path / "no-such-jouet")]
    settings.write_text(json.dumps(data))
    [call] = run_host(host, plugin, [{"kind": "tool_call", "tool": "bash", "args": {"command": "ls"}}], repo)["results"]
    assert call["ran"] is False and call["error"].startswith("Blocked: jouet did not answer. (cannot run ")


def test_the_runner_gives_jouet_sixty_seconds(tmp_path: Path) -> None:
    assert NODE is not None
    runner = Path(__file__).resolve().parents[2] / "jouet_git" / "hosts" / "runner.mjs"
    code = f"import('{runner.as_uri()}').then(m => console.log(m.LIMIT_MS, m.NO_ANSWER, m.loadSettings(new URL('file:///nonexistent')).limitMs))"
    proc = subprocess.run([NODE, "-e", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "60000 Blocked: jouet did not answer. 60000"


@pytest.mark.parametrize("host", HOSTS)
def test_setup_installs_once_and_uninstall_removes_everything(host: str, repo: Path, tmp_path: Path) -> None:
    plugin = install(host, repo)
    files = sorted(p.relative_to(plugin) for p in plugin.rglob("*") if p.is_file())
    assert files
    again = run_jouet("setup", host, cwd=repo)
    assert again.returncode == 0 and "nothing to change" in again.stdout
    status = json.loads(run_jouet("setup", "--json", cwd=repo).stdout)
    [user] = [row for row in status[host] if row["scope"] == "user"]
    assert user["state"] == "installed"
    assert [c.split(" hook ", 1)[1] for c in user["commands"]] == [f"neutral --host {host}"]
    assert all(v.startswith("ok:") for v in user["runs"].values())
    gone = run_jouet("setup", host, "--uninstall", cwd=repo)
    assert gone.returncode == 0, gone.stderr
    assert not plugin.exists() or not any(p.is_file() for p in plugin.rglob("*"))


@pytest.mark.parametrize("host", HOSTS)
def test_a_project_install_runs_jouet_from_path(host: str, repo: Path) -> None:
    proc = run_jouet("setup", host, "--project", "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    plugin = Path(json.loads(proc.stdout)["path"])
    assert str(plugin).startswith(str(repo))
    assert json.loads((plugin / SETTINGS[host]).read_text())["command"] == ["jouet"]


def test_setup_never_replaces_another_plugins_file(repo: Path) -> None:
    proc = run_jouet("setup", "pi", "--json", cwd=repo)
    plugin = Path(json.loads(proc.stdout)["path"])
    (plugin / "index.js").write_text("export default function mine(pi) {}\n")
    again = run_jouet("setup", "pi", cwd=repo)
    assert again.returncode != 0 and "was not written by jouet" in again.stderr
