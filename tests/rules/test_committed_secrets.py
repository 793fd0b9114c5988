"""The committed-secrets rule on real repositories, through `jouet hook claude pre`, with real gitleaks.

Every secret is generated at random when the test runs (none is written in this file), and every
reply is checked for not carrying one. Commits happen on a feature branch, pushes go to a local bare
remote.
"""

from __future__ import annotations

import json
import os
import random
import stat
import string
from pathlib import Path

import pytest
from testing import claude_payload, git, make_repo, run_jouet

from jouet_git.gitleaks import binary

pytestmark = pytest.mark.skipif(binary.find_gitleaks() is None, reason="gitleaks is not installed")

RULE = "[jouet rule: committed-secrets]"
ALNUM = string.ascii_letters + string.digits


class Secrets:
    """One of each kind, random but shaped like the real thing."""

    def __init__(self, seed: int) -> None:
        rng = random.Random(seed)
        upper = string.ascii_uppercase + string.digits
        self.aws = "AKIA" + "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") for _ in range(16))
        self.github = "ghp_" + "".join(rng.choice(ALNUM) for _ in range(36))
        body = "\n".join("".join(rng.choice(ALNUM + "+/") for _ in range(64)) for _ in range(8))
        self.private_key = f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----\n"
        # Letters and digits alternate: a run of letters could spell one of the words gitleaks'
        # generic-api-key rule lets through (a draw holding "UsER" was not reported).
        self.generic = "".join(rng.choice(string.ascii_letters) + rng.choice(string.digits) for _ in range(14))
        self.slack = ("https://hooks.slack.com/services/T" + "".join(rng.choice(upper) for _ in range(8))
                      + "/B" + "".join(rng.choice(upper) for _ in range(8)) + "/"
                      + "".join(rng.choice(ALNUM) for _ in range(24)))
        self.custom = "jtok_" + "".join(rng.choice(string.ascii_lowercase + string.digits) for _ in range(20))

    def all(self) -> list[str]:
        return [self.aws, self.github, self.private_key.splitlines()[3], self.generic, self.slack, self.custom]


@pytest.fixture
def s() -> Secrets:
    return Secrets(random.randrange(1 << 30))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository whose main is on a bare origin, checked out on an unpushed branch `feature`."""
    remote = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    work = make_repo(tmp_path / "work", {"README.md": "hello\n", "src/app.py": "x = 1\ny = 2\n"})
    git(work, "remote", "add", "origin", str(remote))
    git(work, "push", "-q", "origin", "main")
    git(work, "switch", "-q", "-c", "feature")
    return work


def hook(command: str, cwd: Path, env: dict[str, str] | None = None) -> dict[str, object] | None:
    """What `jouet hook claude pre` replies to a Bash call of COMMAND in CWD (None: it said nothing)."""
    proc = run_jouet("hook", "claude", "pre", input=claude_payload(command, cwd), cwd=cwd, env=env)
    assert proc.returncode == 0, proc.stderr
    if not proc.stdout.strip():
        return None
    reply = json.loads(proc.stdout)
    assert isinstance(reply, dict)
    return reply


def denial(reply: dict[str, object] | None) -> str:
    assert reply is not None, "expected a denial, the hook said nothing"
    out = reply["hookSpecificOutput"]
    assert isinstance(out, dict)
    assert out.get("permissionDecision") == "deny", out
    reason = out["permissionDecisionReason"]
    assert isinstance(reason, str) and reason.endswith(RULE), reason
    return reason


def no_secret_in(text: str, s: Secrets) -> None:
    for secret in s.all():
        assert secret not in text


def write(repo: Path, name: str, text: str) -> None:
    path = repo / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def stage(repo: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        write(repo, name, text)
    git(repo, "add", *files)


# -- staged secrets -------------------------------------------------------------------------------


def kind(rule_id: str, s: Secrets) -> tuple[str, str, int]:
    """A file holding a secret that gitleaks' RULE_ID finds: its path, text, and the line it is on."""
    files = {
        "aws-access-token": ("src/settings.py", f'DEBUG = False\nAWS_ID = "{s.aws}"\n', 2),
        "github-pat": ("deploy.sh", f"#!/bin/sh\nexport GH={s.github}\n", 2),
        "private-key": ("certs/server.pem", s.private_key, 1),
        "generic-api-key": ("config.py", f'name = "app"\napi_key = "{s.generic}"\n', 2),
        "slack-webhook-url": ("notify.py", f'HOOK = "{s.slack}"\n', 1),
    }
    return files[rule_id]


