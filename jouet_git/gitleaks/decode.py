"""Decode text the way gitleaks 8 does before it scans it again.

gitleaks scans each fragment, then finds encoded runs in it (percent, unicode escapes, hex,
base64), replaces each run it can decode with the decoded text, and scans the result again, up to
`--max-decode-depth` passes (5 by default). A rule's keywords are looked for in every pass, so the
pre-check must see the same decoded text. This module reproduces gitleaks' decoder step for step:
the same patterns (translated from Go), the same precedence when two runs touch, and the same rules
for what counts as decoded (printable ASCII, at least one likely character).

Text is a Python str; bytes that are not UTF-8 are carried as surrogate escapes, so that one bad
byte is one character, as it is one rune to Go's regular expressions.
"""

from __future__ import annotations

import re

MAX_DECODE_DEPTH = 5

# The four encodings, in gitleaks' order; earlier ones take precedence when two matches touch.
_ENCODINGS_SOURCE = (
    r"(?P<percent>%[0-9A-Fa-f]{2}(?:.*%[0-9A-Fa-f]{2})?)"
    r"|(?P<unicode>(?:(?:U\+[a-fA-F0-9]{4}(?:[\t\n\f\r ]|\Z))+|(?i:(?:\\{1,2}u[a-fA-F0-9]{4})+)))"
    r"|(?P<hex>[0-9A-Fa-f]{32,})"
    r"|(?P<base64>[0-9A-Za-z_/+-]{16,}={0,2})"
)
_ENCODINGS: list[re.Pattern[str]] = []  # compiled on first need (see _encodings)
_PRECEDENCE = {"percent": 4, "unicode": 3, "hex": 2, "base64": 1}

# These are compiled on first use (re's own cache keeps them): most text holds nothing encoded.
_UNICODE_CODE_POINTS = r"(?:U\+[a-fA-F0-9]{4}(?:[\t\n\f\r ]|\Z))+"
_UNICODE_ESCAPES = r"(?i:(?:\\{1,2}u[a-fA-F0-9]{4})+)"
_UNICODE_ESCAPE = r"(?i:\\{1,2}u([a-fA-F0-9]{4}))"

_STD_BASE64 = r"[A-Za-z0-9+/]*={0,2}\Z"
_URL_BASE64 = r"[A-Za-z0-9_-]*\Z"
_HEX_VALUES = {c: int(c, 16) for c in "0123456789abcdefABCDEF"}
_PRINTABLE = bytes(range(9, 127))  # what gitleaks calls printable ASCII: \t through ~
_LIKELY_BASE64 = frozenset("0123456789+/-_")
_DIGITS = frozenset("0123456789")


def _encodings(text: str) -> re.Pattern[str] | None:
    """The pattern of the four encodings, or None when TEXT cannot hold any of them.

    Compiling the pattern costs more than a keyword-free commit's whole pre-check, so until some
    text needs it, a text is first looked at without it (precheck.may_hold_encoding)."""
    if not _ENCODINGS:
        from jouet_git.gitleaks.precheck import may_hold_encoding

        if not may_hold_encoding(text):
            return None
        _ENCODINGS.append(re.compile(_ENCODINGS_SOURCE))
    return _ENCODINGS[0]


def decode_pass(text: str) -> tuple[str, int]:
    """One decoding pass over TEXT: the text with every decodable run replaced, and how many runs."""
    pattern = _encodings(text)
    if pattern is None:
        return text, 0
    found = [(m.start(), m.end(), m.lastgroup or "") for m in pattern.finditer(text)]
    if not found:
        return text, 0
    kept = _drop_touching(found)
    parts: list[str] = []
    done = 0
    count = 0
    for start, end, kind in kept:
        decoded = _DECODERS[kind](text[start:end])
        if not decoded:
            continue
        parts.append(text[done:start])
        parts.append(decoded)
        done = end
        count += 1
    if not count:
        return text, 0
    parts.append(text[done:])
    return "".join(parts), count


