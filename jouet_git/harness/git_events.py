"""Git's own hook events (pre-commit, pre-push, post-checkout) turned into Calls for the rules.

The hooks that `jouet setup git` installs, and the ones the pre-commit framework runs from
.pre-commit-hooks.yaml, land here. This module only translates: it reads what git hands a hook
(arguments, standard input, the framework's PRE_COMMIT_* variables) and describes it as the shell
command a person would have typed, so the same rules that judge an agent's `git push` judge a push
made by a Makefile or a Python one-liner.

Every git command run here is read-only and runs with GIT_OPTIONAL_LOCKS=0, so a hook never takes
the index lock that the git process running it (or an agent's own git) may need.

This module is on a hook's path: it imports nothing heavy at module level (no typing, subprocess,
pathlib or dataclasses), and its records are plain __slots__ classes.
"""

from __future__ import annotations

import os

from jouet_git.call import KIND_SHELL, PRE_TOOL_USE, Call
from jouet_git.errors import JouetError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

HARNESS = "git"
TOOL = "git"
DELETE_REF = "(delete)"

# (No regular expression is compiled when the module loads: a pre-commit hook uses none of them.)
_HEX_DIGITS = frozenset("0123456789abcdef")
_SAFE_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:@%+=,^~-")
_CONTROL = {**{c: "?" for c in range(0x20)}, **{c: "?" for c in range(0x7f, 0xa0)}}


def _is_oid(text: str) -> bool:
    """Whether TEXT is a sha1 or sha256 object name, in full."""
    return len(text) in (40, 64) and _HEX_DIGITS.issuperset(text)


def is_zero_oid(oid: str) -> bool:
    """Whether OID is git's all-zero object name (no object: a new or a deleted ref)."""
    return bool(oid) and not oid.strip("0")


# ---------------------------------------------------------------------------------------------
# running git


def _git(args: list[str], cwd: str, input: str | None = None) -> tuple[int, str]:
    """Run a read-only git command in CWD (the hook's repository: git's own variables are kept);
    return its exit code and standard output."""
    from jouet_git import gitrun

    try:
        result = gitrun.git(args, cwd, env=gitrun.git_env(keep_repo=True),
                            input=input.encode("utf-8") if input is not None else None)
    except gitrun.GitMissing as error:
        raise JouetError(f"{error} in {cwd}; check that git is on PATH") from None
    return result.code, result.text()


def work_tree_root(cwd: str) -> str:
    """The top of the work tree CWD is in (CWD itself for a bare repository or outside git).

    Git runs hooks from the top of the work tree, so the common case costs no process.
    """
    here = os.path.abspath(cwd)
    if os.path.exists(os.path.join(here, ".git")):
        return here
    code, out = _git(["rev-parse", "--show-toplevel"], here)
    top = out.strip()
    return top if code == 0 and top else here


def _known_objects(oids: list[str], cwd: str) -> set[str]:
    """Which of OIDS exist in the repository at CWD (one `git cat-file --batch-check`)."""
    if not oids:
        return set()
    code, out = _git(["cat-file", "--batch-check=%(objectname)"], cwd, input="".join(o + "\n" for o in oids))
    if code != 0:
        return set()
    return {line.strip() for line in out.splitlines() if line.strip() and not line.endswith(" missing")}


def _is_ancestor(old: str, new: str, cwd: str) -> bool:
    """Whether OLD is an ancestor of NEW (tags are peeled; anything that is not a commit is not)."""
    code, _ = _git(["merge-base", "--is-ancestor", old, new], cwd)
    return code == 0


def _resolve(rev: str, cwd: str) -> str | None:
    """The object name REV stands for, or None."""
    code, out = _git(["rev-parse", "--verify", "--quiet", "--end-of-options", rev], cwd)
    oid = out.strip()
    return oid if code == 0 and _is_oid(oid) else None


# ---------------------------------------------------------------------------------------------
# the shell command a git event stands for


def quote(word: str) -> str:
    """WORD quoted for a POSIX shell, left bare when nothing in it needs quoting."""
    if word and _SAFE_CHARS.issuperset(word):
        return word
    return "'" + word.replace("'", "'\\''") + "'"


def push_command(remote: str, local_ref: str, ref: str, forced: bool = False, deleted: bool = False) -> str:
    """`git push REMOTE [+]LOCAL:REF`, or `git push REMOTE :REF` for a deletion."""
    spec = ":" + ref if deleted else ("+" if forced else "") + local_ref + ":" + ref
    return f"git push {quote(remote)} {quote(spec)}"


# ---------------------------------------------------------------------------------------------
# pre-commit


