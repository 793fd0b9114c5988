"""jouet_git/gitmemo.py: a stream keeps git's answers read from the repository's files alone, and
gives one again only while those files are as they were. Real repositories, real git; the tests
count the git processes started (gitrun.COUNTS), never time."""

from __future__ import annotations

import io
import itertools
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from testing import git, make_repo

from jouet_git import gitmemo, gitrun
from jouet_git.commands.check import run_jsonl
from jouet_git.engine.runner import Runner

STAGED = ["git", "-c", "core.quotePath=true", "diff", "--cached", "-U0", "--no-color", "--no-ext-diff", "--no-textconv"]
COUNT = ["git", "rev-list", "--count", "HEAD"]
ENV = {"PATH": "/usr/bin:/bin", "GIT_OPTIONAL_LOCKS": "0"}


@pytest.mark.parametrize(("argv", "env", "kept"), [
    (STAGED, ENV, True),
    (["git", "diff", "--staged", "--name-only"], ENV, True),
    (["git", "diff", "--cached", "--name-only", "--no-renames", "-z"], ENV, True),
    (["git", "log", "--format=%H", "main"], ENV, True),
    (["git", "log", "-p", "--no-ext-diff", "--no-textconv", "main", "--not", "--remotes"], ENV, True),
    (COUNT, {**ENV, "GIT_SSL_CAINFO": "/etc/ca.pem"}, True),
    (["git", "rev-parse", "--show-toplevel"], ENV, True),
    (["git", "merge-base", "--is-ancestor", "a", "b"], ENV, True),
    # Named files of the work tree: kept with their own fingerprint.
    (["git", "diff", "-U0", "--no-ext-diff", "--no-textconv", "HEAD", "--", "a.txt", "src/b.py"], ENV, True),
    (["git", "ls-files", "-z", "--others", "--exclude-standard", "--full-name", "--", "a.txt"], ENV, True),
    # The whole work tree, a pattern or magic: never kept.
    (["git", "status", "--porcelain=v2"], ENV, False),
    (["git", "diff", "--no-ext-diff", "-U0", "--no-textconv"], ENV, False),
    (["git", "diff", "HEAD", "--no-ext-diff", "--name-only"], ENV, False),
    (["git", "diff", "HEAD", "--name-only", "--", "src/*.py"], ENV, False),
    (["git", "diff", "HEAD", "--name-only", "--", ":(glob)src"], ENV, False),
    (["git", "diff", "-U0", "--no-ext-diff", "HEAD", "--", "a.txt"], ENV, False),
    (["git", "ls-files", "-z", "--others"], ENV, False),
    (["git", "ls-files", "-z", "--modified", "--", "a.txt"], ENV, False),
    (["git", "diff", "--no-index", "--cached", "--no-ext-diff", "a", "b"], ENV, False),
    # An external diff or a text conversion could run.
    (["git", "diff", "--cached", "-U0"], ENV, False),
    (["git", "diff", "--cached", "--no-ext-diff"], ENV, False),
    (["git", "diff", "--cached", "--stat", "--no-ext-diff"], ENV, False),
    (["git", "log", "-p", "--no-ext-diff", "main"], ENV, False),
    (["git", "log", "-p", "--no-textconv", "main"], ENV, False),
    # The reflog is not in the fingerprint.
    (["git", "rev-list", "--count", "--reflog", "--not", "--all"], ENV, False),
    (["git", "rev-parse", "HEAD@{1}"], ENV, False),
    (["git", "rev-list", "--count", "main@{upstream}..main"], ENV, False),
    (["git", "log", "-g", "--no-ext-diff"], ENV, False),
    # Variables that point git at other files.
    (COUNT, {**ENV, "GIT_DIR": "/elsewhere/.git"}, False),
    (COUNT, {**ENV, "GIT_INDEX_FILE": "/tmp/index"}, False),
    (COUNT, {**ENV, "GIT_CEILING_DIRECTORIES": "/tmp"}, False),
    # Config given inline is part of the key; a config file named is in the fingerprint.
    (COUNT, {**ENV, "GIT_CONFIG_GLOBAL": "/tmp/gitconfig"}, True),
    (COUNT, {**ENV, "GIT_CONFIG_COUNT": "1"}, True),
    (["gitleaks", "git"], ENV, False),
])
def test_what_may_be_kept(argv: list[str], env: dict[str, str], kept: bool) -> None:
    assert gitmemo.keepable(argv, env) is kept


