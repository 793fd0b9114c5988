"""`jouet plugin`: plugins pinned by the sha256 of their content, run only while their copy matches."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from testing import git, make_repo, run_jouet

from jouet_git.trust.content import scan


def rule(name: str, command: str, fires: list[str], quiet: list[str], message: str = "not here",
         extra: str = "") -> str:
    return (f'[[rule]]\nname = "{name}"\nwhy = "{name} is for tests"\nmessage = "{message}"\n{extra}'
            f'[rule.match]\ncommand = "{command}"\n'
            f"[rule.examples]\nfires = {json.dumps(fires)}\nquiet = {json.dumps(quiet)}\n")


TAGS = rule("no-tags", "git tag", ["git tag v1"], ["git log --tags"], "Tags come from the release job.")
CURL = rule("no-curl", "curl", ["curl https://x"], ["wget https://x"], "Use the vendored copy.")


def plugin_files(name: str, rules: dict[str, str], settings: str = "") -> dict[str, str]:
    manifest = f'name = "{name}"\ndescription = "rules for tests"\nmin_jouet = "0.1"\n{settings}'
    return {"plugin.toml": manifest, **{f"rules/{file}": text for file, text in rules.items()}}


def make_plugin(path: Path, name: str, rules: dict[str, str], settings: str = "") -> Path:
    for rel, text in plugin_files(name, rules, settings).items():
        (path / rel).parent.mkdir(parents=True, exist_ok=True)
        (path / rel).write_text(text)
    return path


def config_file() -> Path:
    return Path(os.environ["JOUET_CONFIG_DIR"]) / "config.toml"


def copy_of(name: str) -> Path:
    return Path(os.environ["JOUET_DATA_DIR"]) / "plugins" / "user" / name


def rows(cwd: Path) -> dict[str, dict[str, Any]]:
    return {r["name"]: r for r in json.loads(run_jouet("rule", "list", "--json", cwd=cwd).stdout)}


def denied(cwd: Path, command: str) -> str | None:
    data = json.loads(run_jouet("check", "--json", command, cwd=cwd).stdout)
    return data["deny"]["rule"] if data["deny"] else None


def plugins(cwd: Path) -> dict[str, dict[str, Any]]:
    return {r["name"]: r for r in json.loads(run_jouet("plugin", "list", "--json", cwd=cwd).stdout) if r["name"]}


def test_add_a_local_directory_shows_asks_and_pins(tmp_path: Path) -> None:
    source = make_plugin(tmp_path / "team", "team", {"tags.toml": TAGS})
    proc = run_jouet("plugin", "add", "team", str(source), cwd=tmp_path)
    assert proc.returncode == 2 and "no terminal to ask on" in proc.stderr
    assert "team/no-tags  deny  runs: its examples pass (1 fires, 1 quiet)" in proc.stdout
    assert not config_file().exists() and not copy_of("team").exists()
    proc = run_jouet("plugin", "add", "team", str(source), "--yes", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    digest = scan(str(source)).digest
    text = config_file().read_text()
    assert "[plugins.team]" in text and f'sha256 = "{digest}"' in text and f'source = "{source}"' in text
    assert scan(str(copy_of("team"))).digest == digest
    row = rows(tmp_path)["team/no-tags"]
    assert row["scope"] == "plugin:team" and row["plugin"] == "team" and row["pin"] == "ok"
    assert row["state"] == "enabled" and row["mode"] == "deny"
    assert denied(tmp_path, "git tag v2") == "team/no-tags"
    listed = plugins(tmp_path)["team"]
    assert listed["state"] == "ok" and listed["sha256"] == digest and listed["scope"] == "user"
    again = run_jouet("plugin", "add", "team", str(source), "--yes", cwd=tmp_path)
    assert again.returncode == 2 and "already pinned" in again.stderr


def test_a_changed_source_does_not_change_what_runs(tmp_path: Path) -> None:
    source = make_plugin(tmp_path / "team", "team", {"tags.toml": TAGS})
    run_jouet("plugin", "add", "team", str(source), "--yes", check=True)
    (source / "rules" / "curl.toml").write_text(CURL)
    assert denied(tmp_path, "curl https://x") is None and denied(tmp_path, "git tag v2") == "team/no-tags"


def test_a_tampered_copy_is_a_mismatch_until_restored(tmp_path: Path) -> None:
    source = make_plugin(tmp_path / "team", "team", {"tags.toml": TAGS})
    run_jouet("plugin", "add", "team", str(source), "--yes", check=True)
    target = copy_of("team") / "rules" / "tags.toml"
    target.write_text(target.read_text().replace("release job", "release team"))
    row = rows(tmp_path)["team/no-tags"]
    assert row["scope"] == "plugin:team:mismatch" and row["pin"] == "mismatch" and row["state"] == "untrusted"
    assert "hashes to sha256" in row["detail"] and "`jouet plugin update team`" in row["detail"]
    assert denied(tmp_path, "git tag v2") is None
    assert plugins(tmp_path)["team"]["state"] == "mismatch"
    proc = run_jouet("plugin", "update", "team", "--yes")
    assert proc.returncode == 0 and "restored" in proc.stdout
    assert denied(tmp_path, "git tag v2") == "team/no-tags"
    # A missing copy is reported as a problem, and restored the same way.
    import shutil

    shutil.rmtree(copy_of("team"))
    text = run_jouet("rule", "list", cwd=tmp_path).stdout
    text = " ".join(text.split())  # notes are wrapped to the width
    assert "problem: plugin team (pinned in" in text and "has no copy" in text
    assert denied(tmp_path, "git tag v2") is None
    run_jouet("plugin", "update", "team", "--yes", check=True)
    assert denied(tmp_path, "git tag v2") == "team/no-tags"


def test_a_git_plugin_is_pinned_at_its_commit_and_a_moved_tag_needs_an_update(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "team", plugin_files("team", {"tags.toml": TAGS}))
    git(repo, "tag", "v1")
    first = git(repo, "rev-parse", "HEAD").strip()
    proc = run_jouet("plugin", "add", "team", str(repo), "--rev", "v1", "--yes", "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads(proc.stdout)["action"] == "pinned"
    text = config_file().read_text()
    assert f'rev = "{first}"' in text and 'ref = "v1"' in text
    assert not (copy_of("team") / ".git").exists()
    assert denied(tmp_path, "git tag v2") == "team/no-tags"
    # Move the tag to different content: what runs stays what was pinned.
    (repo / "rules" / "curl.toml").write_text(CURL)
    tags = repo / "rules" / "tags.toml"
    tags.write_text(tags.read_text().replace("release job", "release team"))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "more rules")
    git(repo, "tag", "-f", "v1")
    second = git(repo, "rev-parse", "HEAD").strip()
    assert denied(tmp_path, "curl https://x") is None and denied(tmp_path, "git tag v2") == "team/no-tags"
    proc = run_jouet("plugin", "update", "team")
    assert proc.returncode == 2 and "no terminal to ask on" in proc.stderr
    assert "+ team/no-curl: new rule (deny)" in proc.stdout
    assert '~ team/no-tags: message: "Tags come from the release job." -> "Tags come from the release team."' \
        in proc.stdout
    assert "+++ b/rules/curl.toml" in proc.stdout and "-message = \"Tags come from the release job.\"" in proc.stdout
    assert f'rev = "{first}"' in config_file().read_text()
    assert denied(tmp_path, "curl https://x") is None
    proc = run_jouet("plugin", "update", "team", "--yes", "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = json.loads(proc.stdout)
    assert data["action"] == "re-pinned" and data["rev"] == second
    assert any(line.startswith("+ team/no-curl") for line in data["rule_changes"])
    text = config_file().read_text()
    assert f'rev = "{second}"' in text and 'ref = "v1"' in text and data["sha256"] in text
    assert denied(tmp_path, "curl https://x") == "team/no-curl"
    again = run_jouet("plugin", "update", "team", "--yes")
    assert again.returncode == 0 and "up to date" in again.stdout


def test_update_to_another_rev_and_unknown_revs(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "team", plugin_files("team", {"tags.toml": TAGS}))
    git(repo, "tag", "v1")
    (repo / "rules" / "curl.toml").write_text(CURL)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "v2")
    git(repo, "tag", "v2")
    run_jouet("plugin", "add", "team", str(repo), "--rev", "v1", "--yes", check=True)
    assert denied(tmp_path, "curl https://x") is None
    run_jouet("plugin", "update", "team", "--rev", "v2", "--yes", check=True)
    assert denied(tmp_path, "curl https://x") == "team/no-curl" and 'ref = "v2"' in config_file().read_text()
    proc = run_jouet("plugin", "add", "other", str(repo), "--rev", "nope", "--yes")
    assert proc.returncode == 2 and "no commit, tag or branch named nope" in proc.stderr
    proc = run_jouet("plugin", "add", "other", str(tmp_path / "missing"), "--yes")
    assert proc.returncode == 2 and "is not a directory" in proc.stderr


def test_plugins_that_cannot_be_pinned_are_refused(tmp_path: Path) -> None:
    failing = make_plugin(tmp_path / "failing", "failing", {"ls.toml": rule("ls", "ls", ["ls"], ["ls -l"])})
    proc = run_jouet("plugin", "add", "failing", str(failing), "--yes")
    assert proc.returncode == 1 and "failing/ls  REFUSED: rules/ls.toml:1: example quiet `ls -l` fails" in proc.stdout
    assert "Not pinned" in proc.stdout and not config_file().exists()
    named = make_plugin(tmp_path / "named", "other-name", {"tags.toml": TAGS})
    proc = run_jouet("plugin", "add", "named", str(named), "--yes")
    assert proc.returncode == 1 and "names the plugin `other-name`" in proc.stdout
    bare = tmp_path / "bare"
    (bare / "rules").mkdir(parents=True)
    proc = run_jouet("plugin", "add", "bare", str(bare), "--yes")
    assert proc.returncode == 1 and "plugin.toml: not found" in proc.stdout
    escaping = make_plugin(tmp_path / "escaping", "escaping", {"tags.toml": TAGS})
    (tmp_path / "elsewhere.toml").write_text(CURL)
    os.symlink(str(tmp_path / "elsewhere.toml"), escaping / "rules" / "curl.toml")
    proc = run_jouet("plugin", "add", "escaping", str(escaping), "--yes")
    assert proc.returncode == 1 and "is a symbolic link to" in proc.stdout
    newer = make_plugin(tmp_path / "newer", "newer", {"tags.toml": TAGS})
    (newer / "plugin.toml").write_text('name = "newer"\ndescription = "x"\nmin_jouet = "99.0"\n')
    proc = run_jouet("plugin", "add", "newer", str(newer), "--yes")
    assert proc.returncode == 1 and "needs jouet 99.0 or newer" in proc.stdout
    proc = run_jouet("plugin", "add", "Bad_Name", str(newer), "--yes")
    assert proc.returncode == 2 and "not a plugin name" in proc.stderr
    assert not config_file().exists()


def test_remove_and_config_comments_survive(tmp_path: Path) -> None:
    config_file().parent.mkdir(parents=True, exist_ok=True)
    config_file().write_text('# my settings\n[rules]\ndisable = ["git-stash"]  # I stash on purpose\n')
    source = make_plugin(tmp_path / "team", "team", {"tags.toml": TAGS})
    run_jouet("plugin", "add", "team", str(source), "--yes", check=True)
    text = config_file().read_text()
    assert text.startswith("# my settings\n") and "# I stash on purpose" in text and "[plugins.team]" in text
    proc = run_jouet("plugin", "remove", "team")
    assert proc.returncode == 0 and "Removed plugin team" in proc.stdout
    text = config_file().read_text()
    assert "[plugins.team]" not in text and "# I stash on purpose" in text
    assert not copy_of("team").exists() and denied(tmp_path, "git tag v1") is None
    proc = run_jouet("plugin", "remove", "team")
    assert proc.returncode == 2 and "no plugin named team" in proc.stderr
    assert "No plugins" in run_jouet("plugin", "list").stdout


def test_settings_reach_the_rules_and_examples_use_the_defaults(tmp_path: Path) -> None:
    source = make_plugin(tmp_path / "team", "team", {"tags.toml": TAGS},
                         '[settings]\nbranches = ["main"]\nstrict = false\n')
    run_jouet("plugin", "add", "team", str(source), "--yes", check=True)
    with config_file().open("a") as f:
        f.write('\n[plugins.team.settings]\nbranches = ["trunk"]\nunknown = 1\nstrict = "yes"\n')
    from jouet_git.engine.build import build

    ruleset, deps = build(None)
    tags = ruleset.get("team/no-tags")
    assert tags is not None and tags.data["settings"] == {"branches": ["trunk"], "strict": False}
    assert tags.data["default_settings"] == {"branches": ["main"], "strict": False}
    assert str(copy_of("team") / "plugin.toml") in deps
    assert any("plugins.team.settings.unknown is not one of the plugin's settings" in p for p in ruleset.problems)
    assert any("plugins.team.settings.strict must be a bool" in p for p in ruleset.problems)


def test_a_bad_pin_entry_is_reported_and_runs_nothing(tmp_path: Path) -> None:
    config_file().parent.mkdir(parents=True, exist_ok=True)
    config_file().write_text('[plugins.team]\nsource = "/nowhere"\nsha256 = "abc"\n')
    text = run_jouet("rule", "list", cwd=tmp_path).stdout
    assert "plugins.team: `sha256` must be the 64 hex digits" in text
    listed = json.loads(run_jouet("plugin", "list", "--json").stdout)
    assert [r["state"] for r in listed] == ["problem"]


def test_list_counts_rules_not_files(tmp_path: Path) -> None:
    source = make_plugin(tmp_path / "team", "team", {"both.toml": TAGS + "\n" + CURL})
    run_jouet("plugin", "add", "team", str(source), "--yes", cwd=tmp_path, check=True)
    assert plugins(tmp_path)["team"]["rules"] == 2
    table = run_jouet("plugin", "list", cwd=tmp_path).stdout.splitlines()
    assert table[0].split()[:4] == ["NAME", "STATE", "SCOPE", "RULES"]
    assert table[1].split()[:4] == ["team", "ok", "user", "2"]