def pre_commit_calls(cwd: str) -> list[Call]:
    """The Calls for git's pre-commit event: a single `git commit`, run at the work tree's root.

    The rules look at what is being committed through their probes (the index is what git will
    commit), so the call itself carries no file list.
    """
    return [
        Call(
            event=PRE_TOOL_USE,
            harness=HARNESS,
            tool=TOOL,
            kind=KIND_SHELL,
            command="git commit",
            cwd=work_tree_root(cwd),
            input={"hook": "pre-commit"},
        )
    ]


# ---------------------------------------------------------------------------------------------
# pre-push


class PushRef:
    """One ref a push updates, with the Call that describes it and the commits it sends.

    ref: the remote ref (refs/heads/feat, refs/tags/v1). local_ref: what git named as the source
    (refs/heads/feat, HEAD, an object name, or "(delete)"). old: the remote's object before the push
    (all zeros for a new ref). new: the object pushed (all zeros for a deletion). forced: the push
    replaces the remote's object with one that does not descend from it.
    exclude: what to leave out of `new`'s history to get the commits this push sends: the old
    object for an update, ["--remotes"] (every commit no remote-tracking ref reaches) for a new ref.
    """

    __slots__ = ("call", "exclude", "forced", "local_ref", "new", "old", "ref", "remote", "source", "url")

    def __init__(
        self,
        remote: str,
        url: str,
        local_ref: str,
        new: str,
        ref: str,
        old: str,
        forced: bool,
        exclude: list[str],
        cwd: str,
        source: str = "git",
    ) -> None:
        self.remote = remote
        self.url = url
        self.local_ref = local_ref
        self.new = new
        self.ref = ref
        self.old = old
        self.forced = forced
        self.exclude = exclude
        self.source = source
        self.call = Call(
            event=PRE_TOOL_USE,
            harness=HARNESS,
            tool=TOOL,
            kind=KIND_SHELL,
            command=push_command(remote, local_ref, ref, forced, self.deleted) if ref else "git push",
            cwd=cwd,
            input={"hook": "pre-push", **self.to_json()},
        )

    @property
    def created(self) -> bool:
        """The push creates REF on the remote."""
        return is_zero_oid(self.old) and not self.deleted

    @property
    def deleted(self) -> bool:
        """The push deletes REF on the remote."""
        return is_zero_oid(self.new)

    @property
    def revisions(self) -> list[str]:
        """`git rev-list` arguments naming exactly the commits this push sends ([] for a deletion)."""
        if self.deleted:
            return []
        return [self.new, "--not", *self.exclude]

    @property
    def log_opts(self) -> str | None:
        """The same as one string, for `gitleaks git --log-opts`; None for a deletion."""
        revisions = self.revisions
        return " ".join(revisions) if revisions else None

    @property
    def range(self) -> str | None:
        """`OLD..NEW` when the commits sent are exactly that range, else None."""
        if self.deleted or len(self.exclude) != 1 or self.exclude[0].startswith("-"):
            return None
        return f"{self.exclude[0]}..{self.new}"

    def to_json(self) -> dict[str, Any]:
        return {
            "remote": self.remote,
            "url": self.url,
            "local_ref": self.local_ref,
            "local_oid": self.new,
            "remote_ref": self.ref,
            "remote_oid": self.old,
            "forced": self.forced,
            "created": self.created,
            "deleted": self.deleted,
            "revisions": self.revisions,
            "source": self.source,
        }

    def __repr__(self) -> str:
        return f"PushRef({self.call.command!r}, old={self.old[:12]}, new={self.new[:12]})"


def _read_push_lines(stdin_text: str) -> list[tuple[str, str, str, str]]:
    """Git's pre-push lines as (local ref, local oid, remote ref, remote oid)."""
    lines = []
    for number, line in enumerate(stdin_text.splitlines(), 1):
        if not line.strip():
            continue
        parts = line.rsplit(maxsplit=3)
        if len(parts) != 4 or not _is_oid(parts[1]) or not _is_oid(parts[3]):
            raise JouetError(
                f"pre-push: line {number} of the standard input git gave is not "
                f"'<local ref> <local oid> <remote ref> <remote oid>': {_printable(line)!r}. "
                "This hook must be run by git (or given git's pre-push lines on stdin)."
            )
        lines.append((parts[0], parts[1], parts[2], parts[3]))
    return lines


