"""One failing source never silences the others.

Each test breaks one thing for real (a store, a cache, a folder, a scan), then runs the installed
`jouet hook claude pre` (or git's hook) and checks two things: the failure is said on stderr (and in
the session-start primer where there is one), and the other rules still decide.
"""

from __future__ import annotations

import json
import marshal
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from testing import claude_payload, git, make_repo, run_jouet

FORCE_PUSH = "git push --force origin main"


def hook(command: str, cwd: Path, event: str = "pre") -> subprocess.CompletedProcess[str]:
    proc = run_jouet("hook", "claude", event, input=claude_payload(command, cwd), cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return proc


def denial(proc: subprocess.CompletedProcess[str]) -> str:
    out: dict[str, Any] = json.loads(proc.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny", out
    return str(out["permissionDecisionReason"])


def still_denies_force_push(repo: Path) -> str:
    proc = hook(FORCE_PUSH, repo)
    assert denial(proc).endswith("[jouet rule: force-push]")
    return proc.stderr


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "repo", {"README.md": "hi\n", "src/app.py": "a = 1\n"})
    hook("ls", repo)  # the caches exist, as on any machine that ran a hook before
    return repo


def state(*parts: str) -> Path:
    return Path(os.environ["JOUET_STATE_DIR"], *parts)


def deep(directory: Path, levels: int = 1200) -> None:
    """A folder nested deeper than Python's recursion: reading it as a tree throws. Made (and later
    removed) one level at a time through directory descriptors, since its path is longer than a
    path may be."""
    directory.mkdir(parents=True, exist_ok=True)
    fd = os.open(directory, os.O_RDONLY)
    try:
        for _ in range(levels):
            os.mkdir("d", dir_fd=fd)
            below = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = below
    finally:
        os.close(fd)


def undeep(directory: Path) -> None:
    """Remove what deep() made, deepest first, without recursion."""
    fds = [os.open(directory, os.O_RDONLY)]
    try:
        while True:
            try:
                fds.append(os.open("d", os.O_RDONLY, dir_fd=fds[-1]))
            except FileNotFoundError:
                break
        while len(fds) > 1:
            os.close(fds.pop())
            os.rmdir("d", dir_fd=fds[-1])
    finally:
        for fd in fds:
            os.close(fd)


# -- corrupt stores -----------------------------------------------------------------------------------


def test_corrupt_trust_store(repo: Path) -> None:
    (repo / ".jouet" / "rules").mkdir(parents=True)
    (repo / ".jouet" / "rules" / "x.toml").write_text('[[rule]]\nname = "x"\n')
    state().mkdir(parents=True, exist_ok=True)
    state("trust.json").write_bytes(b"\xff\xfe not json")
    stderr = still_denies_force_push(repo)
    assert "trust file" in stderr and "could not be used" in stderr


def test_corrupt_claims_store(repo: Path) -> None:
    holder = subprocess.Popen(["sleep", "600"])
    try:
        claim = run_jouet("claim", "src/app.py", cwd=repo,
                          env={"JOUET_SESSION_ID": "other", "JOUET_AGENT_PID": str(holder.pid)})
        assert claim.returncode == 0, claim.stderr
        for store in state("claims").glob("*.json"):
            store.write_bytes(b"\x00\xff{broken")
        # A write makes the claimed-path rule read the claims: it says the store is damaged.
        proc = hook("echo x > src/app.py", repo)
        assert "claims store" in proc.stderr and "could not be used" in proc.stderr
        # In one call with a force push, the push is denied (the shape rule runs before any script).
        proc = hook(f"echo x > src/app.py; {FORCE_PUSH}", repo)
        assert denial(proc).endswith("[jouet rule: force-push]")
    finally:
        holder.kill()
        holder.wait()


def test_corrupt_rule_set_cache_junk_bytes(repo: Path) -> None:
    caches = list(Path(os.environ["JOUET_CACHE_DIR"], "rulesets").glob("*"))
    assert caches
    for cache in caches:
        cache.write_bytes(b"not marshal at all")
    still_denies_force_push(repo)


def test_corrupt_rule_set_cache_of_the_wrong_shape(repo: Path) -> None:
    caches = list(Path(os.environ["JOUET_CACHE_DIR"], "rulesets").glob("*.marshal"))
    assert caches
    for cache in caches:
        key = marshal.loads(cache.read_bytes())["key"]
        cache.write_bytes(marshal.dumps({"key": key, "deps": 5, "ruleset": None}))
    stderr = still_denies_force_push(repo)
    assert "rule-set cache" in stderr and "rebuilt" in stderr


def test_corrupt_config_toml(repo: Path) -> None:
    config = Path(os.environ["JOUET_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text('[rules]\ndisable = ["git-stash"\n[plugins.team\n')
    still_denies_force_push(repo)


def test_corrupt_plugin_pins(repo: Path) -> None:
    config = Path(os.environ["JOUET_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text('[plugins.team]\nsource = 5\nsha256 = ["not", "a", "hash"]\n')
    still_denies_force_push(repo)
    listing = run_jouet("rule", "list", cwd=repo)
    assert "plugins.team" in listing.stdout + listing.stderr


def stash_and_dirty(repo: Path) -> None:
    """A stash entry no branch keeps, and uncommitted work: reset-hard and stash-drop both have a say."""
    (repo / "src" / "app.py").write_text("a = 2\n")
    git(repo, "stash", "push", "-q", "-m", "keep")
    (repo / "README.md").write_text("changed\n")


def test_built_in_scripts_never_come_from_the_cache_directory(repo: Path) -> None:
    """Whatever an agent writes in jouet's cache, a built-in script rule runs as shipped."""
    stash_and_dirty(repo)
    assert denial(hook("git reset --hard", repo)).endswith("[jouet rule: reset-hard]")
    luau = Path(os.environ["JOUET_CACHE_DIR"], "luau")
    assert not list(luau.glob("*.lua")), "a built-in rule's translation was written to the cache"
    luau.mkdir(parents=True, exist_ok=True)
    (luau / "planted.lua").write_text('return { check = function() end }')
    assert denial(hook("git reset --hard", repo)).endswith("[jouet rule: reset-hard]")


def user_script_rules(*rules: tuple[str, str]) -> None:
    """Rules of the user's (NAME, SCRIPT BODY), each matching `git tag`, each with its script."""
    folder = Path(os.environ["JOUET_CONFIG_DIR"], "rules")
    folder.mkdir(parents=True, exist_ok=True)
    for name, body in rules:
        (folder / f"{name}.toml").write_text(
            f'[[rule]]\nname = "{name}"\nmode = "deny"\nwhy = "w"\nscript = "{name}.luau"\n'
            '[[rule.match]]\ncommand = "git tag"\n'
            '[rule.examples]\nfires = ["git tag v1"]\nquiet = ["git status"]\n')
        (folder / f"{name}.luau").write_text(body)


DENY_TAGS = 'return { check = function(call) return jouet.deny("no tags here") end }\n'


def test_a_damaged_translated_script_cache_is_made_again(repo: Path) -> None:
    user_script_rules(("no-tags", DENY_TAGS))
    assert denial(hook("git tag v1", repo)).endswith("[jouet rule: no-tags]")
    caches = list(Path(os.environ["JOUET_CACHE_DIR"], "luau").glob("*.lua"))
    assert caches  # the user's script was translated once and kept
    for cache in caches:
        cache.write_bytes(b"\xff not lua (")
    assert denial(hook("git tag v1", repo)).endswith("[jouet rule: no-tags]")


def test_a_script_rule_that_throws_is_reported_and_the_next_rule_decides(repo: Path) -> None:
    user_script_rules(("a-throws", 'return { check = function() error("broken") end }\n'),
                      ("b-no-tags", DENY_TAGS))
    proc = hook("git tag v1", repo)
    assert "a-throws failed and said nothing" in proc.stderr
    assert denial(proc).endswith("[jouet rule: b-no-tags]")


# -- folders and files that cannot be read ---------------------------------------------------------


def test_a_plugin_folder_that_cannot_be_read(repo: Path) -> None:
    config = Path(os.environ["JOUET_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text(
        f'[plugins.team]\nsource = "https://example.com/team-rules.git"\nrev = "v1"\nsha256 = "{"0" * 64}"\n')
    copy = Path(os.environ["JOUET_DATA_DIR"], "plugins", "user", "team")
    (copy / "rules").mkdir(parents=True)
    deep(copy)
    try:
        stderr = still_denies_force_push(repo)
        assert "your plugins" in stderr and "could not be read" in stderr
    finally:
        undeep(copy)


def test_a_repository_source_that_throws(repo: Path) -> None:
    (repo / ".jouet" / "rules").mkdir(parents=True)
    (repo / ".jouet" / "rules" / "x.toml").write_text('[[rule]]\nname = "x"\n')
    deep(repo / ".jouet")
    try:
        stderr = still_denies_force_push(repo)
        assert "RecursionError" in stderr and ".jouet" in stderr
        start = run_jouet("hook", "claude", "session-start", cwd=repo,
                          input=json.dumps({"session_id": "s", "cwd": str(repo), "hook_event_name": "SessionStart",
                                            "source": "startup"}))
        primer = json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"]
        assert "- force-push:" in primer  # the other rules still guard the session
        assert "jouet rules of its own that do not run" in primer or "could not be loaded" in primer
    finally:
        undeep(repo / ".jouet")


def test_a_rule_file_that_vanished(repo: Path) -> None:
    rules = Path(os.environ["JOUET_CONFIG_DIR"], "rules")
    rules.mkdir(parents=True)
    (rules / "gone.toml").symlink_to(rules / "deleted-since.toml")
    still_denies_force_push(repo)
    listing = run_jouet("rule", "list", cwd=repo)
    assert "gone.toml" in listing.stdout + listing.stderr


def test_a_fifo_named_like_a_rule_does_not_hang_the_hook(repo: Path) -> None:
    (repo / ".jouet" / "rules").mkdir(parents=True)
    os.mkfifo(repo / ".jouet" / "rules" / "wait.toml")
    rules = Path(os.environ["JOUET_CONFIG_DIR"], "rules")
    rules.mkdir(parents=True)
    (rules / "mine.toml").write_text('[[rule]]\nname = "mine"\nwhy = "w"\nscript = "mine.luau"\n'
                                     '[[rule.match]]\ncommand = "git"\n')
    os.mkfifo(rules / "mine.luau")
    still_denies_force_push(repo)


# -- a scan that fails ----------------------------------------------------------------------------------


def test_a_secret_scan_that_fails(repo: Path, tmp_path: Path) -> None:
    """The scanner breaks: committed-secrets says so, and the rules after it still decide."""
    broken = tmp_path / "gitleaks"
    broken.write_text("#!/bin/sh\necho 'gitleaks: panic: runtime error' >&2\nexit 2\n")
    broken.chmod(0o755)
    (repo / "creds.txt").write_text('aws_access_key_id = "AKIA' + 'QYLPMN5HHHFPZAM2"\n')
    git(repo, "add", "creds.txt")
    (repo / "README.md").write_text("uncommitted work\n")
    payload = claude_payload("git commit -m creds && git reset --hard", repo)
    proc = run_jouet("hook", "claude", "pre", input=payload, cwd=repo, env={"JOUET_GITLEAKS": str(broken)})
    assert proc.returncode == 0, proc.stderr
    reason = denial(proc)
    assert reason.endswith("[jouet rule: reset-hard]")
    assert "AKIA" not in proc.stdout + proc.stderr
