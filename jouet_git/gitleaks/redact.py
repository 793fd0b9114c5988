"""Find secrets in a short text (a command line) with gitleaks' own rules, without running gitleaks.

    spans = secret_spans("curl -H 'x-api-key: sk_live_...' https://...")   # [(start, end), ...]

The ledger stores the commands agents run; before one is written, what gitleaks' rules would call a
secret in it is replaced by [redacted]. Starting gitleaks costs about a second, so the rules are
applied here instead: those of the default config of the gitleaks release jouet pins, translated
from Go's regular expressions to Python's (gitleaks/goregex.py) and generated with the package
(gitleaks/default.py: when the wheel is built, or beside the sources of a source checkout). They are
never read from a file another process can write, and once generated they apply whichever gitleaks
is installed, or none. Without them (no gitleaks to generate them from) only the ledger's own
patterns apply (ledger.redact).

Each rule runs only when one of its keywords occurs in the text (compared case-insensitively, as
gitleaks does), so text without any keyword costs one lower-casing and a substring test per keyword,
and no regular expression is compiled. For a match, the span redacted is the secret's: the rule's
`secretGroup`, else its first non-empty group, else the whole match, as gitleaks reports it. A rule's
entropy floor and the allowlists that can be decided from the text alone (regexes and stopwords, the
rule's own and the global ones) are applied; allowlists that need a path or a commit are not, so
this redacts at least what gitleaks reports on the same line. Decoding passes (base64, hex, percent)
are not followed: an encoded secret is redacted only when its encoded form matches a rule too.

On the hook path: imports re and reads the generated keyword index (gitleaks/default.py: head());
the rules are decoded, and a rule's expression compiled, only when one of its keywords occurs in the
text.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class _Rules:
    """The translated rules and the keyword index of one gitleaks config."""

    __slots__ = ("_any", "_by_char", "_data", "by_keyword", "compiled", "searched")

    def __init__(self, by_keyword: tuple[tuple[str, tuple[int, ...]], ...], data: Any = None) -> None:
        self.by_keyword = by_keyword
        self._by_char: dict[str, list[tuple[str, tuple[int, ...]]]] | None = None
        self._any: re.Pattern[str] | None = None
        self.searched = 0  # how many short texts were searched (see secret_spans)
        # The rules themselves, loaded on the first keyword found (most commands hold none).
        self._data: dict[str, Any] | None = data
        self.compiled: dict[str, re.Pattern[str] | None] = {}

    @property
    def rules(self) -> list[dict[str, Any]]:
        rules: list[dict[str, Any]] = self.data()["rules"]
        return rules

    @property
    def global_allow(self) -> list[dict[str, Any]]:
        allow: list[dict[str, Any]] = self.data()["allow"]
        return allow

    def data(self) -> dict[str, Any]:
        if self._data is None:
            from jouet_git.gitleaks import default

            body = default.body()
            self._data = ({"rules": body["redact_rules"], "allow": body["redact_allow"]} if body is not None
                          else {"rules": [], "allow": []})
        return self._data

    def by_char(self) -> dict[str, list[tuple[str, tuple[int, ...]]]]:
        """The keywords (with their rules) by the one of their characters that texts hold least often
        (see COMMON): a text that lacks that character cannot hold the keyword."""
        found = self._by_char
        if found is None:
            found = self._by_char = {}
            for keyword, indexes in self.by_keyword:
                found.setdefault(_filed_under(keyword), []).append((keyword, indexes))
        return found

    def any_keyword(self) -> re.Pattern[str]:
        """One expression that finds a keyword in a text when it holds any (words_pattern): most
        texts of a stream hold none, and this says so in one scan."""
        found = self._any
        if found is None:
            found = self._any = words_pattern([keyword for keyword, _ in self.by_keyword])
        return found

    def pattern(self, source: str) -> re.Pattern[str] | None:
        if source not in self.compiled:
            try:
                self.compiled[source] = re.compile(source, re.ASCII)
            except (re.error, OverflowError, RecursionError):
                self.compiled[source] = None
        return self.compiled[source]


_loaded: dict[str, _Rules | None] = {}


def secret_spans(text: str) -> list[tuple[int, int]]:
    """The (start, end) spans of TEXT that gitleaks' default rules would report as secrets."""
    if not text:
        return []
    rules = _rules()
    if rules is None:
        return []
    lowered = text.lower() if text.isascii() else _go_lower(text)
    wanted: set[int] = set()
    if len(lowered) < LONG and rules.searched < BY_CHAR_AFTER:  # one text (a hook's): every keyword
        rules.searched += 1
        for keyword, indexes in rules.by_keyword:
            if keyword in lowered:
                wanted.update(indexes)
    elif len(lowered) < LONG:  # a stream of texts: the keywords filed under a character the text holds
        if rules.any_keyword().search(lowered) is None:
            return []
        by_char = rules.by_char()
        for char in set(lowered).union(("",)):
            for keyword, indexes in by_char.get(char, ()):
                if keyword in lowered:
                    wanted.update(indexes)
    else:  # a here-document: a keyword holding a character the text lacks is not looked for
        absent = absent_chars(lowered)
        for keyword, indexes in rules.by_keyword:
            if absent.isdisjoint(keyword) and keyword in lowered:
                wanted.update(indexes)
    spans: list[tuple[int, int]] = []
    for index in sorted(wanted):
        spans.extend(_rule_spans(rules, rules.rules[index], text))
    return spans