def test_what_may_be_kept_with_its_input() -> None:
    batch = b"HEAD:.gitleaks.toml\nHEAD:.gitleaksignore\n"
    assert gitmemo.keepable(["git", "cat-file", "--batch"], ENV, batch)
    assert gitmemo.keepable(["git", "cat-file", "--batch-check"], ENV, batch)
    assert not gitmemo.keepable(["git", "cat-file", "--batch"], ENV)  # (its input comes later)
    assert not gitmemo.keepable(["git", "cat-file", "--batch"], ENV, b"HEAD@{1}:a.txt\n")
    assert not gitmemo.keepable(["git", "cat-file", "--batch", "--follow-symlinks"], ENV, batch)
    assert not gitmemo.keepable(["git", "cat-file", "--batch"], {**ENV, "GIT_DIR": "/x/.git"}, batch)
    assert not gitmemo.keepable(COUNT, ENV, b"input")


@pytest.fixture
def memo() -> Iterator[gitmemo.GitMemo]:
    gitrun.MEMO = kept = gitmemo.GitMemo()
    try:
        yield kept
    finally:
        gitrun.MEMO = None


def settle() -> None:
    """Wait until every change made so far is older than the racy window."""
    time.sleep(gitmemo.RACY + 0.05)


def ask(memo: gitmemo.GitMemo, argv: list[str], repo: Path, input: bytes | None = None) -> tuple[bytes, int]:
    """ARGV's output in REPO (given INPUT) as a new call of a stream, and how many gits were started
    for it."""
    memo.begin_call()
    before = gitrun.COUNTS["git"]
    result = gitrun.run(argv, str(repo), input=input)
    return result.stdout, gitrun.COUNTS["git"] - before


def test_an_answer_is_given_again_until_what_it_was_read_from_changes(
        tmp_path: Path, memo: gitmemo.GitMemo) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "one\n"})
    settle()
    first, ran = ask(memo, COUNT, repo)
    assert (first, ran) == (b"1\n", 1)
    assert ask(memo, COUNT, repo) == (b"1\n", 0)
    assert memo.hits == 1
    # A commit moves the branch (a ref renamed into place): asked again.
    (repo / "a.txt").write_text("two\n")
    git(repo, "commit", "-qam", "two")
    settle()
    assert ask(memo, COUNT, repo) == (b"2\n", 1)
    assert ask(memo, COUNT, repo) == (b"2\n", 0)
    # A ref written where it is (same file, same inode) is seen too.
    head = git(repo, "rev-parse", "HEAD~1").strip()
    ref = repo / ".git" / "refs" / "heads" / "main"
    if not ref.exists():
        ref = repo / ".git" / "refs" / "heads" / "master"
    inode = ref.stat().st_ino
    with open(ref, "r+") as handle:
        handle.write(head + "\n")
        handle.truncate()
    assert ref.stat().st_ino == inode
    settle()
    assert ask(memo, COUNT, repo) == (b"1\n", 1)
    # A ref beside HEAD (a fetch's, a reset's) is in the fingerprint too.
    orig = ["git", "rev-list", "--count", "ORIG_HEAD"]
    git(repo, "update-ref", "ORIG_HEAD", head)
    settle()
    assert ask(memo, orig, repo) == (b"1\n", 1)
    assert ask(memo, orig, repo) == (b"1\n", 0)
    (repo / ".git" / "ORIG_HEAD").write_text(git(repo, "rev-parse", "HEAD"))
    settle()
    assert ask(memo, orig, repo)[1] == 1


def test_the_staged_diff_follows_the_index(tmp_path: Path, memo: gitmemo.GitMemo) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "one\n"})
    settle()
    assert ask(memo, STAGED, repo) == (b"", 1)
    assert ask(memo, STAGED, repo) == (b"", 0)
    (repo / "a.txt").write_text("two\n")
    git(repo, "add", "a.txt")
    settle()
    staged, ran = ask(memo, STAGED, repo)
    assert b"+two" in staged and ran == 1
    assert ask(memo, STAGED, repo) == (staged, 0)
    # The top .gitattributes may make a file binary: a change to it is asked again.
    (repo / ".gitattributes").write_text("*.txt -diff\n")
    settle()
    marked, ran = ask(memo, STAGED, repo)
    assert ran == 1 and b"Binary files" in marked
    # An answer naming a binary file is not kept (an attributes file below the top could change it).
    assert ask(memo, STAGED, repo) == (marked, 1)


