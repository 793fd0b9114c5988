"""The rules that apply in a directory: jouet's own from the package, the others from a cache.

A rule set is two segments. The built-in rules come pre-built with the package (engine/prebuilt.py),
never from a cache another process can write. Every other rule (enforced, yours, plugins, the
repository's) is built once (engine/build.py: TOML parsing, validation, examples of rules from
outside) and cached in `$JOUET_CACHE_DIR/rulesets/` with every file and directory the build read
and their stat signatures (size, mtime, ctime, inode, mode). The next call re-stats those and reuses
the cache when all agree: ctime changes on every write and cannot be set by a user, so an edit is
never missed. A file changed within two seconds of the build (an edit in the same timestamp tick
could leave its signature alone) is also checked by the hash of the content that was parsed. When the
only paths that changed are files of your own rules, those files are parsed again and patched into the
cached set (engine/patch.py) rather than the whole set built again.

Nothing in that cache can take a built-in rule away: built-in rules are not in it, the rules it
turns off are checked against config.toml's text, and a cached rule claiming to be built in is
refused (only built-in rules may rewrite a command).

A segment keeps each rule as marshalled bytes plus an index by program name, so a call decodes only
the rules that could match it: `git status` never decodes a rule about `cargo`, however many of them
there are. Within a segment, rules run source by source; within a source, rules that only match
(shape rules) before script rules (order_of).
"""

from __future__ import annotations

import marshal
import os
import time

from jouet_git import __version__, gitdir, paths
from jouet_git.engine.model import BROKEN, BUILTIN, DISABLED, ENABLED, ENFORCED, Rule
from jouet_git.engine.wildcard import has_wildcard

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_FORMAT = 5
# marshal's format 4 is read by every Python jouet supports.
MARSHAL_VERSION = 4
# A file changed this recently might change again within the same timestamp tick: its content hash
# is kept and checked too.
RACY_NS = 2_000_000_000
# More changed paths than this: build the rules again rather than patch (engine/patch.py).
PATCH_LIMIT = 16


def _hash(data: bytes) -> str:
    try:
        from _blake2 import blake2b
    except ImportError:  # a Python built without it
        from hashlib import blake2b
    return blake2b(data, digest_size=16).hexdigest()


class Damaged(Exception):
    """A cache entry that does not hold what jouet wrote."""


