"""What of jouet's a path is, and whether writing it would switch jouet off.

    view = View.here(cwd)                       # this machine, as the hook process sees it
    found = view.guarded(path, how, ...)        # a Guarded, or None when the write is not jouet's

The places, by kind:

    jouet        jouet's own directories (settings, state, caches, data, enforced rules: paths.py as
                 the hook's JOUET_* and XDG_* variables place them, and where they are by default),
                 its installed package (jouet_git/ and the built-in rules) and the program the hooks
                 run. Any write, move, removal or mode change, of them or of a directory holding them.
    hooks        a file `jouet setup` wrote for an agent harness (setup/targets.py, user and project
                 level) while it holds jouet's entries. A shell write cannot be checked, so it is
                 refused; a file tool's edit is worked out and refused when an entry would go.
    claude       any Claude Code settings file: `disableAllHooks` turns every hook off, jouet's
                 included. Shell writes are refused; edits that set it are refused.
    gemini       any Gemini CLI settings file (a project's overrides the user's): `hooksConfig`,
                 `hooks` and `tools.enableHooks` turn hooks off or replace them. Shell writes are
                 refused; edits that change those keys are refused.
    git-hooks    a git hook jouet installed (its marker in the file) and the hook it chains to, or
                 a directory holding them (.git/hooks, core.hooksPath).
    git-config   git's config files (where core.hooksPath and init.templateDir live): shell writes
                 that name those keys, an include, or that copy, move or remove the file; `git config`
                 setting or unsetting them; file-tool edits that change them.

Everything reads through the View, so a rule's examples can ask the same questions of an invented
machine (home /home/me, files from the example) and get the same answer anywhere.

On the hook path only when a call writes (requires = { guarded = true }); setup/ modules are
imported only for a path named like one of their files.
"""

from __future__ import annotations

import os
import re
import stat

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

JOUET = "jouet"
HOOKS = "hooks"
CLAUDE = "claude"
GEMINI = "gemini"
GIT_HOOKS = "git-hooks"
GIT_CONFIG = "git-config"

EDIT = "edit"  # a file tool's write: its input says what the file becomes
# Shell writes that put content from elsewhere in place, or take the file away.
_OPAQUE = ("cp", "cp -r", "mv", "ln", "link", "install", "rsync", "rsync -r", "scp", "scp -r", "dd", "curl -o",
           "wget -O", "tar -x", "unzip", "git mv", "rm", "git rm", "unlink", "shred", "rmdir", "find", "truncate",
           "srm")
_MODE_CHANGES = ("chmod", "chown", "chgrp", "setfacl", "chattr")
# What View._below answers.
_YES = "yes"
_NO = "no"
_MISSING = "missing"
# A View's work tree before it is looked for.
_UNKNOWN = "?"
# Copies and moves of whole directories (shell/writes.py TREE_HOWS, TREE_INTO).
_TREES = ("cp -r", "rsync -r", "scp -r", "mv")
TREE_INTO = " into"


_GIT_HOOK_NAMES = ("pre-commit", "pre-push", "post-checkout")
_GIT_HOOK_MARKER = b"# jouet-git hook:"
_CLAUDE_FILES = ("settings.json", "settings.local.json", "managed-settings.json")
# Gemini CLI's settings files (user, project, system and system defaults), and where the user's and
# the system's lie (GEMINI_CLI_SYSTEM_SETTINGS_PATH moves the system's).
_GEMINI_FILES = ("settings.json", "system-defaults.json")
_GEMINI_SYSTEM_DIRS = ("/etc/gemini-cli", "/Library/Application Support/GeminiCli")
# git config keys that decide which hooks git runs: set, unset, or their section renamed or removed.
_GIT_KEYS = (r"(?i)^(core\.hookspath|init\.templatedir|include\..*|includeif\..*"
             r"|\[(core|init|include|includeif)(\..*)?\]|\*)$")
# The same named in a shell command that writes a git config file.
_GIT_CONFIG_TEXT = r"(?i)hookspath|templatedir|\binclude"
# The lines of a git config file that hold them (an include's `path = ...` too).
_GIT_CONFIG_LINES = r"(?im)^\s*(?:hookspath|templatedir)\s*=.*$|^\s*\[\s*include.*$|^\s*path\s*=.*$"
# jouet's directories as they lie under any home; group 1 is what follows `jouet`.
_DEFAULT_LAYOUT = r"/(?:\.config|\.local/state|\.local/share|\.cache)/jouet(/[^/]*)?(?:/|$)|^/etc/jouet(/[^/]*)?(?:/|$)"
# The names of the files `jouet setup` writes for a harness (setup/targets.py; a test keeps them in step),
# so setup/ is imported only for a path that could be one of them.
_TARGET_NAMES = frozenset({"settings.json", "hooks.json", "jouet.json"})
# ... and of the folders that hold the files it writes one by one (Cline's scripts, in-process plugins).
_TARGET_FOLDERS = frozenset({"hooks", "Hooks", "plugins", "jouet", "extensions"})
MAX_READ = 1 << 20


