"""Every test runs with jouet's directories, HOME and git's global config in a temporary place."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

_DIRS = ("JOUET_CONFIG_DIR", "JOUET_STATE_DIR", "JOUET_CACHE_DIR", "JOUET_DATA_DIR")


def pytest_configure(config: pytest.Config) -> None:
    """Code that runs while tests are collected (a skip marker that looks for gitleaks, which checks
    and remembers the bundled binary) gets jouet directories of its own, never the real home's."""
    base = tempfile.mkdtemp(prefix="jouet-collect-")
    atexit.register(shutil.rmtree, base, True)
    for name in _DIRS:
        os.environ[name] = os.path.join(base, name.lower())
    # gitleaks' default config is generated beside the sources on first use (jouet_git/gitleaks/default.py):
    # made here, once, so that no test depends on whether an earlier one made it (or hid gitleaks first).
    from jouet_git.gitleaks import default

    default.head()


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    base = tmp_path_factory.mktemp("jouet-env")
    home = base / "home"
    home.mkdir()
    for name, sub in (
        ("JOUET_CONFIG_DIR", "config"),
        ("JOUET_STATE_DIR", "state"),
        ("JOUET_CACHE_DIR", "cache"),
        ("JOUET_DATA_DIR", "data"),
        ("JOUET_SYSTEM_DIR", "system"),
        ("XDG_CONFIG_HOME", "xdg-config"),
        ("XDG_STATE_HOME", "xdg-state"),
        ("XDG_CACHE_HOME", "xdg-cache"),
        ("XDG_DATA_HOME", "xdg-data"),
    ):
        monkeypatch.setenv(name, str(base / sub))
    monkeypatch.setenv("HOME", str(home))
    # Many hooks run at once on a small machine: give probes and scripts time enough that a loaded
    # machine never decides a test. Tests of the budgets themselves set their own.
    monkeypatch.setenv("JOUET_BUDGET_SCALE", "25")
    gitconfig = home / ".gitconfig"
    gitconfig.write_text("[user]\n\tname = Test\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for name in ("JOUET_RULES_DISABLE", "JOUET_SESSION_ID", "JOUET_ALLOW", "JOUET_RULES_NETWORK", "JOUET_STORE_CONTENT",
                 "CLAUDE_CONFIG_DIR", "CODEX_HOME", "COPILOT_HOME", "CLINE_DIR",
                 "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "PRE_COMMIT"):
        monkeypatch.delenv(name, raising=False)
    # Tests may run inside an agent's shell: each says itself whether it plays an agent or a person.
    from jouet_git.agentenv import MARKERS

    for name in (*MARKERS, "CURSOR_TRACE_ID"):
        monkeypatch.delenv(name, raising=False)
    yield base
