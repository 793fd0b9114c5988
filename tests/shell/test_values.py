"""Values known from earlier in the same call: variables, arrays, parameters, functions, aliases and
pure command substitutions are expanded as the shell would, with its scoping; a value that is not
known stays as written."""

from __future__ import annotations

import pytest

from jouet_git.shell import expand, parse, reader

RESET = ["git", "reset", "--hard"]


def argvs(script: str) -> list[list[str]]:
    """The argv of every command the script runs (assignments alone left out)."""
    return [c.argv for c in parse(script).commands if c.argv]


@pytest.mark.parametrize(
    "script",
    [
        "g=git; $g reset --hard",
        "g=git\n$g reset --hard",
        "f=--hard; git reset $f",
        "c='git reset'; $c --hard",
        'c="git reset --hard"; $c',
        "g=git && ${g} reset --hard",
        'g=git; "$g" reset "--hard"',
        'g=git; "${g}" reset --hard',
        "export G=git; $G reset --hard",
        "declare g=git; $g reset --hard",
        "declare -r g=git; $g reset --hard",
        "typeset -x g=git; $g reset --hard",
        "readonly g=git; $g reset --hard",
        "f() { local g=git; $g reset --hard; }; f",
        "h=ha; h+=rd; git reset --$h",
        "x=git; y=$x; $y reset --hard",
        "x=it; g=g$x; $g reset --hard",
        "${X:-git} reset --hard",
        "${X-git} reset --hard",
        "${X:=git} reset --hard",
        ": ${X:=git}; $X reset --hard",
        "X=; ${X:-git} reset --hard",
        "X=git; ${X:+git} reset --hard",
        "x=gXit; ${x/X/} reset --hard",
        "x=gXiXt; ${x//X} reset --hard",
        "x=tig; git reset --${x/#tig/hard}",
        "x=GIT; ${x,,} reset --hard",
        "x=git; ${x^^} reset --HARD; ${x} reset --hard",
        "x=xxgit; ${x#xx} reset --hard",
        "x=a.git; ${x##*.} reset --hard",
        "x=git.sh; ${x%.sh} reset --hard",
        "x=git.a.b; ${x%%.*} reset --hard",
        "x=abgitcd; ${x:2:3} reset --hard",
        "x=abgit; ${x: -3} reset --hard",
        "n=g; v=git; m=v; ${!m} reset --hard",
        "a=(git reset --hard); \"${a[@]}\"",
        "a=(git reset --hard); ${a[*]}",
        "a=(git status); a+=(x); a[1]=reset; git reset --hard",
        "a=(x git reset --hard); \"${a[@]:1}\"",
        "a=(git reset); ${a[0]} ${a[1]} --hard",
        "declare -a a=(git reset --hard); \"${a[@]}\"",
        "local -a a=(git reset --hard); \"${a[@]}\"",
        "git reset $(echo --hard)",
        "git reset `echo --hard`",
        'git reset "$(printf -- --hard)"',
        "g=$(echo git); $g reset --hard",
        "g=$(printf %s git); f=$(echo --hard); $g reset $f",
        "x=$(echo Z2l0IHJlc2V0IC0taGFyZA== | base64 -d); $x",
        "printf -v g %s git; $g reset --hard",
        "set -- git reset --hard; \"$@\"",
        "set -- x git reset --hard; shift; \"$@\"",
        "set -- reset --hard; git $1 $2",
        "f() { git reset \"$@\"; }; f --hard",
        "f() { $1 reset --hard; }; f git",
        "function f { git \"$1\" --hard; }; f reset",
        "alias g='git reset'; g --hard",
        "for c in status 'reset --hard'; do git $c; done",
        "for g in git; do $g reset --hard; done",
        "IFS=,; c=git,reset,--hard; $c",
        "IFS=:; c=git:reset:--hard; $c",
        "g=git; eval '$g reset --hard'",
        "eval g=git; $g reset --hard",
        "cmd=git; sudo $cmd reset --hard",
        "w=timeout; $w 5 git reset --hard",
        "f=--hard; env git reset $f",
        "g=git; (cd . && $g reset --hard)",
        "g=git; { $g reset --hard; }",
        "g=git; echo x | $g reset --hard",
        "export g=git; bash -c '$g reset --hard'",
        "g=git; bash -c \"$g reset --hard\"",
        "g=git; xargs $g reset --hard < /dev/null",
    ],
)
def test_known_values_are_expanded(script: str) -> None:
    assert RESET in argvs(script), [(c.argv, c.nested) for c in parse(script).commands]


@pytest.mark.parametrize(
    "script",
    [
        # Scoping: a subshell, $(...), a pipeline element, a background list, a child shell.
        "(g=git); $g reset --hard",
        "x=$(g=git); $g reset --hard",
        "g=git | cat; $g reset --hard",
        "g=git & $g reset --hard",
        "g=git; bash -c '$g reset --hard'",
        # Assignments before a command are for its environment only, not its own words.
        "g=git $g reset --hard",
        "g=git true; $g reset --hard",
        # Gone or unknown values.
        "g=git; unset g; $g reset --hard",
        "g=git; read g; $g reset --hard",
        "g=git; g=$(cat f); $g reset --hard",
        "g=git; declare -n g=h; $g reset --hard",
        "f=--hard; f=$FLAG; git reset $f",
        "$G reset --hard",
        "git reset $FLAGS",
        "git reset $(cat flags)",
        "for g in $(ls); do $g reset --hard; done",
        "select g in git; do $g reset --hard; done",
        # Quotes keep a value one word: "git reset --hard" is one (unknown) program.
        'c="git reset --hard"; "$c"',
        # A function's body is read again only where it is called.
        "f() { $1 reset --hard; }; f echo",
    ],
)
def test_values_that_do_not_reach_the_command(script: str) -> None:
    assert RESET not in argvs(script), [(c.argv, c.nested) for c in parse(script).commands]