def _re(pattern: str) -> Any:
    """PATTERN compiled (the re module caches it): compiled on first use, off the import."""
    return re.compile(pattern)


class Guarded:
    """A write that would switch jouet off: what the path is, and of which kind."""

    __slots__ = ("kind", "path", "what")

    def __init__(self, kind: str, path: str, what: str) -> None:
        self.kind = kind
        self.path = path
        self.what = what

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "path": self.path, "what": self.what}

    def __repr__(self) -> str:
        return f"Guarded({self.kind}, {self.path!r}, {self.what!r})"


def _real_read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read(MAX_READ)
    except OSError:
        return None


def _real_list(path: str) -> list[str] | None:
    try:
        return os.listdir(path)
    except OSError:
        return None


class View:
    """The machine as one process sees it: environment, home, the call's directory, its files."""

    __slots__ = ("_exempt", "_linked", "_missing_places", "_own", "_resolved_places", "_root", "_unresolved",
                 "_whole_paths", "cwd", "environ", "home", "listdir", "package", "programs", "read", "realpath")

    def __init__(self, environ: Mapping[str, str], home: str, cwd: str, root: str | None, package: list[str],
                 programs: list[str], read: Callable[[str], bytes | None] = _real_read,
                 listdir: Callable[[str], list[str] | None] = _real_list,
                 realpath: Callable[[str], str] | None = None) -> None:
        self.environ = environ
        self.home = home.rstrip("/") or "/"
        self.cwd = cwd
        self._root = root  # the work tree around cwd, for project-level files (_UNKNOWN: found on first use)
        self.package = package
        self.programs = programs
        self.read = read
        self.listdir = listdir
        # On an invented machine (a rule's examples: a realpath of its own) the disk says nothing of its
        # paths: every place is resolved and compared (see _may_hold).
        self._whole_paths = realpath is not None
        if realpath is None:
            from jouet_git.realpath import realpath as kernel_realpath

            realpath = kernel_realpath
        self.realpath: Callable[[str], str] = realpath
        self._own: list[tuple[str, str]] | None = None
        self._exempt: list[str] = []
        self._resolved_places: dict[str, str] = {}
        self._unresolved: tuple[list[tuple[str, str]], list[str]] | None = None
        self._linked: dict[str, bool] = {}
        self._missing_places: list[tuple[str, str]] | None = None

    @classmethod
    def here(cls, cwd: str) -> View:
        """This machine, as the hook process sees it."""
        import sys

        from jouet_git import paths

        cwd = os.path.abspath(cwd)
        package = [paths.package_dir(), paths.builtin_rules_dir(), paths.builtin_plugins_dir()]
        programs = []
        argv0 = sys.argv[0] if sys.argv else ""
        if os.path.basename(argv0).startswith("jouet") and os.path.isfile(argv0):
            programs.append(os.path.abspath(argv0))
        sibling = os.path.join(os.path.dirname(sys.executable), "jouet")
        if os.path.isfile(sibling):
            programs.append(sibling)
        home = os.environ.get("HOME") or os.path.expanduser("~")
        return cls(os.environ, home, cwd, _UNKNOWN, package, programs)

    def root(self) -> str | None:
        """The work tree around the call's directory (looked for once, when a write needs it)."""
        if self._root is _UNKNOWN:
            from jouet_git import gitdir

            self._root = gitdir.find_root(self.cwd)
        return self._root

    # -- paths --------------------------------------------------------------------------------------

    def resolve(self, path: str) -> str:
        """PATH as an absolute path (from the call's directory; `~` and $HOME at the home), with
        symbolic links resolved as far as they exist."""
        for prefix in ("~", "$HOME", "${HOME}"):
            if path == prefix:
                path = self.home
                break
            if path.startswith(prefix + "/"):
                path = self.home + path[len(prefix):]
                break
        full = os.path.normpath(os.path.join(self.cwd, path))
        return self.realpath(full)

    def _dir(self, own: str, xdg: str, fallback: str) -> str:
        """paths.py's rule for one of jouet's directories, with this view's environment."""
        value = self.environ.get(own)
        if value:
            return value
        base = self.environ.get(xdg)
        if base and os.path.isabs(base):
            return os.path.join(base, "jouet")
        return os.path.join(self.home, fallback, "jouet")

    def _places(self) -> tuple[list[tuple[str, str]], list[str]]:
        """jouet's own places as variables place them and by default, and what each is, with the rules
        directories a write is let into (exempt), neither resolved (worked out once per view)."""
        if self._unresolved is None:
            self._unresolved = self._place_list()
        return self._unresolved

    def _place_list(self) -> tuple[list[tuple[str, str]], list[str]]:
        places: list[tuple[str, str]] = []
        # Your rules directory is the rule-files rule's: an agent may write new rules and its own there.
        exempt = [os.path.join(self._dir("JOUET_CONFIG_DIR", "XDG_CONFIG_HOME", ".config"), "rules"),
                  os.path.join(self.home, ".config", "jouet", "rules")]
        for own, xdg, fallback, what in (
            ("JOUET_CONFIG_DIR", "XDG_CONFIG_HOME", ".config", "jouet's settings and your rules"),
            ("JOUET_STATE_DIR", "XDG_STATE_HOME", os.path.join(".local", "state"),
             "jouet's state (trust records, claims, ledger)"),
            ("JOUET_CACHE_DIR", "XDG_CACHE_HOME", ".cache", "jouet's caches (parsed rules, translated scripts)"),
            ("JOUET_DATA_DIR", "XDG_DATA_HOME", os.path.join(".local", "share"), "jouet's pinned plugins"),
        ):
            places.append((self._dir(own, xdg, fallback), what))
            places.append((os.path.join(self.home, fallback, "jouet"), what))
        from jouet_git.paths import FIXED_SYSTEM_DIR

        places.append((FIXED_SYSTEM_DIR, "jouet's enforced rules"))
        extra = self.environ.get("JOUET_SYSTEM_DIR")
        if extra:
            places.append((extra, "jouet's enforced rules"))
        places.extend((p, "jouet's installed package") for p in self.package)
        places.extend((p, "the jouet program the hooks run") for p in self.programs)
        return places, exempt

    def _resolved(self, place: str) -> str:
        """PLACE resolved, once per view (the places by default and by variable are often the same)."""
        found = self._resolved_places.get(place)
        if found is None:
            found = self._resolved_places[place] = self.resolve(place)
        return found

    def own(self) -> list[tuple[str, str]]:
        """jouet's own places (resolved) and what each is, as variables place them and by default."""
        if self._own is not None:
            return self._own
        places, exempt = self._places()
        self._own = [(self._resolved(p), what) for p, what in places]
        self._exempt = [self._resolved(p) for p in exempt]
        return self._own

    def _holding(self, full: str) -> tuple[list[tuple[str, str]], list[str]]:
        """own() and the exempt directories, but only those that may hold the resolved path FULL (or be
        it): what a write that neither removes nor changes a mode is checked against.

        A place whose last name is not a name of FULL is left out without resolving it, when it is
        written out in full (absolute, no `.` or `..`) and that last name is not a symbolic link: then
        resolving it keeps that name last (the directories above it resolve, the name stays), and a
        path inside it, or it, holds that name. Every other place is resolved, as own() does. On an
        invented machine (a rule's examples: its own realpath) everything is resolved."""
        names = set(full.split("/"))
        places, exempt = self._places()
        return ([(self._resolved(p), what) for p, what in places if self._may_hold(p, names)],
                [self._resolved(p) for p in exempt if self._may_hold(p, names)])

    def _may_hold(self, place: str, names: set[str]) -> bool:
        """Whether PLACE, resolved, may be or hold a path whose names are NAMES (see _holding)."""
        bare = place.rstrip("/")  # (with a slash after it, lstat would follow a link)
        name = bare.rpartition("/")[2]
        if self._whole_paths or name in names or not place.startswith("/") or os.path.normpath(place) != bare \
                or name in ("", ".", ".."):
            return True
        linked = self._linked.get(bare)  # (a call writing several paths asks of the same places)
        if linked is None:
            try:
                linked = stat.S_ISLNK(os.lstat(bare).st_mode)
            except FileNotFoundError:  # (nothing there: resolved, it ends with its name as written)
                linked = False
            except (OSError, ValueError):  # a loop, a name too long, a search refused: resolve it
                linked = True
            self._linked[bare] = linked
        return linked

    # -- the verdict ----------------------------------------------------------------------------------

    def guarded(self, path: str, how: str, removes: bool = False, key: str | None = None, text: str = "",
                edit: dict[str, Any] | None = None) -> Guarded | None:
        """Whether writing PATH the way HOW says would switch jouet off (see the module docstring).

        HOW is a shell write's kind (writes.Write.how) or EDIT for a file tool, whose input EDIT is;
        REMOVES: the path goes away with everything below it; KEY: the key a `git config` sets;
        TEXT: the whole command, for what a shell write puts in a file.
        """
        if how == "git config":
            if key is not None and _re(_GIT_KEYS).match(key):
                shown = "every setting (an editor)" if key == "*" else key
                return Guarded(GIT_CONFIG, path, f"git's {shown}, which decides whether git runs jouet's hooks")
            from jouet_git.shell.writes import GIT_CONFIG_FILES

            if path in GIT_CONFIG_FILES.values():
                return None
            # `git config -f FILE` writes any file, in git's format: as any other write of FILE (jouet's
            # settings, a harness's settings...), a git config file among them judged by the key above.
        full = self.resolve(path)
        into = how.endswith(TREE_INTO)
        if into:
            how = how[: -len(TREE_INTO)]
        whole = removes or how in _MODE_CHANGES or how in ("tar -x", "unzip") or how in _TREES
        below = self._below(full, how, removes, into) if whole else _NO
        if below is _YES:  # (a place below the path counts too: every place, resolved)
            places, exempts = self.own(), self._exempt
        elif below is _MISSING:  # (below a path not there yet lie only places not there either)
            places, exempts = self._holding(full)
            places = places + [pair for pair in self._missing() if pair not in places]
        else:
            places, exempts = self._holding(full)
        exempt = any(full == e or full.startswith(e + "/") for e in exempts)
        for place, what in places:
            if exempt and not place.startswith(full.rstrip("/") + "/"):
                continue
            if full == place or full.startswith(place.rstrip("/") + "/"):
                return Guarded(JOUET, full, what)
            if below is not _NO and place.startswith(full.rstrip("/") + "/"):
                return Guarded(JOUET, full, f"a directory holding {what} ({place})")
        # Another program named jouet in a directory on PATH would be run by the hooks (a project's
        # hook command is a bare `jouet`, found on PATH) in jouet's place.
        if os.path.basename(full) in ("jouet", "jouet.exe") and self._on_path(os.path.dirname(full)):
            return Guarded(JOUET, full, "a program named jouet on PATH, which the hooks would run instead of jouet")
        # jouet's directories where they lie by default in any home (another user's, a HOME changed
        # for one command): the same files, for whichever jouet reads them.
        # (Each of its matches holds "/jouet": a path without it is not compiled the pattern for.)
        layout = _re(_DEFAULT_LAYOUT).search(full) if "/jouet" in full else None
        if layout is not None and (layout.group(1) or layout.group(2) or "") != "/rules":
            return Guarded(JOUET, full, "one of jouet's own directories (settings, state, caches or plugins)")
        return (self._git_hooks(full, how, below is not _NO) or self._harness(full, how, text, edit)
                or self._git_config_file(full, how, text, edit))

    def _below(self, full: str, how: str, removes: bool, into: bool) -> object:
        """Whether a write of the resolved path FULL that may reach below it (a removal, a mode change,
        an archive unpacked, a tree copied: see guarded) can reach a place below it, as the disk
        stands: _YES, _NO, or _MISSING when FULL is not there yet (a copy may make it). Only what is
        below a directory is removed, has its mode changed, or is unpacked or copied into (a tree
        copied or unpacked over a path that is a file fails); and a destination receiving sources by
        name (INTO) is written below only when it is not a directory yet (it then becomes the copy).
        On an invented machine (a rule's examples) the disk says nothing: always _YES."""
        if self._whole_paths:
            return _YES
        try:
            mode = os.lstat(full).st_mode
        except FileNotFoundError:
            return _NO if removes or how in _MODE_CHANGES else _MISSING  # (nothing there to remove)
        except (OSError, ValueError):
            return _YES
        if removes or how in _MODE_CHANGES or not into:
            return _YES if stat.S_ISDIR(mode) else _NO
        return _NO if stat.S_ISDIR(mode) else _YES

    def _missing(self) -> list[tuple[str, str]]:
        """own()'s places that are not there (resolved), what each is: the only ones that can lie
        below a path not there either (a place that is there has every directory above it there)."""
        if self._missing_places is None:
            places, _ = self._places()
            self._missing_places = [(self._resolved(p), what) for p, what in places if not os.path.exists(p)]
        return self._missing_places

    def _on_path(self, directory: str) -> bool:
        """Whether DIRECTORY is one of PATH's (the hook's own PATH, as the agent's shell inherits it)."""
        return any(self.resolve(d) == directory for d in self.environ.get("PATH", "").split(os.pathsep) if d)

    # -- git hooks ------------------------------------------------------------------------------------

    def _is_jouet_hook(self, path: str) -> bool:
        data = self.read(path)
        return data is not None and _GIT_HOOK_MARKER in data[:512]

    def _git_hooks(self, full: str, how: str, whole: bool) -> Guarded | None:
        name = os.path.basename(full)
        directory = os.path.dirname(full)
        for hook in _GIT_HOOK_NAMES:
            if name == hook and self._is_jouet_hook(full):
                return Guarded(GIT_HOOKS, full, f"the git {hook} hook jouet installed")
            if name == hook + ".jouet-chained" and self._is_jouet_hook(os.path.join(directory, hook)):
                return Guarded(GIT_HOOKS, full, f"the hook jouet's git {hook} hook runs first")
        if whole:
            names = self.listdir(full)
            if names is not None and any(h in names and self._is_jouet_hook(os.path.join(full, h))
                                         for h in _GIT_HOOK_NAMES):
                return Guarded(GIT_HOOKS, full, "a directory holding the git hooks jouet installed")
            hooks = os.path.join(full, "hooks")
            names = self.listdir(hooks)
            if names is not None and any(h in names and self._is_jouet_hook(os.path.join(hooks, h))
                                         for h in _GIT_HOOK_NAMES):
                return Guarded(GIT_HOOKS, full, "a directory holding the git hooks jouet installed")
        return None

    # -- harness settings -----------------------------------------------------------------------------

    def _claude_dirs(self) -> list[str]:
        user = self.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(self.home, ".claude")
        return [self.resolve(user), "/etc/claude-code", "/Library/Application Support/ClaudeCode"]

    def _gemini_file_here(self, full: str, name: str, parent: str) -> bool:
        """Whether the resolved path FULL (named NAME, in PARENT) is a Gemini CLI settings file."""
        system = self.environ.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH")
        if system and full == self.resolve(system):
            return True
        if name not in _GEMINI_FILES:
            return False
        return os.path.basename(parent) == ".gemini" or parent in _GEMINI_SYSTEM_DIRS or \
            parent == self.resolve(os.path.join(self.home, ".gemini"))

    def _harness(self, full: str, how: str, text: str, edit: dict[str, Any] | None) -> Guarded | None:
        name = os.path.basename(full)
        parent = os.path.dirname(full)
        claude = name in _CLAUDE_FILES and (os.path.basename(parent) == ".claude" or parent in self._claude_dirs())
        gemini = not claude and self._gemini_file_here(full, name, parent)
        if not (claude or gemini or name in _TARGET_NAMES or os.path.basename(parent) in _TARGET_FOLDERS
                or name in _TARGET_FOLDERS):
            return None
        # A file that is not there holds none of jouet's hooks (nor does a folder that is not):
        # setup/'s tables are loaded only for one that is.
        there = self.listdir(full) is not None or self.read(full) is not None
        found = self._target_file(full, how, edit) if there else None
        if found is not None:
            return found
        if claude:
            return self._claude_file(full, how, text, edit)
        if gemini:
            return self._gemini_file(full, how, edit)
        return None

    def _target_file(self, full: str, how: str, edit: dict[str, Any] | None) -> Guarded | None:
        from jouet_git.setup.targets import PLUGINS, SCRIPTS, TARGETS

        for target in TARGETS.values():
            for scope, path in self._target_paths(target):
                if target.layout == SCRIPTS:
                    found = self._cline(target.title, scope, path, full, how, edit)
                    if found is not None:
                        return found
                    continue
                if target.layout == PLUGINS:
                    found = self._plugin(target, scope, path, full, how)
                    if found is not None:
                        return found
                    continue
                if full != path:
                    continue
                before = self._hook_entries(target, full, self.read(full))
                if not before:
                    continue
                what = f"{target.title}'s {scope} settings, holding the hooks jouet installed"
                if how != EDIT:
                    return Guarded(HOOKS, full, what)
                after_text = after_edit(self.read(full), edit or {})
                if after_text is None:
                    return Guarded(HOOKS, full, what)
                after = self._hook_entries(target, full, after_text.encode("utf-8", "surrogatepass"))
                if not before <= after:
                    return Guarded(HOOKS, full, what)
        return None

    def _target_paths(self, target: Any) -> list[tuple[str, str]]:
        base = self.environ.get(target.home_env) if target.home_env else None
        if not base:
            base = os.path.join(self.home, target.home_default)
        out = [("user", self.resolve(os.path.join(base, target.user_file)))]
        out.append(("project", self.resolve(os.path.join(self.root() or self.cwd, target.project_file))))
        return out

    @staticmethod
    def _hook_entries(target: Any, path: str, data: bytes | None) -> set[tuple[str, str]]:
        """jouet's (event, jouet event) entries in DATA, the text of TARGET's file."""
        from jouet_git.errors import JouetError
        from jouet_git.setup import apply as applying

        if data is None:
            return set()
        try:
            doc = applying.load(target, path, data)
        except JouetError:
            return set()
        return {(f.key, f.ours) for f in applying.find(target, doc)}

    def _cline(self, title: str, scope: str, directory: str, full: str, how: str,
               edit: dict[str, Any] | None) -> Guarded | None:
        from jouet_git.setup.cline import is_ours

        def ours(path: str) -> bool:
            data = self.read(path)
            return data is not None and is_ours(data.decode("utf-8", "replace"))

        what = f"{title}'s {scope} hook scripts, which jouet installed"
        if os.path.dirname(full) == directory and ours(full):
            if how == EDIT:
                after = after_edit(self.read(full), edit or {})
                if after is not None and is_ours(after):
                    return None
            return Guarded(HOOKS, full, what)
        if (full == directory or directory.startswith(full.rstrip("/") + "/")) and how in _OPAQUE + _MODE_CHANGES:
            names = self.listdir(directory) or []
            if any(ours(os.path.join(directory, n)) for n in names):
                return Guarded(HOOKS, full, what)
        return None

    def _plugin(self, target: Any, scope: str, directory: str, full: str, how: str) -> Guarded | None:
        """A host's in-process plugin (setup/plugins.py): the files jouet wrote, and the folders
        holding them, while they are there."""
        from jouet_git.setup import plugins

        ours = []
        for where, _ in plugins.FILES[target.name]:
            file = os.path.join(directory, where)
            data = self.read(file)
            if data is not None and plugins.is_ours(data.decode("utf-8", "replace"), target):
                ours.append(file)
        if not ours:
            return None
        what = f"{target.title}'s {scope} plugin, which jouet installed"
        if full in ours:
            return Guarded(HOOKS, full, what)
        whole = how in _OPAQUE or how in _MODE_CHANGES
        if whole and any(file.startswith(full.rstrip("/") + "/") for file in ours):
            return Guarded(HOOKS, full, what)
        return None

    def _claude_file(self, full: str, how: str, text: str, edit: dict[str, Any] | None) -> Guarded | None:
        what = "a Claude Code settings file, where `disableAllHooks` switches off every hook, jouet's included"
        if how != EDIT:
            return Guarded(CLAUDE, full, what)
        after = after_edit(self.read(full), edit or {})
        if after is None or _disables_hooks(after):
            return Guarded(CLAUDE, full, what)
        return None

    def _gemini_file(self, full: str, how: str, edit: dict[str, Any] | None) -> Guarded | None:
        what = ("a Gemini CLI settings file, where `hooksConfig`, `hooks` and `tools.enableHooks` switch hooks "
                "off or replace them (a project's settings override the user's), jouet's included")
        if how != EDIT:
            return Guarded(GEMINI, full, what)
        data = self.read(full)
        after = after_edit(data, edit or {})
        before = (data or b"").decode("utf-8", "surrogateescape")
        if after is None or _gemini_switches(before) != _gemini_switches(after):
            return Guarded(GEMINI, full, what)
        return None

    # -- git config files -----------------------------------------------------------------------------

    def _git_config_paths(self, full: str | None = None) -> list[str]:
        """git's global and system config files, resolved; with FULL (a resolved path), only those that
        may be it (see _holding: a file whose last name is not FULL's, and not a link, is not)."""
        xdg = self.environ.get("XDG_CONFIG_HOME") or os.path.join(self.home, ".config")
        named = [os.path.join(self.home, ".gitconfig"), os.path.join(xdg, "git", "config"), "/etc/gitconfig"]
        if self.environ.get("GIT_CONFIG_GLOBAL"):
            named.append(self.environ["GIT_CONFIG_GLOBAL"])
        if full is not None:
            names = {full.rpartition("/")[2]}
            named = [p for p in named if self._may_hold(p, names)]
        return [self.resolve(p) for p in named]

    def _git_config_file(self, full: str, how: str, text: str, edit: dict[str, Any] | None) -> Guarded | None:
        name = os.path.basename(full)
        parent = os.path.basename(os.path.dirname(full))
        is_config = (name == "config" and (parent == ".git" or self._is_git_dir(os.path.dirname(full)))) or \
            name == "config.worktree" or full in self._git_config_paths(full)
        if not is_config:
            return None
        what = "a git config file, where core.hooksPath and init.templateDir decide whether git runs jouet's hooks"
        if how == EDIT:
            before = self.read(full)
            after = after_edit(before, edit or {})
            if after is None:
                return Guarded(GIT_CONFIG, full, what)
            old = (before or b"").decode("utf-8", "surrogateescape")
            if _re(_GIT_CONFIG_LINES).findall(old) != _re(_GIT_CONFIG_LINES).findall(after):
                return Guarded(GIT_CONFIG, full, what)
            return None
        if how in _OPAQUE or how in _MODE_CHANGES or _re(_GIT_CONFIG_TEXT).search(text):
            return Guarded(GIT_CONFIG, full, what)
        return None

    def _is_git_dir(self, directory: str) -> bool:
        names = self.listdir(directory)
        return names is not None and "HEAD" in names and "objects" in names


