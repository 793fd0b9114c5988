"""The cached rule set never outlives a change to trust, pins or plugin copies."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from testing import make_repo, run_jouet

from jouet_git.engine.build import build

TAGS = ('[[rule]]\nname = "no-tags"\nwhy = "x"\nmessage = "Tags come from the release job."\n'
        '[rule.match]\ncommand = "git tag"\n[rule.examples]\nfires = ["git tag v1"]\nquiet = ["git log --tags"]\n')
CURL = TAGS.replace("no-tags", "no-curl").replace('"git tag"', '"curl"').replace(
    'fires = ["git tag v1"]\nquiet = ["git log --tags"]', 'fires = ["curl x"]\nquiet = ["wget x"]')


def plugin(path: Path, name: str) -> Path:
    (path / "rules").mkdir(parents=True)
    (path / "plugin.toml").write_text(f'name = "{name}"\ndescription = "x"\n')
    (path / "rules" / "curl.toml").write_text(CURL)
    return path


def test_every_file_that_decides_is_a_dependency(tmp_path: Path) -> None:
    work = make_repo(tmp_path / "work", {".jouet/rules/tags.toml": TAGS, ".jouet/rules/x.luau": "return {}\n"})
    run_jouet("trust", "--yes", cwd=work, check=True)
    run_jouet("plugin", "add", "team", str(plugin(tmp_path / "team", "team")), "--yes", check=True)
    _, deps = build(str(work))
    state = Path(os.environ["JOUET_STATE_DIR"])
    data = Path(os.environ["JOUET_DATA_DIR"]) / "plugins" / "user"
    config = Path(os.environ["JOUET_CONFIG_DIR"]) / "config.toml"
    for path in (state / "trust.json", config, work / ".jouet", work / ".jouet/rules/tags.toml",
                 work / ".jouet/rules/x.luau", data, data / "team", data / "team/plugin.toml",
                 data / "team/rules/curl.toml"):
        assert str(path) in deps, path


def test_a_repository_without_jouet_notices_one_appearing(tmp_path: Path) -> None:
    work = make_repo(tmp_path / "work")
    _, deps = build(str(work))
    assert str(work / ".jouet") in deps


def test_a_cached_rule_set_is_rebuilt_when_a_plugin_copy_changes(tmp_path: Path) -> None:
    work = make_repo(tmp_path / "work", {".jouet/rules/tags.toml": TAGS})
    run_jouet("trust", "--yes", cwd=work, check=True)
    run_jouet("plugin", "add", "team", str(plugin(tmp_path / "team", "team")), "--yes", check=True)
    # The cache is only written once every file it depends on is older than two seconds.
    time.sleep(2.2)
    assert run_jouet("check", "curl x", cwd=work).returncode == 1
    caches = list((Path(os.environ["JOUET_CACHE_DIR"]) / "rulesets").glob("*.marshal"))
    assert caches, "the rule set was not cached"
    assert run_jouet("check", "git tag v1", cwd=work).returncode == 1
    copy = Path(os.environ["JOUET_DATA_DIR"]) / "plugins" / "user" / "team" / "rules" / "curl.toml"
    copy.write_text(copy.read_text().replace("release job", "release team"))
    decision = json.loads(run_jouet("check", "--json", "curl x", cwd=work).stdout)
    assert decision["deny"] is None
    run_jouet("trust", "--revoke", cwd=work, check=True)
    assert run_jouet("check", "git tag v1", cwd=work).returncode == 0
