"""jouet.file.contains() and jouet.env(): what a rule may learn about files and the environment."""

from __future__ import annotations

import ast
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from testing import run_as_nobody

from jouet_git.probes.core import ProbeError, Probes
from jouet_git.probes.files import MAX_BYTES


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "no-tags.toml").write_text('[[rule]]\nname = "no-tags"\nmode = "deny"\n')
    return tmp_path


def test_true_or_false_only(work: Path) -> None:
    p = Probes(str(work))
    assert p.file_contains("rules/no-tags.toml", 'mode = "deny"') == (True, None)
    assert p.file_contains("rules/no-tags.toml", 'mode = "warn"') == (False, None)
    assert p.file_contains(str(work / "rules" / "no-tags.toml"), "no-tags") == (True, None)


def test_relative_to_the_calls_directory(work: Path) -> None:
    assert Probes(str(work / "rules")).file_contains("no-tags.toml", "deny") == (True, None)
    assert Probes(str(work / "rules")).file_contains("../rules/./no-tags.toml", "deny") == (True, None)


@pytest.mark.parametrize("prefix", ["~", "$HOME", "${HOME}"])
def test_home_prefixes(work: Path, prefix: str) -> None:
    home = Path(os.environ["HOME"])
    (home / ".config" / "jouet" / "rules").mkdir(parents=True)
    (home / ".config" / "jouet" / "rules" / "mine.toml").write_text('mode = "deny"\n')
    assert Probes(str(work)).file_contains(f"{prefix}/.config/jouet/rules/mine.toml", "deny") == (True, None)


def test_a_missing_file(work: Path) -> None:
    value, reason = Probes(str(work)).file_contains("nope.toml", "x")
    assert value is None and reason == f"no such file: {work / 'nope.toml'}"


def test_a_directory(work: Path) -> None:
    value, reason = Probes(str(work)).file_contains("rules", "x")
    assert value is None and reason is not None and "is a directory" in reason


def test_a_fifo_is_not_opened(work: Path) -> None:
    os.mkfifo(work / "pipe")
    value, reason = Probes(str(work)).file_contains("pipe", "x")  # would block forever if opened
    assert value is None and reason is not None and "not a regular file" in reason


def test_an_unreadable_file() -> None:
    # A directory any user can enter, holding a file only its owner could read (mode 0).
    base = Path(tempfile.mkdtemp(prefix="jouet-unreadable-"))
    try:
        os.chmod(base, 0o755)
        secret = base / "locked.txt"
        secret.write_text("x")
        secret.chmod(0)
        if os.geteuid() != 0:
            value, reason = Probes(str(base)).file_contains("locked.txt", "x")
        else:
            # root reads any file: ask as an unprivileged user instead
            code = ("from jouet_git.probes.core import Probes\n"
                    f"print(repr(Probes({str(base)!r}).file_contains('locked.txt', 'x')))\n")
            proc = run_as_nobody(code, base, {"PATH": os.environ["PATH"], "HOME": str(base)})
            assert proc.returncode == 0, proc.stderr
            value, reason = ast.literal_eval(proc.stdout.strip())
        assert value is None and reason is not None and "cannot read" in reason and "Permission denied" in reason
    finally:
        shutil.rmtree(base)


def test_the_4_mib_limit(work: Path) -> None:
    (work / "at-limit.bin").write_bytes(b"a" * (MAX_BYTES - 6) + b"needle")
    (work / "over-limit.bin").write_bytes(b"a" * MAX_BYTES + b"needle")
    p = Probes(str(work))
    assert p.file_contains("at-limit.bin", "needle") == (True, None)
    value, reason = p.file_contains("over-limit.bin", "needle")
    assert value is None and reason is not None and "over 4 MiB" in reason


def test_unicode_text(work: Path) -> None:
    (work / "u.txt").write_text("café ☕\n", encoding="utf-8")
    assert Probes(str(work)).file_contains("u.txt", "é ☕") == (True, None)


def test_answers_are_cached(work: Path) -> None:
    p = Probes(str(work))
    assert p.file_contains("rules/no-tags.toml", "deny") == (True, None)
    (work / "rules" / "no-tags.toml").write_text("changed")
    assert p.file_contains("rules/no-tags.toml", "deny") == (True, None)  # same hook call: kept
    assert Probes(str(work)).file_contains("rules/no-tags.toml", "deny") == (False, None)


def test_arguments_must_be_strings(work: Path) -> None:
    with pytest.raises(ProbeError, match="text must be a string, not nil"):
        Probes(str(work)).file_contains("rules/no-tags.toml", None)  # type: ignore[arg-type]


# -- env ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["CI", "USER", "SHELL", "GITHUB_REPOSITORY", "VIRTUAL_ENV", "JOUET_MODE"])
def test_allowed_variables(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str) -> None:
    monkeypatch.setenv(name, "value-of-" + name)
    assert Probes(str(tmp_path)).env(name) == ("value-of-" + name, None)


def test_an_allowed_variable_that_is_not_set(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("CI", raising=False)
    assert Probes(str(tmp_path)).env("CI") == (None, "CI is not set")


@pytest.mark.parametrize("name", [
    "GITHUB_TOKEN", "JOUET_TOKEN", "JOUET_API_KEY", "JOUET_SECRET_THING", "JOUET_PASSWORD",
    "AWS_SECRET_ACCESS_KEY", "jouet_token", "MY_KEYRING",
])
def test_credential_names_are_never_readable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                             name: str) -> None:
    monkeypatch.setenv(name, "hunter2")
    with pytest.raises(ProbeError, match="never readable") as raised:
        Probes(str(tmp_path)).env(name)
    assert "hunter2" not in str(raised.value)


@pytest.mark.parametrize("name", ["HOME", "PATH", "EDITOR", "JOUET_", "user", "GITHUB_SHA", ""])
def test_names_off_the_list_are_errors(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str) -> None:
    with pytest.raises(ProbeError, match="not on the allowlist"):
        Probes(str(tmp_path)).env(name)


def test_a_name_must_be_a_string(tmp_path: Path) -> None:
    with pytest.raises(ProbeError, match="must be a string"):
        Probes(str(tmp_path)).env(3)  # type: ignore[arg-type]