def _disables_hooks(text: str) -> bool:
    import json

    try:
        doc = json.loads(text) if text.strip() else {}
    except ValueError:
        return "disableAllHooks" in text
    return isinstance(doc, dict) and bool(doc.get("disableAllHooks"))


def _gemini_switches(text: str) -> object:
    """What of a Gemini CLI settings text decides whether hooks run: its `hooks`, `hooksConfig` and
    `tools.enableHooks` (a text that is not JSON: every line naming a hook, as written)."""
    import json

    try:
        doc = json.loads(text) if text.strip() else {}
    except ValueError:
        return [line.strip() for line in text.splitlines() if "hook" in line.lower()]
    if not isinstance(doc, dict):
        return doc
    tools = doc.get("tools")
    return (json.dumps(doc.get("hooks"), sort_keys=True), json.dumps(doc.get("hooksConfig"), sort_keys=True),
            json.dumps(tools.get("enableHooks") if isinstance(tools, dict) else None))


# -- what a file tool's edit makes of a file -------------------------------------------------------------

_CONTENT_KEYS = ("content", "contents", "file_text", "text", "new_content")
_PAIRS = (("old_string", "new_string"), ("old_str", "new_str"), ("oldText", "newText"), ("old", "new"))


def after_edit(before: bytes | None, tool_input: dict[str, Any]) -> str | None:
    """The text a file holds after a file tool's edit (TOOL_INPUT as the harness gives it), or None
    when the edit cannot be worked out (an unknown shape, a patch, a string that is not there)."""
    text = (before or b"").decode("utf-8", "surrogateescape")
    for key in _CONTENT_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str):
            return value
    edits = tool_input.get("edits")
    if isinstance(edits, list):
        for item in edits:
            if not isinstance(item, dict):
                return None
            text_after = _replace(text, item)
            if text_after is None:
                return None
            text = text_after
        return text
    return _replace(text, tool_input)


