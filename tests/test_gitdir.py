"""Reading a repository's layout and HEAD from its files (jouet_git/gitdir.py), checked against what
git itself says on real repositories."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from testing import git, make_repo

from jouet_git import gitdir


def said_by_git(repo: Path) -> str | None:
    out = git(repo, "rev-parse", "--verify", "-q", "HEAD", check=False).strip()
    return out or None


def read(repo: Path) -> tuple[bool, str | None]:
    found = gitdir.find(str(repo))
    assert found is not None
    return gitdir.head_commit(found)


def test_a_branch_in_a_loose_ref_then_in_packed_refs(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    assert read(repo) == (True, said_by_git(repo))
    git(repo, "pack-refs", "--all")
    assert not (repo / ".git" / "refs" / "heads" / "main").exists()
    assert read(repo) == (True, said_by_git(repo))
    (repo / "a.txt").write_text("b\n")
    git(repo, "commit", "-qam", "two")  # a loose ref again, newer than the packed one
    assert read(repo) == (True, said_by_git(repo))


def test_detached_and_unborn(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    first = said_by_git(repo)
    (repo / "a.txt").write_text("b\n")
    git(repo, "commit", "-qam", "two")
    git(repo, "checkout", "-q", "--detach", "HEAD~1")
    assert read(repo) == (True, first)
    git(repo, "checkout", "-q", "--orphan", "fresh")
    assert said_by_git(repo) is None
    assert read(repo) == (True, None)
    empty = tmp_path / "empty"
    git(tmp_path, "init", "-q", str(empty))
    assert read(empty) == (True, None)


def test_a_linked_worktree_reads_its_own_head_and_the_shared_branches(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    git(repo, "worktree", "add", "-q", "-b", "side", str(tmp_path / "side"))
    side = tmp_path / "side"
    (side / "a.txt").write_text("side\n")
    git(side, "commit", "-qam", "on side")
    assert read(side) == (True, said_by_git(side))
    assert read(repo) == (True, said_by_git(repo))
    assert said_by_git(side) != said_by_git(repo)


def test_a_symbolic_ref_is_followed(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    git(repo, "symbolic-ref", "refs/heads/alias", "refs/heads/main")
    git(repo, "symbolic-ref", "HEAD", "refs/heads/alias")
    assert read(repo) == (True, said_by_git(repo))


@pytest.mark.parametrize("head", [
    "ref: refs/heads/.invalid\n",  # a reftable repository: its refs are not files
    "ref: refs/heads/../../config\n",
    "ref: HEAD\n",
    "not a commit\n",
])
def test_what_the_files_cannot_say_is_left_to_git(tmp_path: Path, head: str) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    (repo / ".git" / "HEAD").write_text(head)
    assert read(repo) == (False, None)


def test_a_huge_packed_refs_is_left_to_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    git(repo, "pack-refs", "--all")
    monkeypatch.setattr(gitdir, "PACKED_REFS_LIMIT", 10)
    assert read(repo) == (False, None)


def test_a_reftable_repository_is_left_to_git_whatever_its_files_say(tmp_path: Path) -> None:
    # git keeps a reftable repository's refs in .git/reftable; a HEAD file and loose refs written
    # beside it (an agent could, to point the secret scan's allowlists at another commit) are not
    # what git reads. (This machine's git predates reftable: the directory stands for one.)
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    assert read(repo) == (True, said_by_git(repo))
    (repo / ".git" / "reftable").mkdir()
    assert read(repo) == (False, None)


def test_the_kernel_way_finds_what_os_path_realpath_finds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """gitdir.resolve_by_kernel (a stream of calls) changes how links are resolved, never what is
    found: in a repository reached through links, a linked worktree, a directory not made yet, a
    `..` after a link, and outside any repository."""
    import os

    repo = make_repo(tmp_path / "repo")
    (repo / "src" / "deep").mkdir(parents=True)
    git(repo, "worktree", "add", "-q", "-b", "side", str(tmp_path / "wt"))
    (tmp_path / "link").symlink_to(repo / "src")
    (tmp_path / "wtlink").symlink_to(tmp_path / "wt")
    (tmp_path / "outside").mkdir()
    places = [repo, repo / "src" / "deep", tmp_path / "link", tmp_path / "link" / "deep", tmp_path / "link" / "..",
              tmp_path / "wt", tmp_path / "wtlink", tmp_path / "link" / "not-yet" / "made", tmp_path / "outside",
              repo / ".git", repo / ".git" / "refs", tmp_path]

    def found() -> list[tuple[str, str, str] | None]:
        out = []
        for place in places:
            repo_found = gitdir.find(str(place))
            out.append(None if repo_found is None else (repo_found.root, repo_found.git_dir, repo_found.common_dir))
        return out

    monkeypatch.setattr(gitdir, "_resolve", [os.path.realpath])
    by_python = found()
    gitdir.resolve_by_kernel()
    assert gitdir._resolve[0] is not os.path.realpath
    assert found() == by_python
    assert sum(1 for f in by_python if f is not None) >= 7


def test_a_git_dir_reached_through_a_link_is_resolved_as_git_resolves_it(tmp_path: Path) -> None:
    """A `.git` that is a symbolic link to a directory elsewhere (as some dotfile managers leave it):
    the git dir found is where it points (what `git rev-parse --absolute-git-dir` says), while a
    plain `.git` directory is taken as it is; a `.git` link to nowhere is no repository."""
    import os

    real = make_repo(tmp_path / "real")
    os.rename(real / ".git", tmp_path / "store.git")
    (real / ".git").symlink_to(tmp_path / "store.git")
    found = gitdir.find(str(real))
    assert found is not None
    said = git(real, "rev-parse", "--absolute-git-dir").strip()
    assert found.git_dir == found.common_dir == os.path.realpath(said) == str((tmp_path / "store.git").resolve())
    assert found.root == str(real.resolve())

    plain = make_repo(tmp_path / "plain")
    found = gitdir.find(str(plain / "."))
    assert found is not None and found.git_dir == str((plain / ".git").resolve())

    dangling = tmp_path / "dangling"
    dangling.mkdir()
    (dangling / ".git").symlink_to(tmp_path / "gone")
    assert gitdir.find(str(dangling)) is None


NAMES = (".gitleaks.toml", ".gitleaksignore")


def holds(repo: Path, cwd: Path | None = None, size: int = 20) -> bool | None:
    found = gitdir.find(str(repo))
    assert found is not None
    return gitdir.index_holds_top(found, NAMES, size, str(cwd or repo))


def fill(repo: Path, names: list[str]) -> None:
    for name in names:
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(name + "\n")
    git(repo, "add", "--", *names)


@pytest.mark.parametrize("version", ["2", "3", "4"])
def test_the_index_says_whether_a_top_file_is_staged_as_git_ls_files_does(tmp_path: Path, version: str) -> None:
    """gitdir.index_holds_top reads the index's first entries (each version git writes: 4 shortens
    each path by the one before it) and answers as `git ls-files` does, for names sorting before,
    between and after the ones asked about, at the top and below it."""
    cases = [
        [".a", ".github/workflows/ci.yml", ".gitleaks", ".gitleaks.tom", "src/app.py"],
        [".gitleaks.toml/inner", ".gitleaksignore.bak", "sub/.gitleaks.toml"],
        [".a", ".gitleaksignore", "z"],
        [".gitleaks.toml"],
    ]
    for number, names in enumerate(cases):
        repo = make_repo(tmp_path / f"r{number}")
        git(repo, "update-index", f"--index-version={version}")
        fill(repo, names)
        if version == "3":
            (repo / "later.txt").write_text("x\n")
            git(repo, "add", "-N", "later.txt")  # an intent to add: extended flags, version 3
        listed = git(repo, "ls-files").split()
        expected = any(name in listed for name in NAMES)
        assert expected is (number >= 2)
        assert holds(repo) is expected, (names, version)
        assert (repo / ".git" / "index").read_bytes()[4:8] == int(version).to_bytes(4, "big")


def test_a_long_index_is_read_only_as_far_as_the_names(tmp_path: Path) -> None:
    """Past the first 64 KiB the index is not read: names that sort after the ones asked about end the
    search early whatever the size; names that all sort before them, filling the part read, leave the
    answer to git (None)."""
    repo = make_repo(tmp_path / "r")
    fill(repo, [f"zz/{n:05d}.txt" for n in range(3000)])
    assert holds(repo) is False
    fill(repo, [f".aa/{n:05d}-a-long-enough-name-to-fill-the-index.txt" for n in range(2000)])
    assert holds(repo) is None
    fill(repo, [".gitleaksignore"])
    assert holds(repo) is None  # (beyond what is read: git is asked)


def test_what_the_index_files_cannot_say_is_left_to_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A split index (its entries mostly in a shared file) and a damaged index give None; no index
    yet gives False; GIT_INDEX_FILE (git's hooks set it for `git commit PATH`) is the index read."""
    repo = make_repo(tmp_path / "r")
    fill(repo, [".gitleaksignore"])
    other = tmp_path / "other-index"
    monkeypatch.setenv("GIT_INDEX_FILE", str(other))
    git(repo, "read-tree", "HEAD")  # the other index: HEAD's files, without .gitleaksignore
    assert holds(repo) is False
    monkeypatch.delenv("GIT_INDEX_FILE")
    assert holds(repo) is True
    git(repo, "update-index", "--split-index")
    assert holds(repo) is None
    git(repo, "update-index", "--no-split-index")
    for name in os.listdir(repo / ".git"):
        if name.startswith("sharedindex."):
            os.unlink(repo / ".git" / name)
    assert holds(repo) is True
    (repo / ".git" / "index").write_bytes(b"DIRC\0\0\0\x09\0\0\0\x01")
    assert holds(repo) is None
    os.unlink(repo / ".git" / "index")
    assert holds(repo) is False