KINDS = ["aws-access-token", "generic-api-key", "github-pat", "private-key", "slack-webhook-url"]


@pytest.mark.parametrize("rule_id", KINDS)
def test_a_staged_secret_of_each_kind_is_denied(repo: Path, s: Secrets, rule_id: str) -> None:
    path, text, line = kind(rule_id, s)
    stage(repo, {path: text})
    reason = denial(hook("git commit -m 'add config'", repo))
    assert f"{path}:{line} ({rule_id})" in reason
    assert "This commit would add 1 secret " in reason
    assert "git restore --staged FILE" in reason and "rotate" in reason
    assert f"`{path}:{rule_id}:{line}`" in reason  # the fingerprint for .gitleaksignore
    no_secret_in(reason, s)


def test_many_findings_are_listed_a_few_then_counted(repo: Path, s: Secrets) -> None:
    files = {}
    for rule_id in KINDS:
        path, text, _ = kind(rule_id, s)
        files[path] = text
    stage(repo, files)
    reason = denial(hook("git commit -m everything", repo))
    assert "This commit would add 5 secrets" in reason
    listed = reason.split("gitleaks recognises: ", 1)[1].split(" and 2 more.", 1)[0].split(", ")
    assert len(listed) == 3
    assert all(item.endswith(")") and ":" in item for item in listed)
    no_secret_in(reason, s)


def test_a_commit_without_secrets_is_quiet_and_goes_through(repo: Path) -> None:
    stage(repo, {"src/app.py": "x = 1\ny = 3\n"})
    assert hook("git commit -m 'bump y'", repo) is None
    git(repo, "commit", "-q", "-m", "bump y")  # and committing for real loses nothing
    assert git(repo, "log", "-1", "--format=%s").strip() == "bump y"


def test_the_message_sends_the_agent_to_the_person_not_to_gitleaksignore(repo: Path, s: Secrets) -> None:
    stage(repo, {"src/settings.py": f'AWS_ID = "{s.aws}"\nGH = "{s.github}"\n'})
    reason = denial(hook("git commit -m settings", repo))
    assert "say so to the person and let them decide" in reason
    assert "do not edit .gitleaksignore" in reason
    first = reason.split("fingerprint, for them: `", 1)[1].split("`", 1)[0]
    assert first == "src/settings.py:aws-access-token:1"

    # The agent writes the ignore lines anyway, staged with the secret: nothing is silenced.
    (repo / ".gitleaksignore").write_text(f"{first}\nsrc/settings.py:github-pat:2\n")
    git(repo, "add", ".gitleaksignore")
    reason = denial(hook("git commit -m settings", repo))
    assert "aws-access-token" in reason and "github-pat" in reason

    # The person commits the ignore lines first: then they count.
    git(repo, "restore", "--staged", "src/settings.py")
    git(repo, "commit", "-q", "-m", "ignore test keys")
    git(repo, "add", "src/settings.py")
    assert hook("git commit -m settings", repo) is None


