"""Install, remove and inspect the git hooks through which jouet checks commits, pushes and clones.

`install` writes three small POSIX sh hooks (pre-commit, pre-push, post-checkout) that run
`<jouet> hook git <event> "$@"`. It writes them where git looks for this repository's hooks (the
common git dir's hooks/ for every worktree, or core.hooksPath when set, resolved as git resolves
it), or, with global_, into the template directory git copies into every new clone and `git init`
(init.templateDir; jouet sets it to a directory of its own when it is unset).

A hook that is already there is never overwritten: it is renamed to NAME.jouet-chained next to
jouet's, which runs it first with the same arguments and standard input and stops when it fails,
with its exit code. `uninstall` removes only jouet's hooks and renames the chained ones back, so
their bytes and mode are exactly what they were. Running either twice changes nothing the second
time. `status` says what is installed where.

This is a cold path (`jouet setup git`), so it may import what it likes.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import sys
from dataclasses import dataclass, field
from typing import Any

from jouet_git import gitrun, paths
from jouet_git.errors import JouetError

HOOKS = ("pre-commit", "pre-push", "post-checkout")
CHAINED_SUFFIX = ".jouet-chained"
MARKER = "# jouet-git hook:"
TEMPLATE_DIR_NAME = "git-template"
HOOK_MODE = 0o755

_JOUET_LINE = re.compile(r"^WANTED='((?:[^']|'\\'')*)'$", re.MULTILINE)


# ---------------------------------------------------------------------------------------------
# reports


@dataclass
class Step:
    """One thing install or uninstall did (or, in a dry run, would do)."""

    verb: str  # a key of _PHRASES
    path: str
    hook: str | None = None
    detail: str = ""
    source: str | None = field(default=None, repr=False)  # the file a rename moves to path
    content: str | None = field(default=None, repr=False)  # the script a write puts at path

    def describe(self, dry_run: bool) -> str:
        done, would, rest = _PHRASES[self.verb]
        text = f"{would if dry_run else done} {rest.format(hook=self.hook, path=self.path)}"
        return f"{text} ({self.detail})" if self.detail else text

    def to_json(self) -> dict[str, Any]:
        return {"verb": self.verb, "hook": self.hook, "path": self.path, "detail": self.detail}


# verb -> (what was done, what a dry run would do, the rest of the line)
_PHRASES: dict[str, tuple[str, str, str]] = {
    "install": ("installed", "would install", "the {hook} hook: {path}"),
    "update": ("updated", "would update", "jouet's {hook} hook: {path}"),
    "unchanged": ("kept", "would keep", "jouet's {hook} hook, already installed: {path}"),
    "chain": ("kept", "would keep", "the existing {hook} hook as {path}; jouet's hook runs it first"),
    "restore": ("put back", "would put back", "the {hook} hook jouet chained to: {path}"),
    "remove": ("removed", "would remove", "jouet's {hook} hook: {path}"),
    "absent": ("found", "found", "no jouet {hook} hook to remove: {path}"),
    "foreign": ("left alone", "would leave alone", "the {hook} hook, which is not jouet's: {path}"),
    "mkdir": ("created", "would create", "the hooks directory {path}"),
    "config-set": ("set", "would set", "init.templateDir to {path} in your global git config"),
    "config-unset": ("removed", "would remove", "init.templateDir ({path}) from your global git config"),
    "rmdir": ("removed", "would remove", "jouet's empty template directory {path}"),
}

CHANGES = frozenset(
    {"install", "update", "chain", "restore", "remove", "mkdir", "config-set", "config-unset", "rmdir"}
)


@dataclass
class HookState:
    """What one hook file in one hooks directory is."""

    hook: str
    path: str
    state: str  # jouet, foreign, symlink, absent
    jouet: str | None = None  # the jouet command a jouet hook runs
    chained: str | None = None  # the hook jouet's hook runs first, when there is one

    def describe(self) -> str:
        if self.state == "jouet":
            text = f"jouet's hook, runs {self.jouet}"
            if self.chained:
                text += f", after {os.path.basename(self.chained)}"
            return text
        others = {"foreign": "another tool's hook", "symlink": "a symbolic link (not jouet's)"}
        return others.get(self.state, "none")

    def to_json(self) -> dict[str, Any]:
        return {
            "hook": self.hook,
            "path": self.path,
            "state": self.state,
            "jouet": self.jouet,
            "chained": self.chained,
        }


@dataclass
class Location:
    """A directory git takes hooks from, why, and what is in it."""

    kind: str  # repository, template
    hooks_dir: str
    source: str
    hooks: list[HookState] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "hooks_dir": self.hooks_dir,
            "source": self.source,
            "hooks": [h.to_json() for h in self.hooks],
        }


@dataclass
class Report:
    """What install, uninstall or status did or found: lines for people, to_json() for --json."""

    command: str  # install, uninstall, status
    scope: str  # repository, global
    dry_run: bool = False
    hooks_dir: str | None = None
    steps: list[Step] = field(default_factory=list)
    locations: list[Location] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        """Whether anything was (or, in a dry run, would be) changed."""
        return any(step.verb in CHANGES for step in self.steps)

    @property
    def lines(self) -> list[str]:
        out = [step.describe(self.dry_run) for step in self.steps]
        for location in self.locations:
            out.append(f"{location.kind} hooks: {location.hooks_dir} ({location.source})")
            width = max(len(h.hook) for h in location.hooks) if location.hooks else 0
            out.extend(f"  {h.hook.ljust(width)}  {h.describe()}" for h in location.hooks)
        if self.command != "status" and not self.changed:
            out.append("nothing to change" if not self.dry_run else "a real run would change nothing")
        out.extend(f"note: {note}" for note in self.notes)
        return out

    def text(self) -> str:
        return "".join(line + "\n" for line in self.lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "command": self.command,
            "scope": self.scope,
            "dry_run": self.dry_run,
            "changed": self.changed,
            "hooks_dir": self.hooks_dir,
            "steps": [s.to_json() for s in self.steps],
            "locations": [loc.to_json() for loc in self.locations],
            "notes": list(self.notes),
            "lines": self.lines,
        }


# ---------------------------------------------------------------------------------------------
# the hook script


def default_jouet_command() -> str:
    """The absolute path of the running `jouet` console script, else `jouet` found on PATH."""
    argv0 = sys.argv[0] if sys.argv else ""
    if os.path.basename(argv0) == "jouet" and os.path.isfile(argv0):
        return os.path.abspath(argv0)
    sibling = os.path.join(os.path.dirname(sys.executable), "jouet")
    if os.path.isfile(sibling) and os.access(sibling, os.X_OK):
        return sibling
    found = shutil.which("jouet")
    return os.path.abspath(found) if found else "jouet"


def _sh_quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


_SCRIPT_HEAD = """\
#!/bin/sh
{marker} {hook}
# Installed by `jouet setup git`. `jouet setup git --uninstall` removes it and puts back the hook it
# chains to ({hook}{suffix}, next to this file), if there was one.
WANTED={wanted}
case $WANTED in
    */*) if [ -x "$WANTED" ]; then JOUET=$WANTED; else JOUET=$(command -v jouet 2>/dev/null) || JOUET=; fi ;;
    *) JOUET=$(command -v "$WANTED" 2>/dev/null) || JOUET= ;;
esac
CHAINED="$0{suffix}"
"""

_SCRIPT_MISSING = """\
if [ -z "$JOUET" ]; then
    echo "jouet: git's {hook} hook cannot find jouet (not at $WANTED, nor on PATH), so git goes on \
without jouet's checks. Reinstall jouet, or delete $0 to stop this message." >&2
    exit 0
fi
"""

_SCRIPT_PLAIN = """\
if [ -x "$CHAINED" ]; then
    "$CHAINED" "$@" || exit $?
fi
{missing}exec "$JOUET" hook git {hook} "$@"
"""

# pre-push: git writes the refs on standard input once; keep them so both hooks read all of them.
_SCRIPT_STDIN = """\
STDIN=$(cat)
if [ -x "$CHAINED" ]; then
    if [ -n "$STDIN" ]; then printf '%s\\n' "$STDIN"; fi | "$CHAINED" "$@" || exit $?
fi
{missing}if [ -n "$STDIN" ]; then printf '%s\\n' "$STDIN"; fi | "$JOUET" hook git {hook} "$@"
"""


def hook_script(hook: str, jouet_command: str) -> str:
    """The sh script jouet installs as HOOK, running JOUET_COMMAND."""
    head = _SCRIPT_HEAD.format(
        marker=MARKER, hook=hook, suffix=CHAINED_SUFFIX, wanted=_sh_quote(jouet_command)
    )
    missing = _SCRIPT_MISSING.format(hook=hook)
    body = _SCRIPT_STDIN if hook == "pre-push" else _SCRIPT_PLAIN
    return head + body.format(hook=hook, missing=missing)


def is_jouet_hook(path: str) -> bool:
    """Whether the file at PATH is a hook jouet installed (its marker is in its first lines)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(512)
    except OSError:
        return False
    return MARKER.encode() in head


def _installed_command(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read(8192)
    except OSError:
        return None
    match = _JOUET_LINE.search(text)
    return match.group(1).replace("'\\''", "'") if match else None


# ---------------------------------------------------------------------------------------------
# where git takes hooks from


def _git(args: list[str], cwd: str | None = None) -> gitrun.Result:
    try:
        return gitrun.git(args, cwd)
    except gitrun.GitMissing as error:
        raise JouetError(f"{error}; install git and make sure it is on PATH") from None


def _config_get(key: str, cwd: str | None, *scope: str) -> tuple[str | None, str | None]:
    """The value of KEY (as a path) and the scope it comes from, or (None, None)."""
    proc = _git(["config", *scope, "--show-scope", "--path", "--get", key], cwd)
    if proc.code != 0 or not proc.text().strip():
        return None, None
    where, _, value = proc.text().rstrip("\n").partition("\t")
    return value, where


def repository_hooks_dir(cwd: str) -> tuple[str, str]:
    """The directory git runs this repository's hooks from, and why it is that one."""
    proc = _git(["rev-parse", "--path-format=absolute", "--git-path", "hooks"], cwd)
    if proc.code != 0:
        raise JouetError(
            f"{cwd} is not inside a git repository ({proc.error() or 'git rev-parse failed'}): "
            "run `jouet setup git` from inside the repository to guard, or add --global to guard every "
            "repository you clone or create from now on"
        )
    hooks_dir = os.path.normpath(proc.text().strip())
    value, where = _config_get("core.hooksPath", cwd)
    if value is not None:
        source = f"core.hooksPath = {value}, from the {where} git config"
    else:
        source = "the repository's own hooks directory"
    return hooks_dir, source


def _template_dir() -> tuple[str | None, str | None]:
    """The template directory git copies into new repositories (init.templateDir), and its scope."""
    for scope in ("--global", "--system"):
        value, where = _config_get("init.templateDir", None, scope)
        if value:
            return os.path.abspath(os.path.expanduser(value)), where
    return None, None


def jouet_template_dir() -> str:
    """The template directory jouet creates when init.templateDir is unset."""
    return os.path.join(paths.config_dir(), TEMPLATE_DIR_NAME)


def _global_hooks_path_note() -> str | None:
    value, where = _config_get("core.hooksPath", None, "--global")
    if value is None:
        value, where = _config_get("core.hooksPath", None, "--system")
    if value is None:
        return None
    return (
        f"core.hooksPath is set in the {where} git config ({value}): git takes every repository's hooks "
        "from there and ignores the hooks a template puts in .git/hooks; run `jouet setup git` in a "
        "repository to install into that directory instead"
    )


# ---------------------------------------------------------------------------------------------
# install and uninstall


def _check_writable(hooks_dir: str) -> None:
    probe = hooks_dir
    while not os.path.exists(probe):
        parent = os.path.dirname(probe)
        if parent == probe:
            break
        probe = parent
    if not os.path.isdir(probe):
        raise JouetError(
            f"{probe} is not a directory, so jouet cannot put git hooks in {hooks_dir}: "
            "move it away, or point core.hooksPath at a directory"
        )
    if not os.access(probe, os.W_OK | os.X_OK):
        raise JouetError(
            f"cannot write to the hooks directory {probe}: permission denied. Run this as a user who can "
            "write there, or set core.hooksPath to a directory you own, then run `jouet setup git` again"
        )


def _refuse_symlink(path: str, hook: str) -> None:
    if os.path.islink(path):
        target = os.readlink(path)
        raise JouetError(
            f"{path} is a symbolic link (to {target}): jouet neither replaces nor chains to a linked {hook} "
            "hook, since the file it points at may be shared. Replace the link with a copy of its target "
            f"(cp --remove-destination '{target}' '{path}'), then run `jouet setup git` again"
        )


def _write_hook(path: str, text: str) -> None:
    """Write TEXT to PATH atomically (a temporary file renamed over it), executable."""
    from jouet_git.store import write_atomic

    write_atomic(path, text, HOOK_MODE)


def _plan_install(hooks_dir: str, jouet_command: str) -> list[Step]:
    """The steps that install every hook in HOOKS_DIR. Raises JouetError before anything is done."""
    plan: list[Step] = []
    if not os.path.isdir(hooks_dir):
        plan.append(Step("mkdir", hooks_dir))
    for hook in HOOKS:
        path = os.path.join(hooks_dir, hook)
        chained = path + CHAINED_SUFFIX
        script = hook_script(hook, jouet_command)
        _refuse_symlink(path, hook)
        detail = f"runs {jouet_command}"
        if os.path.lexists(path):
            if is_jouet_hook(path):
                with open(path, encoding="utf-8", errors="replace") as handle:
                    current = handle.read()
                if current == script and stat.S_IMODE(os.stat(path).st_mode) & 0o111:
                    plan.append(Step("unchanged", path, hook))
                else:
                    plan.append(Step("update", path, hook, detail, content=script))
                continue
            if os.path.lexists(chained):
                raise JouetError(
                    f"both {path} and {chained} exist, and {hook} is not jouet's hook: jouet keeps an "
                    "existing hook under the second name, so it cannot chain to this one. Merge the two "
                    f"hooks into {path} (or delete the one you no longer need), then run "
                    "`jouet setup git` again"
                )
            plan.append(Step("chain", chained, hook, source=path))
            plan.append(Step("install", path, hook, detail, content=script))
            continue
        if os.path.lexists(chained):
            detail += f", after {os.path.basename(chained)} which was already there"
        plan.append(Step("install", path, hook, detail, content=script))
    return plan


def _apply(step: Step) -> None:
    """Carry out one step."""
    if step.verb == "mkdir":
        os.makedirs(step.path, exist_ok=True)
    elif step.verb in ("install", "update") and step.content is not None:
        _write_hook(step.path, step.content)
    elif step.verb in ("chain", "restore") and step.source is not None:
        os.rename(step.source, step.path)
    elif step.verb == "remove":
        os.unlink(step.path)


def _run_plan(report: Report, plan: list[Step], dry_run: bool) -> None:
    for step in plan:
        if not dry_run:
            try:
                _apply(step)
            except OSError as error:
                raise JouetError(
                    f"could not {step.verb} {step.path}: {error.strerror or error}. Steps done before this "
                    f"one: {len(report.steps)}; see `jouet setup git --status`, fix the cause and run again"
                ) from error
        report.steps.append(step)


def _ensure_template_dir(report: Report, template: str | None, where: str | None, dry_run: bool) -> None:
    """Set init.templateDir to jouet's own template directory when it is unset (TEMPLATE is None)."""
    if template is None:
        template = jouet_template_dir()
        report.notes.append(
            "git copied its built-in sample hooks into new repositories until now; with init.templateDir "
            "set, new repositories get this directory's content instead (the samples are only examples)"
        )
        if not dry_run:
            proc = _git(["config", "--global", "init.templateDir", template])
            if proc.code != 0:
                raise JouetError(
                    f"could not set init.templateDir in your global git config: {proc.error()}"
                )
        report.steps.append(Step("config-set", template))
    else:
        report.notes.append(f"using the template directory init.templateDir already names ({where} config)")
    if os.environ.get("GIT_TEMPLATE_DIR"):
        report.notes.append(
            f"GIT_TEMPLATE_DIR is set ({os.environ['GIT_TEMPLATE_DIR']}) and overrides init.templateDir "
            "while it is set"
        )


def install(
    cwd: str, global_: bool = False, dry_run: bool = False, jouet_command: str | None = None
) -> Report:
    """Install jouet's pre-commit, pre-push and post-checkout hooks, chaining to any already there.

    Into the repository at CWD (where git takes its hooks from), or with GLOBAL_ into the template
    directory every new `git clone` and `git init` copies. JOUET_COMMAND is what the hooks run
    (default: this jouet's absolute path). With DRY_RUN nothing is written and the report says what
    would be. Raises JouetError, before changing anything, for a hook that is a symbolic link, a
    chained hook in the way, or a hooks directory that cannot be written.
    """
    command = jouet_command or default_jouet_command()
    report = Report("install", "global" if global_ else "repository", dry_run=dry_run)
    if global_:
        template, where = _template_dir()
        hooks_dir = os.path.join(template or jouet_template_dir(), "hooks")
        _check_writable(hooks_dir)
        plan = _plan_install(hooks_dir, command)
        _ensure_template_dir(report, template, where, dry_run)
        note = _global_hooks_path_note()
        if note:
            report.notes.append(note)
        report.notes.append(
            "repositories that exist already keep their hooks: run `jouet setup git` in each, "
            "or `git init` in one to copy the missing template hooks into it"
        )
    else:
        hooks_dir, source = repository_hooks_dir(cwd)
        _check_writable(hooks_dir)
        plan = _plan_install(hooks_dir, command)
        value, where = _config_get("core.hooksPath", cwd)
        if value is not None:
            report.notes.append(f"installed into {hooks_dir} because of {source}")
            if where in ("global", "system"):
                report.notes.append(
                    "that directory serves every repository using that config, not just this one"
                )
    report.hooks_dir = hooks_dir
    _run_plan(report, plan, dry_run)
    return report


def _plan_uninstall(hooks_dir: str) -> list[Step]:
    plan: list[Step] = []
    for hook in HOOKS:
        path = os.path.join(hooks_dir, hook)
        chained = path + CHAINED_SUFFIX
        ours = not os.path.islink(path) and os.path.isfile(path) and is_jouet_hook(path)
        if os.path.lexists(path) and not ours:
            plan.append(Step("foreign", path, hook))
            continue
        if ours:
            plan.append(Step("remove", path, hook))
        if os.path.lexists(chained):
            plan.append(Step("restore", path, hook, f"from {os.path.basename(chained)}", source=chained))
        elif not ours:
            plan.append(Step("absent", path, hook))
    return plan


def uninstall(cwd: str, global_: bool = False, dry_run: bool = False) -> Report:
    """Remove jouet's hooks and put back the hooks they chained to, exactly as they were.

    Hooks that are not jouet's are left alone. With GLOBAL_, from the template directory; when that
    is the directory jouet created and nothing else is left in it, it is removed and
    init.templateDir is unset again.
    """
    report = Report("uninstall", "global" if global_ else "repository", dry_run=dry_run)
    template, where = None, None
    if global_:
        template, where = _template_dir()
        if template is None:
            report.notes.append("init.templateDir is not set, so no template directory holds jouet's hooks")
            return report
        hooks_dir = os.path.join(template, "hooks")
    else:
        hooks_dir = repository_hooks_dir(cwd)[0]
    report.hooks_dir = hooks_dir
    plan = _plan_uninstall(hooks_dir) if os.path.isdir(hooks_dir) else []
    if any(step.verb in CHANGES for step in plan):
        _check_writable(hooks_dir)
    _run_plan(report, plan, dry_run)
    if template is not None and os.path.normpath(template) == os.path.normpath(jouet_template_dir()):
        _forget_template(report, template, where, dry_run)
    return report


def _forget_template(report: Report, template: str, where: str | None, dry_run: bool) -> None:
    """Undo what install did to git's config when the template directory is jouet's and now empty."""
    hooks_dir = os.path.join(template, "hooks")
    removed = {os.path.basename(s.path) for s in report.steps if s.verb == "remove"}
    restored = {os.path.basename(s.path) for s in report.steps if s.verb == "restore"}
    left = set(os.listdir(hooks_dir)) if os.path.isdir(hooks_dir) else set()
    if dry_run:
        left = (left - removed) | restored
        left -= {name + CHAINED_SUFFIX for name in restored}
    others = set(os.listdir(template)) - {"hooks"} if os.path.isdir(template) else set()
    if left or others or where != "global":
        return
    if not dry_run:
        if os.path.isdir(hooks_dir):
            os.rmdir(hooks_dir)
        if os.path.isdir(template):
            os.rmdir(template)
        proc = _git(["config", "--global", "--unset", "init.templateDir"])
        if proc.code not in (0, 5):
            raise JouetError(
                f"could not unset init.templateDir in your global git config: {proc.error()}"
            )
    report.steps.append(Step("rmdir", template))
    report.steps.append(Step("config-unset", template))


# ---------------------------------------------------------------------------------------------
# status


def _hook_states(hooks_dir: str) -> list[HookState]:
    states = []
    for hook in HOOKS:
        path = os.path.join(hooks_dir, hook)
        chained = path + CHAINED_SUFFIX
        if os.path.islink(path):
            states.append(HookState(hook, path, "symlink"))
        elif not os.path.isfile(path):
            states.append(HookState(hook, path, "absent"))
        elif is_jouet_hook(path):
            states.append(HookState(hook, path, "jouet", _installed_command(path),
                                    chained if os.path.lexists(chained) else None))
        else:
            states.append(HookState(hook, path, "foreign"))
    return states


def status(cwd: str | None) -> Report:
    """What is installed where: the repository at CWD (if any), and the template directory."""
    report = Report("status", "repository" if cwd else "global")
    if cwd is not None:
        proc = _git(["rev-parse", "--git-dir"], cwd)
        if proc.code == 0:
            hooks_dir, source = repository_hooks_dir(cwd)
            report.hooks_dir = hooks_dir
            report.locations.append(Location("repository", hooks_dir, source, _hook_states(hooks_dir)))
        else:
            report.notes.append(f"{cwd} is not inside a git repository")
    template, where = _template_dir()
    if template is None:
        report.notes.append(
            "init.templateDir is not set: new clones get git's built-in sample hooks, not jouet's"
        )
    else:
        hooks_dir = os.path.join(template, "hooks")
        source = f"init.templateDir, from the {where} git config"
        report.locations.append(Location("template", hooks_dir, source, _hook_states(hooks_dir)))
    if os.environ.get("GIT_TEMPLATE_DIR"):
        report.notes.append(
            f"GIT_TEMPLATE_DIR is set ({os.environ['GIT_TEMPLATE_DIR']}) and overrides init.templateDir"
        )
    note = _global_hooks_path_note()
    if note:
        report.notes.append(note)
    return report
