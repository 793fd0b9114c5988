"""What a rule says, made safe to show: the agent and the person read it as jouet's own words.

    from jouet_git.engine.messages import clean

    text = clean(outcome.message)

A rule's message comes from its TOML file or from its script, and a script can build any string.
clean() makes sure that what reaches the agent, the terminal and the ledger:

- is valid text: lone surrogates become U+FFFD, and control characters other than newline and tab
  (terminal escapes that could rewrite or hide a line, NUL, DEL, C1 codes) become U+FFFD too;
  invisible format characters (zero-width spaces and joiners, direction overrides) are removed;
- cannot pass for another rule's words: every `[jouet rule: NAME]` in it, however it is spelled
  (any case, extra spaces, full-width brackets or letters, invisible characters in between), loses
  its brackets, because jouet appends the one true tag itself (Finding.text);
- is at most MAX_CHARS characters long, with a note saying it was cut and how long it was.

This module is on the hook's path: it imports only `re` at load, and `unicodedata` only for a
message that is not plain ASCII.
"""

from __future__ import annotations

import re

__all__ = ["MAX_CHARS", "clean"]

MAX_CHARS = 2000

# C0 controls but tab and newline, DEL, and C1 controls.
_CONTROLS = "[\x00-\x08\x0b-\x1f\x7f-\x9f]"
# A rule tag as Finding.text writes it, spelled loosely; matched after NFKC folding.
_TAG = r"\[(\s*jouet[\s_-]*rule\s*:[^\]\n]*)\]?"
_compiled: dict[str, re.Pattern[str]] = {}


def _pattern(source: str) -> re.Pattern[str]:
    found = _compiled.get(source)
    if found is None:
        found = _compiled[source] = re.compile(source, re.IGNORECASE)
    return found


def clean(message: str) -> str:
    """MESSAGE as it may be shown: valid, without a rule tag of its own, and not too long."""
    text = message
    if not text.isascii():
        text = _fold(text)
    # Most messages are plain printable text without a tag: no expression is compiled for them.
    if not (text.isascii() and text.replace("\n", "").replace("\t", "").isprintable()):
        text = _pattern(_CONTROLS).sub("\ufffd", text)
    if "[" in text and "jouet" in text.lower():
        text = _pattern(_TAG).sub(_untag, text)
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS].rstrip() + f" [... cut by jouet: the message was {len(text)} characters]"
    return text


def _fold(text: str) -> str:
    """Valid text in NFKC form (full-width brackets and letters become plain ones), without
    invisible format characters."""
    import unicodedata

    text = text.encode("utf-8", "replace").decode("utf-8")
    text = unicodedata.normalize("NFKC", text)
    return "".join(ch for ch in text if unicodedata.category(ch) != "Cf")


def _untag(match: re.Match[str]) -> str:
    return "(" + match.group(1).strip() + ")"
