"""What the ledger stores of a command: secrets redacted, by gitleaks' own rules and by jouet's patterns.

The differential test writes, for every rule of gitleaks' default config, a command line holding a
random string that matches the rule, runs the real gitleaks once over all of them, and checks that
every secret gitleaks reports is gone from what the ledger would store of that line.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from testing.secrets_samples import Generator

from jouet_git import ledger
from jouet_git.gitleaks import binary, default, redact

GITLEAKS = binary.find_gitleaks()
needs_gitleaks = pytest.mark.skipif(GITLEAKS is None, reason="gitleaks is not installed")


def default_rules() -> list[dict[str, object]]:
    import tomli

    from jouet_git.gitleaks.config import embedded_default

    assert GITLEAKS is not None
    rules: list[dict[str, object]] = tomli.loads(embedded_default(GITLEAKS))["rules"]
    return rules


@needs_gitleaks
@pytest.mark.parametrize("seed", [3, 4])
def test_no_secret_gitleaks_finds_in_a_command_survives_redaction(tmp_path: Path, seed: int) -> None:
    generator = Generator(random.Random(seed))
    lines: dict[str, str] = {}
    for index, rule in enumerate(default_rules()):
        regex = rule.get("regex")
        if not isinstance(regex, str):
            continue
        sample = generator.sample(regex)
        assert sample is not None, f"no sample for {rule['id']}"
        line = f"deploy --with {sample} --verbose"
        name = f"r{index}.txt"
        (tmp_path / name).write_text(line + "\n")
        lines[name] = line
    assert GITLEAKS is not None
    proc = subprocess.run(
        [GITLEAKS, "dir", ".", "--no-banner", "--report-format", "json", "--report-path", "-", "--exit-code", "99",
         "--max-decode-depth", "0", "--log-level", "error"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode in (0, 99), proc.stderr
    findings = json.loads(proc.stdout or "[]")
    assert len({f["RuleID"] for f in findings}) >= 150  # the test is worth something only if gitleaks found most
    leaked = []
    for finding in findings:
        stored = ledger.redact(lines[finding["File"]])
        if finding["Secret"] and finding["Secret"] in stored:
            leaked.append((finding["RuleID"], finding["Secret"], stored))
    assert leaked == []


def test_known_shapes_and_assignments_are_redacted() -> None:
    secrets = {
        "curl https://bob:hunter2pass@example.com/x": "hunter2pass",
        "GITHUB_TOKEN=abc123def456ghi789 gh pr list": "abc123def456ghi789",
        "mysql --password 's3cr3t-pw' -u root": "s3cr3t-pw",
        "curl -H 'Authorization: Bearer eyJabc.def.ghi123456' https://api": "eyJabc.def.ghi123456",
        "echo ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8": "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
        "stripe listen --api-key sk_live_51HaBcDeFgHiJkLmNoPqRsTuV": "sk_live_51HaBcDeFgHiJkLmNoPqRsTuV",
        "export AWS_ACCESS_KEY_ID=AKIAZ7Q3XK2PLM4NB6VC": "AKIAZ7Q3XK2PLM4NB6VC",
    }
    for command, secret in secrets.items():
        stored = ledger.redact(command)
        assert secret not in stored, command
        assert ledger.REDACTED in stored


def test_clean_commands_are_stored_as_they_are() -> None:
    for command in ("git status --short", "pytest -k test_api_key_rotation tests/",
                    "git commit -m 'fix the token parser'", "npm run build", "echo $GITHUB_TOKEN | wc -c"):
        assert ledger.redact(command) == command


@needs_gitleaks
def test_keyword_free_text_compiles_no_rule() -> None:
    redact._loaded.clear()
    assert redact.secret_spans("git status --short && ls -la src") == []
    rules = redact._rules()
    assert rules is not None and rules.rules
    assert rules.compiled == {}  # no keyword, no regular expression compiled
    redact.secret_spans("slack xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx")
    assert rules.compiled  # a keyword: that rule's expression, compiled on the spot


@needs_gitleaks
def test_gitleaks_never_starts_when_the_ledger_redacts(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from jouet_git import ledger\n"
        "text = ledger.redact('slack xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx')\n"
        "assert 'AbCdEf' not in text, text\n"
        "print(sorted(m for m in ('subprocess', 'tomli', 'multiprocessing') if m in sys.modules))\n"
    )
    # The rules are generated with jouet (in a source checkout, beside the sources on first use: here,
    # before the processes below): no process starts, nothing is parsed, nothing is cached.
    assert default.head() is not None
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == "[]"
    assert not list((Path(os.environ["JOUET_CACHE_DIR"])).rglob("redact-*"))


@needs_gitleaks
def test_without_gitleaks_the_generated_rules_still_redact(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # Once generated (gitleaks/default.py), the rules apply whichever gitleaks is installed, or none.
    assert default.head() is not None
    default.forget()
    monkeypatch.setenv("JOUET_GITLEAKS", str(tmp_path / "no-such-gitleaks"))
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(binary, "_wheel_binary", lambda: None)
    redact._loaded.clear()
    assert redact.secret_spans("slack xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx") == [(6, 62)]
    assert "AbCdEf" not in ledger.redact("slack xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx")
    redact._loaded.clear()


def test_long_text_is_cut_after_redaction() -> None:
    text = "echo " + "x" * (ledger.MAX_TEXT + 500)
    stored = ledger.stored_text(text)
    assert stored is not None and len(stored) < ledger.MAX_TEXT + 20 and stored.endswith("[cut]")


PROSE = "- step {}: read the parser, write the test, run it, then commit the change\n"


def _heredoc(line: str, at: int) -> str:
    """A here-document of about 2 KB with LINE as its line AT."""
    body = [PROSE.format(i) for i in range(27)]
    body.insert(at, line + "\n")
    return "cat > notes/plan.md <<'EOF'\n" + "".join(body) + "EOF"


@needs_gitleaks
def test_a_long_text_is_redacted_as_if_each_keyword_was_looked_for_in_all_of_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """From redact.LONG characters on, a keyword is looked for only in a text holding each of its
    characters: for a secret of every gitleaks rule inside a here-document, what is redacted is what
    looking for every keyword redacts, and the secret is gone."""
    generator = Generator(random.Random(5))
    texts = []
    for index, rule in enumerate(default_rules()):
        regex = rule.get("regex")
        if isinstance(regex, str):
            sample = generator.sample(regex)
            assert sample is not None
            texts.append(_heredoc(f"export X=1 && deploy --with {sample} --verbose", index % 28))
    texts += [_heredoc("<add key=\"ClearTextPassword\" value=\"Zq8vN2xL5tR7wB3mK9pD4hF6\" />", 3),
              _heredoc("curl https://bob:hunter2pass@example.com/x", 27),
              _heredoc("GITHUB_TOKEN=abc123def456ghi789 gh pr list", 0)]
    assert all(len(text) >= redact.LONG for text in texts)
    long_way = [(redact.secret_spans(text), ledger.redact(text)) for text in texts]
    monkeypatch.setattr(redact, "LONG", 1 << 30)
    monkeypatch.setattr(ledger, "_LONG", 1 << 30)
    whole_way = [(redact.secret_spans(text), ledger.redact(text)) for text in texts]
    assert long_way == whole_way
    assert sum(1 for spans, _ in long_way if spans) >= 150
    assert "Zq8vN2xL5tR7wB3mK9pD4hF6" not in long_way[-3][1] and "hunter2pass" not in long_way[-2][1]
    assert "abc123def456ghi789" not in long_way[-1][1]



def test_a_short_text_is_redacted_as_if_every_keyword_was_looked_for() -> None:
    """Below redact.LONG, after the first few texts, a keyword is looked for only when the text holds
    the character it is filed under (redact.COMMON): for each keyword of every rule, inside a short
    command, in lower and upper case, what is found is what looking for every keyword finds, whether
    the texts are searched the first way or the second."""
    rules = redact._rules()
    assert rules is not None
    keywords = [keyword for keyword, _ in rules.by_keyword]
    assert len(keywords) > 100

    def every_keyword(text: str) -> list[tuple[int, int]]:
        lowered = text.lower()
        wanted = sorted({i for keyword, indexes in rules.by_keyword if keyword in lowered for i in indexes})
        return [span for i in wanted for span in redact._rule_spans(rules, rules.rules[i], text)]

    generator = Generator(random.Random(11))
    texts = []
    for keyword in keywords:
        texts += [f"echo {keyword}", f"X={keyword.upper()}9f8e7d6c5b4a3f2e1d0c && run",
                  f"cfg --{keyword}=Zq8vN2xL5tR7wB3m"]
    for rule in default_rules() if GITLEAKS is not None else []:
        regex = rule.get("regex")
        sample = generator.sample(regex) if isinstance(regex, str) else None
        if sample is not None and len(sample) < redact.LONG - 20:
            texts.append(f"deploy --with {sample}")
    # Texts holding no keyword, or only a keyword cut short (what redact.words_pattern must tell
    # apart in its one scan): nothing is found in them, as looking for every keyword finds nothing.
    texts += [f"ls {keyword[:-1]} {keyword[1:]}" for keyword in keywords if len(keyword) > 2]
    texts += ["git status", "npm run build", "cargo test --workspace", "ls -la /srv/app", ""]
    assert all(len(text) < redact.LONG for text in texts)
    texts.append("a keyword made of characters COMMON does not list: ~q~")
    found = 0
    rules.searched = 0  # (this process's earlier tests searched texts too)
    for number, text in enumerate(texts, 1):
        spans = redact.secret_spans(text)
        assert spans == every_keyword(text), text
        if text:
            assert rules.searched == min(number, redact.BY_CHAR_AFTER)
        found += bool(spans)
    assert found >= 100
    assert sum(1 for text in texts if not every_keyword(text)) >= 100


def test_words_pattern_finds_a_text_that_holds_any_of_its_words_and_no_other() -> None:
    """redact.words_pattern: one expression for many words (a tree of their beginnings), matching
    exactly the texts that hold one of them: words that begin alike, one inside another, characters
    regular expressions treat specially, and no word at all."""
    words = ["sk", "sk_live", "skip", "secret", "s.", "a+b", "(x)", "key", "keys", "[q]"]
    pattern = redact.words_pattern(words)
    generator = random.Random(5)
    alphabet = "skiplvecrt._+ab()xyq[]e "
    texts = ["".join(generator.choice(alphabet) for _ in range(generator.randrange(0, 12))) for _ in range(4000)]
    texts += words + [w[:-1] for w in words] + ["", "s", "k", "se cret", "a b", "x)"]
    for text in texts:
        assert (pattern.search(text) is not None) == any(word in text for word in words), text
    assert sum(1 for text in texts if pattern.search(text)) > 50
    assert redact.words_pattern([]).search("anything") is None


def test_a_stream_redacts_each_text_as_a_single_call_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """After its first few texts, ledger.redact asks one expression whether a text holds any word of
    its patterns before trying them one by one: what every text comes out as is the same either way,
    texts with secrets or with only words alike among them."""
    texts = ["git push https://user:ghp_0123456789abcdefghijABCDEFGHIJ@github.com/o/r.git",
             "GITHUB_TOKEN=abc123def456 make deploy", "mysql --password hunter2 -u root",
             "curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig' https://api.example.com",
             "aws configure set aws_access_key_id AKIAABCDEFGHIJKLMNOP", "ls tok secre passport acc",
             "echo high ghost", "scp file host:/srv", "git status", "npm run build", "x://y", "a:/b@c"]
    texts = texts * 2
    monkeypatch.setattr(ledger, "_ONE_SCAN_AFTER", 1 << 30)
    one_by_one = [ledger.redact(text) for text in texts]
    monkeypatch.setattr(ledger, "_ONE_SCAN_AFTER", 0)
    assert [ledger.redact(text) for text in texts] == one_by_one
    assert sum(1 for text, out in zip(texts, one_by_one, strict=True) if text != out) >= 10