def test_an_agent_writing_gitleaksignore_is_told_to_ask(repo: Path) -> None:
    for command in ("echo src/a.py:github-pat:1 >> .gitleaksignore", "cp /tmp/x.toml .gitleaks.toml"):
        reply = hook(command, repo)
        assert reply is not None
        out = reply["hookSpecificOutput"]
        assert isinstance(out, dict) and out["permissionDecision"] == "deny"
        reason = out["permissionDecisionReason"]
        assert reason.endswith("[jouet rule: gitleaks-config]")
        assert "for the person you work for to change" in reason


def test_a_custom_rule_in_gitleaks_toml_is_used(repo: Path, s: Secrets) -> None:
    (repo / ".gitleaks.toml").write_text(
        '[extend]\nuseDefault = true\n\n[[rules]]\nid = "jouet-test-token"\n'
        "regex = '''jtok_[a-z0-9]{20}'''\nkeywords = [\"jtok_\"]\n")
    git(repo, "add", ".gitleaks.toml")
    git(repo, "commit", "-q", "-m", "gitleaks config")
    stage(repo, {"notes.txt": f"the service key: {s.custom}\n"})
    reason = denial(hook("git commit -m notes", repo))
    assert "notes.txt:1 (jouet-test-token)" in reason
    no_secret_in(reason, s)


# -- what a commit takes -------------------------------------------------------------------------------


def test_git_add_in_the_same_call_is_scanned_before_it_stages(repo: Path, s: Secrets) -> None:
    write(repo, "config/prod.py", f'TOKEN = "{s.github}"\n')  # untracked, not staged
    reason = denial(hook("git add config/prod.py && git commit -m 'prod config'", repo))
    assert "config/prod.py:1 (github-pat)" in reason
    # Nothing was staged by the hook: the index is as it was.
    assert git(repo, "diff", "--cached", "--name-only") == ""
    # Staging another file commits only that one, and leaves the secret out: quiet.
    write(repo, "src/app.py", "x = 1\ny = 4\n")
    assert hook("git add src/app.py && git commit -m app", repo) is None


def test_git_add_of_a_tracked_file_after_cd_is_read_from_that_directory(repo: Path, s: Secrets) -> None:
    write(repo, "src/app.py", f"x = 1\ny = 2\napi_key = \"{s.generic}\"\n")  # tracked, changed, unstaged
    reason = denial(hook("cd src && git add app.py && git commit -m app", repo))
    assert "src/app.py:3 (generic-api-key)" in reason
    assert hook("cd src && git add ../README.md && git commit -m readme", repo) is None


def test_git_add_all_is_scanned_whole(repo: Path, s: Secrets) -> None:
    write(repo, "scratch/keys.txt", f"aws {s.aws}\n")
    # git-add-all denies `git add -A` on its own grounds; this is about what the commit would hold.
    reason = denial(hook("git add -A && git commit -m wip", repo, {"JOUET_RULES_DISABLE": "git-add-all"}))
    assert "scratch/keys.txt:1 (aws-access-token)" in reason


def test_commit_all_takes_every_tracked_change(repo: Path, s: Secrets) -> None:
    write(repo, "src/app.py", f"x = 1\nGH = '{s.github}'\n")  # modified, not staged
    assert hook("git commit -m 'staged only'", repo) is None  # nothing staged holds it
    for command in ("git commit -a -m wip", "git commit -am wip", "git commit --all -m wip"):
        reason = denial(hook(command, repo))
        assert "src/app.py:2 (github-pat)" in reason, command
    # A message that merely looks like -a is a message.
    assert hook("git commit -m -a", repo) is None


def test_commit_of_a_named_path_takes_it_from_the_work_tree(repo: Path, s: Secrets) -> None:
    write(repo, "src/app.py", f"x = 1\nGH = '{s.github}'\n")
    reason = denial(hook("git commit -m wip src/app.py", repo))
    assert "src/app.py:2 (github-pat)" in reason


