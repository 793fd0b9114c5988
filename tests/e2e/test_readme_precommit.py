"""The README's pre-commit framework section, run through the real pre-commit as a reader would.

The snippet and the install line are taken from README.md itself, so the README cannot drift from
what works.
"""

from __future__ import annotations

import random
import re
import string
import subprocess
import sys
from pathlib import Path

import pytest
import yaml  # type: ignore[import-untyped]
from testing import BIN, ROOT, git, make_repo

pytestmark = pytest.mark.slow

PRE_COMMIT = str(Path(sys.executable).parent / "pre-commit")
SECTION = README = (ROOT / "README.md").read_text(encoding="utf-8")
SECTION = README[README.index("**Through the pre-commit framework.**"):README.index("## Secret scans")]


def snippet() -> str:
    m = re.search(r"```yaml\n(.*?)```", SECTION, re.S)
    assert m, "the pre-commit section shows a .pre-commit-config.yaml"
    return m.group(1)


def install_line() -> list[str]:
    m = re.search(r"```sh\n(pre-commit install[^\n]*)\n```", SECTION)
    assert m, "the pre-commit section shows the install line"
    return m.group(1).split()


def pinned_rev() -> str:
    m = re.search(r"work from rev\s+`([0-9a-f]{40})`", SECTION)
    assert m, "the section names a full commit hash that the remote form works from"
    return m.group(1)


def env(tmp_path: Path) -> dict[str, str]:
    import os

    return {**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}", "PRE_COMMIT_HOME": str(tmp_path / "pc-cache")}


def run(cmd: list[str], cwd: Path, environ: dict[str, str], check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(cmd, cwd=cwd, env=environ, capture_output=True, text=True, timeout=600)
    if check and proc.returncode != 0:
        raise AssertionError(f"{cmd} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc


def test_the_snippet_has_no_placeholders_and_installs_every_hook_type() -> None:
    config = yaml.safe_load(snippet())
    assert config["default_install_hook_types"] == ["pre-commit", "pre-push", "post-checkout"]
    [repo] = config["repos"]
    ids = {hook["id"]: hook for hook in repo["hooks"]}
    assert set(ids) == {"jouet-pre-commit", "jouet-pre-push", "jouet-post-checkout"}
    # The local hooks say what jouet's own manifest says.
    manifest = {hook["id"]: hook for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    for hook_id, hook in ids.items():
        assert hook["entry"] == manifest[hook_id]["entry"]
        assert hook["stages"] == manifest[hook_id]["stages"]
    assert not re.search(r"OWNER|vX\.Y|<[a-z]+>", SECTION)
    assert install_line() == ["pre-commit", "install", "--hook-type", "pre-commit", "--hook-type", "pre-push",
                              "--hook-type", "post-checkout"]


def test_the_pinned_rev_is_a_commit_of_this_repository_with_the_hooks() -> None:
    rev = pinned_rev()
    proc = subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", f"{rev}^{{commit}}"], capture_output=True)
    if proc.returncode != 0:
        pytest.skip(f"this checkout has no history with {rev} (a shallow or exported copy)")
    assert subprocess.run(["git", "-C", str(ROOT), "merge-base", "--is-ancestor", rev, "HEAD"]).returncode == 0
    manifest = git(ROOT, "show", f"{rev}:.pre-commit-hooks.yaml")
    assert {hook["id"] for hook in yaml.safe_load(manifest)} == {
        "jouet-pre-commit", "jouet-pre-push", "jouet-post-checkout"}


def token() -> str:
    rng = random.Random(7)
    return "ghp_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(36))


def test_the_readme_route_guards_commits_pushes_and_checkouts(tmp_path: Path) -> None:
    environ = env(tmp_path)
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    repo = make_repo(tmp_path / "work", {".pre-commit-config.yaml": snippet(), "README.md": "hi\n"})
    git(repo, "remote", "add", "origin", str(remote))
    run(install_line(), repo, environ)
    for hook in ("pre-commit", "pre-push", "post-checkout"):
        assert "pre-commit" in (repo / ".git" / "hooks" / hook).read_text()
    # A commit that adds a secret is stopped by jouet's rule.
    (repo / "app.py").write_text(f"GH = '{token()}'\n")
    git(repo, "add", "app.py")
    denied = run(["git", "commit", "-q", "-m", "add app"], repo, environ, check=False)
    assert denied.returncode != 0
    assert "[jouet rule: committed-secrets]" in denied.stdout + denied.stderr
    git(repo, "rm", "-q", "--cached", "app.py")
    (repo / "app.py").unlink()
    # An ordinary commit and push go through; a forced push over a pushed commit is stopped.
    (repo / "notes.txt").write_text("one\n")
    git(repo, "add", "notes.txt")
    run(["git", "commit", "-q", "-m", "notes"], repo, environ)
    run(["git", "push", "-q", "origin", "main"], repo, environ)
    (repo / "notes.txt").write_text("two\n")
    git(repo, "add", "notes.txt")
    run(["git", "commit", "-q", "--amend", "-m", "notes again"], repo, environ)
    forced = run(["git", "push", "-q", "--force", "origin", "main"], repo, environ, check=False)
    assert forced.returncode != 0
    assert "[jouet rule: force-push]" in forced.stdout + forced.stderr
    # post-checkout runs (and says nothing for a repository that ships no rules).
    checkout = run(["git", "checkout", "-q", "-b", "topic"], repo, environ)
    assert re.search(r"jouet \(fresh checkout\)\.+Passed", checkout.stdout + checkout.stderr), checkout


def test_a_plain_install_takes_every_hook_type_from_the_config(tmp_path: Path) -> None:
    environ = env(tmp_path)
    repo = make_repo(tmp_path / "work", {".pre-commit-config.yaml": snippet()})
    run([PRE_COMMIT, "install"], repo, environ)
    for hook in ("pre-commit", "pre-push", "post-checkout"):
        assert (repo / ".git" / "hooks" / hook).exists(), hook


def test_the_remote_form_installs_jouet_at_the_pinned_rev(tmp_path: Path) -> None:
    """pre-commit clones jouet-git at the README's rev and installs it into its own environment. The
    repository is this checkout (the machine may have no network); pip needs a package index."""
    rev = pinned_rev()
    if subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", f"{rev}^{{commit}}"]).returncode != 0:
        pytest.skip(f"this checkout has no history with {rev}")
    config = yaml.safe_load(snippet())
    config["repos"] = [{"repo": str(ROOT), "rev": rev,
                        "hooks": [{"id": "jouet-pre-commit"}, {"id": "jouet-pre-push"},
                                  {"id": "jouet-post-checkout"}]}]
    environ = env(tmp_path)
    repo = make_repo(tmp_path / "work", {".pre-commit-config.yaml": yaml.safe_dump(config)})
    proc = run([PRE_COMMIT, "install", "--install-hooks"], repo, environ, check=False)
    if proc.returncode != 0 and re.search(r"(?i)no matching distribution|could not find a version|network|"
                                          r"connection|resolve", proc.stdout + proc.stderr):
        pytest.skip("pip cannot reach a package index here to install jouet-git's dependencies")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (repo / "app.py").write_text(f"GH = '{token()}'\n")
    git(repo, "add", "app.py")
    denied = run(["git", "commit", "-q", "-m", "add app"], repo, environ, check=False)
    assert denied.returncode != 0 and "[jouet rule: committed-secrets]" in denied.stdout + denied.stderr
