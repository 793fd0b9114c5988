"""Content hashing: the bytes a trust record or a plugin pin stands for, and what it refuses."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from jouet_git.trust.content import scan
from jouet_git.trust.state import runnable


def write(base: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        target = base / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return base


FILES = {"rules/a.toml": "a = 1\n", "rules/sub/b.luau": "return {}\n", "plugins.toml": "[plugins]\n"}


def test_any_edit_addition_removal_or_rename_changes_the_digest(tmp_path: Path) -> None:
    base = write(tmp_path / "j", FILES)
    first = scan(str(base))
    assert sorted(first.files) == ["plugins.toml", "rules/a.toml", "rules/sub/b.luau"]
    (base / "rules/a.toml").write_text("a = 2\n")
    edited = scan(str(base))
    assert edited.digest != first.digest
    assert edited.changes_from(first.files) == {"changed": ["rules/a.toml"], "added": [], "removed": []}
    (base / "rules/a.toml").write_text("a = 1\n")
    assert scan(str(base)).digest == first.digest
    (base / "rules/c.toml").write_text("")
    added = scan(str(base))
    assert added.digest != first.digest and added.changes_from(first.files)["added"] == ["rules/c.toml"]
    (base / "rules/c.toml").unlink()
    (base / "rules/a.toml").rename(base / "rules/z.toml")
    renamed = scan(str(base))
    assert renamed.digest != first.digest
    assert renamed.changes_from(first.files) == {"changed": [], "added": ["rules/z.toml"], "removed": ["rules/a.toml"]}


def test_the_digest_depends_on_content_not_on_where_it_is(tmp_path: Path) -> None:
    one = write(tmp_path / "one", FILES)
    two = tmp_path / "elsewhere" / "two"
    shutil.copytree(one, two)
    assert scan(str(one)).digest == scan(str(two)).digest


def test_moving_bytes_between_files_changes_the_digest(tmp_path: Path) -> None:
    a = scan(str(write(tmp_path / "a", {"x": "ab", "y": "c"})))
    b = scan(str(write(tmp_path / "b", {"x": "a", "y": "bc"})))
    assert a.digest != b.digest


def test_select_keeps_only_what_can_run(tmp_path: Path) -> None:
    base = write(tmp_path / ".jouet", {**FILES, "notes.md": "hi", "top.luau": "return {}", "cache/x": "1"})
    content = scan(str(base), runnable)
    assert sorted(content.files) == ["plugins.toml", "rules/a.toml", "rules/sub/b.luau", "top.luau"]
    (base / "notes.md").write_text("changed")
    assert scan(str(base), runnable).digest == content.digest


def test_git_directories_are_not_content(tmp_path: Path) -> None:
    base = write(tmp_path / "p", {"plugin.toml": "", ".git/HEAD": "ref: x"})
    before = scan(str(base))
    (base / ".git" / "HEAD").write_text("ref: y")
    assert list(before.files) == ["plugin.toml"] and scan(str(base)).digest == before.digest


def test_links_inside_are_followed_and_hashed_through(tmp_path: Path) -> None:
    base = write(tmp_path / "j", {"rules/real.toml": "x = 1\n", "shared/lib.luau": "return 1\n"})
    os.symlink("real.toml", base / "rules" / "alias.toml")
    os.symlink("../shared", base / "rules" / "lib")
    content = scan(str(base))
    assert not content.refused
    assert content.files["rules/alias.toml"] == content.files["rules/real.toml"]
    assert "rules/lib/lib.luau" in content.files
    before = content.digest
    (base / "shared" / "lib.luau").write_text("return 2\n")
    assert scan(str(base)).digest != before


def test_links_that_leave_the_directory_are_refused(tmp_path: Path) -> None:
    secret = tmp_path / "secret.toml"
    secret.write_text("token = 'x'\n")
    base = write(tmp_path / "j", {"rules/a.toml": ""})
    os.symlink(str(secret), base / "rules" / "evil.toml")
    os.symlink("../../", base / "rules" / "up")
    content = scan(str(base), shown=".jouet/")
    assert "rules/evil.toml" not in content.files
    assert any(r.startswith(".jouet/rules/evil.toml is a symbolic link to") and "outside .jouet" in r
               for r in content.refused)
    assert any(r.startswith(".jouet/rules/up is a symbolic link") for r in content.refused)


def test_the_directory_itself_as_a_link_is_refused(tmp_path: Path) -> None:
    real = write(tmp_path / "real", {"rules/a.toml": ""})
    os.symlink(str(real), tmp_path / "link")
    content = scan(str(tmp_path / "link"), shown=".jouet/")
    assert content.files == {} and "is a symbolic link" in content.refused[0]


def test_loops_dangling_links_and_special_files_are_refused(tmp_path: Path) -> None:
    base = write(tmp_path / "j", {"rules/a.toml": ""})
    os.symlink(".", base / "rules" / "loop")
    os.symlink("missing.toml", base / "rules" / "gone.toml")
    os.mkfifo(base / "rules" / "pipe")
    content = scan(str(base))
    reasons = " | ".join(content.refused)
    assert "loops back" in reasons and "leads nowhere" in reasons and "not a regular file" in reasons
    assert list(content.files) == ["rules/a.toml"]


def test_refusals_are_part_of_the_digest(tmp_path: Path) -> None:
    base = write(tmp_path / "j", {"rules/a.toml": ""})
    clean = scan(str(base)).digest
    os.symlink("/etc/hostname", base / "rules" / "x.toml")
    assert scan(str(base)).digest != clean


def test_an_empty_or_missing_directory_is_empty(tmp_path: Path) -> None:
    assert scan(str(tmp_path / "nothing")).empty
    (tmp_path / "empty" / "rules").mkdir(parents=True)
    assert scan(str(tmp_path / "empty")).empty
