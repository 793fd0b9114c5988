"""Contract tests: every harness's installed hook, fed that harness's own payloads, answers exactly
what that harness acts on.

Each test installs jouet with `jouet setup HARNESS` (user level, in the test's home), reads the
command it wrote into the harness's config file (the script file for Cline, the delegate program
for Amp), and runs that command in a real subprocess the way the harness does (`sh -c`, bash for
Copilot), fed the fixtures under tests/harness/fixtures/ with the command or path of each case put
where that harness puts it. The rules are real: the user rules below (deny, warn and ask, for shell
commands, for file tools and after a tool) and the built-in ones. Five answers per harness:

- deny: the reply that stops the call there, with the advice and its `[jouet rule: NAME]` tag;
- warn: the call goes ahead and the advice goes where that harness shows it;
- ask (mode = "ask"): a question to the person where the harness can put one, else a denial;
- nothing: what that harness reads as "no objection", never an approval;
- bad input (stdin that is not JSON) and jouet's own failure, provoked for real (a payload whose
  working directory holds a NUL byte makes the engine raise ValueError): the harness's "no
  objection" too, with the problem on stderr, and for a failure a ledger line.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from testing import make_repo, run_jouet
from testing.screening import Planted

from jouet_git.gitleaks import binary
from jouet_git.harness.common import ASKS_DENIED
from jouet_git.setup.jsonedit import parse as parse_jsonc
from jouet_git.setup.targets import TARGETS

FIXTURES = Path(__file__).parent / "fixtures"

RULES = """
[[rule]]
name = "no-tag"
why = "tags come from the release job"
mode = "deny"
message = "Tags are made by the release job."
[rule.match]
command = "git tag"
[rule.examples]
fires = ["git tag v1"]
quiet = ["git tags"]

[[rule]]
name = "notes-warn"
why = "notes are not pushed by default"
mode = "warn"
message = "Notes stay on this machine unless pushed."
[rule.match]
command = "git notes"
[rule.examples]
fires = ["git notes add -m x"]
quiet = ["git status"]

[[rule]]
name = "gc-ask"
why = "pruning cannot be undone"
mode = "ask"
message = "Pruning loses unreachable commits for good."
[rule.match]
command = "git gc"
[rule.examples]
fires = [{ command = "git gc --prune=now", action = "ask" }]
quiet = ["git status"]

[[rule]]
name = "lock-deny"
why = "lock files are generated"
mode = "deny"
message = "Lock files are generated: run the package manager."
[[rule.match]]
tool = ["Edit", "Write"]
paths = ["*.lock"]
[rule.examples]
fires = [{ tool = "Edit", path = "Cargo.lock" }]
quiet = [{ tool = "Edit", path = "Cargo.toml" }]

[[rule]]
name = "docs-warn"
why = "docs are reviewed"
mode = "warn"
message = "The docs team reviews changes here."
[[rule.match]]
tool = ["Edit", "Write"]
paths = ["docs/**"]
[rule.examples]
fires = [{ tool = "Edit", path = "docs/a.md" }]
quiet = [{ tool = "Edit", path = "src/a.md" }]

[[rule]]
name = "changelog-ask"
why = "the changelog is curated"
mode = "ask"
message = "The changelog is written at release time."
[[rule.match]]
tool = ["Edit", "Write"]
paths = ["CHANGELOG.md"]
[rule.examples]
fires = [{ tool = "Edit", path = "CHANGELOG.md", action = "ask" }]
quiet = [{ tool = "Edit", path = "README.md" }]

