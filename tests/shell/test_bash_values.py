"""Known values checked against bash itself.

Hypothesis writes a few assignments (plain, quoted, arrays, `export`, `declare`, `printf -v`,
`$(echo ...)`) and then a printf whose words use them in every expansion form the reader works
out (`$x`, `${x}`, `"$x"`, `${x:-d}`, `${x#p}`, `${x/p/r}`, `${#x}`, `"${a[@]}"`, ...). bash prints the
arguments it receives; the reader's argv must be the same words. Globs are left out (the reader
keeps them as written) and so is IFS (its default applies).
"""

from __future__ import annotations

import shutil

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jouet_git.shell import parse
from tests.shell.test_bash import bash_args

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")

NAMES = ["a", "b", "c"]
# Values without glob characters, with blanks and quotes so that splitting and quoting matter.
TEXT = st.text(st.sampled_from("xyz-. 'q/"), max_size=6)


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


ASSIGN = st.one_of(
    st.builds(lambda n, t: f"{n}={_quoted(t)}", st.sampled_from(NAMES), TEXT),
    st.builds(lambda n, t: f'{n}="$(echo {_quoted(t)})"', st.sampled_from(NAMES), TEXT),
    st.builds(lambda n, t: f"export {n}={_quoted(t)}", st.sampled_from(NAMES), TEXT),
    st.builds(lambda n, t: f"declare {n}={_quoted(t)}", st.sampled_from(NAMES), TEXT),
    st.builds(lambda n, t: f"printf -v {n} %s {_quoted(t)}", st.sampled_from(NAMES), TEXT),
    st.builds(lambda n, m: f'{n}="${{{m}}}x"', st.sampled_from(NAMES), st.sampled_from(NAMES)),
    st.builds(lambda n, t: f"{n}+={_quoted(t)}", st.sampled_from(NAMES), TEXT),
    st.builds(lambda ts: "arr=(" + " ".join(_quoted(t) for t in ts) + ")", st.lists(TEXT, max_size=3)),
    st.builds(lambda n: f"unset {n}", st.sampled_from(NAMES)),
)
USE = st.one_of(
    st.sampled_from([f"${n}" for n in NAMES] + [f'"${n}"' for n in NAMES] + [f"${{{n}}}" for n in NAMES]),
    st.sampled_from([f"${{#{n}}}" for n in NAMES] + ['"${arr[@]}"', "${arr[*]}", '"${arr[*]}"',
                                                       "${#arr[@]}", '"${arr[1]}"', "${arr}"]),
    st.builds(lambda n, t: f'"${{{n}:-{t}}}"', st.sampled_from(NAMES), st.sampled_from(["d", "e f", ""])),
    st.builds(lambda n, t: f'"${{{n}:+{t}}}"', st.sampled_from(NAMES), st.sampled_from(["d", "e f"])),
    st.builds(lambda n, p: f'"${{{n}{p}}}"', st.sampled_from(NAMES),
              st.sampled_from(["#x", "##*x", "%y", "%%y*", "/x/X", "//x/", "/#x/Q", "/%y/Q", "^^", ",",
                               ":1", ":1:2", ": -2"])),
    st.builds(lambda n: f"pre${{{n}}}post", st.sampled_from(NAMES)),
    st.just("$(echo one two)"),
    st.just('"$(printf "%s-" x y)"'),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(assigns=st.lists(ASSIGN, min_size=1, max_size=4), uses=st.lists(USE, min_size=1, max_size=4))
def test_known_values_match_bash(assigns: list[str], uses: list[str],
                                 tmp_path_factory: pytest.TempPathFactory) -> None:
    cwd = tmp_path_factory.mktemp("bash-values")
    # Every variable starts set to a known value, as the reader cannot know the environment's.
    script = "a=0 b=1 c=2 arr=(); " + "; ".join(assigns) + "; printf '%s\\0' X " + " ".join(uses)
    result = parse(script)
    printing = [c for c in result.commands if c.argv[:2] == ["printf", "%s\\0"]]
    assert printing, script
    assert printing[-1].argv[2:] == bash_args(script, cwd), script
