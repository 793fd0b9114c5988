"""Parse one rule file and settle its rules (whether each runs, and if not, why): shared by the full
build (engine/build.py) and the patch of an edited file of your rules (engine/patch.py), and light
enough to import on the hook path (no typing, no contextlib, no sources)."""

from __future__ import annotations

from jouet_git.engine.load import MAX_RULE_FILE, _broken_file, load_text
from jouet_git.engine.model import BROKEN, BUILTIN, DISABLED, ENFORCED, NEEDS, UNTRUSTED, USER, Rule
from jouet_git.engine.ruleset import _hash
from jouet_git.store import read_regular

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from jouet_git.engine.sources import Source


def parse_file(file: str, kind: str, label: str, prefix: str) -> tuple[list[Rule], str | None]:
    """The rules in FILE, and the hash of the bytes parsed (None when the file could not be read: its
    one broken rule says why)."""
    try:
        raw = read_regular(file, MAX_RULE_FILE)  # a FIFO or a device never blocks the hook
    except OSError as error:
        return [_broken_file(file, f"cannot read it: {error}", 1, kind, label)], None
    digest = _hash(raw)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return [_broken_file(file, f"cannot read it: {error}", 1, kind, label)], None
    return load_text(text, file, kind, label, prefix), digest


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


def settle(rule: Rule, source: Source, taken: dict[str, Rule], disable: list[str], files: Any = None) -> None:
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
    from jouet_git.commands_index import has_command

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
        failure = files.failure(rule, _first_failure) if files is not None else _first_failure(rule)
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