# From this length on, a keyword is looked for only in a text that holds each of its characters: the
# text is scanned once for each character of CHARS, rather than once for each keyword.
LONG = 256
# Characters keywords are made of, each checked with one scan (a character left out is only never
# ruled out, so this decides speed, never what is found).
CHARS = "abcdefghijklmnopqrstuvwxyz0123456789-_.:/="


# Characters in about the order commands and messages hold them, most often first: a keyword is filed
# under its character that comes last here, or under its first character not listed at all (an empty
# keyword under "", looked for in every text). This decides speed only: a keyword is looked for whenever
# the text holds the character it is filed under. Filing the keywords costs more than looking for all of
# them in one text, so the first BY_CHAR_AFTER short texts (a hook redacts one or two) are searched for
# every keyword.
COMMON = " etaosrinlcdmpuhgf-/.bwy_v0k12=:3x45678,9jqz"
BY_CHAR_AFTER = 4


def words_pattern(words: list[str]) -> re.Pattern[str]:
    """An expression that matches where one of WORDS (at least one, none empty) begins, found in one
    scan of a text: the words as a tree of their common beginnings (`s(?:k|ecret|...)`), which the
    regular expression engine walks a character at a time, rather than each word tried in turn. A
    match is the shortest word there: this tells whether a text holds any of WORDS, not which."""
    if not words:
        return re.compile("(?!)")  # (matches nowhere)
    tree: dict[str, Any] = {}
    for word in words:
        node = tree
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def source(node: dict[str, Any]) -> str:
        if "" in node:  # a word ends here: the longer ones below it are found with it
            return ""
        branches = [re.escape(char) + source(below) for char, below in sorted(node.items())]
        return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"

    return re.compile(source(tree))


def _filed_under(keyword: str) -> str:
    for char in keyword:
        if char not in COMMON:
            return char
    return max(keyword, key=COMMON.index) if keyword else ""


def absent_chars(text: str) -> set[str]:
    """The characters of CHARS that TEXT does not hold: a string holding one of them is not in TEXT."""
    return {c for c in CHARS if c not in text}


def _go_lower(text: str) -> str:
    from jouet_git.gitleaks.precheck import go_lower

    return go_lower(text)


def _rule_spans(rules: _Rules, rule: dict[str, Any], text: str) -> list[tuple[int, int]]:
    pattern = rules.pattern(rule["re"])
    if pattern is None:
        return []
    found = []
    for match in pattern.finditer(text):
        start, end = _secret_span(match, rule.get("group") or 0)
        if start == end:
            continue
        secret = text[start:end]
        entropy = rule.get("entropy")
        if entropy and shannon_entropy(secret) <= entropy:
            continue
        line_start = text.rfind("\n", 0, match.start()) + 1
        line_end = text.find("\n", match.end())
        line = text[line_start:line_end if line_end >= 0 else len(text)]
        targets = {"secret": secret, "match": match.group(0), "line": line}
        if any(_allowed(rules, allow, targets) for allow in rule.get("allow", []) + rules.global_allow):
            continue
        found.append((start, end))
    return found


def _secret_span(match: re.Match[str], group: int) -> tuple[int, int]:
    """Where gitleaks' secret is in MATCH: the secretGroup, else the first non-empty group, else all."""
    groups = match.re.groups
    if group and group <= groups:
        return match.span(group)
    for index in range(1, groups + 1):
        start, end = match.span(index)
        if start >= 0 and end > start:
            return start, end
    return match.span(0)


