"""Share claims between machines through a ref on a common remote.

`refs/jouet/claims` on the remote points at a commit whose tree holds one JSON file per machine,
each listing that machine's live claims. `sync` publishes this machine's file and reads everyone
else's, by compare-and-swap:

    1. ask the remote where refs/jouet/claims is; fetch it into refs/jouet/remotes/<remote>/claims
    2. build a tree: the fetched one, with this machine's file replaced (or removed when it has no
       live claims) and files whose claims have all expired dropped
    3. commit it with the fetched commit as its only parent
    4. push without force: if anyone moved the ref since step 1, the push is not a fast-forward
       and is rejected, so nothing of theirs is lost; then wait a moment and start over, a bounded
       number of times

Nothing outside refs/jouet/ changes in the user's repository: no FETCH_HEAD, no remote-tracking
branches, no index or worktree change, no hooks run (core.hooksPath is pointed at /dev/null and the
push passes --no-verify), no automatic gc. The objects written (one blob, one tree, one commit a
sync) are ordinary loose objects that gc collects once no ref reaches them.

This is a cold path (`jouet claim sync`, run by hand): it uses the `git` on PATH.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from jouet_git import gitrun
from jouet_git.claims import machine, patterns, record
from jouet_git.claims.record import Claim
from jouet_git.claims.repo import Repo
from jouet_git.claims.store import Locked, StoreError, read, store_path
from jouet_git.errors import JouetError

REF = "refs/jouet/claims"
MAX_ATTEMPTS = 12
FILE_VERSION = 1
_PUBLISHED = ("pattern", "session", "harness", "worktree", "branch", "note", "claimed_at", "expires_at")
_GIT_CONFIG = ("-c", "core.hooksPath=/dev/null", "-c", "gc.auto=0", "-c", "maintenance.auto=false",
               "-c", "commit.gpgSign=false", "-c", "fetch.recurseSubmodules=false")


@dataclass
class SyncResult:
    """What a sync did and found."""

    remote: str
    machine: str
    attempts: int = 0
    pushed: bool = False
    published: int = 0
    commit: str | None = None
    others: list[Claim] = field(default_factory=list)  # live claims of other machines
    overlaps: list[tuple[Claim, Claim]] = field(default_factory=list)  # (ours, theirs)
    warnings: list[str] = field(default_factory=list)


class _Retry(Exception):
    """The remote ref moved under us: start over."""


class _Git:
    """Runs git in one repository with the settings that keep a sync from touching anything else."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.env = gitrun.git_env(extra={
            "GIT_AUTHOR_NAME": "jouet", "GIT_AUTHOR_EMAIL": "jouet@localhost",
            "GIT_COMMITTER_NAME": "jouet", "GIT_COMMITTER_EMAIL": "jouet@localhost",
        })

    def run(self, *args: str, input: str | bytes | None = None, check: bool = True) -> gitrun.Result:
        data = input.encode("utf-8") if isinstance(input, str) else input
        try:
            proc = gitrun.git([*_GIT_CONFIG, *args], self.root, timeout=300, env=self.env, input=data)
        except gitrun.GitMissing:
            raise JouetError("git is not on PATH; `jouet claim sync` needs it to reach the remote") from None
        except gitrun.Timeout:
            raise JouetError(f"git {args[0]} did not finish in 300s; check the remote and try again") from None
        if check and proc.code != 0:
            raise JouetError(f"git {' '.join(args[:3])} failed in {self.root}: {_text(proc.stderr).strip()}")
        return proc

    def out(self, *args: str, input: str | bytes | None = None) -> str:
        return _text(self.run(*args, input=input).stdout).strip()


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def default_remote(repo: Repo) -> str:
    """The current branch's remote, else origin."""
    branch = repo.branch()
    if branch:
        proc = _Git(repo.root).run("config", "--get", f"branch.{branch}.remote", check=False)
        name = _text(proc.stdout).strip()
        if proc.code == 0 and name and name != ".":
            return name
    return "origin"


def tracking_ref(remote: str) -> str:
    """Where a sync keeps what it last fetched from REMOTE (a name or a URL)."""
    if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]*", remote):
        return f"refs/jouet/remotes/{remote}/claims"
    import hashlib

    return f"refs/jouet/remotes/url-{hashlib.sha256(remote.encode()).hexdigest()[:16]}/claims"


