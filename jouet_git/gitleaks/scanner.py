"""Run gitleaks over a change and read its report, never keeping a secret.

Staged and tracked changes (and files about to be added) are scanned with `gitleaks dir` over a
temporary tree that holds, at each changed path, the new file with every line the change does not
add left blank: line numbers and paths are the real ones, and only added lines can match. Outgoing
commits are scanned with `gitleaks git --log-opts`, which reads the same patches git would push.
Either way gitleaks gets the repository's config and .gitleaksignore, --redact, and an exit code of
its own for "leaks found" so that a failure is not mistaken for a finding.
"""

from __future__ import annotations

import json
import os

from jouet_git import gitrun

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from jouet_git.gitleaks.config import ConfigSource
    from jouet_git.gitleaks.diff import FileChange

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
        if skip_root_config and change.path == ".gitleaks.toml":
            # Would be read as the config; the default config never reports in it anyway.
            continue
        target = os.path.join(tree, *parts)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as f:
            f.write(change.sparse_text().encode("utf-8", "surrogateescape"))


def scan_tree(binary: str, toplevel: str, changes: list[FileChange], source: ConfigSource,
              deadline: float) -> list[dict[str, Any]]:
    """`gitleaks dir` over the added lines of CHANGES, laid out under a temporary directory."""
    import shutil
    import tempfile

    from jouet_git.gitleaks import config

    work = tempfile.mkdtemp(prefix="jouet-secrets-")
    try:
        tree = os.path.join(work, "tree")
        os.mkdir(tree)
        _write_tree(tree, changes, skip_root_config=source.kind == "default")
        env = gitrun.git_env(keep_repo=True)
        argv = [binary, "dir", ".", *COMMON_FLAGS, "--gitleaks-ignore-path", toplevel]
        if source.kind in ("env", "repo") and source.path:
            if config.has_relative_extend(source, toplevel):
                argv += ["--config", _absolute_copy(source, toplevel, work)]
            else:
                argv += ["--config", os.path.abspath(source.path)]
            env.pop("GITLEAKS_CONFIG", None)
            env.pop("GITLEAKS_CONFIG_TOML", None)
        elif source.kind == "env-toml" and config.has_relative_extend(source, toplevel):
            argv += ["--config", _absolute_copy(source, toplevel, work)]
            env.pop("GITLEAKS_CONFIG_TOML", None)
        result = gitrun.run(argv, tree, deadline=deadline, env=env, kind="gitleaks")
        return _report(result)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _absolute_copy(source: ConfigSource, toplevel: str, work: str) -> str:
    from jouet_git.gitleaks import config

    try:
        return config.write_absolute_copy(source, toplevel, work)
    except (OSError, ValueError) as error:
        raise ScanFailed(f"cannot read the gitleaks config chain of {source.describe()}: {error}") from None


def scan_log(binary: str, toplevel: str, revisions: list[str], deadline: float) -> list[dict[str, Any]]:
    """`gitleaks git --log-opts REVISIONS` at the top of the work tree."""
    argv = [binary, "git", ".", "--log-opts", " ".join(revisions), *COMMON_FLAGS,
            "--gitleaks-ignore-path", toplevel]
    result = gitrun.run(argv, toplevel, deadline=deadline, env=gitrun.git_env(keep_repo=True), kind="gitleaks")
    return _report(result)