def test_unknown_values_stay_as_written() -> None:
    assert argvs("git reset $F ${G} \"$H\"") == [["git", "reset", "$F", "${G}", "$H"]]
    assert argvs("x=$(date); echo $x") == [["echo", "$(date)"], ["date"]]
    # A value made with something unknown is kept with that part as written, and is not fed to a
    # shell as if it were known.
    assert argvs("t=$GITHUB_TOKEN; echo $t") == [["echo", "$GITHUB_TOKEN"]]
    cmds = parse("x=$(date); echo \"git $x\" | sh").commands
    assert not [c for c in cmds if c.via == ["sh"]]


def test_assignments_show_their_values() -> None:
    cmd = parse("g=git; X=$g Y=\"$(echo a b)\" make").commands[1]
    assert cmd.env == {"X": "git", "Y": "a b"}
    assert parse("f=.env; cat < $f").commands[1].stdin_from == ".env"
    assert parse("f=.env; cat <<< \"$f\"").commands[1].heredocs == [".env"]


def test_field_splitting() -> None:
    assert argvs("x='a  b'; printf %s $x") == [["printf", "%s", "a", "b"]]
    assert argvs("x='a  b'; printf %s \"$x\"") == [["printf", "%s", "a  b"]]
    assert argvs("x=; printf %s $x \"$x\" z") == [["printf", "%s", "", "z"]]
    assert argvs("a=('x y' z); printf %s \"${a[@]}\"") == [["printf", "%s", "x y", "z"]]
    assert argvs("a=('x y' z); printf %s ${a[@]}") == [["printf", "%s", "x", "y", "z"]]
    assert argvs("a=('x y' z); printf %s \"${a[*]}\"") == [["printf", "%s", "x y z"]]
    assert argvs("IFS=,; x=a,,b; printf %s $x") == [["printf", "%s", "a", "", "b"]]
    assert argvs("x='*.py'; ls $x") == [["ls", "*.py"]]  # globs are kept as written


def test_loop_values_are_each_read() -> None:
    cmds = parse("for f in a.txt b.txt; do git checkout -- $f; done").commands
    assert [c.argv for c in cmds] == [["git", "checkout", "--", "a.txt"], ["git", "checkout", "--", "b.txt"]]
    assert [c.nested for c in cmds] == [False, True]


def test_recursive_functions_are_not_read_forever() -> None:
    result = parse("f() { f; git status; }; f")
    assert not result.incomplete
    assert sum(1 for c in result.commands if c.argv == ["git", "status"]) == 2


def test_piece_kinds_agree_with_expand() -> None:
    assert (reader._SPLIT, reader._QUOTED, reader._LIST_SPLIT, reader._LIST_QUOTED) == (
        expand.SPLIT, expand.QUOTED, expand.LIST_SPLIT, expand.LIST_QUOTED)


@pytest.mark.parametrize(
    ("inner", "values", "expected"),
    [
        ("x", {"x": "v"}, "v"),
        ("#x", {"x": "abc"}, "3"),
        ("#a[@]", {"a": ["p", "q"]}, "2"),
        ("x:-d", {}, "d"),
        ("x:-d", {"x": ""}, "d"),
        ("x-d", {"x": ""}, ""),
        ("x:+alt", {"x": "v"}, "alt"),
        ("x:+alt", {}, None),
        ("x:-$y", {"y": "w"}, "w"),
        ("x:-\"a b\"", {}, "a b"),
        ("x:-$(cmd)", {}, None),
        ("x#*/", {"x": "a/b/c"}, "b/c"),
        ("x##*/", {"x": "a/b/c"}, "c"),
        ("x%/*", {"x": "a/b/c"}, "a/b"),
        ("x%%/*", {"x": "a/b/c"}, "a"),
        ("x/b/B", {"x": "abab"}, "aBab"),
        ("x//b/B", {"x": "abab"}, "aBaB"),
        ("x/%b/B", {"x": "abab"}, "abaB"),
        ("x/#a/A", {"x": "abab"}, "Abab"),
        ("x:1:2", {"x": "abcd"}, "bc"),
        ("x: -2", {"x": "abcd"}, "cd"),
        ("x^", {"x": "abc"}, "Abc"),
        ("x@U", {"x": "abc"}, "ABC"),
        ("x@Q", {"x": "a b"}, "'a b'"),
        ("!r", {"r": "x", "x": "v"}, "v"),
        ("a[1]", {"a": ["p", "q"]}, "q"),
        ("a[-1]", {"a": ["p", "q"]}, "q"),
        ("a[@]", {"a": ["p", "q"]}, ["p", "q"]),
        ("a[@]:1", {"a": ["p", "q", "r"]}, ["q", "r"]),
        ("y", {}, None),
    ],
)
def test_param(inner: str, values: dict[str, expand.Value], expected: expand.Value | None) -> None:
    assert expand.param(inner, values.get, lambda name, value: None) == expected


def test_pattern_operations_on_long_values_are_not_worked_out() -> None:
    big = "a" * (expand.MAX_PATTERN_VALUE + 1)
    assert expand.param("x//a/b", {"x": big}.get, lambda n, v: None) is None
