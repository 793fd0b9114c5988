"""Build the rules from outside the package from their sources: the cold path behind
engine/ruleset.py's cache.

Rule files are cached one by one in `$JOUET_CACHE_DIR/rulesets/files-*.marshal` (one file per
directory of rules), by their stat signature and the hash of the bytes parsed, so that editing one
rule file re-parses that file only, whatever else the directory holds. Built-in rules are never
built here: they come pre-built with the package (engine/prebuilt.py).
"""

from __future__ import annotations

import contextlib
import json
import marshal
import os
import time
from typing import Any

import tomli

from jouet_git import paths
from jouet_git.engine import prebuilt
from jouet_git.engine import sources as srcmod
from jouet_git.engine.model import BUILTIN, USER, Rule
from jouet_git.engine.ruleset import (
    MARSHAL_VERSION,
    RuleSet,
    Segment,
    _hash,
    cache_dir,
    content_hash,
    is_racy,
    pack,
    signature,
)
from jouet_git.engine.settle import parse_file, settle

_FILES_FORMAT = 1


def read_config(digests: dict[str, str] | None = None) -> tuple[dict[str, Any], list[str]]:
    """~/.config/jouet/config.toml, and the problems found in it (DIGESTS gets the hash of the bytes
    read, by path)."""
    file = paths.config_file()
    try:
        with open(file, "rb") as f:
            raw = f.read()
        if digests is not None:
            digests[file] = _hash(raw)
        doc = tomli.loads(raw.decode("utf-8"))
    except FileNotFoundError:
        return {}, []
    except (OSError, UnicodeDecodeError, tomli.TOMLDecodeError) as error:
        return {}, [f"{file}: {error}; its settings are ignored until it is fixed"]
    problems: list[str] = []
    rules = doc.get("rules", {})
    if not isinstance(rules, dict):
        return doc, [f"{file}: [rules] must be a table"]
    disable = rules.get("disable", [])
    if not isinstance(disable, list) or not all(isinstance(n, str) for n in disable):
        problems.append(f"{file}: rules.disable must be a list of rule names")
    network = rules.get("network", False)
    if not isinstance(network, bool):
        problems.append(f"{file}: rules.network must be true or false")
    return doc, problems


def build(root: str | None, extra_sources: list[srcmod.Source] | None = None,
          trusted_repo: bool = False, repo_copy: str | None = None) -> tuple[RuleSet, list[str]]:
    """The rule set for a work tree at ROOT (None outside one), and every path the build read
    (jouet's own rules come from the package and are not among them).

    TRUSTED_REPO builds the repository's rules as if trusted; REPO_COPY builds them from a copy of its
    `.jouet/` (trust/snapshot.py): what `jouet trust` shows before it asks.
    """
    built = build_outside(root, time.time_ns(), extra_sources, trusted_repo, repo_copy)
    ruleset = RuleSet([], built["disabled"], built["network"], built["problems"], built["sources"], root,
                      [prebuilt.segment(), Segment.of_rules(built["rules"])], failures=built["failures"])
    return ruleset, built["paths"]


