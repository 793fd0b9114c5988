"""What a pure command prints, worked out without running it.

A pure command's output depends only on its words and its input: echo, printf, cat of a
here-document, and filters such as base64 -d, tr, rev, sed 's/a/b/', head, cut, xxd -r -p. The reader
uses this to know what `echo 'git reset --hard' | sh`, `$(printf ...)` or `echo --hard | xargs git
reset` really run. Anything else (a file it may not read, an option it does not know) gives None:
unknown, never a guess.

Imported by the reader only when a pipe, a substitution or a here-document feeds a command.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    # Reads a file a command names: its text, or None when it may not or cannot be read.
    FileReader = Callable[[str], "str | None"]

# Output larger than this is not worked out (the caller counts what it gets against its budget).
MAX_OUTPUT = 1 << 20

_ECHO_ESCAPES = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
                 "t": "\t", "v": "\v", "\\": "\\"}


def output(argv: list[str], stdin: str | None, read_file: FileReader) -> str | None:
    """What argv prints given stdin (None: no input known), or None when that cannot be known."""
    if not argv:
        return ""
    name = argv[0].rpartition("/")[2]
    how = _PROGRAMS.get(name)
    if how is None:
        return None
    try:
        out = how(argv[1:], stdin, read_file)
    except (ValueError, IndexError, OverflowError, UnicodeError, re.error, RecursionError):
        return None
    if out is not None and len(out) > MAX_OUTPUT:
        return None
    return out


def _unknown(text: str) -> bool:
    """Whether a word still holds an expansion jouet could not work out."""
    return "$" in text or "`" in text


def _echo(args: list[str], stdin: str | None, read_file: FileReader) -> str | None:
    newline = True
    escapes = False
    i = 0
    while i < len(args) and len(args[i]) > 1 and args[i][0] == "-" and all(c in "neE" for c in args[i][1:]):
        for c in args[i][1:]:
            if c == "n":
                newline = False
            elif c == "e":
                escapes = True
            else:
                escapes = False
        i += 1
    text = " ".join(args[i:])
    if escapes:
        text, stop = _backslashes(text, echo=True)
        if stop:
            return text
    return text + "\n" if newline else text


def _backslashes(text: str, echo: bool) -> tuple[str, bool]:
    """text with echo -e / printf %b escapes decoded, and whether \\c cut it short."""
    out: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        d = text[i + 1]
        i += 2
        if d in _ECHO_ESCAPES:
            out.append(_ECHO_ESCAPES[d])
        elif d == "c":
            return "".join(out), True
        elif d == "0" or (d in "1234567" and not echo):
            j = i
            limit = i + 3 if d == "0" else i + 2
            while j < n and j < limit and text[j] in "01234567":
                j += 1
            digits = text[i:j] if d == "0" else d + text[i:j]
            out.append(_byte(int(digits or "0", 8) & 0xFF))
            i = j
        elif d == "x":
            j = i
            while j < n and j < i + 2 and text[j] in "0123456789abcdefABCDEF":
                j += 1
            if j == i:
                out.append("\\x")
            else:
                out.append(_byte(int(text[i:j], 16)))
                i = j
        elif d in "uU":
            j = i
            while j < n and j < i + (4 if d == "u" else 8) and text[j] in "0123456789abcdefABCDEF":
                j += 1
            if j == i:
                out.append("\\" + d)
            else:
                out.append(chr(min(int(text[i:j], 16), 0x10FFFF)))
                i = j
        else:
            out.append("\\" + d)
    return _join_bytes("".join(out)), False


def _byte(value: int) -> str:
    return chr(value) if value < 0x80 else chr(0xDC00 + value)


def _join_bytes(text: str) -> str:
    if not any("\udc80" <= c <= "\udcff" for c in text):
        return text
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "surrogateescape")
    except UnicodeError:
        return text


# A printf conversion; compiled on the first printf run (re caches it), not on every import.
_FORMAT = r"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?([sbqdiouxXcfeEgGaA%])"


def _printf(args: list[str], stdin: str | None, read_file: FileReader) -> str | None:
    if args and args[0] == "--":
        args = args[1:]
    if not args or args[0].startswith("-v"):
        return None  # printf -v assigns a variable and prints nothing here
    fmt = args[0]
    rest = args[1:]
    out: list[str] = []
    first = True
    while first or rest:
        used = 0
        pos = 0
        for m in re.finditer(_FORMAT, fmt):
            text, stop = _backslashes(fmt[pos : m.start()], echo=False)
            out.append(text)
            if stop:
                return "".join(out)
            pos = m.end()
            flags, width, precision, conv = m.groups()
            if conv == "%":
                out.append("%")
                continue
            if width == "*":
                width = rest[used] if used < len(rest) else "0"
                used += 1
            if precision == "*":
                precision = rest[used] if used < len(rest) else "0"
                used += 1
            arg = rest[used] if used < len(rest) else None
            used += 1
            piece = _conversion(conv, arg)
            if piece is None:
                return None
            if conv == "b":
                piece, stop = _backslashes(piece, echo=False)
                if stop:
                    out.append(piece)
                    return "".join(out)
            if precision is not None and conv in "sbq":
                piece = piece[: int(precision)]
            if width:
                size = int(width)
                if size > MAX_OUTPUT:
                    return None
                if "-" in flags:
                    piece = piece.ljust(size)
                elif "0" in flags and conv in "diouxX":
                    piece = piece.rjust(size, "0")
                else:
                    piece = piece.rjust(size)
            out.append(piece)
        text, stop = _backslashes(fmt[pos:], echo=False)
        out.append(text)
        if stop:
            break
        first = False
        if used == 0:
            break
        rest = rest[used:]
    return "".join(out)


def _conversion(conv: str, arg: str | None) -> str | None:
    if conv in "sb":
        return arg or ""
    if conv == "q":
        if arg is None or arg == "":
            return "''"
        if all(c.isalnum() or c in "@%+=:,./-_" for c in arg):
            return arg
        return "'" + arg.replace("'", "'\\''") + "'"
    if conv == "c":
        return (arg or "")[:1]
    value = _number(arg)
    if value is None:
        return None
    if conv in "di":
        return str(value)
    if conv == "u":
        return str(value % (1 << 64))
    if conv == "o":
        return format(value, "o")
    if conv == "x":
        return format(value, "x")
    if conv == "X":
        return format(value, "X")
    return None  # floating point: not worth guessing


def _number(arg: str | None) -> int | None:
    if arg is None or arg == "":
        return 0
    text = arg.strip()
    if len(text) > 1 and text[0] in "'\"":
        return ord(text[1])
    sign = -1 if text.startswith("-") else 1
    digits = text.lstrip("+-")
    try:
        if digits[:2] in ("0x", "0X"):
            return sign * int(digits[2:], 16)
        if digits.startswith("0") and len(digits) > 1:
            return sign * int(digits, 8)
        return sign * int(digits)
    except ValueError:
        return None


def _cat(args: list[str], stdin: str | None, read_file: FileReader) -> str | None:
    files = [a for a in args if a != "-u"]
    if any(a.startswith("-") and a != "-" for a in files):
        return None
    if not files:
        return stdin
    out: list[str] = []
    for name in files:
        text = stdin if name == "-" else (None if _unknown(name) else read_file(name))
        if text is None:
            return None
        out.append(text)
    return "".join(out)


def _input(args: list[str], stdin: str | None, read_file: FileReader) -> str | None:
    """The input of a filter: its one file operand, or stdin."""
    files = [a for a in args if not a.startswith("-") or a == "-"]
    if not files or files == ["-"]:
        return stdin
    if len(files) > 1 or _unknown(files[0]):
        return None
    return read_file(files[0])


def _base64(args: list[str], stdin: str | None, read_file: FileReader) -> str | None:
    import binascii

    decode = False
    operands: list[str] = []
    for a in args:
        if a in ("-d", "--decode", "-D", "-di", "-id"):
            decode = True
        elif a in ("-i", "--ignore-garbage", "-w0") or a.startswith("--wrap") or a.startswith("-w"):
            continue
        elif a.startswith("-") and a != "-":
            return None
        else:
            operands.append(a)
    text = _input(operands, stdin, read_file)
    if text is None:
        return None
    data = text.encode("utf-8", "surrogateescape")
    if decode:
        cleaned = bytes(b for b in data if b not in b" \t\r\n")
        cleaned += b"=" * (-len(cleaned) % 4)
        try:
            raw = binascii.a2b_base64(cleaned)
        except binascii.Error:
            return None
        return raw.decode("utf-8", "surrogateescape")
    encoded = binascii.b2a_base64(data, newline=False).decode("ascii")
    return "\n".join(encoded[k : k + 76] for k in range(0, len(encoded), 76)) + "\n"


def _lines(text: str) -> list[str]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _rev(args: list[str], stdin: str | None, read_file: FileReader) -> str | None:
    text = _input(args, stdin, read_file)
    if text is None:
        return None
    return "".join(line[::-1] + "\n" for line in _lines(text))


def _tac(args: list[str], stdin: str | None, read_file: FileReader) -> str | None:
    text = _input(args, stdin, read_file)
    if text is None:
        return None
    return "".join(line + "\n" for line in reversed(_lines(text)))


def _sort(args: list[str], stdin: str | None, read_file: FileReader) -> str | None:
    reverse = False
    operands = []
    for a in args:
        if a in ("-r", "--reverse"):
            reverse = True
        elif a.startswith("-") and a != "-":
            return None
        else:
            operands.append(a)
    text = _input(operands, stdin, read_file)
    if text is None:
        return None
    return "".join(line + "\n" for line in sorted(_lines(text), reverse=reverse))


def _uniq(args: list[str], stdin: str | None, read_file: FileReader) -> str | None:
    if args:
        return None
    if stdin is None:
        return None
    out: list[str] = []
    for line in _lines(stdin):
        if not out or out[-1] != line:
            out.append(line)
    return "".join(line + "\n" for line in out)


def _head_tail(args: list[str], stdin: str | None, read_file: FileReader, head: bool) -> str | None:
    count = 10
    by_bytes = False
    from_start = False
    operands: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-n", "-c", "--lines", "--bytes") and i + 1 < len(args):
            value = args[i + 1]
            by_bytes = a in ("-c", "--bytes")
            i += 2
        elif a.startswith(("-n", "-c")) and len(a) > 2:
            value = a[2:]
            by_bytes = a[1] == "c"
            i += 1
        elif a.startswith(("--lines=", "--bytes=")):
            value = a.partition("=")[2]
            by_bytes = a.startswith("--bytes")
            i += 1
        elif len(a) > 1 and a[0] == "-" and a[1:].isdigit():
            value = a[1:]
            i += 1
        elif a.startswith("-") and a != "-":
            return None
        else:
            operands.append(a)
            i += 1
            continue
        from_start = value.startswith("+")
        count = int(value.lstrip("+-"))
    text = _input(operands, stdin, read_file)
    if text is None:
        return None
    if by_bytes:
        if head:
            return text[:count]
        return text[count - 1 :] if from_start else (text[-count:] if count else "")
    lines = _lines(text)
    if head:
        kept = lines[:count]
    elif from_start:
        kept = lines[max(count - 1, 0) :]
    else:
        kept = lines[-count:] if count else []
    return "".join(line + "\n" for line in kept)


def _head(args: list[str], stdin: str | None, read_file: FileReader) -> str | None:
    return _head_tail(args, stdin, read_file, True)


def _tail(args: list[str], stdin: str | None, read_file: FileReader) -> str | None:
    return _head_tail(args, stdin, read_file, False)


_TR_CLASSES = {
    "upper": "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "lower": "abcdefghijklmnopqrstuvwxyz",
    "digit": "0123456789", "space": " \t\n\r\v\f", "blank": " \t",
    "alpha": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
    "alnum": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
    "punct": "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~",
}


def _tr_set(spec: str) -> str | None:
    out: list[str] = []
    i = 0
    n = len(spec)
    while i < n:
        if spec.startswith("[:", i):
            j = spec.find(":]", i + 2)
            if j < 0 or spec[i + 2 : j] not in _TR_CLASSES:
                return None
            out.append(_TR_CLASSES[spec[i + 2 : j]])
            i = j + 2
            continue
        c = spec[i]
        if c == "\\" and i + 1 < n:
            d = spec[i + 1]
            c = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\"}.get(d, d)
            i += 2
        else:
            i += 1
        if i + 1 < n and spec[i] == "-":
            end = spec[i + 1]
            if ord(end) < ord(c) or ord(end) - ord(c) > 4096:
                return None
            out.append("".join(chr(k) for k in range(ord(c), ord(end) + 1)))
            i += 2
        else:
            out.append(c)
    return "".join(out)


def _tr(args: list[str], stdin: str | None, read_file: FileReader) -> str | None:
    if stdin is None:
        return None
    delete = False
    squeeze = False
    operands: list[str] = []
    for a in args:
        if a in ("-d", "--delete"):
            delete = True
        elif a in ("-s", "--squeeze-repeats"):
            squeeze = True
        elif a in ("-ds", "-sd"):
            delete = squeeze = True
        elif a.startswith("-") and len(a) > 1:
            return None
        else:
            operands.append(a)
    sets = [_tr_set(o) for o in operands]
    if any(s is None for s in sets) or not sets:
        return None
    first = sets[0] or ""
    if delete:
        if len(sets) != 1 and not squeeze:
            return None
        text = stdin.translate({ord(c): None for c in first})
        return _squeeze(text, sets[1] or "") if squeeze and len(sets) > 1 else text
    if len(sets) != 2:
        return _squeeze(stdin, first) if squeeze and len(sets) == 1 else None
    second = sets[1] or ""
    if not second:
        return None
    second = second + second[-1] * max(0, len(first) - len(second))
    table = {ord(a): b for a, b in zip(first, second, strict=False)}
    text = stdin.translate(table)
    return _squeeze(text, second) if squeeze else text


def _squeeze(text: str, chars: str) -> str:
    out: list[str] = []
    for c in text:
        if out and out[-1] == c and c in chars:
            continue
        out.append(c)
    return "".join(out)


def _sed(args: list[str], stdin: str | None, read_file: FileReader) -> str | None:
    extended = False
    scripts: list[str] = []
    operands: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-E", "-r", "--regexp-extended"):
            extended = True
        elif a in ("-e", "--expression") and i + 1 < len(args):
            scripts.append(args[i + 1])
            i += 1
        elif a.startswith("-e") and len(a) > 2:
            scripts.append(a[2:])
        elif a.startswith("-") and a != "-":
            return None
        else:
            operands.append(a)
        i += 1
    if not scripts:
        if not operands:
            return None
        scripts.append(operands.pop(0))
    text = _input(operands, stdin, read_file)
    if text is None:
        return None
    subs = []
    for script in scripts:
        for part in _sed_commands(script):
            got = _sed_sub(part, extended)
            if got is None:
                return None
            subs.append(got)
    out: list[str] = []
    for line in _lines(text):
        for regex, repl, count in subs:
            line = regex.sub(repl, line, count=count)
        out.append(line + "\n")
    return "".join(out)


def _sed_commands(script: str) -> list[str]:
    """The commands of a sed script separated by `;` or newlines (only s commands are read)."""
    out: list[str] = []
    i = 0
    n = len(script)
    while i < n:
        while i < n and script[i] in " \t\n;":
            i += 1
        if i >= n:
            break
        if script[i] != "s" or i + 1 >= n:
            return [script[i:]]  # not an s command: refused by _sed_sub
        delim = script[i + 1]
        j = i + 2
        seen = 0
        while j < n and seen < 2:
            if script[j] == "\\":
                j += 2
                continue
            if script[j] == delim:
                seen += 1
            j += 1
        while j < n and script[j] not in ";\n":
            j += 1
        out.append(script[i:j])
        i = j
    return out


def _sed_sub(command: str, extended: bool) -> tuple[re.Pattern[str], Callable[[re.Match[str]], str], int] | None:
    if len(command) < 4 or command[0] != "s":
        return None
    delim = command[1]
    parts: list[str] = []
    cur: list[str] = []
    i = 2
    while i < len(command):
        c = command[i]
        if c == "\\" and i + 1 < len(command):
            nxt = command[i + 1]
            cur.append(nxt if nxt == delim else c + nxt)
            i += 2
            continue
        if c == delim and len(parts) < 2:
            parts.append("".join(cur))
            cur = []
            i += 1
            continue
        cur.append(c)
        i += 1
    if len(parts) != 2:
        return None
    pattern, replacement = parts
    flags = "".join(cur).strip()
    count = 1
    re_flags = 0
    for f in flags:
        if f == "g":
            count = 0
        elif f in "iI":
            re_flags |= re.IGNORECASE
        elif not f.isdigit():
            return None
    regex = re.compile(pattern if extended else _bre(pattern), re_flags)

    def repl(m: re.Match[str]) -> str:
        out: list[str] = []
        k = 0
        while k < len(replacement):
            c = replacement[k]
            if c == "&":
                out.append(m.group(0))
            elif c == "\\" and k + 1 < len(replacement):
                d = replacement[k + 1]
                k += 1
                if d.isdigit():
                    out.append(m.group(int(d)) or "")
                elif d == "n":
                    out.append("\n")
                elif d == "t":
                    out.append("\t")
                else:
                    out.append(d)
            else:
                out.append(c)
            k += 1
        return "".join(out)

    return regex, repl, count


def _bre(pattern: str) -> str:
    """A POSIX basic regular expression as a Python one."""
    out: list[str] = []
    i = 0
    n = len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            d = pattern[i + 1]
            out.append(d if d in "(){}|+?" else "\\" + d)
            i += 2
            continue
        if c in "(){}|+?":
            out.append("\\" + c)
        else:
            out.append(c)
        i += 1
    return "".join(out)


def _cut(args: list[str], stdin: str | None, read_file: FileReader) -> str | None:
    delim = "\t"
    fields: str | None = None
    chars: str | None = None
    operands: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-d", "-f", "-c", "-b") and i + 1 < len(args):
            value = args[i + 1]
            i += 2
        elif a[:2] in ("-d", "-f", "-c", "-b") and len(a) > 2:
            value = a[2:]
            i += 1
        elif a.startswith("-") and a != "-":
            return None
        else:
            operands.append(a)
            i += 1
            continue
        if a[1] == "d":
            delim = value[:1] or "\t"
        elif a[1] == "f":
            fields = value
        else:
            chars = value
    text = _input(operands, stdin, read_file)
    if text is None or (fields is None) == (chars is None):
        return None
    picks = _ranges(fields or chars or "")
    if picks is None:
        return None
    out: list[str] = []
    for line in _lines(text):
        if chars is not None:
            out.append("".join(c for k, c in enumerate(line, 1) if picks(k)) + "\n")
        elif delim not in line:
            out.append(line + "\n")
        else:
            out.append(delim.join(f for k, f in enumerate(line.split(delim), 1) if picks(k)) + "\n")
    return "".join(out)


def _ranges(spec: str) -> Callable[[int], bool] | None:
    spans: list[tuple[int, int]] = []
    for part in spec.split(","):
        low, dash, high = part.partition("-")
        try:
            a = int(low) if low else 1
            b = (int(high) if high else 1 << 30) if dash else a
        except ValueError:
            return None
        spans.append((a, b))
    return lambda k: any(a <= k <= b for a, b in spans)


def _xxd(args: list[str], stdin: str | None, read_file: FileReader) -> str | None:
    flags = "".join(a[1:] for a in args if a.startswith("-"))
    operands = [a for a in args if not a.startswith("-")]
    if set(flags) - set("rps") or "r" not in flags or "p" not in flags:
        return None
    text = _input(operands, stdin, read_file)
    if text is None:
        return None
    digits = "".join(c for c in text if c in "0123456789abcdefABCDEF")
    if len(digits) % 2:
        digits = digits[:-1]
    return bytes.fromhex(digits).decode("utf-8", "surrogateescape")


def _tee(args: list[str], stdin: str | None, read_file: FileReader) -> str | None:
    return stdin


def _basename(args: list[str], stdin: str | None, read_file: FileReader) -> str | None:
    if not args or args[0].startswith("-"):
        return None
    base = args[0].rstrip("/").rpartition("/")[2] or "/"
    if len(args) > 1 and base.endswith(args[1]) and base != args[1]:
        base = base[: -len(args[1])]
    return base + "\n"


def _dirname(args: list[str], stdin: str | None, read_file: FileReader) -> str | None:
    if len(args) != 1 or args[0].startswith("-"):
        return None
    head = args[0].rstrip("/").rpartition("/")[0]
    return (head or ("/" if args[0].startswith("/") else ".")) + "\n"


def _nothing(args: list[str], stdin: str | None, read_file: FileReader) -> str | None:
    return ""


def _openssl(args: list[str], stdin: str | None, read_file: FileReader) -> str | None:
    if args[:1] == ["base64"] or args[:2] == ["enc", "-base64"] or args[:2] == ["enc", "-a"]:
        rest = [a for a in args[1:] if a not in ("-base64", "-a", "-A")]
        return _base64(rest, stdin, read_file)
    return None


_PROGRAMS: dict[str, Callable[[list[str], str | None, FileReader], str | None]] = {
    "echo": _echo, "printf": _printf, "cat": _cat, "base64": _base64, "rev": _rev, "tac": _tac,
    "sort": _sort, "uniq": _uniq, "head": _head, "tail": _tail, "tr": _tr, "sed": _sed, "cut": _cut,
    "xxd": _xxd, "tee": _tee, "basename": _basename, "dirname": _dirname, "true": _nothing,
    ":": _nothing, "openssl": _openssl,
}
