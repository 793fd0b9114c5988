"""Where jouet keeps its configuration, state, cache and data.

Every directory can be moved by an environment variable, so tests (and users) never need the real
home directory:

    JOUET_CONFIG_DIR   else $XDG_CONFIG_HOME/jouet   else ~/.config/jouet
    JOUET_STATE_DIR    else $XDG_STATE_HOME/jouet    else ~/.local/state/jouet
    JOUET_CACHE_DIR    else $XDG_CACHE_HOME/jouet    else ~/.cache/jouet
    JOUET_DATA_DIR     else $XDG_DATA_HOME/jouet     else ~/.local/share/jouet
    JOUET_SYSTEM_DIR   else /etc/jouet               (enforced rules and the system's plugins)

Enforced rules are the exception: /etc/jouet always loads, whatever the environment says, and
JOUET_SYSTEM_DIR only adds a second system directory (system_dirs), so no variable can switch an
enforced rule off.
"""

from __future__ import annotations

import os


def _home() -> str:
    return os.path.expanduser("~")


def _dir(own: str, xdg: str, fallback: str) -> str:
    value = os.environ.get(own)
    if value:
        return value
    base = os.environ.get(xdg)
    if base and os.path.isabs(base):
        return os.path.join(base, "jouet")
    return os.path.join(_home(), fallback, "jouet")


def config_dir() -> str:
    return _dir("JOUET_CONFIG_DIR", "XDG_CONFIG_HOME", ".config")


def state_dir() -> str:
    return _dir("JOUET_STATE_DIR", "XDG_STATE_HOME", os.path.join(".local", "state"))


def cache_dir() -> str:
    return _dir("JOUET_CACHE_DIR", "XDG_CACHE_HOME", ".cache")


def data_dir() -> str:
    return _dir("JOUET_DATA_DIR", "XDG_DATA_HOME", os.path.join(".local", "share"))


# Where enforced rules always come from: no variable moves it (JOUET_SYSTEM_DIR adds a directory).
FIXED_SYSTEM_DIR = "/etc/jouet"


def system_dir() -> str:
    return os.environ.get("JOUET_SYSTEM_DIR") or FIXED_SYSTEM_DIR


def system_dirs() -> list[str]:
    """Every system directory enforced rules come from: /etc/jouet, then $JOUET_SYSTEM_DIR if it is
    another one. A variable can add enforced rules, never take /etc/jouet's away."""
    extra = os.environ.get("JOUET_SYSTEM_DIR")
    if extra and os.path.realpath(extra) != os.path.realpath(FIXED_SYSTEM_DIR):
        return [FIXED_SYSTEM_DIR, extra]
    return [FIXED_SYSTEM_DIR]


def user_rules_dir() -> str:
    return os.path.join(config_dir(), "rules")


def system_rules_dir() -> str:
    return os.path.join(system_dir(), "rules")


def config_file() -> str:
    return os.path.join(config_dir(), "config.toml")


def package_dir() -> str:
    return os.path.dirname(os.path.abspath(__file__))


def _shipped(name: str) -> str:
    """A directory shipped in the wheel (jouet_git/NAME), or the source checkout's top-level NAME/."""
    inside = os.path.join(package_dir(), name)
    if os.path.isdir(inside):
        return inside
    return os.path.join(os.path.dirname(package_dir()), name)


def builtin_rules_dir() -> str:
    return _shipped("rules")


def builtin_plugins_dir() -> str:
    return _shipped("plugins")


def private_dir(path: str) -> str | None:
    """Create PATH (mode 0700) if needed and return it, or None when someone else could write it.

    Used for caches whose content is trusted on load (compiled scripts, parsed rule sets).
    """
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        st = os.stat(path)
    except OSError:
        return None
    if st.st_uid != os.getuid() or st.st_mode & 0o022:
        return None
    return path
