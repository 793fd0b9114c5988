"""The claims probe the rule engine calls on every tool call: what it answers, imports and reads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from testing import git, make_repo

from jouet_git.claims.probe import held
from jouet_git.claims.record import Claim, iso
from jouet_git.claims.store import Locked, store_path

KEYS = {"path", "pattern", "session", "harness", "worktree", "branch", "note", "expires_at", "machine"}


def put(repo: Path, *claims: Claim, remote: tuple[Claim, ...] = ()) -> None:
    """Write claims straight into the repository's store."""
    common = git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir").strip()
    with Locked(store_path(common), repository=common) as store:
        store.claims.extend(claims)
        store.remote_claims.extend(remote)
        if remote:
            store.remote_name = "origin"


def mk(pattern: str, session: str = "other", minutes: float = 60, **fields: object) -> Claim:
    now = time.time()
    values: dict[str, object] = {"pid": os.getpid(), "note": None}
    values.update(fields)
    return Claim(pattern, session, iso(now), iso(now + minutes * 60), **values)  # type: ignore[arg-type]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"src/a.py": "a\n", "src/sub/b.py": "b\n", "docs/x.md": "x\n"})


def test_outside_a_repository_it_returns_none(tmp_path: Path) -> None:
    assert held(["a.py"], str(tmp_path)) is None


def test_no_claims_is_an_empty_list(repo: Path) -> None:
    assert held(["src/a.py"], str(repo)) == []


def test_what_a_path_covers(repo: Path) -> None:
    put(repo, mk("src/", "s1", note="parser", worktree=str(repo), branch="main"),
        mk("docs/*.md", "s2"), mk("src/sub/b.py", "s3"))
    [hit] = held(["src/a.py"], str(repo)) or []
    assert set(hit) == KEYS
    assert hit["path"] == "src/a.py" and hit["pattern"] == "src/" and hit["session"] == "s1"
    assert hit["note"] == "parser" and hit["branch"] == "main" and hit["worktree"] == str(repo)
    assert hit["machine"] is None
    # A directory covers the claims inside it.
    assert {h["session"] for h in held(["src/sub"], str(repo)) or []} == {"s1", "s3"}
    assert {h["pattern"] for h in held(["docs"], str(repo)) or []} == {"docs/*.md"}
    # The root covers everything.
    assert {h["path"] for h in held(["."], str(repo)) or []} == {"."}
    assert len(held(["."], str(repo)) or []) == 3
    # Paths relative to the cwd, absolute, and outside the repository (ignored).
    assert [h["path"] for h in held(["b.py"], str(repo / "src" / "sub")) or []] == ["src/sub/b.py"] * 2
    assert [h["pattern"] for h in held([str(repo / "docs" / "y.md")], "/") or []] == []
    assert [h["pattern"] for h in held([str(repo / "docs" / "y.md")], str(repo)) or []] == ["docs/*.md"]
    assert held(["../elsewhere.py", "/etc/passwd"], str(repo)) == []
    # Not covered.
    assert held(["docs/x.txt", "README.md", "srcx"], str(repo)) == []
    # A glob is read as a pattern.
    assert {h["session"] for h in held(["**/*.md"], str(repo)) or []} == {"s1", "s2"}


def test_now_decides_expiry(repo: Path) -> None:
    put(repo, mk("src/", minutes=10))
    assert held(["src/a.py"], str(repo))
    assert held(["src/a.py"], str(repo), now=time.time() + 11 * 60) == []
    assert held(["src/a.py"], str(repo), now=time.time() + 9 * 60)


def test_lapsed_claims_do_not_count(repo: Path, tmp_path: Path) -> None:
    put(repo, mk("src/", "gone-worktree", worktree=str(tmp_path / "removed")),
        mk("docs/", "gone-process", pid=2**22 + 12345),
        mk("src/sub/", "reused-pid", started=1))  # this pid, but another start time
    assert held(["src/sub/b.py", "docs/x.md"], str(repo)) == []