def _replace(text: str, item: dict[str, Any]) -> str | None:
    for old_key, new_key in _PAIRS:
        old = item.get(old_key)
        new = item.get(new_key)
        if isinstance(old, str) and isinstance(new, str):
            if old == "":
                return new + text if not text else None
            if old not in text:
                return text  # the edit fails: the file stays as it is
            if item.get("replace_all") is True or item.get("expected_replacements", 1) != 1:
                return text.replace(old, new)
            return text.replace(old, new, 1)
    return None


# -- the paths a file tool writes -------------------------------------------------------------------------

_PATCH_PATHS = r"(?m)^\*\*\* (?:Add|Update|Delete) File: (.+)$|^\*\*\* Move to: (.+)$"
_PATH_KEYS = ("file_path", "path", "notebook_path", "target_file", "filePath", "absolute_path")


def edit_paths(path: str | None, tool_input: dict[str, Any]) -> list[str]:
    """Every file a file tool's call writes: its path, and the files a patch in its input names."""
    out: list[str] = [path] if path else []
    for key in _PATH_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and value and value not in out:
            out.append(value)
    for value in tool_input.values():
        if isinstance(value, str) and "*** " in value:
            for match in _re(_PATCH_PATHS).finditer(value):
                found = (match.group(1) or match.group(2)).strip()
                if found and found not in out:
                    out.append(found)
    return out