def encoded_runs(text: str) -> list[tuple[int, int]]:
    """Where TEXT holds runs gitleaks' decoder would try to decode, as (start, end) offsets."""
    pattern = _encodings(text)
    return [] if pattern is None else [(m.start(), m.end()) for m in pattern.finditer(text)]


def _drop_touching(found: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Leave a run for the next pass when it touches a neighbour of a higher-precedence encoding."""
    if len(found) == 1:
        return found
    kept = []
    last = len(found) - 1
    for i, (start, end, kind) in enumerate(found):
        rank = _PRECEDENCE[kind]
        if i > 0:
            p_start, p_end, p_kind = found[i - 1]
            if p_start <= end and p_end >= start and _PRECEDENCE[p_kind] > rank:
                continue
        if i < last:
            n_start, n_end, n_kind = found[i + 1]
            if n_start <= end and n_end >= start and _PRECEDENCE[n_kind] > rank:
                continue
        kept.append((start, end, kind))
    return kept


def _printable(data: bytes) -> bool:
    return not data.translate(None, _PRINTABLE)


def _to_text(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def decode_percent(value: str) -> str:
    """%XX escapes decoded in place; other characters kept; '' when one decodes to a non-printable."""
    data = value.encode("utf-8", "surrogateescape")
    out = bytearray()
    i = 0
    size = len(data)
    while i < size:
        if data[i] == 0x25 and i + 2 < size:
            high = _HEX_VALUES.get(chr(data[i + 1]))
            low = _HEX_VALUES.get(chr(data[i + 2]))
            if high is not None and low is not None:
                byte = high << 4 | low
                if not 9 <= byte <= 126:
                    return ""
                out.append(byte)
                i += 3
                continue
        out.append(data[i])
        i += 1
    return _to_text(bytes(out))


def decode_hex(value: str) -> str:
    if len(value) % 2 or not _DIGITS.intersection(value):
        return ""
    data = bytes.fromhex(value)
    return _to_text(data) if _printable(data) else ""


def decode_base64(value: str) -> str:
    if not _LIKELY_BASE64.intersection(value):
        return ""
    import binascii

    if len(value) % 4 == 0 and re.match(_STD_BASE64, value):
        try:
            data = binascii.a2b_base64(value.encode("ascii"))
        except (binascii.Error, ValueError):
            data = None
        if data is not None and _printable(data):
            return _to_text(data)
    if len(value) % 4 != 1 and re.match(_URL_BASE64, value):
        padded = value.replace("-", "+").replace("_", "/") + "=" * (-len(value) % 4)
        try:
            data = binascii.a2b_base64(padded.encode("ascii"))
        except (binascii.Error, ValueError):
            return ""
        if _printable(data):
            return _to_text(data)
    return ""


def decode_unicode(value: str) -> str:
    """U+XXXX sequences (whitespace-separated) or \\uXXXX escapes turned into the characters."""
    runs = re.findall(_UNICODE_CODE_POINTS, value)
    if runs:
        for run in runs:
            fields = [f for f in run.split() if f.startswith("U+") and len(f) >= 6]
            chars = "".join(_rune(field[2:]) for field in fields)
            if chars and chars != run:
                value = value.replace(run, chars, 1)
        return value
    runs = re.findall(_UNICODE_ESCAPES, value)
    for run in runs:
        chars = "".join(_rune(digits) for digits in re.findall(_UNICODE_ESCAPE, run))
        if chars and chars != run:
            value = value.replace(run, chars, 1)
    # A run the combined pattern found always matches one of the two above, so gitleaks' fallback
    # (decoding lone escapes one by one) never applies to it.
    return value


def _rune(digits: str) -> str:
    try:
        point = int(digits, 16)
    except ValueError:
        return ""
    if 0xD800 <= point <= 0xDFFF:
        return "\ufffd"  # Go turns a surrogate code point into the replacement character
    return chr(point)


_DECODERS = {
    "percent": decode_percent,
    "unicode": decode_unicode,
    "hex": decode_hex,
    "base64": decode_base64,
}