def build_outside(root: str | None, started_ns: int, extra_sources: list[srcmod.Source] | None = None,
                  trusted_repo: bool = False, repo_copy: str | None = None) -> dict[str, Any]:
    """Every rule from outside the package for ROOT, settled against the built-in ones, as the parts
    ruleset.write_cache keeps: segment (packed), disabled, network, problems, sources, and deps
    (path, signature, content hash or None), None when a file changed while it was built, so the
    result must not be cached. Also rules (decoded) and paths (every path read)."""
    digests: dict[str, str] = {}
    doc, problems = read_config(digests)
    rules_cfg = doc.get("rules", {}) if isinstance(doc.get("rules", {}), dict) else {}
    disable = [n for n in rules_cfg.get("disable", []) if isinstance(n, str)] \
        if isinstance(rules_cfg.get("disable", []), list) else []
    network = rules_cfg.get("network", False) is True
    sources = srcmod.all_sources(root, extra_sources, trusted_repo, repo_copy)
    builtin = prebuilt.segment()
    taken: dict[str, Rule] = {}
    for i in range(len(builtin)):
        rule = builtin.rule(i, False)
        taken.setdefault(rule.name, rule)
    deps: list[str] = [paths.config_file(), paths.config_dir(), *paths.system_dirs()]
    if root is not None:
        deps.append(os.path.join(root, ".jouet"))
    listed: dict[str, list[str]] = {}
    relaxed: list[str] = []  # directories whose other files never decide (scripts of your own rules)
    files = _FileCache(enabled=repo_copy is None and not extra_sources)
    rules: list[Rule] = []
    failures: list[str] = []
    # For engine/patch.py: where each file of your rules lies among the rules, and the name each rule took.
    spans: dict[str, tuple[int, int]] = {}
    claims: list[str | None] = []
    for source in sources:
        if source.kind == BUILTIN:
            continue
        deps.append(source.directory)
        if source.failure:
            failures.append(source.failure)
            problems.append(source.failure)
            continue
        try:
            deps.extend(_tree(source.directory))
            deps.extend(source.deps)
            listed[source.directory] = source.files
            if source.kind == USER:
                relaxed.append(source.directory)
            if source.problem:
                problems.append(source.problem)
            loaded: list[Rule] = []
            for file in source.files:
                here = files.load(file, source, digests)
                if source.kind == USER:
                    spans[file] = (len(rules) + len(loaded), len(here))
                loaded += here
            if source.legacy_files:
                from jouet_git.engine import legacy

                loaded += [legacy.load_file(file, source.kind, source.label, source.prefix, evaluate=source.runs)
                           for file in source.legacy_files]
            for rule in loaded:
                if source.settings is not None:
                    # Examples run with the plugin's defaults; the rule then runs with the settings in force.
                    rule.data["settings"] = dict(source.default_settings or {})
                settle(rule, source, taken, disable, files)
                if source.settings is not None:
                    rule.data["settings"] = dict(source.settings)
                    rule.data["default_settings"] = dict(source.default_settings or {})
                rules.append(rule)
                claims.append(rule.name if taken.get(rule.name) is rule else None)
        except Exception as error:  # one source's failure must never silence the others
            why = srcmod.failed(source.kind, f"the rules of {source.label}", source.directory, error).failure
            failures.append(why)
            problems.append(why)
    files.save()
    # A source that failed is tried again on the next call: such a build is not cached (deps None).
    from jouet_git.engine.patch import patch_info

    return {"segment": pack(rules, None), "rules": rules, "disabled": disable, "network": network,
            "problems": problems, "sources": srcmod.describe(sources), "paths": deps, "failures": failures,
            "deps": None if failures else _dependencies(deps, digests, listed, relaxed, started_ns),
            "patch": patch_info(rules, spans, claims)}


def _dependencies(deps: list[str], digests: dict[str, str], listed: dict[str, list[str]], relaxed: list[str],
                  started_ns: int) -> list[tuple[str, Any, str | None]] | None:
    """Each path with its signature, and a content hash where the signature alone does not prove it
    unchanged (ruleset.is_racy): the hash of the bytes parsed for a rule file or config.toml, of the
    listing for a directory of rule files. None when a file changed while the rules were built."""
    out: list[tuple[str, Any, str | None]] = []
    for path in sorted(set(deps)):
        sig = signature(path)
        digest = None
        if is_racy(sig, started_ns):
            if path in digests:
                digest = digests[path]
            elif path in listed:
                if srcmod.rule_files(path) != listed[path]:
                    return None  # a rule file came or went while the rules were built
                digest = content_hash(path)
            elif any(path.startswith(d + os.sep) for d in relaxed) and not path.endswith(".toml"):
                digest = content_hash(path)  # a script of yours: never read to build the rules
            else:
                return None
            if digest is None:
                return None
        out.append((path, sig, digest))
    return out


