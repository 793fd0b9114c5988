"""jouet_git/guarded.py: jouet's places, kept in step with paths.py and setup/targets.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jouet_git import guarded, paths
from jouet_git.guarded import EDIT, View, after_edit, edit_paths
from jouet_git.setup.targets import PLUGINS, SCRIPTS, TARGETS


def test_the_view_places_jouet_s_directories_as_paths_py_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    view = View.here(str(tmp_path))
    for own, xdg, fallback, function in (
        ("JOUET_CONFIG_DIR", "XDG_CONFIG_HOME", ".config", paths.config_dir),
        ("JOUET_STATE_DIR", "XDG_STATE_HOME", os.path.join(".local", "state"), paths.state_dir),
        ("JOUET_CACHE_DIR", "XDG_CACHE_HOME", ".cache", paths.cache_dir),
        ("JOUET_DATA_DIR", "XDG_DATA_HOME", os.path.join(".local", "share"), paths.data_dir),
    ):
        assert view._dir(own, xdg, fallback) == function()
        monkeypatch.delenv(own)
        assert View.here(str(tmp_path))._dir(own, xdg, fallback) == function()
        monkeypatch.delenv(xdg)
        assert View.here(str(tmp_path))._dir(own, xdg, fallback) == function()


def test_every_file_setup_writes_passes_the_name_filter() -> None:
    """guarded.py imports setup/ only for a path named like one of its files: every target's is."""
    from jouet_git.setup.plugins import FILES

    for target in TARGETS.values():
        for file in (target.user_file, target.project_file):
            name = os.path.basename(file)
            if target.layout == SCRIPTS:
                assert name in guarded._TARGET_FOLDERS, target.name
            elif target.layout == PLUGINS:
                for where, _ in FILES[target.name]:
                    inside = os.path.join(file, where)
                    assert os.path.basename(os.path.dirname(inside)) in guarded._TARGET_FOLDERS, (target.name, where)
            else:
                assert name in guarded._TARGET_NAMES, (target.name, name)


def test_every_target_file_holding_jouet_s_entries_is_guarded(tmp_path: Path) -> None:
    from testing import make_repo, run_jouet

    repo = make_repo(tmp_path / "repo")
    env = {"JOUET_SETUP_UNREADY": "1"}
    for name in TARGETS:
        for scope in ((), ("--project",)):
            proc = run_jouet("setup", name, *scope, cwd=repo, env=env)
            assert proc.returncode == 0, proc.stdout + proc.stderr
    view = View.here(str(repo))
    for target in TARGETS.values():
        for scope, path in view._target_paths(target):
            if target.layout == SCRIPTS:
                files = [os.path.join(path, e.key) for e in target.events]
            elif target.layout == PLUGINS:
                from jouet_git.setup.plugins import FILES

                files = [os.path.join(path, where) for where, _ in FILES[target.name]]
            else:
                files = [path]
            for file in files:
                found = view.guarded(file, "sed -i")
                assert found is not None and found.kind == guarded.HOOKS, (target.name, scope, file)


def test_after_edit_follows_each_tool_shape() -> None:
    before = b'{"a": 1, "hooks": {}}'
    assert after_edit(before, {"content": "{}"}) == "{}"
    assert after_edit(before, {"old_string": '"a": 1', "new_string": '"a": 2'}) == '{"a": 2, "hooks": {}}'
    assert after_edit(before, {"old_str": "1", "new_str": "3"}) == '{"a": 3, "hooks": {}}'
    assert after_edit(before, {"edits": [{"old_string": "1", "new_string": "2"},
                                         {"old_string": "hooks", "new_string": "x"}]}) == '{"a": 2, "x": {}}'
    assert after_edit(before, {"old_string": "absent", "new_string": "x"}) == before.decode()
    assert after_edit(before, {"patch": "*** Begin Patch"}) is None


def test_edit_paths_reads_patches() -> None:
    patch = "*** Begin Patch\n*** Update File: a.json\n@@\n*** Delete File: b.json\n*** End Patch\n"
    assert edit_paths(None, {"patch": patch}) == ["a.json", "b.json"]
    assert edit_paths("x", {"file_path": "x"}) == ["x"]


def test_reading_a_path_is_never_a_write() -> None:
    from jouet_git.call import KIND_READ, Call

    call = Call(tool="Read", kind=KIND_READ, path=os.path.join(paths.config_dir(), "config.toml"))
    assert guarded.call_guarded(call) == []
    assert guarded.probe(View.here("."), call, call.path, EDIT) == (None, None)


@pytest.mark.parametrize(("path", "kept"), [
    ("/home/other/.config/jouet/config.toml", True),
    ("/home/other/.local/state/jouet/ledger.jsonl", True),
    ("/home/other/.cache/jouet", True),
    ("/root/.local/share/jouet/plugins/x", True),
    ("/etc/jouet/rules/force.toml", True),
    ("/home/other/.config/jouet/rules/mine.toml", False),  # the rule-files rule's place, not this one's
    ("/home/other/.config/jouetx/a", False),
    ("/home/other/notes/plan.md", False),
    ("/srv/jouet-notes.md", False),
])
def test_jouet_s_directories_in_any_home_are_guarded(path: str, kept: bool) -> None:
    """The layout pattern is compiled only for a path holding /jouet: each of its matches does."""
    view = View({}, "/home/me", "/work", "/work", ["/opt/pkg/jouet_git"], ["/opt/bin/jouet"],
                realpath=os.path.normpath)
    hit = view.guarded(path, ">")
    assert (hit is not None) == kept, hit