class Segment:
    """Rules stored compactly (see the module docstring); rule(i) decodes one.

    A segment read from the cache is sealed (seal()): its index is one string, and the rules' bytes,
    states, names and run order stay one marshalled body, decoded the first time a rule of the segment
    is needed. A call whose programs no rule of the segment names never decodes it."""

    __slots__ = ("_body", "_n", "_rules", "always", "base", "blobs", "broken", "extras", "index", "names", "order",
                 "states", "trusted")

    def __init__(self, data: dict[str, Any], trusted: bool) -> None:
        # TRUSTED: the segment came from the package, and its rules may claim to be built in.
        self.trusted = trusted
        self.base: str | None = data["base"]
        self.index: dict[str, list[int]] | str = data["index"]
        self.always: list[int] = data["always"]
        self.broken: list[int] = data["broken"]
        body = data.get("body")
        if body is not None:
            n = data["count"]
            if not (isinstance(body, bytes) and isinstance(self.index, str) and isinstance(n, int)
                    and isinstance(self.always, list) and isinstance(self.broken, list)):
                raise Damaged("the sealed segment does not hold what jouet writes")
            self._body: bytes | None = body
            self._n: int = n
            self._rules: list[Rule | None] = [None] * n
            return
        self._body = None
        self._fields(data)

    def _fields(self, data: dict[str, Any]) -> None:
        self.blobs: list[bytes] = data["blobs"]
        self.extras: list[bytes] = data["extras"]
        self.states: list[tuple[Any, ...]] = data["states"]
        self.order: list[int] = data["order"]
        self.names: list[str] = data["names"]
        n = len(self.blobs)
        if not (isinstance(self.blobs, list) and isinstance(self.index, dict | str) and len(self.extras) == n
                and len(self.states) == n and len(self.order) == n and len(self.names) == n):
            raise Damaged("the segment's lists do not agree")
        self._n = n
        self._rules = [None] * n

    def opened(self) -> Segment:
        """This segment with its body decoded (every field readable); a damaged body becomes rules that
        say so (see rule())."""
        body = self._body
        if body is not None:
            self._body = None
            n = self._n
            try:
                blobs, extras, states, names, order = marshal.loads(body)
                self._fields({"blobs": blobs, "extras": extras, "states": states, "names": names, "order": order})
                if self._n != n:
                    raise Damaged("the body does not hold as many rules as the segment")
            except Exception:  # every rule of it decodes as broken, in load order
                self._fields({"blobs": [b""] * n, "extras": [b""] * n, "states": [()] * n,
                              "names": [f"#{i}" for i in range(n)], "order": list(range(n))})
        return self

    @classmethod
    def of_rules(cls, rules: list[Rule]) -> Segment:
        """A segment holding already decoded RULES (a fresh build)."""
        seg = cls(pack(rules, None), trusted=True)
        seg._rules = list(rules)
        return seg

    def __len__(self) -> int:
        return self._n

    def rule(self, i: int, full: bool) -> Rule:
        if self._body is not None:
            self.opened()
        rule = self._rules[i]
        if rule is not None and full and "examples" not in rule.data and self.extras[i]:
            try:  # noqa: SIM105 - contextlib stays off the hook path
                rule.data["examples"] = rule.examples = marshal.loads(self.extras[i])
            except Exception:  # damaged: the rule runs, its examples are not shown
                pass
        if rule is None:
            try:
                rule = self._decode(i, full)
            except Exception as error:  # a damaged cache guards nothing, and says so
                name = self.names[i] if isinstance(self.names[i], str) else f"#{i}"
                rule = Rule.broken(name, f"jouet's rule-set cache holds a damaged rule ({type(error).__name__}: "
                                   f"{error}); it is rebuilt when a rule file changes, or delete "
                                   f"{os.path.join(paths.cache_dir(), 'rulesets')}", "cache", "cache", "?", 0)
            self._rules[i] = rule
        return rule

    def _decode(self, i: int, full: bool) -> Rule:
        data, source, label, file, line = marshal.loads(self.blobs[i])
        if not isinstance(data, dict) or not isinstance(file, str) or not isinstance(line, int):
            raise Damaged("not a rule")
        if source == BUILTIN and not self.trusted:
            raise Damaged("a cached rule claims to be built in")
        state, detail, error, only_warns, settings, default_settings = self.states[i]
        if self.base is not None:
            file = os.path.join(self.base, file)
            script = data.get("script_path")
            if isinstance(script, str):
                data["script_path"] = os.path.join(self.base, script)
        if settings is not None:
            data["settings"] = settings
        if default_settings is not None:
            data["default_settings"] = default_settings
        if full and self.extras[i]:
            data["examples"] = marshal.loads(self.extras[i])
        rule = Rule(data, source, label, file, line)
        rule.state = state
        rule.state_detail = detail
        rule.error = error
        rule.only_warns = only_warns
        return rule

    def chosen(self, programs: set[str]) -> list[int]:
        """The rules that could match a call running PROGRAMS, in the order they run."""
        picked = set(self.always)
        index = self.index
        if isinstance(index, str):
            try:
                for program in programs:
                    found = _lookup(index, program)
                    if found:
                        picked.update(found)
            except ValueError:  # a damaged index: every rule of the segment could match
                picked.update(range(self._n))
        else:
            for program in programs:
                listed = index.get(program)
                if listed:
                    picked.update(listed)
        if not picked:
            return []
        order = self.opened().order
        if not picked.issubset(range(len(order))):  # a damaged index names rules the segment lacks
            picked = set(range(len(order)))
        return sorted(picked, key=order.__getitem__)


