"""The Luau tokenizer: turns a script's source into tokens that carry their line and column.

It follows Luau's lexical rules rather than Lua 5.4's: `goto` is an ordinary name, numbers may use
`0b`, `_` separators (and hexadecimal floats, which jouet accepts as well), unknown escapes such as
`\\q` stand for the character itself, lines are counted by `\\n` only, and backtick strings are cut
into pieces around their `{expression}`s. String values are decoded to bytes here, so the emitter can
write them back in a form Lua 5.4 reads the same way.
"""

from __future__ import annotations

import re
from bisect import bisect_right

KEYWORDS = frozenset((
    "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "if", "in", "local", "nil",
    "not", "or", "repeat", "return", "then", "true", "until", "while",
))

# Token kinds.
NAME = "name"
KEYWORD = "kw"
NUMBER = "num"
STRING = "str"
INTERP_BEGIN = "ibegin"  # `text{
INTERP_MID = "imid"  # }text{
INTERP_END = "iend"  # }text`
INTERP_SIMPLE = "isimple"  # `text` with no expression
OP = "op"
ATTRIBUTE = "attr"  # @native (value is the name without '@', empty for the @[...] form)
EOF = "eof"

_OPS3 = frozenset(("...", "..=", "//="))
_OPS2 = frozenset(("..", "//", "==", "~=", "<=", ">=", "::", "->", "+=", "-=", "*=", "/=", "%=", "^="))
_OPS1 = frozenset("+-*/%^#&|~<>=(){}[];:,.?!")

_SPACE_RE = re.compile(r"[ \t\r\n\v\f]+")
_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER_RE = re.compile(
    r"0[xX][0-9A-Fa-f_]*(?:\.[0-9A-Fa-f_]*)?(?:[pP][+-]?[0-9_]*)?[A-Za-z0-9_]*"
    r"|(?:[0-9]|\.[0-9])[0-9._]*(?:[eE][+-]?)?[A-Za-z0-9_]*"
)
_DECIMAL_RE = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_LONG_OPEN_RE = re.compile(r"\[(=*)\[")
_DIGITS_RE = re.compile(r"[0-9]{1,3}")
_HEX = frozenset("0123456789abcdefABCDEF")
_LINE_REST_RE = re.compile(r"[^\r\n]*")
_INT_EXACT = 2**53
_ULLONG_MAX = 2**64 - 1

_SIMPLE_ESCAPES = {
    "a": b"\a", "b": b"\b", "f": b"\f", "n": b"\n", "r": b"\r", "t": b"\t", "v": b"\v",
}


class LuauSyntaxError(Exception):
    """A Luau script that does not parse: where (file, line, column) and what is wrong.

    `str(error)` (and `message`) read `script.luau:3:14: message`, the form editors and terminals
    link to.
    """

    def __init__(self, chunkname: str, line: int, column: int, message: str) -> None:
        super().__init__(f"{chunkname}:{line}:{column}: {message}")
        self.message = str(self)
        self.chunkname = chunkname
        self.line = line
        self.column = column
        self.detail = message


class Token:
    """One token: its kind, its text (a number's as a Lua literal), a string's bytes, and where it starts."""

    __slots__ = ("col", "data", "end", "kind", "line", "pos", "value")

    def __init__(self, kind: str, value: str, data: bytes, line: int, col: int, pos: int, end: int) -> None:
        self.kind = kind
        self.value = value
        self.data = data
        self.line = line
        self.col = col
        self.pos = pos
        self.end = end

    def text(self) -> str:
        """How the token reads in an error message."""
        if self.kind == EOF:
            return "end of file"
        if self.kind in (NAME, KEYWORD, OP):
            return f"'{self.value}'"
        if self.kind == NUMBER:
            return "number"
        if self.kind == ATTRIBUTE:
            return f"attribute '@{self.value}'"
        if self.kind in (STRING, INTERP_SIMPLE):
            return "string"
        return "interpolated string"

    def __repr__(self) -> str:
        return f"Token({self.kind}, {self.value or self.data!r}, {self.line}:{self.col})"