@pytest.mark.parametrize("layout", ["links", "loop"])
def test_a_write_is_checked_against_only_the_places_that_may_hold_it_with_the_same_verdict(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str) -> None:
    """View._holding resolves only the places whose last name the written path holds (or that are
    links, or not written out in full): for writes into, beside and around every place, through
    links, into places that are links, are missing, or lie under a dangling link, the verdict is the
    one checking every place gives."""
    home = tmp_path / "home"
    elsewhere = tmp_path / "elsewhere"
    for d in (home / ".local", elsewhere / "config-real", elsewhere / "sys-real", tmp_path / "state", tmp_path / "a"):
        d.mkdir(parents=True)
    (home / ".config").symlink_to(elsewhere)  # ~/.config/jouet lies elsewhere (missing there)
    (tmp_path / "cfg").symlink_to(elsewhere / "config-real")  # a place that is a link to another name
    (tmp_path / "nowhere").symlink_to(tmp_path / "gone")  # a dangling link above a place
    (tmp_path / "system").symlink_to(elsewhere / "sys-real")
    (tmp_path / "state" / "ledger").mkdir()
    (tmp_path / "dotfiles").mkdir()
    (tmp_path / "dotfiles" / "gc").write_text("[core]\n")
    (home / ".gitconfig").symlink_to(tmp_path / "dotfiles" / "gc")  # git's config, a link to another name
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("JOUET_CONFIG_DIR", str(tmp_path / "cfg") + "/")
    monkeypatch.setenv("JOUET_STATE_DIR", str(tmp_path / "a" / ".." / "state"))
    monkeypatch.setenv("JOUET_CACHE_DIR", str(tmp_path / "nowhere" / "cache"))
    monkeypatch.setenv("JOUET_DATA_DIR", "relative/data")
    monkeypatch.setenv("JOUET_SYSTEM_DIR", str(tmp_path / "system"))
    if layout == "loop":  # a place below a link to itself, and one named as a relative path
        (tmp_path / "loop").symlink_to(tmp_path / "loop")
        monkeypatch.setenv("JOUET_DATA_DIR", str(tmp_path / "loop" / "data"))
        monkeypatch.setenv("JOUET_CONFIG_DIR", "cfg")
    for var in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"):
        monkeypatch.delenv(var, raising=False)

    class Every(View):
        __slots__ = ()

        def _holding(self, full: str) -> tuple[list[tuple[str, str]], list[str]]:
            return self.own(), self._exempt

        def _git_config_paths(self, full: str | None = None) -> list[str]:
            return View._git_config_paths(self)

        def _below(self, full: str, how: str, removes: bool, into: bool) -> object:
            # Every place, resolved, for any write that may reach below its path (but a destination
            # that is a directory, receiving its sources by name: that is what such a write means).
            found = View._below(self, full, how, removes, into)
            return found if into and found == guarded._NO else guarded._YES

    cwd = str(tmp_path)
    places = [p for p, _ in View.here(cwd)._places()[0]] + View.here(cwd)._places()[1]
    targets = {str(tmp_path / "x"), "notes.txt", "build/out", "~/.config/jouet/config.toml", "~/.config",
               str(elsewhere / "jouet" / "rules" / "r.toml"), str(elsewhere / "config-real" / "rules" / "mine.toml"),
               str(elsewhere / "sys-real" / "x.toml"), str(tmp_path / "gone" / "cache" / "x"),
               "relative/data/plugins/p", "relative/data", str(tmp_path / "state" / "ledger" / "l.jsonl"),
               "~/.gitconfig", str(tmp_path / "dotfiles" / "gc"), str(elsewhere / "git" / "config"), "/etc/gitconfig",
               str(tmp_path / "dotfiles" / "config")}
    for place in places:
        for suffix in ("", "/", "/f", "/rules/r.toml", "-sibling", "/../f"):
            targets.add(place + suffix)
        targets.add(os.path.dirname(place) + "/other")
    here = Every.here(cwd)
    checked = 0
    (tmp_path / "dotfiles" / "tree").mkdir()
    targets |= {str(tmp_path), str(tmp_path / "new" / "tree"), str(home), str(home / "new"), str(tmp_path / "dotfiles")}
    for target in sorted(targets):
        for how, removes in ((">", False), ("sed -i", False), ("cp", False), ("tee", False), ("rm", True),
                             ("mv", True), ("chmod", False), ("cp -r", False), ("cp -r into", False), ("mv", False),
                             ("mv into", False), ("rsync -r", False), ("tar -x", False)):
            fast = View.here(cwd).guarded(target, how, removes)
            every = here.guarded(target, how, removes)
            assert (fast and (fast.kind, fast.path, fast.what)) == (every and (every.kind, every.path, every.what)), \
                (target, how, removes)
            checked += every is not None
    assert checked >= 40
    # Most writes resolve none of the places, nor does removing a file; a tree copied to a new path
    # resolves only the places not there.
    view = View.here(cwd)
    view.guarded("build/out/file.txt", ">")
    view.guarded(str(tmp_path / "dotfiles" / "gc"), "rm", True)
    resolved_links = {p for p in places if os.path.islink(p.rstrip("/")) or not p.startswith("/") or "/loop/" in p}
    unwritten = {p for p in places if os.path.normpath(p) != p.rstrip("/")}
    assert set(view._resolved_places) <= resolved_links | unwritten
    view.guarded(str(tmp_path / "build" / "new"), "cp -r")
    missing = {p for p, _ in View.here(cwd)._places()[0] if not os.path.exists(p)}
    assert set(view._resolved_places) <= resolved_links | unwritten | missing
    assert missing - set(view._resolved_places) == set()
    assert set(places) - missing - resolved_links - unwritten  # (some places are there, and not resolved)
