"""Many rules of your own cost a call little: a call is matched only against the rules that name its
programs, and after one rule file is edited only that file is read again, and no rule's matchers are
made until a call could match it (bench/rules_bench.py times both)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from testing import make_repo

from jouet_git import paths
from jouet_git.engine import build, model, settle
from jouet_git.engine import ruleset as ruleset_module
from jouet_git.engine import sealed as sealed_module
from jouet_git.engine.ruleset import load_root
from jouet_git.engine.runner import Runner
from jouet_git.harness.manual import build_call

RULES, PER_FILE = 200, 20


def _rule(n: int, edit: int = 0) -> str:
    return (f'[[rule]]\nname = "tool-{n}-flags"\nwhy = "bench rule {n}"\nauthor = "me"\ncreated = "2026-12-01"\n'
            f'message = "Run tool-{n} without --force ({edit})."\n'
            f'[[rule.match]]\ncommand = ["tool-{n} deploy"]\nflags = ["--force"]\n')


def _write(directory: Path, first: int, edit: int = 0) -> None:
    text = "\n".join(_rule(n, edit if n == first else 0) for n in range(first, first + PER_FILE))
    (directory / f"team-{first:04d}.toml").write_text(text)


def _with_rules(tmp_path: Path) -> tuple[Path, Path]:
    """A repository, and your rules directory holding the RULES rules, PER_FILE to a file."""
    repo = make_repo(tmp_path / "r")
    rules = Path(paths.user_rules_dir())
    rules.mkdir(parents=True)
    for first in range(0, RULES, PER_FILE):
        _write(rules, first)
    return repo, rules


def _count(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str, counts: dict[str, int]) -> None:
    original = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        counts[name] = counts.get(name, 0) + 1
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)


def test_an_edit_reads_one_file_again_and_makes_no_matcher(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo, rules = _with_rules(tmp_path)
    assert len([r for r in load_root(str(repo)).rules if r.name.startswith("tool-")]) == RULES
    _write(rules, 100, edit=1)
    counts: dict[str, int] = {}
    _count(monkeypatch, settle, "load_text", counts)
    _count(monkeypatch, model.Matcher, "__init__", counts)
    ruleset = load_root(str(repo))
    assert counts == {"load_text": 1}, counts  # the edited file, and no matcher of any rule
    edited = ruleset.get("tool-100-flags")
    assert edited is not None and edited.message == "Run tool-100 without --force (1)."


def test_a_call_meets_only_the_rules_for_its_programs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo, _rules = _with_rules(tmp_path)
    runner = Runner(record=False)
    status = build_call("git status", str(repo), None, None)
    ruleset = runner.ruleset_for(status)
    candidates = ruleset.candidates({c.program for c in status.commands})
    assert candidates and not [r.name for r in candidates if r.name.startswith("tool-")]
    assert runner.decide(status).action is None
    deploy = runner.decide(build_call("tool-42 deploy --force", str(repo), None, None))
    assert deploy.warnings and deploy.warnings[0].rule == "tool-42-flags"  # a rule of yours warns


def _view(ruleset: Any) -> list[tuple[Any, ...]]:
    """What a rule set decides with: each rule's name, file, state, error, message, in load order, and
    the order the rules for tool-5 and for every program run in."""
    rules = [(r.name, r.file, r.line, r.state, r.state_detail, r.error, r.message, r.only_warns)
             for r in ruleset.rules]
    chosen = [r.name for r in ruleset.candidates({"tool-5", "tool-150", "git"})]
    return [*rules, tuple(chosen), tuple(r.name for r in ruleset.broken())]


def _first_load(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Load the rules once and cache them, as if every file had been written long before (a file
    changed within two seconds of a build keeps a cache from being written at all)."""
    with monkeypatch.context() as m:
        m.setattr(ruleset_module, "RACY_NS", 0)
        load_root(str(repo))


def _fresh(repo: Path) -> list[tuple[Any, ...]]:
    return _view(load_root(str(repo), use_cache=False))


