"""`jouet setup HARNESS`: install into and uninstall from realistic existing config files.

Every harness's file here has comments where the format allows them, its own indentation, compact
arrays, other tools' hooks and keys jouet does not know. The checks: the diff only adds jouet's
entries (an existing line changes only by gaining a comma), a second run changes nothing,
--uninstall gives back the exact bytes, broken files are refused with file:line:column and left
alone, backups live outside the work tree and only the last few are kept, and project files run
the portable `jouet` while user files run this jouet's absolute path.
"""

from __future__ import annotations

import difflib
import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from testing import git, make_repo, run_jouet

from jouet_git.setup.jsonedit import parse

HOME_FILES = {
    "claude": ".claude/settings.json",
    "codex": ".codex/hooks.json",
    "cursor": ".cursor/hooks.json",
    "gemini": ".gemini/settings.json",
    "copilot": ".copilot/hooks/jouet.json",
    "windsurf": ".codeium/windsurf/hooks.json",
    "amp": "xdg-config/amp/settings.json",  # under XDG_CONFIG_HOME
}
PROJECT_FILES = {
    "claude": ".claude/settings.json",
    "codex": ".codex/hooks.json",
    "cursor": ".cursor/hooks.json",
    "gemini": ".gemini/settings.json",
    "copilot": ".github/hooks/jouet.json",
    "windsurf": ".windsurf/hooks.json",
    "amp": ".amp/settings.json",
}

# Realistic files people already have. Comments only where the harness reads JSONC.
EXISTING = {
    "claude": """{
   "$schema": "https://json.schemastore.org/claude-code-settings.json",
   "permissions": {
      "allow": ["Bash(npm test:*)", "Read(./docs/**)"],
      "deny": ["Read(./.env)"]
   },
   "hooks": {
      "PreToolUse": [
         {
            "matcher": "Bash",
            "hooks": [{"type": "command", "command": "/opt/audit/log-bash.sh", "timeout": 5}]
         }
      ],
      "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]
   },
   "model": "opus",
   "zzz_unknown_key": [1, 2, 3]
}
""",
    "codex": """{
\t"hooks": {
\t\t"SessionStart": [
\t\t\t{
\t\t\t\t"matcher": "startup|resume",
\t\t\t\t"hooks": [
\t\t\t\t\t{"type": "command", "command": "sh .codex/hooks/session-start.sh", "statusMessage": "Loading context"}
\t\t\t\t]
\t\t\t}
\t\t]
\t}
}
""",
    "cursor": """{
  "version": 1,
  "hooks": {
    "afterFileEdit": [ { "command": "./hooks/format.sh" } ],
    "beforeShellExecution": [
      { "command": "./hooks/approve-network.sh", "timeout": 10, "matcher": "curl|wget" }
    ]
  }
}
""",
    "gemini": """// Gemini CLI settings
{
  "general": { "vimMode": true },
  "hooksConfig": { "enabled": true },
  "hooks": {
    "BeforeTool": [
      {
        "matcher": "write_file",
        "hooks": [
          {
            "name": "secret-scan", // our scanner
            "type": "command",
            "command": "$GEMINI_PROJECT_DIR/.gemini/hooks/scan.sh",
            "timeout": 5000
          }
        ]
      }
    ]
  },
  /* the theme */
  "ui": {"theme": "GitHub"}
}
""",
    "copilot": """{
  "version": 1,
  "disableAllHooks": false,
  "hooks": {
    "postToolUse": [
      {"type": "command", "bash": "./scripts/log-tool.sh", "matcher": "bash|edit"}
    ]
  }
}
""",
    "windsurf": """{
    "hooks": {
        "post_write_code": [
            {"command": "python3 .windsurf/lint.py", "show_output": true}
        ]
    },
    "x-team": "platform"
}
""",
    "amp": """{
  // Amp settings
  "amp.notifications.enabled": false,
  "amp.permissions": [
    { "tool": "Bash", "matches": { "cmd": ["npm test*", "git status"] }, "action": "allow" },
    { "tool": "mcp__playwright__*", "action": "reject" },
  ],
  "amp.mcpServers": {}
}
""",
}

