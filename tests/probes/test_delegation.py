"""secrets.scan and claims.held through the Probes object: real gitleaks, real claims, real pushes."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing import git, make_repo, run_jouet

from jouet_git import budgets, gitrun
from jouet_git.harness.git_events import pre_push_calls
from jouet_git.probes.checks import push_pairs
from jouet_git.probes.core import ProbeError, Probes

# A made-up GitHub token, shaped so gitleaks' github-pat rule finds it.
TOKEN = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"README.md": "hi\n", "src/a.py": "a = 1\n"})


def commit(repo: Path, name: str, text: str) -> str:
    (repo / name).write_text(text)
    git(repo, "add", name)
    git(repo, "commit", "-qm", f"add {name}")
    return git(repo, "rev-parse", "HEAD").strip()


def test_a_staged_secret_is_found_and_the_answer_kept(repo: Path) -> None:
    (repo / "config.py").write_text(f'token = "{TOKEN}"\n')
    git(repo, "add", "config.py")
    p = Probes(str(repo))
    findings, reason = p.secrets_scan()
    assert reason is None
    assert [(f["rule"], f["path"], f["line"], f["commit"]) for f in findings] == [
        ("github-pat", "config.py", 1, None)]
    assert TOKEN not in repr(findings)
    assert p.git_processes > 0  # the scan's own git processes count too
    counts, processes = dict(gitrun.COUNTS), p.git_processes
    assert p.secrets_scan("staged") == (findings, None)  # nil scope is "staged": same answer
    assert dict(gitrun.COUNTS) == counts and p.git_processes == processes


def test_paths_a_git_add_is_about_to_stage(repo: Path) -> None:
    (repo / "config.py").write_text(f'token = "{TOKEN}"\n')
    p = Probes(str(repo))
    assert p.secrets_scan("staged") == ([], None)
    findings, reason = p.secrets_scan("staged", ["config.py"])
    assert reason is None and [f["path"] for f in findings] == ["config.py"]


def test_a_pre_push_call_scans_exactly_the_commits_it_sends(repo: Path) -> None:
    with_secret = commit(repo, "config.py", f'token = "{TOKEN}"\n')
    clean = commit(repo, "notes.txt", "nothing here\n")
    # Without a push to go by, "outgoing" is every commit no remote has: the secret is in one.
    findings, _ = Probes(str(repo)).secrets_scan("outgoing")
    assert [f["commit"] for f in findings] == [with_secret]
    # A push whose remote already has the commit with the secret sends only the clean one.
    line = f"refs/heads/main {clean} refs/heads/main {with_secret}\n"
    [update] = pre_push_calls("origin", "/srv/r.git", line, str(repo))
    assert Probes(str(repo), update.call).secrets_scan("outgoing") == ([], None)
    # The same commits pushed as a new branch: the remote has none of them.
    line = f"refs/heads/main {clean} refs/heads/new {'0' * 40}\n"
    [created] = pre_push_calls("origin", "/srv/r.git", line, str(repo))
    findings, _ = Probes(str(repo), created.call).secrets_scan("outgoing")
    assert [f["commit"] for f in findings] == [with_secret]
    # A deletion sends nothing.
    line = f"(delete) {'0' * 40} refs/heads/old {clean}\n"
    [deleted] = pre_push_calls("origin", "/srv/r.git", line, str(repo))
    assert Probes(str(repo), deleted.call).secrets_scan("outgoing") == ([], None)


def test_push_pairs_read_the_revisions() -> None:
    new, old, zero = "a" * 40, "b" * 40, "0" * 40
    assert push_pairs({"revisions": [new, "--not", old]}) == [(old, new)]
    assert push_pairs({"revisions": [new, "--not", "--remotes"]}) == [(zero, new)]
    assert push_pairs({"revisions": []}) == []
    assert push_pairs({"remote_oid": old, "local_oid": new}) == [(old, new)]
    assert push_pairs({}) is None


def test_a_spent_secrets_budget_runs_nothing(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budgets, "SECRETS", 0.0)
    before = dict(gitrun.COUNTS)
    p = Probes(str(repo))
    value, reason = p.secrets_scan()
    assert value is None and reason is not None and reason.startswith("out of time: ")
    assert dict(gitrun.COUNTS) == before and p.git_processes == 0


def test_secrets_scan_refuses_an_unknown_scope(repo: Path) -> None:
    with pytest.raises(ProbeError, match="unknown scope 'everything'"):
        Probes(str(repo)).secrets_scan("everything")


# -- claims ---------------------------------------------------------------------------------------


def test_claims_held_delegates_to_the_claims_store(repo: Path) -> None:
    done = run_jouet("claim", "src/", "--note", "parser work", cwd=repo, env={"JOUET_SESSION_ID": "theirs"})
    assert done.returncode == 0, done.stderr
    p = Probes(str(repo / "src"))
    value, reason = p.claims_held(["a.py"])
    assert reason is None
    [hit] = value
    assert (hit["path"], hit["pattern"], hit["session"], hit["note"]) == ("src/a.py", "src/", "theirs",
                                                                          "parser work")
    assert p.claims_held(["../README.md"]) == ([], None)
    assert p.git_processes == 0


def test_claims_held_takes_one_path_as_a_string(repo: Path) -> None:
    assert Probes(str(repo)).claims_held("src/a.py") == ([], None)  # type: ignore[arg-type]
    with pytest.raises(ProbeError, match="paths must hold only strings"):
        Probes(str(repo)).claims_held([1])  # type: ignore[list-item]


def test_claims_held_outside_a_repository(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    assert Probes(str(tmp_path / "plain")).claims_held(["x"]) == (None, "not in a git repository")
