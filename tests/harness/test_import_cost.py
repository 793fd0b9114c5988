"""Every adapter's hook path imports nothing heavy: it runs before every tool call an agent makes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from testing import make_repo, run_jouet

FIXTURES = Path(__file__).parent / "fixtures"
HEAVY = {"git", "filelock", "tomlkit", "rich", "tomli", "dataclasses", "typing", "subprocess", "argparse",
         "pathlib", "hashlib", "lupa", "inspect"}
CASES = [
    ("codex", "pre", "codex/PreToolUse.apply_patch.json", {}),
    ("cursor", "pre-tool-use", "cursor/preToolUse.Write.json", {}),
    ("gemini", "before-tool", "gemini/BeforeTool.replace.json", {}),
    ("copilot", "pre-tool-use", "copilot/preToolUse.edit.json", {}),
    ("windsurf", "pre-write-code", "windsurf/pre_write_code.json", {}),
    ("cline", "pre-tool-use", "cline/PreToolUse.editor.json", {}),
    ("amp", "pre-tool-use", "amp/edit_file.json", {"AGENT_TOOL_NAME": "edit_file"}),
]


@pytest.mark.parametrize(("harness", "event", "fixture", "env"), CASES)
def test_hook_path_imports_nothing_heavy(harness: str, event: str, fixture: str, env: dict[str, str],
                                         tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    payload = (FIXTURES / fixture).read_text().replace("/workspace/project", str(repo))
    run_jouet("hook", harness, event, input=payload, cwd=repo, env=env)  # builds the rule set cache
    code = (f"import sys\nfrom jouet_git.cli import main\nmain(['hook', {harness!r}, {event!r}])\n"
            "sys.stderr.write('\\nMODULES ' + ' '.join(sorted(sys.modules)))\n")
    proc = subprocess.run([sys.executable, "-c", code], input=payload, cwd=repo, capture_output=True, text=True,
                          env={**os.environ, **env})
    assert proc.returncode in (0, 1), proc.stderr
    modules = set(proc.stderr.rsplit("MODULES ", 1)[1].split())
    assert f"jouet_git.harness.{harness}" in modules
    roots = {m.split(".")[0] for m in modules}
    assert not HEAVY & roots, HEAVY & roots
    assert "jouet_git.engine.build" not in modules  # the rule set came from the cache
