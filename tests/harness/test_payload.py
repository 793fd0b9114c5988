"""`jouet rule test NAME --payload FILE`: a recorded hook payload of any harness, read by that
harness's own adapter (detected from the payload's shape, or named with --harness), in a real
`jouet` process fed the fixtures under tests/harness/fixtures/."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from testing import make_repo, run_jouet

FIXTURES = Path(__file__).parent / "fixtures"

RULES = """
[[rule]]
name = "push-deny"
why = "pushes go through the release job"
mode = "deny"
message = "Pushes go through the release job."
[rule.match]
command = "git push"
[rule.examples]
fires = ["git push origin main"]
quiet = ["git status"]

[[rule]]
name = "app-deny"
why = "the app's entry point is generated"
mode = "deny"
message = "src/app.py is generated."
[[rule.match]]
tool = ["Edit", "Write"]
paths = ["src/app.py"]
[rule.examples]
fires = [{ tool = "Edit", path = "src/app.py" }]
quiet = [{ tool = "Edit", path = "src/other.py" }]

[[rule]]
name = "env-read"
why = "the environment file holds secrets"
mode = "warn"
message = "This file holds secrets."
[[rule.match]]
tool = "Read"
paths = [".env"]
[rule.examples]
fires = [{ tool = "Read", path = ".env" }]
quiet = [{ tool = "Read", path = "README.md" }]

[[rule]]
name = "after-push"
why = "a push starts the release checks"
on = "post-tool-use"
message = "Watch the release checks."
[rule.match]
command = "git push"
[rule.examples]
fires = [{ command = "git push", exit_code = 0 }]
quiet = [{ command = "git status", exit_code = 0 }]
"""
PUSH = "deny: Pushes go through the release job."
APP = "deny: src/app.py is generated."
ENV = "warn: This file holds secrets."


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    rules = Path(os.environ["JOUET_CONFIG_DIR"]) / "rules"
    rules.mkdir(parents=True, exist_ok=True)
    (rules / "payload.toml").write_text(RULES)
    return make_repo(tmp_path / "project")


def recorded(repo: Path, name: str) -> Path:
    """The fixture NAME pointed at REPO, written where a person would keep a recorded payload."""
    path = repo.parent / name.replace("/", "-")
    path.write_text((FIXTURES / name).read_text().replace("/workspace/project", str(repo)))
    return path


def rule_test(repo: Path, rule: str, payload: Path, *extra: str) -> tuple[int, str, str]:
    proc = run_jouet("rule", "test", rule, "--payload", str(payload), *extra, cwd=repo)
    return proc.returncode, proc.stdout, proc.stderr


# (fixture, rule, what the rule decides) for each harness's own payload, its harness read from its shape
CASES = [
    ("claude/PreToolUse.Bash.json", "push-deny", PUSH),
    ("codex/PreToolUse.Bash.json", "push-deny", None),  # its command is not a push: see below
    ("cursor/beforeShellExecution.json", "push-deny", PUSH),
    ("cursor/beforeReadFile.json", "env-read", None),
    ("gemini/BeforeTool.run_shell_command.json", "push-deny", PUSH),
    ("gemini/BeforeTool.replace.json", "app-deny", APP),
    ("copilot/preToolUse.bash.json", "push-deny", PUSH),  # toolArgs as a JSON string
    ("copilot/PreToolUse.Bash.json", "push-deny", None),  # the PascalCase, snake_case form
    ("copilot/preToolUse.edit.json", "app-deny", APP),
    ("windsurf/pre_run_command.json", "push-deny", PUSH),
    ("cline/PreToolUse.execute_command.json", "push-deny", PUSH),
    ("amp/Bash.json", "push-deny", PUSH),  # an Amp delegate gets the bare arguments
    ("amp/edit_file.json", "app-deny", APP),
    ("amp/Read.json", "env-read", ENV),
]


@pytest.mark.parametrize(("name", "rule", "expected"), CASES)
def test_each_harness_payload_is_read_by_its_own_adapter(repo: Path, name: str, rule: str,
                                                          expected: str | None) -> None:
    payload = recorded(repo, name)
    if expected is None:  # these fixtures are about something else: point them at what the rule guards
        data = json.loads(payload.read_text())
        if "tool_input" in data:
            data["tool_input"]["command"] = "git push origin HEAD"
            expected = PUSH
        else:
            data["file_path"] = str(repo / ".env")
            expected = ENV
        payload.write_text(json.dumps(data))
    assert rule_test(repo, rule, payload) == (0, expected + "\n", "")


def test_a_codex_apply_patch_is_one_edit_per_file(repo: Path) -> None:
    """Read through Claude Code's reader, this payload was an unknown tool with no path: quiet."""
    payload = recorded(repo, "codex/PreToolUse.apply_patch.json")
    code, out, err = rule_test(repo, "app-deny", payload)
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        f"{repo}/src/app.py: {APP}",
        f"{repo}/.github/workflows/release.yml: quiet",
        f"{repo}/old/notes.txt: quiet",
        f"{repo}/lib/a.py: quiet",
        f"{repo}/lib/b.py: quiet",
    ]


def test_cline_run_commands_is_one_call_per_command(repo: Path) -> None:
    payload = recorded(repo, "cline/PreToolUse.run_commands.json")
    data = json.loads(payload.read_text())
    data["preToolUse"]["parameters"]["commands"] = json.dumps(["git status", "git push origin main"])
    payload.write_text(json.dumps(data))
    assert rule_test(repo, "push-deny", payload) == (0, f"git status: quiet\ngit push origin main: {PUSH}\n", "")


def test_a_post_tool_payload_is_the_call_after_the_tool(repo: Path) -> None:
    payload = recorded(repo, "copilot/postToolUse.bash.json")
    assert rule_test(repo, "after-push", payload) == (0, "quiet\n", "")
    data = json.loads(payload.read_text())
    data["toolArgs"]["command"] = "git push origin main"
    payload.write_text(json.dumps(data))
    assert rule_test(repo, "after-push", payload) == (0, "warn: Watch the release checks.\n", "")
    assert rule_test(repo, "push-deny", payload) == (0, "quiet\n", "")  # a rule before the tool: not after it


def test_harness_named_with_the_option(repo: Path) -> None:
    payload = recorded(repo, "amp/Read.json")
    assert rule_test(repo, "env-read", payload, "--harness", "amp") == (0, ENV + "\n", "")
    code, out, err = rule_test(repo, "env-read", payload, "--harness", "gemini")
    assert (code, out) == (2, "") and "does not say which of its hook events" in err
    code, out, err = rule_test(repo, "env-read", payload, "--harness", "vim")
    assert (code, out) == (2, "") and "--harness vim: jouet reads no hook payload of that name" in err
    proc = run_jouet("rule", "test", "env-read", "--command", "ls", "--harness", "amp", cwd=repo)
    assert proc.returncode == 2 and "give --payload FILE too" in proc.stderr


def test_a_payload_that_is_no_tool_call_says_so(repo: Path) -> None:
    for name in ("claude/Stop.json", "copilot/agentStop.json", "gemini/AfterAgent.json"):
        code, out, err = rule_test(repo, "push-deny", recorded(repo, name))
        assert (code, out) == (2, "") and "payload is not a tool call" in err, (name, err)
    broken = repo.parent / "broken.json"
    broken.write_text("{not json")
    code, out, err = rule_test(repo, "push-deny", broken)
    assert (code, out) == (2, "") and f"{broken}: the hook input is not JSON" in err
