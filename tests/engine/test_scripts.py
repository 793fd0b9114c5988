"""Script rules end to end: Luau translated and cached, the call table, the jouet module, examples."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from testing import TESTS, claude_payload, make_repo, run_jouet

from jouet_git.call import POST_TOOL_USE, Call
from jouet_git.engine.decide import decide
from jouet_git.engine.examples import run_examples
from jouet_git.engine.load import load_file, load_text
from jouet_git.engine.model import BUILTIN, USER
from jouet_git.engine.script_host import CALL_FIELDS, COMMAND_FIELDS, MODULE_FIELDS
from jouet_git.engine.script_types import definitions
from jouet_git.engine.scripts import HookScripts

DATA = TESTS / "data" / "scripts"


def user_rules() -> Path:
    path = Path(os.environ["JOUET_CONFIG_DIR"]) / "rules"
    path.mkdir(parents=True, exist_ok=True)
    return path


def install(name: str) -> None:
    for suffix in (".toml", ".luau"):
        shutil.copy(DATA / f"{name}{suffix}", user_rules() / f"{name}{suffix}")


def script_rule(tmp_path: Path, luau: str, match: str = 'command = "demo"', source: str = USER,
                extra: str = "", examples: str = 'fires = ["demo x"]\nquiet = ["other"]') -> object:
    (tmp_path / "r.luau").write_text(luau)
    text = (f'[[rule]]\nname = "demo"\nwhy = "testing"\nscript = "r.luau"\n{extra}\n[rule.match]\n{match}\n'
            f"[rule.examples]\n{examples}\n")
    (tmp_path / "r.toml").write_text(text)
    [rule] = load_file(str(tmp_path / "r.toml"), source, source)
    assert rule.state == "enabled", rule.error
    return rule


def run(rule: object, command: str, **call: object) -> object:
    c = Call(command=command, cwd=str(call.pop("cwd", "/tmp")), **call)  # type: ignore[arg-type]
    return decide([rule], c, scripts=HookScripts())  # type: ignore[list-item]


def test_long_sleep_examples_and_hook(tmp_path: Path) -> None:
    install("long-sleep")
    proc = run_jouet("rule", "test", "long-sleep", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "long-sleep: 3 of 3 examples passed" in proc.stdout
    repo = make_repo(tmp_path / "r")
    out = run_jouet("hook", "claude", "pre", input=claude_payload("sleep 120 && gh pr checks", repo), cwd=repo)
    context = json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"]
    assert context == "Wait for what you need with `jouet wait` instead of sleeping. [jouet rule: long-sleep]"
    quiet = run_jouet("hook", "claude", "pre", input=claude_payload("sleep 2", repo), cwd=repo)
    assert quiet.stdout == ""
    cache = Path(os.environ["JOUET_CACHE_DIR"]) / "luau"
    assert len(list(cache.glob("*.lua"))) == 1
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700


def test_piped_test_output_rewrites_where_it_may(tmp_path: Path) -> None:
    [rule] = load_file(str(DATA / "piped-test-output.toml"), BUILTIN, BUILTIN)
    report = run_examples(rule)
    assert report.ok, [(r.label, r.expected, r.actual) for r in report.results if not r.ok]
    decision = run(rule, "cargo test -p parser 2>&1 | tail -n 40", rewrite=True)
    assert decision.rewrite is not None
    assert decision.rewrite.command == "cargo test -p parser 2>&1"
    assert decision.deny is None
    denied = run(rule, "cargo test | tail -5 | grep FAIL", rewrite=True)
    assert denied.deny is not None and "save the output to a file" in denied.deny.message
    # The same script as a rule of yours may not rewrite: the call goes ahead, and the error is reported.
    [mine] = load_file(str(DATA / "piped-test-output.toml"), USER, USER)
    mine.mode = "deny"
    error = run(mine, "pytest -x | head", rewrite=True)
    assert error.rewrite is None and error.deny is None
    assert "only for a built-in deny-mode rule" in error.errors[0][1]


def test_the_call_table_and_helpers(tmp_path: Path) -> None:
    luau = """
