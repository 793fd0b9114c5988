"""Who may weaken git's hooks: a person in a terminal, never an agent session.

    policy = for_git_hook(os.environ)   # before anything reads jouet's directories
    policy.allow                        # the rules JOUET_ALLOW lets through (empty in an agent session)
    policy.disable_only                 # None, or the only rule names config.toml may switch off
    policy.notices                      # a line for each override ignored, for stderr
    policy.kept_on(names)               # the line for rules config.toml would have switched off

A person who disagrees with a rule can let one commit through with JOUET_ALLOW, switch rules off
with JOUET_RULES_DISABLE, or point jouet at other directories. Inside an agent session
(agentenv.in_agent_session: jouet's session variables or a harness's own marker) the same variables
could come from the agent, from a Python one-liner running `git commit` as easily as from a shell. So
there git's hooks ignore every one of them that would weaken the check, each with a line saying so:

- JOUET_ALLOW and JOUET_RULES_DISABLE: ignored.
- JOUET_GITLEAKS (another scanner), GITLEAKS_CONFIG and GITLEAKS_CONFIG_TOML (other allowlists):
  ignored (the scan's allowlists come from the last commit anyway).
- JOUET_CONFIG_DIR / XDG_CONFIG_HOME, JOUET_STATE_DIR / XDG_STATE_HOME, JOUET_DATA_DIR /
  XDG_DATA_HOME, JOUET_CACHE_DIR / XDG_CACHE_HOME pointing somewhere other than jouet's default
  place under the home directory: when the default place exists, they are ignored and the default is
  read (your settings, rules, trust records, claims, plugins). When it does not (a person who keeps
  jouet elsewhere for good), they are followed, but a config.toml found that way switches no rule off
  (`disable` only ever removes checks): its rules and plugins still run.
- JOUET_SYSTEM_DIR cannot switch enforced rules off anywhere: /etc/jouet always loads, and the
  variable only adds a directory (paths.py).

JOUET_BUDGET_SCALE only gives checks more time, and JOUET_STORE_CONTENT=0 only records less: both
stay. HOME is where the defaults are; an agent running git with another HOME is running opaque code
(README: what jouet does not stop).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import MutableMapping

# Variables that only ever weaken a check, and what each would have done.
_WEAKENING = (
    ("JOUET_ALLOW", "let a denied commit or push through"),
    ("JOUET_RULES_DISABLE", "switch rules off"),
    ("JOUET_GITLEAKS", "run another program as the secret scanner"),
    ("GITLEAKS_CONFIG", "give the secret scan another allowlist"),
    ("GITLEAKS_CONFIG_TOML", "give the secret scan another allowlist"),
)
# jouet's directories: (its own variable, the XDG one, the default below the home, what it holds).
_PLACES = (
    ("JOUET_CONFIG_DIR", "XDG_CONFIG_HOME", ".config", "settings and rules"),
    ("JOUET_STATE_DIR", "XDG_STATE_HOME", os.path.join(".local", "state"), "trust records and claims"),
    ("JOUET_DATA_DIR", "XDG_DATA_HOME", os.path.join(".local", "share"), "plugins"),
    ("JOUET_CACHE_DIR", "XDG_CACHE_HOME", ".cache", "caches"),
)


class Policy:
    __slots__ = ("agent", "allow", "disable_only", "moved_config", "notices")

    def __init__(self) -> None:
        self.agent = False  # the environment shows an agent session
        self.allow: frozenset[str] = frozenset()
        self.disable_only: frozenset[str] | None = None
        self.notices: list[str] = []
        self.moved_config = ""  # why config.toml's `disable` is not followed

    def kept_on(self, names: list[str]) -> list[str]:
        """The line saying that NAMES run although the moved config.toml switches them off."""
        if not names or not self.moved_config:
            return []
        return [f"jouet: {', '.join(sorted(names))} {'stays' if len(names) == 1 else 'stay'} on: "
                f"{self.moved_config}"]


def for_git_hook(environ: MutableMapping[str, str]) -> Policy:
    """The override policy of one git hook run; in an agent session, ENVIRON (os.environ) loses the
    variables it must not follow, so everything after (paths.py, gitleaks' own environment) obeys."""
    from jouet_git.agentenv import agent_marker
    from jouet_git.engine.runner import allow_from

    policy = Policy()
    marker = agent_marker(environ)
    if marker is None:
        policy.allow = allow_from(environ)
        return policy
    policy.agent = True
    why = f"this git hook runs inside an agent session ({marker} is set)"
    for name, would in _WEAKENING:
        value = environ.pop(name, None)
        if value:
            policy.notices.append(f"jouet: {name} is ignored: {why}, and it would {would}. A person lets a "
                                  "commit through from their own terminal.")
    home = environ.get("HOME") or os.path.expanduser("~")
    for own, xdg, fallback, what in _PLACES:
        default = os.path.join(home, fallback, "jouet")
        named, moved = _moved(environ, own, xdg, default)
        if not moved:
            continue
        if os.path.isdir(default):
            for name in (own, xdg):
                environ.pop(name, None)
            policy.notices.append(f"jouet: {named} is ignored: {why}; jouet's {what} are read from {default}, "
                                  "where they are by default.")
        elif own == "JOUET_CONFIG_DIR":
            policy.disable_only = frozenset()
            policy.moved_config = (f"{named} moves jouet's settings and {why}: the rules and plugins found there "
                                   "run, but its config.toml switches no rule off.")
    return policy


def _moved(environ: MutableMapping[str, str], own: str, xdg: str, default: str) -> tuple[str, bool]:
    """(the variable that places the directory, whether it lies somewhere other than DEFAULT)."""
    value = environ.get(own)
    name = own
    if not value:
        base = environ.get(xdg)
        if not base or not os.path.isabs(base):
            return own, False
        value, name = os.path.join(base, "jouet"), xdg
    return name, os.path.realpath(value) != os.path.realpath(default)