def _remote_tip(git: _Git, remote: str) -> str | None:
    proc = git.run("ls-remote", "--exit-code", remote, REF, check=False)
    if proc.code == 2:
        return None
    if proc.code != 0:
        raise JouetError(f"cannot reach remote '{remote}': {_text(proc.stderr).strip()}; check its "
                         "URL and your access (git ls-remote works the same way)")
    for line in _text(proc.stdout).splitlines():
        oid, _, name = line.partition("\t")
        if name == REF:
            return oid
    return None


def _fetch(git: _Git, remote: str, tracking: str) -> str | None:
    """Fetch the remote claims ref into TRACKING; its commit, or None when the remote has none."""
    if _remote_tip(git, remote) is None:
        git.run("update-ref", "-d", tracking, check=False)
        return None
    proc = git.run("fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-recurse-submodules",
                   remote, f"+{REF}:{tracking}", check=False)
    if proc.code != 0:
        if "couldn't find remote ref" in _text(proc.stderr):
            raise _Retry()  # deleted between ls-remote and fetch
        raise JouetError(f"cannot fetch {REF} from '{remote}': {_text(proc.stderr).strip()}")
    return git.out("rev-parse", "--verify", "--quiet", f"{tracking}^{{commit}}")


def _entries(git: _Git, commit: str | None) -> dict[str, tuple[str, str, str]]:
    """name -> (mode, type, oid) of the commit's top-level tree."""
    if commit is None:
        return {}
    out = _text(git.run("ls-tree", "-z", commit).stdout)
    entries = {}
    for item in out.split("\0"):
        if not item:
            continue
        meta, _, name = item.partition("\t")
        mode, kind, oid = meta.split()
        entries[name] = (mode, kind, oid)
    return entries


def _blobs(git: _Git, oids: list[str]) -> dict[str, bytes]:
    if not oids:
        return {}
    raw = git.run("cat-file", "--batch", input="".join(f"{oid}\n" for oid in oids)).stdout
    found: dict[str, bytes] = {}
    at = 0
    for oid in oids:
        end = raw.index(b"\n", at)
        header = raw[at:end].split()
        at = end + 1
        if len(header) < 3 or header[1] == b"missing":
            continue
        size = int(header[2])
        found[oid] = raw[at:at + size]
        at += size + 1
    return found


def _machine_file(data: bytes, name: str) -> tuple[str, str | None, list[Claim]]:
    """(machine, host, claims) from one machine's file. Raises ValueError when it is not one."""
    parsed = json.loads(data.decode("utf-8"))
    if not isinstance(parsed, dict) or not isinstance(parsed.get("claims"), list):
        raise ValueError("not a claims file")
    who = parsed.get("machine")
    who = who if isinstance(who, str) and who else name.removesuffix(".json")
    host = parsed.get("host") if isinstance(parsed.get("host"), str) else None
    claims = []
    for item in parsed["claims"]:
        if not isinstance(item, dict):
            raise ValueError("a claim is not an object")
        claim = Claim.from_json({key: item.get(key) for key in _PUBLISHED})
        claim.machine, claim.host = who, host
        claims.append(claim)
    return who, host, claims


def _our_file(claims: list[Claim], me: str, host: str) -> bytes:
    rows = [{key: getattr(c, key) for key in _PUBLISHED}
            for c in sorted(claims, key=lambda c: (c.pattern, c.session))]
    text = json.dumps({"version": FILE_VERSION, "machine": me, "host": host, "claims": rows},
                      indent=1, sort_keys=True)
    return (text + "\n").encode("utf-8")


