"""Plugins a repository declares in .jouet/plugins.toml: covered by trust, fetched by it, run only as pinned."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from testing import git, make_repo, run_jouet

from jouet_git.trust.content import scan


def rule(name: str, command: str, fires: list[str], quiet: list[str], message: str) -> str:
    return (f'[[rule]]\nname = "{name}"\nwhy = "{name} is for tests"\nmessage = "{message}"\n'
            f'[rule.match]\ncommand = "{command}"\n'
            f"[rule.examples]\nfires = {json.dumps(fires)}\nquiet = {json.dumps(quiet)}\n")


TAGS = rule("no-tags", "git tag", ["git tag v1"], ["git log --tags"], "Tags come from the release job.")
CURL = rule("no-curl", "curl", ["curl https://x"], ["wget https://x"], "Use the vendored copy.")
OWN = rule("no-install", "make install", ["make install"], ["make"], "Install from the package.")


def plugin_repo(path: Path) -> tuple[Path, str]:
    """A plugin `team` in its own git repository, tagged v1; and the sha256 of its content."""
    repo = make_repo(path, {"plugin.toml": 'name = "team"\ndescription = "team rules"\n', "rules/tags.toml": TAGS})
    git(repo, "tag", "v1")
    return repo, scan(str(repo)).digest


def consumer(path: Path, plugin: Path, digest: str, rev: str = "v1") -> Path:
    pins = f'[plugins.team]\nsource = "{plugin}"\nrev = "{rev}"\nsha256 = "{digest}"\n'
    return make_repo(path, {".jouet/plugins.toml": pins, ".jouet/rules/own.toml": OWN})


def rows(cwd: Path) -> dict[str, dict[str, Any]]:
    return {r["name"]: r for r in json.loads(run_jouet("rule", "list", "--json", cwd=cwd).stdout)}


def denied(cwd: Path, command: str) -> str | None:
    data = json.loads(run_jouet("check", "--json", command, cwd=cwd).stdout)
    return data["deny"]["rule"] if data["deny"] else None


def test_trust_fetches_declared_plugins_and_they_run_as_pinned(tmp_path: Path) -> None:
    plugin, digest = plugin_repo(tmp_path / "team")
    up = consumer(tmp_path / "up", plugin, digest)
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(up), str(work))
    # Untrusted: nothing fetched, nothing of the plugin listed or run.
    assert "team/no-tags" not in rows(work) and denied(work, "git tag v1") is None
    show = json.loads(run_jouet("trust", "--show", "--json", cwd=work).stdout)
    assert [(p["name"], p["status"]) for p in show["plugins"]] == [("team", "missing")]
    proc = run_jouet("trust", "--yes", cwd=work)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Plugins (1), pinned in .jouet/plugins.toml:" in proc.stdout
    assert "team/no-tags  deny  runs: its examples pass" in proc.stdout
    table = rows(work)
    assert table["team/no-tags"]["scope"] == "plugin:team" and table["team/no-tags"]["state"] == "enabled"
    assert table["no-install"]["scope"] == "repo:trusted"
    assert denied(work, "git tag v1") == "team/no-tags" and denied(work, "make install") == "no-install"
    listed = {r["name"]: r for r in json.loads(run_jouet("plugin", "list", "--json", cwd=work).stdout)}
    assert listed["team"]["scope"] == "repo" and listed["team"]["state"] == "ok"
    # The plugin's copy lives in jouet's data directory, never in the repository.
    assert git(work, "status", "--porcelain") == ""


def test_a_moved_tag_is_a_mismatch_and_runs_nothing(tmp_path: Path) -> None:
    plugin, digest = plugin_repo(tmp_path / "team")
    (plugin / "rules" / "curl.toml").write_text(CURL)
    git(plugin, "add", "-A")
    git(plugin, "commit", "-q", "-m", "more")
    git(plugin, "tag", "-f", "v1")
    up = consumer(tmp_path / "up", plugin, digest)
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(up), str(work))
    proc = run_jouet("trust", "--yes", cwd=work)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "mismatch: its content hashes to" in proc.stdout
    table = rows(work)
    for name in ("team/no-tags", "team/no-curl"):
        assert table[name]["scope"] == "plugin:team:mismatch" and table[name]["pin"] == "mismatch"
        assert table[name]["state"] == "untrusted" and "not the" in table[name]["detail"]
        assert "pinned in" in table[name]["detail"] and "plugins.toml" in table[name]["detail"]
    assert denied(work, "git tag v1") is None and denied(work, "curl https://x") is None
    # The repository's own rules still run: only the plugin is refused.
    assert denied(work, "make install") == "no-install"


def test_a_changed_plugins_file_keeps_the_trusted_copy_running_and_says_so(tmp_path: Path) -> None:
    plugin, digest = plugin_repo(tmp_path / "team")
    work = consumer(tmp_path / "work", plugin, digest)
    run_jouet("trust", "--yes", cwd=work, check=True)
    assert denied(work, "git tag v1") == "team/no-tags"
    pins = work / ".jouet" / "plugins.toml"
    pins.write_text(pins.read_text().replace(digest, "0" * 64))
    # The plugins.toml that was trusted (in jouet's copy) still declares the plugin and its pin.
    assert denied(work, "git tag v1") == "team/no-tags" and denied(work, "make install") == "no-install"
    assert rows(work)["no-install"]["scope"] == "repo:changed"
    assert ".jouet/plugins.toml changed" in " ".join(run_jouet("rule", "list", cwd=work).stdout.split())


def test_pins_at_an_exact_commit_and_relative_sources(tmp_path: Path) -> None:
    plugin, digest = plugin_repo(tmp_path / "team")
    commit = git(plugin, "rev-parse", "HEAD").strip()
    work = consumer(tmp_path / "work", plugin, digest, rev=commit)
    run_jouet("trust", "--yes", cwd=work, check=True)
    assert denied(work, "git tag v1") == "team/no-tags"
    # A plugin kept inside the repository, named by a path relative to its root.
    inner = make_repo(tmp_path / "inner", {
        "vendor/team/plugin.toml": 'name = "team"\ndescription = "x"\n', "vendor/team/rules/curl.toml": CURL,
    })
    inner_digest = scan(str(inner / "vendor" / "team")).digest
    (inner / ".jouet").mkdir()
    (inner / ".jouet" / "plugins.toml").write_text(
        f'[plugins.team]\nsource = "vendor/team"\nsha256 = "{inner_digest}"\n')
    run_jouet("trust", "--yes", cwd=inner, check=True)
    assert denied(inner, "curl https://x") == "team/no-curl"


def test_a_broken_plugins_file_is_reported(tmp_path: Path) -> None:
    work = make_repo(tmp_path / "work", {".jouet/plugins.toml": "[plugins.team]\nsource = 1\n",
                                        ".jouet/rules/own.toml": OWN})
    proc = run_jouet("trust", "--yes", cwd=work)
    assert proc.returncode == 0, proc.stdout
    assert "Problem:" in proc.stdout and "`source` must name a directory" in proc.stdout
    assert "plugins.team: `source` must name a directory" in run_jouet("rule", "list", cwd=work).stdout


def test_revoke_drops_the_fetched_copies(tmp_path: Path) -> None:
    plugin, digest = plugin_repo(tmp_path / "team")
    work = consumer(tmp_path / "work", plugin, digest)
    run_jouet("trust", "--yes", cwd=work, check=True)
    copies = Path(os.environ["JOUET_DATA_DIR"]) / "plugins" / "repo"
    assert any(copies.rglob("plugin.toml"))
    run_jouet("trust", "--revoke", cwd=work, check=True)
    assert not any(copies.rglob("plugin.toml"))
    assert denied(work, "git tag v1") is None