def _lookup(index: str, program: str) -> list[int]:
    """The rules a sealed INDEX (seal()) lists under PROGRAM. No entry's name holds a tab or a line
    break (a program is a rule's first word), so a PROGRAM holding one is in no entry."""
    if "\t" in program or "\n" in program:
        return []
    at = index.find(f"\n{program}\t")
    if at < 0:
        return []
    start = at + len(program) + 2
    return [int(i) for i in index[start:index.index("\n", start)].split(",")]


def order_of(keys: list[tuple[str, str, bool]]) -> list[int]:
    """The order rules run in (engine/decide.py: run_order), from each rule's source, source label and
    whether it has a script: source by source, and within a source shape rules before script rules."""
    keyed: list[tuple[int, bool, int]] = []
    group = 0
    previous: tuple[str, str] | None = None
    for i, (source, label, script) in enumerate(keys):
        if previous is not None and (source, label) != previous:
            group += 1
        previous = (source, label)
        keyed.append((group, script, i))
    keyed.sort()
    return [i for _, _, i in keyed]


def positions(keys: list[tuple[str, str, bool]]) -> list[int]:
    """Each rule's place in the order rules run in (see order_of)."""
    position = [0] * len(keys)
    for at, i in enumerate(order_of(keys)):
        position[i] = at
    return position


def pack(rules: list[Rule], base: str | None) -> dict[str, Any]:
    """RULES as segment data; with BASE, file and script paths are kept relative to it."""
    blobs: list[bytes] = []
    extras: list[bytes] = []
    states: list[tuple[Any, ...]] = []
    index: dict[str, list[int]] = {}
    always: list[int] = []
    broken: list[int] = []
    for i, rule in enumerate(rules):
        data = {k: v for k, v in rule.data.items() if k not in ("examples", "settings", "default_settings")}
        file = rule.file
        if base is not None:
            file = os.path.relpath(file, base)
            if isinstance(data.get("script_path"), str):
                data["script_path"] = os.path.relpath(data["script_path"], base)
        blobs.append(marshal.dumps((data, rule.source, rule.source_label, file, rule.line), MARSHAL_VERSION))
        examples = rule.data.get("examples")
        extras.append(marshal.dumps(examples, MARSHAL_VERSION) if examples else b"")
        states.append((rule.state, rule.state_detail, rule.error, rule.only_warns, rule.data.get("settings"),
                       rule.data.get("default_settings")))
        if rule.state == BROKEN:
            broken.append(i)
        if rule.state not in (ENABLED, DISABLED):
            continue  # never runs: no call needs to look at it
        programs = _programs(rule.data)
        if programs is None:
            always.append(i)
        else:
            for program in programs:
                index.setdefault(program, []).append(i)
    position = positions([(r.source, r.source_label, r.script is not None) for r in rules])
    return {"base": base, "blobs": blobs, "extras": extras, "states": states, "index": index, "always": always,
            "order": position, "names": [r.name for r in rules], "broken": broken}


def _programs(data: dict[str, Any]) -> set[str] | None:
    """The program names a rule's matchers look for; None when a call of any program may match
    (a wildcard program, or a matcher about the tool or path only)."""
    names: set[str] = set()
    for m in data.get("match") or ():
        command = m.get("command") if isinstance(m, dict) else None
        if command is None:
            return None
        for pattern in [command] if isinstance(command, str) else command:
            words = pattern.split()
            program = words[0] if words else ""
            if has_wildcard(program):
                return None
            names.add(program)
    return names


