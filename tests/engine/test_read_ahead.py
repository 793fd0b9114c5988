"""Which secret scan the engine begins before a committed-secrets script starts (engine/read_ahead.py),
and what becomes of a scan begun that no script asks for (probes/secrets.py read_ahead)."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing import TESTS, ended, git, make_repo

from jouet_git.call import Call
from jouet_git.engine.load import load_file
from jouet_git.engine.model import BUILTIN, USER
from jouet_git.engine.read_ahead import secret_scan
from jouet_git.gitleaks import binary
from jouet_git.probes import secrets

RULE_FILE = TESTS.parent / "rules" / "committed-secrets.toml"


def guess(command: str, source: str = BUILTIN) -> str | None:
    [rule] = load_file(str(RULE_FILE), source, source)
    call = Call(command=command, cwd="/tmp")
    matched = [i for i, c in enumerate(call.commands)
               if c.program == "git" and len(c.argv) > 1 and c.argv[1] in ("commit", "push")]
    return secret_scan(rule, call, matched)


@pytest.mark.parametrize(("command", "scope"), [
    ("git commit -m 'Fix the parser'", "staged"),
    ("git commit --amend --no-edit", "staged"),
    ("git commit -sm 'signed'", "staged"),
    ("git commit -F msg.txt --author 'A <a@b>'", "staged"),
    ("npm test && git commit -m done", "staged"),
    ("git push origin main", "outgoing"),
    ("git push", "outgoing"),
    # the script asks for something else here, or elsewhere: nothing is begun
    ("git commit -am 'all'", None),
    ("git commit -a -m 'all'", None),
    ("git commit --all -m x", None),
    ("git commit --al -m x", None),
    ("git commit -m x src/app.py", None),
    ("git commit -m x -- src/app.py", None),
    ("git commit -i -m x src/", None),
    ("git add -A && git commit -m x", None),
    ("cd sub && git commit -m x", None),
    ("git -C sub commit -m x", None),
    ("env -C sub git commit -m x", None),
    ("git commit -m one && git push", None),  # two scans: neither is guessed
])
def test_the_scan_begun_is_the_one_the_script_asks_for(command: str, scope: str | None) -> None:
    assert guess(command) == scope


def test_a_rule_of_yours_by_that_name_begins_nothing() -> None:
    assert guess("git commit -m x", USER) is None


pytestmark_gitleaks = pytest.mark.skipif(binary.find_gitleaks() is None, reason="gitleaks is not installed")


def pids(ahead: secrets._Ahead) -> list[int]:
    started = ahead.started
    assert isinstance(started, secrets._Started)
    # (a diff.Pending or a committed.Reader holds a gitrun.Running)
    return [getattr(item, "_running", item)._child.pid for item in started.early.values()]


@pytestmark_gitleaks
def test_a_scan_asked_with_other_arguments_abandons_the_one_begun(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    (repo / "a.py").write_text("x = 2\n")
    (repo / "b.py").write_text("y = 1\n")
    git(repo, "add", "a.py")
    for allowlists in (False, True):
        if allowlists:  # (HEAD's allowlists are read only where the index holds one)
            (repo / ".gitleaksignore").write_text("# none yet\n")
            git(repo, "add", ".gitleaksignore")
        secrets.read_ahead(str(repo), "staged")
        assert secrets._AHEAD is not None
        begun = pids(secrets._AHEAD)
        assert len(begun) == 1 + allowlists  # the staged diff, and HEAD with its allowlists
        assert secrets.scan(str(repo), "staged", paths=["b.py"]) == ([], None)
        assert secrets._AHEAD is None
        assert all(ended(pid) for pid in begun)


@pytestmark_gitleaks
def test_a_scan_begun_and_never_asked_for_is_abandoned(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    secrets.read_ahead(str(repo), "outgoing")
    assert secrets._AHEAD is not None
    begun = pids(secrets._AHEAD)
    secrets.abandon_ahead()
    assert secrets._AHEAD is None
    assert begun and all(ended(pid) for pid in begun)


@pytestmark_gitleaks
def test_the_scan_asked_for_takes_over_the_one_begun(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    (repo / "a.py").write_text("x = 2\n")
    git(repo, "add", "a.py")
    from jouet_git import gitrun

    secrets.read_ahead(str(repo), "staged", deadline=None)
    before = gitrun.COUNTS["git"]
    assert secrets.scan(str(repo), "staged") == ([], None)
    assert gitrun.COUNTS["git"] == before  # nothing started again
    assert secrets.LAST.files == 1


@pytestmark_gitleaks
def test_the_scan_s_git_runs_start_before_the_lua_vm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The point of reading ahead: git works while the VM starts. Whatever the runner does around a
    # script run (a stream's bookkeeping included) must not start the VM first.
    from jouet_git import gitrun
    from jouet_git.engine import script_host
    from jouet_git.engine.runner import Runner

    # (a .gitleaksignore in HEAD and the index: HEAD's allowlists are read too, beside the diff)
    repo = make_repo(tmp_path / "r", {"a.py": "x = 1\n", ".gitleaksignore": "# none yet\n"})
    (repo / "a.py").write_text("x = 2\n")
    git(repo, "add", "a.py")
    events: list[str] = []
    start, init = gitrun.start, script_host.ScriptHost.__init__

    def started(argv: list[str], *args: object, **kwargs: object) -> object:
        events.append("git " + " ".join(a for a in argv[1:] if not a.startswith("-") and "=" not in a)[:20])
        return start(argv, *args, **kwargs)  # type: ignore[arg-type]

    def made(self: object, *args: object, **kwargs: object) -> None:
        events.append("vm")
        init(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(gitrun, "start", started)
    monkeypatch.setattr(script_host.ScriptHost, "__init__", made)
    for runner in (Runner(record=False), _streaming()):
        events.clear()
        decision = runner.decide(Call(command="git commit -m x", cwd=str(repo)), **_key(runner))
        assert decision.deny is None and not decision.errors, decision.errors
        assert events.index("vm") > 0 and all(e.startswith("git") for e in events[:events.index("vm")]), events
        assert sum(e.startswith("git") for e in events) == 2, events  # taken over, not started again


def _streaming() -> object:
    from jouet_git.engine.runner import Runner

    runner = Runner(record=False)
    runner.plan_calls = True
    return runner


def _key(runner: object) -> dict[str, object]:
    return {"key": ("line", "/", None)} if getattr(runner, "plan_calls", False) else {}
