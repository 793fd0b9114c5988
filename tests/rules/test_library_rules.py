"""The built-in rules about commands that waste an agent's turn, through real hooks: sed-line-edit,
python-edit, piped-test-output, reread and large-read, and `jouet read --outline`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from testing import make_repo, run_jouet


def call(cwd: Path, tool: str, session: str = "s1", event: str = "pre", **tool_input: Any) -> dict[str, Any] | None:
    """The hook's hookSpecificOutput for one call, or None when it printed nothing."""
    payload = {"session_id": session, "cwd": str(cwd), "hook_event_name": "PreToolUse", "tool_name": tool,
               "tool_input": tool_input}
    proc = run_jouet("hook", "claude", event, input=json.dumps(payload), cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    if not proc.stdout.strip():
        return None
    out: dict[str, Any] = json.loads(proc.stdout)["hookSpecificOutput"]
    return out


def verdict(out: dict[str, Any] | None) -> tuple[str, str] | None:
    """(deny | warn | rewrite, the rule) of a hook's answer."""
    if out is None:
        return None
    if out.get("permissionDecision") == "deny":
        return "deny", out["permissionDecisionReason"].rsplit("[jouet rule: ", 1)[1].rstrip("]")
    if "updatedInput" in out:
        return "rewrite", out["additionalContext"].split("\n")[0].rsplit("[jouet rule: ", 1)[1].rstrip("]")
    context = out.get("additionalContext", "")
    return "warn", context.rsplit("[jouet rule: ", 1)[1].rstrip("]")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {
        "src/app.py": "".join(f"def handler_{i}(event):\n    return {i}\n\n" for i in range(400)),
        "notes.txt": "".join(f"note {i}\n" for i in range(1, 21)),
    })


def test_sed_line_edit_denies_what_really_goes_wrong(repo: Path) -> None:
    # Two edits planned from one reading of the file: delete line 3, then line 5 ("note 5").
    notes = repo / "notes.txt"
    subprocess.run(["bash", "-c", "sed -i '3d' notes.txt && sed -i '5d' notes.txt"], cwd=repo, check=True)
    assert "note 5\n" in notes.read_text() and "note 6\n" not in notes.read_text()  # the wrong line went
    assert verdict(call(repo, "Bash", command="sed -i '3d' notes.txt && sed -i '5d' notes.txt")) == (
        "deny", "sed-line-edit")
    # By content, each edit hits its line whatever came before it.
    notes.write_text("".join(f"note {i}\n" for i in range(1, 21)))
    command = "sed -i '/^note 3$/d' notes.txt && sed -i '/^note 5$/d' notes.txt"
    assert verdict(call(repo, "Bash", command=command)) is None
    subprocess.run(["bash", "-c", command], cwd=repo, check=True)
    assert "note 5\n" not in notes.read_text() and "note 6\n" in notes.read_text()


def test_python_edit_warns_once_in_a_session_then_denies(repo: Path) -> None:
    script = ("python3 - <<'EOF'\nfrom pathlib import Path\np = Path('src/app.py')\n"
              "p.write_text(p.read_text().replace('handler_1(', 'on_event_1('))\nEOF")
    first = call(repo, "Bash", command=script)
    assert verdict(first) == ("warn", "python-edit")
    assert first is not None and "Said once in a session" in first["additionalContext"]
    assert verdict(call(repo, "Bash", command=script)) == ("deny", "python-edit")
    # Another session starts over.
    assert verdict(call(repo, "Bash", session="s2", command=script)) == ("warn", "python-edit")
    # Writing a new file, or running a script file, is left alone.
    assert call(repo, "Bash", command="python3 -c \"open('out.txt', 'w').write('x')\"") is None
    (repo / "rewrite.py").write_text("print(1)\n")
    assert call(repo, "Bash", command="python3 rewrite.py") is None


def test_piped_test_output_is_rewritten_in_claude_code(repo: Path) -> None:
    out = call(repo, "Bash", command="cd src && python3 -m pytest -x 2>&1 | tail -n 20")
    assert verdict(out) == ("rewrite", "piped-test-output")
    assert out is not None and out["updatedInput"]["command"] == "cd src && python3 -m pytest -x 2>&1"


def test_piped_test_output_warns_once_then_denies_where_it_cannot_rewrite(repo: Path) -> None:
    command = "pytest -x > out.log 2>&1; tail -n 30 out.log"
    assert verdict(call(repo, "Bash", command=command)) == ("warn", "piped-test-output")
    assert verdict(call(repo, "Bash", command=command)) == ("deny", "piped-test-output")
    # A pipe with more than cutting in it is not rewritten: after the warning, denied.
    assert verdict(call(repo, "Bash", command="pytest | tail -n 5 | sort")) == ("deny", "piped-test-output")
    assert call(repo, "Bash", command="pytest -q") is None
    assert call(repo, "Bash", command="git log --oneline | head -5") is None


def test_reread_and_its_way_through(repo: Path) -> None:
    path = str(repo / "notes.txt")
    assert call(repo, "Read", file_path=path) is None
    assert verdict(call(repo, "Read", file_path=path)) == ("deny", "reread")
    assert verdict(call(repo, "Bash", command="cat notes.txt")) is None  # the denial forgot the file
    assert verdict(call(repo, "Bash", command="head -n 5 notes.txt")) == ("deny", "reread")
    (repo / "notes.txt").write_text("changed\n")
    assert call(repo, "Read", file_path=path) is None


def test_reread_starts_again_after_claude_code_compacts(repo: Path) -> None:
    path = str(repo / "notes.txt")
    assert call(repo, "Read", file_path=path) is None
    start = {"session_id": "s1", "cwd": str(repo), "hook_event_name": "SessionStart", "source": "compact"}
    assert run_jouet("hook", "claude", "session-start", input=json.dumps(start), cwd=repo).returncode == 0
    assert call(repo, "Read", file_path=path) is None
    assert verdict(call(repo, "Read", file_path=path)) == ("deny", "reread")


def test_large_read_denies_a_whole_large_source_file_only(repo: Path) -> None:
    path = str(repo / "src" / "app.py")  # 1,200 lines of Python
    assert verdict(call(repo, "Read", file_path=path)) == ("deny", "large-read")
    assert call(repo, "Read", file_path=path, offset=1, limit=300) is None
    assert verdict(call(repo, "Bash", session="s2", command="cat src/app.py")) == ("deny", "large-read")
    assert call(repo, "Bash", session="s3", command="sed -n '100,200p' src/app.py") is None
    (repo / "big.log").write_text("".join(f"step {i}\n" for i in range(3000)))
    assert call(repo, "Read", session="s4", file_path=str(repo / "big.log")) is None


def test_read_outline(repo: Path) -> None:
    proc = run_jouet("read", "--outline", "src/app.py", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "src/app.py  (1200 lines, Python)"
    assert lines[1].split() == ["1", "def", "handler_0(event):"]
    assert len(lines) == 401
    refused = run_jouet("read", "--outline", "notes.txt", cwd=repo)
    assert refused.returncode == 2 and "cannot outline this kind of file" in refused.stderr