class RuleSet:
    """Every rule jouet loads for one directory, with the settings that apply to them."""

    __slots__ = ("_all", "disabled", "failures", "full", "network", "problems", "root", "segments", "sources")

    def __init__(self, rules: list[Rule], disabled: list[str], network: bool, problems: list[str],
                 sources: list[dict[str, Any]], root: str | None, segments: list[Segment] | None = None,
                 full: bool = True, failures: list[str] | None = None) -> None:
        self.segments = segments if segments is not None else [Segment.of_rules(rules)]
        self.disabled = disabled
        self.network = network
        self.problems = problems
        self.sources = sources
        self.root = root
        # Sources that could not be read at all (engine/sources.py `failed`): every hook says them.
        self.failures = failures or []
        # Whether decoded rules carry their examples (commands that show or test rules; not hooks).
        self.full = full
        self._all: list[Rule] | None = None

    def _rule(self, seg: Segment, i: int) -> Rule:
        rule = seg.rule(i, self.full)
        if rule.state == ENABLED and rule.source != ENFORCED and (rule.name in self.disabled
                                                                   or "all" in self.disabled):
            rule.state = DISABLED
            rule.state_detail = "config.toml"
        return rule

    @property
    def rules(self) -> list[Rule]:
        """Every rule, in load order (built in first)."""
        if self._all is None:
            self._all = [self._rule(seg, i) for seg in self.segments for i in range(len(seg))]
        return self._all

    def candidates(self, programs: set[str]) -> list[Rule]:
        """The rules, in the order they run, that could match a call running PROGRAMS: those with a
        matcher for one of them, a wildcard program, or no command at all (a tool or path matcher)."""
        return [self._rule(seg, i) for seg in self.segments for i in seg.chosen(programs)]

    def broken(self) -> list[Rule]:
        """The rules that do not load (each with its error)."""
        return [self._rule(seg, i) for seg in self.segments for i in seg.broken]

    def has_notices(self) -> bool:
        """Whether engine/problems.py has anything to say: a broken rule, a problem, a repository's
        notice."""
        return bool(self.problems or self.failures) or any(seg.broken for seg in self.segments) or any(
            s.get("notice") for s in self.sources if s.get("kind") == "repo")

    def disabled_now(self) -> frozenset[str]:
        """Rules turned off by config.toml and JOUET_RULES_DISABLE (never enforced ones)."""
        names = set(self.disabled)
        env = os.environ.get("JOUET_RULES_DISABLE", "")
        names.update(n.strip() for n in env.split(",") if n.strip())
        return frozenset(names)

    def get(self, name: str) -> Rule | None:
        for seg in self.segments:
            for i, known in enumerate(seg.opened().names):
                if known == name:
                    return self._rule(seg, i)
        return None


# --- the cache of the rules from outside the package ---------------------------------------------------


