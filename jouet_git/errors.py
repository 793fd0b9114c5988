"""Errors a command reports to the user, and the exit codes scripts can rely on."""

from __future__ import annotations

# Exit codes shared by every command.
OK = 0
FOUND = 1  # a deny, a failed example, a held claim: the answer is "no"
USAGE = 2  # bad arguments, unreadable input, a file that does not load


class JouetError(Exception):
    """An error with a message meant for a person: what is wrong, where, and what to do."""

    def __init__(self, message: str, code: int = USAGE) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
