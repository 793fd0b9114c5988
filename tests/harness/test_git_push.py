"""pre_push_calls against the exact lines git hands a real pre-push hook.

Every test pushes to a local bare repository through a capturing pre-push hook, then feeds the
captured argv and stdin to pre_push_calls, as `jouet hook git pre-push` would.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from testing import git, make_repo
from testing.githooks import ZERO, capture_hook, captured, commit, rev

from jouet_git import gitrun
from jouet_git.call import KIND_SHELL, PRE_TOOL_USE
from jouet_git.errors import JouetError
from jouet_git.harness.git_events import PushRef, outgoing_commits, pre_push_calls, push_command


class Pushing:
    """A work repository with a bare remote `origin` and a capturing pre-push hook."""

    def __init__(self, tmp_path: Path) -> None:
        self.remote = tmp_path / "remote.git"
        git(tmp_path, "init", "-q", "--bare", str(self.remote))
        self.repo = make_repo(tmp_path / "work")
        git(self.repo, "remote", "add", "origin", str(self.remote))
        self.into = tmp_path / "captured"
        capture_hook(self.repo, "pre-push", self.into)

    def push(self, *args: str) -> list[PushRef]:
        """Run `git push ARGS` for real and return what pre_push_calls makes of the hook's input.

        The capturing hook fails, so git stops there and the repository stays as the hook saw it
        (remote-tracking refs not yet moved); `land` does the push for real afterwards.
        """
        (self.into / "stdin").unlink(missing_ok=True)
        (self.into / "exit").write_text("1")
        proc = subprocess.run(["git", "push", "-q", *args], cwd=self.repo, capture_output=True, text=True)
        assert proc.returncode != 0, "the capturing hook should have stopped the push"
        argv, stdin = captured(self.into)
        assert len(argv) == 2, argv
        return pre_push_calls(argv[0], argv[1], stdin, str(self.repo))

    def land(self, *args: str) -> None:
        """Push for real."""
        (self.into / "exit").unlink(missing_ok=True)
        git(self.repo, "push", "-q", *args)


@pytest.fixture
def pushing(tmp_path: Path) -> Pushing:
    return Pushing(tmp_path)


def test_new_branch_sends_the_commits_no_remote_tracking_ref_has(pushing: Pushing) -> None:
    pushing.land("origin", "main")
    git(pushing.repo, "checkout", "-q", "-b", "feat")
    first = commit(pushing.repo, "a.txt")
    second = commit(pushing.repo, "b.txt")

    [ref] = pushing.push("origin", "feat")

    assert ref.call.command == "git push origin refs/heads/feat:refs/heads/feat"
    assert (ref.ref, ref.local_ref, ref.old, ref.new) == ("refs/heads/feat", "refs/heads/feat", ZERO, second)
    assert ref.created and not ref.deleted and not ref.forced
    assert ref.revisions == [second, "--not", "--remotes"]
    assert ref.range is None
    assert outgoing_commits(ref, str(pushing.repo)) == [second, first]
    call = ref.call
    assert (call.event, call.harness, call.tool, call.kind) == (PRE_TOOL_USE, "git", "git", KIND_SHELL)
    assert call.cwd == str(pushing.repo)
    assert call.input["remote"] == "origin" and call.input["url"] == str(pushing.remote)
    assert call.input["created"] is True


def test_first_push_of_a_repository_sends_every_commit(pushing: Pushing) -> None:
    root = rev(pushing.repo, "HEAD")
    tip = commit(pushing.repo, "more.txt")
    [ref] = pushing.push("origin", "main")
    assert ref.created
    assert outgoing_commits(ref, str(pushing.repo)) == [tip, root]


def test_fast_forward_sends_old_to_new(pushing: Pushing) -> None:
    pushing.land("origin", "main")
    old = rev(pushing.repo, "HEAD")
    new = commit(pushing.repo, "next.txt")

    [ref] = pushing.push("origin", "main")

    assert ref.call.command == "git push origin refs/heads/main:refs/heads/main"
    assert (ref.old, ref.new, ref.forced, ref.created) == (old, new, False, False)
    assert ref.range == f"{old}..{new}"
    assert ref.log_opts == f"{new} --not {old}"
    assert outgoing_commits(ref, str(pushing.repo)) == [new]


def test_forced_push_over_a_known_commit_gets_a_plus(pushing: Pushing) -> None:
    commit(pushing.repo, "one.txt")
    pushing.land("origin", "main")
    old = rev(pushing.repo, "HEAD")
    git(pushing.repo, "reset", "-q", "--hard", "HEAD~1")
    new = commit(pushing.repo, "other.txt")

    [ref] = pushing.push("--force", "origin", "main")

    assert ref.call.command == "git push origin +refs/heads/main:refs/heads/main"
    assert ref.forced and ref.old == old and ref.new == new
    assert outgoing_commits(ref, str(pushing.repo)) == [new]
    assert ref.call.input["forced"] is True


def test_forced_push_over_a_commit_never_fetched_is_forced(pushing: Pushing, tmp_path: Path) -> None:
    pushing.land("origin", "main")
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(pushing.remote), str(other))
    theirs = commit(other, "theirs.txt")
    git(other, "push", "-q", "origin", "main")
    mine = commit(pushing.repo, "mine.txt")

    [ref] = pushing.push("--force", "origin", "main")

    assert ref.old == theirs and ref.new == mine
    assert ref.forced
    assert ref.call.command == "git push origin +refs/heads/main:refs/heads/main"
    # The remote's commit is not here, so the commits sent are those no remote-tracking ref has.
    assert ref.revisions == [mine, "--not", "--remotes"]
    assert outgoing_commits(ref, str(pushing.repo)) == [mine]


def test_deletion(pushing: Pushing) -> None:
    git(pushing.repo, "branch", "old")
    pushing.land("origin", "main", "old")
    gone = rev(pushing.repo, "old")

    [ref] = pushing.push("origin", "--delete", "old")

    assert ref.call.command == "git push origin :refs/heads/old"
    assert ref.deleted and not ref.created and not ref.forced
    assert ref.old == gone and ref.new == ZERO and ref.local_ref == "(delete)"
    assert ref.revisions == [] and ref.log_opts is None and ref.range is None
    assert outgoing_commits(ref, str(pushing.repo)) == []


def test_several_refs_in_one_push(pushing: Pushing) -> None:
    pushing.land("origin", "main")
    base = rev(pushing.repo, "HEAD")
    git(pushing.repo, "branch", "gone")
    pushing.land("origin", "gone")
    new_main = commit(pushing.repo, "m.txt")
    git(pushing.repo, "checkout", "-q", "-b", "topic")
    topic = commit(pushing.repo, "t.txt")
    git(pushing.repo, "checkout", "-q", "main")

    refs = pushing.push("origin", "main", "topic", ":gone")

    by_ref = {r.ref: r for r in refs}
    assert len(refs) == 3 and set(by_ref) == {"refs/heads/main", "refs/heads/topic", "refs/heads/gone"}
    assert by_ref["refs/heads/main"].call.command == "git push origin refs/heads/main:refs/heads/main"
    assert by_ref["refs/heads/main"].range == f"{base}..{new_main}"
    assert by_ref["refs/heads/topic"].created
    assert outgoing_commits(by_ref["refs/heads/topic"], str(pushing.repo)) == [topic, new_main]
    assert by_ref["refs/heads/gone"].call.command == "git push origin :refs/heads/gone"


def test_tags_new_and_moved(pushing: Pushing) -> None:
    pushing.land("origin", "main")
    git(pushing.repo, "tag", "-a", "-m", "release", "v1")
    tag_object = rev(pushing.repo, "v1")

    [ref] = pushing.push("origin", "v1")

    assert ref.call.command == "git push origin refs/tags/v1:refs/tags/v1"
    assert ref.new == tag_object and ref.created
    assert outgoing_commits(ref, str(pushing.repo)) == []  # the tagged commit is on origin/main

    pushing.land("origin", "v1")
    tip = commit(pushing.repo, "later.txt")
    git(pushing.repo, "tag", "-f", "-a", "-m", "release again", "v1")
    [moved] = pushing.push("--force", "origin", "v1")
    assert moved.old == tag_object and moved.new == rev(pushing.repo, "v1")
    assert moved.forced  # git moves an existing tag only when forced, even forward
    assert moved.call.command == "git push origin +refs/tags/v1:refs/tags/v1"
    assert outgoing_commits(moved, str(pushing.repo)) == [tip]


def test_lightweight_tag_of_an_unpushed_commit(pushing: Pushing) -> None:
    pushing.land("origin", "main")
    tip = commit(pushing.repo, "tagged.txt")
    git(pushing.repo, "tag", "light")
    [ref] = pushing.push("origin", "light")
    assert ref.call.command == "git push origin refs/tags/light:refs/tags/light"
    assert outgoing_commits(ref, str(pushing.repo)) == [tip]


def test_push_to_a_url_quotes_it(pushing: Pushing, tmp_path: Path) -> None:
    spaced = tmp_path / "my remote.git"
    git(tmp_path, "init", "-q", "--bare", str(spaced))
    [ref] = pushing.push(str(spaced), "HEAD:refs/heads/side")
    assert ref.remote == str(spaced)
    assert ref.call.command == f"git push '{spaced}' HEAD:refs/heads/side"
    assert ref.local_ref == "HEAD"


def test_push_command_quotes_what_a_shell_would_read() -> None:
    assert push_command("origin", "refs/heads/a$b", "refs/heads/a$b") == (
        "git push origin 'refs/heads/a$b:refs/heads/a$b'"
    )
    forced = push_command("it's", "HEAD", "refs/heads/x", forced=True)
    assert forced == "git push 'it'\\''s' +HEAD:refs/heads/x"


def test_malformed_input_is_a_clear_error(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    with pytest.raises(JouetError) as caught:
        pre_push_calls("origin", "url", f"refs/heads/main {ZERO}\n", str(repo))
    assert "line 1" in caught.value.message and "<local ref> <local oid>" in caught.value.message
    assert pre_push_calls("origin", "url", "\n\n", str(repo)) == []


def test_git_runs_read_only_without_optional_locks(pushing: Pushing, monkeypatch: pytest.MonkeyPatch) -> None:
    pushing.land("origin", "main")
    old = rev(pushing.repo, "HEAD")
    new = commit(pushing.repo, "n.txt")
    git(pushing.repo, "checkout", "-q", "-b", "fresh")
    seen: list[tuple[list[str], str | None]] = []
    real_run = gitrun.run

    def counting_run(args: list[str], cwd: str | None, **kwargs: Any) -> gitrun.Result:
        env = kwargs.get("env")
        seen.append((list(args), env.get("GIT_OPTIONAL_LOCKS") if isinstance(env, dict) else None))
        return real_run(args, cwd, **kwargs)

    monkeypatch.setattr(gitrun, "run", counting_run)
    stdin = (
        f"refs/heads/main {new} refs/heads/main {old}\n"
        f"refs/heads/fresh {new} refs/heads/fresh {ZERO}\n"
        f"(delete) {ZERO} refs/heads/gone {old}\n"
    )
    refs = pre_push_calls("origin", str(pushing.remote), stdin, str(pushing.repo))
    assert [r.call.command for r in refs] == [
        "git push origin refs/heads/main:refs/heads/main",
        "git push origin refs/heads/fresh:refs/heads/fresh",
        "git push origin :refs/heads/gone",
    ]
    # one cat-file for every old object, one merge-base per update; new refs and deletions cost nothing
    assert [args[1] for args, _ in seen] == ["cat-file", "merge-base"]
    assert all(lock == "0" for _, lock in seen)
    seen.clear()
    pre_push_calls("origin", "u", f"refs/heads/x {new} refs/heads/x {ZERO}\n", str(pushing.repo))
    assert seen == []