def test_a_commit_in_another_repository_scans_that_one(repo: Path, tmp_path: Path, s: Secrets) -> None:
    other = make_repo(tmp_path / "other")
    git(other, "switch", "-q", "-c", "feature")
    stage(other, {"keys.py": f'AWS = "{s.aws}"\n'})
    for command in ("git -C ../other commit -m keys", "cd ../other && git commit -m keys",
                    f"git -C {other} commit -m keys"):
        reason = denial(hook(command, repo))
        assert "keys.py:1 (aws-access-token)" in reason, command
    assert hook("git commit -m here", repo) is None  # this repository has nothing staged


# -- pushes -----------------------------------------------------------------------------------------


def test_unpushed_commits_with_a_secret_deny_the_push(repo: Path, s: Secrets) -> None:
    stage(repo, {"deploy.sh": f"export GH={s.github}\n"})
    git(repo, "commit", "-q", "-m", "deploy script")
    sha = git(repo, "rev-parse", "HEAD").strip()
    stage(repo, {"src/app.py": "x = 1\ny = 5\n"})
    git(repo, "commit", "-q", "-m", "a clean commit on top")
    for command in ("git push origin feature", "git push -u origin HEAD", "git push"):
        reason = denial(hook(command, repo))
        assert "This push would send 1 secret" in reason, command
        assert f"deploy.sh:1 in commit {sha[:7]} (github-pat)" in reason
        assert f"`{sha}:deploy.sh:github-pat:1`" in reason
        assert "git rebase -i" in reason
        no_secret_in(reason, s)
    # A dry run or a deletion sends no commit.
    assert hook("git push --dry-run origin feature", repo) is None
    assert hook("git push origin --delete old", repo) is None


def test_a_push_of_clean_commits_is_quiet(repo: Path) -> None:
    stage(repo, {"src/app.py": "x = 1\ny = 6\n"})
    git(repo, "commit", "-q", "-m", "clean")
    assert hook("git push origin feature", repo) is None
    git(repo, "push", "-q", "origin", "feature")
    assert git(repo, "rev-parse", "origin/feature") == git(repo, "rev-parse", "HEAD")


def test_a_secret_already_on_the_remote_is_not_the_push_s(repo: Path, s: Secrets) -> None:
    stage(repo, {"old.py": f"token = '{s.github}'\n"})
    git(repo, "commit", "-q", "-m", "an old leak")
    git(repo, "push", "-q", "origin", "feature")  # it left long ago
    stage(repo, {"src/app.py": "x = 1\ny = 7\n"})
    git(repo, "commit", "-q", "-m", "clean")
    assert hook("git push origin feature", repo) is None


# -- cost, and scans that cannot run ---------------------------------------------------------------------


