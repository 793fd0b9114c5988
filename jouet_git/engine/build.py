"""Build a rule set from its sources: the cold path behind engine/ruleset.py's cache."""

from __future__ import annotations

import os
from typing import Any

import tomli

from jouet_git import paths
from jouet_git.commands_index import has_command
from jouet_git.engine import sources as srcmod
from jouet_git.engine.load import load_file
from jouet_git.engine.model import BROKEN, BUILTIN, DISABLED, ENFORCED, NEEDS, UNTRUSTED, USER, Rule
from jouet_git.engine.ruleset import RuleSet


def read_config() -> tuple[dict[str, Any], list[str]]:
    """~/.config/jouet/config.toml, and the problems found in it."""
    file = paths.config_file()
    try:
        with open(file, "rb") as f:
            doc = tomli.load(f)
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


def missing_examples(rule: Rule) -> str:
    """Why RULE lacks examples of either kind, or ""."""
    fires = rule.examples.get("fires") or []
    quiet = rule.examples.get("quiet") or []
    if not fires and not quiet:
        return "it has no examples: calls it must fire on (`fires`) and near misses it must leave alone (`quiet`)"
    if not fires:
        return "it has no `fires` examples: calls it must fire on"
    if not quiet:
        return "it has no `quiet` examples: near misses it must leave alone"
    return ""


def build(root: str | None, extra_sources: list[srcmod.Source] | None = None,
          trusted_repo: bool = False, repo_copy: str | None = None) -> tuple[RuleSet, list[str]]:
    """The rule set for a work tree at ROOT (None outside one), and every path the build read.

    TRUSTED_REPO builds the repository's rules as if trusted; REPO_COPY builds them from a copy of its
    `.jouet/` (trust/snapshot.py): what `jouet trust` shows before it asks.
    """
    doc, problems = read_config()
    rules_cfg = doc.get("rules", {}) if isinstance(doc.get("rules", {}), dict) else {}
    disable = [n for n in rules_cfg.get("disable", []) if isinstance(n, str)] \
        if isinstance(rules_cfg.get("disable", []), list) else []
    network = rules_cfg.get("network", False) is True
    sources = srcmod.all_sources(root, extra_sources, trusted_repo, repo_copy)
    deps: list[str] = [paths.config_file(), paths.config_dir(), *paths.system_dirs()]
    if root is not None:
        deps.append(os.path.join(root, ".jouet"))
    rules: list[Rule] = []
    failures: list[str] = []
    taken: dict[str, Rule] = {}
    for source in sources:
        deps.append(source.directory)
        if source.failure:
            failures.append(source.failure)
            problems.append(source.failure)
            continue
        try:
            deps.extend(_tree(source.directory))
            deps.extend(source.deps)
            if source.problem:
                problems.append(source.problem)
            loaded = [rule for file in source.files
                      for rule in load_file(file, source.kind, source.label, source.prefix)]
            if source.legacy_files:
                from jouet_git.engine import legacy

                loaded += [legacy.load_file(file, source.kind, source.label, source.prefix, evaluate=source.runs)
                           for file in source.legacy_files]
            for rule in loaded:
                if source.settings is not None:
                    # Examples run with the plugin's defaults; the rule then runs with the settings in force.
                    rule.data["settings"] = dict(source.default_settings or {})
                _settle(rule, source, taken, disable)
                if source.settings is not None:
                    rule.data["settings"] = dict(source.settings)
                    rule.data["default_settings"] = dict(source.default_settings or {})
                rules.append(rule)
        except Exception as error:  # one source's failure must never silence the others
            why = srcmod.failed(source.kind, f"the rules of {source.label}", source.directory, error).failure
            failures.append(why)
            problems.append(why)
    ruleset = RuleSet(rules, disable, network, problems, srcmod.describe(sources), root, failures)
    return ruleset, deps


def _tree(directory: str) -> list[str]:
    """Every file and directory below DIRECTORY (rule files and their scripts)."""
    out: list[str] = []
    for base, dirs, files in os.walk(directory):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        out.extend(os.path.join(base, d) for d in dirs)
        out.extend(os.path.join(base, f) for f in files)
    return out


def _settle(rule: Rule, source: srcmod.Source, taken: dict[str, Rule], disable: list[str]) -> None:
    """Decide whether a freshly loaded rule runs, and if not, why."""
    if rule.state == BROKEN:
        return
    holder = taken.get(rule.name)
    if holder is not None:
        rule.state = BROKEN
        rule.error = (f"{rule.file}:{rule.line}: the name `{rule.name}` is taken by the {holder.source_label} "
                      f"rule in {holder.file}: give this rule a name of its own")
        return
    taken[rule.name] = rule
    if not source.runs:
        rule.state = UNTRUSTED
        rule.state_detail = source.detail
        return
    if rule.needs and not has_command(*rule.needs):
        rule.state = NEEDS
        rule.state_detail = "jouet " + " ".join(rule.needs)
        return
    lacking = missing_examples(rule)
    if rule.source == USER:
        rule.only_warns = lacking
    elif rule.source not in (BUILTIN,) and lacking:
        rule.state = BROKEN
        rule.error = f"{rule.file}:{rule.line}: {lacking}; a rule from outside runs only once it has both"
        return
    if rule.source not in (BUILTIN, USER):
        failure = _first_failure(rule)
        if failure:
            rule.state = BROKEN
            rule.error = f"{rule.file}:{rule.line}: {failure}; a rule from outside runs only once its examples pass"
            return
    if rule.source != ENFORCED and (rule.name in disable or "all" in disable):
        rule.state = DISABLED
        rule.state_detail = "config.toml"


def _first_failure(rule: Rule) -> str:
    from jouet_git.engine.examples import run_examples

    report = run_examples(rule)
    for result in report.results:
        if not result.ok:
            return f"example {result.kind} `{result.label}` fails: {result.actual}"
    return ""
