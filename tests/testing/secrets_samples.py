"""Strings that match a gitleaks rule's regex, for differential tests of the secret pre-check.

gitleaks' patterns are Go RE2; they are translated to Python (jouet_git.gitleaks.goregex) and walked
with the standard library's regex parser to build random matching strings: uniformly random
characters from each class, so the samples have the entropy real secrets have and pass gitleaks'
entropy thresholds. Every sample is checked against the translated pattern before it is returned.
"""

from __future__ import annotations

import base64
import random
import re
import re._constants as sre_c  # type: ignore[import-not-found]
import re._parser as sre_parse  # type: ignore[import-not-found]
import string
import urllib.parse
from typing import Any

from jouet_git.gitleaks.goregex import Unsupported, compile_go, translate

SAFE = string.ascii_letters + string.digits
FILLER = SAFE + " -_./+=:"


class Generator:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def sample(self, go_pattern: str, tries: int = 60) -> str | None:
        """A string the Go pattern matches (searched), or None when none was found."""
        try:
            compiled = compile_go(go_pattern)
            tree = sre_parse.parse(translate(go_pattern), re.ASCII)
        except (Unsupported, re.error):
            return None
        for _ in range(tries):
            text = self._emit(tree, False)
            if compiled.search(text):
                return text
        return None

    def _emit(self, items: Any, icase: bool) -> str:
        return "".join(self._node(op, av, icase) for op, av in items)

    def _node(self, op: Any, av: Any, icase: bool) -> str:
        rng = self.rng
        if op is sre_c.LITERAL:
            c = chr(av)
            return rng.choice((c.lower(), c.upper())) if icase else c
        if op is sre_c.NOT_LITERAL:
            return rng.choice([c for c in FILLER if c != chr(av)])
        if op is sre_c.ANY:
            return rng.choice(FILLER)
        if op is sre_c.IN:
            return self._in(av, icase)
        if op is sre_c.BRANCH:
            return self._emit(rng.choice(av[1]), icase)
        if op is sre_c.SUBPATTERN:
            _group, add, remove, sub = av
            if add & sre_c.SRE_FLAG_IGNORECASE:
                icase = True
            if remove & sre_c.SRE_FLAG_IGNORECASE:
                icase = False
            return self._emit(sub, icase)
        if op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT, getattr(sre_c, "POSSESSIVE_REPEAT", None)):
            low, high, sub = av
            high = low + 6 if high == sre_c.MAXREPEAT else min(high, low + 40)
            if op is sre_c.MIN_REPEAT:
                high = min(high, low + 2)
            return "".join(self._emit(sub, icase) for _ in range(rng.randint(low, high)))
        if op is sre_c.AT:
            return ""
        raise ValueError(f"cannot generate {op}")

    def _in(self, items: Any, icase: bool) -> str:
        rng = self.rng
        negate = any(op is sre_c.NEGATE for op, _ in items)
        chars: set[str] = set()
        for op, av in items:
            if op is sre_c.LITERAL:
                chars.add(chr(av))
            elif op is sre_c.RANGE:
                low, high = av
                chars.update(chr(c) for c in range(low, min(high, 0x7E) + 1))
            elif op is sre_c.CATEGORY:
                chars.update({
                    sre_c.CATEGORY_DIGIT: string.digits, sre_c.CATEGORY_WORD: SAFE + "_",
                    sre_c.CATEGORY_SPACE: " \t", sre_c.CATEGORY_NOT_SPACE: FILLER,
                    sre_c.CATEGORY_NOT_DIGIT: string.ascii_letters, sre_c.CATEGORY_NOT_WORD: " -./+=:",
                }.get(av, ""))
        if negate:
            pool = [c for c in FILLER if c not in chars]
        else:
            printable = sorted(c for c in chars if c in string.printable and c not in "\x0b\x0c\r")
            pool = printable or sorted(chars)
        c = rng.choice(pool)
        return rng.choice((c.lower(), c.upper())) if icase and not negate else c


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def b64url(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def hexed(text: str) -> str:
    return text.encode().hex()


def percent(text: str) -> str:
    return "".join(f"%{b:02X}" for b in text.encode())


def percent_some(text: str) -> str:
    return urllib.parse.quote(text, safe="")


def unicode_escapes(text: str) -> str:
    return "".join(f"\\u{ord(c):04x}" for c in text)


def code_points(text: str) -> str:
    return " ".join(f"U+{ord(c):04X}" for c in text)


# (name, how a sample is written into a file); nested ones need several decoding passes.
ENCODINGS: list[tuple[str, Any]] = [
    ("plain", lambda s: s),
    ("base64", lambda s: f'data = "{b64(s)}"'),
    ("base64url", lambda s: f"data={b64url(s)}"),
    ("hex", lambda s: f"blob: {hexed(s)}"),
    ("percent", lambda s: f"url=https://x.test/?q={percent(s)}"),
    ("percent-some", lambda s: f"q={percent_some(s)}"),
    ("unicode", lambda s: f'u = "{unicode_escapes(s)}"'),
    ("codepoints", lambda s: code_points(s)),
    ("base64-base64", lambda s: b64(b64(s))),
    ("hex-base64", lambda s: f"x {hexed(b64(s))}"),
    ("percent-base64", lambda s: f"x={percent(b64(s))}"),
    ("base64-hex", lambda s: f"{b64(hexed(s))} tail"),
    ("base64x5", lambda s: b64(b64(b64(b64(b64(s)))))),
    # Runs that touch: the lower-precedence one waits for the next pass, and may then decode differently.
    ("hex+base64", lambda s: hexed(s) + "Zm9vYmFyYmF6cXV4eHl6"),
    ("base64+percent", lambda s: b64(s) + "%41%42"),
    ("percent+hex", lambda s: percent(s) + hexed("0123456789abcdef!")),
    ("unicode+base64", lambda s: unicode_escapes(s) + b64("touching text 123")),
    ("base64 hex-looking", lambda s: "0123456789abcdef0123456789abcdef" + b64(s)),
    ("base64x6", lambda s: b64(b64(b64(b64(b64(b64(s))))))),
]