def test_claims_from_another_container_lapse_only_by_expiry(repo: Path, tmp_path: Path) -> None:
    """Its pids and paths are not ours to check: a missing worktree or pid proves nothing."""
    elsewhere = "pid:[1] mnt:[1]"
    put(repo, mk("src/", "boxed", minutes=5, pid=2**22 + 12345, worktree=str(tmp_path / "in-box"),
                 ns=elsewhere))
    [hit] = held(["src/a.py"], str(repo)) or []
    assert hit["session"] == "boxed"
    assert held(["src/a.py"], str(repo), now=time.time() + 6 * 60) == []


def test_other_machines_claims_count_until_they_expire(repo: Path) -> None:
    theirs = mk("src/", "far", minutes=5, pid=None, machine="m-2", host="laptop")
    put(repo, remote=(theirs,))
    [hit] = held(["src/a.py"], str(repo)) or []
    assert (hit["machine"], hit["session"]) == ("m-2", "far")
    assert held(["src/a.py"], str(repo), now=time.time() + 6 * 60) == []


def test_the_hot_path_imports_spawns_and_reads_little(repo: Path) -> None:
    """Run the probe in a fresh interpreter with an audit hook watching every open and spawn."""
    put(repo, mk("src/", "s1", pid=os.getppid()))  # pytest's parent outlives the child below
    wt = repo.parent / "wt"
    git(repo, "worktree", "add", "-q", "-b", "side", str(wt))
    script = r"""
import json, os, sys
events = []
O_PATH = getattr(os, "O_PATH", 0)
def hook(event, args):
    # (an O_PATH open reads nothing: it only names a path, for the kernel to resolve: realpath.py)
    if event == "open" and isinstance(args[0], str) and not (isinstance(args[2], int) and args[2] & O_PATH):
        events.append(("open", args[0]))
    elif event in ("subprocess.Popen", "os.posix_spawn", "os.fork", "os.exec", "os.system"):
        events.append((event, str(args[0])))
before = set(sys.modules)
from jouet_git.claims.probe import held
sys.addaudithook(hook)
result = held(["src/a.py"], sys.argv[1])
print(json.dumps({"result": result, "events": events, "modules": sorted(set(sys.modules) - before)}))
"""
    proc = subprocess.run([sys.executable, "-c", script, str(wt)], capture_output=True, text=True,
                          timeout=60, env=dict(os.environ), check=True)
    out = json.loads(proc.stdout)
    assert [h["session"] for h in out["result"]] == ["s1"]
    banned = {"subprocess", "pathlib", "typing", "filelock", "hashlib", "dataclasses", "argparse",
              "git", "tomli", "tomlkit", "inspect", "datetime", "tempfile", "contextlib"}
    assert banned.isdisjoint(out["modules"]), sorted(banned & set(out["modules"]))
    assert not [e for e in out["events"] if e[0] != "open"], out["events"]
    opened = [path for _, path in out["events"]]
    common = str(repo.resolve() / ".git")
    for path in opened:
        assert (
            path.startswith("/proc/")
            or path == str(wt.resolve() / ".git")
            or path.startswith(common + "/worktrees/")
            or path == store_path(common)
        ), path
    # Nothing of git's objects, refs or index is read.
    assert not any("/objects/" in p or "/refs/" in p or p.endswith("/index") for p in opened)


def test_readers_never_see_half_a_store(repo: Path) -> None:
    """A reader racing a writer (atomic renames) always parses a whole store."""
    common = git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir").strip()
    put(repo, mk("src/", "s0"))
    writer = subprocess.Popen([sys.executable, "-c", r"""
import sys, time, os
from jouet_git.claims.record import Claim, iso
from jouet_git.claims.store import Locked
for i in range(150):
    with Locked(sys.argv[1]) as store:
        now = time.time()
        store.claims = [Claim(f"src/f{j}.py", f"s{i}", iso(now), iso(now + 600), pid=os.getppid())
                        for j in range(40)]
""", store_path(common)], env=dict(os.environ))
    seen = 0
    while writer.poll() is None:
        text = Path(store_path(common)).read_text()
        json.loads(text)  # never a torn write
        assert held(["src/"], str(repo)) is not None
        seen += 1
    assert writer.returncode == 0
    assert seen > 0
