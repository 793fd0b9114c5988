"""mode = "ask" (a jouet extension): loaded and validated, decided between a denial and a warning,
checked by examples, and shown by `jouet check` and `jouet rule test`."""

from __future__ import annotations

import json
import os
from pathlib import Path

from testing import make_repo, run_jouet

from jouet_git.call import POST_TOOL_USE, Call
from jouet_git.engine.decide import decide
from jouet_git.engine.examples import run_examples
from jouet_git.engine.load import load_text
from jouet_git.engine.model import ENABLED, USER
from jouet_git.engine.schema import schema


def rule(name: str, mode: str, command: str, action: str | None = None) -> str:
    example = f'{{ command = "{command} x", action = "{action}" }}' if action else f'"{command} x"'
    return (f'[[rule]]\nname = "{name}"\nwhy = "test"\nmode = "{mode}"\nmessage = "{name} says so."\n'
            f'[rule.match]\ncommand = "{command}"\n[rule.examples]\nfires = [{example}]\nquiet = ["true"]\n')


def load(*texts: str) -> list:
    rules = load_text("\n".join(texts), "/tmp/r.toml", USER, USER)
    assert all(r.state == ENABLED for r in rules), [(r.name, r.error) for r in rules]
    return rules


def call(command: str, event: str = "pre-tool-use") -> Call:
    return Call(event=event, command=command, cwd="/")


def test_the_loader_and_the_schema_accept_ask() -> None:
    [r] = load(rule("gc", "ask", "git gc", "ask"))
    assert r.mode == "ask" and r.shown_mode == "ask"
    assert "ask" in schema()["definitions"]["rule"]["properties"]["mode"]["enum"]
    [bad] = load_text(rule("gc", "query", "git gc"), "/tmp/r.toml", USER, USER)
    assert bad.error is not None and '"ask"' in bad.error


def test_an_ask_is_stronger_than_a_warning_and_weaker_than_a_denial() -> None:
    warn, ask, deny, ask2 = (rule("w", "warn", "git gc"), rule("a", "ask", "git gc"), rule("d", "deny", "git gc"),
                             rule("a2", "ask", "git gc"))
    decision = decide(load(warn, ask, ask2), call("git gc --prune=now"))
    assert decision.action == "ask" and decision.deny is not None and decision.deny.rule == "a"
    assert [w.rule for w in decision.warnings] == ["w"]
    assert decision.to_json()["decision"] == "ask"
    # a denial later in the order still wins over an earlier ask
    later = decide(load(ask, deny), call("git gc"))
    assert later.deny is not None and (later.deny.rule, later.deny.action) == ("d", "deny")
    # after a tool nothing is stopped: an ask is a warning, as a denial is
    post = ask.replace('mode = "ask"', 'mode = "ask"\non = "post-tool-use"').replace(
        '"git gc x"', '{ command = "git gc x", exit_code = 0 }').replace(
        '["true"]', '[{ command = "true", exit_code = 0 }]')
    after = decide(load(post), call("git gc", POST_TOOL_USE))
    assert after.deny is None and [w.action for w in after.warnings] == ["warn"]
    # no locking out: an ask of a call that only runs jouet is a warning
    jouet = decide(load(rule("a", "ask", "jouet")), call("jouet rule list"))
    assert jouet.deny is None and [w.rule for w in jouet.warnings] == ["a"]


def test_examples_say_action_ask_of_an_ask_mode_rule_only() -> None:
    [asking] = load(rule("gc", "ask", "git gc", "ask"))
    assert run_examples(asking).ok
    [denying] = load_text(rule("gc", "deny", "git gc", "ask"), "/tmp/r.toml", USER, USER)
    report = run_examples(denying)
    assert not report.ok and report.results[0].expected == "ask"


def test_check_and_rule_test_show_an_ask(tmp_path: Path) -> None:
    rules = Path(os.environ["JOUET_CONFIG_DIR"]) / "rules"
    rules.mkdir(parents=True)
    (rules / "gc.toml").write_text(rule("gc-ask", "ask", "git gc", "ask"))
    repo = make_repo(tmp_path / "r")
    proc = run_jouet("check", "git gc --prune=now", cwd=repo)
    assert proc.returncode == 1 and "ask: gc-ask says so. [jouet rule: gc-ask]" in proc.stdout
    said = json.loads(run_jouet("check", "--json", "git gc", cwd=repo).stdout)
    assert said["decision"] == "ask" and said["deny"]["action"] == "ask"
    assert run_jouet("rule", "test", "gc-ask", cwd=repo).returncode == 0
    ledger = Path(os.environ["JOUET_STATE_DIR"]) / "ledger.jsonl"
    line = json.loads(ledger.read_text().splitlines()[-1])
    assert line["decision"] == "ask" and line["rules"] == [{"rule": "gc-ask", "action": "ask"}]