def call_guarded(call: Any, view: View | None = None) -> list[Guarded]:
    """Every guarded place CALL writes (for `requires = { guarded = true }` and `jouet check`)."""
    from jouet_git.call import KIND_EDIT, KIND_SHELL

    found: list[Guarded] = []
    # The view (the machine as this process sees it) is made only for a call that writes something:
    # most calls write nothing, and finding the repository and jouet's programs costs more than reading.
    if call.kind == KIND_EDIT:
        edit = call.input if isinstance(call.input, dict) else {}
        patch = any(isinstance(v, str) and "*** " in v for v in edit.values())
        for path in edit_paths(call.path, edit):
            view = view or View.here(call.cwd)
            hit = view.guarded(path, EDIT, edit=None if patch else edit)
            if hit is not None:
                found.append(hit)
    elif call.kind == KIND_SHELL and call.command:
        for write in _writes(call.commands):
            if write.lost and not write.path.startswith(("/", "~", "$HOME")):
                continue
            view = view or View.here(call.cwd)
            hit = view.guarded(write.path, write.how, write.removes, write.key, call.command)
            if hit is not None:
                found.append(hit)
    return found


def _writes(commands: list[Any]) -> list[Any]:
    """shell.writes.writes(COMMANDS), kept with the first command for the same commands read again: a
    stream's memo of commands read (shell.ParseMemo) hands the same Command objects back for the same
    text, and what they write is a function of them alone."""
    from jouet_git.shell.writes import writes

    if not commands:
        return []
    first = commands[0]
    memo = first.memo
    if memo is None:
        memo = first.memo = {}
    kept = memo.get("writes")
    if kept is not None and len(kept[0]) == len(commands) and all(
            a is b for a, b in zip(kept[0], commands, strict=True)):
        found: list[Any] = kept[1]
        return found
    found = writes(commands)
    memo["writes"] = (tuple(commands), found)
    return found