[[rule]]
name = "after-commit"
why = "tests before a push"
on = "post-tool-use"
message = "Run the tests before you push."
[rule.match]
command = "git commit"
[rule.examples]
fires = [{ command = "git commit -m x", exit_code = 0 }]
quiet = [{ command = "git status", exit_code = 0 }]
"""

DENY = "Tags are made by the release job. [jouet rule: no-tag]"
WARN = "Notes stay on this machine unless pushed. [jouet rule: notes-warn]"
ASK = "Pruning loses unreachable commits for good. [jouet rule: gc-ask]"
FILE_DENY = "Lock files are generated: run the package manager. [jouet rule: lock-deny]"
FILE_WARN = "The docs team reviews changes here. [jouet rule: docs-warn]"
FILE_ASK = "The changelog is written at release time. [jouet rule: changelog-ask]"
POST = "Run the tests before you push. [jouet rule: after-commit]"
SHELL = {"deny": "git tag v9", "warn": "git notes add -m hi", "ask": "git gc --prune=now", "nothing": "git status"}
FILES = {"deny": "Cargo.lock", "warn": "docs/guide.md", "ask": "CHANGELOG.md", "nothing": "src/app.py"}


class World:
    """A repository with the contract rules, and jouet installed for one harness."""

    def __init__(self, tmp_path: Path, harness: str) -> None:
        self.harness = harness
        self.repo = make_repo(tmp_path / "repo")
        rules = Path(os.environ["JOUET_CONFIG_DIR"]) / "rules"
        rules.mkdir(parents=True, exist_ok=True)
        (rules / "contract.toml").write_text(RULES)
        proc = run_jouet("setup", harness, cwd=self.repo)
        assert proc.returncode == 0, proc.stderr
        self.target = TARGETS[harness]

    def argv(self, key: str) -> list[str]:
        """How the harness runs the hook it has for KEY (its event name; for Amp, the tool)."""
        path = Path(self.target.user_path())
        if self.harness == "cline":
            return [str(path / key)]
        data = parse_jsonc(path.read_text()).to_python()
        mark = f" hook {self.harness} "
        if self.harness == "amp":
            [rule] = [r for r in data["amp.permissions"] if r.get("tool") == key and mark in r.get("to", "")]
            return shlex.split(rule["to"])
        for entry in data["hooks"][key]:
            hooks = entry.get("hooks", [entry])
            for hook in hooks:
                command = hook.get(self.target.command_key)
                if isinstance(command, str) and mark in command:
                    return ["bash" if self.harness == "copilot" else "sh", "-c", command]
        raise AssertionError(f"no jouet hook for {key} in {path}")

    def run(self, key: str, payload: str, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(self.argv(key), input=payload, capture_output=True, text=True, cwd=self.repo,
                              env={**os.environ, **env}, timeout=120)

    def fixture(self, name: str) -> Any:
        text = (FIXTURES / self.harness / name).read_text().replace("/workspace/project", str(self.repo))
        return json.loads(text)

    def last_ledger_line(self) -> dict[str, Any]:
        ledger = Path(os.environ["JOUET_STATE_DIR"]) / "ledger.jsonl"
        line: dict[str, Any] = json.loads(ledger.read_text().splitlines()[-1])
        return line


def out(proc: subprocess.CompletedProcess[str]) -> Any:
    """The one JSON object the hook printed."""
    assert proc.stdout.endswith("\n") and proc.stdout.count("\n") == 1, proc.stdout
    return json.loads(proc.stdout)


BROKEN = "{not json"


def nul(path: str) -> str:
    return path + "\x00x"


# -- Claude Code ---------------------------------------------------------------------------


def test_claude(tmp_path: Path) -> None:
    w = World(tmp_path, "claude")

    def shell(command: str) -> str:
        p = w.fixture("PreToolUse.Bash.json")
        p["tool_input"]["command"] = command
        return json.dumps(p)

    def edit(path: str) -> str:
        p = w.fixture("PreToolUse.Edit.json")
        p["tool_input"]["file_path"] = str(w.repo / path)
        return json.dumps(p)

    def decision(action: str, reason: str) -> dict[str, Any]:
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": action,
                                       "permissionDecisionReason": reason}}

    context = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": WARN}}
    for payload, expected in (
        (shell(SHELL["deny"]), decision("deny", DENY)),
        (shell(SHELL["ask"]), decision("ask", ASK)),
        (shell(SHELL["warn"]), context),
        (edit(FILES["deny"]), decision("deny", FILE_DENY)),
        (edit(FILES["ask"]), decision("ask", FILE_ASK)),
        (edit(FILES["warn"]), {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": FILE_WARN}}),
    ):
        proc = w.run("PreToolUse", payload)
        assert proc.returncode == 0 and proc.stderr == "", proc.stderr
        assert out(proc) == expected
    # PowerShell is a shell tool like Bash
    p = w.fixture("PreToolUse.PowerShell.json")
    p["tool_input"]["command"] = SHELL["deny"]
    assert out(w.run("PreToolUse", json.dumps(p))) == decision("deny", DENY)
    # nothing: nothing at all, never an approval
    for payload in (shell(SHELL["nothing"]), edit(FILES["nothing"])):
        proc = w.run("PreToolUse", payload)
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    # after a tool
    post = w.run("PostToolUse", json.dumps(w.fixture("PostToolUse.Bash.json")))
    assert out(post) == {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": POST}}
    # stop: the stop check lets the agent stop (its rules are another issue's): nothing
    for key, name in (("Stop", "Stop.json"), ("SubagentStop", "Stop.json")):
        proc = w.run(key, json.dumps(w.fixture(name)))
        assert (proc.returncode, proc.stdout) == (0, "")
    # bad input and jouet's own failure: exit 1, Claude Code's non-blocking error
    proc = w.run("PreToolUse", BROKEN)
    assert proc.returncode == 1 and proc.stdout == "" and "not JSON" in proc.stderr
    p = json.loads(shell(SHELL["deny"]))
    p["cwd"] = nul(p["cwd"])
    proc = w.run("PreToolUse", json.dumps(p))
    assert proc.returncode == 1 and proc.stdout == "" and "internal error: ValueError" in proc.stderr
    assert w.last_ledger_line()["decision"] == "error"


# -- Codex ---------------------------------------------------------------------------------


def test_codex(tmp_path: Path) -> None:
    w = World(tmp_path, "codex")

    def shell(command: str) -> str:
        p = w.fixture("PreToolUse.Bash.json")
        p["tool_input"]["command"] = command
        return json.dumps(p)

    def patch(*paths: str) -> str:
        p = w.fixture("PreToolUse.apply_patch.json")
        p["tool_input"]["command"] = "*** Begin Patch\n" + "".join(
            f"*** Update File: {path}\n@@\n-a\n+b\n" for path in paths) + "*** End Patch\n"
        return json.dumps(p)

    def deny(reason: str) -> dict[str, Any]:
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                       "permissionDecisionReason": reason}}

    for payload, expected in (
        (shell(SHELL["deny"]), deny(DENY)),
        # Codex counts "ask" as a failed hook and would run the call: an ask is a denial here
        (shell(SHELL["ask"]), deny(ASK + ASKS_DENIED)),
        (shell(SHELL["warn"]), {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": WARN}}),
        # apply_patch: each target file is an edit; the denial names the file
        (patch(FILES["nothing"], FILES["deny"]), deny(f"{FILES['deny']}: {FILE_DENY}")),
        (patch(FILES["ask"]), deny(FILE_ASK + ASKS_DENIED)),
        # a patch run through the shell edits the same files
        (shell("apply_patch <<'EOF'\n" + json.loads(patch(FILES["deny"]))["tool_input"]["command"] + "EOF\n"),
         deny(f"{FILES['deny']}: {FILE_DENY}")),
        (patch(FILES["warn"], "docs/other.md"), {"hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "additionalContext": f"{FILES['warn']}: {FILE_WARN}\ndocs/other.md: {FILE_WARN}"}}),
    ):
        proc = w.run("PreToolUse", payload)
        assert proc.returncode == 0 and proc.stderr == "", proc.stderr
        assert out(proc) == expected
    # the fixture's own patch (add, update, delete, move) touches nothing the rules guard
    whole = json.dumps(w.fixture("PreToolUse.apply_patch.json"))
    for payload in (shell(SHELL["nothing"]), patch(FILES["nothing"]), whole):
        proc = w.run("PreToolUse", payload)
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    p = w.fixture("PostToolUse.Bash.json")
    p["tool_input"]["command"] = "git commit -m wip"
    assert out(w.run("PostToolUse", json.dumps(p))) == {
        "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": POST}}
    primer = out(w.run("SessionStart", json.dumps(w.fixture("SessionStart.json"))))
    assert set(primer) == {"hookSpecificOutput"} and "- gc-ask (asks the person first):" in \
        primer["hookSpecificOutput"]["additionalContext"]
    proc = w.run("Stop", json.dumps(w.fixture("Stop.json")))
    assert (proc.returncode, proc.stdout) == (0, "")
    proc = w.run("PreToolUse", BROKEN)
    assert proc.returncode == 1 and proc.stdout == "" and "not JSON" in proc.stderr
    p = json.loads(shell(SHELL["deny"]))
    p["cwd"] = nul(p["cwd"])
    proc = w.run("PreToolUse", json.dumps(p))
    assert proc.returncode == 1 and proc.stdout == "" and "internal error" in proc.stderr
    assert w.last_ledger_line()["decision"] == "error"


# -- Cursor --------------------------------------------------------------------------------


def test_cursor(tmp_path: Path) -> None:
    w = World(tmp_path, "cursor")

    def shell(command: str) -> str:
        p = w.fixture("beforeShellExecution.json")
        p["command"] = command
        return json.dumps(p)

    def write(path: str) -> str:
        p = w.fixture("preToolUse.Write.json")
        p["tool_input"]["file_path"] = str(w.repo / path)
        return json.dumps(p)

    def deny(reason: str) -> dict[str, Any]:
        return {"permission": "deny", "user_message": f"jouet-git stopped this call: {reason}", "agent_message": reason}

    allow = {"permission": "allow"}
    for key, payload, expected in (
        ("beforeShellExecution", shell(SHELL["deny"]), deny(DENY)),
        ("beforeShellExecution", shell(SHELL["ask"]), deny(ASK + ASKS_DENIED)),  # Cursor's ask is not reliable
        ("beforeShellExecution", shell(SHELL["warn"]), {**allow, "agent_message": WARN,
                                                        "user_message": f"jouet-git warns: {WARN}"}),
        ("beforeShellExecution", shell(SHELL["nothing"]), allow),
        ("preToolUse", write(FILES["deny"]), deny(FILE_DENY)),
        ("preToolUse", write(FILES["ask"]), deny(FILE_ASK + ASKS_DENIED)),
        ("preToolUse", write(FILES["warn"]), {**allow, "agent_message": FILE_WARN,
                                              "user_message": f"jouet-git warns: {FILE_WARN}"}),
        ("preToolUse", write(FILES["nothing"]), allow),
    ):
        proc = w.run(key, payload)
        assert proc.returncode == 0 and proc.stderr == "", proc.stderr
        assert out(proc) == expected, (key, payload)
    read = w.fixture("beforeReadFile.json")  # .env: the built-in secret-files rule
    said = out(w.run("beforeReadFile", json.dumps(read)))
    assert said["permission"] == "deny" and said["agent_message"].endswith("[jouet rule: secret-files]")
    read["file_path"] = str(w.repo / "README.md")
    assert out(w.run("beforeReadFile", json.dumps(read))) == allow
    # after a tool Cursor passes nothing on: `{}`, the warning on stderr (its Hooks output)
    proc = w.run("afterShellExecution", json.dumps(w.fixture("afterShellExecution.json")))
    assert out(proc) == {} and proc.stderr == f"jouet: warning: {POST}\n"
    for key, name in (("afterFileEdit", "afterFileEdit.json"), ("stop", "stop.json")):
        proc = w.run(key, json.dumps(w.fixture(name)))
        assert proc.returncode == 0 and out(proc) == {}
    # bad input and failure: Cursor blocks on a failed permission hook, so "allow" and say why
    proc = w.run("beforeShellExecution", BROKEN)
    said = out(proc)
    assert proc.returncode == 0 and said["permission"] == "allow" and set(said) == {"permission", "user_message"}
    assert "not JSON" in said["user_message"] and "not JSON" in proc.stderr
    p = json.loads(shell(SHELL["deny"]))
    p["cwd"] = nul(p["cwd"])
    proc = w.run("beforeShellExecution", json.dumps(p))
    said = out(proc)
    assert proc.returncode == 0 and said["permission"] == "allow" and "internal error" in said["user_message"]
    assert w.last_ledger_line()["decision"] == "error"
    proc = w.run("afterShellExecution", BROKEN)
    assert proc.returncode == 0 and out(proc) == {}


# -- Gemini CLI ----------------------------------------------------------------------------


def test_gemini(tmp_path: Path) -> None:
    w = World(tmp_path, "gemini")

    def shell(command: str) -> str:
        p = w.fixture("BeforeTool.run_shell_command.json")
        p["tool_input"]["command"] = command
        del p["tool_input"]["dir_path"]
        return json.dumps(p)

    def replace(path: str) -> str:
        p = w.fixture("BeforeTool.replace.json")
        p["tool_input"]["file_path"] = str(w.repo / path)
        return json.dumps(p)

    for payload, expected in (
        (shell(SHELL["deny"]), {"decision": "deny", "reason": DENY,
                                "systemMessage": f"jouet-git stopped this call: {DENY}"}),
        (shell(SHELL["ask"]), {"decision": "ask", "reason": ASK,
                               "systemMessage": f"jouet-git asks you about this call: {ASK}"}),
        # BeforeTool ignores additionalContext: the warning is for the person
        (shell(SHELL["warn"]), {"systemMessage": f"jouet-git warns: {WARN}"}),
        (replace(FILES["deny"]), {"decision": "deny", "reason": FILE_DENY,
                                  "systemMessage": f"jouet-git stopped this call: {FILE_DENY}"}),
        (replace(FILES["ask"]), {"decision": "ask", "reason": FILE_ASK,
                                 "systemMessage": f"jouet-git asks you about this call: {FILE_ASK}"}),
        (replace(FILES["warn"]), {"systemMessage": f"jouet-git warns: {FILE_WARN}"}),
    ):
        proc = w.run("BeforeTool", payload)
        assert proc.returncode == 0 and proc.stderr == "", proc.stderr
        assert out(proc) == expected
    # nothing: nothing at all, and nothing on stderr either (Gemini would read it as a message)
    for payload in (shell(SHELL["nothing"]), replace(FILES["nothing"])):
        proc = w.run("BeforeTool", payload)
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    # dir_path moves where the command runs (the fixture's packages/app)
    p = w.fixture("BeforeTool.run_shell_command.json")
    p["tool_input"]["command"] = SHELL["deny"]
    assert out(w.run("BeforeTool", json.dumps(p)))["decision"] == "deny"
    after = out(w.run("AfterTool", json.dumps(w.fixture("AfterTool.run_shell_command.json"))))
    assert after == {"hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": POST}}
    start = out(w.run("SessionStart", json.dumps(w.fixture("SessionStart.json"))))
    assert start["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    proc = w.run("AfterAgent", json.dumps(w.fixture("AfterAgent.json")))
    assert (proc.returncode, proc.stdout) == (0, "")
    proc = w.run("BeforeTool", BROKEN)
    assert proc.returncode == 1 and proc.stdout == "" and "not JSON" in proc.stderr  # a warning; Gemini goes on
    p = json.loads(shell(SHELL["deny"]))
    p["cwd"] = nul(p["cwd"])
    proc = w.run("BeforeTool", json.dumps(p))
    assert proc.returncode == 1 and proc.stdout == "" and "internal error" in proc.stderr
    assert w.last_ledger_line()["decision"] == "error"


# -- GitHub Copilot ------------------------------------------------------------------------


def test_copilot(tmp_path: Path) -> None:
    w = World(tmp_path, "copilot")

    def bash(command: str, as_string: bool = True) -> str:
        p = w.fixture("preToolUse.bash.json")
        args = json.loads(p["toolArgs"])
        args["command"] = command
        p["toolArgs"] = json.dumps(args) if as_string else args
        return json.dumps(p)

    def edit(path: str) -> str:
        p = w.fixture("preToolUse.edit.json")
        p["toolArgs"]["path"] = str(w.repo / path)
        return json.dumps(p)

    def decision(action: str, reason: str) -> dict[str, Any]:
        return {"permissionDecision": action, "permissionDecisionReason": reason}

    for payload, expected in (
        (bash(SHELL["deny"]), decision("deny", DENY)),
        (bash(SHELL["deny"], as_string=False), decision("deny", DENY)),  # toolArgs as an object
        (bash(SHELL["ask"]), decision("ask", ASK)),  # the CLI asks; the cloud agent treats it as a denial
        (edit(FILES["deny"]), decision("deny", FILE_DENY)),
        (edit(FILES["ask"]), decision("ask", FILE_ASK)),
    ):
        proc = w.run("preToolUse", payload)
        assert proc.returncode == 0 and proc.stderr == "", proc.stderr
        assert out(proc) == expected
    # a warning before a tool has no field to the model here: stderr (the person's log) only
    for payload, said in ((bash(SHELL["warn"]), WARN), (edit(FILES["warn"]), FILE_WARN)):
        proc = w.run("preToolUse", payload)
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", f"jouet: warning: {said}\n")
    for payload in (bash(SHELL["nothing"]), edit(FILES["nothing"])):
        proc = w.run("preToolUse", payload)
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    # the PascalCase (VS Code compatible) payload: Claude tool names, snake_case fields
    p = w.fixture("PreToolUse.Bash.json")
    p["tool_input"]["command"] = SHELL["deny"]
    said = out(w.run("preToolUse", json.dumps(p)))
    assert said == {**decision("deny", DENY), "hookSpecificOutput": {"hookEventName": "PreToolUse",
                                                                      **decision("deny", DENY)}}
    assert out(w.run("postToolUse", json.dumps(w.fixture("postToolUse.bash.json")))) == {"additionalContext": POST}
    start = out(w.run("sessionStart", json.dumps(w.fixture("sessionStart.json"))))
    assert set(start) == {"additionalContext"} and "[jouet rule: NAME]" in start["additionalContext"]
    # a non-zero exit denies a preToolUse call: bad input and jouet's failure print nothing, exit 0
    proc = w.run("preToolUse", BROKEN)
    assert (proc.returncode, proc.stdout) == (0, "") and "not JSON" in proc.stderr
    p = json.loads(bash(SHELL["deny"]))
    p["cwd"] = nul(p["cwd"])
    proc = w.run("preToolUse", json.dumps(p))
    assert (proc.returncode, proc.stdout) == (0, "") and "internal error: ValueError" in proc.stderr
    assert w.last_ledger_line()["decision"] == "error"
    p = json.loads(bash(SHELL["deny"]))
    p["toolArgs"] = 42
    proc = w.run("preToolUse", json.dumps(p))
    assert (proc.returncode, proc.stdout) == (0, "") and "no command" in proc.stderr


# -- Windsurf ------------------------------------------------------------------------------


def test_windsurf(tmp_path: Path) -> None:
    w = World(tmp_path, "windsurf")

    def command(text: str) -> str:
        p = w.fixture("pre_run_command.json")
        p["tool_info"]["command_line"] = text
        return json.dumps(p)

    def write(path: str) -> str:
        p = w.fixture("pre_write_code.json")
        p["tool_info"]["file_path"] = str(w.repo / path)
        return json.dumps(p)

    for key, payload, status, stderr in (
        ("pre_run_command", command(SHELL["deny"]), 2, DENY + "\n"),
        ("pre_run_command", command(SHELL["ask"]), 2, ASK + ASKS_DENIED + "\n"),
        ("pre_run_command", command(SHELL["warn"]), 0, f"jouet: warning: {WARN}\n"),
        ("pre_run_command", command(SHELL["nothing"]), 0, ""),
        ("pre_write_code", write(FILES["deny"]), 2, FILE_DENY + "\n"),
        ("pre_write_code", write(FILES["ask"]), 2, FILE_ASK + ASKS_DENIED + "\n"),
        ("pre_write_code", write(FILES["warn"]), 0, f"jouet: warning: {FILE_WARN}\n"),
        ("pre_write_code", write(FILES["nothing"]), 0, ""),
        ("post_run_command", json.dumps(w.fixture("post_run_command.json")), 0, f"jouet: warning: {POST}\n"),
    ):
        proc = w.run(key, payload)
        assert (proc.returncode, proc.stdout, proc.stderr) == (status, "", stderr), (key, payload)
    proc = w.run("pre_read_code", json.dumps(w.fixture("pre_read_code.json")))
    assert proc.returncode == 2 and proc.stderr.endswith("[jouet rule: secret-files]\n")
    proc = w.run("pre_run_command", BROKEN)
    assert proc.returncode == 1 and "not JSON" in proc.stderr  # anything but 2 lets Cascade go on
    p = json.loads(command(SHELL["deny"]))
    p["tool_info"]["cwd"] = nul(p["tool_info"]["cwd"])
    proc = w.run("pre_run_command", json.dumps(p))
    assert proc.returncode == 1 and "internal error" in proc.stderr
    assert w.last_ledger_line()["decision"] == "error"


# -- Cline ---------------------------------------------------------------------------------


def test_cline(tmp_path: Path) -> None:
    w = World(tmp_path, "cline")

    def command(text: str) -> str:
        p = w.fixture("PreToolUse.execute_command.json")
        p["preToolUse"]["parameters"]["command"] = text
        return json.dumps(p)

    def editor(path: str) -> str:
        p = w.fixture("PreToolUse.editor.json")
        p["preToolUse"]["parameters"]["path"] = path  # relative to the workspace root
        return json.dumps(p)

    for payload, expected in (
        (command(SHELL["deny"]), {"cancel": True, "errorMessage": DENY}),
        (command(SHELL["ask"]), {"cancel": True, "errorMessage": ASK + ASKS_DENIED}),
        (command(SHELL["warn"]), {"cancel": False, "contextModification": WARN}),
        (command(SHELL["nothing"]), {"cancel": False}),
        (editor(FILES["deny"]), {"cancel": True, "errorMessage": FILE_DENY}),
        (editor(FILES["ask"]), {"cancel": True, "errorMessage": FILE_ASK + ASKS_DENIED}),
        (editor(FILES["warn"]), {"cancel": False, "contextModification": FILE_WARN}),
        (editor(FILES["nothing"]), {"cancel": False}),
    ):
        proc = w.run("PreToolUse", payload)
        assert proc.returncode == 0 and proc.stderr == "", proc.stderr
        assert out(proc) == expected
    # run_commands: a JSON-encoded list, one call per command; the denied one answers for all
    p = w.fixture("PreToolUse.run_commands.json")
    p["preToolUse"]["parameters"]["commands"] = json.dumps([SHELL["nothing"], SHELL["deny"]])
    assert out(w.run("PreToolUse", json.dumps(p))) == {"cancel": True, "errorMessage": f"{SHELL['deny']}: {DENY}"}
    p["preToolUse"]["parameters"]["commands"] = json.dumps([{"command": SHELL["deny"]}])
    assert out(w.run("PreToolUse", json.dumps(p))) == {"cancel": True, "errorMessage": DENY}
    assert out(w.run("PostToolUse", json.dumps(w.fixture("PostToolUse.execute_command.json")))) == {
        "cancel": False, "contextModification": POST}
    start = out(w.run("TaskStart", json.dumps(w.fixture("TaskStart.json"))))
    assert start["cancel"] is False and "[jouet rule: NAME]" in start["contextModification"]
    # valid JSON and exit 0 on every path, failing open, and saying so on stderr
    proc = w.run("PreToolUse", BROKEN)
    assert (proc.returncode, out(proc)) == (0, {"cancel": False}) and "goes ahead unchecked" in proc.stderr
    p = json.loads(command(SHELL["deny"]))
    p["workspaceRoots"] = [nul(p["workspaceRoots"][0])]
    proc = w.run("PreToolUse", json.dumps(p))
    assert (proc.returncode, out(proc)) == (0, {"cancel": False}) and "internal error" in proc.stderr
    assert w.last_ledger_line()["decision"] == "error"


# -- Amp -----------------------------------------------------------------------------------


def test_amp(tmp_path: Path) -> None:
    w = World(tmp_path, "amp")

    def bash(command: str) -> str:
        return json.dumps({"cmd": command, "cwd": str(w.repo)})

    def edit(path: str) -> str:
        p = w.fixture("edit_file.json")
        p["path"] = str(w.repo / path)
        return json.dumps(p)

    # exit 0 would approve the call: jouet never answers it
    for tool, payload, status, stderr in (
        ("Bash", bash(SHELL["deny"]), 2, DENY + "\n"),
        ("Bash", bash(SHELL["ask"]), 1, ASK + "\n"),  # Amp asks the person
        ("Bash", bash(SHELL["warn"]), 1, f"jouet: warning: {WARN}\n"),
        ("Bash", bash(SHELL["nothing"]), 1, ""),
        ("edit_file", edit(FILES["deny"]), 2, FILE_DENY + "\n"),
        ("edit_file", edit(FILES["ask"]), 1, FILE_ASK + "\n"),
        ("edit_file", edit(FILES["nothing"]), 1, ""),
        ("Read", json.dumps(w.fixture("Read.json")), 2, None),
    ):
        proc = w.run(tool, payload, AGENT_TOOL_NAME=tool, AGENT="amp", AMP_THREAD_ID="T-1")
        assert (proc.returncode, proc.stdout) == (status, ""), (tool, payload, proc.stderr)
        assert stderr is None or proc.stderr == stderr
    proc = w.run("Bash", BROKEN, AGENT_TOOL_NAME="Bash")
    assert proc.returncode == 1 and "not JSON" in proc.stderr
    proc = w.run("Bash", json.dumps({"cmd": SHELL["deny"], "cwd": nul(str(w.repo))}), AGENT_TOOL_NAME="Bash")
    assert proc.returncode == 1 and "internal error" in proc.stderr
    assert w.last_ledger_line()["decision"] == "error"


# -- Claude Code's hooks run by another harness -------------------------------------------

RunClaude = Callable[[str, str], subprocess.CompletedProcess[str]]


def fixture(w: World, name: str) -> Any:
    """Another harness's fixture, pointed at W's repository."""
    return json.loads((FIXTURES / name).read_text().replace("/workspace/project", str(w.repo)))


@pytest.fixture
def claude_hook(tmp_path: Path) -> tuple[World, RunClaude]:
    w = World(tmp_path, "claude")
    return w, lambda key, payload: w.run(key, payload)


def test_cursor_running_claude_hooks_gets_cursors_answers(claude_hook: tuple[World, RunClaude]) -> None:
    """Cursor (third-party configs on) runs .claude/settings.json's hooks under its own contract,
    where empty output blocks: the Claude hook answers Cursor's payload in Cursor's terms."""
    w, run = claude_hook
    p = fixture(w, "cursor/preToolUse.Shell.json")
    p["tool_input"]["command"] = SHELL["deny"]
    assert out(run("PreToolUse", json.dumps(p))) == {
        "permission": "deny", "user_message": f"jouet-git stopped this call: {DENY}", "agent_message": DENY}
    p["tool_input"]["command"] = SHELL["nothing"]
    assert out(run("PreToolUse", json.dumps(p))) == {"permission": "allow"}
    p["cwd"] = p["tool_input"]["working_directory"] = nul(str(w.repo))
    proc = run("PreToolUse", json.dumps(p))
    assert proc.returncode == 0 and out(proc)["permission"] == "allow"


def test_copilot_running_claude_hooks_gets_copilots_answers(claude_hook: tuple[World, RunClaude]) -> None:
    """Copilot CLI reads .claude/settings.json too, and a non-zero preToolUse exit denies there."""
    w, run = claude_hook
    p = fixture(w, "copilot/preToolUse.bash.json")
    p["toolArgs"] = json.dumps({"command": SHELL["deny"]})
    assert out(run("PreToolUse", json.dumps(p))) == {"permissionDecision": "deny", "permissionDecisionReason": DENY}
    p["cwd"] = nul(p["cwd"])
    proc = run("PreToolUse", json.dumps(p))
    assert (proc.returncode, proc.stdout) == (0, "") and "internal error" in proc.stderr
    pascal = fixture(w, "copilot/PreToolUse.Bash.json")
    pascal["tool_input"]["command"] = SHELL["nothing"]
    pascal["cwd"] = nul(pascal["cwd"])
    proc = run("PreToolUse", json.dumps(pascal))
    assert (proc.returncode, proc.stdout) == (0, "") and "internal error" in proc.stderr


# -- Copilot's agentStop and subagentStop ---------------------------------------------------

HELD = ("The last test run in this repository failed (`pytest -q` exited 1). Fix what it reports and run "
        "`pytest -q` again, until it passes, before you finish. [jouet rule: stop-check]")


def test_copilot_stop_events(tmp_path: Path) -> None:
    """`jouet setup copilot` installs agentStop and subagentStop; the stop check holds the agent
    there exactly as in Claude Code, with the reply Copilot turns into another turn."""
    w = World(tmp_path, "copilot")
    installed = parse_jsonc(Path(w.target.user_path()).read_text()).to_python()["hooks"]
    assert {"agentStop", "subagentStop"} <= set(installed)
    stop, sub = w.fixture("agentStop.json"), w.fixture("subagentStop.json")
    # nothing ran in this session: the agent may stop, and nothing at all is printed
    for key, payload in (("agentStop", stop), ("subagentStop", sub)):
        proc = w.run(key, json.dumps(payload))
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    # the session's last test run failed (as postToolUse reported it): both stops hold
    ran = w.fixture("postToolUse.bash.json")
    ran["toolArgs"] = {"command": "pytest -q"}
    ran["toolResult"]["textResultForLlm"] = "F.\n1 failed, 1 passed in 0.02s\n<exited with exit code 1>"
    assert w.run("postToolUse", json.dumps(ran)).stdout == ""
    for key, payload in (("agentStop", stop), ("subagentStop", sub)):
        proc = w.run(key, json.dumps(payload))
        assert (proc.returncode, proc.stderr) == (0, "")
        assert out(proc) == {"decision": "block", "reason": HELD}
    assert w.last_ledger_line()["decision"] == "deny"
    # Copilot says this turn already continued because of a stop hook: let it stop
    proc = w.run("agentStop", json.dumps({**stop, "stop_hook_active": True}))
    assert (proc.returncode, proc.stdout) == (0, "")
    # bad input and jouet's own failure never block a stop (Copilot logs a non-zero exit and goes on)
    proc = w.run("agentStop", BROKEN)
    assert (proc.returncode, proc.stdout) == (0, "") and "not JSON" in proc.stderr


# -- Secrets in tool output, per harness ----------------------------------------------------

gitleaks = pytest.mark.skipif(binary.find_gitleaks() is None, reason="gitleaks is not installed")
NOTICE = ("[jouet: 1 secret was replaced in this output by [secret redacted: RULE-ID] (gitleaks rules: github-pat). "
          "Do not try to recover, repeat or store the original.]")
REDACTED = "[secret redacted: github-pat]"


def not_withheld(what: str, why: str) -> str:
    return (f"jouet: {what} holds 1 secret (gitleaks rules: github-pat). {why}, so the output could not be "
            "withheld: do not repeat, store or send what it printed.")


@gitleaks
def test_copilot_post_tool_use_replaces_the_result(tmp_path: Path) -> None:
    w, secret = World(tmp_path, "copilot"), Planted().github
    installed = parse_jsonc(Path(w.target.user_path()).read_text()).to_python()["hooks"]
    assert [h["matcher"] for h in installed["postToolUse"]] == ["bash|powershell|view|grep|rg|web_fetch"]
    p = w.fixture("postToolUse.bash.json")
    p["toolArgs"] = {"command": "./build.sh"}
    p["toolResult"]["textResultForLlm"] = f"export GITHUB_TOKEN={secret}\n<exited with exit code 0>"
    proc = w.run("postToolUse", json.dumps(p))
    assert proc.returncode == 0 and secret not in proc.stdout + proc.stderr
    assert out(proc) == {"modifiedResult": {
        "resultType": "success",
        "textResultForLlm": f"export GITHUB_TOKEN={REDACTED}\n<exited with exit code 0>\n\n{NOTICE}"}}
    screen = w.last_ledger_line()["records"][-1]["screen"]
    assert (screen["rules"], screen["withheld"]) == ({"github-pat": 1}, True)
    # a file viewed, in the snake_case form: the same replacement, mirrored where VS Code reads it
    v = w.fixture("postToolUse.view.json")
    assert (w.run("postToolUse", json.dumps(v)).stdout) == ""  # clean output: nothing at all
    pascal = w.fixture("PostToolUse.Bash.json")
    pascal["tool_result"]["text_result_for_llm"] = f"TOKEN={secret}\n"
    modified = {"resultType": "success", "textResultForLlm": f"TOKEN={REDACTED}\n\n{NOTICE}"}
    assert out(w.run("postToolUse", json.dumps(pascal))) == {
        "modifiedResult": modified, "hookSpecificOutput": {"hookEventName": "PostToolUse", "modifiedResult": modified}}


@gitleaks
def test_copilot_failed_tool_can_only_be_annotated(claude_hook: tuple[World, RunClaude]) -> None:
    """Copilot runs .claude/settings.json's PostToolUseFailure with its PascalCase payload."""
    w, run = claude_hook
    secret = Planted().github
    p = fixture(w, "copilot/PostToolUseFailure.Bash.json")
    p["error"] = f"push rejected for token {secret}\n<exited with exit code 1>"
    proc = run("PostToolUseFailure", json.dumps(p))
    assert proc.returncode == 0 and secret not in proc.stdout + proc.stderr
    line = not_withheld("this failed tool's output", "After a failed tool a hook may only add context")
    assert out(proc) == {"additionalContext": line,
                         "hookSpecificOutput": {"hookEventName": "PostToolUseFailure", "additionalContext": line}}
    assert w.last_ledger_line()["records"][-1]["screen"]["withheld"] is False


