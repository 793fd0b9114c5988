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


def test_a_git_status_hook_compiles_only_the_reader_patterns_it_uses(tmp_path: Path) -> None:
    """The shell reader compiles its patterns for redirections, double quotes and here-documents
    when a command first needs them: `git status` needs none (compiling them cost every hook about
    a tenth of a millisecond); a command with all three compiles each once and reads as before."""
    from testing import claude_payload

    repo = make_repo(tmp_path / "r")
    code = ("import sys\nfrom jouet_git.cli import main\nmain(['hook', 'claude', 'pre'])\n"
            "from jouet_git.shell import reader\n"
            "names = ('_REDIR', '_DQ_PLAIN', '_HEREDOC_PLAIN')\n"
            "sys.stderr.write('\\nCOMPILED ' + ' '.join(n for n in names if getattr(reader, n).__name__ == 'match'))\n")
    everything = {"_REDIR", "_DQ_PLAIN", "_HEREDOC_PLAIN"}
    for command, compiled in (("git status", set()), ('cat <<EOF > "out dir/f.txt"\nhi $USER\nEOF', everything)):
        payload = claude_payload(command, repo)
        run_jouet("hook", "claude", "pre", input=payload, cwd=repo)  # builds the rule set cache
        proc = subprocess.run([sys.executable, "-c", code], input=payload, cwd=repo, capture_output=True, text=True)
        assert proc.returncode in (0, 1), proc.stderr
        assert set(proc.stderr.rsplit("COMPILED ", 1)[1].split()) == compiled, (command, proc.stderr[-300:])


def test_the_reader_reads_the_same_once_its_patterns_are_compiled() -> None:
    """The first use compiles a pattern and puts it in place; later reads use it directly."""
    code = ("from jouet_git.shell import parse, reader\n"
            "text = 'f() { cat <<EOF 2>&1 >> \"$HOME/x y\"\\nbody $A\\nEOF\\n}; echo \"a $(b) c\" 3< in'\n"
            "first = repr(parse(text))\n"
            "assert reader._REDIR.__name__ == 'match' and reader._DQ_PLAIN.__name__ == 'match'\n"
            "assert reader._HEREDOC_PLAIN.__name__ == 'match'\n"
            "assert repr(parse(text)) == first, 'read differently once compiled'\n"
            "print(first.count('Command('))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert int(proc.stdout) >= 3
