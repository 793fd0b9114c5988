"""Decide, without starting gitleaks, whether gitleaks could find anything in some text.

gitleaks runs a rule on a fragment only when one of the rule's keywords occurs in it, compared
case-insensitively, in the fragment as it is or in any of its decoding passes; a rule without
keywords runs on every fragment. A rule with a path and no regex (pkcs12-file in the default
config) fires on the file name alone. A file under a global allowlist path is never scanned.

must_scan() answers True when any of that could happen, so skipping gitleaks on False loses no
finding. It answers True too whenever it cannot be sure: a file larger than gitleaks reads in one
chunk, a path it cannot match exactly, a config it could not read.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from re import Pattern

    from jouet_git.gitleaks.summary import RuleSummary

# gitleaks reads a file in chunks of about 100 kB and scans each chunk as its own fragment; below
# this size a file is one fragment, so the pre-check sees exactly what gitleaks sees.
ONE_CHUNK = 32 * 1024


class Fragment:
    """Text gitleaks will scan as one piece, and the path gitleaks will report it under."""

    __slots__ = ("path", "text")

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text


def go_lower(text: str) -> str:
    """Lower-case TEXT as Go's strings.ToLower does (rune by rune, simple case mapping)."""
    if text.isascii():
        return text.lower()
    # Python applies two mappings Go does not: İ becomes "i̇" (two characters), and a final Σ becomes ς.
    return text.replace("\u0130", "i").replace("\u03a3", "\u03c3").lower()


def keyword_in(text: str, keywords: Iterable[str]) -> bool:
    lowered = go_lower(text)
    return any(k in lowered for k in keywords)


def fragment_has_keyword(text: str, keywords: Iterable[str], depth: int | None = None) -> bool:
    """Whether a keyword occurs in TEXT or in one of its DEPTH decoding passes (gitleaks' default
    depth when None), as gitleaks checks them. The decoder is imported only for a text that may hold
    something encoded (most commits hold nothing encoded)."""
    keywords = tuple(keywords)
    if keyword_in(text, keywords):
        return True
    if not may_hold_encoding(text):
        return False  # no pass decodes anything
    from jouet_git.gitleaks.decode import MAX_DECODE_DEPTH, decode_pass

    current = text
    for _ in range(MAX_DECODE_DEPTH if depth is None else depth):
        current, count = decode_pass(current)
        if not count:
            break
        if keyword_in(current, keywords):
            return True
    return False


# Every ASCII character that cannot be part of a hex or base64 run, as a space: what is left of a
# text after translate() splits into the runs that could be (hex runs are base64 runs too).
_NOT_IN_A_RUN = {i: " " for i in range(128)
                 if chr(i) not in "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_/+-"}


def may_hold_encoding(text: str) -> bool:
    """Whether TEXT may hold a run gitleaks' decoder decodes (gitleaks/decode.py): every encoding
    needs a `%`, a `U+`, a backslash, or a run of 16 characters of the base64 alphabet (anything not
    ASCII counts as one of those, so this never misses a run the decoder's pattern would find)."""
    return "%" in text or "U+" in text or "\\" in text or any(
        len(run) >= 16 for run in text.translate(_NOT_IN_A_RUN).split())


def _compiled(patterns: list[str], translated: dict[str, str | None]) -> list[Pattern[str] | None]:
    """PATTERNS compiled, from their translations made ahead when there are some (TRANSLATED: see
    RuleSummary), else translated here; None for one that has no exact translation."""
    import re

    out: list[Pattern[str] | None] = []
    for pattern in patterns:
        if pattern in translated:
            python = translated[pattern]  # compiles without a warning (summary.translations)
            out.append(None if python is None else re.compile(python, re.ASCII))
            continue
        from jouet_git.gitleaks.goregex import Unsupported, compile_go

        try:
            out.append(compile_go(pattern))
        except Unsupported:
            out.append(None)
    return out


def _allowlisted(path: str, allow: list[Pattern[str] | None]) -> bool:
    # Trust the translation only on ASCII paths, where it is exact; otherwise scan the file.
    if not path.isascii():
        return False
    return any(p is not None and p.search(path) for p in allow)


def _path_rule_fires(path: str, rules: list[Pattern[str] | None]) -> bool:
    if not path.isascii():
        return bool(rules)
    return any(p is None or p.search(path) for p in rules)


def _too_large(text: str) -> bool:
    if len(text) > ONE_CHUNK:
        return True
    return not text.isascii() and len(text.encode("utf-8", "surrogateescape")) > ONE_CHUNK


def must_scan(summary: RuleSummary, fragments: Iterable[Fragment]) -> tuple[bool, str]:
    """Whether gitleaks could find something in FRAGMENTS, and why (for the record)."""
    # The allowlisted paths are compiled only for a fragment that would need a scan (most commits
    # hold no keyword, and compiling them cost more than the rest of the pre-check).
    allow: list[Pattern[str] | None] | None = None
    path_rules = _compiled(summary.path_rules, summary.translated) if summary.path_rules else []
    keywords = tuple(summary.keywords)
    for fragment in fragments:
        if path_rules and _path_rule_fires(fragment.path, path_rules):
            why = f"{fragment.path}: a path-only rule matches its name"
        elif summary.always:
            why = "the config has a rule without keywords"
        elif _too_large(fragment.text):
            why = f"{fragment.path}: too large to pre-check exactly"
        elif fragment_has_keyword(fragment.text, keywords):
            why = f"{fragment.path}: holds a rule keyword"
        else:
            continue
        if summary.allow_paths:
            if allow is None:
                allow = _compiled(summary.allow_paths, summary.translated)
            if _allowlisted(fragment.path, allow):
                continue
        return True, why
    return False, "no keyword of any rule in the lines to scan"
