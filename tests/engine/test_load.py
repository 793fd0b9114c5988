"""Loading rule files: every key validated, errors that name file, line, rule and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from jouet_git.engine.load import load_file, load_text
from jouet_git.engine.model import BROKEN, ENABLED, USER


def load(text: str, path: str = "/tmp/r.toml", source: str = USER) -> list:
    return load_text(text, path, source, source)


GOOD = """
[[rule]]
name = "no-rm-rf"
why = "rm -r deletes for good"
mode = "warn"
author = "jdx"
created = 2026-10-30
message = "rm -r deletes for good; is this path right?"
[rule.match]
command = "rm"
flags = ["-r", "-R", "--recursive"]
[rule.examples]
fires = ["rm -rf target", "sudo rm -r build"]
quiet = ["rm file.txt"]
"""


def test_good_rule_loads() -> None:
    [rule] = load(GOOD)
    assert rule.state == ENABLED
    assert rule.name == "no-rm-rf"
    assert rule.mode == "warn"
    assert rule.created == "2026-10-30"
    assert rule.matchers[0].command == (("rm",),)
    assert rule.matchers[0].flags == ("-r", "-R", "--recursive")


def test_unknown_matcher_key_names_file_line_and_choices() -> None:
    [rule] = load(GOOD.replace('flags = ["-r"', 'flag = ["-r"'), "./no-rm-rf.toml")
    assert rule.state == BROKEN
    assert rule.name == "no-rm-rf"
    assert rule.error.startswith("./no-rm-rf.toml:11: unknown field `flag`, expected one of `tool`, `paths`,")
    assert "`exit_code`" in rule.error


def test_unknown_rule_key() -> None:
    [rule] = load(GOOD.replace('author = "jdx"', 'authr = "jdx"'))
    assert "/tmp/r.toml:6: unknown field `authr`, expected one of `name`, `why`" in rule.error


@pytest.mark.parametrize(
    ("edit", "error"),
    [
        (('name = "no-rm-rf"', 'name = "No_RM"'), "invalid name 'No_RM'"),
        (('name = "no-rm-rf"', f'name = "{"a" * 65}"'), "up to 64 characters"),
        (('mode = "warn"', 'mode = "block"'), '`mode` must be "warn", "deny" or "ask"'),
        (('flags = ["-r", "-R", "--recursive"]', 'flags = ["-rf"]'), "cluster '-rf'"),
        (('flags = ["-r", "-R", "--recursive"]', 'flags = ["--force=yes"]'), "without its value"),
        (('command = "rm"', 'tool = "Edit"'), "`flags` is about a command and needs `command`"),
        (('command = "rm"\nflags = ["-r", "-R", "--recursive"]', 'max_args = 1'),
         "`max_args` is about a command"),
        (('created = 2026-10-30', 'created = "yesterday"'), "`created` must be a date"),
        (('why = "rm -r deletes for good"\n', ''), "missing field `why`"),
        (('message = "rm -r deletes for good; is this path right?"\n', ''), "missing field `message`"),
        (('fires = ["rm -rf target", "sudo rm -r build"]', 'fires = [{ cmd = "x" }]'), "unknown example field `cmd`"),
        (('flags = ["-r", "-R", "--recursive"]', 'text = ["(unclosed"]'), "not a valid regular expression"),
        (('flags = ["-r", "-R", "--recursive"]', 'seen = true'), "does not support yet"),
        (('author = "jdx"', 'scope = "builtin"'), "does not match where the file lives"),
        (('flags = ["-r", "-R", "--recursive"]', 'with = { tool = "Edit" }'), "cannot go inside"),
        (('flags = ["-r", "-R", "--recursive"]', 'exit_code = "8"'), "`exit_code` must be a number"),
    ],
)
def test_bad_rules_are_broken_with_a_precise_error(edit: tuple[str, str], error: str) -> None:
    text = GOOD.replace(*edit)
    assert text != GOOD
    [rule] = load(text)
    assert rule.state == BROKEN
    assert error in rule.error
    assert rule.error.startswith("/tmp/r.toml:")


def test_matcher_without_command_tool_or_paths_is_refused() -> None:
    text = GOOD.replace('command = "rm"\nflags = ["-r", "-R", "--recursive"]', 'input = { a = "b" }')
    [rule] = load(text)
    assert "would match every call" in rule.error


def test_invalid_toml_names_the_line() -> None:
    [rule] = load('[[rule]]\nname = "x"\nwhy = \n')
    assert rule.state == BROKEN
    assert rule.error.startswith("/tmp/r.toml:3: not valid TOML")
    assert rule.name == "x"


def test_several_rules_in_one_file_load_in_order_and_errors_point_at_the_right_one() -> None:
    second = GOOD.replace("no-rm-rf", "second").replace('command = "rm"', 'command = "rm"\nbogus = 1')
    rules = load(GOOD + second)
    assert [r.name for r in rules] == ["no-rm-rf", "second"]
    assert rules[0].state == ENABLED
    assert rules[1].state == BROKEN
    assert "/tmp/r.toml:25: unknown field `bogus`" in rules[1].error


def test_match_may_be_a_list_of_tables() -> None:
    text = GOOD.replace("[rule.match]", "[[rule.match]]") + '[[rule.match]]\ncommand = "rmdir"\n'
    # the examples table came before the second matcher in the file: TOML still reads both
    [rule] = load(text)
    assert rule.state == ENABLED, rule.error
    assert [m.command for m in rule.matchers] == [(("rm",),), (("rmdir",),)]


def test_script_must_stay_beside_the_rule(tmp_path: Path) -> None:
    (tmp_path / "rules").mkdir()
    (tmp_path / "evil.luau").write_text("return {}")
    (tmp_path / "rules" / "ok.luau").write_text("return {}")
    base = GOOD.replace('message = "rm -r deletes for good; is this path right?"\n', "")
    outside = tmp_path / "rules" / "a.toml"
    outside.write_text(base.replace('author = "jdx"', 'script = "../evil.luau"'))
    [rule] = load_file(str(outside), USER, USER)
    assert "leaves the rule file's directory" in rule.error
    inside = tmp_path / "rules" / "b.toml"
    inside.write_text(base.replace('author = "jdx"', 'script = "ok.luau"'))
    [rule] = load_file(str(inside), USER, USER)
    assert rule.state == ENABLED, rule.error
    assert rule.script == str(tmp_path / "rules" / "ok.luau")
    missing = tmp_path / "rules" / "c.toml"
    missing.write_text(base.replace('author = "jdx"', 'script = "nope.luau"'))
    [rule] = load_file(str(missing), USER, USER)
    assert "does not exist" in rule.error


def test_script_rule_takes_no_message(tmp_path: Path) -> None:
    (tmp_path / "x.luau").write_text("return {}")
    path = tmp_path / "x.toml"
    path.write_text(GOOD.replace('author = "jdx"', 'script = "x.luau"'))
    [rule] = load_file(str(path), USER, USER)
    assert "a script rule takes no `message`" in rule.error


def test_modes_default_by_source() -> None:
    text = GOOD.replace('mode = "warn"\n', "")
    assert load(text, source="user")[0].mode == "warn"
    for source in ("builtin", "enforced", "plugin", "repo"):
        assert load(text, source=source)[0].mode == "deny"