def test_a_sha256_repository_and_a_conflict(tmp_path: Path) -> None:
    """Object ids of 32 bytes (a SHA-256 repository); a file in conflict is held (in stages 1 to 3)."""
    repo = tmp_path / "sha"
    git(tmp_path, "init", "-q", "--object-format=sha256", "-b", "main", str(repo))
    git(repo, "config", "user.name", "t")
    git(repo, "config", "user.email", "t@example.com")
    fill(repo, [".a", ".gitleaksignore", "z"])
    assert holds(repo, size=32) is True
    git(repo, "rm", "-q", "--cached", ".gitleaksignore")
    assert holds(repo, size=32) is False
    fill(repo, [".gitleaksignore"])
    git(repo, "commit", "-q", "-m", "one")
    git(repo, "checkout", "-q", "-b", "side")
    (repo / ".gitleaksignore").write_text("side\n")
    git(repo, "commit", "-q", "-am", "side")
    git(repo, "checkout", "-q", "main")
    (repo / ".gitleaksignore").write_text("main\n")
    git(repo, "commit", "-q", "-am", "main")
    git(repo, "merge", "-q", "side", check=False)
    assert "UU .gitleaksignore" in git(repo, "status", "--porcelain")
    assert holds(repo, size=32) is True


def test_the_top_of_a_commit_is_read_from_loose_objects_as_git_lists_it(tmp_path: Path) -> None:
    """gitdir.top_of_commit: the names `git ls-tree --name-only` prints for a commit whose commit and
    tree objects are loose (SHA-1 and SHA-256); None once they are packed, or where replace refs
    could make git read another object, or for a damaged object."""
    for name, init in (("sha1", []), ("sha256", ["--object-format=sha256"])):
        repo = tmp_path / name
        git(tmp_path, "init", "-q", *init, "-b", "main", str(repo))
        git(repo, "config", "user.name", "t")
        git(repo, "config", "user.email", "t@example.com")
        fill(repo, [".gitleaksignore", "README.md", "src/app.py", "names with spaces.txt", "ünïcode.txt"])
        git(repo, "commit", "-q", "-m", "one")
        found = gitdir.find(str(repo))
        assert found is not None
        head = git(repo, "rev-parse", "HEAD").strip()
        listed = set(git(repo, "-c", "core.quotePath=false", "ls-tree", "--name-only", "HEAD").splitlines())
        assert gitdir.top_of_commit(found, head) == listed and "src" in listed, name
        git(repo, "replace", head, git(repo, "commit-tree", "-m", "other", f"{head}^{{tree}}").strip())
        assert gitdir.top_of_commit(found, head) is None  # (refs/replace)
        git(repo, "replace", "-d", head)
        assert gitdir.top_of_commit(found, head) == listed
        git(repo, "gc", "-q")
        assert gitdir.top_of_commit(found, head) is None  # packed: git's to read
    repo = make_repo(tmp_path / "damaged")
    found = gitdir.find(str(repo))
    assert found is not None
    head = git(repo, "rev-parse", "HEAD").strip()
    loose = Path(found.common_dir) / "objects" / head[:2] / head[2:]
    loose.chmod(0o644)
    loose.write_bytes(b"not zlib at all")
    assert gitdir.top_of_commit(found, head) is None
    assert gitdir.top_of_commit(found, "not an id") is None
