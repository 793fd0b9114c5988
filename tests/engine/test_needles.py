"""needles(): strings a pattern's every match holds. Where it names some, a text holding none of them
must never match the pattern (else a rule's `text` key would miss what it matches today)."""

from __future__ import annotations

import itertools
import random
import re
import subprocess
import sys
from pathlib import Path

from jouet_git.engine.needles import needles

PATTERNS = [
    r"(\bimport|\bfrom)\s+jouet_git\b|(import_module|run_module|run_path|__import__)\s*\(\s*['\"]jouet_git",
    r"^-[A-Za-z]*m(pip)?$", r"^(-[A-Za-z]*m)?jouet_git\.\w", r"(?i)^jouet[-_.]git$", "a(?i:b)c", "ab|c",
    "(abc)+x", "(abc)*x", "(?x) a b c", r"\.env\b", "x{2}", "(?:ab|a)c", "a(b|)c", "(?=ab)a", "(?!ab)cd",
    r"(a)\1", "[ab]c", "a.b", "(?s)a.*b", "a|b|", "(?>ab)c", "ab++c", "(ab){0}c", "(ab){1,}", "a?b?", "",
    "(?m)^ab$", r"\Aab\Z", "a(?#comment)b", r"a\nb", "(?i)ab", "(?i)JOUET_git|Pip", "a(?i:B)c", "(?i)a(?-i:B)c",
    r"(?i)^(--config-env=)?core\.hookspath=", r"[*?\[]|\$\(|`", r"\.env$|[*?]x", "[^ab]c|d", "[a-c]", "(?i)[ab]",
]


def test_named_needles() -> None:
    assert needles(PATTERNS[0]) == ("jouet_git",)
    assert needles(r"^(-[A-Za-z]*m)?jouet_git\.\w") == ("jouet_git.",)
    assert needles("(?i)token") is None and needles("a(?i:b)c") in (("a",), ("c",))
    assert needles("ab|c") == ("ab", "c") and needles("a|b|") is None and needles("(abc)*x") == ("x",)
    assert needles("[ab]c") == ("c",) and needles("a?b?") is None and needles("") is None
    assert needles(r"[*?\[]|\$\(|`") == ("$(", "*", "?", "[", "`") and needles("[^ab]|c") is None
    assert needles("[a-c]") is None and needles("x[ab]") == ("x",)
    assert needles(r"(?i)^(--config-env=)?core\.hookspath=", fold=True) == ("core.hookspath=",)
    assert needles("(?i)Token|API", fold=True) == ("api", "token") and needles("(?i)\u017ft", fold=True) is None


def test_a_text_without_the_needles_never_matches() -> None:
    pieces = ["a", "b", "c", "x", "ab", "abc", "\n", " ", "-", "m", "pip", "jouet_git", "import ", "from ",
              ".env", ".", "(", "'", "run_path", "jouet-git", "JOUET_GIT", "A", "B", "*", "?", "[", "$", "`", "d"]
    rng = random.Random(7)
    texts = {"".join(p) for n in range(3) for p in itertools.product(pieces[:12], repeat=n)}
    texts |= {"".join(rng.choice(pieces) for _ in range(rng.randint(0, 8))) for _ in range(4000)}
    texts |= {"CORE.HOOKSPATH=x", "--config-env=Core.HooksPath=", "aBc", "AbC", "ABC", "Pip", "\u017f", "K"}
    for pattern in PATTERNS:
        found = needles(pattern)
        folded = needles(pattern, fold=True)
        regex = re.compile(pattern)
        for text in texts:
            if regex.search(text) is not None:
                assert found is None or any(needle in text for needle in found), (pattern, text, found)
                assert folded is None or not text.isascii() or any(
                    needle in text.lower() for needle in folded), (pattern, text, folded)


def test_the_rule_on_jouet_internals_still_fires_and_a_heredoc_skips_its_pattern(tmp_path: Path) -> None:
    code = ("import re\nfrom jouet_git.engine.runner import Runner\nfrom jouet_git.harness.manual import build_call\n"
            "from jouet_git.engine import prebuilt\nprebuilt.data()\n"  # (made first in a source checkout)
            "r = Runner(record=False)\nre.purge()\n"
            "text = 'cat > a.md <<EOF\\n' + 'plain words\\n' * 99 + 'EOF'\n"
            "print(r.decide(build_call(text, '.', None, None)).action)\n"
            "print(any('jouet_git' in str(k[1]) for k in re._cache))\n"
            "print(r.decide(build_call(\"echo 'from jouet_git import cli' | python3\", '.', None, None)).action)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=tmp_path).stdout.split()
    assert out == ["None", "False", "deny"], out


def test_the_built_in_rules_carry_their_needles() -> None:
    from jouet_git.engine import prebuilt

    exact, folded = prebuilt.needles()
    assert exact[r"(\bimport|\bfrom)\s+jouet_git\b"] == ("jouet_git",)
    assert "(?i)^jouet[-_.]git$" not in exact and folded["(?i)^jouet[-_.]git$"] == ("jouet",)
    assert folded[r"(?i)^(--config-env=)?core\.hookspath="] == ("core.hookspath=",)
    assert all(found and all(found) for found in [*exact.values(), *folded.values()])