def _attempt(
    git: _Git, remote: str, tracking: str, mine: list[Claim], me: str, now: float,
    result: SyncResult, before_push: Callable[[], None] | None,
) -> list[Claim]:
    """One compare-and-swap round. Returns the other machines' live claims; raises _Retry."""
    parent = _fetch(git, remote, tracking)
    entries = _entries(git, parent)
    ours = machine.file_name(me)
    json_names = [n for n, (_, kind, _) in entries.items() if kind == "blob" and n.endswith(".json")]
    contents = _blobs(git, [entries[n][2] for n in json_names])
    others: list[Claim] = []
    keep = dict(entries)
    for name in json_names:
        if name == ours:
            continue
        try:
            who, _, claims = _machine_file(contents.get(entries[name][2], b""), name)
        except (ValueError, UnicodeDecodeError) as error:
            result.warnings.append(f"{REF} on '{remote}': skipped {name}, which is not a claims file "
                                   f"({error}); it is left as it is")
            continue
        if who == me:
            continue
        live = [c for c in claims if c.lapsed(now, local=False) is None]
        if not live:
            del keep[name]  # every claim in it has expired: tidy it away
        others.extend(live)
    keep.pop(ours, None)
    if mine:
        blob = git.out("hash-object", "-w", "--stdin", input=_our_file(mine, me, machine.host()))
        keep[ours] = ("100644", "blob", blob)
    listing = "".join(f"{mode} {kind} {oid}\t{name}\0" for name, (mode, kind, oid) in sorted(keep.items()))
    tree = git.out("mktree", "-z", input=listing)
    if parent is not None and tree == git.out("rev-parse", f"{parent}^{{tree}}"):
        result.commit = parent
        return others
    if parent is None and not keep:
        return others  # nothing to publish and nothing there
    message = f"jouet claims: {me} ({machine.host()}), {len(mine)} claim{'' if len(mine) == 1 else 's'}"
    commit = git.out("commit-tree", tree, *(["-p", parent] if parent else []), "-m", message)
    if before_push is not None:
        before_push()
    proc = git.run("push", "--porcelain", "--quiet", "--no-verify", "--no-recurse-submodules", remote,
                   f"{commit}:{REF}", check=False)
    if proc.code != 0:
        report = _text(proc.stdout) + _text(proc.stderr)
        if any(line.startswith("!") and "rejected" in line for line in report.splitlines()):
            raise _Retry()
        raise JouetError(f"cannot push {REF} to '{remote}': {_text(proc.stderr).strip()}")
    git.run("update-ref", tracking, commit)
    result.pushed = True
    result.commit = commit
    return others


def sync(
    repo: Repo,
    remote: str | None = None,
    now: float | None = None,
    attempts: int = MAX_ATTEMPTS,
    before_push: Callable[[], None] | None = None,
) -> SyncResult:
    """Publish this machine's live claims to REMOTE (default: the branch's remote, else origin) and
    store the other machines' live claims locally.

    BEFORE_PUSH, for tests, runs between building the commit and pushing it.
    Raises JouetError when the remote cannot be reached or keeps moving for ATTEMPTS rounds.
    """
    moment = time.time() if now is None else now
    git = _Git(repo.root)
    name = remote or default_remote(repo)
    if remote is None:
        known = _text(git.run("remote").stdout).split()
        if name not in known:
            raise JouetError(f"this repository has no remote named '{name}'; name the remote to sync "
                             "through: jouet claim sync REMOTE")
    me = machine.machine_id()
    result = SyncResult(name, me)
    path = store_path(repo.common_dir)
    try:
        mine = [c for c in read(path).claims if c.lapsed(moment) is None]
    except StoreError as error:
        raise JouetError(f"the claims store {error.path} {error.reason}; run `jouet claim ls` to set a "
                         "corrupt one aside") from None
    result.published = len(mine)
    tracking = tracking_ref(name)
    rng = random.Random()
    for attempt in range(1, attempts + 1):
        result.attempts = attempt
        try:
            others = _attempt(git, name, tracking, mine, me, moment, result, before_push)
        except _Retry:
            time.sleep(rng.uniform(0.02, 0.1) * min(attempt, 5))
            continue
        break
    else:
        raise JouetError(f"{REF} on '{name}' kept changing while this sync ran ({attempts} attempts); "
                         "other machines are syncing too, so try again in a moment")
    result.others = others
    result.overlaps = [(a, b) for a in mine for b in others
                       if a.session != b.session and patterns.overlap(a.pattern, b.pattern)]
    _remember(repo, path, name, others, moment, result)
    return result


def _remember(
    repo: Repo, path: str, remote: str, others: list[Claim], now: float, result: SyncResult
) -> None:
    locked = Locked(path, repository=repo.common_dir)
    try:
        with locked as store:
            store.remote_name = remote
            store.synced_at = record.iso(now)
            store.remote_claims = others
    except StoreError as error:
        raise JouetError(f"the claims store {error.path} {error.reason}") from None
