"""Read-only answers about the work tree for rule scripts: git, files, stacks, secrets, claims."""

from __future__ import annotations

import os

# A budget can be raised, never lowered, from the environment: for a slow or loaded machine, and
# for test suites that must not depend on how busy the machine is. No setting can make a probe give
# up sooner (and a rule fall silent); the cap keeps a hook from waiting without end.
MAX_RAISED = 120.0


def budget(default: float, variable: str) -> float:
    """DEFAULT seconds, or the larger number of seconds VARIABLE holds (at most MAX_RAISED)."""
    try:
        asked = float(os.environ.get(variable, ""))
    except ValueError:
        return default
    return min(max(default, asked), max(default, MAX_RAISED))