# -- jouet.guarded(): the probe behind a rule's question --------------------------------------------------


def probe(view: View, call: Any, path: Any, how: Any, removes: Any = None,
          key: Any = None) -> tuple[dict[str, str] | None, str | None]:
    """jouet.guarded(path, how, removes, key) about CALL: the place as a table, or nil.

    HOW is a shell write's `how` from jouet.writes, or "edit" for the file tool making CALL (then
    every file it writes is asked about, PATH first, and the tool's input says what each becomes).
    """
    from jouet_git.call import KIND_EDIT

    if not isinstance(how, str) or not how:
        raise TypeError('jouet.guarded: the second argument says how the path is written: a `how` from '
                         'jouet.writes, or "edit" for a file tool')
    if path is not None and not isinstance(path, str):
        raise TypeError("jouet.guarded: the path must be a string")
    if key is not None and not isinstance(key, str):
        raise TypeError("jouet.guarded: the key must be a string (what jouet.writes gives for git config)")
    if how == EDIT:
        if call is None or call.kind != KIND_EDIT:
            return None, None
        edit = call.input if isinstance(call.input, dict) else {}
        patch = any(isinstance(v, str) and "*** " in v for v in edit.values())
        for each in edit_paths(path or call.path, edit):
            hit = view.guarded(each, EDIT, edit=None if patch else edit)
            if hit is not None:
                return hit.to_json(), None
        return None, None
    if not path:
        return None, None
    text = call.command if call is not None and isinstance(call.command, str) else ""
    hit = view.guarded(path, how, removes is True, key, text)
    return (hit.to_json() if hit is not None else None), None


EXAMPLE_HOME = "/home/me"
EXAMPLE_PACKAGE = "/usr/lib/python3/site-packages/jouet_git"
EXAMPLE_PROGRAM = "/usr/bin/jouet"


def example_view(files: Any, cwd: str) -> View:
    """The invented machine a rule's examples run on: home /home/me, no JOUET_* or XDG_* variables,
    jouet installed in /usr/lib/python3/site-packages/jouet_git with /usr/bin/jouet, the example's
    directory a work tree, and only the files the example's `files` gives."""
    view = View({}, EXAMPLE_HOME, cwd, cwd, [EXAMPLE_PACKAGE], [EXAMPLE_PROGRAM], realpath=os.path.normpath)
    texts: dict[str, bytes] = {}
    if isinstance(files, dict):
        for name, content in files.items():
            if isinstance(name, str) and isinstance(content, str):
                texts[view.resolve(name)] = content.encode("utf-8")
    children: dict[str, set[str]] = {}
    for name in texts:
        child = name
        while child != "/":
            parent = os.path.dirname(child)
            children.setdefault(parent, set()).add(os.path.basename(child))
            child = parent
    view.read = texts.get
    view.listdir = lambda d: sorted(children[d]) if d in children else None
    return view
