"""Scripts that do not parse: the error names the file, the line and column, and what is wrong."""

from __future__ import annotations

import pytest

from jouet_git.luau.translate import LuauSyntaxError, translate

# (source, line, column, text the message contains)
CASES = [
    ("local x = 1\n\nlocal function f()\n  return 1\n", 5, 1,
     "expected 'end' to close 'function' at line 3, got end of file"),
    ("function outer()\n  if x then\n    return\n  end\n", 5, 1, "expected 'end' to close 'function' at line 1"),
    ("if x print(1) end", 1, 6, "expected 'then' after the condition of 'if' at line 1, got 'print'"),
    ("print((1 + 2)", 1, 14, "expected ')' to close '(' at line 1, got end of file"),
    ("for i = 1, 2 print(i) end", 1, 14, "expected 'do' in the 'for' loop at line 1, got 'print'"),
    ("while true\n  x()\nend", 2, 3, "expected 'do' after the condition of 'while' at line 1"),
    ("if x then\n  print(1)\nuntil y", 3, 1, "expected 'end' to close 'if' at line 1, got 'until'"),
    ("repeat\n  x()\n", 3, 1, "expected 'until' to close 'repeat' at line 1"),
    ("local t = {\n", 2, 1, "expected '}' to close '{' at line 1, got end of file"),
    ("local t = { a = 1 b = 2 }", 1, 19, "expected ',' or '}' after a table field"),
    ("goto done", 1, 1, "'goto' is not part of Luau"),
    ("continue", 1, 1, "'continue' must be inside a loop"),
    ("break", 1, 1, "'break' must be inside a loop"),
    ("for i = 1, 2 do\n  local function f()\n    continue\n  end\nend", 3, 5, "'continue' must be inside a loop"),
    ("repeat\n  if x then continue end\n  local y = 1\nuntil y", 4, 7,
     "local 'y' used in the repeat..until condition is undefined because the continue statement on line 2"),
    ("repeat\n  do continue end\n  local function g() end\nuntil g == nil", 4, 7,
     "local 'g' used in the repeat..until"),
    ("return 1\nprint(2)", 2, 1, "expected the end of the script after the last statement of its block"),
    ("for i = 1, 2 do\n  break\n  print(i)\nend", 3, 3, "expected 'end' to close 'for' at line 1, got 'print'"),
    ("local x = 0x", 1, 11, "malformed number '0x'"),
    ("local x = 1e", 1, 11, "malformed number '1e'"),
    ("local x = 1..2", 1, 11, "malformed number '1..2'"),
    ("local x = 0b102", 1, 11, "malformed number '0b102'"),
    ('local s = "abc', 1, 11, "unfinished string"),
    ("print('a\nb')", 1, 7, "unfinished string: a line ends before its closing '"),
    ("local s = [==[abc]=]", 1, 11, "unfinished long string: no closing ']==]'"),
    ("--[[ never closed", 1, 1, "unfinished long comment"),
    ("local s = [=x", 1, 11, "invalid long string delimiter"),
    ('local s = "\\xZZ"', 1, 12, "'\\x' takes exactly two hexadecimal digits"),
    ('local s = "\\u{110000}"', 1, 12, "above U+10FFFF"),
    ('local s = "\\u{}"', 1, 12, "write '\\u{XXXX}'"),
    ('local s = "\\300"', 1, 12, "'\\300' is above 255"),
    ("local s = `a {{b}}`", 1, 14, "double braces are not allowed in an interpolated string"),
    ("local s = `a {}`", 1, 15, "expected an expression inside '{}'"),
    ("local s = `abc", 1, 11, "unfinished interpolated string"),
    ("local s = `a {1 2}`", 1, 17, "expected '}' to end the expression in the interpolated string, got number"),
    ("if a != b then end", 1, 6, "unexpected '!='; Luau writes '~='"),
    ("if a && b then end", 1, 6, "unexpected '&&'; Luau writes 'and'"),
    ("if a || b then end", 1, 6, "unexpected '||'; Luau writes 'or'"),
    ("if !a then end", 1, 4, "unexpected '!'; Luau writes 'not'"),
    ("f() = 1", 1, 5, "expected a statement, got '='"),
    ("(f) = 1", 1, 1, "the left side of an assignment must be a variable or a field"),
    ("f() += 1", 1, 5, "expected a statement, got '+='"),
    ("x", 1, 2, "incomplete statement: expected an assignment or a function call"),
    ("local function f() return ... end", 1, 27, "'...' can only be used inside a function declared with '...'"),
    ("local __luau = 1", 1, 7, "names that start with '__luau' are reserved"),
    ("print(__luau_iter)", 1, 7, "names that start with '__luau' are reserved"),
    ("local x: = 1", 1, 10, "expected a type, got '='"),
    ("local x: function = f", 1, 10, "'function' is not a type"),
    ("function f() -> number end", 1, 14, "a function's return type is written after ':', not '->'"),
    ("type F = (number): string", 1, 18, "a function type's return type is written after '->', not ':'"),
    ("type F = ()", 1, 12, "expected '->' after '()' in a function type; did you mean 'nil'?"),
    ("type T = A | B & C", 1, 19, "mixing union and intersection types is not allowed"),
    ("type T = `x`", 1, 10, "interpolated strings cannot be used as types"),
    ("type T<A..., B> = A", 1, 14, "generic types come before generic type packs"),
    ("type = = 1", 1, 8, "expected an expression, got '='"),
    ("local x = if a then b", 1, 22, "expected 'else' in the if-then-else expression at line 1"),
    ("local f = g\n(h)()", 2, 1, "ambiguous syntax"),
    ("local x = $", 1, 11, "unexpected character '$'"),
    ("local caf\u00e9 = 1", 1, 10, "unexpected character '\u00e9' (U+00E9)"),
    ("local x <const> = 1", 1, 9, "local attributes such as <const> and <close> are not part of Luau"),
    ("t.end = 1", 1, 3, "'end' is a keyword and cannot be a field name"),
    ("function t:() end", 1, 12, "expected a name after ':' in a function name, got '('"),
    ("obj:method", 1, 11, "expected arguments after the method name 'method'"),
    ("@native local x = 1", 1, 9, "expected 'function' or 'local function' after an attribute, got 'local'"),
    ("local @native x = 1", 1, 15, "expected 'function' after 'local' and an attribute"),
    ("@native print(1)", 1, 9, "expected 'function' or 'local function' after an attribute"),
]


@pytest.mark.parametrize(("source", "line", "column", "text"), CASES)
def test_syntax_error(source: str, line: int, column: int, text: str) -> None:
    with pytest.raises(LuauSyntaxError) as caught:
        translate(source, "rules/check.luau")
    error = caught.value
    assert (error.line, error.column) == (line, column), str(error)
    assert text in error.detail
    assert str(error) == f"rules/check.luau:{line}:{column}: {error.detail}"


def test_error_says_where_with_the_default_chunk_name() -> None:
    with pytest.raises(LuauSyntaxError) as caught:
        translate("local function f()\n")
    assert str(caught.value) == "script.luau:2:1: expected 'end' to close 'function' at line 1, got end of file"
    assert caught.value.message == str(caught.value)
    assert caught.value.chunkname == "script.luau"


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    source = "local x = " + "(" * 400 + "1" + ")" * 400
    with pytest.raises(LuauSyntaxError) as caught:
        translate(source)
    assert "nests too deeply" in caught.value.detail


def test_columns_count_characters_not_bytes() -> None:
    with pytest.raises(LuauSyntaxError) as caught:
        translate('local s = "\u00e9\u00e9" local t = $')
    assert caught.value.column == 26
