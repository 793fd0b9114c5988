"""`jouet hook neutral`, the host-neutral protocol, fed real payloads in a real subprocess."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from testing import make_repo, run_jouet
from testing.screening import Planted, counting_gitleaks, starts

KEYS = ["decision", "findings", "ok", "onward"]


def neutral(payload: Any, cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    text = payload if isinstance(payload, str) else json.dumps(payload)
    return run_jouet("hook", "neutral", *args, input=text, cwd=cwd, env=env)


def answer(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(proc.stdout)
    assert list(body) == KEYS  # the keys, sorted, and nothing else
    assert proc.stdout.count("\n") == 1
    assert body["ok"] is (body["decision"] == "allow")
    assert body["findings"] == sorted(set(body["findings"]))
    return body


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "r")


@pytest.fixture
def planted() -> Planted:
    return Planted()


def ledger() -> list[dict[str, Any]]:
    path = Path(os.environ["JOUET_STATE_DIR"]) / "ledger.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


# -- tool_call: the rules decide -----------------------------------------------------------------


@pytest.mark.parametrize("tool", ["bash", "shell", "run_shell_command", "execute_command", "Bash", "exec_command"])
def test_a_denied_shell_call_is_a_block_with_the_advice(repo: Path, tool: str) -> None:
    proc = neutral({"stage": "tool_call", "tool": tool, "arguments": {"command": "git push --force origin main"}}, repo)
    assert proc.returncode == 2, proc.stderr
    body = answer(proc)
    assert body["decision"] == "block" and body["ok"] is False
    assert body["findings"] == ["force-push"]
    assert body["onward"].startswith("Blocked: ") and body["onward"].endswith("[jouet rule: force-push]")


def test_an_allowed_call_passes_its_arguments_on_serialized_with_sorted_keys(repo: Path) -> None:
    args = {"timeout": 30, "command": "git status", "description": "look"}
    proc = neutral({"stage": "tool_call", "tool": "bash", "arguments": args}, repo)
    assert proc.returncode == 0, proc.stderr
    assert answer(proc) == {"decision": "allow", "findings": [], "ok": True,
                            "onward": json.dumps(args, sort_keys=True, ensure_ascii=False)}


def test_arguments_as_a_string_is_the_command_of_a_shell_tool(repo: Path) -> None:
    proc = neutral({"stage": "tool_call", "tool": "shell", "arguments": "git add -A && git commit -m wip"}, repo)
    assert proc.returncode == 2 and answer(proc)["findings"] == ["git-add-all"]
    proc = neutral({"stage": "tool_call", "tool": "shell", "arguments": "git status"}, repo)
    assert proc.returncode == 0 and answer(proc)["onward"] == "git status"


def test_arguments_as_a_json_string_is_read_as_the_object(repo: Path) -> None:
    proc = neutral({"stage": "tool_call", "tool": "bash", "arguments": '{"command": "git push -f"}'}, repo)
    assert proc.returncode == 2 and answer(proc)["findings"] == ["force-push"]


def test_without_arguments_the_call_falls_back_to_text(repo: Path) -> None:
    proc = neutral({"stage": "tool_call", "tool": "bash", "text": "git push --force"}, repo)
    assert proc.returncode == 2 and answer(proc)["findings"] == ["force-push"]


@pytest.mark.parametrize(("tool", "args"), [
    ("read", {"path": ".env"}),
    ("read_file", {"file_path": ".env"}),
    ("view", {"filePath": ".env"}),
])
def test_file_tools_are_decided_by_their_path(repo: Path, tool: str, args: dict[str, str]) -> None:
    (repo / ".env").write_text("A=1\n")
    proc = neutral({"stage": "tool_call", "tool": tool, "arguments": args}, repo)
    assert proc.returncode == 2 and answer(proc)["findings"] == ["secret-files"]


def test_an_unknown_tool_keeps_its_name_and_is_let_through(repo: Path) -> None:
    proc = neutral({"stage": "tool_call", "tool": "todo_write", "arguments": {"items": ["a"]}}, repo)
    assert proc.returncode == 0 and answer(proc)["decision"] == "allow"
    assert ledger()[-1]["tool"] == "todo_write"


def test_a_secret_in_nested_arguments_never_reaches_onward(repo: Path, planted: Planted) -> None:
    args = {"path": "deploy.yaml", "content": {"env": [{"name": "TOKEN", "value": planted.github}]}}
    proc = neutral({"stage": "tool_call", "tool": "write", "arguments": args}, repo)
    assert proc.returncode == 0, proc.stderr
    body = answer(proc)
    assert planted.github not in proc.stdout and planted.github not in proc.stderr
    assert body["findings"] == ["github-pat"] and body["decision"] == "allow"
    assert "[secret redacted: github-pat]" in body["onward"]


def test_warnings_are_findings_and_go_to_stderr(repo: Path) -> None:
    rules = Path(os.environ["JOUET_CONFIG_DIR"]) / "rules"
    rules.mkdir(parents=True)
    (rules / "no-tags.toml").write_text(
        '[[rule]]\nname = "no-tags"\nwhy = "tags are for releases"\nmessage = "Tags are for releases."\n'
        '[rule.match]\ncommand = "git tag"\n[rule.examples]\nfires = ["git tag v1"]\nquiet = ["git tags"]\n'
    )
    proc = neutral({"stage": "tool_call", "tool": "bash", "arguments": {"command": "git tag v2"}}, repo)
    assert proc.returncode == 0
    body = answer(proc)
    assert body["decision"] == "allow" and body["findings"] == ["no-tags"]
    assert "Tags are for releases. [jouet rule: no-tags]" in proc.stderr


def test_the_host_names_the_harness_in_the_ledger(repo: Path) -> None:
    neutral({"stage": "tool_call", "tool": "bash", "arguments": {"command": "ls"}}, repo, "--host", "opencode")
    neutral({"stage": "tool_call", "tool": "bash", "arguments": {"command": "ls"}}, repo)
    assert [line["harness"] for line in ledger()[-2:]] == ["opencode", "neutral"]


# -- tool_result, output, input: screened ---------------------------------------------------------------


@pytest.mark.parametrize("stage", ["tool_result", "output", "input"])
def test_secrets_are_replaced_in_onward_and_the_text_allowed(repo: Path, planted: Planted, stage: str) -> None:
    text = f"result:\nAWS_KEY={planted.aws}\nGH={planted.github}\nend"
    payload = {"stage": stage, "text": text, **({"tool": "bash"} if stage == "tool_result" else {})}
    proc = neutral(payload, repo)
    assert proc.returncode == 0, proc.stderr
    body = answer(proc)
    assert body == {"decision": "allow", "findings": ["aws-access-token", "github-pat"], "ok": True,
                    "onward": "result:\nAWS_KEY=[secret redacted: aws-access-token]\n"
                              "GH=[secret redacted: github-pat]\nend"}
    assert planted.aws not in proc.stderr


@pytest.mark.parametrize("stage", ["tool_result", "output", "input"])
def test_clean_text_comes_back_untouched_without_gitleaks(repo: Path, tmp_path: Path, stage: str) -> None:
    env, log = counting_gitleaks(tmp_path)
    text = "".join(f"test_{i} ... ok (the key and token tables are fine; they said so)\n" for i in range(300))
    payload = {"stage": stage, "text": text, **({"tool": "bash"} if stage == "tool_result" else {})}
    proc = neutral(payload, repo, env=env)
    assert answer(proc) == {"decision": "allow", "findings": [], "ok": True, "onward": text}
    assert starts(log) == 0


def test_a_screened_result_is_in_the_ledger_as_counts_only(repo: Path, planted: Planted) -> None:
    neutral({"stage": "tool_result", "tool": "read", "text": f"x {planted.github}"}, repo)
    line = ledger()[-1]
    assert line["event"] == "post-tool-use" and line["tool"] == "Read"
    assert line["records"] == [{"screen": {"rules": {"github-pat": 1}, "withheld": True, "gitleaks": True,
                                           "problem": None}}]
    state = Path(os.environ["JOUET_STATE_DIR"])
    for path in state.rglob("*"):
        if path.is_file():
            assert planted.github not in path.read_text(errors="replace")


# -- sessions and the prompt ------------------------------------------------------------------------


def test_an_allowed_prompt_is_stored_for_its_session_0600(repo: Path, tmp_path: Path, planted: Planted) -> None:
    sessions = tmp_path / "sessions"
    proc = neutral({"stage": "input", "text": f"deploy it, key {planted.github}", "session_id": "s-1.a_b"}, repo,
                   "--session-dir", str(sessions))
    assert proc.returncode == 0
    stored = sessions / "prompts" / "s-1.a_b"
    assert stored.read_text() == "deploy it, key [secret redacted: github-pat]"
    assert stat.S_IMODE(stored.stat().st_mode) == 0o600
    assert stat.S_IMODE((sessions / "prompts").stat().st_mode) == 0o700


def test_the_default_session_directory_is_under_the_state_directory(repo: Path) -> None:
    neutral({"stage": "input", "text": "hello", "session_id": "abc"}, repo)
    assert (Path(os.environ["JOUET_STATE_DIR"]) / "sessions" / "prompts" / "abc").read_text() == "hello"


@pytest.mark.parametrize("session", ["-starts-with-dash", ".hidden", "a/b", "../escape", "has space", "x" * 202, "",
                                     "é"])
def test_a_session_id_that_does_not_match_is_ignored_not_an_error(repo: Path, tmp_path: Path, session: str) -> None:
    sessions = tmp_path / "sessions"
    proc = neutral({"stage": "input", "text": "hello", "session_id": session}, repo, "--session-dir", str(sessions))
    assert proc.returncode == 0 and answer(proc)["onward"] == "hello"
    assert not (sessions / "prompts").exists() or list((sessions / "prompts").iterdir()) == []


def test_a_session_id_of_201_characters_is_accepted(repo: Path, tmp_path: Path) -> None:
    session = "a" * 201
    neutral({"stage": "input", "text": "hi", "session_id": session}, repo, "--session-dir", str(tmp_path / "s"))
    assert (tmp_path / "s" / "prompts" / session).read_text() == "hi"


def test_nothing_is_stored_with_store_content_off(repo: Path, tmp_path: Path) -> None:
    neutral({"stage": "input", "text": "hello", "session_id": "s1"}, repo, "--session-dir", str(tmp_path / "s"),
            env={"JOUET_STORE_CONTENT": "0"})
    assert not (tmp_path / "s" / "prompts" / "s1").exists()


def _prompt_rule() -> None:
    rules = Path(os.environ["JOUET_CONFIG_DIR"]) / "rules"
    rules.mkdir(parents=True)
    (rules / "no-push-asked.toml").write_text(
        '[[rule]]\nname = "no-push-asked"\nmode = "deny"\nwhy = "the person said not to push"\n'
        'message = "You were asked not to push."\n'
        '[rule.match]\ncommand = "git push"\ninput = { jouet_prompt = "*do not push*" }\n'
        '[rule.examples]\nfires = [{ command = "git push", input = { jouet_prompt = "fix it, do not push" } }]\n'
        'quiet = ["git push"]\n'
    )


def test_the_stored_prompt_is_visible_to_rules(repo: Path, tmp_path: Path) -> None:
    _prompt_rule()
    sessions = str(tmp_path / "s")
    call = {"stage": "tool_call", "tool": "bash", "arguments": {"command": "git push origin main"}, "session_id": "s9"}
    assert neutral(call, repo, "--session-dir", sessions).returncode == 0  # no prompt yet
    neutral({"stage": "input", "text": "fix the bug, do not push", "session_id": "s9"}, repo, "--session-dir", sessions)
    proc = neutral(call, repo, "--session-dir", sessions)
    assert proc.returncode == 2 and answer(proc)["findings"] == ["no-push-asked"]
    # The payload's prompt overrides the stored one.
    proc = neutral({**call, "prompt": "push when done"}, repo, "--session-dir", sessions)
    assert proc.returncode == 0


def test_a_call_with_neither_prompt_nor_stored_prompt_is_decided_by_the_rules_alone(repo: Path) -> None:
    proc = neutral({"stage": "tool_call", "tool": "bash", "arguments": {"command": "ls"}}, repo)
    assert proc.returncode == 0 and answer(proc)["decision"] == "allow"
    proc = neutral({"stage": "output", "text": "all done"}, repo)
    assert proc.returncode == 0 and answer(proc)["decision"] == "allow"


# -- validation: exit 2, nothing on stdout --------------------------------------------------------------


@pytest.mark.parametrize(("payload", "says"), [
    ("not json", "not JSON"),
    ("[1, 2]", "JSON object"),
    ('"text"', "JSON object"),
    ({}, "`stage` is missing"),
    ({"stage": "review", "text": "x"}, "`stage` must be one of"),
    ({"stage": 3, "text": "x"}, "`stage` must be one of"),
    ({"stage": "input"}, "`text` is required"),
    ({"stage": "output", "text": None}, "`text` is required"),
    ({"stage": "input", "text": 5}, "`text` must be a string"),
    ({"stage": "tool_result", "text": "x"}, "`tool` is required"),
    ({"stage": "tool_call", "arguments": {"command": "ls"}}, "`tool` is required"),
    ({"stage": "tool_call", "tool": "", "arguments": "ls"}, "`tool` is required"),
    ({"stage": "tool_call", "tool": ["bash"], "arguments": "ls"}, "`tool` must be a string"),
    ({"stage": "tool_call", "tool": "bash"}, "needs `arguments`"),
    ({"stage": "tool_call", "tool": "bash", "arguments": ["ls"]}, "`arguments` must be a string or an object"),
    ({"stage": "tool_call", "tool": "bash", "arguments": 7}, "`arguments` must be a string or an object"),
    ({"stage": "input", "text": "x", "prompt": 1}, "`prompt` must be a string"),
    ({"stage": "input", "text": "x", "session_id": 12}, "`session_id` must be a string"),
])
def test_an_invalid_payload_exits_2_with_nothing_on_stdout(repo: Path, payload: Any, says: str) -> None:
    proc = neutral(payload, repo)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert says in proc.stderr


@pytest.mark.parametrize("args", [["--bogus"], ["--session-dir"], ["--host", "Not A Name"], ["input"]])
def test_bad_arguments_exit_2(repo: Path, args: list[str]) -> None:
    proc = neutral({"stage": "input", "text": "x"}, repo, *args)
    assert proc.returncode == 2 and proc.stdout == ""


def test_unknown_fields_are_ignored(repo: Path) -> None:
    proc = neutral({"stage": "output", "text": "x", "model": "m", "extra": {"a": 1}}, repo)
    assert proc.returncode == 0 and answer(proc)["onward"] == "x"


def test_help(repo: Path) -> None:
    proc = run_jouet("hook", "neutral", "--help", cwd=repo)
    assert proc.returncode == 0 and "--session-dir" in proc.stdout


def test_a_clean_call_imports_nothing_heavy(repo: Path) -> None:
    code = "import sys\nfrom jouet_git.cli import main\ntry:\n    main(['hook', 'neutral'])\nexcept SystemExit:\n" \
           "    pass\nsys.stderr.write(' '.join(sorted(sys.modules)))\n"
    payload = json.dumps({"stage": "tool_call", "tool": "bash", "arguments": {"command": "git status"}})
    neutral(payload, repo)  # builds the rule set cache
    for text in (payload, json.dumps({"stage": "tool_result", "tool": "bash", "text": "ok: the key they said\n" * 50})):
        proc = subprocess.run([sys.executable, "-c", code], input=text, cwd=repo, capture_output=True, text=True)
        roots = {m.split(".")[0] for m in proc.stderr.split()}
        assert not ({"git", "filelock", "tomlkit", "tomli", "rich", "argparse", "dataclasses", "subprocess",
                     "typing", "lupa"} & roots), roots