def test_the_files_of_a_commit_are_read_again_once_head_moves(tmp_path: Path, memo: gitmemo.GitMemo) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "one\n"})
    settle()
    batch = ["git", "cat-file", "--batch"]
    request = b"HEAD:a.txt\n"

    first, ran = ask(memo, batch, repo, request)
    assert first.endswith(b"one\n\n") and ran == 1
    assert ask(memo, batch, repo, request) == (first, 0)
    (repo / "a.txt").write_text("two\n")
    git(repo, "commit", "-qam", "two")
    settle()
    second, ran = ask(memo, batch, repo, request)
    assert second.endswith(b"two\n\n") and ran == 1


def test_nothing_is_kept_while_a_config_file_includes_another(tmp_path: Path, memo: gitmemo.GitMemo) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "one\n"})
    (tmp_path / "more.gitconfig").write_text("[diff]\n")
    git(repo, "config", "include.path", str(tmp_path / "more.gitconfig"))
    settle()
    assert ask(memo, COUNT, repo)[1] == 1
    assert ask(memo, COUNT, repo)[1] == 1
    git(repo, "config", "--unset", "include.path")
    settle()
    assert ask(memo, COUNT, repo)[1] == 1
    assert ask(memo, COUNT, repo)[1] == 0


def test_nothing_changed_just_now_is_kept(tmp_path: Path, memo: gitmemo.GitMemo) -> None:
    """Within the racy window a change could leave every time stamp the same: nothing is kept."""
    repo = make_repo(tmp_path / "r", {"a.txt": "one\n"})
    settle()
    git(repo, "branch", "fresh")
    assert ask(memo, COUNT, repo)[1] == 1
    assert ask(memo, COUNT, repo)[1] == 1
    settle()
    assert ask(memo, COUNT, repo)[1] == 1
    assert ask(memo, COUNT, repo)[1] == 0


def test_a_question_outside_a_stream_always_runs_git(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "one\n"})
    settle()
    before = gitrun.COUNTS["git"]
    for _ in range(3):
        gitrun.run(COUNT, str(repo))
    assert gitrun.COUNTS["git"] - before == 3


def test_a_too_long_answer_still_stops_the_caller(tmp_path: Path, memo: gitmemo.GitMemo) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "one\n"})
    (repo / "a.txt").write_text("two\n" * 100)
    git(repo, "add", "a.txt")
    settle()
    whole = gitrun.run(STAGED, str(repo)).stdout
    with pytest.raises(gitrun.Timeout, match="bytes of output"):
        gitrun.run(STAGED, str(repo), max_output=len(whole) - 1)
    assert gitrun.run(STAGED, str(repo), max_output=len(whole)).stdout == whole


