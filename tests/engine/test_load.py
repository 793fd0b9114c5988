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


def test_unknown_matcher_key_names_file_line_and_the_key_it_misspells() -> None:
    [rule] = load(GOOD.replace('flags = ["-r"', 'flag = ["-r"'), "./no-rm-rf.toml")
    assert rule.state == BROKEN
    assert rule.name == "no-rm-rf"
    assert rule.error == "./no-rm-rf.toml:11: unknown field `flag` in the matcher: did you mean `flags`?"


def test_an_unknown_key_like_no_other_lists_the_choices() -> None:
    [rule] = load(GOOD.replace('flags = ["-r"', 'bogus = ["-r"'), "./no-rm-rf.toml")
    assert rule.error.startswith("./no-rm-rf.toml:11: unknown field `bogus` in the matcher, expected one of `tool`, ")
    assert "`exit_code`" in rule.error


def test_unknown_rule_key() -> None:
    [rule] = load(GOOD.replace('author = "jdx"', 'authr = "jdx"'))
    assert rule.error == "/tmp/r.toml:6: unknown field `authr`: did you mean `author`?"


@pytest.mark.parametrize(
    ("edit", "error"),
    [
        (('message = "rm', 'mesage = "rm'), "/tmp/r.toml:8: unknown field `mesage`: did you mean `message`?"),
        (('message = "rm', 'Message = "rm'), "/tmp/r.toml:8: unknown field `Message`: did you mean `message`?"),
        (("[rule.examples]", "[rule.exemples]"), "/tmp/r.toml:12: unknown field `exemples`: did you mean `examples`?"),
        (("fires = [", "fire = ["), "/tmp/r.toml:13: unknown field `fire` in examples: did you mean `fires`?"),
        (('"rm file.txt"', '{ comand = "rm file.txt" }'),
         "/tmp/r.toml:14: unknown example field `comand`: did you mean `command`?"),
        (('flags = ["-r", "-R", "--recursive"]', 'with = { comand = "x" }'),
         "unknown field `comand` in `with`: did you mean `command`?"),
        (('author = "jdx"', 'requires = { file = ["a"] }'),
         "/tmp/r.toml:6: unknown field `file` in `requires`: did you mean `files`?"),
        (('flags = ["-r", "-R", "--recursive"]', 'unless-flags = ["-i"]'),
         "/tmp/r.toml:11: unknown field `unless-flags` in the matcher: did you mean `unless_flags`?"),
    ],
)
def test_a_misspelt_key_gets_a_suggestion_at_every_level(edit: tuple[str, str], error: str) -> None:
    text = GOOD.replace(*edit)
    assert text != GOOD
    [rule] = load(text)
    assert rule.state == BROKEN
    assert error in rule.error.splitlines() or error in rule.error, rule.error


def test_every_error_in_a_rule_is_reported_in_line_order() -> None:
    text = (GOOD.replace('mode = "warn"', 'mode = "block"').replace('author = "jdx"', 'authr = "jdx"')
            .replace('flags = ["-r", "-R", "--recursive"]', 'flags = ["-rf"]\ntext = ["(unclosed"]')
            .replace('quiet = ["rm file.txt"]', 'quiet = [{ cmd = "x" }]'))
    [rule] = load(text)
    assert rule.state == BROKEN
    lines = rule.error.splitlines()
    assert [line.split(":")[1] for line in lines] == ["5", "6", "11", "12", "15", "15"], lines
    assert "`mode` must be" in lines[0]
    assert "did you mean `author`?" in lines[1]
    assert "cluster '-rf'" in lines[2]
    assert "not a valid regular expression" in lines[3]
    assert {"unknown example field `cmd`: did you mean `command`?",
            "an example table needs `command` (for a shell call) or `tool`"} == {
        line.split(": ", 1)[1] for line in lines[4:]}


def test_keys_at_the_wrong_level_say_where_they_belong() -> None:
    text = GOOD.replace('author = "jdx"', 'author = "jdx"\ncommand = "rm"').replace(
        'flags = ["-r", "-R", "--recursive"]', 'flags = ["-r"]\nwhy = "x"')
    [rule] = load(text)
    assert "`command` is a matcher key: put it under [rule.match]" in rule.error
    assert "`why` belongs to the rule, not its matcher: put it above [rule.match]" in rule.error


def test_a_table_outside_rule_breaks_the_file_with_every_error() -> None:
    [rule] = load(GOOD.replace("[[rule]]", "[[rules]]"))
    assert rule.state == BROKEN
    assert rule.error == "/tmp/r.toml:2: unknown top-level table `rules`: did you mean [[rule]]? A rule file holds " \
        "[[rule]] tables"
    text = GOOD.replace("[rule.examples]", "[examples]").replace('mode = "warn"', 'mode = "block"')
    [rule] = load(text)
    assert rule.state == BROKEN
    assert rule.error.splitlines() == [
        "/tmp/r.toml:12: unknown top-level table `examples`: `examples` belongs to a rule: write [rule.examples] "
        "below its [[rule]] (or examples = ... in it)",
        "/tmp/r.toml:5: `mode` must be \"warn\", \"deny\" or \"ask\", not 'block'",
    ]


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
        (('flags = ["-r", "-R", "--recursive"]', 'seen = "yes"'), "`seen` must be true or false"),
        (('flags = ["-r", "-R", "--recursive"]', 'min_read_lines = -1'), "`min_read_lines` must be a whole number"),
        (('command = "rm"\nflags = ["-r", "-R", "--recursive"]', 'tool = "Read"\nsecret_vars = true'),
         "`secret_vars` is about a command"),
        (('fires = ["rm -rf target", "sudo rm -r build"]', 'fires = [{ command = "x", fnox = { names = [] } }]'),
         "unknown field `names` in the example's `fnox`"),
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
    assert "/tmp/r.toml:25: unknown field `bogus` in the matcher" in rules[1].error


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
