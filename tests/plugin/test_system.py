"""The system's plugins ($JOUET_SYSTEM_DIR/plugins/NAME): enforced, always on, off while others can write them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from testing import make_repo, run_jouet

CURL = ('[[rule]]\nname = "no-curl"\nwhy = "policy"\nmessage = "Use the proxy."\n[rule.match]\ncommand = "curl"\n'
        '[rule.examples]\nfires = ["curl x"]\nquiet = ["wget x"]\n')


def system_plugin(name: str = "policy", manifest_name: str | None = None) -> Path:
    system = Path(os.environ["JOUET_SYSTEM_DIR"])
    folder = system / "plugins" / name
    (folder / "rules").mkdir(parents=True)
    (folder / "plugin.toml").write_text(f'name = "{manifest_name or name}"\ndescription = "site policy"\n')
    (folder / "rules" / "curl.toml").write_text(CURL)
    for path in (system, system / "plugins", folder, folder / "rules"):
        os.chmod(path, 0o755)
    for path in (folder / "plugin.toml", folder / "rules" / "curl.toml"):
        os.chmod(path, 0o644)
    return folder


def row(cwd: Path, name: str) -> dict[str, object]:
    return next(r for r in json.loads(run_jouet("rule", "list", "--json", cwd=cwd).stdout) if r["name"] == name)


def test_system_plugins_are_enforced_and_cannot_be_turned_off(tmp_path: Path) -> None:
    system_plugin()
    found = row(tmp_path, "policy/no-curl")
    assert found["scope"] == "enforced" and found["state"] == "enabled" and found["source"] == "enforced"
    assert run_jouet("check", "curl x", cwd=tmp_path).returncode == 1
    config = Path(os.environ["JOUET_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text('[rules]\ndisable = ["all"]\n')
    assert run_jouet("check", "curl x", cwd=tmp_path, env={"JOUET_RULES_DISABLE": "policy/no-curl"}).returncode == 1
    listed = {r["name"]: r for r in json.loads(run_jouet("plugin", "list", "--json").stdout)}
    assert listed["policy"]["state"] == "enforced" and listed["policy"]["scope"] == "enforced"


def test_writable_system_plugins_do_not_run(tmp_path: Path) -> None:
    folder = system_plugin()
    os.chmod(folder / "rules" / "curl.toml", 0o666)
    found = row(tmp_path, "policy/no-curl")
    assert found["scope"] == "enforced:writable" and found["state"] == "untrusted"
    assert "chmod go-w" in str(found["detail"])
    assert run_jouet("check", "curl x", cwd=tmp_path).returncode == 0
    os.chmod(folder / "rules" / "curl.toml", 0o644)
    os.chmod(folder, 0o775)
    assert row(tmp_path, "policy/no-curl")["scope"] == "enforced:writable"
    os.chmod(folder, 0o755)
    assert run_jouet("check", "curl x", cwd=tmp_path).returncode == 1


def test_a_system_plugin_whose_manifest_disagrees_does_not_run(tmp_path: Path) -> None:
    system_plugin("policy", manifest_name="other")
    found = row(tmp_path, "policy/no-curl")
    assert found["state"] == "untrusted" and "names the plugin `other`" in str(found["detail"])
    assert run_jouet("check", "curl x", cwd=tmp_path).returncode == 0


HEAVY = ("git", "filelock", "tomlkit", "rich")
BUILD = """
import json, sys
from jouet_git.engine.ruleset import load
ruleset = load(sys.argv[1])
names = sorted(r.name for r in ruleset.rules if r.runs and ("/" in r.name or r.source == "repo"))
print(json.dumps({"rules": names, "heavy": sorted(m for m in json.loads(sys.argv[2]) if m in sys.modules)}))
"""


def test_building_rules_with_trust_and_plugins_imports_nothing_heavy(tmp_path: Path) -> None:
    system_plugin()
    work = make_repo(tmp_path / "work", {
        ".jouet/rules/own.toml": CURL.replace("no-curl", "no-wget").replace('"curl"', '"wget"')
        .replace('fires = ["curl x"]\nquiet = ["wget x"]', 'fires = ["wget x"]\nquiet = ["curl x"]'),
    })
    run_jouet("trust", "--yes", cwd=work, check=True)
    plugin = tmp_path / "team"
    (plugin / "rules").mkdir(parents=True)
    (plugin / "plugin.toml").write_text('name = "team"\ndescription = "x"\n')
    (plugin / "rules" / "curl.toml").write_text(CURL)
    run_jouet("plugin", "add", "team", str(plugin), "--yes", check=True)
    done = subprocess.run([sys.executable, "-c", BUILD, str(work), json.dumps(HEAVY)],
                          capture_output=True, text=True, check=True)
    result = json.loads(done.stdout)
    assert result["rules"] == ["no-wget", "policy/no-curl", "team/no-curl"]
    assert result["heavy"] == []