def test_an_edit_is_patched_in_without_reading_the_other_files(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    repo, rules = _with_rules(tmp_path)
    _first_load(repo, monkeypatch)
    counts: dict[str, int] = {}
    _count(monkeypatch, settle, "load_text", counts)
    _count(monkeypatch, build, "build_outside", counts)
    _count(monkeypatch, settle, "read_regular", counts)
    # A rule that gains a script-free twin, one that loses its examples (it only warns), another message.
    edited = rules / "team-0100.toml"
    edited.write_text(_rule(100, 1) + _rule(1000) + _rule(101).replace('command = ["tool-101 deploy"]',
                                                                         'command = ["tool-150 deploy"]'))
    patched = load_root(str(repo))
    assert counts == {"load_text": 1, "read_regular": 1}, counts  # one file read, nothing built
    rule = patched.get("tool-100-flags")
    assert rule is not None and rule.message == "Run tool-100 without --force (1)."
    assert patched.get("tool-102-flags") is None and patched.get("tool-1000-flags") is not None
    assert [r.name for r in patched.candidates({"tool-150"}) if r.name.startswith("tool-")] == [
        "tool-101-flags", "tool-150-flags"]
    assert _view(patched) == _fresh(repo)
    # The patched set was written back: the next call reads no rule file at all.
    counts.clear()
    again = load_root(str(repo))
    assert counts == {}, counts
    assert _view(again) == _fresh(repo)
    # As many rules as before, one of them now for another program: only that program's entry moves.
    counts.clear()
    edited.write_text(_rule(100, 1) + _rule(1000).replace('"tool-1000 deploy"', '"tool-5 deploy"') + _rule(101))
    moved = load_root(str(repo))
    assert counts == {"load_text": 1, "read_regular": 1}, counts
    assert [r.name for r in moved.candidates({"tool-5"}) if r.name.startswith("tool-")] == [
        "tool-5-flags", "tool-1000-flags"]
    assert not [r for r in moved.candidates({"tool-1000"}) if r.name.startswith("tool-")]
    assert [r.name for r in moved.candidates({"tool-150"}) if r.name.startswith("tool-")] == ["tool-150-flags"]
    assert _view(moved) == _fresh(repo)


def test_an_edit_that_takes_another_rule_s_name_builds_everything_again(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    repo, rules = _with_rules(tmp_path)
    _first_load(repo, monkeypatch)
    counts: dict[str, int] = {}
    _count(monkeypatch, build, "build_outside", counts)
    # team-0040 now also holds a rule named as one of team-0180's: that later rule stops loading.
    (rules / "team-0040.toml").write_text(_rule(40) + _rule(185))
    ruleset = load_root(str(repo))
    assert counts == {"build_outside": 1}, counts
    later = [r for r in ruleset.rules if r.name == "tool-185-flags"]
    assert [r.state for r in later] == [model.ENABLED, model.BROKEN], [r.error for r in later]
    assert _view(ruleset) == _fresh(repo)
    # Giving the name back is patched in no more than taking it was: the later rule loads again.
    (rules / "team-0040.toml").write_text(_rule(40))
    assert _view(load_root(str(repo))) == _fresh(repo)
    assert [r.state for r in load_root(str(repo)).rules if r.name == "tool-185-flags"] == [model.ENABLED]


def test_a_broken_edit_and_a_name_taken_by_a_builtin_rule_are_patched_as_built(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo, rules = _with_rules(tmp_path)
    _first_load(repo, monkeypatch)
    (rules / "team-0060.toml").write_text(_rule(60) + "[[rule]\nname = 'oops'\n")
    broken = load_root(str(repo))
    assert _view(broken) == _fresh(repo) and any(r.file.endswith("team-0060.toml") for r in broken.broken())
    (rules / "team-0060.toml").write_text(_rule(60).replace("tool-60-flags", "git-add-all"))
    taken = load_root(str(repo))
    assert _view(taken) == _fresh(repo)
    mine = [r for r in taken.rules if r.name == "git-add-all" and r.source == model.USER]
    assert mine and mine[0].state == model.BROKEN and "is taken by" in (mine[0].error or "")
    builtin = [r for r in taken.rules if r.name == "git-add-all" and r.source == model.BUILTIN]
    assert builtin and builtin[0].state == model.ENABLED


def test_a_file_added_or_config_changed_builds_everything_again(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    repo, rules = _with_rules(tmp_path)
    _first_load(repo, monkeypatch)
    counts: dict[str, int] = {}
    _count(monkeypatch, build, "build_outside", counts)
    _write(rules, 500)
    assert load_root(str(repo)).get("tool-500-flags") is not None and counts == {"build_outside": 1}
    Path(paths.config_file()).write_text('[rules]\ndisable = ["tool-3-flags"]\n')
    with monkeypatch.context() as m:
        m.setattr(ruleset_module, "RACY_NS", 0)  # cached, as if config.toml was written long ago
        rule = load_root(str(repo)).get("tool-3-flags")
    assert rule is not None and rule.state == model.DISABLED and counts == {"build_outside": 2}
    # An edit patched in keeps what config.toml turns off.
    _write(rules, 0, edit=4)
    rule = load_root(str(repo)).get("tool-3-flags")
    assert counts == {"build_outside": 2}
    assert rule is not None and rule.state == model.DISABLED
    assert _view(load_root(str(repo))) == _fresh(repo)


def test_edits_within_one_timestamp_tick_are_never_missed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file patched in moments after its edit keeps the hash of what was parsed: a second edit whose
    stat signature comes out the same (one timestamp tick, same size; made here by giving the cache the
    file's new signature) is still seen."""
    import marshal

    repo, rules = _with_rules(tmp_path)
    with monkeypatch.context() as m:
        m.setattr(ruleset_module, "RACY_NS", 0)
        load_root(str(repo))
    file = str(rules / "team-0020.toml")
    _write(rules, 20, edit=1)
    rule = load_root(str(repo)).get("tool-20-flags")
    assert rule is not None and rule.message.endswith("(1).")
    _write(rules, 20, edit=2)
    [cache] = (Path(os.environ["JOUET_CACHE_DIR"]) / "rulesets").glob("set-*.marshal")
    data = marshal.loads(cache.read_bytes())
    assert data["digests"][file] is not None  # racy: its content hash is kept
    data["sigs"] = ruleset_module.pack_sigs([ruleset_module.signature(p) if p == os.fsencode(file) else sig for p, sig
                                             in zip(data["paths"], marshal.loads(data["sigs"]), strict=True)])
    cache.write_bytes(marshal.dumps(data))
    rule = load_root(str(repo)).get("tool-20-flags")
    assert rule is not None and rule.message.endswith("(2).")


def test_a_hash_kept_for_a_recent_edit_is_dropped_once_the_edit_is_old(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Once a file proved unchanged by its content and its signature is no longer recent, later calls
    stat it only: 1,000 files written just before the first call are not hashed on every call after."""
    repo, rules = _with_rules(tmp_path)
    _first_load(repo, monkeypatch)
    _write(rules, 20, edit=1)
    load_root(str(repo))  # patched in moments after the edit: its hash is kept
    counts: dict[str, int] = {}
    _count(monkeypatch, ruleset_module, "content_hash", counts)
    load_root(str(repo))
    assert counts == {"content_hash": 1}, counts
    monkeypatch.setattr(ruleset_module, "RACY_NS", 0)  # as if two seconds went by
    load_root(str(repo))
    assert counts == {"content_hash": 2}, counts
    rule = load_root(str(repo)).get("tool-20-flags")
    assert counts == {"content_hash": 2}, counts  # no hash any more
    assert rule is not None and rule.message.endswith("(1).")
    _write(rules, 20, edit=2)  # and an edit after that is still seen
    rule = load_root(str(repo)).get("tool-20-flags")
    assert rule is not None and rule.message.endswith("(2).")


def test_a_cache_claiming_another_file_is_one_of_yours_is_not_believed(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Only files directly in your rules directory are patched in, whatever the cache file says."""
    import marshal

    repo, _rules = _with_rules(tmp_path)
    config = Path(paths.config_file())
    config.write_text("# nothing yet\n")
    _first_load(repo, monkeypatch)
    [cache] = (Path(os.environ["JOUET_CACHE_DIR"]) / "rulesets").glob("set-*.marshal")
    data = marshal.loads(cache.read_bytes())
    info = marshal.loads(data["patch"])
    info["spans"][str(config)] = (0, 0)
    data["patch"] = marshal.dumps(info)
    cache.write_bytes(marshal.dumps(data))
    counts: dict[str, int] = {}
    _count(monkeypatch, build, "build_outside", counts)
    config.write_text('[rules]\ndisable = ["tool-7-flags"]\n')
    rule = load_root(str(repo)).get("tool-7-flags")
    assert counts == {"build_outside": 1} and rule is not None and rule.state == model.DISABLED


def test_a_call_no_rule_of_yours_could_match_decodes_none_of_them(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The cached segment keeps its rules sealed (one body, one index string): `git status` looks its
    programs up in the index and never decodes the body; a call of tool-42 does, and meets its rule."""
    repo, _rules = _with_rules(tmp_path)
    _first_load(repo, monkeypatch)
    opened: list[int] = []
    original = ruleset_module.Segment.opened

    def counted(self: ruleset_module.Segment) -> ruleset_module.Segment:
        if self._body is not None:
            opened.append(len(self))
        return original(self)

    monkeypatch.setattr(ruleset_module.Segment, "opened", counted)
    ruleset = load_root(str(repo))
    assert ruleset.segments[1].index.__class__ is str  # sealed, as the cache keeps it
    assert not [r for r in ruleset.candidates({"git", "tool-1000", "tool-", "ool-42", "tool-42 deploy", ""})
                if r.name.startswith("tool-")]
    assert not ruleset.has_notices() and not ruleset.broken()
    assert opened == [], opened
    assert [r.name for r in ruleset.candidates({"tool-42"}) if r.name.startswith("tool-")] == ["tool-42-flags"]
    assert opened == [RULES], opened
    assert [r.name for r in ruleset.candidates({"tool-1", "tool-199"})
            if r.name.startswith("tool-")] == ["tool-1-flags", "tool-199-flags"]


def test_a_sealed_index_finds_exactly_its_programs() -> None:
    sealed = sealed_module.seal({"base": None, "blobs": [b""] * 4, "extras": [b""] * 4, "states": [()] * 4,
                                  "names": ["a", "b", "c", "d"], "order": [0, 1, 2, 3], "always": [],
                                  "broken": [], "index": {"git": [0, 2], "git-lfs": [1], "": [3]}})
    index = sealed["index"]
    lookup = ruleset_module._lookup
    assert lookup(index, "git") == [0, 2] and lookup(index, "git-lfs") == [1] and lookup(index, "") == [3]
    for absent in ("gi", "it", "lfs", "git-", "git\t0", "git\t0,2\ngit-lfs", "x\ngit", "0,2", "\n"):
        assert lookup(index, absent) == [], absent
    assert sealed_module.unseal(sealed)["index"] == {"git": [0, 2], "git-lfs": [1], "": [3]}
    # A damaged index picks every rule of the segment (matching then decides), never none.
    seg = ruleset_module.Segment({**sealed, "index": "\ngit\t0,x\n"}, trusted=False)
    assert seg.chosen({"git"}) == [0, 1, 2, 3]
    seg = ruleset_module.Segment({**sealed, "index": "\ngit\t0,9\n"}, trusted=False)
    assert seg.chosen({"git"}) == [0, 1, 2, 3]


def test_a_file_replaced_by_rename_or_with_its_old_mtime_is_seen(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Editors write in place or write a new file and rename it over the old one; either is seen, even
    with the same size and the old mtime put back (the ctime and the inode still tell)."""
    repo, rules = _with_rules(tmp_path)
    _first_load(repo, monkeypatch)
    target = rules / "team-0060.toml"
    before = os.stat(target)
    new = rules / "team-0060.toml.new"  # not a rule file: the directory's files are *.toml
    new.write_text(target.read_text().replace("(0).", "(7).", 1))
    assert new.stat().st_size == before.st_size
    os.utime(new, ns=(before.st_atime_ns, before.st_mtime_ns))
    os.replace(new, target)
    rule = load_root(str(repo)).get("tool-60-flags")
    assert rule is not None and rule.message.endswith("(7).")
    with monkeypatch.context() as m:
        m.setattr(ruleset_module, "RACY_NS", 0)  # no content hash to fall back on: the signature alone
        load_root(str(repo))
        again = os.stat(target)
        target.write_text(target.read_text().replace("(7).", "(8).", 1))
        os.utime(target, ns=(again.st_atime_ns, again.st_mtime_ns))
        assert os.stat(target).st_size == again.st_size and os.stat(target).st_mtime_ns == again.st_mtime_ns
        rule = load_root(str(repo)).get("tool-60-flags")
    assert rule is not None and rule.message.endswith("(8).")


def test_a_splice_of_a_sealed_index_says_what_the_dict_says() -> None:
    """An edit that keeps its file's number of rules rewrites only the touched programs' lines of the
    sealed index (engine/patch.py: _set_line); what the index says is what splicing the dict says."""
    import marshal
    import random

    from jouet_git.engine import patch

    rng = random.Random(3)
    programs = ["git", "cargo", "npm", "tool-1", "tool-10", "tool-100", "x"]

    def packed(n: int) -> dict[str, Any]:
        index: dict[str, list[int]] = {}
        blobs = []
        for i in range(n):
            mine = rng.sample(programs, rng.randint(1, 2))
            for program in mine:
                index.setdefault(program, []).append(i)
            blobs.append(marshal.dumps(({"match": [{"command": [f"{p} go" for p in mine]}]}, "user", "user", "f", 1)))
        return {"base": None, "blobs": blobs, "extras": [b""] * n, "states": [()] * n,
                "names": [str(i) for i in range(n)], "order": list(range(n)), "index": index, "always": [],
                "broken": []}

    for _ in range(200):
        seg = packed(12)
        start = rng.randint(0, 10)
        count = rng.randint(0, 12 - start)
        new = packed(count if rng.random() < 0.6 else rng.randint(0, 4))  # as many rules, or not
        by_dict = patch._splice(seg, start, count, new)
        by_string = patch._splice({**seg, "index": sealed_module.seal(seg)["index"]}, start, count, new)
        got = by_string["index"]
        if len(new["blobs"]) != count:  # every index after the span moves: the dict is made again
            assert sealed_module.unseal_index(sealed_module.seal(by_string)["index"]) == by_dict["index"] == got
            continue
        assert isinstance(got, str) and sealed_module.unseal_index(got) == by_dict["index"]
        for program in programs:
            assert ruleset_module._lookup(got, program) == by_dict["index"].get(program, [])
