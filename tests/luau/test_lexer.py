"""The Luau tokenizer: numbers, strings and escapes, interpolation pieces, positions."""

from __future__ import annotations

import pytest

from jouet_git.luau.lexer import (
    EOF,
    INTERP_BEGIN,
    INTERP_END,
    INTERP_MID,
    INTERP_SIMPLE,
    KEYWORD,
    NAME,
    NUMBER,
    OP,
    STRING,
    number_literal,
    tokenize,
)


def kinds(source: str) -> list[tuple[str, str | bytes]]:
    return [(t.kind, t.data if t.kind in (STRING, INTERP_BEGIN, INTERP_MID, INTERP_END, INTERP_SIMPLE)
             else t.value) for t in tokenize(source)[:-1]]


@pytest.mark.parametrize(("text", "literal"), [
    ("0", "0"),
    ("42", "42"),
    ("1_000", "1000"),
    ("0xff", "255"),
    ("0XFF", "255"),
    ("0x_f_f", "255"),
    ("0b101", "5"),
    ("0B1_1", "3"),
    ("9007199254740992", "9007199254740992"),
    ("9007199254740993", "9007199254740992.0"),
    ("0xFFFFFFFFFFFFFFFF", "1.8446744073709552e+19"),
    ("0x1FFFFFFFFFFFFFFFFF", "1.8446744073709552e+19"),
    ("1.5", "1.5"),
    ("3.", "3.0"),
    (".5", "0.5"),
    ("1e3", "1000.0"),
    ("1E-3", "0.001"),
    ("2.5e+2", "250.0"),
    ("1e999", "1e999"),
    ("0x1p4", "16.0"),
    ("0x1.8p1", "3.0"),
    ("0xA.8", "10.5"),
])
def test_number_literals(text: str, literal: str) -> None:
    assert number_literal(text) == literal


@pytest.mark.parametrize("text", ["0x", "0b", "0b2", "1e", "1e+", "1..2", "1.2.3", "12abc", "0xg", "1_e5x"])
def test_malformed_numbers(text: str) -> None:
    assert number_literal(text) is None


def test_number_tokens() -> None:
    toks = tokenize("a=1 b=.5 c=0x10")
    assert [(t.kind, t.value) for t in toks if t.kind == NUMBER] == [(NUMBER, "1"), (NUMBER, "0.5"), (NUMBER, "16")]


@pytest.mark.parametrize(("source", "value"), [
    (r'"plain"', b"plain"),
    (r"'single \'quoted\''", b"single 'quoted'"),
    (r'"\a\b\f\n\r\t\v\\\"\'"', b"\a\b\f\n\r\t\v\\\"'"),
    (r'"\x41\x7a"', b"Az"),
    (r'"\65\066\0671"', b"ABC1"),
    (r'"\0end"', b"\x00end"),
    (r'"\u{48}\u{e9}\u{263A}\u{1F600}"', "H\u00e9\u263a\U0001F600".encode()),
    (r'"\u{0000000041}"', b"A"),
    (r'"a\z   ' + "\n\t  " + r'b"', b"ab"),
    ('"line\\\nnext"', b"line\nnext"),
    ('"crlf\\\r\nnext"', b"crlf\nnext"),
    (r'"\q\`\{"', b"q`{"),
    ('"caf\u00e9"', "caf\u00e9".encode()),
    ("[[long]]", b"long"),
    ("[[\nskips first newline]]", b"skips first newline"),
    ("[[\r\nwindows]]", b"windows"),
    ("[==[with ]] and ]=] inside]==]", b"with ]] and ]=] inside"),
    ("[[a\r\nb]]", b"a\nb"),
    ("[[no \\n escapes]]", b"no \\n escapes"),
])
def test_string_values(source: str, value: bytes) -> None:
    toks = tokenize(source)
    assert [t.kind for t in toks] == [STRING, EOF]
    assert toks[0].data == value


def test_interpolated_string_pieces() -> None:
    assert kinds("`plain`") == [(INTERP_SIMPLE, b"plain")]
    assert kinds("`a {x} b {y} c`") == [
        (INTERP_BEGIN, b"a "), (NAME, "x"), (INTERP_MID, b" b "), (NAME, "y"), (INTERP_END, b" c"),
    ]
    assert kinds("`{ {1} }`") == [
        (INTERP_BEGIN, b""), (OP, "{"), (NUMBER, "1"), (OP, "}"), (INTERP_END, b""),
    ]
    assert kinds("`x {`y {z}`} w`") == [
        (INTERP_BEGIN, b"x "), (INTERP_BEGIN, b"y "), (NAME, "z"), (INTERP_END, b""), (INTERP_END, b" w"),
    ]
    assert kinds(r"`\{ \} \` \u{41}`") == [(INTERP_SIMPLE, b"{ } ` A")]
    assert kinds('`{"}"}`') == [(INTERP_BEGIN, b""), (STRING, b"}"), (INTERP_END, b"")]


def test_comments_and_whitespace_disappear() -> None:
    source = "--!strict\n-- line\n--[[ block\n]] --[==[ level ]==] x --[[]] y\n---[[ not a block\nz"
    assert kinds(source) == [(NAME, "x"), (NAME, "y"), (NAME, "z")]


def test_line_comment_ends_at_carriage_return() -> None:
    assert kinds("-- comment\rx") == [(NAME, "x")]


def test_keywords_names_and_operators() -> None:
    assert kinds("local goto continue type export") == [
        (KEYWORD, "local"), (NAME, "goto"), (NAME, "continue"), (NAME, "type"), (NAME, "export"),
    ]
    ops = "+ - * / // % ^ # == ~= <= >= < > = ( ) { } [ ] ; : :: , . .. ... -> += -= *= /= //= %= ^= ..= ? & |"
    assert [value for _, value in kinds(ops)] == ops.split()


def test_positions_count_lines_by_newline_and_columns_by_character() -> None:
    toks = tokenize("a\n  bb = [[x\ny]] c\r\nd")
    where = [(t.value or t.data, t.line, t.col) for t in toks[:-1]]
    assert where == [("a", 1, 1), ("bb", 2, 3), ("=", 2, 6), (b"x\ny", 2, 8), ("c", 3, 5), ("d", 4, 1)]


def test_attributes() -> None:
    toks = tokenize("@native @[checked] function")
    assert [(t.kind, t.value) for t in toks[:5]] == [
        ("attr", "native"), ("attr", ""), (OP, "["), (NAME, "checked"), (OP, "]"),
    ]
