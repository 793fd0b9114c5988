"""Attacks on trust: hooks run exactly the bytes `jouet trust` showed and hashed, whatever the work
tree's `.jouet/` does meanwhile, and nothing a repository does stops the built-in or your rules.

Each test drives real `jouet` processes against real repositories; the swapper loops are real
threads rewriting files while those processes run.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from testing import git, make_repo, run_jouet

from jouet_git.trust import content as content_mod
from jouet_git.trust import snapshot


def rule(name: str, command: str, message: str, extra: str = "") -> str:
    return (f'[[rule]]\nname = "{name}"\nwhy = "{name} is for tests"\nmessage = "{message}"\n{extra}'
            f'[rule.match]\ncommand = "{command}"\n'
            f'[rule.examples]\nfires = ["{command} v1"]\nquiet = ["git log"]\n')


REVIEWED = rule("no-tags", "git tag", "Reviewed: tags are made by the release job.")
UNREVIEWED = rule("no-tags", "git tag", "UNREVIEWED bytes ran.")


def repo_with(tmp_path: Path, files: dict[str, str]) -> Path:
    return make_repo(tmp_path / "work", {"README.md": "hi\n", **files})


def check(cwd: Path, command: str) -> dict[str, Any]:
    proc = run_jouet("check", "--json", command, cwd=cwd)
    assert proc.returncode in (0, 1), proc.stderr
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


def deny_message(cwd: Path, command: str) -> str | None:
    data = check(cwd, command)
    return data["deny"]["message"] if data["deny"] else None


def records() -> dict[str, Any]:
    path = Path(os.environ["JOUET_STATE_DIR"]) / "trust.json"
    data: dict[str, Any] = json.loads(path.read_text())["repositories"]
    return data


class Swapper:
    """A thread that keeps replacing PATH with one of TEXTS in turn (atomically, by rename)."""

    def __init__(self, path: Path, texts: list[str]) -> None:
        self.path = path
        self.texts = texts
        self.stop = threading.Event()
        self.swaps = 0
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        tmp = self.path.with_name(".swap.tmp")
        while not self.stop.is_set():
            tmp.write_text(self.texts[self.swaps % len(self.texts)])
            os.replace(tmp, self.path)
            self.swaps += 1
            time.sleep(0.0005)

    def __enter__(self) -> Swapper:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()


@pytest.fixture
def trusted(tmp_path: Path) -> Iterator[Path]:
    work = repo_with(tmp_path, {".jouet/rules/tags.toml": REVIEWED})
    run_jouet("trust", "--yes", cwd=work, check=True)
    yield work


def test_a_swapper_loop_never_gets_unreviewed_bytes_run(trusted: Path) -> None:
    target = trusted / ".jouet/rules/tags.toml"
    with Swapper(target, [UNREVIEWED, REVIEWED]) as swapper:
        messages = {deny_message(trusted, "git tag v2") for _ in range(12)}
    assert swapper.swaps > 12
    assert messages == {"Reviewed: tags are made by the release job."}


def test_what_trust_shows_is_what_it_hashes_stores_and_runs(tmp_path: Path) -> None:
    work = repo_with(tmp_path, {".jouet/rules/tags.toml": REVIEWED})
    target = work / ".jouet/rules/tags.toml"
    key = os.path.realpath(work / ".git")
    texts = {"Reviewed: tags are made by the release job.": REVIEWED, "UNREVIEWED bytes ran.": UNREVIEWED}
    seen = set()
    with Swapper(target, [UNREVIEWED, REVIEWED]):
        for _ in range(6):
            run_jouet("trust", "--revoke", cwd=work, check=True)
            report = json.loads(run_jouet("trust", "--yes", "--json", cwd=work, check=True).stdout)
            assert report["action"] == "trusted"
            [shown] = [r["message"] for r in report["rules"]]
            seen.add(shown)
            record = records()[key]
            copy = snapshot.copy_of(key, record)
            assert copy is not None
            stored = (Path(copy) / ".jouet/rules/tags.toml").read_bytes()
            # shown == stored == hashed: the copy holds the bytes whose rule was shown ...
            assert stored == texts[shown].encode()
            assert record["files"]["rules/tags.toml"] == hashlib.sha256(stored).hexdigest()
            assert record["sha256"] == report["sha256"]
            assert snapshot.check(copy, record) == ""
            # ... and those are the bytes that run, whatever the work tree holds now.
            assert deny_message(work, "git tag v2") == shown
    assert seen <= set(texts)


def test_a_file_appearing_and_vanishing_never_crashes_a_hook(trusted: Path) -> None:
    rules = trusted / ".jouet/rules"
    stop = threading.Event()

    def churn() -> None:
        n = 0
        while not stop.is_set():
            path = rules / f"flicker-{n % 7}.toml"
            try:
                path.write_text(rule(f"flicker-{n % 7}", "ls", "x"))
                path.unlink()
            except OSError:
                pass
            n += 1

    thread = threading.Thread(target=churn, daemon=True)
    thread.start()
    try:
        for _ in range(8):
            # a built-in rule and the repository's trusted rule both still decide
            assert check(trusted, "git push --force origin main")["deny"]["rule"] == "force-push"
            assert deny_message(trusted, "git tag v3") == "Reviewed: tags are made by the release job."
            shown = run_jouet("trust", "--show", "--json", cwd=trusted)
            assert shown.returncode == 0 and "Traceback" not in shown.stderr
    finally:
        stop.set()
        thread.join()


def test_a_scan_never_raises_for_a_file_that_vanishes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = tmp_path / ".jouet" / "rules"
    base.mkdir(parents=True)
    (base / "a.toml").write_text("x")
    (base / "gone.toml").write_text("y")
    real_stat = os.stat

    def stat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        if str(path).endswith("gone.toml"):
            raise FileNotFoundError(2, "No such file or directory")
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(content_mod.os, "stat", stat)
    scanned = content_mod.scan(str(tmp_path / ".jouet"))
    assert scanned.files.keys() == {"rules/a.toml"}
    assert any("gone.toml vanished while jouet read" in r for r in scanned.refused)


def test_a_readme_a_pull_brings_does_not_switch_the_rules_off(trusted: Path) -> None:
    (trusted / ".jouet/rules/README.md").write_text("# our rules\n")
    assert deny_message(trusted, "git tag v1") == "Reviewed: tags are made by the release job."
    text = run_jouet("rule", "list", cwd=trusted).stdout
    assert ".jouet/rules/README.md added" in text and "the copy you trusted keeps running" in text


def test_files_under_a_nested_git_and_hidden_files_are_part_of_the_trust(tmp_path: Path) -> None:
    script_rule = rule("slow", "sleep", "x").replace('message = "x"\n', 'script = ".git/slow.luau"\n')
    script_rule = script_rule.replace('fires = ["sleep v1"]', 'fires = ["sleep 90"]')
    quiet = 'return { check = function(c) return nil end }\n'
    loud = 'return { check = function(c) return jouet.deny("the hidden script changed") end }\n'
    work = repo_with(tmp_path, {".jouet/rules/slow.toml": script_rule})
    (work / ".jouet/rules/.git").mkdir()
    (work / ".jouet/rules/.git/slow.luau").write_text(
        'return { check = function(c) if c.commands[1].argv[2] == "90" then return jouet.deny("sleeping") end end }\n')
    (work / ".jouet/rules/.hidden.luau").write_text(quiet)
    report = json.loads(run_jouet("trust", "--yes", "--json", cwd=work, check=True).stdout)
    assert {"rules/.git/slow.luau", "rules/.hidden.luau", "rules/slow.toml"} <= set(report["files"])
    assert deny_message(work, "sleep 90") == "sleeping"
    # Rewriting the script under .git/ is a change: announced, and the trusted script keeps running.
    (work / ".jouet/rules/.git/slow.luau").write_text(loud)
    assert deny_message(work, "sleep 90") == "sleeping"
    assert deny_message(work, "sleep 1") is None
    assert ".jouet/rules/.git/slow.luau changed" in run_jouet("rule", "list", cwd=work).stdout


def test_a_copy_changed_behind_jouets_back_does_not_run(trusted: Path) -> None:
    key = os.path.realpath(trusted / ".git")
    copy = snapshot.copy_of(key, records()[key])
    assert copy is not None
    (Path(copy) / ".jouet/rules/tags.toml").write_text(UNREVIEWED)
    assert deny_message(trusted, "git tag v1") is None
    text = run_jouet("rule", "list", cwd=trusted).stdout
    assert "changed behind jouet's back" in text
    # the built-in rules are untouched
    assert check(trusted, "git push --force origin main")["deny"]["rule"] == "force-push"


@pytest.mark.parametrize("damage", ["unreadable rules", "rules is a file", "a fifo", "huge file", "link loop"])
def test_a_repository_never_stops_the_builtin_or_your_rules(tmp_path: Path, damage: str) -> None:
    work = repo_with(tmp_path, {".jouet/rules/tags.toml": REVIEWED})
    run_jouet("trust", "--yes", cwd=work, check=True)
    mine = Path(os.environ["JOUET_CONFIG_DIR"]) / "rules"
    mine.mkdir(parents=True, exist_ok=True)
    (mine / "no-make.toml").write_text(rule("no-make", "make", "not make", 'mode = "deny"\n'))
    rules = work / ".jouet/rules"
    if damage == "unreadable rules":
        rules.chmod(0)
    elif damage == "rules is a file":
        (rules / "tags.toml").unlink()
        rules.rmdir()
        rules.write_text("not a directory")
    elif damage == "a fifo":
        os.mkfifo(rules / "pipe.toml")
    elif damage == "huge file":
        with open(rules / "big.toml", "wb") as f:
            f.truncate(content_mod.MAX_FILE + 10)
    else:
        os.symlink("loop", rules / "loop")
        os.symlink("loop", rules / "loop2")
    try:
        assert check(work, "git push --force origin main")["deny"]["rule"] == "force-push"
        assert check(work, "make v1")["deny"]["rule"] == "no-make"
        # and the trusted copy of the repository's own rules keeps running too
        assert deny_message(work, "git tag v1") == "Reviewed: tags are made by the release job."
        listed = run_jouet("rule", "list", cwd=work)
        assert listed.returncode == 0 and "Traceback" not in listed.stderr
    finally:
        if rules.is_dir():
            rules.chmod(0o755)


def test_an_old_record_without_a_copy_runs_nothing_and_says_to_trust_again(trusted: Path) -> None:
    path = Path(os.environ["JOUET_STATE_DIR"]) / "trust.json"
    data = json.loads(path.read_text())
    for record in data["repositories"].values():
        del record["copy"]
    path.write_text(json.dumps(data))
    assert deny_message(trusted, "git tag v1") is None
    listed = " ".join(run_jouet("rule", "list", cwd=trusted).stdout.split())  # notes are wrapped to the width
    assert "jouet kept no copy of what you trusted then" in listed
    run_jouet("trust", "--yes", cwd=trusted, check=True)
    assert deny_message(trusted, "git tag v1") == "Reviewed: tags are made by the release job."


def test_git_hooks_say_that_the_repository_rules_changed(trusted: Path) -> None:
    (trusted / ".jouet/rules/tags.toml").write_text(UNREVIEWED)
    git(trusted, "add", "README.md")
    proc = run_jouet("hook", "git", "pre-commit", cwd=trusted)
    assert proc.returncode == 0, proc.stderr
    assert "jouet: note: the repository's .jouet/ changed since you trusted it" in proc.stderr


def test_revoke_removes_the_copy(trusted: Path) -> None:
    key = os.path.realpath(trusted / ".git")
    copy = snapshot.copy_of(key, records()[key])
    assert copy is not None and os.path.isdir(copy)
    run_jouet("trust", "--revoke", cwd=trusted, check=True)
    assert not os.path.exists(copy)


def test_rule_test_all_never_runs_an_untrusted_repositorys_scripts(tmp_path: Path) -> None:
    # The script cannot write files (the sandbox has no io): it would show it ran by denying.
    script = 'return { check = function(c) return jouet.deny("the untrusted script ran") end }\n'
    script_rule = rule("sneaky", "ls", "x").replace('message = "x"\n', 'script = "sneaky.luau"\n')
    work = repo_with(tmp_path, {".jouet/rules/sneaky.toml": script_rule, ".jouet/rules/sneaky.luau": script,
                                ".jouet/rules/tags.toml": REVIEWED})
    everything = run_jouet("rule", "test", "--all", "--json", cwd=work)
    results = {r["rule"]: r for r in json.loads(everything.stdout)}
    assert "not tested: its script" in results["sneaky"]["skipped"]
    assert "examples" not in results["sneaky"]
    text = run_jouet("rule", "test", "--all", cwd=work).stdout
    assert "skip sneaky: not tested: its script" in text and "untrusted script rule not tested" in text
    for how in (["sneaky"], [str(work / ".jouet/rules/sneaky.toml")], ["sneaky", "--command", "ls"]):
        proc = run_jouet("rule", "test", *how, cwd=work)
        assert proc.returncode != 0 and "not tested: its script" in proc.stderr, how
        assert "the untrusted script ran" not in proc.stdout + proc.stderr
    # once trusted, its examples run like any rule's
    run_jouet("trust", "--yes", cwd=work, check=True)
    trusted = {r["rule"]: r for r in json.loads(run_jouet("rule", "test", "--all", "--json", cwd=work).stdout)}
    assert "skipped" not in trusted["sneaky"]


@pytest.mark.parametrize("garbage", [b"[" * 100_000, b"\xff\xfe", b'{"format": 1, "repositories": {"k": 5}}'])
def test_a_damaged_trust_file_never_crashes_and_trusts_nothing(trusted: Path, garbage: bytes) -> None:
    (Path(os.environ["JOUET_STATE_DIR"]) / "trust.json").write_bytes(garbage)
    assert deny_message(trusted, "git tag v1") is None
    assert check(trusted, "git push --force origin main")["deny"]["rule"] == "force-push"
    shown = run_jouet("trust", "--show", cwd=trusted)
    assert shown.returncode == 0 and "Traceback" not in shown.stderr
