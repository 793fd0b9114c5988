"""Run gitleaks over a change and read its report, never keeping a secret.

Staged and tracked changes (and files about to be added) are scanned with `gitleaks dir` over a
temporary tree that holds, at each changed path, the new file with every line the change does not
add left blank: line numbers and paths are the real ones, and only added lines can match. Outgoing
commits are scanned with `gitleaks git --log-opts`, which reads the same patches git would push.
Either way gitleaks gets the config and .gitleaksignore of the last commit before the change (see
committed.py), never the work tree's, --redact, and an exit code of its own for "leaks found" so
that a failure is not mistaken for a finding.
"""

from __future__ import annotations

import json
import os

from jouet_git import gitrun

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from jouet_git.gitleaks.committed import Allowlists
    from jouet_git.gitleaks.diff import FileChange
    from jouet_git.gitleaks.workdir import WorkDir

LEAKS_FOUND = 99
COMMON_FLAGS = ["--no-banner", "--redact", "--report-format", "json", "--report-path", "-",
                "--exit-code", str(LEAKS_FOUND), "--max-decode-depth", "5", "--log-level", "error"]
MATCH_LIMIT = 200


class ScanFailed(Exception):
    """gitleaks could not scan (bad config, crash): the message says why."""


def finding(raw: dict[str, Any]) -> dict[str, Any]:
    """The fields jouet keeps from one gitleaks finding: never Secret, never the raw Line."""
    match = str(raw.get("Match") or "")
    if len(match) > MATCH_LIMIT:
        match = match[:MATCH_LIMIT] + "..."
    return {
        "rule": str(raw.get("RuleID") or ""),
        "path": str(raw.get("File") or ""),
        "line": int(raw.get("StartLine") or 0),
        "commit": raw.get("Commit") or None,
        "match": match,
        "fingerprint": str(raw.get("Fingerprint") or ""),
    }


def _report(result: gitrun.Result) -> list[dict[str, Any]]:
    if result.code not in (0, LEAKS_FOUND):
        lines = result.stderr.decode("utf-8", "replace").strip().splitlines()
        detail = lines[-1] if lines else f"exit code {result.code}"
        raise ScanFailed(f"gitleaks failed: {detail}")
    text = result.stdout.decode("utf-8", "replace").strip()
    if not text:
        return []
    try:
        data = json.loads(text)
    except ValueError:
        raise ScanFailed("gitleaks printed a report jouet cannot read") from None
    if not isinstance(data, list):
        raise ScanFailed("gitleaks printed a report jouet cannot read")
    found = [finding(item) for item in data if isinstance(item, dict)]
    unique: dict[tuple[Any, ...], dict[str, Any]] = {}
    for item in found:
        unique.setdefault((item["fingerprint"], item["rule"], item["path"], item["line"]), item)
    return sorted(unique.values(), key=lambda f: (f["commit"] or "", f["path"], f["line"], f["rule"]))


def _write_tree(tree: str, changes: list[FileChange], skip_root_config: bool) -> None:
    for change in changes:
        parts = change.path.split("/")
        if change.path.startswith("/") or ".." in parts or ".git" in parts:
            continue
        if change.path == ".gitleaksignore":
            # gitleaks would load it from the scanned directory: the new lines of a .gitleaksignore
            # must not silence the scan of the change that adds them (they hold no secret anyway).
            continue
        if skip_root_config and change.path == ".gitleaks.toml":
            # Would be read as the config; the default config never reports in it anyway.
            continue
        target = os.path.join(tree, *parts)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as f:
            f.write(change.sparse_text().encode("utf-8", "surrogateescape"))


def scan_tree(binary: str, changes: list[FileChange], allow: Allowlists, work: WorkDir,
              deadline: float) -> list[dict[str, Any]]:
    """`gitleaks dir` over the added lines of CHANGES, laid out under WORK (a private directory),
    with the allowlists of ALLOW and no others (see committed.py)."""
    from jouet_git.gitleaks.committed import env_without_config

    tree = work.dir("tree")
    _write_tree(tree, changes, skip_root_config=allow.config is None)
    env = env_without_config(gitrun.git_env(keep_repo=True))
    argv = [binary, "dir", ".", *COMMON_FLAGS, *allow.flags()]
    return _report(gitrun.run(argv, tree, deadline=deadline, env=env, kind="gitleaks"))


def scan_log(binary: str, toplevel: str, git_dir: str, revisions: list[str], allow: Allowlists, work: WorkDir,
             deadline: float) -> list[dict[str, Any]]:
    """`gitleaks git --log-opts REVISIONS` over the repository, with the allowlists of ALLOW only.

    gitleaks also loads .gitleaksignore and .gitleaks.toml from the directory it scans, which for a
    repository is its work tree: it runs instead in an empty private directory, and finds the
    repository through GIT_DIR."""
    from jouet_git.gitleaks.committed import env_without_config

    empty = work.dir("empty")
    env = env_without_config(gitrun.git_env(extra={"GIT_DIR": git_dir, "GIT_WORK_TREE": toplevel}))
    argv = [binary, "git", ".", "--log-opts", " ".join(revisions), *COMMON_FLAGS, *allow.flags()]
    return _report(gitrun.run(argv, empty, deadline=deadline, env=env, kind="gitleaks"))
