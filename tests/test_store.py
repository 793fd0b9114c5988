"""State files: atomic replacement (the mode asked for, nothing left behind, the old file kept on
failure), and one behaviour for a store gone bad: set aside, said once, read as empty."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from testing import make_repo, run_jouet

from jouet_git.store import Corrupt, TooNew, decode_json, load, update, write_atomic


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


def _parse(data: bytes) -> dict[str, object]:
    value = decode_json(data)
    if not isinstance(value, dict):
        raise Corrupt("not an object")
    if value.get("version", 1) > 1:  # type: ignore[operator]
        raise TooNew("written by a newer jouet: upgrade jouet")
    return value


def test_a_missing_store_reads_empty(tmp_path: Path) -> None:
    assert load(str(tmp_path / "none.json"), _parse, dict, "test store") == {}
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("garbage", [b"\xff\xfe\x00garbage", b"{not json", b"[1, 2]", b""])
def test_a_bad_store_is_set_aside_said_once_and_read_empty(tmp_path: Path, garbage: bytes,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.json"
    path.write_bytes(garbage)
    assert load(str(path), _parse, dict, "test store") == {}
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "test store" in err and "kept it as" in err and "Traceback" not in err
    [aside] = tmp_path.glob("s.json.corrupt-*")
    assert aside.read_bytes() == garbage
    assert not path.exists()
    # A second bad file at the same place in the same process is set aside too, but not said again.
    path.write_bytes(garbage)
    assert load(str(path), _parse, dict, "test store") == {}
    assert capsys.readouterr().err == ""
    assert len(list(tmp_path.glob("s.json.corrupt-*"))) == 2


def test_a_newer_store_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text('{"version": 9}')
    with pytest.raises(TooNew):
        load(str(path), _parse, dict, "test store")
    assert path.read_text() == '{"version": 9}'


def test_update_sets_a_bad_store_aside_and_writes_the_change(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.json"
    path.write_bytes(b"\x00\x01")
    update(str(path), _parse, dict, json.dumps, lambda d: d.update(a=1), "test store")
    assert json.loads(path.read_text()) == {"a": 1}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert "kept it as" in capsys.readouterr().err
    # CHANGE returning False writes nothing; an exception in it leaves the file as it was.
    update(str(path), _parse, dict, json.dumps, lambda d: False, "test store")
    with pytest.raises(RuntimeError):
        update(str(path), _parse, dict, json.dumps, _boom, "test store")
    assert json.loads(path.read_text()) == {"a": 1}


def _boom(data: dict[str, object]) -> None:
    data["b"] = 2
    raise RuntimeError("boom")


# Each store's own command, given garbage bytes: it says so once, keeps the file aside, and works.
GARBAGE = b"\xff\xfe{garbage\x00"


def test_the_trust_file_gone_bad(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {".jouet/rules/a.toml": "# nothing yet\n"})
    state = Path(os.environ["JOUET_STATE_DIR"])
    state.mkdir(parents=True, exist_ok=True)
    (state / "trust.json").write_bytes(GARBAGE)
    proc = run_jouet("trust", "--show", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and "trust file" in proc.stderr and "kept it as" in proc.stderr
    assert [p.read_bytes() for p in state.glob("trust.json.corrupt-*")] == [GARBAGE]


def test_the_claims_store_gone_bad(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    claims = Path(os.environ["JOUET_STATE_DIR"]) / "claims"
    first = run_jouet("claim", "src/", "--session", "s1", cwd=repo)
    assert first.returncode == 0, first.stderr
    [store] = claims.glob("*.json")
    store.write_bytes(GARBAGE)
    listed = run_jouet("claim", "ls", "--json", cwd=repo)
    assert listed.returncode == 0, listed.stderr
    assert "Traceback" not in listed.stderr and "claims store" in listed.stderr
    assert json.loads(listed.stdout) == []
    again = run_jouet("claim", "src/", "--session", "s1", cwd=repo)
    assert again.returncode == 0, again.stderr
    assert [p.read_bytes() for p in claims.glob("*.corrupt-*")] == [GARBAGE]


def test_config_toml_gone_bad_is_reported_not_moved(tmp_path: Path) -> None:
    config = Path(os.environ["JOUET_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_bytes(b"[rules\n" + GARBAGE)
    proc = run_jouet("plugin", "add", "protected-branches", "--yes", cwd=tmp_path)
    assert proc.returncode != 0
    assert "config.toml" in proc.stderr and "Traceback" not in proc.stderr
    assert (config / "config.toml").read_bytes() == b"[rules\n" + GARBAGE
