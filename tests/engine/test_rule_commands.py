"""`jouet rule list|test|new|promote|log|schema|gap` as a person runs them."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from testing import make_repo, run_jouet

RM_RULE = """\
#:schema https://example.invalid/schema.json
# a comment that promote must keep
[[rule]]
name = "no-rm-rf"
why = "rm -r deletes for good, and agents are quick to reach for it"
author = "jdx"
created = 2026-10-30
message = "rm -r deletes for good; is this path right?"

[rule.match]
command = "rm"
flags = ["-r", "-R", "--recursive"]

[rule.examples]
# Calls the rule must fire on.
fires = ["rm -rf target", "sudo rm -r build"]
# Near misses it must leave alone.
quiet = ["rm file.txt", "echo 'rm -rf /'", "git commit -m 'rm -rf old code'"]
"""


def user_rules() -> Path:
    path = Path(os.environ["JOUET_CONFIG_DIR"]) / "rules"
    path.mkdir(parents=True, exist_ok=True)
    return path


def test_list_shows_builtin_rules_with_columns(tmp_path: Path) -> None:
    proc = run_jouet("rule", "list", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    line = next(line for line in proc.stdout.splitlines() if line.startswith("git-add-all "))
    assert line.split()[:4] == ["git-add-all", "enabled", "deny", "builtin"]
    data = json.loads(run_jouet("rule", "list", "--json", cwd=tmp_path).stdout)
    row = next(r for r in data if r["name"] == "force-push")
    assert row["state"] == "enabled" and row["scope"] == "builtin" and row["mode"] == "deny"


def test_user_rule_defaults_to_warn_and_without_examples_only_warns(tmp_path: Path) -> None:
    (user_rules() / "no-tags.toml").write_text(
        '[[rule]]\nname = "no-tags"\nwhy = "tags are for releases"\nmode = "deny"\nmessage = "no tags"\n'
        '[rule.match]\ncommand = "git tag"\n[rule.examples]\nfires = ["git tag v1"]\n'
    )
    proc = run_jouet("rule", "list", cwd=tmp_path)
    assert "note: no-tags only warns, and cannot be promoted, until it has examples of both kinds" in " ".join(
        proc.stdout.split())
    check = run_jouet("check", "git tag v2", cwd=tmp_path)
    assert check.returncode == 0 and check.stdout.startswith("warn: no tags")
    test = run_jouet("rule", "test", "no-tags", cwd=tmp_path)
    assert test.returncode == 1
    assert "it has no `quiet` examples" in test.stdout


def test_name_of_a_builtin_is_refused_and_the_builtin_keeps_running(tmp_path: Path) -> None:
    (user_rules() / "mine.toml").write_text(
        '[[rule]]\nname = "force-push"\nwhy = "mine"\nmessage = "fine"\n'
        '[rule.match]\ncommand = "ls"\n[rule.examples]\nfires = ["ls"]\nquiet = ["pwd"]\n'
    )
    data = json.loads(run_jouet("rule", "list", "--json", cwd=tmp_path).stdout)
    rows = [r for r in data if r["name"] == "force-push"]
    assert [r["scope"] for r in rows] == ["builtin", "user"]
    assert rows[1]["state"] == "broken" and "is taken by the builtin rule" in rows[1]["error"]
    assert run_jouet("check", "git push -f", cwd=tmp_path).returncode == 1
    assert run_jouet("check", "ls", cwd=tmp_path).returncode == 0


def test_test_a_file_prints_each_example_and_a_summary(tmp_path: Path) -> None:
    path = tmp_path / "no-rm-rf.toml"
    old = '"git commit -m \'rm -rf old code\'"]'
    path.write_text(RM_RULE.replace(old, old[:-1] + ', "rm -ri build"]'))
    proc = run_jouet("rule", "test", "./no-rm-rf.toml", cwd=tmp_path)
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert "ok   fires rm -rf target" in lines
    assert "FAIL quiet rm -ri build" in lines
    assert "- expected: quiet" in lines
    assert "+ actual: deny: rm -r deletes for good; is this path right?" in lines
    assert lines[-1] == "no-rm-rf: 5 of 6 examples passed"
    path.write_text(RM_RULE.replace('flags = ["-r"', 'flag = ["-r"'))
    bad = run_jouet("rule", "test", "./no-rm-rf.toml", cwd=tmp_path)
    assert bad.returncode == 2  # a file that does not load is not a failed example
    assert "./no-rm-rf.toml:12: unknown field `flag` in the matcher: did you mean `flags`?" in bad.stderr


def test_test_all_and_command(tmp_path: Path) -> None:
    (user_rules() / "no-rm-rf.toml").write_text(RM_RULE)
    proc = run_jouet("rule", "test", "--all", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout
    assert "ok   no-rm-rf 5 examples passed" in proc.stdout
    assert proc.stdout.splitlines()[-1].endswith("rules passed their examples")
    one = run_jouet("rule", "test", "no-rm-rf", "--command", "rm -rf build", cwd=tmp_path)
    assert one.returncode == 0 and one.stdout.strip() == "warn: rm -r deletes for good; is this path right?"
    stash = run_jouet("rule", "test", "git-stash", "--command", "git stash pop", cwd=tmp_path)
    assert stash.stdout.strip() == "quiet"
    unknown = run_jouet("rule", "test", "nope", cwd=tmp_path)
    assert unknown.returncode == 2 and "no rule named `nope`" in unknown.stderr


def test_test_payload(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    from testing import claude_payload

    payload = tmp_path / "hook-input.json"
    payload.write_text(claude_payload("git push --force origin main", repo))
    proc = run_jouet("rule", "test", "force-push", "--payload", str(payload), cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("deny: A force push")
    stdin = run_jouet("rule", "test", "force-push", "--payload", "-", input=claude_payload("git push", repo), cwd=repo)
    assert stdin.stdout.strip() == "quiet"


def test_new_then_promote_keeps_comments_and_logs(tmp_path: Path) -> None:
    proc = run_jouet("rule", "new", "no-rm-rf", "--why", "rm -r deletes for good", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    path = user_rules() / "no-rm-rf.toml"
    assert 'mode = "warn"' in path.read_text()
    listed = run_jouet("rule", "list", "--json", cwd=tmp_path)
    row = next(r for r in json.loads(listed.stdout) if r["name"] == "no-rm-rf")
    # The template loads: it matches nothing and only warns until it is filled in.
    assert row["state"] == "enabled" and row["mode"] == "warn" and row["errors"] == []
    assert "it has no examples" in row["only_warns"]
    assert "note: no-rm-rf is still the template" in run_jouet("rule", "list", cwd=tmp_path).stdout
    again = run_jouet("rule", "new", "no-rm-rf", "--why", "x", cwd=tmp_path)
    assert again.returncode == 2
    path.write_text(RM_RULE)
    promoted = run_jouet("rule", "promote", "no-rm-rf", "--reason", "examples pass", cwd=tmp_path)
    assert promoted.returncode == 0, promoted.stdout + promoted.stderr
    text = path.read_text()
    assert "# a comment that promote must keep" in text and "# Near misses it must leave alone." in text
    assert 'mode = "deny"' in text
    assert run_jouet("check", "rm -rf build", cwd=tmp_path).returncode == 1
    log = json.loads(run_jouet("rule", "log", "--json", cwd=tmp_path).stdout)
    assert [r["action"] for r in log] == ["new", "promote"]
    assert log[1]["reason"] == "examples pass"
    builtin = run_jouet("rule", "promote", "git-stash", cwd=tmp_path)
    assert builtin.returncode == 2 and "only rules in" in builtin.stderr


def test_promote_refuses_a_rule_whose_examples_fail(tmp_path: Path) -> None:
    (user_rules() / "no-rm-rf.toml").write_text(RM_RULE.replace('quiet = ["rm file.txt"', 'quiet = ["rm -r x"'))
    proc = run_jouet("rule", "promote", "no-rm-rf", cwd=tmp_path)
    assert proc.returncode == 1
    assert "cannot be promoted" in proc.stdout
    assert 'mode = "deny"' not in (user_rules() / "no-rm-rf.toml").read_text()


def test_schema_and_gap(tmp_path: Path) -> None:
    schema = json.loads(run_jouet("rule", "schema").stdout)
    assert set(schema["definitions"]["rule"]["properties"]) >= {"name", "why", "match", "examples"}
    assert run_jouet("rule", "gap", "match on the branch name", "--rule", "no-tags").returncode == 0
    gaps = json.loads(run_jouet("rule", "gap", "--json").stdout)
    assert gaps[-1]["text"] == "match on the branch name" and gaps[-1]["rule"] == "no-tags"
    state = Path(os.environ["JOUET_STATE_DIR"]) / "gaps.jsonl"
    assert stat.S_IMODE(state.stat().st_mode) == 0o600


def test_enforced_rules_cannot_be_disabled_and_writable_ones_do_not_run(tmp_path: Path) -> None:
    system = Path(os.environ["JOUET_SYSTEM_DIR"]) / "rules"
    system.mkdir(parents=True)
    os.chmod(system.parent, 0o755)
    os.chmod(system, 0o755)
    (system / "no-curl.toml").write_text(
        '[[rule]]\nname = "no-curl-bash"\nwhy = "policy"\nmessage = "not here"\n'
        '[rule.match]\ncommand = "curl"\n[rule.examples]\nfires = ["curl x"]\nquiet = ["wget x"]\n'
    )
    config = Path(os.environ["JOUET_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text('[rules]\ndisable = ["no-curl-bash", "git-stash"]\n')
    assert run_jouet("check", "curl https://x", cwd=tmp_path).returncode == 1
    assert run_jouet("check", "git stash", cwd=tmp_path).returncode == 0
    env = {"JOUET_RULES_DISABLE": "force-push,no-curl-bash"}
    assert run_jouet("check", "git push -f", cwd=tmp_path, env=env).returncode == 0
    assert run_jouet("check", "curl x", cwd=tmp_path, env=env).returncode == 1
    os.chmod(system, 0o777)
    data = json.loads(run_jouet("rule", "list", "--json", cwd=tmp_path).stdout)
    row = next(r for r in data if r["name"] == "no-curl-bash")
    assert row["scope"] == "enforced:writable" and row["state"] == "untrusted"
    assert run_jouet("check", "curl x", cwd=tmp_path).returncode == 0


def test_new_writes_valid_toml_for_any_why_and_a_schema_beside_it(tmp_path: Path) -> None:
    import jsonschema
    import tomli

    why = 'no 🚀, no "quotes", no \\ back\tslash'
    proc = run_jouet("rule", "new", "no-rocket", "--why", why, "--script", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    path = user_rules() / "no-rocket.toml"
    text = path.read_text(encoding="utf-8")
    assert "\\ud83d" not in text and "🚀" in text
    doc = tomli.loads(text)
    assert doc["rule"][0]["why"] == " ".join(why.split())
    assert text.splitlines()[0] == "#:schema ./rules.schema.json"
    schema = json.loads((user_rules() / "rules.schema.json").read_text())
    assert schema == json.loads(run_jouet("rule", "schema", cwd=tmp_path).stdout)
    jsonschema.validate(doc, schema)
    assert (user_rules() / "no-rocket.luau").exists()
    row = next(r for r in json.loads(run_jouet("rule", "list", "--json", cwd=tmp_path).stdout)
               if r["name"] == "no-rocket")
    assert row["state"] == "enabled", row
    # Nothing fires until the matcher is filled in.
    assert run_jouet("check", "git tag v1", cwd=tmp_path).stdout.strip() == "no rule fired"


def test_new_refuses_a_why_that_is_not_text(tmp_path: Path) -> None:
    proc = run_jouet("rule", "new", "x-rule", "--why", "   ", cwd=tmp_path)
    assert proc.returncode == 2 and "--why must say" in proc.stderr