def pre_push_calls(remote: str, url: str, stdin_text: str, cwd: str) -> list[PushRef]:
    """One PushRef per line git gives the pre-push hook on standard input.

    REMOTE and URL are the hook's two arguments (for a push to a bare URL, git passes the URL as
    both). An update is forced when it moves an existing tag (git moves a tag only when forced),
    when the remote's object is not known here at all (git lets a push over a commit it has never
    seen through only when it is forced), or when the remote's object is not an ancestor of the one
    pushed and it holds commits kept nowhere else here: no branch, tag or other remote-tracking
    branch has them, and the commits pushed carry no rewritten copy of them (the same patch, as
    after a rebase). So `git push --force-with-lease` after rebasing your own branch is not forced.
    """
    lines = _read_push_lines(stdin_text)
    root = work_tree_root(cwd)
    updates = [old for _, new, _, old in lines if not is_zero_oid(old) and not is_zero_oid(new)]
    known = _known_objects(sorted(set(updates)), root)
    refs = []
    for local_ref, new, ref, old in lines:
        if is_zero_oid(new):
            refs.append(PushRef(remote, url, DELETE_REF, new, ref, old, False, [], root))
        elif is_zero_oid(old):
            refs.append(PushRef(remote, url, local_ref, new, ref, old, False, ["--remotes"], root))
        elif old not in known:
            refs.append(PushRef(remote, url, local_ref, new, ref, old, True, ["--remotes"], root))
        else:
            forced = ref.startswith("refs/tags/") or (
                not _is_ancestor(old, new, root) and _drops_commits(remote, ref, old, new, root))
            refs.append(PushRef(remote, url, local_ref, new, ref, old, forced, [old], root))
    return refs


def _drops_commits(remote: str, ref: str, old: str, new: str, root: str) -> bool:
    """Whether replacing the remote's OLD by NEW drops commits kept nowhere else here (see
    pre_push_calls): commits of OLD that no branch, tag or remote-tracking branch but the one the
    push moves has, and that NEW carries no rewritten copy of. True when git cannot tell."""
    tracking = _tracking_ref(remote, ref, root)
    others = ["--branches", "--tags", "--exclude=*/HEAD"]
    if tracking is not None and tracking.startswith("refs/remotes/"):
        others.append(f"--exclude={tracking[len('refs/remotes/'):]}")
    others.append("--remotes")
    code, out = _git(["rev-list", "--no-merges", "--not", *others, new, "--not", "--end-of-options", old, "--"],
                     root)
    if code != 0:
        return True
    unkept = set(out.split())
    if not unkept:
        return False
    code, out = _git(["rev-list", "--no-merges", "--left-only", "--cherry-pick", "--end-of-options",
                      f"{old}...{new}", "--"], root)
    return code != 0 or bool(unkept & set(out.split()))


def _tracking_ref(remote: str, ref: str, cwd: str) -> str | None:
    """The remote-tracking ref that mirrors REMOTE's REF, from remote.REMOTE.fetch (None if none)."""
    code, out = _git(["config", "--get-all", f"remote.{remote}.fetch"], cwd)
    specs = out.split() if code == 0 else []
    for spec in specs:
        spec = spec.lstrip("+")
        if spec.startswith("^") or ":" not in spec:
            continue
        src, dst = spec.split(":", 1)
        if "*" in src and "*" in dst:
            head, _, tail = src.partition("*")
            if ref.startswith(head) and ref.endswith(tail) and len(ref) >= len(head) + len(tail):
                middle = ref[len(head):len(ref) - len(tail)]
                return dst.replace("*", middle, 1)
        elif src == ref and dst:
            return dst
    return None


