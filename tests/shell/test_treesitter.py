"""Command boundaries checked against tree-sitter-bash (a test dependency only).

For every simple command, tree-sitter's `command` node and the reader's command must agree on
where it starts, where its words start (past assignments) and where its last word ends. The scripts
are generated from a small shell grammar (hypothesis), and the corpus of real agent commands in
tests/data/shell is checked too.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from testing import TESTS

from jouet_git.shell import parse

ts = pytest.importorskip("tree_sitter")
tsb = pytest.importorskip("tree_sitter_bash")

CORPUS = json.loads((TESTS / "data" / "shell" / "agent_commands.json").read_text())


def _parser() -> Any:
    return ts.Parser(ts.Language(tsb.language()))


PARSER = _parser()


def ts_commands(script: str) -> tuple[set[tuple[int, int, int]], bool]:
    """(start, words start, end) byte offsets of tree-sitter's simple commands, and whether it
    found a syntax error.

    The end takes in the redirections written after the command, which tree-sitter keeps beside
    it in a redirected_statement (here-document bodies left out). tree-sitter-bash also hangs a
    redirection that ends `a && b 2>&1` on the whole list; bash applies it to b, and so does this.
    `export X=1` is a declaration_command there and `[ -f x ]` a test_command; both count.
    """
    tree = PARSER.parse(script.encode())
    commands: dict[int, list[int]] = {}
    stack = [tree.root_node]
    redirected = []
    while stack:
        node = stack.pop()
        if node.type == "command":
            name = node.child_by_field_name("name")
            if name is not None:
                commands[node.start_byte] = [name.start_byte, node.end_byte]
        elif node.type in ("declaration_command", "unset_command") or (
            node.type == "test_command" and not node.text.startswith(b"[[")
        ):
            commands[node.start_byte] = [node.start_byte, node.end_byte]
        elif node.type == "redirected_statement":
            redirected.append(node)
        stack.extend(node.children)
    for statement in redirected:
        target = statement.children[0]
        while target.type in ("list", "pipeline") and target.children:
            target = target.children[-1]
        entry = commands.get(target.start_byte)
        if entry is None or target.type not in ("command", "declaration_command", "test_command"):
            continue
        for redirect in statement.children[1:]:
            if redirect.type == "heredoc_redirect":
                ends = [
                    c.end_byte for c in redirect.children if c.type not in ("heredoc_body", "heredoc_end")
                ]
                entry[1] = max([entry[1], *ends])
            elif redirect.type.endswith("redirect"):
                entry[1] = max(entry[1], redirect.end_byte)
    found = {(start, words, end) for start, (words, end) in commands.items()}
    return found, tree.root_node.has_error


def our_commands(script: str) -> set[tuple[int, int, int]]:
    out: set[tuple[int, int, int]] = set()
    for cmd in parse(script).commands:
        if cmd.span is None or not cmd.words or cmd.words[0] == "[[" or cmd.words_at is None:
            continue
        out.add((cmd.span[0] - 1, cmd.words_at - 1, cmd.span[1]))
    return out


# -- a generated corpus -------------------------------------------------------------------------

NAMES = st.sampled_from(
    ["git", "echo", "ls", "cargo", "make", "npm", "grep", "cat", "sudo", "rm", "cd", "tail"]
)
# No "=": tree-sitter-bash stops finding commands in $(...) after a word such as `==`.
PLAIN = st.text(st.sampled_from("abcxyz0123-_./:@%+,"), min_size=1, max_size=6)
REDIRECT = st.sampled_from([" > out", " 2>&1", " < in", " >> log", " &> all", " 2>/dev/null"])
WORD = st.one_of(
    PLAIN,
    st.text(st.sampled_from("ab c;&|()$#"), max_size=6).map(lambda t: f"'{t}'"),
    st.text(st.sampled_from("ab c;&|()#'"), max_size=6).map(lambda t: f'"{t}"'),
    st.sampled_from(["$HOME", "${x}", '"$y"', "$1", "-f", "--all", "*.py"]),
)
ASSIGN = st.tuples(st.sampled_from(["A", "RUST_LOG", "x"]), PLAIN).map(lambda t: f"{t[0]}={t[1]}")


def _simple(draw: Any, inner: Any) -> str:
    parts = draw(st.lists(ASSIGN, max_size=2))
    parts.append(draw(NAMES))
    for _ in range(draw(st.integers(0, 3))):
        if draw(st.integers(0, 5)) == 0:
            parts.append("$(" + draw(inner) + ")")
        else:
            parts.append(draw(WORD))
    return " ".join(parts) + "".join(draw(st.lists(REDIRECT, max_size=2)))


@st.composite
def scripts(draw: Any, depth: int = 0) -> str:
    inner = scripts(depth + 1) if depth < 2 else st.builds(lambda n: n, NAMES)

    def command() -> str:
        kind = draw(st.integers(0, 9 if depth < 2 else 0))
        if kind <= 3:
            return _simple(draw, inner)
        body = draw(inner)
        if kind == 4:
            return f"( {body} )"
        if kind == 5:
            return "{ " + body + "; }"
        if kind == 6:
            return f"if {_simple(draw, inner)}; then {body}; fi"
        if kind == 7:
            return f"while {_simple(draw, inner)}; do {body}; done"
        if kind == 8:
            return f"for v in {draw(WORD)} {draw(WORD)}; do {body}; done"
        return f"case {draw(WORD)} in a|b) {body};; *) {_simple(draw, inner)};; esac"

    def pipeline() -> str:
        return " | ".join(command() for _ in range(draw(st.integers(1, 3))))

    out = [pipeline()]
    for _ in range(draw(st.integers(0, 3))):
        # No newlines: tree-sitter-bash reads `a | b\nc` as a pipeline into `b c`.
        out.append(draw(st.sampled_from([" && ", " || ", "; ", " & "])))
        out.append(pipeline())
    return "".join(out)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(script=scripts())
def test_boundaries_match_tree_sitter(script: str) -> None:
    theirs, error = ts_commands(script)
    if error:
        return  # the generator aims at valid scripts; tree-sitter's own gaps are not the point
    # A script past a reading limit (more than 500 commands, once nested expansions multiply them) is
    # read only up to it, on purpose (the `unread` rule denies such a call): no boundary to compare.
    if any(p.startswith(("too many commands", "too much nested text")) for p in parse(script).problems):
        return
    assert our_commands(script) == theirs


@pytest.mark.parametrize("script", CORPUS, ids=[c.split("\n")[0][:50] for c in CORPUS])
def test_agent_corpus_matches_tree_sitter(script: str) -> None:
    theirs, error = ts_commands(script)
    assert not error
    assert not parse(script).incomplete
    assert our_commands(script) == theirs