class _FileCache:
    """Parsed rule files, one cache file per directory, kept by signature and content hash."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled and cache_dir() is not None
        self._dirs: dict[str, dict[str, Any]] = {}
        self._dirty: set[str] = set()

    def _file_for(self, directory: str) -> str:
        from jouet_git.engine.ruleset import _hash

        return os.path.join(cache_dir() or "", f"files-{_hash(directory.encode('utf-8', 'surrogateescape'))}.marshal")

    def _entries(self, directory: str) -> dict[str, Any]:
        entries = self._dirs.get(directory)
        if entries is None:
            entries = {}
            try:
                with open(self._file_for(directory), "rb") as f:
                    data = marshal.loads(f.read())
                if isinstance(data, dict) and data.get("format") == _FILES_FORMAT and isinstance(data.get("files"),
                                                                                                  dict):
                    entries = data["files"]
            except Exception:  # missing or damaged: parse again
                entries = {}
            self._dirs[directory] = entries
        return entries

    def load(self, file: str, source: srcmod.Source, digests: dict[str, str]) -> list[Rule]:
        """The rules in FILE, from the cache when the file is unchanged."""
        key = f"{source.kind}\0{source.label}\0{source.prefix}"
        entries = self._entries(source.directory) if self.enabled else {}
        sig = signature(file)
        entry = entries.get(file)
        try:
            if entry is not None and entry["key"] == key and entry["sig"] == sig and (
                    not entry["racy"] or content_hash(file) == entry["digest"]):
                digests[file] = entry["digest"]
                return [_rule_from(d) for d in marshal.loads(entry["rules"])]
        except Exception:  # a damaged entry: parse the file again
            pass
        read_at = time.time_ns()
        rules, digest = parse_file(file, source.kind, source.label, source.prefix)
        if digest is None:
            return rules
        digests[file] = digest
        if self.enabled:
            entries[file] = {"key": key, "sig": sig, "digest": digest, "racy": is_racy(sig, read_at),
                             "rules": marshal.dumps([_rule_data(r) for r in rules], MARSHAL_VERSION),
                             "failures": {}}
            self._dirty.add(source.directory)
        return rules

    def failure(self, rule: Rule, compute: Any) -> str:
        """The first failing example of a rule from outside, cached with its file by the rule's data,
        settings and script content."""
        script = rule.script
        key = json.dumps([rule.name, rule.data.get("settings"), content_hash(script) if script else None],
                         sort_keys=True, default=str)
        directory = os.path.dirname(rule.file)
        entry = self._entries(directory).get(rule.file) if self.enabled else None
        failures = entry.get("failures") if isinstance(entry, dict) else None
        if isinstance(failures, dict) and isinstance(failures.get(key), str):
            return str(failures[key])
        result: str = compute(rule)
        if isinstance(failures, dict):
            failures[key] = result
            self._dirty.add(directory)
        return result

    def save(self) -> None:
        from jouet_git.store import write_atomic

        for directory in self._dirty:
            data = {"format": _FILES_FORMAT, "files": self._dirs[directory]}
            with contextlib.suppress(OSError, ValueError):
                write_atomic(self._file_for(directory), marshal.dumps(data, MARSHAL_VERSION), sync=False)


def _rule_data(rule: Rule) -> dict[str, Any]:
    return {"data": rule.data, "source": rule.source, "source_label": rule.source_label, "file": rule.file,
            "line": rule.line, "state": rule.state, "state_detail": rule.state_detail, "error": rule.error}


def _rule_from(d: dict[str, Any]) -> Rule:
    rule = Rule(d["data"], d["source"], d["source_label"], d["file"], d["line"])
    rule.state = d["state"]
    rule.state_detail = d["state_detail"]
    rule.error = d["error"]
    return rule


def _tree(directory: str) -> list[str]:
    """Every file and directory below DIRECTORY (rule files and their scripts)."""
    out: list[str] = []
    for base, dirs, files in os.walk(directory):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        out.extend(os.path.join(base, d) for d in dirs)
        out.extend(os.path.join(base, f) for f in files)
    return out
