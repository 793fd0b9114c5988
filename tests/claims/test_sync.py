"""`jouet claim sync` between two clones of a local bare remote (standing in for a shared server).

Each clone plays a machine: its own JOUET_MACHINE_ID and its own state directory.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest
from testing import git, make_repo, run_jouet

from jouet_git.claims import sync
from jouet_git.claims.repo import find

REF = "refs/jouet/claims"


class Machine:
    """One clone with its own machine id and state directory."""

    def __init__(self, root: Path, machine: str, state: Path) -> None:
        self.root = root
        self.machine = machine
        self.state = state

    def env(self, session: str | None = None) -> dict[str, str]:
        env = {"JOUET_MACHINE_ID": self.machine, "JOUET_STATE_DIR": str(self.state),
               "JOUET_AGENT_PID": str(os.getpid())}
        if session:
            env["JOUET_SESSION_ID"] = session
        return env

    def jouet(self, *args: str, session: str | None = None) -> subprocess.CompletedProcess[str]:
        return run_jouet("claim", *args, cwd=self.root, env=self.env(session))

    def ls(self) -> list[dict[str, Any]]:
        proc = self.jouet("ls", "--json")
        assert proc.returncode == 0, proc.stderr
        rows: list[dict[str, Any]] = json.loads(proc.stdout)
        return rows


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    seed = make_repo(tmp_path / "seed", {"README.md": "x\n", "src/a.py": "a\n", "docs/d.md": "d\n"})
    bare = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(bare))
    git(bare, "config", "receive.denyNonFastForwards", "true")  # a force push would fail loudly
    return bare


@pytest.fixture
def machines(tmp_path: Path, remote: Path) -> tuple[Machine, Machine]:
    out = []
    for name in ("mA", "mB"):
        root = tmp_path / f"clone-{name}"
        git(tmp_path, "clone", "-q", str(remote), str(root))
        out.append(Machine(root, name, tmp_path / f"state-{name}"))
    return out[0], out[1]


def remote_tree(remote: Path) -> dict[str, dict[str, Any]]:
    """The machine files on the remote's claims ref."""
    files = {}
    for line in git(remote, "ls-tree", "--name-only", REF).split():
        files[line] = json.loads(git(remote, "show", f"{REF}:{line}"))
    return files


def snapshot(repo: Path) -> dict[str, Any]:
    """Everything of a clone that a sync must leave as it was."""
    dot = repo / ".git"
    refs = [line for line in git(repo, "for-each-ref", "--format=%(refname) %(objectname)").splitlines()
            if not line.startswith("refs/jouet/")]
    return {
        "refs": refs,
        "HEAD": (dot / "HEAD").read_text(),
        "index": hashlib.sha256((dot / "index").read_bytes()).hexdigest(),
        "config": (dot / "config").read_text(),
        "status": git(repo, "status", "--porcelain", "--ignored"),
        "FETCH_HEAD": (dot / "FETCH_HEAD").exists(),
        "stash": git(repo, "stash", "list"),
    }


def test_claims_travel_between_machines(machines: tuple[Machine, Machine], remote: Path) -> None:
    a, b = machines
    assert a.jouet("src/", "--note", "parser", session="alice").returncode == 0
    proc = a.jouet("sync")
    assert proc.returncode == 0, proc.stderr
    assert "published 1 claim of this machine (mA) to origin" in proc.stdout
    assert set(remote_tree(remote)) == {"mA.json"}
    [published] = remote_tree(remote)["mA.json"]["claims"]
    assert published["pattern"] == "src/" and published["session"] == "alice"
    assert "pid" not in published  # a pid means nothing on another machine

    assert b.jouet("docs/", session="bob").returncode == 0
    proc = b.jouet("sync")
    assert proc.returncode == 0, proc.stderr
    assert "read 1 live claim of 1 other machine: mA" in proc.stdout
    assert set(remote_tree(remote)) == {"mA.json", "mB.json"}
    rows = {r["pattern"]: r for r in b.ls()}
    assert rows["src/"]["machine"] == "mA" and rows["src/"]["session"] == "alice"
    assert rows["docs/"]["machine"] is None

    # Claiming on B what A holds is refused like a local claim, naming the machine.
    proc = b.jouet("src/a.py", session="bob")
    assert proc.returncode == 1
    assert "on machine mA" in proc.stderr and "parser" in proc.stderr
    # The probe on B sees A's claim with its machine.
    from jouet_git.claims.probe import held

    os.environ["JOUET_STATE_DIR"] = str(b.state)  # the autouse fixture restores it
    hits = held(["src/a.py"], str(b.root)) or []
    assert [(h["session"], h["machine"]) for h in hits] == [("alice", "mA")]

    # A reads B's claim, then releases its own; after both sync again, B no longer sees it.
    assert a.jouet("sync").returncode == 0
    assert {r["pattern"]: r["machine"] for r in a.ls()} == {"src/": None, "docs/": "mB"}
    assert a.jouet("release", session="alice").returncode == 0
    assert a.jouet("sync").returncode == 0
    assert set(remote_tree(remote)) == {"mB.json"}  # no live claims: A's file is gone
    assert b.jouet("sync").returncode == 0
    assert [r["pattern"] for r in b.ls()] == ["docs/"]
    assert b.jouet("src/a.py", session="bob").returncode == 0