def test_a_stream_of_pushes_asks_git_once_while_nothing_changes(tmp_path: Path) -> None:
    """A push's secret scan reads its commits with `git log -p` (kept); a commit made between two
    lines is read on the next."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    repo = make_repo(tmp_path / "r", {"a.txt": "one\n"})
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "origin", "HEAD:refs/heads/main")
    git(repo, "fetch", "-q", "origin")
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "b.txt").write_text("two\n")
    git(repo, "add", "b.txt")
    git(repo, "commit", "-qm", "two")
    settle()
    token = "ghp_" + "k8Qw3ZtR7yLm2NpX5vBc9DfG1hJs4KaE6uTo"
    counts: list[int] = []

    def stream() -> Iterator[str]:
        for number in range(4):
            counts.append(gitrun.COUNTS["git"])
            yield json.dumps({"command": f"git push origin feature # {number}"}) + "\n"
        (repo / "deploy.sh").write_text(f"export GITHUB_TOKEN={token}\n")
        git(repo, "add", "deploy.sh")
        git(repo, "commit", "-qm", "deploy")
        counts.append(gitrun.COUNTS["git"])
        yield json.dumps({"command": "git push origin feature # 4"}) + "\n"
        counts.append(gitrun.COUNTS["git"])

    out = io.StringIO()
    run_jsonl(stream(), out, str(repo), Runner(record=False))
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [a["deny"]["rule"] if a["deny"] else None for a in answers] == [None] * 4 + ["committed-secrets"]
    ran = [b - a for a, b in itertools.pairwise(counts)]
    assert ran[1] == ran[2] == 0 < ran[0], ran  # the second and third push: no git at all
    assert ran[4] > 0  # the commit between: read again
    assert gitrun.MEMO is None  # (the stream's memo ends with it)
    assert os.environ.get("GIT_DIR") is None


def test_named_files_of_the_work_tree_are_read_again_once_they_change(
        tmp_path: Path, memo: gitmemo.GitMemo) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "one\n", "src/b.py": "x = 1\n"})
    head = git(repo, "rev-parse", "HEAD").strip()
    changes = ["git", "diff", "-U0", "--no-ext-diff", "--no-textconv", head, "--", "a.txt", "src/b.py"]
    untracked = ["git", "ls-files", "-z", "--others", "--exclude-standard", "--", "new.txt"]
    (repo / "a.txt").write_text("two\n")
    settle()
    first, ran = ask(memo, changes, repo)
    assert b"+two" in first and ran == 1
    assert ask(memo, changes, repo) == (first, 0)
    # Another file of the work tree changing does not matter; a named one does.
    (repo / "notes.txt").write_text("elsewhere\n")
    settle()
    assert ask(memo, changes, repo) == (first, 0)
    (repo / "src" / "b.py").write_text("x = 2\n")
    settle()
    second, ran = ask(memo, changes, repo)
    assert b"+x = 2" in second and ran == 1
    # An attributes file in a directory above a named file.
    (repo / "src" / ".gitattributes").write_text("*.py -diff\n")
    settle()
    third, ran = ask(memo, changes, repo)
    assert b"Binary files" in third and ran == 1
    # Untracked files: one made, then ignored.
    assert ask(memo, untracked, repo) == (b"", 1)
    assert ask(memo, untracked, repo) == (b"", 0)
    (repo / "new.txt").write_text("new\n")
    settle()
    assert ask(memo, untracked, repo) == (b"new.txt\0", 1)
    assert ask(memo, untracked, repo) == (b"new.txt\0", 0)
    (repo / ".gitignore").write_text("new.txt\n")
    settle()
    assert ask(memo, untracked, repo) == (b"", 1)
    # A directory named is never kept (what is below it is not in the fingerprint).
    whole = ["git", "diff", "-U0", "--no-ext-diff", "--no-textconv", head, "--", "src"]
    assert ask(memo, whole, repo)[1] == 1
    assert ask(memo, whole, repo)[1] == 1


def test_the_memo_holds_a_bounded_amount_of_output(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gitmemo, "MAX_BYTES", 400)
    kept = gitmemo.GitMemo()
    fingerprint = ("/r", "/r/.git", "/r/.git")
    for number in range(4):
        kept.put(("k", number), fingerprint, gitrun.Result(0, b"x" * 90, b""))
    assert len(kept._answers) == 4
    kept.put(("k", 4), fingerprint, gitrun.Result(0, b"x" * 90, b""))  # (past 400 bytes: it starts again)
    assert list(kept._answers) == [("k", 4)]
    kept.put(("big",), fingerprint, gitrun.Result(0, b"x" * 101, b""))  # over a quarter: never kept
    assert ("big",) not in kept._answers


def test_a_run_given_its_input_later_starts_only_when_the_memo_lacks_the_answer(
        tmp_path: Path, memo: gitmemo.GitMemo) -> None:
    """A push's boundary commit is known only after its log is read: its files are asked of a
    `git cat-file --batch` started before. Under a stream's memo it starts when its result is asked
    for, and not at all when the answer to that input is kept, or when it is abandoned first (a
    scan starts some runs in case it needs them)."""
    repo = make_repo(tmp_path / "r", {"a.txt": "one\n"})
    settle()

    def read(request: bytes) -> tuple[bytes, int]:
        memo.begin_call()
        before = gitrun.COUNTS["git"]
        running = gitrun.start(["git", "cat-file", "--batch"], str(repo), later_input=True)
        assert running.waiting_for_input and gitrun.COUNTS["git"] == before  # (nothing started yet)
        running.send(request)
        return running.result().stdout, gitrun.COUNTS["git"] - before

    first, ran = read(b"HEAD:a.txt\n")
    assert first.endswith(b"one\n\n") and ran == 1
    assert read(b"HEAD:a.txt\n") == (first, 0)
    other, ran = read(b"HEAD:missing.txt\n")
    assert other == b"HEAD:missing.txt missing\n" and ran == 1
    # One abandoned, before its input or after, never started.
    before = gitrun.COUNTS["git"]
    gitrun.start(["git", "cat-file", "--batch"], str(repo), later_input=True).abandon()
    started = gitrun.start(["git", "cat-file", "--batch"], str(repo), later_input=True)
    started.send(b"HEAD:other.txt\n")
    started.abandon()
    gitrun.start(COUNT, str(repo)).abandon()
    assert gitrun.COUNTS["git"] == before
