"""The person's last request in each session, as the host-neutral protocol hands it over.

    SESSION_DIR/prompts/SESSION_ID     one file per session, mode 0600, in a 0700 directory

SESSION_DIR is `--session-dir` of `jouet hook neutral`, by default `$JOUET_STATE_DIR/sessions`.
An input check that allows a prompt stores it (with any secret already replaced); a later check
of the same session reads it. jouet's rules see it on the Call's input (`jouet_prompt`); they do
not judge a call against it. Nothing is stored when JOUET_STORE_CONTENT=0.

Session ids reach this module only after the protocol's pattern (letters, digits, `.`, `_`, `-`,
starting with a letter or digit, at most 201 characters) has been checked, so an id is always a
plain file name.
"""

from __future__ import annotations

import os
import re

SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,200}")
MAX_PROMPT = 1 << 20  # characters kept of one prompt


def valid_session(value: object) -> str | None:
    """VALUE when it is a session id the protocol accepts, else None (ignored, not an error)."""
    if isinstance(value, str) and SESSION_ID.fullmatch(value) and value not in (".", ".."):
        return value
    return None


def session_dir(given: str | None) -> str:
    from jouet_git import paths

    return os.path.abspath(given) if given else os.path.join(paths.state_dir(), "sessions")


def _path(directory: str, session: str) -> str:
    return os.path.join(directory, "prompts", session)


def load(directory: str, session: str) -> str | None:
    """The stored prompt of SESSION, or None."""
    try:
        with open(_path(directory, session), encoding="utf-8", errors="replace") as f:
            return f.read(MAX_PROMPT)
    except OSError:
        return None


def save(directory: str, session: str, prompt: str) -> None:
    """Store PROMPT for SESSION (0600), unless JOUET_STORE_CONTENT=0; a full disk or a read-only
    directory is not an error."""
    from jouet_git.ledger import store_content
    from jouet_git.store import write_atomic

    if not store_content() or valid_session(session) is None:
        return
    folder = os.path.join(directory, "prompts")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        write_atomic(_path(directory, session), prompt[:MAX_PROMPT], 0o600, sync=False)
    except OSError:
        pass