def counting_gitleaks(tmp_path: Path, repo: Path) -> tuple[dict[str, str], Path]:
    """Environment for a gitleaks that records each start in a log, then runs the real one.

    The pre-check reads gitleaks' default rules out of its binary, which a wrapper script does not
    hold, so the repository's config (committed and pushed: what every scan reads) is the default
    rules, written out.
    """
    from jouet_git.gitleaks.config import embedded_default

    real = binary.find_gitleaks()
    assert real is not None
    (repo / ".gitleaks.toml").write_text(embedded_default(real))
    git(repo, "add", ".gitleaks.toml")
    git(repo, "commit", "-q", "-m", "gitleaks config")
    git(repo, "push", "-q", "origin", "HEAD")
    log = tmp_path / "gitleaks.log"
    wrapper = tmp_path / "gitleaks"
    wrapper.write_text(f'#!/bin/sh\necho "$@" >> "{log}"\nexec "{real}" "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    return {"JOUET_GITLEAKS": str(wrapper)}, log


def starts(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_keyword_free_commits_never_start_gitleaks(repo: Path, tmp_path: Path, s: Secrets) -> None:
    env, log = counting_gitleaks(tmp_path, repo)
    stage(repo, {"src/app.py": "x = 1\ny = 8\n", "docs/guide.md": "# Guide\n\nRun the app.\n"})
    assert hook("git commit -m docs", repo, env) is None
    assert hook("git commit -am docs", repo, env) is None
    git(repo, "commit", "-q", "-m", "docs")
    assert hook("git push origin feature", repo, env) is None
    assert starts(log) == 0
    # A change with a keyword in it does start it, once per scan.
    stage(repo, {"cfg.py": f'GH = "{s.github}"\n'})
    denial(hook("git commit -m cfg", repo, env))
    assert starts(log) == 1


def test_keyword_free_commit_in_process_leaves_gitleaks_unstarted(repo: Path) -> None:
    from jouet_git import gitrun
    from jouet_git.engine.runner import Runner
    from jouet_git.harness.claude import call_from_payload, parse
    from jouet_git.probes import secrets

    stage(repo, {"src/app.py": "x = 1\ny = 9\n"})
    before = gitrun.COUNTS.get("gitleaks", 0)
    call = call_from_payload(parse(claude_payload("git commit -m nine", repo)), "pre")
    decision = Runner(record=False).decide(call)
    assert decision.deny is None and not decision.warnings and not decision.errors
    assert secrets.LAST.files == 1  # the scan did look at the change...
    assert secrets.LAST.gitleaks_ran is False  # ...and needed no gitleaks for it
    assert gitrun.COUNTS.get("gitleaks", 0) == before


def test_a_scan_that_cannot_run_warns_and_lets_the_commit_through(repo: Path, tmp_path: Path, s: Secrets) -> None:
    stage(repo, {"cfg.py": f'GH = "{s.github}"\n'})
    missing = tmp_path / "no-such-gitleaks"
    reply = hook("git commit -m cfg", repo, {"JOUET_GITLEAKS": str(missing)})
    assert reply is not None
    out = reply["hookSpecificOutput"]
    assert isinstance(out, dict)
    assert "permissionDecision" not in out
    context = out["additionalContext"]
    assert isinstance(context, str) and context.endswith(RULE)
    assert "could not scan" in context and "JOUET_GITLEAKS" in context


def test_outside_a_repository_it_says_nothing(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    assert hook("git commit -m x", plain) is None
    assert hook("git push", plain) is None


def test_the_hook_runs_the_probe_read_only(repo: Path, s: Secrets) -> None:
    write(repo, "new.py", f'GH = "{s.github}"\n')
    index = repo / ".git" / "index"
    before = (index.stat().st_mtime_ns, index.read_bytes())
    denial(hook("git add new.py && git commit -m new", repo))
    assert (index.stat().st_mtime_ns, index.read_bytes()) == before
    assert not (repo / ".git" / "index.lock").exists()
    assert "new.py" in git(repo, "status", "--porcelain")  # still untracked
    assert os.path.exists(repo / "new.py")


# -- the scan's git runs, started before the Lua VM (engine/read_ahead.py) -----------------------------


def git_runs(command: str, repo: Path, tmp_path: Path) -> tuple[dict[str, object] | None, list[str]]:
    """The hook's reply to COMMAND, and the git runs it started (their arguments, as logged)."""
    from testing.gitrules import write_git_wrapper

    log = tmp_path / "git.log"
    log.unlink(missing_ok=True)
    env = write_git_wrapper(tmp_path / "bin", log)
    reply = hook(command, repo, env)
    return reply, [line.split("\t", 1)[1] for line in log.read_text().splitlines()] if log.exists() else []


def test_a_commit_s_scan_runs_two_gits_once_each(repo: Path, tmp_path: Path, s: Secrets) -> None:
    # The scan begun before the VM starts is the one the script asks for: nothing runs twice, and
    # a plain commit reads where the work tree is from its files (no `git rev-parse`). HEAD's
    # allowlist files are read (`git cat-file`) only where the index holds one, or the staged diff
    # removes or renames one: else HEAD has none.
    stage(repo, {"src/app.py": "x = 1\ny = 8\n"})
    reply, runs = git_runs("git commit -m 'a clean change'", repo, tmp_path)
    assert reply is None
    assert [run.split(" --")[0].split()[-1] for run in runs] == ["diff"], runs
    stage(repo, {"deploy.sh": f"export GH={s.github}\n"})
    reply, runs = git_runs("git commit -m 'deploy script'", repo, tmp_path)
    assert "deploy.sh:1 (github-pat)" in denial(reply)
    assert len(runs) == 1, runs
    git(repo, "reset", "-q")
    stage(repo, {".gitleaksignore": "# nothing ignored yet\n"})
    git(repo, "commit", "-q", "-m", "an ignore file")
    stage(repo, {"src/app.py": "x = 1\ny = 9\n"})
    reply, runs = git_runs("git commit -m 'a clean change'", repo, tmp_path)
    assert reply is None
    assert sorted(run.split(" --")[0].split()[-1] for run in runs) == ["cat-file", "diff"], runs
    stage(repo, {"deploy.sh": f"export GH={s.github}\n"})
    reply, runs = git_runs("git commit -m 'deploy script'", repo, tmp_path)
    assert "deploy.sh:1 (github-pat)" in denial(reply)
    assert len(runs) == 2, runs


def test_a_push_s_scan_runs_each_git_once(repo: Path, tmp_path: Path, s: Secrets) -> None:
    stage(repo, {"deploy.sh": f"export GH={s.github}\n"})
    git(repo, "commit", "-q", "-m", "deploy script")
    reply, runs = git_runs("git push origin feature", repo, tmp_path)
    assert "This push would send 1 secret" in denial(reply)
    # The commits with their parents (the boundary is read from them) and the boundary's allowlists;
    # gitleaks itself then runs `git log` and `git ls-remote`.
    scan_runs = [run for run in runs if any(word in run for word in ("--format=%x00%H", "rev-list", "cat-file",
                                                                       "rev-parse"))]
    # (HEAD's tree, read from its loose objects, holds no allowlist file, and no outgoing commit adds
    # one: the boundary has none either, and no `git cat-file` runs)
    assert len(scan_runs) == 1, runs
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    stage(repo, {".gitleaksignore": "# nothing ignored yet\n"})
    git(repo, "commit", "-q", "-m", "an ignore file")
    git(repo, "push", "-q", "origin", "feature")
    stage(repo, {"deploy.sh": f"export GH={s.github}\n"})
    git(repo, "commit", "-q", "-m", "deploy script")
    reply, runs = git_runs("git push origin feature", repo, tmp_path)
    assert "This push would send 1 secret" in denial(reply)
    scan_runs = [run for run in runs if any(word in run for word in ("--format=%x00%H", "rev-list", "cat-file",
                                                                       "rev-parse"))]
    assert len(scan_runs) == 2 and len(set(scan_runs)) == 2, runs


@pytest.mark.parametrize("command", [
    "git commit -am 'all of it'",                  # the tracked scope, not the staged one
    "git add deploy.sh && git commit -m deploy",   # what the add stages is scanned too
    "cd src && git commit -m deploy",              # run elsewhere than the call's directory
    "git commit -m deploy -- deploy.sh",           # a pathspec: the file as it is in the work tree
])
def test_a_commit_the_read_ahead_does_not_fit_is_scanned_all_the_same(repo: Path, s: Secrets, command: str) -> None:
    # For these the script asks for another scan than the one begun early, which is abandoned.
    if "-am" in command:  # a tracked file changed, not staged
        stage(repo, {"deploy.sh": "echo hello\n"})
        git(repo, "commit", "-q", "-m", "the script")
    write(repo, "deploy.sh", f"export GH={s.github}\n")
    if "git add" not in command and "-am" not in command:
        git(repo, "add", "deploy.sh")
    assert "github-pat" in denial(hook(command, repo)), command