def number_literal(text: str) -> str | None:
    """The Lua 5.4 literal for a Luau number token, or None when the token is malformed.

    Luau numbers are doubles. Integers that a double holds exactly (up to 2^53) stay Lua integers,
    so they print and concatenate as Luau shows them; anything larger, and every literal written with
    a point or an exponent, becomes a Lua float with the same value as Luau's double.
    """
    t = text.replace("_", "")
    low = t.lower()
    if low.startswith("0x") and len(t) > 2:
        body = low[2:]
        if "." in body or "p" in body:
            try:
                return _float_literal(float.fromhex(t))
            except (ValueError, OverflowError):
                return None
        try:
            return _int_literal(min(int(body, 16), _ULLONG_MAX))
        except ValueError:
            return None
    if low.startswith("0b") and len(t) > 2:
        try:
            return _int_literal(min(int(t[2:], 2), _ULLONG_MAX))
        except ValueError:
            return None
    if not _DECIMAL_RE.fullmatch(t):
        return None
    if "." in t or "e" in low:
        return _float_literal(float(t))
    return _int_literal(int(t))


def _int_literal(value: int) -> str:
    if value <= _INT_EXACT:
        return str(value)
    return _float_literal(float(value))


def _float_literal(value: float) -> str:
    if value == float("inf"):
        return "1e999"
    return repr(value)


