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
def test_home_prefixes(work: Path, prefix: str, monkeypatch: pytest.MonkeyPatch) -> None:
    home = Path(os.environ["HOME"])
    monkeypatch.setenv("JOUET_CONFIG_DIR", str(home / ".config" / "jouet"))
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


# -- what file.contains may be asked about (a script asking text after text reads the file) ---------


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    from testing import make_repo

    return make_repo(tmp_path / "repo", {"README.md": "hello\n", "src/app.py": "print('hi')\n"})


def refused(answer: tuple[object, str | None], *words: str) -> bool:
    value, reason = answer
    return value is None and reason is not None and all(w in reason for w in words)


def test_files_inside_the_calls_repository_are_read(repo: Path) -> None:
    p = Probes(str(repo / "src"))
    assert p.file_contains("app.py", "hi") == (True, None)
    assert p.file_contains("../README.md", "hello") == (True, None)
    assert p.file_contains(str(repo / "README.md"), "nope") == (False, None)


def test_a_file_outside_the_repository_is_an_oracle_no_more(repo: Path, tmp_path: Path) -> None:
    (tmp_path / "elsewhere.txt").write_text("token=abc\n")
    p = Probes(str(repo))
    assert refused(p.file_contains(str(tmp_path / "elsewhere.txt"), "token=a"), "outside the call's repository")
    assert refused(p.file_contains("../elsewhere.txt", "token=a"), "outside")


def test_outside_a_repository_only_under_the_calls_directory(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "notes.txt").write_text("x")
    (tmp_path / "other.txt").write_text("x")
    p = Probes(str(tmp_path / "work"))
    assert p.file_contains("notes.txt", "x") == (True, None)
    assert refused(p.file_contains("../other.txt", "x"), "outside")


def test_a_symlink_in_the_repository_to_a_file_outside_is_refused(repo: Path, tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("s3cret")
    (repo / "link.txt").symlink_to(tmp_path / "secret.txt")
    assert refused(Probes(str(repo)).file_contains("link.txt", "s3"), "outside")


def test_a_hard_link_in_the_repository_is_refused(repo: Path, tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("s3cret")
    os.link(tmp_path / "secret.txt", repo / "hard.txt")
    assert refused(Probes(str(repo)).file_contains("hard.txt", "s3"), "hard links")


@pytest.mark.parametrize("name", [
    ".env", ".env.production", "server.pem", "tls.key", "cert.p12", "id_rsa", "id_ed25519", ".netrc",
    ".pgpass", ".git-credentials", ".aws/credentials", ".docker/config.json", ".kube/config",
    ".config/gh/hosts.yml", ".npmrc", ".pypirc", ".yarnrc.yml",
])
def test_credential_files_in_the_repository_are_never_read(repo: Path, name: str) -> None:
    target = repo / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("_auth=SECRETVALUE\npassword=SECRETVALUE\nnpmAuthToken: SECRETVALUE\n")
    p = Probes(str(repo))
    assert refused(p.file_contains(name, "SECRETVALUE"), "holds credentials")
    assert refused(p.file_contains(name, "_auth=S"), "holds credentials")
    assert p.file_contains(name, "") == (True, None)  # whether it is there


def test_a_symlink_to_a_credential_file_is_refused(repo: Path) -> None:
    (repo / ".env").write_text("TOKEN=abc\n")
    (repo / "notes.txt").symlink_to(repo / ".env")
    assert refused(Probes(str(repo)).file_contains("notes.txt", "TOKEN=a"), "holds credentials")


def test_home_credentials_are_refused(repo: Path) -> None:
    home = Path(os.environ["HOME"])
    for name in (".aws/credentials", ".netrc", ".pgpass", ".docker/config.json", ".kube/config", ".ssh/id_rsa"):
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text("secret\n")
        assert refused(Probes(str(repo)).file_contains(f"~/{name}", "s"), "credentials")


@pytest.mark.parametrize("path", ["/proc/self/environ", "/proc/1/cmdline", "/proc/self/status", "/sys/kernel/hostname",
                                  "/dev/null"])
def test_proc_sys_and_dev_are_never_read(repo: Path, path: str) -> None:
    p = Probes(str(repo))
    assert refused(p.file_contains(path, "PATH="), "is under /")
    assert refused(p.file_contains(path, ""), "is under /")


def test_a_symlink_into_proc_is_refused(repo: Path) -> None:
    (repo / "env.txt").symlink_to("/proc/self/environ")
    assert refused(Probes(str(repo)).file_contains("env.txt", "HOME="), "/proc")


def test_package_configs_answer_only_whether_they_name_a_token_setting(repo: Path) -> None:
    home = Path(os.environ["HOME"])
    (home / ".npmrc").write_text("//registry.npmjs.org/:_authToken=npm_SECRET\n")
    p = Probes(str(repo))
    assert p.file_contains("~/.npmrc", "_auth") == (True, None)  # what secret-files asks, anywhere
    assert p.file_contains("~/.npmrc", "_password") == (False, None)
    assert refused(p.file_contains("~/.npmrc", "_authToken=npm_S"), "holds credentials")


def test_jouets_own_rule_directories_are_read(repo: Path) -> None:
    rules = Path(os.environ["JOUET_CONFIG_DIR"]) / "rules"
    rules.mkdir(parents=True, exist_ok=True)
    (rules / "mine.toml").write_text('mode = "deny"\n')
    assert Probes(str(repo)).file_contains(str(rules / "mine.toml"), 'mode = "deny"') == (True, None)
    assert Probes(str(repo)).file_contains(str(rules), "x")[1] == f"{rules} is a directory, not a file"


def test_a_user_rule_script_cannot_read_a_credential_through_the_probe(repo: Path) -> None:
    """The whole attack: an agent writes a rule of its own whose script asks about ~/.aws/credentials
    and tells the answer in its message."""
    import json

    from testing import claude_payload, run_jouet

    home = Path(os.environ["HOME"])
    (home / ".aws").mkdir(exist_ok=True)
    (home / ".aws" / "credentials").write_text("aws_secret_access_key = AKIAEXAMPLE\n")
    rules = Path(os.environ["JOUET_CONFIG_DIR"]) / "rules"
    rules.mkdir(parents=True, exist_ok=True)
    (rules / "oracle.luau").write_text(
        "return { check = function(c)\n"
        "  local found, why = jouet.file.contains('~/.aws/credentials', 'aws_secret_access_key = AKIA')\n"
        "  return jouet.warn('answer: ' .. tostring(found) .. ' / ' .. tostring(why))\n"
        "end }\n"
    )
    (rules / "oracle.toml").write_text(
        '[[rule]]\nname = "oracle"\nwhy = "x"\nscript = "oracle.luau"\n[rule.match]\ncommand = "demo"\n'
        '[rule.examples]\nfires = ["demo x"]\nquiet = ["other"]\n'
    )
    out = run_jouet("hook", "claude", "pre", input=claude_payload("demo now", repo), cwd=repo)
    context = json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"]
    assert context.startswith("answer: nil / ") and "holds credentials" in context


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
