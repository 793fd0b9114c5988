"""jouet.env(name): the few environment variables a rule may read.

A rule may learn which agent, CI system or shell it runs under, never a credential. Anything off the
list is refused with an error, so a script that asks for it fails loudly instead of quietly reading
nil.
"""

from __future__ import annotations

from jouet_git.probes.core import ProbeError

ALLOWED = frozenset({
    "AI_AGENT", "CARGO_TARGET_DIR", "CI", "CLAUDECODE", "CODEX_SANDBOX", "GITHUB_ACTIONS",
    "GITHUB_BASE_REF", "GITHUB_HEAD_REF", "GITHUB_REF_NAME", "GITHUB_REPOSITORY", "LANG", "MISE_ENV",
    "NODE_ENV", "SHELL", "TERM", "USER", "VIRTUAL_ENV",
})
PREFIX = "JOUET_"
# Words that mark a credential: a name holding one is never readable, not even under JOUET_.
FORBIDDEN = ("TOKEN", "SECRET", "PASSWORD", "KEY")


def check(name: object) -> str:
    """NAME when a rule may read it; raises ProbeError saying why not otherwise."""
    if not isinstance(name, str):
        raise ProbeError(f"jouet.env: the name must be a string, not {type(name).__name__}")
    upper = name.upper()
    for word in FORBIDDEN:
        if word in upper:
            raise ProbeError(
                f"jouet.env: {name!r} is never readable by a rule: names holding {word} may carry a "
                "credential"
            )
    if name in ALLOWED or (name.startswith(PREFIX) and len(name) > len(PREFIX)):
        return name
    raise ProbeError(
        f"jouet.env: {name!r} is not on the allowlist; a rule may read {', '.join(sorted(ALLOWED))} "
        f"and {PREFIX}* variables"
    )
