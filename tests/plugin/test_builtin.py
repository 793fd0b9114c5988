"""jouet's own plugins, and script rules from outside: same sandbox, and they only add decisions."""

from __future__ import annotations

import json
import os
from pathlib import Path

from testing import git, make_repo, run_jouet

from jouet_git import paths
from jouet_git.trust.content import scan


def decision(cwd: Path, command: str) -> dict[str, object]:
    proc = run_jouet("check", "--json", command, cwd=cwd)
    assert proc.returncode in (0, 1), proc.stderr
    data: dict[str, object] = json.loads(proc.stdout)
    return data


def denied(cwd: Path, command: str) -> str | None:
    deny = decision(cwd, command)["deny"]
    return deny["rule"] if isinstance(deny, dict) else None


def test_jouet_ships_protected_branches_with_examples_of_both_kinds() -> None:
    folder = Path(paths.builtin_plugins_dir()) / "protected-branches"
    assert (folder / "plugin.toml").is_file() and (folder / "rules").is_dir()
    assert not (Path(paths.builtin_plugins_dir()) / ".keep").exists()
    proc = run_jouet("plugin", "add", "protected-branches", "--yes", "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = json.loads(proc.stdout)
    assert data["action"] == "pinned" and data["source"] == "builtin:protected-branches"
    rules = {r["name"]: r for r in data["rules"]}
    assert set(rules) == {"protected-branches/direct-commit", "protected-branches/direct-push"}
    for view in rules.values():
        assert view["state"] == "runs" and view["fires"] >= 5 and view["quiet"] >= 5, view


def test_protected_branches_stops_commits_and_pushes_to_them(tmp_path: Path) -> None:
    run_jouet("plugin", "add", "protected-branches", "--yes", check=True)
    repo = make_repo(tmp_path / "repo")
    assert denied(repo, "git commit -m fix") == "protected-branches/direct-commit"
    assert denied(repo, "git push origin main") == "protected-branches/direct-push"
    assert denied(repo, "git push origin HEAD:release/2.0") == "protected-branches/direct-push"
    assert denied(repo, "git push") == "protected-branches/direct-push"
    git(repo, "switch", "-q", "-c", "fix-typo")
    assert denied(repo, "git commit -m fix") is None
    assert denied(repo, "git push -u origin HEAD") is None
    assert denied(repo, "git push origin main") == "protected-branches/direct-push"
    # git's own pre-commit hook sees the same rule.
    git(repo, "switch", "-q", "main")
    proc = run_jouet("hook", "git", "pre-commit", cwd=repo)
    assert proc.returncode == 1 and "protected-branches/direct-commit" in proc.stderr


def test_protected_branches_reads_its_settings(tmp_path: Path) -> None:
    run_jouet("plugin", "add", "protected-branches", "--yes", check=True)
    config = Path(os.environ["JOUET_CONFIG_DIR"]) / "config.toml"
    with config.open("a") as f:
        f.write('\n[plugins.protected-branches.settings]\nbranches = ["trunk"]\n')
    repo = make_repo(tmp_path / "repo")
    assert denied(repo, "git commit -m fix") is None
    assert denied(repo, "git push origin trunk") == "protected-branches/direct-push"
    git(repo, "switch", "-q", "-c", "trunk")
    assert denied(repo, "git commit -m fix") == "protected-branches/direct-commit"


def test_a_repository_can_declare_protected_branches(tmp_path: Path) -> None:
    digest = scan(str(Path(paths.builtin_plugins_dir()) / "protected-branches")).digest
    repo = make_repo(tmp_path / "repo", {".jouet/plugins.toml": (
        f'[plugins.protected-branches]\nsource = "builtin:protected-branches"\nsha256 = "{digest}"\n'
        '[plugins.protected-branches.settings]\nbranches = ["main", "stable"]\n')})
    assert denied(repo, "git push origin stable") is None
    run_jouet("trust", "--yes", cwd=repo, check=True)
    assert denied(repo, "git push origin stable") == "protected-branches/direct-push"


LENIENT_RULE = """[[rule]]
name = "lenient"
why = "tries to let calls through"
script = "lenient.luau"
[[rule.match]]
command = ["git stash", "curl"]
[rule.examples]
fires = ["git stash drop"]
quiet = ["git status"]
"""
LENIENT_SCRIPT = """return {
    check = function(call)
        for _, command in call.commands do
            if command.argv[3] == "drop" then
                return jouet.deny("no drop")
            end
        end
        return jouet.allow()
    end,
}
"""
NO_CURL = """[[rule]]
name = "no-curl"
why = "policy"
message = "Use the vendored copy."
[rule.match]
command = "curl"
[rule.examples]
fires = ["curl x"]
quiet = ["wget x"]
"""


def test_a_plugin_script_that_allows_decides_nothing_for_other_rules(tmp_path: Path) -> None:
    plugin = tmp_path / "lenient"
    (plugin / "rules").mkdir(parents=True)
    (plugin / "plugin.toml").write_text('name = "lenient"\ndescription = "tries to allow"\n')
    (plugin / "rules" / "lenient.toml").write_text(LENIENT_RULE)
    (plugin / "rules" / "lenient.luau").write_text(LENIENT_SCRIPT)
    proc = run_jouet("plugin", "add", "lenient", str(plugin), "--yes")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    repo = make_repo(tmp_path / "repo", {".jouet/rules/curl.toml": NO_CURL})
    run_jouet("trust", "--yes", cwd=repo, check=True)
    # The built-in runs first and its denial stands; the repository's rule, loaded after the plugin, too.
    assert denied(repo, "git stash") == "git-stash"
    assert denied(repo, "curl x") == "no-curl"
    assert denied(repo, "git stash drop") in ("git-stash", "lenient/lenient")


def test_protected_branches_holds_in_gits_own_hooks(tmp_path: Path) -> None:
    import subprocess

    run_jouet("plugin", "add", "protected-branches", "--yes", check=True)
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    repo = make_repo(tmp_path / "repo")
    git(repo, "remote", "add", "origin", str(remote))
    run_jouet("setup", "git", cwd=repo, check=True)

    def attempt(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, timeout=120)

    git(repo, "switch", "-q", "-c", "feat")
    (repo / "a.txt").write_text("a\n")
    git(repo, "add", "a.txt")
    assert attempt("commit", "-q", "-m", "on a branch").returncode == 0
    assert attempt("push", "-q", "origin", "feat").returncode == 0
    pushed = attempt("push", "-q", "origin", "feat:main")
    assert pushed.returncode == 1 and "[jouet rule: protected-branches/direct-push]" in pushed.stderr
    git(repo, "switch", "-q", "main")
    (repo / "b.txt").write_text("b\n")
    git(repo, "add", "b.txt")
    committed = attempt("commit", "-q", "-m", "on main")
    assert committed.returncode == 1 and "[jouet rule: protected-branches/direct-commit]" in committed.stderr
    assert git(repo, "ls-remote", str(remote)).count("refs/heads/") == 1
