"""Atomic replacement: the mode asked for, nothing left behind, the old file kept on failure."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from jouet_git.fsutil import write_atomic


def test_replaces_with_the_mode_asked_for(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    path.write_text("old")
    os.chmod(path, 0o644)
    write_atomic(str(path), "new")
    assert path.read_text() == "new"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    write_atomic(str(path), b"\x00bytes", 0o755, sync=False)
    assert path.read_bytes() == b"\x00bytes" and stat.S_IMODE(path.stat().st_mode) == 0o755
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.json"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    path.write_text("old")
    with pytest.raises(TypeError):
        write_atomic(str(path), 42)  # type: ignore[arg-type]
    assert path.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.json"]
    with pytest.raises(FileNotFoundError):
        write_atomic(str(tmp_path / "missing" / "x"), "data")
