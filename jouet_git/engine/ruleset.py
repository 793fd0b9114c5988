"""The rules that apply in a directory, loaded from the on-disk cache when nothing changed.

A rule set is built once (engine/build.py: TOML parsing, validation, examples of rules from
outside) and cached in `$JOUET_CACHE_DIR/rulesets/` with the list of every file and directory the
build read and their stat signatures (size, mtime, ctime, inode). The next call re-stats those and
reuses the cache when all agree: ctime changes on every write and cannot be set by a user, so an
edit is never missed. The cache directory must be private (0700, ours): it decides what runs.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import time
import zlib

from jouet_git import __version__, gitdir, paths
from jouet_git.engine.model import Rule
from jouet_git.engine.wildcard import has_wildcard
from jouet_git.store import write_atomic

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_FORMAT = 1
# A file changed this recently might change again within the same timestamp tick: do not cache.
_RACY_SECONDS = 2.0


class RuleSet:
    """Every rule jouet loads for one directory, with the settings that apply to them."""

    __slots__ = ("_by_program", "disabled", "network", "problems", "root", "rules", "sources")

    def __init__(self, rules: list[Rule], disabled: list[str], network: bool, problems: list[str],
                 sources: list[dict[str, Any]], root: str | None) -> None:
        self.rules = rules
        self.disabled = disabled
        self.network = network
        self.problems = problems
        self.sources = sources
        self.root = root
        self._by_program: tuple[dict[str, list[int]], list[int]] | None = None

    def candidates(self, programs: set[str]) -> list[Rule]:
        """The rules, in order, that could match a call running PROGRAMS: those with a matcher for one
        of them, a wildcard program, or no command at all (a tool or path matcher)."""
        if self._by_program is None:
            by_program: dict[str, list[int]] = {}
            always: list[int] = []
            for index, rule in enumerate(self.rules):
                names: set[str] = set()
                for m in rule.matchers:
                    if m.programs is None or any(has_wildcard(p) for p in m.programs):
                        always.append(index)
                        break
                    names.update(m.programs)
                else:
                    for name in names:
                        by_program.setdefault(name, []).append(index)
            self._by_program = (by_program, always)
        by_program, always = self._by_program
        chosen = set(always)
        for program in programs:
            chosen.update(by_program.get(program, ()))
        return [self.rules[i] for i in sorted(chosen)]

    def disabled_now(self) -> frozenset[str]:
        """Rules turned off by config.toml and JOUET_RULES_DISABLE (never enforced ones)."""
        names = set(self.disabled)
        env = os.environ.get("JOUET_RULES_DISABLE", "")
        names.update(n.strip() for n in env.split(",") if n.strip())
        return frozenset(names)

    def get(self, name: str) -> Rule | None:
        for rule in self.rules:
            if rule.name == name:
                return rule
        return None

    def to_data(self) -> dict[str, Any]:
        return {"rules": [r.to_data() for r in self.rules], "disabled": self.disabled,
                "network": self.network, "problems": self.problems, "sources": self.sources,
                "root": self.root}

    @classmethod
    def from_data(cls, d: dict[str, Any]) -> RuleSet:
        return cls([Rule.from_data(r) for r in d["rules"]], d["disabled"], d["network"], d["problems"],
                   d["sources"], d["root"])


def signature(path: str) -> tuple[int, ...] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_mode)


def cache_key(root: str | None) -> str:
    return "|".join((
        f"v{_FORMAT}", __version__, paths.builtin_rules_dir(), paths.system_dir(), paths.config_dir(),
        paths.data_dir(), paths.state_dir(), root or "-",
    ))


def _cache_file(key: str) -> str | None:
    directory = paths.private_dir(os.path.join(paths.cache_dir(), "rulesets"))
    if directory is None:
        return None
    return os.path.join(directory, f"{zlib.crc32(key.encode()):08x}.marshal")


def read_cache(key: str) -> RuleSet | None:
    file = _cache_file(key)
    if file is None:
        return None
    try:
        with open(file, "rb") as f:
            # marshal.load(f) reads a file piecemeal, ten times slower than loads on its bytes.
            data = marshal.loads(f.read())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if not isinstance(data, dict) or data.get("key") != key:
        return None
    for path, sig in data["deps"]:
        if signature(path) != sig:
            return None
    return RuleSet.from_data(data["ruleset"])


def write_cache(key: str, ruleset: RuleSet, deps: list[str], started: float) -> None:
    file = _cache_file(key)
    if file is None:
        return
    sigs = []
    racy_after = (started - _RACY_SECONDS) * 1e9
    for path in sorted(set(deps)):
        sig = signature(path)
        if sig is not None and max(sig[1], sig[2]) >= racy_after:
            return
        sigs.append((path, sig))
    data = {"key": key, "deps": sigs, "ruleset": ruleset.to_data()}
    with contextlib.suppress(OSError, ValueError):
        write_atomic(file, marshal.dumps(data), sync=False)


def load(cwd: str, use_cache: bool = True) -> RuleSet:
    """The rule set for a call in CWD."""
    return load_root(gitdir.find_root(cwd), use_cache)


def load_root(root: str | None, use_cache: bool = True) -> RuleSet:
    """The rule set for the work tree at ROOT (None: outside any work tree)."""
    key = cache_key(root)
    if use_cache:
        cached = read_cache(key)
        if cached is not None:
            return cached
    from jouet_git.engine.build import build

    started = time.time()
    ruleset, deps = build(root)
    if use_cache:
        write_cache(key, ruleset, deps, started)
    return ruleset