class _Lexer:
    """The state of one tokenization: the source, where we are, and the open braces of interpolations."""

    def __init__(self, source: str, chunkname: str) -> None:
        self.src = source
        self.chunk = chunkname
        self.n = len(source)
        self.line_starts = [0]
        find = source.find
        at = find("\n")
        while at != -1:
            self.line_starts.append(at + 1)
            at = find("\n", at + 1)
        # One entry per '{' seen while an interpolation is open: True where the '{' opened an
        # expression inside a backtick string, False for an ordinary brace inside that expression.
        self.braces: list[bool] = []
        self.tokens: list[Token] = []

    # -- positions and errors -------------------------------------------------

    def where(self, pos: int) -> tuple[int, int]:
        line = bisect_right(self.line_starts, pos)
        return line, pos - self.line_starts[line - 1] + 1

    def error(self, pos: int, message: str) -> LuauSyntaxError:
        line, col = self.where(pos)
        return LuauSyntaxError(self.chunk, line, col, message)

    def add(self, kind: str, value: str, pos: int, end: int, data: bytes = b"") -> None:
        line, col = self.where(pos)
        self.tokens.append(Token(kind, value, data, line, col, pos, end))

    # -- the main loop ---------------------------------------------------------

    def run(self) -> list[Token]:
        src, n = self.src, self.n
        i = 0
        while True:
            m = _SPACE_RE.match(src, i)
            if m:
                i = m.end()
            if i >= n:
                self.add(EOF, "", n, n)
                return self.tokens
            c = src[i]
            if c.isascii() and (c.isalpha() or c == "_"):
                m = _NAME_RE.match(src, i)
                assert m is not None
                word = m.group()
                self.add(KEYWORD if word in KEYWORDS else NAME, word, i, m.end())
                i = m.end()
            elif (c.isdigit() and c.isascii()) or (c == "." and i + 1 < n and src[i + 1].isdigit()):
                i = self.number(i)
            elif c == "-" and src.startswith("--", i):
                i = self.comment(i)
            elif c == '"' or c == "'":
                i = self.quoted(i)
            elif c == "`":
                i = self.interp_section(i, i + 1, first=True)
            elif c == "[" and _LONG_OPEN_RE.match(src, i):
                i = self.long_string(i)
            elif c == "[" and src.startswith("[=", i):
                raise self.error(i, "invalid long string delimiter: expected '[' after the '='s")
            elif c == "{":
                if self.braces:
                    self.braces.append(False)
                self.add(OP, "{", i, i + 1)
                i += 1
            elif c == "}":
                if self.braces and self.braces.pop():
                    i = self.interp_section(i, i + 1, first=False)
                else:
                    self.add(OP, "}", i, i + 1)
                    i += 1
            elif c == "@":
                m = _NAME_RE.match(src, i + 1)
                end = m.end() if m else i + 1
                self.add(ATTRIBUTE, src[i + 1:end], i, end)
                i = end
            else:
                i = self.operator(i)

    def operator(self, i: int) -> int:
        src = self.src
        three = src[i:i + 3]
        if three in _OPS3:
            self.add(OP, three, i, i + 3)
            return i + 3
        two = three[:2]
        if two in _OPS2:
            self.add(OP, two, i, i + 2)
            return i + 2
        c = src[i]
        if c in _OPS1:
            self.add(OP, c, i, i + 1)
            return i + 1
        if c.isascii():
            raise self.error(i, f"unexpected character '{c}'")
        raise self.error(
            i, f"unexpected character '{c}' (U+{ord(c):04X}); outside strings and comments, use plain ASCII"
        )

    def number(self, i: int) -> int:
        m = _NUMBER_RE.match(self.src, i)
        assert m is not None
        text = m.group()
        literal = number_literal(text)
        if literal is None:
            raise self.error(i, f"malformed number '{text}'")
        self.add(NUMBER, literal, i, m.end())
        return m.end()

    def comment(self, i: int) -> int:
        src = self.src
        m = _LONG_OPEN_RE.match(src, i + 2)
        if m:
            close = "]" + m.group(1) + "]"
            end = src.find(close, m.end())
            if end == -1:
                raise self.error(i, "unfinished long comment: no closing '" + close + "'")
            return end + len(close)
        m = _LINE_REST_RE.match(src, i)
        assert m is not None
        return m.end()

    def long_string(self, i: int) -> int:
        src = self.src
        m = _LONG_OPEN_RE.match(src, i)
        assert m is not None
        close = "]" + m.group(1) + "]"
        end = src.find(close, m.end())
        if end == -1:
            raise self.error(i, "unfinished long string: no closing '" + close + "'")
        body = src[m.end():end]
        if body.startswith("\r\n"):
            body = body[2:]
        elif body.startswith("\n"):
            body = body[1:]
        body = body.replace("\r\n", "\n")
        self.add(STRING, "", i, end + len(close), body.encode("utf-8", "surrogatepass"))
        return end + len(close)

    def quoted(self, i: int) -> int:
        src, n = self.src, self.n
        quote = src[i]
        j = i + 1
        while True:
            if j >= n:
                raise self.error(i, "unfinished string: no closing " + quote)
            c = src[j]
            if c == quote:
                break
            if c == "\n" or c == "\r":
                raise self.error(i, "unfinished string: a line ends before its closing " + quote)
            if c == "\\":
                j = self.skip_escape(j)
            else:
                j += 1
        self.add(STRING, "", i, j + 1, self.decode(i + 1, j))
        return j + 1

    def skip_escape(self, j: int) -> int:
        """Past the escape that starts at the backslash at j (raw characters, not yet decoded)."""
        src, n = self.src, self.n
        j += 1
        if j >= n:
            return j
        c = src[j]
        if c == "\r":
            return j + 2 if src.startswith("\r\n", j) else j + 1
        if c == "z":
            m = _SPACE_RE.match(src, j + 1)
            return m.end() if m else j + 1
        return j + 1

    def interp_section(self, start: int, i: int, first: bool) -> int:
        """Read a backtick string from i up to its closing '`' or the '{' of its next expression."""
        src, n = self.src, self.n
        j = i
        while True:
            if j >= n or src[j] == "\n" or src[j] == "\r":
                raise self.error(start, "unfinished interpolated string: no closing '`' on this line")
            c = src[j]
            if c == "`":
                kind = INTERP_SIMPLE if first else INTERP_END
                self.add(kind, "", start, j + 1, self.decode(i, j))
                return j + 1
            if c == "{":
                if src.startswith("{{", j):
                    raise self.error(
                        j, "double braces are not allowed in an interpolated string; write '\\{' for a brace"
                    )
                self.braces.append(True)
                kind = INTERP_BEGIN if first else INTERP_MID
                self.add(kind, "", start, j + 1, self.decode(i, j))
                return j + 1
            if c == "\\":
                j = j + 3 if src.startswith("\\u{", j) else self.skip_escape(j)
            else:
                j += 1

    def decode(self, i: int, end: int) -> bytes:
        """The bytes that the string body src[i:end] stands for, escapes decoded the way Luau does."""
        src = self.src
        if src.find("\\", i, end) == -1:
            return src[i:end].encode("utf-8", "surrogatepass")
        out = bytearray()
        j = i
        while j < end:
            k = src.find("\\", j, end)
            if k == -1:
                out += src[j:end].encode("utf-8", "surrogatepass")
                break
            out += src[j:k].encode("utf-8", "surrogatepass")
            j = self.escape(k, end, out)
        return bytes(out)

    def escape(self, k: int, end: int, out: bytearray) -> int:
        src = self.src
        j = k + 1
        if j >= end:
            raise self.error(k, "malformed escape sequence: a backslash ends the string")
        c = src[j]
        if c == "\n":
            out += b"\n"
            return j + 1
        if c == "\r":
            out += b"\n"
            return j + 2 if src.startswith("\r\n", j) else j + 1
        if c == "x":
            digits = src[j + 1:min(j + 3, end)]
            if len(digits) != 2 or not all(d in _HEX for d in digits):
                raise self.error(k, "malformed escape sequence: '\\x' takes exactly two hexadecimal digits")
            out.append(int(digits, 16))
            return j + 3
        if c == "z":
            m = _SPACE_RE.match(src, j + 1, end)
            return m.end() if m else j + 1
        if c == "u":
            return self.unicode_escape(k, end, out)
        if c.isdigit() and c.isascii():
            m = _DIGITS_RE.match(src, j, end)
            assert m is not None
            code = int(m.group())
            if code > 255:
                raise self.error(k, f"malformed escape sequence: '\\{m.group()}' is above 255")
            out.append(code)
            return m.end()
        simple = _SIMPLE_ESCAPES.get(c)
        if simple is not None:
            out += simple
        else:
            # Luau reads any other escaped character as itself: \\ \" \' \` \{ and the rest.
            out += c.encode("utf-8", "surrogatepass")
        return j + 1

    def unicode_escape(self, k: int, end: int, out: bytearray) -> int:
        src = self.src
        j = k + 2
        if j >= end or src[j] != "{":
            raise self.error(k, "malformed escape sequence: '\\u' must be followed by '{'")
        close = src.find("}", j, end)
        digits = src[j + 1:close] if close != -1 else ""
        if close == -1 or not digits or len(digits) > 16 or not all(d in _HEX for d in digits):
            raise self.error(k, "malformed escape sequence: write '\\u{XXXX}' with 1 to 16 hex digits")
        code = int(digits, 16)
        if code >= 0x110000:
            raise self.error(k, "malformed escape sequence: the code point is above U+10FFFF")
        out += _utf8(code)
        return close + 1


def _utf8(code: int) -> bytes:
    """UTF-8 for a code point, surrogates included (as Luau encodes them)."""
    if code < 0x80:
        return bytes((code,))
    if code < 0x800:
        return bytes((0xC0 | code >> 6, 0x80 | code & 0x3F))
    if code < 0x10000:
        return bytes((0xE0 | code >> 12, 0x80 | code >> 6 & 0x3F, 0x80 | code & 0x3F))
    return bytes((0xF0 | code >> 18, 0x80 | code >> 12 & 0x3F, 0x80 | code >> 6 & 0x3F, 0x80 | code & 0x3F))


def tokenize(source: str, chunkname: str = "script.luau") -> list[Token]:
    """Every token of a Luau source, ending with an EOF token. Raises LuauSyntaxError."""
    return _Lexer(source, chunkname).run()
