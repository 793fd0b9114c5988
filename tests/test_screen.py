"""Screening text for secrets (jouet_git/screen.py) against the real gitleaks."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from testing import make_repo
from testing.screening import Planted, counting_gitleaks, gitleaks_finds, starts, tool_shapes, typical_outputs
from testing.secrets_samples import ENCODINGS, Generator

from jouet_git import gitrun, screen
from jouet_git.gitleaks import binary, config

GITLEAKS = binary.find_gitleaks()
pytestmark = pytest.mark.skipif(GITLEAKS is None, reason="gitleaks is not installed")


@pytest.fixture
def planted() -> Planted:
    return Planted()


def test_planted_samples_are_real_findings(planted: Planted) -> None:
    """The secrets the other tests plant are ones gitleaks itself reports."""
    found = gitleaks_finds("\n".join(planted.all()) + "\n")
    assert found == sorted(["github-pat", "aws-access-token", "slack-bot-token", "stripe-access-token"])


@pytest.mark.parametrize("name", list(typical_outputs()))
def test_clean_output_of_typical_size_costs_no_process(name: str, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    env, log = counting_gitleaks(tmp_path)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    text = typical_outputs()[name]
    assert len(text) > 5000
    before = gitrun.COUNTS["gitleaks"]
    result = screen.screen([text], str(tmp_path))
    assert result.texts == [text] and result.found == {} and not result.gitleaks
    assert gitrun.COUNTS["gitleaks"] == before
    assert starts(log) == 0


def test_text_too_large_to_precheck_goes_to_gitleaks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env, log = counting_gitleaks(tmp_path)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    text = "plain line without anything\n" * (screen.PRECHECK_LIMIT // 28 + 10)
    assert len(text) > screen.PRECHECK_LIMIT
    result = screen.screen([text], str(tmp_path))
    assert result.texts == [text] and result.found == {} and starts(log) == 1


def test_each_secret_is_replaced_by_its_rule_and_nothing_else_changes(tmp_path: Path, planted: Planted) -> None:
    text = (f"line one\nGITHUB_TOKEN={planted.github}\naws: {planted.aws} and again {planted.aws}\n"
            f"slack {planted.slack}\n{{\"stripe\": \"{planted.stripe}\"}}\nlast line")
    result = screen.screen([text], str(tmp_path))
    assert result.texts == [
        "line one\nGITHUB_TOKEN=[secret redacted: github-pat]\n"
        "aws: [secret redacted: aws-access-token] and again [secret redacted: aws-access-token]\n"
        "slack [secret redacted: slack-bot-token]\n{\"stripe\": \"[secret redacted: stripe-access-token]\"}\nlast line"
    ]
    assert result.found == {"github-pat": 1, "aws-access-token": 2, "slack-bot-token": 1, "stripe-access-token": 1}
    assert result.gitleaks and result.problem is None


def test_many_texts_cost_one_gitleaks_start(tmp_path: Path, planted: Planted, monkeypatch: pytest.MonkeyPatch) -> None:
    env, log = counting_gitleaks(tmp_path)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    texts = ["clean", f"a {planted.github}", "", f"b\n{planted.aws}\n", "also clean"]
    result = screen.screen(texts, str(tmp_path))
    assert starts(log) == 1
    assert result.texts == ["clean", "a [secret redacted: github-pat]", "", "b\n[secret redacted: aws-access-token]\n",
                            "also clean"]


def test_encoded_secret_is_replaced_where_it_sits(tmp_path: Path, planted: Planted) -> None:
    import base64

    encoded = base64.b64encode(f"token={planted.github}".encode()).decode()
    text = f"first line\nconfig: {encoded} (base64)\nplain {planted.github}\n"
    result = screen.screen([text], str(tmp_path))
    assert result.texts == ["first line\nconfig: [secret redacted: github-pat] (base64)\n"
                            "plain [secret redacted: github-pat]\n"]
    assert gitleaks_finds(result.texts[0]) == []


def test_private_key_spanning_lines_is_replaced_whole(tmp_path: Path) -> None:
    rng = random.Random(3)
    body = "\n".join("".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
                             for _ in range(64)) for _ in range(6))
    key = f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----"
    text = f"$ cat id_rsa\n{key}\n$ echo done\n"
    result = screen.screen([text], str(tmp_path))
    assert result.texts == ["$ cat id_rsa\n[secret redacted: private-key]\n$ echo done\n"]


def test_the_repository_gitleaks_config_decides(tmp_path: Path) -> None:
    """A repository's .gitleaks.toml is what gitleaks would use there, so it is what screening uses."""
    repo = make_repo(tmp_path / "r", {".gitleaks.toml": (
        "[extend]\nuseDefault = true\n\n[[rules]]\nid = \"acme-key\"\nregex = '''acme_[a-z0-9]{24}'''\n"
        "keywords = [\"acme_\"]\n")})
    text = "deploy with acme_0123456789abcdefghijklmn please"
    assert screen.screen([text], str(repo)).texts == ["deploy with [secret redacted: acme-key] please"]
    assert screen.screen([text], str(tmp_path)).texts == [text]  # outside it: gitleaks' default rules