def pre_push_calls_from_framework(env: Mapping[str, str], cwd: str) -> list[PushRef]:
    """The PushRefs of a push run through the pre-commit framework, rebuilt from its variables.

    The framework hands its hooks no standard input and describes one ref only, in
    PRE_COMMIT_REMOTE_NAME, PRE_COMMIT_REMOTE_URL, PRE_COMMIT_LOCAL_BRANCH, PRE_COMMIT_REMOTE_BRANCH,
    PRE_COMMIT_FROM_REF and PRE_COMMIT_TO_REF. From those this rebuilds at most one PushRef:

    - FROM and TO set: new is TO, and the commits sent are FROM..TO (the framework's own range).
      FROM is the remote's old object when it is what the remote-tracking ref holds, or when it is
      not an ancestor of TO (then the push is forced). When no remote-tracking ref exists and FROM
      is an ancestor of TO, the ref is taken to be new on the remote.
    - Names set but no FROM/TO: the framework saw the push reach a root commit. new is what the
      local ref names now; old is the remote-tracking ref's object if there is one (forced when it
      is not an ancestor), else the ref is new; the commits sent are those no remote-tracking ref
      reaches.
    - FROM and TO but no names (`pre-commit run --hook-stage pre-push --from-ref A --to-ref B` by
      hand): a PushRef for a plain `git push` whose commits are A..B.
    - Nothing set: nothing is being pushed, or the framework found nothing new: [].

    What only the native hook (`jouet setup git`) sees, because it reads git's own lines:
    every ref of a push that updates several (the framework keeps the first one with something to
    send), deletions (the framework skips them), refs whose commits are all on the remote already,
    the exact old object of a ref whose remote object this repository does not have (a forced push
    over commits never fetched looks like a fast-forward from the last shared commit here), and a
    tag that is moved (git forces that, the framework cannot tell a tag's old value).
    """
    remote = env.get("PRE_COMMIT_REMOTE_NAME") or ""
    url = env.get("PRE_COMMIT_REMOTE_URL") or remote
    local_ref = env.get("PRE_COMMIT_LOCAL_BRANCH") or ""
    ref = env.get("PRE_COMMIT_REMOTE_BRANCH") or ""
    from_ref = env.get("PRE_COMMIT_FROM_REF") or ""
    to_ref = env.get("PRE_COMMIT_TO_REF") or ""
    root = work_tree_root(cwd)
    named = bool(remote and local_ref and ref)
    zero = "0" * 40

    if from_ref and to_ref:
        new = _resolve(to_ref, root) or to_ref
        base = _resolve(from_ref, root) or from_ref
        if len(new) == 64:
            zero = "0" * 64
        if not named:
            return [PushRef("", "", to_ref, new, "", base, False, [base], root, source="framework")]
        tracking = _tracking_ref(remote, ref, root)
        tracked = _resolve(tracking, root) if tracking else None
        ancestor = _is_ancestor(base, new, root)
        if tracked == base or not ancestor:
            old, forced = base, not ancestor or ref.startswith("refs/tags/")
        elif tracked is None:
            old, forced = zero, False
        else:
            old, forced = base, False
        return [PushRef(remote, url, local_ref, new, ref, old, forced, [base], root, source="framework")]

    if not named:
        return []
    resolved = _resolve(local_ref, root)
    if resolved is None:
        raise JouetError(
            f"pre-push (pre-commit framework): cannot resolve the local ref {local_ref!r} named in "
            "PRE_COMMIT_LOCAL_BRANCH; install jouet's own git hooks (`jouet setup git`) to check "
            "pushes from git's exact list of refs"
        )
    new = resolved
    if len(new) == 64:
        zero = "0" * 64
    tracking = _tracking_ref(remote, ref, root)
    tracked = _resolve(tracking, root) if tracking else None
    if tracked is None:
        return [PushRef(remote, url, local_ref, new, ref, zero, False, ["--remotes"], root, "framework")]
    forced = not _is_ancestor(tracked, new, root)
    return [PushRef(remote, url, local_ref, new, ref, tracked, forced, [tracked], root, source="framework")]


def outgoing_commits(push: PushRef, cwd: str) -> list[str]:
    """The commits PUSH sends, newest first, as `git rev-list` lists them ([] for a deletion)."""
    revisions = push.revisions
    if not revisions:
        return []
    code, out = _git(["rev-list", *revisions, "--"], work_tree_root(cwd))
    if code != 0:
        return []
    return out.split()


# ---------------------------------------------------------------------------------------------
# post-checkout

_NOTICE_LIMIT = 20  # names listed per file before "and N more"
_READ_LIMIT = 1 << 20  # bytes read from one TOML file


def post_checkout_argv_from_framework(env: Mapping[str, str]) -> list[str]:
    """post-checkout's three arguments as the pre-commit framework passes them in its variables."""
    return [
        env.get("PRE_COMMIT_FROM_REF") or "",
        env.get("PRE_COMMIT_TO_REF") or "",
        env.get("PRE_COMMIT_CHECKOUT_TYPE") or "",
    ]


def _printable(text: str, limit: int = 80) -> str:
    """TEXT with control characters replaced, cut to LIMIT: names from a repository reach a terminal."""
    text = text.translate(_CONTROL)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _read_toml(path: str) -> tuple[dict[str, Any] | None, str | None]:
    """The TOML table in PATH, or an error saying why it was not read. Runs nothing in it."""
    if os.path.islink(path):
        return None, "a symbolic link, not read"
    try:
        with open(path, "rb") as handle:
            data = handle.read(_READ_LIMIT + 1)
    except OSError as error:
        return None, f"cannot be read: {error.strerror}"
    if len(data) > _READ_LIMIT:
        return None, "larger than 1 MiB, not read"
    import tomli

    try:
        return tomli.loads(data.decode("utf-8")), None
    except (UnicodeDecodeError, tomli.TOMLDecodeError) as error:
        return None, f"does not parse: {error}"


