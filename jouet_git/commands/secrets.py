"""Scan what a commit or a push would add for secrets, with gitleaks' rules.

  jouet secrets scan                      the staged changes: what `git commit` would record
  jouet secrets scan --scope tracked      every change to tracked files: what `git commit -a` takes
  jouet secrets scan --scope outgoing     the commits on HEAD that no remote has yet
  jouet secrets scan --range main..HEAD   the commits of a range (implies --scope outgoing)
  jouet secrets scan src/ notes.txt       the staged changes plus what `git add src/ notes.txt` adds
  jouet secrets scan --json               the findings as JSON, for scripts

gitleaks runs with the repository's .gitleaks.toml and .gitleaksignore as the last commit before the
change has them (HEAD for staged and tracked changes; for outgoing commits, the newest commit a
remote already has), never as the work tree or the index has them, and never with GITLEAKS_CONFIG;
inline gitleaks:allow comments count for nothing. It runs only when the lines to scan hold a keyword
of one of its rules, so a scan of an ordinary change costs no gitleaks start. Secrets are never
printed: each finding shows its rule, file and line, the match with the secret redacted, and a
fingerprint. To silence a false positive, commit its fingerprint as a line of .gitleaksignore at
the top of the repository, in a commit of its own, before the change that needs it.

Exit status: 0 nothing found, 1 secrets found, 2 the scan could not run (no gitleaks, not a
repository, a diff over the size limit, out of time).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from jouet_git.errors import FOUND, OK, JouetError


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    sub.required = True
    scan = sub.add_parser("scan", help="scan staged, tracked or outgoing changes",
                          description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    scan.add_argument("--scope", choices=("staged", "tracked", "outgoing"), default=None,
                      help="which changes to scan (default: staged)")
    scan.add_argument("--range", dest="revisions", metavar="OLD..NEW",
                      help="scan the commits of this range (an outgoing scan)")
    scan.add_argument("--json", action="store_true", help="print the findings as JSON")
    scan.add_argument("--timeout", type=float, default=60.0, metavar="SECONDS",
                      help="give up after this long (default: 60)")
    scan.add_argument("--max-kib", type=int, default=4096, metavar="KIB",
                      help="refuse diffs larger than this (default: 4096 KiB)")
    scan.add_argument("-C", dest="cwd", default=".", metavar="DIR", help="the repository (default: .)")
    scan.add_argument("paths", nargs="*", metavar="PATH",
                      help="files a `git add` is about to stage, scanned too (staged and tracked scopes)")


def run(args: argparse.Namespace) -> int:
    from jouet_git.probes.secrets import scan

    scope = args.scope or ("outgoing" if args.revisions else "staged")
    if args.revisions and scope != "outgoing":
        raise JouetError("--range scans commits: use it with --scope outgoing, or leave --scope out")
    if args.paths and scope == "outgoing":
        raise JouetError("PATH arguments add files to a commit: use them with --scope staged or tracked")
    progress = _progress if sys.stderr.isatty() and not args.json else None
    findings, reason = scan(args.cwd, scope, paths=args.paths or None, range=args.revisions,
                            budget=args.timeout, max_bytes=args.max_kib * 1024, progress=progress)
    if progress is not None:
        sys.stderr.write("\r\033[K")
    if findings is None:
        raise JouetError(f"cannot scan for secrets: {reason}")
    if args.json:
        json.dump({"scope": scope, "findings": findings}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        _print(findings, scope)
    return FOUND if findings else OK


def _progress(message: str) -> None:
    sys.stderr.write(f"jouet: {message}...")
    sys.stderr.flush()


def _print(findings: list[dict[str, Any]], scope: str) -> None:
    what = {"staged": "the staged changes", "tracked": "the changes to tracked files",
            "outgoing": "the outgoing commits"}[scope]
    if not findings:
        print(f"No secrets found in {what}.")
        return
    for item in findings:
        where = f"{item['path']}:{item['line']}" if item["line"] else item["path"]
        commit = f" (commit {item['commit'][:12]})" if item["commit"] else ""
        print(f"{item['rule']}: {where}{commit}")
        if item["match"]:
            print(f"    match:       {item['match']}")
        print(f"    fingerprint: {item['fingerprint']}")
    count = len(findings)
    print()
    print(f"{count} possible secret{'s' if count != 1 else ''} in {what}.")
    print("Take each secret out before committing. To silence a false positive, commit its fingerprint")
    print("as a line of .gitleaksignore at the top of the repository, in a commit of its own, first.")
