"""Claude Code's PostToolUse and PostToolUseFailure: tool output screened for secrets, in a real
`jouet hook claude post` process, with the result shapes Claude Code's tools return."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from testing import make_repo, run_jouet
from testing.screening import Planted, counting_gitleaks, starts, tool_shapes, typical_outputs

from jouet_git.gitleaks import binary

pytestmark = pytest.mark.skipif(binary.find_gitleaks() is None, reason="gitleaks is not installed")

TOOL_INPUTS = {
    "Bash": {"command": "./build.sh", "description": "Build"},
    "PowerShell": {"command": "Get-ChildItem env:"},
    "Read": {"file_path": "/repo/config/settings.py"},
    "Grep": {"pattern": "TOKEN", "output_mode": "content"},
    "WebFetch": {"url": "https://example.test/setup", "prompt": "How do I set it up?"},
    "mcp__notes__read": {"id": 12},
}


def payload(cwd: Path, tool: str, response: Any, event: str = "PostToolUse", **extra: Any) -> str:
    body: dict[str, Any] = {
        "session_id": "5f0c2a9e-8d1b-4c7e-9a55-2f7d0b9e1c42", "transcript_path": "/tmp/t.jsonl", "cwd": str(cwd),
        "permission_mode": "default", "hook_event_name": event, "tool_name": tool,
        "tool_input": TOOL_INPUTS.get(tool, {}), "tool_use_id": "toolu_01ABCdEfGhijKLmnoPQRstu6",
    }
    if event == "PostToolUse":
        body["tool_response"] = response
    body.update(extra)
    return json.dumps(body)


def post(cwd: Path, text: str, event: str = "post",
         env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run_jouet("hook", "claude", event, input=text, cwd=cwd, env=env)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "r")


@pytest.fixture
def planted() -> Planted:
    return Planted()


def skeleton(value: Any) -> Any:
    if isinstance(value, str):
        return str
    if isinstance(value, dict):
        return {k: skeleton(v) for k, v in value.items()}
    if isinstance(value, list):
        return [skeleton(v) for v in value]
    return value


@pytest.mark.parametrize("tool", list(TOOL_INPUTS))
def test_the_secret_is_replaced_in_the_shape_that_arrived(repo: Path, planted: Planted, tool: str) -> None:
    response = tool_shapes(planted.github)[tool]
    proc = post(repo, payload(repo, tool, response))
    assert proc.returncode == 0, proc.stderr
    assert planted.github not in proc.stdout and planted.github not in proc.stderr
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "PostToolUse"
    updated = out["updatedToolOutput"]
    assert skeleton(updated) == skeleton(response)
    assert "[secret redacted: github-pat]" in json.dumps(updated)
    if tool.startswith("mcp__"):
        assert out["updatedMCPToolOutput"] == updated
    else:
        assert "updatedMCPToolOutput" not in out
    assert "additionalContext" not in out  # the notice is inside the output


def test_bash_keeps_its_four_fields_and_puts_the_notice_in_stdout(repo: Path, planted: Planted) -> None:
    response = {"stdout": f"export TOKEN={planted.aws}\nok\n", "stderr": "warn", "interrupted": False,
                "isImage": False}
    out = json.loads(post(repo, payload(repo, "Bash", response)).stdout)["hookSpecificOutput"]
    updated = out["updatedToolOutput"]
    assert updated["stderr"] == "warn" and updated["interrupted"] is False and updated["isImage"] is False
    assert updated["stdout"].startswith("export TOKEN=[secret redacted: aws-access-token]\nok\n\n[jouet: 1 secret")


def test_read_keeps_type_and_path(repo: Path, planted: Planted) -> None:
    response = tool_shapes(planted.github)["Read"]
    updated = json.loads(post(repo, payload(repo, "Read", response)).stdout)["hookSpecificOutput"]["updatedToolOutput"]
    assert updated["type"] == "text"
    assert {k: v for k, v in updated["file"].items() if k != "content"} == \
        {k: v for k, v in response["file"].items() if k != "content"}


def test_mcp_image_block_is_returned_as_it_came(repo: Path, planted: Planted) -> None:
    response = tool_shapes(planted.github)["mcp__notes__read"]
    out = json.loads(post(repo, payload(repo, "mcp__notes__read", response)).stdout)["hookSpecificOutput"]
    assert out["updatedToolOutput"][1] == response[1]


@pytest.mark.parametrize("name", list(typical_outputs()))
def test_clean_output_prints_nothing_and_starts_no_gitleaks(repo: Path, tmp_path: Path, name: str) -> None:
    env, log = counting_gitleaks(tmp_path)
    response = {"stdout": typical_outputs()[name], "stderr": "", "interrupted": False, "isImage": False}
    proc = post(repo, payload(repo, "Bash", response), env=env)
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""
    assert starts(log) == 0


def test_a_failed_tool_can_only_be_annotated_and_says_so(repo: Path, planted: Planted) -> None:
    text = payload(repo, "Bash", None, "PostToolUseFailure",
                   error=f"Exit code 1\nfatal: auth failed for https://x:{planted.github}@github.com/a/b.git")
    proc = post(repo, text, "post-failure")
    assert proc.returncode == 0
    assert planted.github not in proc.stdout
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    assert "updatedToolOutput" not in out
    assert out["hookEventName"] == "PostToolUseFailure"
    assert "could not be withheld" in out["additionalContext"] and "github-pat" in out["additionalContext"]


def test_a_secret_where_no_hook_may_write_is_said_in_context(repo: Path, planted: Planted) -> None:
    response = {"type": planted.github, "numLines": 1}
    out = json.loads(post(repo, payload(repo, "Read", response)).stdout)["hookSpecificOutput"]
    assert "updatedToolOutput" not in out  # nothing jouet may write changed, so nothing is sent back
    assert planted.github not in json.dumps(out)
    assert "could not be withheld" in out["additionalContext"]


def test_without_gitleaks_well_known_tokens_are_still_replaced_and_it_says_why(repo: Path, tmp_path: Path,
                                                                                planted: Planted) -> None:
    response = {"stdout": f"token {planted.github}\n", "stderr": "", "interrupted": False, "isImage": False}
    proc = post(repo, payload(repo, "Bash", response), env={"JOUET_GITLEAKS": str(tmp_path / "none")})
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    assert planted.github not in proc.stdout
    assert "could not screen this output for secrets with gitleaks" in out["additionalContext"]


def test_store_content_off_keeps_decisions_and_no_text(repo: Path, planted: Planted) -> None:
    response = {"stdout": f"{planted.github}\n", "stderr": "", "interrupted": False, "isImage": False}
    text = payload(repo, "Bash", response)
    post(repo, text, env={"JOUET_STORE_CONTENT": "0"})
    state = Path(os.environ["JOUET_STATE_DIR"])
    line = json.loads((state / "ledger.jsonl").read_text().splitlines()[-1])
    assert line["command"] is None and line["cwd"] is None
    assert line["records"] == [{"screen": {"rules": {"github-pat": 1}, "withheld": True, "gitleaks": True,
                                           "problem": None}}]
    for path in state.rglob("*"):
        if path.is_file():
            content = path.read_text(errors="replace")
            assert planted.github not in content and "./build.sh" not in content