@gitleaks
def test_codex_post_tool_use_blocks_with_the_screened_output(tmp_path: Path) -> None:
    """Codex has no field that rewrites a result: a PostToolUse block's reason takes its place."""
    w, secret = World(tmp_path, "codex"), Planted().github
    installed = parse_jsonc(Path(w.target.user_path()).read_text()).to_python()["hooks"]
    assert [g["matcher"] for g in installed["PostToolUse"]] == ["Bash|mcp__.*"]
    p = w.fixture("PostToolUse.Bash.json")
    p["tool_input"]["command"] = "env"
    p["tool_response"]["output"] = f"HOME=/home/dev\nGITHUB_TOKEN={secret}\n"
    proc = w.run("PostToolUse", json.dumps(p))
    assert proc.returncode == 0 and secret not in proc.stdout + proc.stderr
    shown = {**p["tool_response"], "output": f"HOME=/home/dev\nGITHUB_TOKEN={REDACTED}\n\n{NOTICE}"}
    assert out(proc) == {"decision": "block", "reason": json.dumps(shown, ensure_ascii=False)}
    # a rule after the tool still speaks through additionalContext beside the block
    p["tool_input"]["command"] = "git commit -m wip"
    assert out(w.run("PostToolUse", json.dumps(p))) == {
        "decision": "block", "reason": json.dumps(shown, ensure_ascii=False),
        "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": POST}}


