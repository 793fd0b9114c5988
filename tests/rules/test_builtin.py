"""Every built-in rule passes its examples, has both kinds, and validates against the schema."""

from __future__ import annotations

import json
import os

import jsonschema
import pytest
import tomli

from jouet_git import paths
from jouet_git.engine.examples import run_examples
from jouet_git.engine.load import load_file
from jouet_git.engine.model import BUILTIN, ENABLED
from jouet_git.engine.schema import schema

RULE_FILES = sorted(
    os.path.join(paths.builtin_rules_dir(), n) for n in os.listdir(paths.builtin_rules_dir()) if n.endswith(".toml")
)


def test_there_are_builtin_rules() -> None:
    names = {os.path.basename(f)[:-5] for f in RULE_FILES}
    assert {"git-add-all", "git-stash", "no-verify", "force-push", "jouet-config"} <= names


@pytest.mark.parametrize("path", RULE_FILES, ids=os.path.basename)
def test_builtin_rule_passes_its_examples(path: str) -> None:
    rules = load_file(path, BUILTIN, BUILTIN)
    assert rules
    for rule in rules:
        assert rule.state == ENABLED, rule.error
        report = run_examples(rule)
        assert not report.missing, f"{rule.name}: {report.missing}"
        failures = [f"{r.kind} {r.label}: expected {r.expected}, got {r.actual}" for r in report.results if not r.ok]
        assert not failures, "\n".join(failures)
        assert len(rule.examples["fires"]) >= 3 and len(rule.examples["quiet"]) >= 3


@pytest.mark.parametrize("path", RULE_FILES, ids=os.path.basename)
def test_builtin_rule_validates_against_the_schema(path: str) -> None:
    with open(path, "rb") as f:
        doc = tomli.load(f)
    for table in doc["rule"]:
        if "created" in table:
            table["created"] = str(table["created"])
    jsonschema.validate(doc, schema())


def test_shipped_schema_file_is_current() -> None:
    with open(os.path.join(paths.package_dir(), "rules.schema.json"), encoding="utf-8") as f:
        assert json.load(f) == schema()


def test_the_loader_and_the_schema_agree_on_every_key() -> None:
    """The keys the loader's own error message offers are exactly the keys the schema allows."""
    import re

    from jouet_git.engine.load import load_text

    def offered(text: str) -> set[str]:
        [rule] = load_text(text, "/tmp/x.toml", "user", "user")
        assert rule.state == "broken"
        return set(re.findall(r"`([a-z_]+)`", rule.error.split("expected one of", 1)[1]))

    base = '[[rule]]\nname = "x"\nwhy = "y"\nmessage = "m"\n'
    rule_keys = offered(base + 'zzz = 1\n[rule.match]\ncommand = "ls"\n')
    match_keys = offered(base + '[rule.match]\ncommand = "ls"\nzzz = 1\n')
    definitions = schema()["definitions"]
    assert rule_keys == set(definitions["rule"]["properties"])
    assert match_keys == set(definitions["match"]["properties"])
    example = next(e for e in definitions["example"]["oneOf"] if e.get("type") == "object")
    [rule] = load_text(base + '[rule.match]\ncommand = "ls"\n[rule.examples]\nfires = [{ command = "ls", zzz = 1 }]\n',
                       "/tmp/x.toml", "user", "user")
    assert set(re.findall(r"`([a-z_]+)`", rule.error.split("expected one of", 1)[1])) == set(example["properties"])
