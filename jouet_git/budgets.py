"""The time budgets jouet gives itself, and the one knob that widens them.

JOUET_BUDGET_SCALE, a number of 1 or more, multiplies every time budget on a hook's path: the
probes' 200 ms per check, a script's 50 ms, the secret scans' 5 s. It is for a machine so loaded
that git cannot start in time (and for the test suite, which runs many hooks at once on two
cores). It only ever gives more time: a value below 1, or one that is not a number, is ignored.
Instruction and memory budgets do not change.
"""

from __future__ import annotations

import os

PROBES = 0.2  # seconds the probes of one check share
SECRETS = 5.0  # seconds the secret scans of one hook call share
SCRIPT = 0.05  # seconds of a script's own work per check


def scale() -> float:
    try:
        value = float(os.environ.get("JOUET_BUDGET_SCALE", "") or 1)
    except ValueError:
        return 1.0
    return value if 1.0 <= value <= 1000.0 else 1.0


def probes() -> float:
    return PROBES * scale()


def secrets() -> float:
    return SECRETS * scale()


def script() -> float:
    return SCRIPT * scale()