local rule = {
  check = function(call)
    local c = call.commands[1]
    local sub, args = jouet.git(c)
    local argv, via = jouet.unwrap({"sudo", "-u", "ci", "env", "A=1", "git", "push"})
    local parsed = jouet.parse("cd sub && git add -A")
    local where = jouet.dirs(parsed)
    local parts = {
      call.event, call.harness, call.tool, call.cwd, tostring(call.rewrite), tostring(#call.commands),
      c.program, tostring(c.matched), tostring(call.commands[2].matched), sub, table.concat(args, ","),
      table.concat(argv, " "), table.concat(via, ","), tostring(where[1]), tostring(where[2]),
      tostring(jouet.short_flag("-fu", "f")), tostring(jouet.short_flag("-of", "f", "o")),
      table.concat(jouet.options({"a", "--", "b"}), ","), tostring(jouet.contains({"x", "y"}, "y")),
      jouet.basename("/a/b/c.txt"), tostring(jouet.has_command("rule", "list")),
      tostring(jouet.has_command("wait", "ci")), tostring(c.span[1]) .. "-" .. tostring(c.span[2]),
      tostring(jouet.gh(c)), tostring(call.agent), c.text,
    }
    return jouet.deny(table.concat(parts, "|"))
  end,
}
return rule
"""
    rule = script_rule(tmp_path, luau, 'command = "git push"', extra='mode = "deny"')
    decision = run(rule, "git -C repo push -f origin main; echo done")
    assert decision.errors == []
    assert decision.deny is not None
    assert decision.deny.message.split("|") == [
        "pre-tool-use", "test", "Bash", "/tmp", "false", "2", "git", "true", "false", "push",
        "-f,origin,main", "git push", "sudo,env", "nil", "sub", "true", "false", "a", "true", "c.txt", "true",
        "false", "1-31", "nil", "nil", "git -C repo push -f origin main",
    ]



def test_every_list_of_a_command_table_is_whole_when_the_reader_shares_them(tmp_path: Path) -> None:
    # The reader hands a command its words as its argv (one list), and a wrapper's commands may share
    # what they were read from; the call table is made in one conversion, which must fill each copy.
    luau = """
return {
  check = function(call)
    local parts = {}
    for i = 1, #call.commands do
      local c = call.commands[i]
      parts[#parts + 1] = table.concat(c.words, " ") .. "/" .. table.concat(c.argv, " ") .. "/"
        .. tostring(c.env.A) .. "/" .. table.concat(c.via, ",")
    end
    return jouet.deny(table.concat(parts, "|"))
  end,
}
"""
    rule = script_rule(tmp_path, luau, 'command = "demo"', extra='mode = "deny"')
    decision = run(rule, "A=1 demo x y; A=1 sudo demo z")
    assert decision.errors == []
    assert decision.deny is not None
    assert decision.deny.message.split("|") == ["demo x y/demo x y/1/", "sudo demo z/demo z/1/sudo"]

def test_post_tool_use_records_and_its_deny_only_warns(tmp_path: Path) -> None:
    luau = """
return {
  check = function(call)
    for _, c in call.commands do
      if c.matched then jouet.record("test", c, "full") end
    end
    return jouet.deny("ran the tests")
  end,
}
"""
    rule = script_rule(tmp_path, luau, 'command = "cargo test"', extra='on = "post-tool-use"\nmode = "deny"',
                       examples='fires = [{ command = "cargo test", kind = "test", scope = "full" }]\n'
                                'quiet = ["ls"]')
    report = run_examples(rule)  # type: ignore[arg-type]
    assert report.results[0].ok, report.results[0].actual
    decision = run(rule, "cargo test; echo done", event=POST_TOOL_USE, exit_code=0)
    assert decision.deny is None
    assert [w.message for w in decision.warnings] == ["ran the tests"]
    # `echo done` ran last and succeeded: cargo test's own status is unknown, so nothing is recorded.
    assert decision.records == []
    ok = run(rule, "cargo test && cargo build", event=POST_TOOL_USE, exit_code=0)
    assert [(r["kind"], r["ok"], r["scope"]) for r in ok.records] == [("test", True, "full")]
    failed = run(rule, "cargo test", event=POST_TOOL_USE, exit_code=101)
    assert failed.records[0]["ok"] is False and failed.records[0]["exit_code"] == 101


ATTACKS = {
    "io": "return {check = function(c) io.open('/etc/passwd') end}",
    "os": "return {check = function(c) os.execute('touch /tmp/x') end}",
    "load": "return {check = function(c) load('return 1')() end}",
    "require": "return {check = function(c) require('os') end}",
    "python": "return {check = function(c) python.eval('1') end}",
    "loop": "return {check = function(c) while true do end end}",
    "recursion": "local function f(n) return f(n + 1) + 1 end return {check = function(c) return f(1) end}",
    "memory": "return {check = function(c) local t = {} for i = 1, 1e9 do t[i] = string.rep('x', 100) .. i end end}",
    "rep": "return {check = function(c) local s = string.rep('x', 2^40) end}",
    "pattern": "return {check = function(c) string.rep('a', 1e5):find('.-.-.-.-.-b') end}",
    "assign": "return {check = function(c) jouet.deny = function() end end}",
    "rawset": "return {check = function(c) rawset(jouet, 'deny', 1) end}",
    "metatable": "return {check = function(c) setmetatable(jouet, {}) end}",
    "getmeta": "return {check = function(c) getmetatable(jouet).__index = {} end}",
    "call": "return {check = function(c) c.command = 'rm -rf /' end}",
    "junk": "return {check = function(c) return 42 end}",
    "junk-table": "return {check = function(c) return {action = 'explode', message = 'x'} end}",
    "no-message": "return {check = function(c) return {action = 'deny'} end}",
    "syntax": "return {check = function(c) if then end}",
    "no-check": "return {}",
    "throw": "return {check = function(c) error({}) end}",
    "dump": "return {check = function(c) string.dump(print) end}",
    "callback-attr": "return {check = function(c) return jouet.repo.__class__ end}",
    "parse-huge-script": "return {check = function(c) local x = jouet.parse(string.rep('a; ', 3e6)) return x end}",
}


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_attacks_say_nothing_and_are_reported(tmp_path: Path, name: str) -> None:
    rule = script_rule(tmp_path, ATTACKS[name])
    decision = run(rule, "demo now")
    assert decision.action is None
    assert decision.errors and decision.errors[0][0] == "demo"
    assert "r.luau" in decision.errors[0][1]


def test_one_rule_cannot_touch_anothers_globals(tmp_path: Path) -> None:
    a = tmp_path / "a"
    b = tmp_path / "b"
    a.mkdir()
    b.mkdir()
    first = script_rule(a, "shared = 'mine'\nreturn {check = function(c) shared = 'changed' return nil end}")
    peek = "return {check = function(c) if shared ~= nil then return jouet.deny('saw ' .. shared) end end}"
    second = script_rule(b, peek)
    second.name = "other"  # type: ignore[attr-defined]
    scripts = HookScripts()
    decision = decide([first, second], Call(command="demo", cwd="/tmp"), scripts=scripts)  # type: ignore[list-item]
    assert decision.action is None and decision.errors == []


def test_reading_a_field_that_does_not_exist_records_a_gap(tmp_path: Path) -> None:
    luau = "return {check = function(c) local x = jouet.pr local y = c.nonesuch local z = c.agent return nil end}"
    rule = script_rule(tmp_path, luau)
    decision = run(rule, "demo")
    assert decision.errors == []
    gaps = [json.loads(line) for line in (Path(os.environ["JOUET_STATE_DIR"]) / "gaps.jsonl").read_text().splitlines()]
    texts = {g["text"] for g in gaps}
    assert texts == {"read jouet.pr, which does not exist", "read call.nonesuch, which does not exist"}
    assert all(g["rule"] == "demo" and g["by"] == "script" for g in gaps)


def test_types_declare_every_field() -> None:
    text = definitions()
    call = text[text.index("export type JouetCall"):text.index("export type JouetDecision")]
    command = text[text.index("export type JouetCommand"):text.index("export type JouetCall")]
    module = text[text.index("declare jouet"):]
    for field in CALL_FIELDS:
        assert f"\t{field}:" in call, field
    for field in COMMAND_FIELDS:
        assert f"\t{field}:" in command, field
    for field in MODULE_FIELDS:
        assert f"\t{field}:" in module, field
    proc = run_jouet("rule", "types")
    assert proc.returncode == 0 and proc.stdout == text


def test_no_vm_starts_unless_a_script_rule_matched(tmp_path: Path) -> None:
    install("long-sleep")
    repo = make_repo(tmp_path / "r")
    code = ("import sys\nfrom jouet_git.cli import main\nmain(['hook', 'claude', 'pre'])\n"
            "sys.stderr.write(' '.join(sorted(sys.modules)))\n")
    # warm the rule set cache and the translation cache
    run_jouet("hook", "claude", "pre", input=claude_payload("sleep 30", repo), cwd=repo)
    quiet = subprocess.run([sys.executable, "-c", code], input=claude_payload("git status", repo), cwd=repo,
                           capture_output=True, text=True)
    assert "lupa" not in quiet.stderr.split()
    fired = subprocess.run([sys.executable, "-c", code], input=claude_payload("sleep 60", repo), cwd=repo,
                           capture_output=True, text=True)
    modules = fired.stderr.split()
    assert "lupa" in modules and "jouet_git.luau.translate" not in modules  # translation came from the cache


def test_cache_not_used_when_others_can_write_it(tmp_path: Path) -> None:
    cache = Path(os.environ["JOUET_CACHE_DIR"]) / "luau"
    cache.mkdir(parents=True)
    os.chmod(cache, 0o777)
    install("long-sleep")
    assert run_jouet("rule", "test", "long-sleep", cwd=tmp_path).returncode == 0
    assert list(cache.iterdir()) == []


def test_rule_new_script_writes_a_working_pair(tmp_path: Path) -> None:
    proc = run_jouet("rule", "new", "careful-tags", "--why", "tags", "--script", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    toml = user_rules() / "careful-tags.toml"
    text = toml.read_text().replace('command = "TODO"', 'command = "git tag"')
    text = text.replace("fires = []", 'fires = ["git tag v1"]').replace("quiet = []", 'quiet = ["git status"]')
    toml.write_text(text)
    test = run_jouet("rule", "test", "careful-tags", cwd=tmp_path)
    assert test.returncode == 0, test.stdout + test.stderr


def test_syntax_errors_name_file_line_and_column(tmp_path: Path) -> None:
    rule = script_rule(tmp_path, "local x = 1\nreturn {check = function(c)\n  if x then\nend}\n")
    decision = run(rule, "demo")
    assert decision.errors
    message = decision.errors[0][1]
    assert f"{tmp_path / 'r.luau'}:4:" in message


def test_load_text_keeps_script_paths(tmp_path: Path) -> None:
    (tmp_path / "x.luau").write_text("return {check = function(c) return nil end}")
    [rule] = load_text('[[rule]]\nname = "x"\nwhy = "y"\nscript = "x.luau"\nmatch = { command = "x" }\n',
                       str(tmp_path / "x.toml"), USER, USER)
    assert rule.script == str(tmp_path / "x.luau")


def test_a_failing_script_in_a_hook_says_nothing_and_is_reported(tmp_path: Path) -> None:
    (user_rules() / "broken.toml").write_text(
        '[[rule]]\nname = "broken"\nwhy = "x"\nscript = "broken.luau"\nmatch = { command = "ls" }\n'
        'examples = { fires = ["ls"], quiet = ["pwd"] }\n')
    (user_rules() / "broken.luau").write_text("return {check = function(c) while true do end end}\n")
    repo = make_repo(tmp_path / "r")
    proc = run_jouet("hook", "claude", "pre", input=claude_payload("ls -la", repo), cwd=repo)
    assert proc.returncode == 0 and proc.stdout == ""
    assert "jouet: rule broken failed and said nothing" in proc.stderr and "budget" in proc.stderr
    ledger = Path(os.environ["JOUET_STATE_DIR"]) / "ledger.jsonl"
    records = [json.loads(line) for line in ledger.read_text().splitlines()]
    [error] = records[-1]["errors"]
    assert error["rule"] == "broken" and "budget" in error["error"] and records[-1]["decision"] == "none"