HARNESSES = sorted(EXISTING)


@pytest.fixture(autouse=True)
def any_harness(monkeypatch: pytest.MonkeyPatch) -> None:
    """Install for every harness, whether or not this jouet has its adapter yet (see Target.ready)."""
    monkeypatch.setenv("JOUET_SETUP_UNREADY", "1")


def test_a_harness_without_its_adapter_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JOUET_SETUP_UNREADY")
    from jouet_git.setup.targets import TARGETS

    missing = [t for t in TARGETS.values() if not t.ready()]
    for target in missing:
        proc = run_jouet("setup", target.name, cwd=tmp_path)
        assert proc.returncode == 2 and f"no `jouet hook {target.name}` yet" in proc.stderr
        assert not Path(target.user_path()).exists()
        assert run_jouet("setup", target.name, "--dry-run", cwd=tmp_path).returncode == 0
    assert TARGETS["claude"].ready()


def home() -> Path:
    return Path(os.environ["HOME"])


def user_file(harness: str) -> Path:
    if harness == "amp":
        return Path(os.environ["XDG_CONFIG_HOME"]) / "amp" / "settings.json"
    return home() / HOME_FILES[harness]


def only_additions(before: str, after: str) -> list[str]:
    """The lines AFTER adds to BEFORE; fails when an existing line changed beyond a new comma."""
    a, b = before.splitlines(), after.splitlines()
    added: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        assert op != "delete", f"lines removed: {a[i1:i2]}"
        old, new = a[i1:i2], b[j1:j2]
        for line in old:  # an old line may only have gained a comma, or an element inside its brackets
            assert any(_grown(line, n) for n in new), f"line changed: {line!r} -> {new}"
        added += [n for n in new if not any(_grown(line, n) for line in old)]
    return added


def _grown(old: str, new: str) -> bool:
    if new == old + "," or new.replace(",", "", 1) == old:
        return True
    cut = max(old.rfind("]"), old.rfind("}"))  # a compact list or object with an element added
    return cut > 0 and new.startswith(old[:cut].rstrip()) and new.endswith(old[cut:]) and len(new) > len(old)


def strip_jouet(value: Any, harness: str) -> Any:
    """VALUE without jouet's entries (and without the lists and keys only they filled)."""
    mark = f" hook {harness} "
    if isinstance(value, list):
        kept = [strip_jouet(v, harness) for v in value if mark not in json.dumps(v)]
        return kept
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            stripped = strip_jouet(v, harness)
            if stripped == [] and v != []:
                continue
            if stripped == {} and v != {}:
                continue
            out[k] = stripped
        return out
    return value


