"""Old-style whole-file `.luau` rules: they load (deprecated), run, and `jouet rule list` names them."""

from __future__ import annotations

import json
import os
from pathlib import Path

from testing import claude_payload, run_jouet

from jouet_git.engine import legacy
from jouet_git.engine.examples import run_examples
from jouet_git.engine.model import BROKEN, ENABLED, USER

LONG_SLEEP = """\
--- why: a long sleep spends the session's time doing nothing
--- author: me
--- created: 2026-10-30
--!strict
return {
\tneeds = { "check" },
\texamples = {
\t\tfires = { "sleep 90", { command = "sleep 30", harness = "codex" } },
\t\tquiet = { "sleep 1", "echo sleep 90" },
\t},
\tcheck = function(call)
\t\tfor _, command in call.commands do
\t\t\tlocal seconds = tonumber(command.argv[2])
\t\t\tif command.program == "sleep" and seconds and seconds >= 10 then
\t\t\t\treturn jouet.deny("Wait for what you need instead of sleeping.")
\t\t\tend
\t\tend
\t\treturn nil
\tend,
}
"""


def user_rules() -> Path:
    path = Path(os.environ["JOUET_CONFIG_DIR"]) / "rules"
    path.mkdir(parents=True, exist_ok=True)
    return path


def test_an_old_style_rule_loads_with_its_header_and_table(tmp_path: Path) -> None:
    (tmp_path / "long-sleep.luau").write_text(LONG_SLEEP)
    rule = legacy.load_file(str(tmp_path / "long-sleep.luau"), USER, USER)
    assert rule.state == ENABLED, rule.error
    assert rule.legacy and rule.name == "long-sleep" and rule.author == "me" and rule.created == "2026-10-30"
    assert rule.why == "a long sleep spends the session's time doing nothing"
    assert rule.needs == ("check",) and rule.on == "pre-tool-use"
    assert rule.examples["fires"] == ["sleep 90", {"command": "sleep 30", "harness": "codex"}]
    report = run_examples(rule)
    assert report.ok, [(r.label, r.actual) for r in report.results]


def test_it_runs_in_hooks_and_rule_list_names_it_as_deprecated(tmp_path: Path) -> None:
    (user_rules() / "long-sleep.luau").write_text(LONG_SLEEP)
    listed = run_jouet("rule", "list", cwd=tmp_path)
    flat = " ".join(listed.stdout.split())
    assert "long-sleep enabled warn user me 2026-10-30" in flat
    assert "note: long-sleep is an old-style Luau rule" in flat and "stops loading in jouet 0.1.0" in flat
    assert "long-sleep.toml" in flat
    rows = json.loads(run_jouet("rule", "list", "--json", cwd=tmp_path).stdout)
    [row] = [r for r in rows if r["name"] == "long-sleep"]
    assert "deprecated" in row["deprecated"]
    assert run_jouet("rule", "test", "long-sleep", cwd=tmp_path).returncode == 0
    hook = run_jouet("hook", "claude", "pre", input=claude_payload("sleep 60 && gh pr checks", tmp_path), cwd=tmp_path)
    assert "Wait for what you need instead of sleeping. [jouet rule: long-sleep]" in hook.stdout
    quiet = run_jouet("hook", "claude", "pre", input=claude_payload("sleep 2", tmp_path), cwd=tmp_path)
    assert quiet.stdout == ""


def test_a_script_beside_a_toml_of_its_name_is_a_script_not_an_old_style_rule(tmp_path: Path) -> None:
    (tmp_path / "long-sleep.luau").write_text(LONG_SLEEP)
    (tmp_path / "long-sleep.toml").write_text("")
    (tmp_path / "helper.luau").write_text("--!strict\nreturn { check = function(call) return nil end }\n")
    assert legacy.rule_files(str(tmp_path)) == []


def test_a_broken_old_style_rule_says_every_problem(tmp_path: Path) -> None:
    path = tmp_path / "bad-old.luau"
    path.write_text('--- why: broken\n--- colour: red\n'
                    'return { on = "never", examples = { fires = {"x"} }, oops = 1 }\n')
    rule = legacy.load_file(str(path), USER, USER)
    assert rule.state == BROKEN and rule.legacy
    assert rule.error is not None
    assert f"{path}:2: unknown header `--- colour:`" in rule.error
    assert "no check function" in rule.error and "unknown field `oops`" in rule.error
    assert "`on` must be" in rule.error


def test_a_script_that_does_not_compile_is_broken_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "nope.luau"
    path.write_text("--- why: x\nreturn {\n  check = function(call) return nil\n")
    rule = legacy.load_file(str(path), USER, USER)
    assert rule.state == BROKEN and rule.error is not None and str(path) in rule.error


def test_an_untrusted_source_never_runs_the_file_to_read_it(tmp_path: Path) -> None:
    path = tmp_path / "sneaky.luau"
    path.write_text("--- why: x\nerror('ran')\n")
    # Run, it would be broken (it raises); read for its header only, it is not.
    assert legacy.load_file(str(path), "repo", "repo:trusted").state == BROKEN
    rule = legacy.load_file(str(path), "repo", "repo:untrusted", evaluate=False)
    assert rule.state == ENABLED and rule.why == "x"  # the build then marks it untrusted