def test_missing_gitleaks_falls_back_to_token_shapes_and_says_why(tmp_path: Path, planted: Planted,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JOUET_GITLEAKS", str(tmp_path / "no-gitleaks"))
    result = screen.screen([f"token {planted.github}"], str(tmp_path))
    assert planted.github not in result.texts[0]
    assert result.found == {screen.FALLBACK_RULE: 1}
    assert result.problem is not None and "JOUET_GITLEAKS" in result.problem


def test_failing_gitleaks_falls_back_and_keeps_the_secret_out_of_the_reason(tmp_path: Path, planted: Planted,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    broken = tmp_path / "gitleaks"
    broken.write_text("#!/bin/sh\ncat >/dev/null\necho 'config error: bad toml' >&2\nexit 1\n")
    broken.chmod(0o755)
    rules = tmp_path / "rules.toml"
    rules.write_text(config.embedded_default(str(GITLEAKS)))
    monkeypatch.setenv("JOUET_GITLEAKS", str(broken))
    monkeypatch.setenv("GITLEAKS_CONFIG", str(rules))
    result = screen.screen([f"token {planted.github}"], str(tmp_path))
    assert result.problem == "gitleaks failed: config error: bad toml"
    assert planted.github not in result.texts[0]


# -- the shape of a tool's output ------------------------------------------------------------------


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _skeleton(value: Any) -> Any:
    """VALUE with every string blanked: what must not change when secrets are replaced."""
    if isinstance(value, str):
        return str
    if isinstance(value, dict):
        return {k: _skeleton(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_skeleton(v) for v in value]
    return value


@pytest.mark.parametrize("tool", list(tool_shapes("x")))
def test_output_keeps_its_shape_and_loses_the_secret(tool: str, tmp_path: Path, planted: Planted) -> None:
    original = tool_shapes(planted.github)[tool]
    frozen = json.dumps(original)
    result = screen.screen_output(original, str(tmp_path))
    assert json.dumps(original) == frozen  # the input is not modified
    assert planted.github not in json.dumps(result.value)
    assert _skeleton(result.value) == _skeleton(original)  # same keys, numbers, booleans, lists
    assert result.withheld and result.placed
    # Discriminators and binary payloads are exactly as they came.
    for before, after in zip(_strings(original), _strings(result.value), strict=True):
        if planted.github not in before and "[jouet:" not in after:
            assert before == after
    # The notice is in the longest text.
    texts = [s for s in _strings(result.value) if "[jouet:" in s]
    assert len(texts) == 1 and texts[0].endswith(result.notice)
    assert "[secret redacted: github-pat]" in json.dumps(result.value)


def test_notice_goes_to_the_longest_text_never_a_path(tmp_path: Path, planted: Planted) -> None:
    value = {"filePath": "/a/very/long/path/" + "x" * 200, "content": f"k={planted.github}"}
    result = screen.screen_output(value, str(tmp_path))
    assert result.value["filePath"] == value["filePath"]
    assert result.value["content"].startswith("k=[secret redacted: github-pat]\n\n[jouet: 1 secret was replaced")


def test_a_bare_string_stays_a_string(tmp_path: Path, planted: Planted) -> None:
    result = screen.screen_output(f"out {planted.aws}", str(tmp_path))
    assert isinstance(result.value, str) and result.value.startswith("out [secret redacted: aws-access-token]")


def test_a_secret_in_a_discriminator_is_reported_as_not_withheld(tmp_path: Path, planted: Planted) -> None:
    value = {"type": planted.github, "n": 1}
    result = screen.screen_output(value, str(tmp_path))
    assert result.changed and not result.withheld and not result.placed
    assert result.value == value


def test_binary_payloads_are_never_screened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env, log = counting_gitleaks(tmp_path)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    rng = random.Random(1)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    data = "".join(rng.choice(alphabet) for _ in range(200_000))
    value = {"type": "image", "file": {"base64": data, "type": "image/png"}}
    result = screen.screen_output(value, str(tmp_path))
    assert result.value is value and starts(log) == 0


def test_the_record_holds_counts_never_text(tmp_path: Path, planted: Planted) -> None:
    result = screen.screen_output({"stdout": f"{planted.github}\n{planted.aws}"}, str(tmp_path))
    record = result.record()
    assert record == {"screen": {"rules": {"aws-access-token": 1, "github-pat": 1}, "withheld": True,
                                 "gitleaks": True, "problem": None}}
    assert planted.github not in json.dumps(record)


# -- the pre-check and the replacement, over a sample of every rule -----------------------------------


@pytest.mark.slow
def test_every_rule_every_encoding_nothing_is_left_for_gitleaks(tmp_path: Path) -> None:
    """For a random sample of every default rule, plain and encoded, screening leaves nothing the
    real gitleaks would still find; and the pre-check never skips a text gitleaks finds something in."""
    import tomli

    assert GITLEAKS is not None
    specs, why = config.rule_specs(GITLEAKS, config.ConfigSource("default"), "/", use_cache=False)
    assert specs is not None, why
    generator = Generator(random.Random(5))
    texts: list[str] = []
    for rule in tomli.loads(config.embedded_default(GITLEAKS))["rules"]:
        regex = rule.get("regex")
        if not isinstance(regex, str):
            continue
        sample = generator.sample(regex)
        assert sample is not None
        texts += [f"# {name}\n{write(sample)}\n" for name, write in ENCODINGS[:8]]
    result = screen.screen(texts, str(tmp_path))
    assert result.gitleaks and result.problem is None
    assert sum(result.found.values()) >= 500
    # Each text on its own (one file each: gitleaks looks for a rule's keywords per file).
    assert gitleaks_in_files(tmp_path / "after", result.texts) == {}
    # The pre-check says "could find" for every text gitleaks finds something in.
    found = gitleaks_in_files(tmp_path / "before", texts)
    assert len(found) >= 1000
    assert [texts[i] for i in found if not screen.may_find(specs, texts[i])] == []


def gitleaks_in_files(directory: Path, texts: list[str]) -> dict[int, list[str]]:
    """{index: rule ids} of the TEXTS the real gitleaks finds something in, each scanned alone."""
    import subprocess

    assert GITLEAKS is not None
    directory.mkdir()
    for i, text in enumerate(texts):
        (directory / f"t{i}.txt").write_text(text)
    proc = subprocess.run([GITLEAKS, "dir", ".", "--no-banner", "--redact", "--report-format", "json",
                           "--report-path", "-", "--exit-code", "99", "--max-decode-depth", "5",
                           "--log-level", "error"],
                          cwd=directory, capture_output=True, text=True, timeout=600)
    assert proc.returncode in (0, 99), proc.stderr
    out: dict[int, list[str]] = {}
    for item in json.loads(proc.stdout or "[]"):
        out.setdefault(int(Path(item["File"]).stem[1:]), []).append(item["RuleID"])
    return out


def test_may_find_is_false_for_keyword_bearing_clean_text() -> None:
    assert GITLEAKS is not None
    specs, _ = config.rule_specs(GITLEAKS, config.ConfigSource("default"), "/", use_cache=False)
    assert specs is not None
    # Keywords of several rules (key, token, auth, ey, s., sk), no secret.
    text = "the key is in the token table; they said auth works. sk is a prefix. See files."
    assert not screen.may_find(specs, text)
    assert screen.may_find(specs, "key = 'Zx81fQq0pLr9TmB3vWc7'")  # generic-api-key can fire


def test_go_entropy_counts_characters_over_bytes() -> None:
    assert screen.go_entropy("") == 0.0
    assert screen.go_entropy("aaaa") == 0.0
    assert screen.go_entropy("ab") == 1.0
    # Non-ASCII: Go divides by the byte length, as here.
    assert abs(screen.go_entropy("éa") - (-(1 / 3) * 2 * __import__("math").log2(1 / 3))) < 1e-12


def test_rule_specs_follow_the_config_and_are_never_cached(tmp_path: Path) -> None:
    assert GITLEAKS is not None
    toml = tmp_path / ".gitleaks.toml"
    toml.write_text("[[rules]]\nid = \"one\"\nregex = '''one_[0-9]{8}'''\nkeywords = [\"one_\"]\nentropy = 2.5\n")
    source = config.ConfigSource("repo", str(toml))
    specs, why = config.rule_specs(GITLEAKS, source, str(tmp_path))
    assert why == "read" and specs is not None and [(s.id, s.entropy) for s in specs] == [("one", 2.5)]
    toml.write_text("[[rules]]\nid = \"two\"\nregex = '''two_[0-9]{8}'''\nkeywords = [\"two_\"]\nsecretGroup = 0\n")
    specs, why = config.rule_specs(GITLEAKS, source, str(tmp_path))
    assert why == "read" and specs is not None and [s.id for s in specs] == ["two"]
    default, why = config.rule_specs(GITLEAKS, config.ConfigSource("default"), str(tmp_path))
    assert why == "generated" and default is not None and len(default) > 200