def signature(path: str | bytes) -> tuple[int, ...] | None:
    """PATH's size, mtime, ctime, inode and mode (_FIELDS); None when it is not there."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_mode)


def content_hash(path: str) -> str | None:
    """The hash of a file's bytes, or of a directory's sorted listing; None when it cannot be read."""
    try:
        if os.path.isdir(path):
            return _hash("\0".join(sorted(os.listdir(path))).encode("utf-8", "surrogateescape"))
        from jouet_git.store import read_regular

        return _hash(read_regular(path, 64 << 20))  # never blocks on a FIFO
    except OSError:
        return None


def is_racy(sig: tuple[int, ...] | None, started_ns: int) -> bool:
    """Whether a file with SIG may have changed within the timestamp tick of a build that started at
    STARTED_NS (or after it): its signature alone does not prove it unchanged since."""
    return sig is not None and max(sig[1], sig[2]) >= started_ns - RACY_NS


def cache_key(root: str | None) -> str:
    return "|".join((
        f"v{_FORMAT}", __version__, paths.builtin_rules_dir(), *paths.system_dirs(), paths.config_dir(),
        paths.data_dir(), paths.state_dir(), root or "-",
    ))


def cache_dir() -> str | None:
    return paths.private_dir(os.path.join(paths.cache_dir(), "rulesets"))


def _cache_file(key: str) -> str | None:
    directory = cache_dir()
    if directory is None:
        return None
    return os.path.join(directory, f"set-{_hash(key.encode())}.marshal")


def read_cache(key: str) -> dict[str, Any] | None:
    """The cached rules from outside the package for KEY, when every file they came from is unchanged."""
    file = _cache_file(key)
    if file is None:
        return None
    try:
        with open(file, "rb") as f:
            # marshal.load(f) reads a file piecemeal, ten times slower than loads on its bytes.
            raw = f.read()
    except OSError:  # none yet
        return None
    try:
        data = marshal.loads(raw)
        if not isinstance(data, dict) or data.get("key") != key:
            return None
        checked_at = time.time_ns()
        changed = _changed(data)
        if changed is None:
            return None
        rewrite = bool(changed)
        if data["digests"] and not changed:
            # A file that proved unchanged by its content while its signature is no longer recent needs
            # no hash from now on: any write from here on gives it a later ctime.
            sigs = dict(zip(map(os.fsdecode, data["paths"]), _sig_list(data["sigs"]), strict=True))
            settled = [path for path in data["digests"] if not is_racy(sigs.get(path), checked_at)]
            for path in settled:
                del data["digests"][path]
            rewrite = bool(settled)
        if not _settings_hold(data["disabled"], data["network"]):
            return None
        if changed:
            # Only files of your rules changed: patch them in (engine/patch.py), else build it all again.
            from jouet_git.engine.patch import patch

            if not patch(data, changed):
                return None
        if rewrite:
            _write(file, data)
        data["segment"] = Segment(data["segment"], trusted=False)
    except Exception as error:  # a corrupt cache is rebuilt, never trusted and never fatal
        from jouet_git.store import report

        report(f"the rule-set cache {file} could not be used ({type(error).__name__}: {error}); "
               "jouet rebuilt the rules from their files", file)
        return None
    return data


# What a path's signature is made of (signature()), read from os.stat's result.
_FIELDS = ("st_size", "st_mtime_ns", "st_ctime_ns", "st_ino", "st_mode")
# The marshal version the signatures are compared in: version 2 keeps no references, so equal lists of
# signatures always marshal to equal bytes.
SIGS_VERSION = 2


def pack_sigs(sigs: list[Any]) -> bytes:
    """SIGS (one signature() a path) as the cache keeps them: bytes that _changed compares whole."""
    return marshal.dumps(sigs, SIGS_VERSION)


def _sig_list(packed: Any) -> list[Any]:
    sigs = marshal.loads(packed)
    if not isinstance(sigs, list):
        raise Damaged("the signatures are not a list")
    return sigs


_kept: Any = None


def _changed(data: dict[str, Any]) -> list[str] | None:
    """The paths whose signature (or, where one is kept, content hash) is not the one cached in DATA,
    and those that were missing and are not now; None when more than PATCH_LIMIT did change.

    The paths that were there are stat'ed in one pass that runs no Python per path, and their
    signatures are compared exactly but in one piece: marshalled as the cache keeps them (pack_sigs),
    the bytes of now and of then are equal exactly when every size, mtime, ctime, inode and mode is."""
    from operator import attrgetter

    paths_: list[bytes] = data["paths"]
    packed = data["sigs"]
    digests: dict[str, str] = data["digests"]
    changed = [path for path in data["missing"] if signature(path) is not None]
    global _kept
    now: list[Any]
    try:
        stats = list(map(os.stat, paths_))
        now = list(map(attrgetter(*_FIELDS), stats))
        # Freeing a thousand stat results costs a hook more than it saves: they are dropped at the
        # next pass (a process that checks again) or never (a hook ends without the interpreter's
        # teardown).
        _kept = (stats, now)
    except OSError:  # one is gone: stat them one by one
        now = [signature(path) for path in paths_]
    if not isinstance(packed, bytes) or pack_sigs(now) != packed:
        sigs = _sig_list(packed)
        if len(paths_) != len(sigs):
            raise Damaged("the dependency lists do not agree")
        changed += [os.fsdecode(path) for path, here, sig in zip(paths_, now, sigs, strict=True) if here != sig]
    for path, digest in digests.items():
        if path not in changed and content_hash(path) != digest:
            changed.append(path)
    return changed if len(changed) <= PATCH_LIMIT else None


def _settings_hold(disabled: Any, network: Any) -> bool:
    """Whether config.toml's text could say what the cache says it does: every rule the cache turns
    off is named in a `disable = [...]` list there, and `network = true` is written there when the
    cache says so. A cache can then never turn off a rule that config.toml does not name."""
    if not isinstance(disabled, list) or not isinstance(network, bool):
        return False
    if not disabled and not network:
        return True
    try:
        with open(paths.config_file(), encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError):
        return False
    import re

    if network and not re.search(r"(?m)^\s*(?:rules\.)?network\s*=\s*true\b", text):
        return False
    named: set[str] = set()
    for listed in re.findall(r"disable\s*=\s*\[([^\]]*)\]", text):
        named.update(a or b for a, b in re.findall(r"\"([^\"]*)\"|'([^']*)'", listed))
    return all(isinstance(name, str) and name in named for name in disabled)


def write_cache(key: str, built: dict[str, Any]) -> None:
    """Cache BUILT (engine/build.py: build_outside) for KEY, unless a file it came from changed while
    it was built."""
    file = _cache_file(key)
    if file is None:
        return
    deps = built["deps"]
    if deps is None:
        return
    # The dependencies as read_cache checks them: the paths that were there with their signatures (all
    # stat'ed in one pass; kept as bytes, which os.stat takes without encoding them on every call), those
    # that were not, and the content hashes kept for racy ones.
    _write(file, {"key": key, "paths": [os.fsencode(path) for path, sig, _ in deps if sig is not None],
                  "sigs": pack_sigs([sig for _, sig, _ in deps if sig is not None]),
                  "missing": [path for path, sig, _ in deps if sig is None],
                  "digests": {path: digest for path, _, digest in deps if digest is not None},
                  "disabled": built["disabled"], "network": built["network"], "problems": built["problems"],
                  "sources": built["sources"], "segment": _sealed(built["segment"]), "patch": built["patch"]})


def _sealed(segment: dict[str, Any]) -> dict[str, Any]:
    from jouet_git.engine.sealed import seal

    return seal(segment)


def _write(file: str, data: dict[str, Any]) -> None:
    from jouet_git.store import write_atomic


    try:  # noqa: SIM105 - contextlib stays off the hook path
        write_atomic(file, marshal.dumps(data, MARSHAL_VERSION), sync=False)
    except (OSError, ValueError):  # a full disk or a read-only cache: build again next time
        pass


def load(cwd: str, use_cache: bool = True) -> RuleSet:
    """The rule set for a call in CWD, every rule with its examples (for commands that show them)."""
    return load_root(gitdir.find_root(cwd), use_cache, full=True)


def load_root(root: str | None, use_cache: bool = True, full: bool = False) -> RuleSet:
    """The rule set for the work tree at ROOT (None: outside any work tree). FULL decodes each rule's
    examples too (hooks never need them)."""
    from jouet_git.engine import prebuilt

    builtin = prebuilt.segment()
    key = cache_key(root)
    built = read_cache(key) if use_cache else None
    if built is None:
        from jouet_git.engine.build import build_outside

        started = time.time_ns()
        built = build_outside(root, started)
        if use_cache:
            write_cache(key, built)
        built["segment"] = Segment(built["segment"], trusted=False)
    return RuleSet([], built["disabled"], built["network"], built["problems"], built["sources"], root,
                   [builtin, built["segment"]], full, built.get("failures") or [])