def test_an_unchanged_sync_pushes_nothing(machines: tuple[Machine, Machine], remote: Path) -> None:
    a, _ = machines
    assert a.jouet("src/", session="alice").returncode == 0
    assert a.jouet("sync").returncode == 0
    tip = git(remote, "rev-parse", REF)
    proc = a.jouet("sync", "--json")
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["pushed"] is False
    assert git(remote, "rev-parse", REF) == tip


def test_sync_changes_nothing_but_its_own_refs(machines: tuple[Machine, Machine]) -> None:
    a, b = machines
    (a.root / "wip.txt").write_text("uncommitted\n")
    git(a.root, "add", "wip.txt")
    (a.root / "README.md").write_text("edited\n")
    assert a.jouet("src/", session="alice").returncode == 0
    assert b.jouet("docs/", session="bob").returncode == 0
    assert b.jouet("sync").returncode == 0
    before = snapshot(a.root)
    assert a.jouet("sync").returncode == 0
    assert snapshot(a.root) == before
    own = git(a.root, "for-each-ref", "--format=%(refname)", "refs/jouet/").split()
    assert own == ["refs/jouet/remotes/origin/claims"]


def test_a_concurrent_update_is_never_overwritten(
    machines: tuple[Machine, Machine], remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """B syncs between A's fetch and A's push: A's push is rejected, and A builds again on B's."""
    a, b = machines
    assert a.jouet("src/", session="alice").returncode == 0
    assert b.jouet("docs/", session="bob").returncode == 0
    monkeypatch.setenv("JOUET_MACHINE_ID", a.machine)
    monkeypatch.setenv("JOUET_STATE_DIR", str(a.state))
    raced: list[bool] = []

    def other_machine_pushes() -> None:
        if not raced:
            raced.append(True)
            proc = b.jouet("sync")
            assert proc.returncode == 0, proc.stderr

    repo = find(str(a.root))
    assert repo is not None
    result = sync.sync(repo, before_push=other_machine_pushes)
    assert result.attempts == 2
    assert result.pushed
    assert set(remote_tree(remote)) == {"mA.json", "mB.json"}
    assert [c.session for c in result.others] == ["bob"]
    # History on the ref is a line: each commit has the previous one as its parent.
    assert git(remote, "rev-list", "--min-parents=2", REF) == ""
    assert git(remote, "rev-list", "--count", REF).strip() == "2"


def test_racing_syncs_keep_both_machines(machines: tuple[Machine, Machine], remote: Path) -> None:
    a, b = machines
    assert a.jouet("src/", session="alice").returncode == 0
    assert b.jouet("docs/", session="bob").returncode == 0
    for round_ in range(8):
        if round_ % 2:
            git(remote, "update-ref", "-d", REF)  # also race to create the ref
        for machine, session in ((a, "alice"), (b, "bob")):  # change each file, so both must push
            assert machine.jouet(f"round{round_}/", session=session).returncode == 0
        barrier = threading.Barrier(2)
        results: dict[str, subprocess.CompletedProcess[str]] = {}
        threads = [threading.Thread(target=_sync_when_ready, args=(m, barrier, results)) for m in (a, b)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=300)
        for name, proc in results.items():
            assert proc.returncode == 0, (name, proc.stderr)
        tree = remote_tree(remote)
        assert set(tree) == {"mA.json", "mB.json"}, round_
        assert f"round{round_}/" in {c["pattern"] for c in tree["mA.json"]["claims"]}
        assert f"round{round_}/" in {c["pattern"] for c in tree["mB.json"]["claims"]}
        assert git(remote, "rev-list", "--min-parents=2", REF) == ""


def _sync_when_ready(
    machine: Machine, barrier: threading.Barrier, results: dict[str, subprocess.CompletedProcess[str]]
) -> None:
    barrier.wait()
    results[machine.machine] = machine.jouet("sync", "--json")


def test_expired_machines_are_tidied_away(machines: tuple[Machine, Machine], remote: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    from jouet_git.claims import actions, sync

    a, b = machines
    assert a.jouet("src/", "--for", "30m", session="alice").returncode == 0
    assert a.jouet("sync").returncode == 0
    assert set(remote_tree(remote)) == {"mA.json"}
    assert b.jouet("docs/", session="bob").returncode == 0
    # An hour later (the test sets the sync's clock, no waiting): alice's claim has expired, and
    # B's sync publishes its own file and tidies A's away.
    for name, value in b.env().items():
        monkeypatch.setenv(name, value)
    sync.sync(actions.open_repo(str(b.root)), now=time.time() + 3600)
    assert set(remote_tree(remote)) == {"mB.json"}


def test_default_remote_and_errors(machines: tuple[Machine, Machine], tmp_path: Path) -> None:
    a, _ = machines
    git(a.root, "remote", "rename", "origin", "upstream")
    git(a.root, "config", "--unset", "branch.main.remote")
    proc = a.jouet("sync")
    assert proc.returncode == 2
    assert "no remote named 'origin'" in proc.stderr
    git(a.root, "config", "branch.main.remote", "upstream")
    assert a.jouet("sync").returncode == 0
    proc = a.jouet("sync", str(tmp_path / "missing.git"))
    assert proc.returncode == 2
    assert "cannot reach remote" in proc.stderr


def test_a_remote_given_as_a_path(machines: tuple[Machine, Machine], remote: Path) -> None:
    a, _ = machines
    assert a.jouet("src/", session="alice").returncode == 0
    assert a.jouet("sync", str(remote)).returncode == 0
    assert set(remote_tree(remote)) == {"mA.json"}
    assert git(a.root, "for-each-ref", "--format=%(refname)", "refs/jouet/").startswith(
        "refs/jouet/remotes/url-")


def test_a_stranger_file_on_the_ref_is_left_alone(machines: tuple[Machine, Machine], remote: Path) -> None:
    a, b = machines
    assert a.jouet("src/", session="alice").returncode == 0
    assert a.jouet("sync").returncode == 0
    # Someone adds a file that is no claims file.
    blob = git(remote, "hash-object", "-w", "--stdin", input="not json").strip()
    tree_text = git(remote, "ls-tree", REF) + f"100644 blob {blob}\tnotes.json\n"
    tree = git(remote, "mktree", input=tree_text).strip()
    parent = git(remote, "rev-parse", REF).strip()
    commit = git(remote, "commit-tree", tree, "-p", parent, "-m", "stranger").strip()
    git(remote, "update-ref", REF, commit, parent)
    assert b.jouet("docs/", session="bob").returncode == 0
    proc = b.jouet("sync")
    assert proc.returncode == 0
    assert "skipped notes.json" in proc.stderr
    assert set(remote_tree_names(remote)) == {"mA.json", "mB.json", "notes.json"}


def remote_tree_names(remote: Path) -> list[str]:
    return git(remote, "ls-tree", "--name-only", REF).split()


def test_machine_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    from jouet_git.claims import machine

    monkeypatch.setenv("JOUET_MACHINE_ID", "build-box-7")
    assert machine.machine_id() == "build-box-7"
    monkeypatch.delenv("JOUET_MACHINE_ID")
    derived = machine.machine_id()
    raw = Path("/etc/machine-id").read_text().strip() if Path("/etc/machine-id").exists() else ""
    if raw:
        # Published only as an application-specific digest, never the raw id.
        assert derived != raw and len(derived) == 16
        assert derived == hashlib.sha256(f"jouet-claims:{raw}".encode()).hexdigest()[:16]
    else:
        assert derived == machine.host()
    assert machine.file_name("mA") == "mA.json"
    odd = machine.file_name("../../etc/passwd")
    assert odd.startswith("m-") and "/" not in odd