@gitleaks
def test_gemini_after_tool_denies_with_the_screened_output(tmp_path: Path) -> None:
    """A denial after a tool hides its output; the reason (the output, screened) takes its place."""
    w, secret = World(tmp_path, "gemini"), Planted().github
    installed = parse_jsonc(Path(w.target.user_path()).read_text()).to_python()["hooks"]
    [group] = installed["AfterTool"]
    assert "read_file" in group["matcher"].split("|")
    p = w.fixture("AfterTool.read_file.json")
    assert w.run("AfterTool", json.dumps(p)).stdout == ""  # clean: nothing
    p["tool_response"]["llmContent"] = f"DEBUG = False\nGITHUB_TOKEN = \"{secret}\"\n"
    proc = w.run("AfterTool", json.dumps(p))
    assert (proc.returncode, proc.stderr) == (0, "") and secret not in proc.stdout
    assert out(proc) == {
        "decision": "deny", "reason": f"DEBUG = False\nGITHUB_TOKEN = \"{REDACTED}\"\n\n{NOTICE}",
        "systemMessage": "jouet-git replaced 1 secret in this tool's output (gitleaks rules: github-pat)."}
    # a shell command's rule after the tool goes into the same reason (a blocked result drops context)
    s = w.fixture("AfterTool.run_shell_command.json")
    s["tool_response"]["llmContent"] = s["tool_response"]["llmContent"].replace("wip", f"wip {secret}")
    twice = NOTICE.replace("1 secret was", "2 secrets were")  # in the command line and in its output
    text = s["tool_response"]["llmContent"].replace(secret, REDACTED)
    assert out(w.run("AfterTool", json.dumps(s))) == {
        "decision": "deny", "reason": f"{text}\n\n{twice}\n\n{POST}",
        "systemMessage": "jouet-git replaced 2 secrets in this tool's output (gitleaks rules: github-pat)."}