@pytest.mark.parametrize("harness", HARNESSES)
def test_install_adds_only_jouet_and_uninstall_restores_the_bytes(harness: str, tmp_path: Path) -> None:
    path = user_file(harness)
    path.parent.mkdir(parents=True, exist_ok=True)
    original = EXISTING[harness]
    path.write_text(original)
    proc = run_jouet("setup", harness, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    after = path.read_text()
    added = only_additions(original, after)
    assert any(f" hook {harness} " in line for line in added), added
    for line in added:  # nothing but jouet's entries is added
        assert not any(word in line for word in ("notify-send", "audit", "format.sh", "lint.py"))
    assert strip_jouet(parse(after).to_python(), harness) == parse(original).to_python()
    # idempotent: nothing to change, no new backup
    again = run_jouet("setup", harness, cwd=tmp_path)
    assert again.returncode == 0 and "nothing to change" in again.stdout, again.stdout + again.stderr
    assert path.read_text() == after
    assert len(backups()) == 1
    # uninstall: the exact bytes
    proc = run_jouet("setup", harness, "--uninstall", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert path.read_bytes() == original.encode()


def backups() -> list[Path]:
    return sorted(Path(os.environ["JOUET_STATE_DIR"]).glob("setup/*/backups/*"))


def test_claude_diff_is_exactly_jouet_entries_in_the_file_style(tmp_path: Path) -> None:
    path = user_file("claude")
    path.parent.mkdir(parents=True)
    path.write_text(EXISTING["claude"])
    assert run_jouet("setup", "claude", cwd=tmp_path).returncode == 0
    after = path.read_text()
    jouet = json.loads(after)["hooks"]["SessionStart"][0]["hooks"][0]["command"].split(" hook ")[0]
    diff = "".join(difflib.unified_diff(EXISTING["claude"].splitlines(True), after.splitlines(True)))
    assert diff.split("\n", 2)[2] == CLAUDE_DIFF.replace("{jouet}", jouet)


CLAUDE_DIFF = """\
@@ -9,9 +9,54 @@
          {
             "matcher": "Bash",
             "hooks": [{"type": "command", "command": "/opt/audit/log-bash.sh", "timeout": 5}]
+         },
+         {
+            "matcher": "Bash|PowerShell|Read|Grep|Edit|Write|MultiEdit|NotebookEdit",
+            "hooks": [
+               {
+                  "type": "command",
+                  "command": "{jouet} hook claude pre",
+                  "timeout": 30
+               }
+            ]
          }
       ],
-      "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]
+      "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
+      "PostToolUse": [
+         {
+            "matcher": "Bash|PowerShell|Read|Grep|WebFetch|mcp__.*",
+            "hooks": [
+               {
+                  "type": "command",
+                  "command": "{jouet} hook claude post",
+                  "timeout": 30
+               }
+            ]
+         }
+      ],
+      "PostToolUseFailure": [
+         {
+            "matcher": "Bash|PowerShell|Read|Grep|WebFetch|mcp__.*",
+            "hooks": [
+               {
+                  "type": "command",
+                  "command": "{jouet} hook claude post-failure",
+                  "timeout": 30
+               }
+            ]
+         }
+      ],
+      "SessionStart": [
+         {
+            "hooks": [
+               {
+                  "type": "command",
+                  "command": "{jouet} hook claude session-start",
+                  "timeout": 30
+               }
+            ]
+         }
+      ]
    },
    "model": "opus",
    "zzz_unknown_key": [1, 2, 3]
"""


def test_gemini_keeps_comments_and_writes_milliseconds(tmp_path: Path) -> None:
    path = user_file("gemini")
    path.parent.mkdir(parents=True)
    path.write_text(EXISTING["gemini"])
    assert run_jouet("setup", "gemini", cwd=tmp_path).returncode == 0
    text = path.read_text()
    assert text.startswith("// Gemini CLI settings\n") and "// our scanner" in text and "/* the theme */" in text
    data = parse(text).to_python()
    ours = [h for g in data["hooks"]["BeforeTool"] for h in g["hooks"] if " hook gemini " in h["command"]]
    assert ours == [{"type": "command", "name": "jouet-before-tool", "command": ours[0]["command"],
                     "timeout": 30000}]
    assert set(data["hooks"]) == {"BeforeTool", "AfterTool", "SessionStart", "AfterAgent"}


def test_amp_rules_go_first_and_trailing_commas_are_kept(tmp_path: Path) -> None:
    path = user_file("amp")
    path.parent.mkdir(parents=True)
    path.write_text(EXISTING["amp"])
    assert run_jouet("setup", "amp", cwd=tmp_path).returncode == 0
    rules = parse(path.read_text()).to_python()["amp.permissions"]
    assert [r["tool"] for r in rules[:4]] == ["Bash", "edit_file", "create_file", "Read"]
    assert all(r["action"] == "delegate" and r["to"].endswith(" hook amp pre-tool-use") for r in rules[:4])
    assert rules[4]["action"] == "allow" and rules[5]["action"] == "reject"
    assert '    { "tool": "mcp__playwright__*", "action": "reject" },\n  ],' in path.read_text()


def test_copilot_owns_one_file_and_cursor_gets_its_version(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    assert run_jouet("setup", "copilot", "--project", cwd=repo).returncode == 0
    data = json.loads((repo / ".github" / "hooks" / "jouet.json").read_text())
    assert data["version"] == 1
    pre = data["hooks"]["preToolUse"][0]
    assert pre == {"type": "command",
                   "bash": "command -v jouet >/dev/null 2>&1 || exit 0; jouet hook copilot pre-tool-use",
                   "timeoutSec": 30}
    assert run_jouet("setup", "cursor", "--project", cwd=repo).returncode == 0
    cursor = json.loads((repo / ".cursor" / "hooks.json").read_text())
    assert cursor["version"] == 1
    assert cursor["hooks"]["beforeShellExecution"][0]["command"] == (
        "command -v jouet >/dev/null 2>&1 || { echo '{\"permission\":\"allow\"}'; exit 0; }; "
        "jouet hook cursor before-shell-execution")


@pytest.mark.parametrize("harness", [*HARNESSES, "cline"])
def test_project_files_run_the_portable_jouet(harness: str, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    proc = run_jouet("setup", harness, "--project", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    listed = git(repo, "status", "--porcelain", "--untracked-files=all").splitlines()
    written = [repo / line[3:] for line in listed]
    assert written, "nothing written"
    for p in written:
        text = p.read_text()
        assert str(Path(os.environ["HOME"])) not in text and ".venv" not in text and "/bin/jouet" not in text
        assert f"jouet hook {harness} " in text
    # backups and records stay out of the work tree
    assert all(p.name in {"settings.json", "hooks.json", "jouet.json", "PreToolUse", "PostToolUse",
                          "TaskStart"} for p in written), written


def test_user_files_run_this_jouet_by_its_absolute_path(tmp_path: Path) -> None:
    assert run_jouet("setup", "codex", cwd=tmp_path).returncode == 0
    command = json.loads(user_file("codex").read_text())["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    program = command.split(" hook ")[0]
    assert os.path.isabs(program) and os.access(program, os.X_OK), command


@pytest.mark.parametrize("broken, where", [
    ('{"hooks": {"PreToolUse": [}', ":1:27:"),
    ('{\n  "hooks": {\n    "PreToolUse": [1, 2,,]\n  }\n}\n', ":3:25:"),
    ('{"hooks": ["not", "an", "object"]}', ":1:11:"),
    ('{"hooks": {"PreToolUse": {"matcher": "Bash"}}}', ":1:26:"),
    ("[1, 2]", ":1:1:"),
])
def test_a_file_that_does_not_parse_is_refused_with_its_place(broken: str, where: str, tmp_path: Path) -> None:
    path = user_file("claude")
    path.parent.mkdir(parents=True)
    path.write_text(broken)
    proc = run_jouet("setup", "claude", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout
    assert f"{path}{where}" in proc.stderr and "will not rewrite it" in proc.stderr, proc.stderr
    assert path.read_text() == broken
    assert not backups()
    listing = run_jouet("setup", "--json", cwd=tmp_path)
    row = next(r for r in json.loads(listing.stdout)["claude"] if r["scope"] == "user")
    assert row["state"] == "unreadable" and where in row["problem"]


def test_only_the_last_three_backups_are_kept(tmp_path: Path) -> None:
    path = user_file("windsurf")
    path.parent.mkdir(parents=True)
    path.write_text(EXISTING["windsurf"])
    for _ in range(3):
        assert run_jouet("setup", "windsurf", cwd=tmp_path).returncode == 0
        assert run_jouet("setup", "windsurf", "--uninstall", cwd=tmp_path).returncode == 0
    assert len(backups()) == 3
    assert path.read_text() == EXISTING["windsurf"]


def test_uninstall_after_someone_else_changed_the_file_takes_out_only_jouet(tmp_path: Path) -> None:
    path = user_file("cursor")
    path.parent.mkdir(parents=True)
    path.write_text(EXISTING["cursor"])
    assert run_jouet("setup", "cursor", cwd=tmp_path).returncode == 0
    edited = path.read_text().replace('"version": 1,', '"version": 1,\n  "x-added-later": true,')
    path.write_text(edited)
    assert run_jouet("setup", "cursor", "--uninstall", cwd=tmp_path).returncode == 0
    assert parse(path.read_text()).to_python() == {**parse(EXISTING["cursor"]).to_python(), "x-added-later": True}
    assert path.read_text() == EXISTING["cursor"].replace('"version": 1,', '"version": 1,\n  "x-added-later": true,')


def test_dry_run_shows_the_diff_and_writes_nothing(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    proc = run_jouet("setup", "gemini", "--project", "--dry-run", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert "+++ " in proc.stdout and "jouet hook gemini before-tool" in proc.stdout and "dry run" in proc.stdout
    assert not (repo / ".gemini").exists()
    assert not Path(os.environ["JOUET_STATE_DIR"]).joinpath("setup").exists()


def test_a_stale_jouet_entry_is_updated_in_place(tmp_path: Path) -> None:
    path = user_file("claude")
    path.parent.mkdir(parents=True)
    old = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "/old/venv/bin/jouet hook claude pre", "timeout": 30}]}],
        "SessionStart": [{"hooks": [{"type": "command", "command": "/old/venv/bin/jouet hook claude session-start"},
                                    {"type": "command", "command": "echo hello"}]}]}}
    path.write_text(json.dumps(old, indent=2))
    proc = run_jouet("setup", "claude", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(path.read_text())
    assert len(data["hooks"]["PreToolUse"]) == 1
    assert data["hooks"]["PreToolUse"][0]["matcher"].startswith("Bash|PowerShell")
    assert "/old/venv" not in path.read_text()
    # our hook inside someone else's group is updated there, their hook stays
    start = data["hooks"]["SessionStart"]
    assert len(start) == 1 and start[0]["hooks"][1] == {"type": "command", "command": "echo hello"}


def test_cline_scripts(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    assert run_jouet("setup", "cline", "--project", cwd=repo).returncode == 0
    hooks = repo / ".clinerules" / "hooks"
    assert sorted(p.name for p in hooks.iterdir()) == ["PostToolUse", "PreToolUse", "TaskStart"]
    script = hooks / "PreToolUse"
    assert script.stat().st_mode & stat.S_IXUSR
    assert script.read_text().splitlines()[-1] == "exec jouet hook cline pre-tool-use"
    assert "nothing to change" in run_jouet("setup", "cline", "--project", cwd=repo).stdout
    assert run_jouet("setup", "cline", "--project", "--uninstall", cwd=repo).returncode == 0
    assert not (repo / ".clinerules").exists()
    # someone's own hook is never replaced
    hooks.mkdir(parents=True)
    (hooks / "PreToolUse").write_text("#!/bin/sh\necho '{\"cancel\": false}'\n")
    proc = run_jouet("setup", "cline", "--project", cwd=repo)
    assert proc.returncode == 2 and "was not written by jouet" in proc.stderr
    assert (hooks / "PreToolUse").read_text() == "#!/bin/sh\necho '{\"cancel\": false}'\n"
    assert not (hooks / "TaskStart").exists()


def test_overview_says_where_and_whether_the_command_runs(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    assert run_jouet("setup", "codex", cwd=repo).returncode == 0
    assert run_jouet("setup", "windsurf", "--project", cwd=repo).returncode == 0
    path = user_file("windsurf")
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"hooks": {"pre_run_command": [
        {"command": "/gone/bin/jouet hook windsurf pre-run-command"}]}}))
    proc = run_jouet("setup", "--json", cwd=repo, env={"PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert set(out) == {*HARNESSES, "cline", "opencode", "pi", "openclaw", "git"}
    codex = {r["scope"]: r for r in out["codex"]}
    assert codex["user"]["state"] == "installed" and codex["project"]["state"] == "not installed"
    assert all(v.startswith("ok: jouet ") for v in codex["user"]["runs"].values()), codex["user"]
    windsurf = {r["scope"]: r for r in out["windsurf"]}
    assert windsurf["project"]["runs"] == {"jouet": "not found: jouet is not on PATH"}
    assert windsurf["user"]["state"] == "partial"
    assert windsurf["user"]["runs"] == {"/gone/bin/jouet": "not found: /gone/bin/jouet"}
    text = run_jouet("setup", cwd=repo, env={"PATH": "/usr/bin:/bin"}).stdout
    assert "BROKEN: /gone/bin/jouet" in text and str(repo / ".windsurf" / "hooks.json") in text
