"""The probe answers the git rules added (git.state's staged, unstaged, ignored and stashes counts;
git.ahead of refs, ref prefixes, stash entries and `*`), the same keys in examples, and how many git
processes a hook call for a destructive command runs: few, read-only, and cached."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from testing import claude_payload, git, make_repo, run_jouet
from testing.gitrules import commit, head, other_clone, with_remote, write_git_wrapper

from jouet_git.engine.decide import decide
from jouet_git.engine.model import Rule
from jouet_git.engine.ruleset import load
from jouet_git.engine.runner import context_for
from jouet_git.engine.script_host import ScriptHost
from jouet_git.harness.claude import call_from_payload
from jouet_git.probes.core import ProbeError, Probes
from jouet_git.probes.examples import ExampleProbes


def state(repo: Path) -> dict[str, Any]:
    value, reason = Probes(str(repo)).git_state()
    assert reason is None, reason
    assert isinstance(value, dict)
    return value


# -- git.state ------------------------------------------------------------------------------------


def test_new_counts_are_absent_on_a_clean_tree(tmp_path: Path) -> None:
    got = state(make_repo(tmp_path / "r"))
    assert not {"staged", "unstaged", "ignored", "stashes"} & set(got)


def test_staged_and_unstaged_counts(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": "a\n", "b.py": "b\n", "c.py": "c\n", "d.py": "d\n"})
    (repo / "a.py").write_text("staged\n")
    git(repo, "add", "a.py")
    (repo / "b.py").write_text("staged\n")
    git(repo, "add", "b.py")
    (repo / "b.py").write_text("staged, then changed\n")
    (repo / "c.py").write_text("not staged\n")
    (repo / "d.py").unlink()
    got = state(repo)
    assert (got["changed"], got["staged"], got["unstaged"]) == (4, 2, 3)


def test_ignored_count_takes_an_ignored_directory_once(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {".gitignore": "build/\n*.log\n"})
    (repo / "build" / "deep").mkdir(parents=True)
    for n in range(5):
        (repo / "build" / "deep" / f"{n}.o").write_text("o\n")
    (repo / "a.log").write_text("l\n")
    (repo / "notes.txt").write_text("n\n")
    got = state(repo)
    assert got["ignored"] == 2 and got["untracked"] == 1
    assert got["dirty"] is True  # from the untracked file, not the ignored ones
    (repo / "notes.txt").unlink()
    assert state(repo)["dirty"] is False


def test_stash_count(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": "a\n"})
    for n in range(3):
        (repo / "a.py").write_text(f"{n}\n")
        git(repo, "stash", "push", "-q", "-m", f"s{n}")
    got = state(repo)
    assert got["stashes"] == 3 and got["dirty"] is False


# -- git.ahead ------------------------------------------------------------------------------------


@pytest.fixture
def refs(tmp_path: Path) -> Path:
    """main pushed to origin; `solo` with 2 commits only here; `shared` with 1 commit also pushed;
    `theirs` on the remote only (fetched), with 1 commit; one stash entry."""
    repo = with_remote(tmp_path)
    git(repo, "checkout", "-qb", "solo")
    commit(repo, "s1.txt", "1\n")
    commit(repo, "s2.txt", "2\n")
    git(repo, "checkout", "-qb", "shared", "main")
    commit(repo, "sh.txt", "sh\n")
    git(repo, "push", "-q", "origin", "shared")
    git(repo, "checkout", "-q", "main")
    other = other_clone(tmp_path)
    git(other, "checkout", "-qb", "theirs")
    commit(other, "t.txt", "t\n")
    git(other, "push", "-q", "origin", "theirs")
    git(repo, "fetch", "-q")
    (repo / "README.md").write_text("stashed\n")
    git(repo, "stash", "push", "-q", "-m", "one")
    return repo


def ahead(repo: Path, branch: str, of: str) -> Any:
    return Probes(str(repo)).git_ahead(branch, of)


def test_ahead_of_every_other_ref(refs: Path) -> None:
    assert ahead(refs, "solo", "*") == (2, None)
    assert ahead(refs, "shared", "*") == (0, None)  # origin/shared has it
    assert ahead(refs, "main", "*") == (0, None)
    assert ahead(refs, "refs/heads/solo", "*") == (2, None)
    git(refs, "tag", "keep", "solo~1")
    assert ahead(refs, "solo", "*") == (1, None)  # a tag keeps what it reaches


def test_ahead_of_remote_tracking_refs(refs: Path) -> None:
    assert ahead(refs, "refs/remotes/origin/theirs", "*") == (1, None)
    assert ahead(refs, "refs/remotes/origin/shared", "*") == (0, None)  # the local branch has it
    assert ahead(refs, "refs/remotes/origin/*", "*") == (1, None)
    assert ahead(refs, "refs/remotes/origin/theirs", "main") == (1, None)
    # A remote's HEAD only points at one of its branches: it never keeps that branch's commits.
    git(refs, "remote", "set-head", "origin", "theirs")
    assert ahead(refs, "refs/remotes/origin/theirs", "*") == (1, None)
    # A local branch made from it keeps them.
    git(refs, "branch", "theirs", "origin/theirs")
    assert ahead(refs, "refs/remotes/origin/theirs", "*") == (0, None)


def test_ahead_of_stash_entries(refs: Path) -> None:
    count, reason = ahead(refs, "stash@{0}", "*")
    assert reason is None and count >= 1
    git(refs, "branch", "saved", "stash@{0}")
    assert ahead(refs, "stash@{0}", "*") == (0, None)
    assert ahead(refs, "stash@{1}", "*") == (None, "no stash entry stash@{1}")


def test_ahead_says_what_is_missing(refs: Path) -> None:
    assert ahead(refs, "nope", "*") == (None, "no local branch 'nope'")
    assert ahead(refs, "refs/remotes/origin/nope", "*") == (None, "no ref 'refs/remotes/origin/nope'")
    value, reason = ahead(refs, "refs/..", "*")
    assert value is None and reason is not None and "not a valid branch name" in reason
    value, reason = ahead(refs, "refs/remotes/*/x", "*")
    assert value is None and reason is not None and "not a valid branch name" in reason
    # A glob under a prefix no ref has counts nothing.
    assert ahead(refs, "refs/remotes/nowhere/*", "*") == (0, None)


def test_ahead_still_takes_local_names_first(refs: Path) -> None:
    assert ahead(refs, "solo", "main") == (2, None)
    assert ahead(refs, "origin/theirs", "main") == (None, "no local branch 'origin/theirs'")
    with pytest.raises(ProbeError):
        ahead(refs, "--all", "*")


def test_conflicted_files_of_a_stopped_merge(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": "x = 1\n", "b.py": "y = 1\n", "c.py": "z = 1\n"})
    git(repo, "checkout", "-q", "-b", "other")
    (repo / "a.py").write_text("x = 2\n")
    (repo / "b.py").write_text("y = 2\n")
    git(repo, "commit", "-q", "-am", "other")
    git(repo, "checkout", "-q", "-")
    (repo / "a.py").write_text("x = 3\n")
    git(repo, "commit", "-q", "-am", "this")
    probes = Probes(str(repo))
    assert probes.git_changed("conflicted") == ([], None)  # nothing stopped yet
    git(repo, "merge", "other", check=False)
    (repo / "c.py").write_text("z = 2\n")  # a change of its own, not a conflict
    files, reason = Probes(str(repo)).git_changed("conflicted")
    assert reason is None and files == [str((repo / "a.py").resolve())]
    with pytest.raises(ProbeError, match='"conflicted"'):
        probes.git_changed("unmerged")


# -- the same answers in examples ------------------------------------------------------------------


def ask(example: dict[str, Any], probe: str, *args: Any) -> Any:
    return getattr(ExampleProbes(example, "/jouet-example"), probe)(*args)


def test_examples_answer_the_new_counts() -> None:
    value, _ = ask({"git": {"dirty": True, "changed": 2, "staged": 1, "unstaged": 2, "ignored": 3,
                            "stashes": 1}}, "git_state")
    assert (value["staged"], value["unstaged"], value["ignored"], value["stashes"]) == (1, 2, 3, 1)
    value, _ = ask({"git": {"dirty": False, "staged": 1, "ignored": 3}}, "git_state")
    assert "staged" not in value and value["ignored"] == 3  # a clean tree has nothing staged
    value, _ = ask({"git": {"dirty": True, "stashes": 0}}, "git_state")
    assert "stashes" not in value


def test_examples_answer_ahead_by_what_it_is_asked_of() -> None:
    example = {"git": {"ahead": {"origin/main": 3, "*": 0}}}
    assert ask(example, "git_ahead", "main", "origin/main") == (3, None)
    assert ask(example, "git_ahead", "main", "*") == (0, None)
    value, reason = ask(example, "git_ahead", "main", "HEAD~1")
    assert value is None and reason is not None and "'HEAD~1'" in reason


def test_examples_answer_changed_files_by_scope() -> None:
    example = {"git": {"files": {"staged": ["a.py"], "tracked": ["a.py", "src/b.py"]}}}
    assert ask(example, "git_changed", "staged") == (["/jouet-example/a.py"], None)
    assert ask(example, "git_changed", "tracked") == (["/jouet-example/a.py", "/jouet-example/src/b.py"], None)
    assert ask({"git": {"files": {"tracked": ["a.py"]}}}, "git_changed") == ([], None)
    unmerged = {"git": {"files": {"conflicted": ["a.py"]}}}
    assert ask(unmerged, "git_changed", "conflicted") == (["/jouet-example/a.py"], None)


def test_examples_give_a_file_by_either_of_its_paths() -> None:
    example = {"files": {"src/app.py": "x = 3\n", "/etc/hosts": "127.0.0.1"}}
    assert ask(example, "file_contains", "/jouet-example/src/app.py", "x = 3") == (True, None)
    assert ask(example, "file_contains", "src/app.py", "x = 4") == (False, None)
    assert ask(example, "file_contains", "src/./app.py", "x") == (True, None)
    assert ask(example, "file_contains", "/etc/hosts", "127") == (True, None)
    value, reason = ask(example, "file_contains", "/elsewhere/src/app.py", "x")
    assert value is None and reason is not None and "does not give" in reason


# -- git processes per hook call ---------------------------------------------------------------------


def logged(log: Path) -> list[tuple[str, str]]:
    if not log.exists():
        return []
    return [tuple(line.split("\t", 1)) for line in log.read_text().splitlines()]  # type: ignore[misc]


@pytest.mark.parametrize(("command", "least", "most"), [
    ("git reset --hard origin/main", 1, 3),
    ("git checkout -- src/app.py", 2, 4),
    ("git clean -fdx", 1, 1),
    ("git branch -D solo", 1, 1),
    ("git stash drop", 1, 1),
    ("git push --delete origin theirs", 1, 1),
    # Not a stack layer: gh-stack's file and git config are read without running git.
    ("git rebase origin/main", 0, 0),
    ("git status", 0, 0),
])
def test_a_hook_call_runs_few_git_processes_all_without_locks(refs: Path, tmp_path: Path, command: str,
                                                              least: int, most: int) -> None:
    (refs / "src" / "app.py").write_text("x = 2\n")
    log = tmp_path / "git.log"
    env = write_git_wrapper(tmp_path / "bin", log)
    proc = run_jouet("hook", "claude", "pre", input=claude_payload(command, refs), cwd=refs, env=env)
    assert proc.returncode == 0, proc.stderr
    runs = logged(log)
    assert least <= len(runs) <= most, runs
    assert all(locks == "0" for locks, _ in runs), runs
    # Every process only reads.
    assert {args.split(" ", 1)[0] for _, args in runs} <= {"status", "rev-list", "diff", "for-each-ref"}


class CountedScripts:
    """Runs script rules with one Probes object the test can look at."""

    def __init__(self, probes: Probes) -> None:
        self.host = ScriptHost()
        self.probes = probes

    def run(self, rule: Rule, call: Any, matched: list[int]) -> Any:
        return self.host.run(rule, call, matched, self.probes)


@pytest.mark.parametrize("command", [
    "git reset --hard origin/main", "git checkout -- src/app.py && git checkout -f main", "git stash clear",
    "git push --mirror origin",
])
def test_probes_are_cached_within_a_call(refs: Path, command: str) -> None:
    (refs / "src" / "app.py").write_text("x = 2\n")
    payload = json.loads(claude_payload(command, refs))
    call = call_from_payload(payload, "pre")
    ruleset = load(call.cwd)
    probes = Probes(call.cwd, call)
    runner = CountedScripts(probes)
    first = decide(ruleset.rules, call, context_for(call, ruleset.root), runner, ruleset.disabled_now())
    ran = probes.git_processes
    assert 1 <= ran <= 4
    again = decide(ruleset.rules, call, context_for(call, ruleset.root), runner, ruleset.disabled_now())
    assert probes.git_processes == ran  # asking twice runs nothing new
    assert (first.deny.rule if first.deny else None) == (again.deny.rule if again.deny else None)
    assert not first.errors, first.errors


def test_every_rule_that_asks_the_same_question_shares_one_answer(refs: Path) -> None:
    # reset-hard and reset-to-remote both ask git.state; force-switch too: one `git status` in all.
    payload = json.loads(claude_payload("git reset --hard origin/main && git switch -f main", refs))
    call = call_from_payload(payload, "pre")
    ruleset = load(call.cwd)
    probes = Probes(call.cwd, call)
    decision = decide(ruleset.rules, call, context_for(call, ruleset.root), CountedScripts(probes),
                      ruleset.disabled_now())
    assert decision.deny is None and not decision.errors
    assert probes.git_processes == 2  # git status, then rev-list main ^origin/main (nothing to lose)
    assert head(refs) == head(refs, "origin/main")