@gitleaks
def test_cursor_post_tool_use_can_only_annotate(claude_hook: tuple[World, RunClaude]) -> None:
    """Cursor runs .claude/settings.json's PostToolUse with its own payload: context only."""
    w, run = claude_hook
    secret = Planted().github
    p = fixture(w, "cursor/postToolUse.Shell.json")
    assert out(run("PostToolUse", json.dumps(p))) == {}  # clean: Cursor's empty answer
    p["tool_output"] = f"GITHUB_TOKEN={secret}\n"
    proc = run("PostToolUse", json.dumps(p))
    assert proc.returncode == 0 and secret not in proc.stdout + proc.stderr
    assert out(proc) == {"additional_context": not_withheld(
        "this tool's output", "Cursor lets a hook only add context after a tool")}
    assert w.last_ledger_line()["records"][-1]["screen"]["withheld"] is False


@gitleaks
def test_cline_post_tool_use_can_only_annotate(tmp_path: Path) -> None:
    w, secret = World(tmp_path, "cline"), Planted().github
    p = w.fixture("PostToolUse.execute_command.json")
    p["postToolUse"]["parameters"]["command"] = "./build.sh"
    assert out(w.run("PostToolUse", json.dumps(p))) == {"cancel": False}
    p["postToolUse"]["result"] = f"GITHUB_TOKEN={secret}\n"
    proc = w.run("PostToolUse", json.dumps(p))
    assert proc.returncode == 0 and secret not in proc.stdout + proc.stderr
    assert out(proc) == {"cancel": False, "contextModification": not_withheld(
        "this tool's output", "Cline lets a hook only add context after a tool")}
