"""The pre-check against the real gitleaks: wherever gitleaks finds a secret, it says "must scan".

The differential test writes, for every rule of gitleaks' default config, a random string matching
the rule's regex, plain and encoded (base64, hex, percent, unicode escapes, nested, touching runs),
one sample per file, runs the real gitleaks once over all of them, and checks the pre-check on each
file gitleaks reported.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from testing.secrets_samples import ENCODINGS, Generator, b64, hexed, percent, unicode_escapes

from jouet_git.gitleaks import binary, config, decode, precheck
from jouet_git.gitleaks.goregex import Unsupported, compile_go, translate

GITLEAKS = binary.find_gitleaks()
needs_gitleaks = pytest.mark.skipif(GITLEAKS is None, reason="gitleaks is not installed")
PATH_SUFFIXES = (".php", ".tf", ".yaml", "nuget.config", ".p12")


def default_summary() -> config.RuleSummary:
    assert GITLEAKS is not None
    summary, why = config.summarize(GITLEAKS, config.ConfigSource("default"), "/", use_cache=False)
    assert summary is not None, why
    return summary


def default_rules() -> list[dict[str, object]]:
    import tomli

    assert GITLEAKS is not None
    rules: list[dict[str, object]] = tomli.loads(config.embedded_default(GITLEAKS))["rules"]
    return rules


def run_gitleaks_dir(directory: Path) -> dict[str, set[str]]:
    assert GITLEAKS is not None
    proc = subprocess.run(
        [GITLEAKS, "dir", ".", "--no-banner", "--redact", "--report-format", "json", "--report-path", "-",
         "--exit-code", "99", "--max-decode-depth", "5", "--log-level", "error"],
        cwd=directory, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode in (0, 99), proc.stderr
    found: dict[str, set[str]] = {}
    for item in json.loads(proc.stdout or "[]"):
        found.setdefault(item["File"], set()).add(item["RuleID"])
    return found


def file_name(rule: dict[str, object], index: int) -> str:
    name = f"r{index}"
    path = rule.get("path")
    if isinstance(path, str):
        for suffix in PATH_SUFFIXES:
            if compile_go(path).search("x" + suffix):
                return name + suffix
    return name


@needs_gitleaks
@pytest.mark.parametrize("seed", [1, 2])
def test_precheck_says_scan_wherever_gitleaks_finds_something(tmp_path: Path, seed: int) -> None:
    summary = default_summary()
    generator = Generator(random.Random(seed))
    written: dict[str, tuple[str, str]] = {}
    for index, rule in enumerate(default_rules()):
        regex = rule.get("regex")
        if not isinstance(regex, str):
            continue
        sample = generator.sample(regex)
        assert sample is not None, f"no sample for {rule['id']}"
        base = file_name(rule, index)
        for encoding, write in ENCODINGS:
            name = f"{encoding.replace(' ', '_').replace('+', '_and_')}-{base}"
            (tmp_path / name).write_text(f"# {encoding}\n{write(sample)}\n")
            written[name] = (str(rule["id"]), encoding)

    found = run_gitleaks_dir(tmp_path)

    missed = []
    needed_decoding = 0
    for name in found:
        text = (tmp_path / name).read_text()
        scan, _ = precheck.must_scan(summary, [precheck.Fragment(name, text)])
        if not scan:
            missed.append((name, written.get(name), sorted(found[name])))
        if not precheck.keyword_in(text, summary.keywords):
            needed_decoding += 1
    assert missed == []
    # The test is only worth something if gitleaks found most samples, many only after decoding.
    plain = {rule for name, (rule, encoding) in written.items() if encoding == "plain" and name in found}
    assert len(plain) >= 200
    assert needed_decoding >= 1000
    deep = [name for name, (_, encoding) in written.items() if encoding == "base64x6" and name in found]
    assert deep == []  # six nested encodings are one more than gitleaks decodes


@needs_gitleaks
def test_path_only_rule_is_prechecked_by_name(tmp_path: Path) -> None:
    summary = default_summary()
    (tmp_path / "cert.p12").write_text("plain words\n")
    (tmp_path / "notes.txt").write_text("plain words\n")
    found = run_gitleaks_dir(tmp_path)
    assert found == {"cert.p12": {"pkcs12-file"}}
    assert precheck.must_scan(summary, [precheck.Fragment("cert.p12", "plain words\n")])[0]
    assert not precheck.must_scan(summary, [precheck.Fragment("notes.txt", "plain words\n")])[0]


ORDINARY = [
    ("src/add.py", "def add(a, b):\n    return a + b\n"),
    ("README.md", "# Title\n\nA short note about the build.\n"),
    ("config/limits.toml", "[limits]\nmax_items = 50\ntimeout_ms = 2000\n"),
    ("data/points.csv", "x,y\n1,2\n3,4\n5,6\n"),
    ("src/app.js", "function double(n) {\n  return n * 2;\n}\n"),
]


def test_precheck_skips_keyword_free_changes() -> None:
    summary = default_summary() if GITLEAKS else None
    if summary is None:
        pytest.skip("gitleaks is not installed")
    fragments = [precheck.Fragment(path, text) for path, text in ORDINARY]
    scan, why = precheck.must_scan(summary, fragments)
    assert (scan, why) == (False, "no keyword of any rule in the lines to scan")


def test_precheck_scans_when_a_keyword_appears_only_after_decoding() -> None:
    summary = config.RuleSummary(["ghp_"], False, [], [])
    hidden = "token ghp_" + "a1B2c3D4" * 5
    for encoded in (b64(hidden), hexed(hidden), percent(hidden), unicode_escapes(hidden), b64(b64(hidden))):
        assert not precheck.keyword_in(encoded, ["ghp_"])
        assert precheck.must_scan(summary, [precheck.Fragment("f.txt", f"x = {encoded}\n")])[0], encoded


def test_precheck_stops_at_the_decode_depth_gitleaks_uses() -> None:
    hidden = "ghp_" + "x" * 12
    text = hidden
    for _ in range(decode.MAX_DECODE_DEPTH + 1):
        text = b64(text)
    assert not precheck.fragment_has_keyword(text, ["ghp_"])
    assert precheck.fragment_has_keyword(text, ["ghp_"], depth=decode.MAX_DECODE_DEPTH + 1)


def test_keywordless_regex_rule_means_always_scan() -> None:
    summary = config.RuleSummary(["zzz"], True, [], [])
    assert precheck.must_scan(summary, [precheck.Fragment("a.txt", "x = 1\n")]) == (
        True, "the config has a rule without keywords")


def test_allowlisted_paths_are_not_prechecked() -> None:
    summary = config.RuleSummary(["token"], False, [], [r"(?:^|/)package-lock\.json$"])
    assert not precheck.must_scan(summary, [precheck.Fragment("web/package-lock.json", "token\n")])[0]
    assert precheck.must_scan(summary, [precheck.Fragment("web/other.json", "token\n")])[0]


def test_oversized_fragments_are_always_scanned() -> None:
    summary = config.RuleSummary(["ghp_"], False, [], [])
    big = "x = 1\n" * (precheck.ONE_CHUNK // 6 + 10)
    assert precheck.must_scan(summary, [precheck.Fragment("big.txt", big)])[0]


def test_go_lower_matches_go_for_special_cases() -> None:
    assert precheck.go_lower("AKIA") == "akia"
    assert precheck.go_lower("\u0130D") == "id"  # Go maps İ to a plain i
    assert precheck.go_lower("ΑΣ") == "ασ"  # no final sigma in Go


# --- the decoder, step by step ------------------------------------------------------------------


def test_decode_pass_replaces_each_encoding() -> None:
    assert decode.decode_pass("a " + b64("hello world 12") + " b") == ("a hello world 12 b", 1)
    assert decode.decode_pass(hexed("0123456789abcdef!")) == ("0123456789abcdef!", 1)
    assert decode.decode_pass("q=%41%42x%43") == ("q=ABxC", 1)
    assert decode.decode_pass("\\u0041\\u0042") == ("AB", 1)
    assert decode.decode_pass("U+0041 U+0042") == ("AB", 1)


def test_decode_pass_leaves_what_gitleaks_leaves() -> None:
    # base64 without a digit, +, /, - or _ is not tried; hex without a digit neither.
    assert decode.decode_pass("abcdefghijklmnopqrstuvwx") == ("abcdefghijklmnopqrstuvwx", 0)
    assert decode.decode_pass("abcdef" * 6) == ("abcdef" * 6, 0)
    # Decoded bytes must be printable ASCII.
    assert decode.decode_pass(b64("\x00\x01binary\x02\x03data")) [1] == 0
    assert decode.decode_pass("%00%41") == ("%00%41", 0)


def test_touching_runs_wait_for_the_next_pass() -> None:
    text = hexed("0123456789abcdef!") + "Zm9vYmFyYmF6cXV4eHl6"
    once, count = decode.decode_pass(text)
    assert (once, count) == ("0123456789abcdef!Zm9vYmFyYmF6cXV4eHl6", 1)


# --- Go patterns in Python ------------------------------------------------------------------------


@pytest.mark.parametrize(("go", "python"), [
    (r"\d+\w\s", r"[0-9]+[0-9A-Za-z_][\t\n\f\r ]"),
    (r"a$", r"a\Z"),
    (r"(?m)a$", r"(?m:a$)"),
    (r"a(?i)b|c", r"a(?i:b)|(?i:c)"),
    (r"(?i:x)y", r"(?i:x)y"),
    (r"x{,3}", r"x\{,3\}"),
    (r"[[:alpha:]_]", r"[A-Za-z_]"),
    (r"(?<n>x)", r"(?P<n>x)"),
    (r"\Qa.b\E", r"a\.b"),
])
def test_translate(go: str, python: str) -> None:
    assert translate(go) == python


@pytest.mark.parametrize("go", [r"\pL", r"\1", r"(?U)a*", r"[\p{Greek}]", "(a"])
def test_translate_refuses_what_it_cannot_reproduce(go: str) -> None:
    with pytest.raises(Unsupported):
        compile_go(go)


@needs_gitleaks
def test_every_default_rule_translates() -> None:
    for rule in default_rules():
        for key in ("regex", "path"):
            value = rule.get(key)
            if isinstance(value, str):
                compile_go(value)


def test_precheck_module_needs_no_subprocess() -> None:
    code = ("import sys, jouet_git.probes.secrets; "
            "bad = {'subprocess', 'typing', 'dataclasses', 'pathlib', 'tomli', 'hashlib', 'argparse'} "
            "& set(sys.modules); print(sorted(bad))")
    out = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_patch_parsing_keeps_line_numbers_and_end_of_file() -> None:
    from jouet_git.gitleaks.diff import parse_patch, unquote_path

    patch = (b'diff --git "a/sp ace\\t.txt" "b/sp ace\\t.txt"\n--- "a/sp ace\\t.txt"\n+++ "b/sp ace\\t.txt"\n'
             b"@@ -3,0 +4,2 @@\n++++ not a header\n+last\n\\ No newline at end of file\n"
             b"diff --git a/gone.txt b/gone.txt\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n")
    [change] = parse_patch(patch)
    assert change.path == "sp ace\t.txt"
    added = [(n, line) for hunk in change.hunks for n, line in hunk.lines]
    assert added == [(4, "+++ not a header"), (5, "last")]
    assert change.sparse_text() == "\n\n\n+++ not a header\nlast"
    assert unquote_path(b'"b/\\303\\251.txt"') == "b/é.txt"
    assert unquote_path(b"b/with space.txt\t") == "b/with space.txt"
