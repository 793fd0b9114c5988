"""jouet.session.fired and jouet.ci.last_run: read from the ledger's end, within the probes' budget."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from testing import git, make_repo
from testing.ledger_rules import write_warn_then_deny

from jouet_git import ledger
from jouet_git.engine.examples import run_examples
from jouet_git.engine.load import load_file
from jouet_git.engine.model import USER
from jouet_git.probes.core import ProbeError, Probes
from jouet_git.probes.examples import ExampleProbes


def line(session: str | None, agent: str | None = None, rules: list[dict[str, str]] | None = None,
         records: list[dict[str, Any]] | None = None, event: str = "pre-tool-use", **extra: Any) -> dict[str, Any]:
    return {"v": 1, "ts": time.time(), "event": event, "session": session, "agent": agent, "harness": "claude",
            "rules": rules or [], "records": records or [], **extra}


def run(kind: str, ok: bool, wt: str | None, scope: str = "full", **extra: Any) -> dict[str, Any]:
    return {"kind": kind, "rule": "checks", "ok": ok, "exit_code": 0 if ok else 1, "scope": scope, "wt": wt,
            "tree": "t-" + kind, "shape": "pytest", **extra}


def test_fired_counts_the_sessions_own_agent_or_one_subagent(tmp_path: Path) -> None:
    probes = Probes(str(tmp_path))
    assert probes.session_fired("piped", "s1", None) == (None, "the hooks have recorded nothing yet (no ledger)")
    spoke = [{"rule": "piped", "action": "warn"}]
    for entry in (line("s1", None, spoke), line("s1", None, [{"rule": "piped", "action": "deny"}]),
                  line("s1", "sub-a", spoke), line("s2", None, spoke),
                  line("s1", None, [{"rule": "other", "action": "warn"}]),
                  line("s1", None, [{"rule": "piped", "action": "record"}]), line("s1", None, spoke, event="stop")):
        ledger.append(entry)
    probes = Probes(str(tmp_path))
    assert probes.session_fired("piped", "s1", None) == (2, None)
    assert probes.session_fired("piped", "s1", "sub-a") == (1, None)
    assert probes.session_fired("piped", "s3", None) == (0, None)
    assert probes.session_fired("nothing", "s1", None) == (0, None)
    with pytest.raises(ProbeError):
        probes.session_fired(3, "s1", None)  # type: ignore[arg-type]


def test_last_run_is_the_newest_of_this_work_tree(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    other = make_repo(tmp_path / "other")
    wt, elsewhere = ledger.root_hash(str(repo)), ledger.root_hash(str(other))
    probes = Probes(str(repo))
    assert probes.ci_last_run() == (None, "the hooks have recorded nothing yet (no ledger)")
    ledger.append(line("s", records=[run("test", False, wt)]))
    ledger.append(line("s", records=[run("test", True, wt, "partial", selector="-k a")]))
    ledger.append(line("s", records=[run("lint", True, wt), run("build", False, wt)]))
    ledger.append(line("s", records=[run("test", True, elsewhere)]))
    probes = Probes(str(repo))
    newest, _ = probes.ci_last_run()
    assert newest["kind"] == "build" and newest["ok"] is False
    test, _ = probes.ci_last_run("test")
    assert test["ok"] is True and test["scope"] == "partial" and test["selector"] == "-k a" and "ts" in test
    full, _ = probes.ci_last_run("test", "full")
    assert full["ok"] is False and full["tree"] == "t-test"
    assert Probes(str(other)).ci_last_run("lint") == (None, "no lint run recorded in this work tree")
    assert Probes(str(repo)).ci_last_run("test", None, str(other))[0]["ok"] is True  # dir: that work tree
    assert Probes(str(tmp_path)).ci_last_run() == (None, "not in a git repository")
    with pytest.raises(ProbeError):
        probes.ci_last_run("deploy")
    with pytest.raises(ProbeError):
        probes.ci_last_run("test", "most")


def test_reading_stops_at_the_probes_budget(tmp_path: Path) -> None:
    for _ in range(50):
        ledger.append(line("s1", None, [{"rule": "piped", "action": "warn"}]))
    probes = Probes(str(tmp_path), budget=5.0)
    probes.spend_all()
    count, reason = probes.session_fired("piped", "s1", None)
    assert count is None and reason is not None and reason.startswith("out of time")
    # A deadline that passes while reading ends the read: what was counted so far is the answer.
    from jouet_git.probes import ledger as reader

    assert reader.fired("piped", "s1", None, time.monotonic() - 1) == (0, None)
    assert reader.fired("piped", "s1", None, time.monotonic() + 60) == (50, None)


def test_examples_answer_fired_and_last_run() -> None:
    probes = ExampleProbes({"fired": 2, "runs": [{"kind": "lint", "ok": False}, {"ok": True, "scope": "full"}]}, "/x")
    assert probes.session_fired("any", "s", None) == (2, None)
    assert probes.ci_last_run()[0]["kind"] == "lint"
    assert probes.ci_last_run("test")[0] == {"kind": "test", "rule": "checks", "ok": True, "scope": "full",
                                             "exit_code": 0}
    assert probes.ci_last_run("build")[0] is None
    by_rule = ExampleProbes({"fired": {"piped": 1}}, "/x")
    assert by_rule.session_fired("piped", "s", None) == (1, None)
    assert by_rule.session_fired("other", "s", None) == (0, None)
    assert ExampleProbes({}, "/x").session_fired("piped", "s", None)[0] is None


def test_a_rule_of_mine_warns_once_then_denies_in_its_examples(tmp_path: Path) -> None:
    [rule] = load_file(str(write_warn_then_deny(tmp_path)), USER, USER)
    report = run_examples(rule)
    assert report.ok, [(r.label, r.actual) for r in report.results if not r.ok]


def test_record_carries_the_tree_and_the_work_tree(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    probes = Probes(str(repo))
    tree, wt = probes.record_place(None)
    assert tree == git(repo, "rev-parse", "HEAD^{tree}").strip()  # a clean work tree hashes as HEAD's tree
    assert wt == ledger.root_hash(str(repo))
    (repo / "a.txt").write_text("changed\n")
    assert Probes(str(repo)).record_place(None)[0] != tree
    assert Probes(str(tmp_path)).record_place(None) == (None, None)