def _allowed(rules: _Rules, allow: dict[str, Any], targets: dict[str, str]) -> bool:
    """Whether an allowlist that can be decided from the text alone lets the finding through."""
    checks: list[bool] = []
    if allow.get("re"):
        target = targets.get(allow.get("target") or "secret", targets["secret"])
        checks.append(any(p is not None and p.search(target) for p in map(rules.pattern, allow["re"])))
    if allow.get("stop"):
        lowered = targets["secret"].lower()
        checks.append(any(word in lowered for word in allow["stop"]))
    if not checks:
        return False
    return all(checks) if allow.get("and") else any(checks)


def shannon_entropy(text: str) -> float:
    """Bits per character, as gitleaks computes a secret's entropy."""
    if not text:
        return 0.0
    counts: dict[str, int] = {}
    for char in text:
        counts[char] = counts.get(char, 0) + 1
    total = len(text)
    from math import log2

    return -sum(n / total * log2(n / total) for n in counts.values())


# --- the rules -----------------------------------------------------------------------------------


def _rules() -> _Rules | None:
    """The rules of the default config of the gitleaks release jouet pins, as generated with jouet
    (gitleaks/default.py): never read from a file another process can write; None when there are none."""
    if "default" not in _loaded:
        from jouet_git.gitleaks import default

        head = default.head()
        _loaded["default"] = None if head is None else _Rules(head["redact_keywords"])
    return _loaded["default"]


def build(binary: str) -> dict[str, Any] | None:
    """The rules of the default config inside BINARY, translated for Python; None when unreadable."""
    from jouet_git.gitleaks.config import Unsure, embedded_default

    try:
        text = embedded_default(binary)
    except Unsure:
        return None
    return build_from_text(text)


def build_from_text(text: str) -> dict[str, Any] | None:
    """The rules of the gitleaks config TEXT, translated for Python; None when it is not TOML."""
    import tomli

    try:
        config = tomli.loads(text)
    except tomli.TOMLDecodeError:
        return None
    rules = []
    for raw in config.get("rules") or []:
        if not isinstance(raw, dict) or not isinstance(raw.get("regex"), str):
            continue  # a rule on file names alone finds nothing in a command
        source = _translate(raw["regex"])
        keywords = [k.lower() for k in raw.get("keywords") or [] if isinstance(k, str) and k]
        if source is None or not keywords:
            # Without keywords a rule would run its expression on every command; gitleaks' default
            # config has none such, and a custom one is not read here.
            continue
        rule: dict[str, Any] = {"id": raw.get("id"), "re": source, "kw": keywords}
        if isinstance(raw.get("secretGroup"), int) and raw["secretGroup"] > 0:
            rule["group"] = raw["secretGroup"]
        if isinstance(raw.get("entropy"), (int, float)) and raw["entropy"] > 0:
            rule["entropy"] = float(raw["entropy"])
        allow = [a for a in (_allowlist(item) for item in raw.get("allowlists") or []) if a is not None]
        if allow:
            rule["allow"] = allow
        rules.append(rule)
    top = config.get("allowlist")
    tables = ([top] if isinstance(top, dict) else []) + [a for a in config.get("allowlists") or []
                                                        if isinstance(a, dict) and not a.get("targetRules")]
    global_allow = [a for a in (_allowlist(item) for item in tables) if a is not None]
    return {"rules": rules, "allow": global_allow}


def _translate(pattern: str) -> str | None:
    from jouet_git.gitleaks.goregex import Unsupported, compile_go

    try:
        return compile_go(pattern).pattern
    except Unsupported:
        return None


def _allowlist(item: Any) -> dict[str, Any] | None:
    """The part of an allowlist that can be decided from a command's text: regexes and stopwords."""
    if not isinstance(item, dict):
        return None
    condition = str(item.get("condition", "")).lower()
    both = condition in ("and", "&&")
    if both and (item.get("paths") or item.get("commits")):
        return None  # needs a path or a commit to hold, which a command has not
    regexes = [r for r in (_translate(p) for p in item.get("regexes") or [] if isinstance(p, str)) if r is not None]
    stopwords = [w.lower() for w in item.get("stopwords") or [] if isinstance(w, str) and w]
    if not regexes and not stopwords:
        return None
    out: dict[str, Any] = {}
    if regexes:
        out["re"] = regexes
        target = item.get("regexTarget")
        if target in ("match", "line"):
            out["target"] = target
    if stopwords:
        out["stop"] = stopwords
    if both:
        out["and"] = True
    return out
