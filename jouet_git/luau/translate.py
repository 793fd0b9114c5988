"""Translate a Luau script into Lua 5.4 source that runs in lupa's Lua 5.4.

    from jouet_git.luau.translate import translate, LuauSyntaxError, RUNTIME_LUA
    lua_source = translate(source, "long-sleep.luau")

The result keeps every statement on its Luau line, and starts with `local __luau = ...` on line 1:
the chunk must be called with the runtime table (RUNTIME_LUA, run once per VM) as its first argument.
A script that does not parse raises LuauSyntaxError, whose text is `file:line:column: message`.

Callers cache the result by the source's hash; this module is imported only on a cache miss.
"""

from __future__ import annotations

import re

from jouet_git.luau.emit import emit
from jouet_git.luau.lexer import LuauSyntaxError, tokenize
from jouet_git.luau.parser import parse
from jouet_git.luau.runtime import RUNTIME_LUA

__all__ = ["RUNTIME_LUA", "LuauSyntaxError", "translate"]

# The leading blanks of every line (Luau counts lines by "\n" only).
_INDENT = re.compile(r"^[ \t]*", re.MULTILINE)


def translate(source: str, chunkname: str = "script.luau") -> str:
    """The Lua 5.4 source for a Luau script. Raises LuauSyntaxError(chunkname, line, column, message)."""
    if source.startswith("\ufeff"):
        source = source[1:]  # a byte-order mark some editors write
    try:
        body = parse(tokenize(source, chunkname), chunkname)
        return emit(body, _INDENT.findall(source))
    except RecursionError:
        raise LuauSyntaxError(
            chunkname, 1, 1, "the script nests too deeply to translate; split it into smaller functions"
        ) from None
