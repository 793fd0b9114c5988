"""`jouet log --stats`: how often each rule denied and warned, per day and per harness, as text bars.

Denials are drawn with `#`, warnings with `=`, each bar scaled to the largest in its section and
fitted to the terminal's width; there is no colour when the output is not a terminal. The rules
loaded here that never denied, warned, rewrote or recorded anything in the ledger (within the
filters) are listed last. --json gives the counts by rule, day and harness instead.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

from jouet_git import ledger

ACTIONS = ("deny", "warn", "ask", "rewrite", "record")
LABEL_MAX = 28


class Counts:
    """Counts by rule, then day (local), then harness, then action; and calls by harness."""

    def __init__(self) -> None:
        self.by_rule: dict[str, dict[str, dict[str, dict[str, int]]]] = {}
        self.calls = 0
        self.harnesses: dict[str, int] = {}
        self.first: float | None = None
        self.last: float | None = None
        self.stops = {"held": 0, "let": 0}

    def add(self, line: dict[str, Any], ts: float) -> None:
        from jouet_git.commands.log import rules_of

        self.calls += 1
        harness = str(line.get("harness") or "?")
        self.harnesses[harness] = self.harnesses.get(harness, 0) + 1
        self.first = ts if self.first is None else min(self.first, ts)
        self.last = ts if self.last is None else max(self.last, ts)
        if line.get("event") == "stop":
            self.stops["held" if line.get("decision") == "deny" else "let"] += 1
        day = time.strftime("%Y-%m-%d", time.localtime(ts))
        for rule in rules_of(line):
            action = rule.get("action")
            if action not in ACTIONS:
                continue
            per_day = self.by_rule.setdefault(str(rule.get("rule")), {}).setdefault(day, {})
            per_harness = per_day.setdefault(harness, {})
            per_harness[str(action)] = per_harness.get(str(action), 0) + 1

    def total(self, rule: str | None = None, day: str | None = None, harness: str | None = None) -> dict[str, int]:
        out = dict.fromkeys(ACTIONS, 0)
        for name, days in self.by_rule.items():
            if rule is not None and name != rule:
                continue
            for d, harnesses in days.items():
                if day is not None and d != day:
                    continue
                for h, actions in harnesses.items():
                    if harness is not None and h != harness:
                        continue
                    for action, n in actions.items():
                        out[action] = out.get(action, 0) + n
        return out

    def days(self) -> list[str]:
        return sorted({d for days in self.by_rule.values() for d in days})

    def harness_names(self) -> list[str]:
        return sorted({h for days in self.by_rule.values() for hs in days.values() for h in hs})


def show_stats(select: Any, as_json: bool, since: str | None) -> int:
    from jouet_git.commands.log import timestamp

    counts = Counts()
    for line in ledger.backwards():
        ts = timestamp(line)
        if select.since is not None and ts < select.since:
            break
        if select(line):
            counts.add(line, ts)
    never = _never_fired(counts) if select.rule is None else []
    if as_json:
        print(json.dumps({"calls": counts.calls, "harnesses": counts.harnesses, "stops": counts.stops,
                          "rules": counts.by_rule, "never_fired": never}, indent=2))
        return 0
    print("\n".join(render(counts, never, select.rule, since)))
    return 0


def _never_fired(counts: Counts) -> list[str]:
    from jouet_git.engine.model import ENABLED
    from jouet_git.engine.ruleset import load

    try:
        ruleset = load(os.getcwd())
    except Exception:  # a broken config is `jouet rule list`'s to report, not this chart's
        return []
    spoke = {name for name, days in counts.by_rule.items() if days}
    return [r.name for r in ruleset.rules if r.state == ENABLED and r.name not in spoke]


def render(counts: Counts, never: list[str], rule: str | None, since: str | None) -> list[str]:
    from jouet_git.commands.log import _paint, width

    if counts.calls == 0:
        where = f" since {since}" if since else ""
        return [f"no calls in the ledger{where} match"]
    first = time.strftime("%Y-%m-%d %H:%M", time.localtime(counts.first or 0))
    last = time.strftime("%Y-%m-%d %H:%M", time.localtime(counts.last or 0))
    by_harness = ", ".join(f"{h} {n:,}" for h, n in sorted(counts.harnesses.items(), key=lambda kv: -kv[1]))
    import textwrap

    columns = min(width(), 120)
    lines = textwrap.wrap(f"{counts.calls:,} hook events from {first} to {last} ({by_harness})", width=columns,
                          subsequent_indent="  ")
    if counts.stops["held"] or counts.stops["let"]:
        lines.append(f"stop check: held {counts.stops['held']}, let stop {counts.stops['let']}")

    def section(title: str, rows: list[tuple[str, dict[str, int], str]]) -> None:
        rows = [r for r in rows if r[1]["deny"] + r[1]["warn"] + r[1]["ask"] > 0]
        if not rows:
            return
        lines.append("")
        lines.append(title)
        label = min(LABEL_MAX, max(len(r[0]) for r in rows))
        texts = [_numbers(r[1]) + r[2] for r in rows]
        number_width = max(len(t) for t in texts)
        bar_width = min(50, max(10, columns - label - number_width - 6))
        biggest = max(r[1]["deny"] + r[1]["warn"] + r[1]["ask"] for r in rows)
        for (name, total, _extra), text in zip(rows, texts, strict=True):
            denied = _scaled(total["deny"], biggest, bar_width)
            warned = min(_scaled(total["warn"] + total["ask"], biggest, bar_width), bar_width - denied)
            bar = _paint("#" * denied, "deny") + _paint("=" * warned, "warn")
            pad = " " * (bar_width - denied - warned)
            shown = name if len(name) <= label else name[:label - 1] + "…"
            lines.append(f"  {shown.ljust(label)}  {bar}{pad}  {text}")

    rules = sorted(counts.by_rule, key=lambda n: -sum(counts.total(rule=n)[a] for a in ("deny", "warn", "ask")))
    if rule is None:
        rows = []
        for name in rules:
            total = counts.total(rule=name)
            split = {h: sum(counts.total(rule=name, harness=h)[a] for a in ("deny", "warn", "ask"))
                     for h in counts.harness_names()}
            where = ", ".join(f"{h} {n}" for h, n in split.items() if n)
            rows.append((name, total, f"  ({where})" if len(counts.harness_names()) > 1 and where else ""))
        section("denials (#) and warnings (=) by rule", rows)
    who = f"{rule} " if rule else ""
    section(f"{who}denials and warnings by day", [(d, counts.total(rule=rule, day=d), "") for d in counts.days()])
    section(f"{who}denials and warnings by harness",
            [(h, counts.total(rule=rule, harness=h), "") for h in counts.harness_names()])
    recorded = {name: counts.total(rule=name)["record"] for name in counts.by_rule}
    recorded = {k: v for k, v in recorded.items() if v and (rule is None or k == rule)}
    if recorded:
        lines.append("")
        lines.append("checks recorded: " + ", ".join(f"{k} {v}" for k, v in sorted(recorded.items())))
    if rule is None:
        lines.append("")
        if never:
            lines += textwrap.wrap(f"never fired ({len(never)} of the rules loaded here): " + ", ".join(never),
                                   width=columns, subsequent_indent="  ", break_on_hyphens=False)
        else:
            lines.append("every rule loaded here fired at least once")
    return lines


def _numbers(total: dict[str, int]) -> str:
    parts = []
    if total["deny"]:
        parts.append(f"{total['deny']} denied")
    if total["warn"]:
        parts.append(f"{total['warn']} warned")
    if total["ask"]:
        parts.append(f"{total['ask']} asked")
    return ", ".join(parts)


def _scaled(n: int, biggest: int, room: int) -> int:
    if n <= 0 or biggest <= 0:
        return 0
    return max(1, round(n * room / biggest))
