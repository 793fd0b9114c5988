"""jouet.repo(): root, linked worktree, and the GitHub owner/name of origin in every URL form."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from testing import git, make_repo

from jouet_git.probes.core import Probes
from jouet_git.probes.repo import parse_remote_url, read_config_file


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


def describe(cwd: Path) -> dict[str, object]:
    p = Probes(str(cwd))
    value, reason = p.repo()
    assert reason is None and isinstance(value, dict)
    assert p.git_processes == 0
    return value


@pytest.mark.parametrize("url", [
    "https://github.com/jdx/jouet.git",
    "https://github.com/jdx/jouet",
    "https://github.com/jdx/jouet/",
    "http://github.com/jdx/jouet.git",
    "https://user:token@github.com/jdx/jouet.git",
    "https://x-access-token@github.com:443/jdx/jouet",
    "git@github.com:jdx/jouet.git",
    "git@github.com:jdx/jouet",
    "github.com:jdx/jouet.git",
    "ssh://git@github.com/jdx/jouet.git",
    "ssh://git@github.com:22/jdx/jouet",
    "ssh://github.com/jdx/jouet",
    "git+ssh://git@github.com/jdx/jouet.git",
    "git://github.com/jdx/jouet.git",
    "HTTPS://GitHub.com/jdx/jouet.git",
])
def test_origin_url_forms(repo: Path, url: str) -> None:
    git(repo, "remote", "add", "origin", url)
    got = describe(repo)
    assert (got["owner"], got["name"], got["repo"]) == ("jdx", "jouet", "jdx/jouet")
    assert got["host"] == "github.com"


@pytest.mark.parametrize("url", [
    "/srv/git/jouet.git",
    "../jouet.git",
    "file:///srv/git/jdx/jouet.git",
    "https://gitlab.com/group/sub/jouet.git",
    "C:/repos/jouet",
])
def test_urls_without_an_owner_and_name(repo: Path, url: str) -> None:
    git(repo, "remote", "add", "origin", url)
    got = describe(repo)
    assert "owner" not in got and "repo" not in got


def test_no_origin(repo: Path) -> None:
    git(repo, "remote", "add", "upstream", "https://github.com/other/thing")
    assert describe(repo) == {"root": str(repo.resolve()), "worktree": False}


def test_a_github_enterprise_host(repo: Path) -> None:
    git(repo, "remote", "add", "origin", "git@ghe.example.com:team/tool.git")
    got = describe(repo)
    assert (got["host"], got["repo"]) == ("ghe.example.com", "team/tool")


def test_insteadof_rewrites_apply(repo: Path) -> None:
    git(repo, "config", "url.git@github.com:.insteadOf", "gh:")
    git(repo, "remote", "add", "origin", "gh:jdx/jouet")
    got = describe(repo)
    assert (got["host"], got["repo"]) == ("github.com", "jdx/jouet")


def test_root_from_a_subdirectory_and_a_linked_worktree(repo: Path, tmp_path: Path) -> None:
    git(repo, "remote", "add", "origin", "https://github.com/jdx/jouet.git")
    (repo / "sub" / "dir").mkdir(parents=True)
    main = describe(repo / "sub" / "dir")
    assert main["root"] == str(repo.resolve()) and main["worktree"] is False
    wt = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "-b", "side", str(wt))
    linked = describe(wt)
    assert linked["root"] == str(wt.resolve()) and linked["worktree"] is True
    assert linked["repo"] == "jdx/jouet"  # origin comes from the shared config


def test_a_submodule_is_not_a_linked_worktree(repo: Path, tmp_path: Path) -> None:
    lib = make_repo(tmp_path / "lib", {"lib.txt": "l\n"})
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "lib")
    got = describe(repo / "lib")
    assert got["root"] == str((repo / "lib").resolve()) and got["worktree"] is False


@pytest.mark.parametrize("url", [
    "https://github.com/a/b.git", "git@github.com:a/b", "ssh://git@host:2222/a/b.git",
])
def test_parse_remote_url_reads_owner_and_name(url: str) -> None:
    parsed = parse_remote_url(url)
    assert parsed is not None and parsed[1:] == ("a", "b")


def test_config_reader_agrees_with_git(tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.write_text(
        "[core]\n\tbare = false ; a comment\n"
        '[remote "origin"]\n'
        '\turl = "https://github.com/a/b.git" # quoted\n'
        "\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
        '[Branch "Feat/X"]\n\tstackParent = main\n'
        "[git-town-branch \"feat/y\"]\n\tparent = feat/x\n"
        "[section.Sub]\n\tkey = long \\\n value\n"
        "[flags]\n\tbare\n"
        '[quote]\n\tvalue = "a \\"b\\" \\\\ c" tail\n'
    )
    pairs = dict(read_config_file(str(config)))
    listed = subprocess.run(
        ["git", "config", "--file", str(config), "--list", "-z"], capture_output=True, check=True
    ).stdout.decode().split("\0")
    from_git = {}
    for item in listed:
        if item:
            key, _, value = item.partition("\n")
            from_git[key] = value if "\n" in item else "true"
    assert pairs == from_git


def test_includes_are_followed(repo: Path, tmp_path: Path) -> None:
    extra = tmp_path / "extra.config"
    extra.write_text('[remote "origin"]\n\turl = git@github.com:inc/luded.git\n')
    git(repo, "config", "include.path", str(extra))
    assert describe(repo)["repo"] == "inc/luded"


def test_outside_a_repository(tmp_path: Path) -> None:
    os.makedirs(tmp_path / "plain")
    assert Probes(str(tmp_path / "plain")).repo() == (None, "not in a git repository")
