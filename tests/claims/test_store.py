"""The claims store and finding the repository by reading files (compared with git's own answers)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from testing import git, make_repo

from jouet_git.claims import record
from jouet_git.claims.record import Claim
from jouet_git.claims.repo import find, relative
from jouet_git.claims.store import Locked, StoreError, read, store_path


def git_says(where: Path, *args: str) -> str:
    return git(where, "rev-parse", "--path-format=absolute", *args).strip()


def test_find_agrees_with_git_in_main_and_linked_worktrees(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"src/a.py": "a\n"})
    wt = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "-b", "feat/y", str(wt))
    (wt / "src" / "deep").mkdir()
    for where in (repo, repo / "src", wt, wt / "src" / "deep"):
        found = find(str(where))
        assert found is not None
        assert found.root == git_says(where, "--show-toplevel")
        assert found.git_dir == git_says(where, "--git-dir")
        assert found.common_dir == git_says(where, "--git-common-dir")
    main, linked = find(str(repo)), find(str(wt))
    assert main is not None and linked is not None
    assert (main.branch(), linked.branch()) == ("main", "feat/y")
    assert store_path(main.common_dir) == store_path(linked.common_dir)


def test_find_elsewhere(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    assert find(str(tmp_path)) is None
    assert find(str(repo / ".git")) is None  # inside the git dir: no worktree
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(bare))
    assert find(str(bare)) is None
    other = make_repo(tmp_path / "other")
    found, found_other = find(str(repo)), find(str(other))
    assert found is not None and found_other is not None
    assert store_path(found.common_dir) != store_path(found_other.common_dir)
    # A directory that does not exist yet still belongs to the repository above it.
    assert (find(str(repo / "not" / "yet")) or found).root == found.root


def test_detached_head_has_no_branch(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    git(repo, "checkout", "-q", "--detach")
    found = find(str(repo))
    assert found is not None and found.branch() is None


def test_submodule_style_git_file(tmp_path: Path) -> None:
    """A .git file whose git dir has no commondir: the git dir is its own common dir."""
    repo = make_repo(tmp_path / "repo")
    moved = tmp_path / "elsewhere.git"
    (repo / ".git").rename(moved)
    (repo / ".git").write_text(f"gitdir: {moved}\n")
    found = find(str(repo))
    assert found is not None
    assert found.git_dir == found.common_dir == str(moved)
    assert found.branch() == "main"


def test_relative_paths(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"src/a.py": "a\n"})
    found = find(str(repo))
    assert found is not None
    assert relative(found, "a.py", str(repo / "src")) == "src/a.py"
    assert relative(found, "../docs/", str(repo / "src")) == "docs/"
    assert relative(found, str(repo), "/") == ""
    assert relative(found, "**/*.py", str(repo / "src")) == "src/**/*.py"
    assert relative(found, "../..", str(repo / "src")) is None
    # Through a symlink to the repository.
    link = tmp_path / "link"
    link.symlink_to(repo)
    assert relative(found, str(link / "src" / "new.py"), "/") == "src/new.py"


def claim(pattern: str, session: str = "s") -> Claim:
    now = time.time()
    return Claim(pattern, session, record.iso(now), record.iso(now + 60), pid=os.getpid())


def test_writes_are_private_and_atomic(tmp_path: Path) -> None:
    path = str(tmp_path / "state" / "claims" / "x.json")
    with Locked(path, repository="/r/.git") as store:
        store.claims.append(claim("src/"))
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(os.path.dirname(path)).st_mode) == 0o700
    assert sorted(os.listdir(os.path.dirname(path))) == ["x.json", "x.json.lock"]
    data = json.loads(Path(path).read_text())
    assert data["version"] == 1 and data["repository"] == "/r/.git"
    assert [c["pattern"] for c in data["claims"]] == ["src/"]
    # A failing block writes nothing.
    with pytest.raises(RuntimeError), Locked(path) as store:
        store.claims.clear()
        raise RuntimeError("boom")
    assert [c.pattern for c in read(path).claims] == ["src/"]


@pytest.mark.parametrize("text", [
    '{"version": 1, "claims": [{"pattern": "a"}]}',
    '{"version": 1, "claims": [{"pattern": "a", "session": "s", "claimed_at": "x", "expires_at": "soon"}]}',
    '{"version": 1, "claims": [], "remote": []}',
    '{"version": 1, "claims": [{"pattern": "\\ud800", "session": "s", "claimed_at": "x", "expires_at": "x"}]}',
])
def test_a_damaged_record_is_skipped_and_the_rest_kept(tmp_path: Path, text: str,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.json"
    data = json.loads(text)
    data["claims"].append(claim("kept").to_json())
    path.write_text(json.dumps(data))
    assert [c.pattern for c in read(str(path)).claims] == ["kept"]
    warning = capsys.readouterr().err
    assert "is damaged" in warning and "skipped" in warning
    with Locked(str(path)) as store:
        store.claims.append(claim("b"))
    assert [c.pattern for c in read(str(path)).claims] == ["kept", "b"]
    assert not list(tmp_path.glob("s.json.corrupt-*"))


def test_bytes_that_are_not_utf8_are_read_as_replacement_characters(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.json"
    record = claim("src/").to_json()
    record["note"] = "NOTE"
    path.write_bytes(json.dumps({"version": 1, "claims": [record]}).encode().replace(b"NOTE", b"n\xffte"))
    [got] = read(str(path)).claims
    assert got.pattern == "src/" and got.note == "n\ufffdte"
    assert "not UTF-8" in capsys.readouterr().err


@pytest.mark.parametrize("text", [
    "not json", "[]", '{"claims": []}', '{"version": 1, "claims": {}}', "[" * 100_000,
])
def test_a_corrupt_store_is_set_aside(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.json"
    path.write_text(text)
    locked = Locked(str(path))
    with locked as store:
        assert store.claims == []
        store.claims.append(claim("b"))
    warning = capsys.readouterr().err
    assert "could not be used" in warning and "kept it as" in warning and str(path) in warning
    [aside] = tmp_path.glob("s.json.corrupt-*")
    assert aside.read_text() == text
    assert [c.pattern for c in read(str(path)).claims] == ["b"]


def test_a_held_lock_times_out_with_advice(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    holder = subprocess.Popen([sys.executable, "-c", (
        "import filelock, sys, time\n"
        f"lock = filelock.FileLock({str(path) + '.lock'!r}); lock.acquire(); print('held', flush=True)\n"
        "time.sleep(60)\n"
    )], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(StoreError, match="held its lock"), Locked(str(path), timeout=0.2):
            pass
    finally:
        holder.kill()
        holder.wait()
    with Locked(str(path), timeout=5):  # the lock went with its process
        pass


@pytest.mark.parametrize(("text", "expected"), [
    ("2025-01-31T14:05:00Z", 1738332300.0),
    ("2025-01-31T14:05:00", 1738332300.0),
    ("2025-01-31T15:05:00+01:00", 1738332300.0),
    ("2025-01-31T14:05:00.5Z", 1738332300.5),
    ("1970-01-01T00:00:00Z", 0.0),
    ("2000-02-29T00:00:00Z", 951782400.0),
])
def test_iso_timestamps(text: str, expected: float) -> None:
    assert record.parse_iso(text) == expected


def test_iso_round_trip_and_errors() -> None:
    for moment in (0, 951782400, 1738332300, 4102444800):
        assert record.parse_iso(record.iso(moment)) == moment
    for bad in ("", "yesterday", "2025-13-01T00:00:00Z", "2025-01-31"):
        with pytest.raises(ValueError):
            record.parse_iso(bad)