def _names(items: list[str]) -> str:
    shown = [_printable(name, 64) for name in items[:_NOTICE_LIMIT]]
    more = len(items) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def _rule_names(data: dict[str, Any]) -> list[str]:
    tables = data.get("rule")
    if isinstance(tables, dict):
        tables = [tables]
    names = []
    if isinstance(tables, list):
        names = [str(t.get("name")) for t in tables if isinstance(t, dict) and t.get("name")]
    if not names and isinstance(data.get("name"), str):
        names = [data["name"]]
    return names


def _plugin_names(data: dict[str, Any]) -> list[str]:
    """Plugin names from plugins.toml: [[plugin]] (or [[plugins]]) tables' names, else table keys."""
    found: list[str] = []
    for key in ("plugin", "plugins"):
        entries = data.get(key)
        if isinstance(entries, list):
            for entry in entries:
                if isinstance(entry, dict):
                    found.append(_plugin_label(str(entry.get("name") or "(unnamed)"), entry))
        elif isinstance(entries, dict):
            found.extend(_plugin_label(name, value) for name, value in entries.items())
    if not found:
        found = [_plugin_label(name, value) for name, value in data.items() if isinstance(value, dict)]
    return found


def _plugin_label(name: str, entry: object) -> str:
    if isinstance(entry, dict):
        for key in ("url", "source", "git", "repo", "path"):
            if isinstance(entry.get(key), str):
                return f"{name} ({entry[key]})"
    return name


def _listdir(path: str) -> list[str]:
    try:
        return sorted(os.listdir(path))
    except OSError:
        return []


def shipped_rule_files(root: str) -> list[tuple[str, str]]:
    """What ROOT/.jouet ships, as (path relative to ROOT, description), read without running anything."""
    jouet_dir = os.path.join(root, ".jouet")
    if os.path.islink(jouet_dir):
        return [(".jouet", "a symbolic link, not followed")]
    if not os.path.isdir(jouet_dir):
        return []
    shipped: list[tuple[str, str]] = []
    rules_dir = os.path.join(jouet_dir, "rules")
    if not os.path.islink(rules_dir):
        for name in _listdir(rules_dir):
            path = os.path.join(rules_dir, name)
            rel = f".jouet/rules/{name}"
            if name.endswith(".toml"):
                data, problem = _read_toml(path)
                if data is None:
                    shipped.append((rel, str(problem)))
                else:
                    names = _rule_names(data)
                    shipped.append((rel, f"rules {_names(names)}" if names else "no rules named"))
            elif name.endswith(".luau"):
                shipped.append((rel, "script"))
    else:
        shipped.append((".jouet/rules", "a symbolic link, not followed"))
    for name in _listdir(jouet_dir):
        path = os.path.join(jouet_dir, name)
        if name.endswith(".luau"):
            shipped.append((f".jouet/{name}", "script"))
        elif name == "plugins.toml":
            data, problem = _read_toml(path)
            if data is None:
                shipped.append((".jouet/plugins.toml", str(problem)))
            else:
                plugins = _plugin_names(data)
                what = f"plugins {_names(plugins)}" if plugins else "no plugins named"
                shipped.append((".jouet/plugins.toml", what))
    return shipped


def post_checkout_notice(argv: list[str], cwd: str) -> str | None:
    """After a fresh clone, what jouet rules and plugins the repository ships and how to trust them.

    ARGV is post-checkout's (PREV_HEAD NEW_HEAD FLAG). Only a checkout from nothing (PREV_HEAD all
    zeros: `git clone`, or `git worktree add`) gets a notice, and only when the checkout holds
    .jouet/rules/*.toml, .jouet/rules/*.luau, .jouet/*.luau or .jouet/plugins.toml. File names and
    rule names are read from the files without running them. None otherwise.
    """
    if not argv or not is_zero_oid(argv[0]):
        return None
    root = work_tree_root(cwd)
    shipped = shipped_rule_files(root)
    if not shipped:
        return None
    width = max(len(_printable(rel)) for rel, _ in shipped)
    lines = [
        "jouet: this repository ships its own jouet rules. They do not run until you trust them:",
        *(f"  {_printable(rel).ljust(width)}  {what}" for rel, what in shipped),
        "Nothing in them has run. Review what they do with `jouet trust --show`, "
        "then run `jouet trust` to let them run.",
    ]
    return "\n".join(lines) + "\n"
