"""`jouet claim` as agents use it: sessions, conflicts, renewals, releases, lapses, worktrees."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from testing import ended, git, make_repo, run_jouet

from jouet_git.claims.probe import held
from jouet_git.claims.store import store_path


def claim(repo: Path, session: str | None, *args: str, cwd: Path | None = None,
          env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run `jouet claim ARGS` in REPO (or CWD) as SESSION."""
    full = dict(env or {})
    if session is not None:
        full["JOUET_SESSION_ID"] = session
    return run_jouet("claim", *args, cwd=cwd or repo, env=full)


def stored(repo: Path) -> dict[str, Any]:
    """The repository's claims store as JSON."""
    common = git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir").strip()
    data: dict[str, Any] = json.loads(Path(store_path(common)).read_text())
    return data


def listed(repo: Path, *extra: str) -> list[dict[str, Any]]:
    proc = run_jouet("claim", "ls", "--json", *extra, cwd=repo)
    assert proc.returncode == 0, proc.stderr
    rows: list[dict[str, Any]] = json.loads(proc.stdout)
    return rows


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {
        "README.md": "hi\n", "src/a.py": "a\n", "src/b.rs": "b\n", "src/sub/c.py": "c\n",
        "docs/api.md": "api\n",
    })


@pytest.fixture
def holder() -> Iterator[subprocess.Popen[bytes]]:
    """A stand-in agent process, for JOUET_AGENT_PID; killed at the end if still running."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    yield proc
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def test_without_a_session_it_says_how_to_set_one(repo: Path) -> None:
    proc = claim(repo, None, "src/")
    assert proc.returncode == 2
    assert "JOUET_SESSION_ID" in proc.stderr and "--session" in proc.stderr
    assert listed(repo) == []


def test_claim_records_who_where_and_until_when(repo: Path) -> None:
    proc = claim(repo, "s1", "src/", "--note", "parser work", env={"JOUET_HARNESS": "claude"})
    assert proc.returncode == 0, proc.stderr
    assert "claimed src/" in proc.stdout
    [row] = listed(repo)
    assert row["pattern"] == "src/"
    assert row["session"] == "s1"
    assert row["harness"] == "claude"
    assert row["note"] == "parser work"
    assert row["worktree"] == str(repo.resolve())
    assert row["branch"] == "main"
    assert row["machine"] is None
    assert row["state"] == "live"
    claimed = time.mktime(time.strptime(row["claimed_at"], "%Y-%m-%dT%H:%M:%SZ"))
    expires = time.mktime(time.strptime(row["expires_at"], "%Y-%m-%dT%H:%M:%SZ"))
    assert 2 * 3600 <= expires - claimed <= 2 * 3600 + 1  # the default lease is 2h
    # The agent is the nearest ancestor that is not a shell: here, this test process.
    assert row["pid"] == os.getpid()


def test_session_option_overrides_the_environment(repo: Path) -> None:
    assert claim(repo, "from-env", "docs/", "--session", "explicit").returncode == 0
    assert [r["session"] for r in listed(repo)] == ["explicit"]


def test_claiming_again_renews_and_updates_the_note(repo: Path) -> None:
    assert claim(repo, "s1", "src/", "--for", "1h", "--note", "first").returncode == 0
    first = listed(repo)[0]
    proc = claim(repo, "s1", "src", "--for", "3h", "--note", "second")
    assert proc.returncode == 0, proc.stderr
    assert "renewed src/" in proc.stdout
    [row] = listed(repo)
    assert row["note"] == "second"
    assert row["expires_at"] > first["expires_at"]
    assert row["claimed_at"] == first["claimed_at"]
    # Renewing without --note keeps the note.
    assert claim(repo, "s1", "src/").returncode == 0
    assert listed(repo)[0]["note"] == "second"


def test_an_overlapping_claim_is_refused_whole_and_lists_the_holder(repo: Path) -> None:
    assert claim(repo, "s1", "src/", "--note", "parser work").returncode == 0
    proc = claim(repo, "s2", "docs/", "src/sub/c.py")
    assert proc.returncode == 1
    err = proc.stderr
    assert "nothing claimed" in err
    assert "src/sub/c.py is inside src/" in err
    assert "session s1" in err
    assert "parser work" in err
    assert str(repo.resolve()) in err and "branch main" in err
    assert "expires" in err
    # All or nothing: docs/ was free, but is not claimed either.
    assert [r["pattern"] for r in listed(repo)] == ["src/"]


def test_disjoint_globs_do_not_conflict(repo: Path) -> None:
    assert claim(repo, "s1", "src/*.py").returncode == 0
    assert claim(repo, "s2", "src/*.rs").returncode == 0
    assert claim(repo, "s3", "**/*.py").returncode == 1
    assert claim(repo, "s3", "docs/").returncode == 0
    assert sorted(r["pattern"] for r in listed(repo)) == ["docs/", "src/*.py", "src/*.rs"]


def test_json_conflict_report(repo: Path) -> None:
    assert claim(repo, "s1", "**/*.py").returncode == 0
    proc = claim(repo, "s2", "docs/", "--json")
    assert proc.returncode == 1
    report = json.loads(proc.stdout)
    assert report["claimed"] == []
    [conflict] = report["conflicts"]
    assert conflict["requested"] == "docs/"
    assert conflict["holder"]["pattern"] == "**/*.py"
    assert conflict["holder"]["session"] == "s1"


def test_paths_are_taken_relative_to_the_current_directory(repo: Path) -> None:
    assert claim(repo, "s1", "a.py", "sub", "../docs/api.md", cwd=repo / "src").returncode == 0
    assert [r["pattern"] for r in listed(repo)] == ["src/a.py", "src/sub/", "docs/api.md"]
    assert claim(repo, "s2", str(repo / "README.md")).returncode == 0
    assert claim(repo, "s2", "new/dir/", "--json").returncode == 0
    assert "new/dir/" in [r["pattern"] for r in listed(repo)]


@pytest.mark.parametrize("path", ["../outside.txt", "/etc/passwd", ".git/config"])
def test_paths_outside_the_repository_are_refused(repo: Path, path: str) -> None:
    proc = claim(repo, "s1", path)
    assert proc.returncode == 2
    assert "jouet: " in proc.stderr
    assert listed(repo) == []


def test_outside_a_repository_it_is_a_clear_error(tmp_path: Path) -> None:
    proc = claim(tmp_path, "s1", "ls")
    assert proc.returncode == 2
    assert "not inside a git worktree" in proc.stderr


@pytest.mark.parametrize(("args", "message"), [
    (("src/", "--for", "soon"), "not a duration"),
    (("src/", "--for", "0m"), "positive duration"),
    (("ls", "src/"), "takes no paths"),
    (("prune", "--note", "x"), "does not apply"),
    (("src/", "--all"), "does not apply"),
    ((), "name the paths"),
])
def test_usage_errors(repo: Path, args: tuple[str, ...], message: str) -> None:
    proc = claim(repo, "s1", *args)
    assert proc.returncode == 2
    assert message in proc.stderr


def test_a_file_named_like_an_action(repo: Path) -> None:
    (repo / "ls").write_text("x\n")
    assert claim(repo, "s1", "./ls").returncode == 0
    assert [r["pattern"] for r in listed(repo)] == ["ls"]


def test_release_some_or_all(repo: Path) -> None:
    assert claim(repo, "s1", "src/", "docs/api.md", "README.md").returncode == 0
    assert claim(repo, "s2", "src2/").returncode == 0
    proc = claim(repo, "s1", "release", "docs/")
    assert proc.returncode == 0, proc.stderr
    assert "released docs/api.md" in proc.stdout
    # A path inside a broader claim: a claim is released whole.
    proc = claim(repo, "s1", "release", "src/a.py")
    assert proc.returncode == 1
    assert "part of this session's claim on src/" in proc.stderr
    proc = claim(repo, "s1", "release", "nothing/here")
    assert proc.returncode == 1
    assert "holds no claim on nothing/here" in proc.stderr
    proc = claim(repo, "s1", "release")
    assert proc.returncode == 0
    assert "released src/" in proc.stdout and "released README.md" in proc.stdout
    assert [(r["session"], r["pattern"]) for r in listed(repo)] == [("s2", "src2/")]
    proc = claim(repo, "s1", "release")
    assert proc.returncode == 0 and "holds no claims" in proc.stdout


def test_a_claim_expires(repo: Path) -> None:
    # No waiting on the clock: a claim for 30 minutes is live now and lapsed as seen an hour later...
    assert claim(repo, "s1", "src/", "--for", "30m").returncode == 0
    assert claim(repo, "s2", "src/a.py").returncode == 1
    [row] = listed(repo)
    assert row["pattern"] == "src/"
    assert held(["src/a.py"], str(repo))  # still live now
    assert held(["src/a.py"], str(repo), now=time.time() + 3600) == []
    assert claim(repo, "s1", "release").returncode == 0
    # ...and one made two hours ago for a second (the test sets the clock of the claim) has lapsed:
    # listing, pruning and claiming again treat it so.
    from jouet_git.claims import actions

    made = actions.claim(actions.open_repo(str(repo)), actions.current_session("s1"), ["src/"], None,
                         seconds=1, now=time.time() - 7200)
    assert [c.pattern for c in made.claimed] == ["src/"]
    assert listed(repo) == []
    [lapsed] = listed(repo, "--all")
    assert lapsed["state"] == "expired"
    proc = claim(repo, None, "prune")
    assert proc.returncode == 0 and "pruned 1 lapsed claim" in proc.stdout
    assert listed(repo, "--all") == []
    assert claim(repo, "s2", "src/a.py").returncode == 0


def test_a_duration_is_read_as_written() -> None:
    from jouet_git.claims.actions import parse_duration

    assert [parse_duration(text) for text in ("1s", "45m", "2h", "1d")] == [1, 2700, 7200, 86400]


def test_a_claim_lapses_when_its_agent_exits(repo: Path, holder: subprocess.Popen[bytes]) -> None:
    env = {"JOUET_AGENT_PID": str(holder.pid)}
    assert claim(repo, "s1", "src/", env=env).returncode == 0
    assert listed(repo)[0]["pid"] == holder.pid
    assert claim(repo, "s2", "src/a.py").returncode == 1
    holder.kill()
    holder.wait()
    [row] = listed(repo, "--all")
    assert row["state"] == "process exited"
    assert held(["src/a.py"], str(repo)) == []
    assert claim(repo, "s2", "src/a.py").returncode == 0
    # The write that granted s2's claim also dropped the lapsed one.
    assert [r["session"] for r in stored(repo)["claims"]] == ["s2"]


def test_an_exited_but_unreaped_agent_counts_as_gone(repo: Path, holder: subprocess.Popen[bytes]) -> None:
    assert claim(repo, "s1", "src/", env={"JOUET_AGENT_PID": str(holder.pid)}).returncode == 0
    holder.kill()
    assert ended(holder.pid, within=30)  # a zombie: exited, not reaped yet
    assert listed(repo, "--all")[0]["state"] == "process exited"
    holder.wait()


def test_agent_pid_must_name_a_running_process(repo: Path, holder: subprocess.Popen[bytes]) -> None:
    holder.kill()
    holder.wait()
    proc = claim(repo, "s1", "src/", env={"JOUET_AGENT_PID": str(holder.pid)})
    assert proc.returncode == 2 and "names no running process" in proc.stderr
    proc = claim(repo, "s1", "src/", env={"JOUET_AGENT_PID": "claude"})
    assert proc.returncode == 2 and "not a process id" in proc.stderr


def test_sessions_in_different_worktrees_share_one_store(repo: Path, tmp_path: Path) -> None:
    wt = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "-b", "feat/x", str(wt))
    assert claim(repo, "main-session", "src/", "--note", "refactor").returncode == 0
    proc = claim(wt, "wt-session", "src/a.py")
    assert proc.returncode == 1
    assert f"{repo.resolve()} (branch main)" in proc.stderr
    assert "refactor" in proc.stderr
    proc = claim(wt, "wt-session", "docs/", "--note", "api docs")
    assert proc.returncode == 0, proc.stderr
    for where in (repo, wt, wt / "src"):
        rows = {r["pattern"]: r for r in listed(where)}
        assert set(rows) == {"src/", "docs/"}
        assert rows["docs/"]["worktree"] == str(wt.resolve())
        assert rows["docs/"]["branch"] == "feat/x"
    # The probe, asked from the linked worktree, sees the main worktree's claim.
    [hit] = held(["src/a.py"], str(wt)) or []
    assert (hit["session"], hit["branch"], hit["worktree"]) == ("main-session", "main", str(repo.resolve()))
    # Removing the worktree ends its claims.
    git(repo, "worktree", "remove", "--force", str(wt))
    assert [r["pattern"] for r in listed(repo)] == ["src/"]
    assert listed(repo, "--all")[1]["state"] == "worktree gone"
    assert claim(repo, "other", "docs/").returncode == 0


def test_ls_marks_this_sessions_claims(repo: Path) -> None:
    assert claim(repo, "s1", "src/").returncode == 0
    assert claim(repo, "s2", "docs/").returncode == 0
    proc = claim(repo, "s1", "ls")
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    assert lines[0].split() == ["PATTERN", "SESSION", "HARNESS", "BRANCH", "WORKTREE", "EXPIRES", "NOTE"]
    assert any(line.startswith("src/") and "s1*" in line for line in lines)
    assert any(line.startswith("docs/") and "s2 " in line for line in lines)
    mine = {r["pattern"]: r["mine"] for r in json.loads(claim(repo, "s1", "ls", "--json").stdout)}
    assert mine == {"src/": True, "docs/": False}


def test_a_corrupt_store_is_kept_aside_not_lost(repo: Path) -> None:
    assert claim(repo, "s1", "src/").returncode == 0
    common = git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir").strip()
    path = Path(store_path(common))
    path.write_text('{"version": 1, "claims": [{"pattern": ')
    # The command that meets it first (here the probe a hook asks) sets it aside, says so, and reads
    # it as empty; the next claim starts a fresh store.
    assert held(["src/a.py"], str(repo)) == []
    assert not path.exists()
    proc = claim(repo, "s2", "src/a.py")
    assert proc.returncode == 0, proc.stderr
    [aside] = list(path.parent.glob(path.name + ".corrupt-*"))
    assert aside.read_text() == '{"version": 1, "claims": [{"pattern": '
    assert [r["session"] for r in stored(repo)["claims"]] == ["s2"]


def test_a_store_from_a_newer_jouet_is_left_alone(repo: Path) -> None:
    assert claim(repo, "s1", "src/").returncode == 0
    common = git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir").strip()
    path = Path(store_path(common))
    text = '{"version": 99, "claims": "new things"}'
    path.write_text(text)
    proc = claim(repo, "s2", "docs/")
    assert proc.returncode == 2
    assert "newer jouet" in proc.stderr
    assert path.read_text() == text
