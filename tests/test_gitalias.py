"""git aliases are read where git reads them, and what they run is judged: each alias is run for
real to check the work is really lost, and jouet is asked first."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing import git
from testing.gitrules import denied, quiet, with_remote
from testing.realrun import bash

from jouet_git import gitalias
from jouet_git.call import Call


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = with_remote(tmp_path)
    (repo / "src" / "app.py").write_text("x = 2  # not committed\n")
    return repo


@pytest.fixture
def without_jouet_config() -> None:
    """Turn off the jouet-config rule, which denies moving git's settings for a command
    (GIT_CONFIG_GLOBAL=..., GIT_CONFIG_COUNT=...) before any script rule runs: these tests check that
    the alias itself is read and judged."""
    import os

    config = Path(os.environ["JOUET_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text('[rules]\ndisable = ["jouet-config"]\n')


def lost(repo: Path) -> bool:
    return (repo / "src" / "app.py").read_text() == "x = 1\n"


@pytest.mark.parametrize(("value", "command"), [
    ("reset --hard", "git nuke"),
    ("reset --ha", "git nuke"),
    ("!git reset --hard", "git nuke"),
    ("!f() { git reset --hard \"$@\"; }; f", "git nuke HEAD"),
    ("!sh -c 'git reset --hard'", "git nuke"),
    ("reset", "git nuke --hard"),
])
def test_alias_in_the_repository_config(repo: Path, value: str, command: str) -> None:
    git(repo, "config", "alias.nuke", value)
    denied(command, repo, "reset-hard")
    assert bash(command, repo).returncode == 0 and lost(repo)


@pytest.mark.parametrize("command", [
    "git config alias.nuke 'reset --hard' && git nuke",
    "git config --local alias.nuke '!git reset --hard'; git nuke",
    "git config set alias.nuke 'reset --hard' 2>/dev/null || git config alias.nuke 'reset --hard'; git nuke",
])
def test_alias_defined_earlier_in_the_same_call(repo: Path, command: str) -> None:
    denied(command, repo, "reset-hard")
    assert bash(command, repo).returncode == 0 and lost(repo)


def test_alias_arguments_reach_the_function_it_calls(repo: Path) -> None:
    git(repo, "checkout", "-qb", "spike")
    (repo / "s.txt").write_text("s\n")
    git(repo, "add", "s.txt")
    git(repo, "commit", "-qm", "s")
    git(repo, "checkout", "-q", "main")
    git(repo, "config", "alias.wipe", '!f() { git branch -D "$1"; }; f')
    denied("git wipe spike", repo, "branch-force-delete")
    assert bash("git wipe spike", repo).returncode == 0
    assert not git(repo, "branch", "--list", "spike").strip()


def test_alias_of_an_alias(repo: Path) -> None:
    git(repo, "config", "alias.start-over", "nuke")
    git(repo, "config", "alias.nuke", "reset --hard")
    denied("git start-over", repo, "reset-hard")
    assert bash("git start-over", repo).returncode == 0 and lost(repo)


def test_alias_loop_is_not_followed_forever(repo: Path) -> None:
    git(repo, "config", "alias.a", "b")
    git(repo, "config", "alias.b", "a")
    quiet("git a", repo)


def test_alias_in_the_user_config_and_its_includes(repo: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    home = Path.home()
    monkeypatch.delenv("GIT_CONFIG_GLOBAL")
    (home / "aliases.inc").write_text('[alias]\n\tnuke = "reset --hard" ; gone\n')
    (home / ".gitconfig").write_text("[user]\n\tname = T\n\temail = t@example.com\n"
                                     "[include]\n\tpath = aliases.inc\n")
    denied("git nuke", repo, "reset-hard")
    xdg = Path(str(tmp_path / "xdg"))
    (xdg / "git").mkdir(parents=True)
    (xdg / "git" / "config").write_text("[Alias]\n\tPUSHF = push --force\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(xdg))
    denied("git pushf origin main", repo, "force-push")
    assert bash("git nuke", repo).returncode == 0 and lost(repo)


def test_alias_in_git_config_global(repo: Path, tmp_path: Path, without_jouet_config: None) -> None:
    other = tmp_path / "other.gitconfig"
    other.write_text("[alias]\n\tnuke = reset --hard\n")
    denied(f"GIT_CONFIG_GLOBAL={other} git nuke", repo, "reset-hard")
    assert bash(f"GIT_CONFIG_GLOBAL={other} git nuke", repo).returncode == 0 and lost(repo)


@pytest.mark.parametrize("command", [
    "git -c alias.nuke='reset --hard' nuke",
    "git -c Alias.Nuke='!git reset --hard' nuke",
    "NUKE='reset --hard' git --config-env=alias.nuke=NUKE nuke",
    "NUKE='reset --hard' git --config-env alias.nuke=NUKE nuke",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.nuke GIT_CONFIG_VALUE_0='reset --hard' git nuke",
    "env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.nuke 'GIT_CONFIG_VALUE_0=!git reset --hard' git nuke",
])
def test_alias_given_with_the_command(repo: Path, command: str, without_jouet_config: None) -> None:
    denied(command, repo, "reset-hard")
    assert bash(command, repo).returncode == 0 and lost(repo)


def test_alias_from_the_process_environment(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in (("GIT_CONFIG_COUNT", "1"), ("GIT_CONFIG_KEY_0", "alias.nuke"),
                        ("GIT_CONFIG_VALUE_0", "reset --hard")):
        monkeypatch.setenv(name, value)
    denied("git nuke", repo, "reset-hard")
    assert bash("git nuke", repo).returncode == 0 and lost(repo)


def test_harmless_aliases_stay_quiet(repo: Path) -> None:
    git(repo, "config", "alias.st", "status --short")
    git(repo, "config", "alias.lg", "!git log --oneline | head -5")
    quiet("git st", repo)
    quiet("git lg", repo)
    # A builtin is never an alias, whatever the config says.
    git(repo, "config", "alias.status", "reset --hard")
    quiet("git status", repo)
    assert bash("git status", repo).returncode == 0 and not lost(repo)


def test_alias_commands_are_nested_and_marked(repo: Path) -> None:
    git(repo, "config", "alias.nuke", "!git stash && git reset --hard")
    call = Call(command="git nuke && echo done", cwd=str(repo))
    programs = [(c.argv, c.nested, c.via) for c in call.commands]
    assert (["git", "stash"], True, ["git-alias"]) in programs
    assert (["git", "reset", "--hard"], True, ["git-alias"]) in programs
    assert not call.incomplete


def test_no_file_is_read_for_builtin_subcommands(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[str] = []
    monkeypatch.setattr(gitalias, "_read_file", lambda path, depth: reads.append(path) or {})
    assert Call(command="git status && git -C x log --oneline && git commit -m 'git nuke'", cwd=str(repo)).commands
    assert reads == []
    assert Call(command="git nuke", cwd=str(repo)).commands
    assert reads


@pytest.mark.parametrize(("value", "words"), [
    ("reset --hard", ["reset", "--hard"]),
    ("commit -m 'two words'", ["commit", "-m", "two words"]),
    ('commit -m "say \\"hi\\""', ["commit", "-m", 'say "hi"']),
    ("log  --format=%h\\ %s", ["log", "--format=%h %s"]),
])
def test_split_cmdline(value: str, words: list[str]) -> None:
    assert gitalias.split_cmdline(value) == words


def test_config_values_read_as_git_reads_them(tmp_path: Path) -> None:
    path = tmp_path / "config"
    path.write_text(
        "# comment\n[alias]\n\ta = \"reset --hard\" # trailing\n\tb = log \\\n  --oneline\n"
        "\tc = !echo \"x;y\" ; z\n[core]\n\tbare = false\n[alias]\n\tA = push\n"
    )
    read = gitalias._read_file(str(path), 0)
    for key in ("a", "b", "c"):
        assert read[f"alias.{key}"] == git(tmp_path, "config", "-f", str(path), f"alias.{key}").rstrip("\n")
