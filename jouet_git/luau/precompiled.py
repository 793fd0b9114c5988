"""jouet's own trusted Lua chunks (the kernel, the pattern matcher, the safe library and the Luau
runtime), precompiled to Lua bytecode, so that a sandbox loads them instead of compiling their text.

Loading the four chunks as bytecode costs about a fifth of compiling them, and every hook that reaches
a script rule makes a sandbox. Rule scripts never come as bytecode: the sandbox loads them as text
only (mode "t").

Where the bytecode lives, and why there. A wheel carries `jouet_git/luau/precompiled.marshal`, made
when the wheel is built (hatch_build.py). In a source checkout (an editable install, the tests) it is
made beside the sources on first use, and made again when it no longer matches them. It never lives
in the cache directory: any process of the user (an agent's included) can write there, and a binary
chunk is not checked by Lua the way source is; a crafted one can break out of the sandbox. The
package directory is trusted as much as jouet's Python code is (jouet's self-defence rules keep
agents from writing it), so the bytecode is as trusted as the sources it was made from.

When it is used. A wheel's file was made from the very sources shipped beside it, and nothing writes
it afterwards (as prebuilt.marshal, the built-in rules): when it is whole and made by this lupa, the
texts it records are taken as the sources, and the four source modules are not even imported.
Otherwise (a source checkout, or a wheel's file that is missing, damaged or made by another lupa)
each chunk's bytecode is used only when the file records exactly the source text the sandbox holds
now (the text itself is stored beside its bytecode: comparing it costs less than hashing it), the
bytecode's CRC-32 matches (a damaged file), and the file was made by this lupa version for this Lua
version (Lua checks its own header again when it loads a binary chunk). On any mismatch, or a file
that is missing, truncated or unreadable, the sandbox compiles the text: correct, only slower; a
wheel's file is then left as it is (as for prebuilt.marshal), a source checkout's is made again. The
bytecode keeps its debug information (chunk names and line numbers), so errors read as they do from
the text.

    chunks()           the four chunks' source text and their usable bytecode, by key
    script(name, text) the bytecode of a built-in rule's script made from exactly TEXT (wheels only)
    sources()          the four chunks' source text, by key
    bytecode(sources)  the usable bytecode of each chunk, by key (only those that match)
    generate(sources)  the file's content (the build hook writes it with pack)
    pack(data)         the file's bytes: an index, then each part (the chunks, each script) on its own
"""

from __future__ import annotations

import marshal
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

FILE = "precompiled.marshal"
FORMAT = 2
# The "scripts" of the wheel's file once chunks() took the file (a one-item list; see script()).
_SCRIPTS: list[Any] = []
# The chunk each key names, as error messages and tracebacks show it.
NAMES = {
    "kernel": "[jouet kernel]",
    "patterns": "[jouet patterns]",
    "safelib": "[jouet safelib]",
    "runtime": "[jouet runtime]",
}


def path() -> str:
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), FILE)


def in_source_checkout() -> bool:
    """Whether rules/ lies beside the package (a source checkout) rather than in it (a wheel), as
    engine/prebuilt.py tells them apart."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return not os.path.isdir(os.path.join(package, "rules"))


def sources() -> dict[str, str]:
    """The source text of jouet's four trusted chunks, by key (see NAMES)."""
    from jouet_git.luau.kernel import KERNEL_LUA
    from jouet_git.luau.patterns import PATTERNS_LUA
    from jouet_git.luau.runtime import RUNTIME_LUA
    from jouet_git.luau.safelib import SAFELIB_LUA

    return {"kernel": KERNEL_LUA, "patterns": PATTERNS_LUA, "safelib": SAFELIB_LUA, "runtime": RUNTIME_LUA}


def vm() -> list[object]:
    """What bytecode is valid for: this lupa version and the Lua version it runs."""
    from jouet_git.luau import lupa_import

    return [lupa_import.version(), list(lupa_import.lua54().LUA_VERSION)]


def chunks() -> tuple[dict[str, str], dict[str, bytes]]:
    """The source text and the usable bytecode of jouet's four chunks, by key: from a wheel's file
    alone when it is whole and made by this lupa (see the module's docstring), else sources() and
    bytecode() of them."""
    _SCRIPTS[:] = []
    if not in_source_checkout():
        try:
            data, scripts = _read_chunks(path())
            texts = _recorded(data)
            found = _matching(data, texts) if texts is not None else {}
        except Exception:  # missing, truncated or damaged: read the sources
            texts, found = None, {}
        if texts is not None and len(found) == len(NAMES):
            _SCRIPTS[:] = [scripts]
            return texts, found
    texts = sources()
    return texts, bytecode(texts)


def script(name: str, text: str) -> bytes | None:
    """The bytecode of the built-in rule script NAME when the wheel's file holds one made from
    exactly TEXT (the Lua the sandbox is about to compile), else None.

    The wheel carries the bytecode of its built-in rules' scripts (hatch_build.py), as they are
    compiled: their Lua translation wrapped as the script host runs it. The text is compared whole,
    so the bytecode is used only where compiling TEXT would make the same function, whoever handed
    TEXT over; the bytecode itself comes only from the package's file."""
    from zlib import crc32

    try:
        entries = _read_script(_SCRIPTS[0], name) if _SCRIPTS else None
    except Exception:  # a damaged file: compile the text
        entries = None
    for entry in entries if isinstance(entries, list) else ():
        if not (isinstance(entry, tuple) and len(entry) == 3):
            continue
        stored, code, check = entry
        if stored == text and isinstance(code, bytes) and crc32(code) == check:
            return code
    return None


# The file: MAGIC, the length of the index (4 bytes, big-endian), the index (marshal), then the
# parts it points at, each a marshal of its own, so that a sandbox reads the four chunks and the one
# script it runs, not every script of every built-in rule. The index:
#     {"format": FORMAT, "vm": vm(), "chunks": (offset, length), "scripts": {name: (offset, length)}}
# with offsets counted from the end of the index. unpack() gives back what generate() made.
MAGIC = b"jouet-lua-bytecode\n"


def pack(data: dict[str, Any]) -> bytes:
    """The file's bytes for DATA, as generate() makes it."""
    parts: list[bytes] = []
    at = 0

    def place(value: Any) -> tuple[int, int]:
        nonlocal at
        blob = marshal.dumps(value, 4)
        parts.append(blob)
        at += len(blob)
        return at - len(blob), len(blob)

    index = {key: value for key, value in data.items() if key not in ("chunks", "scripts")}
    index["chunks"] = place(data.get("chunks"))
    scripts = data.get("scripts")
    index["scripts"] = {name: place(entries) for name, entries in scripts.items()} if isinstance(scripts, dict) \
        else {}
    head = marshal.dumps(index, 4)
    return MAGIC + len(head).to_bytes(4, "big") + head + b"".join(parts)


def unpack(content: bytes) -> dict[str, Any]:
    """What pack() was given (for tests and tools; a sandbox reads only the parts it needs)."""
    index, base = _index(content)
    data = {key: value for key, value in index.items() if key not in ("chunks", "scripts")}
    data["chunks"] = _part(content, base, index["chunks"])
    data["scripts"] = {name: _part(content, base, where) for name, where in index["scripts"].items()}
    return data


def _index(head: bytes) -> tuple[dict[str, Any], int]:
    """The index at the start of a file (HEAD: its first bytes, enough to hold the index), and
    where the parts start."""
    if not head.startswith(MAGIC):
        raise ValueError("not a precompiled file")
    start = len(MAGIC) + 4
    size = int.from_bytes(head[len(MAGIC):start], "big")
    if len(head) < start + size:
        raise ValueError("truncated")
    index = marshal.loads(head[start:start + size])
    if not (isinstance(index, dict) and isinstance(index.get("scripts"), dict)):
        raise ValueError("not an index")
    return index, start + size


def _part(content: bytes, base: int, where: Any) -> Any:
    offset, length = where
    blob = content[base + offset:base + offset + length]
    if len(blob) != length:
        raise ValueError("truncated")
    return marshal.loads(blob)


_HEAD_READ = 16384  # bytes read first: the index, and usually the chunks' start


def _read_chunks(file: str) -> tuple[dict[str, Any], tuple[str, int, dict[str, Any]]]:
    """The file's index with its chunks read (as generate() gives them), and what script() needs to
    read a script's part: the file, where the parts start, and the scripts' places."""
    with open(file, "rb") as f:
        head = f.read(_HEAD_READ)
        if head.startswith(MAGIC) and len(head) >= len(MAGIC) + 4:  # an index longer than the first read
            head += f.read(max(0, len(MAGIC) + 4 + int.from_bytes(head[len(MAGIC):len(MAGIC) + 4], "big")
                               - len(head)))
        index, base = _index(head)
        offset, length = index["chunks"]
        end = base + offset + length
        if end > len(head):
            head += f.read(end - len(head))
    data = {key: value for key, value in index.items() if key != "scripts"}
    data["chunks"] = _part(head, base, index["chunks"])
    return data, (file, base, index["scripts"])


def _read_script(where: tuple[str, int, dict[str, Any]], name: str) -> Any:
    """The entries of script NAME in the file chunks() took (None when it has none)."""
    file, base, places = where
    place = places.get(name)
    if place is None:
        return None
    offset, length = place
    with open(file, "rb") as f:
        f.seek(base + offset)
        blob = f.read(length)
    if len(blob) != length:
        return None
    return marshal.loads(blob)


def _recorded(data: Any) -> dict[str, str] | None:
    """The source text the file DATA records for each chunk, or None when any is missing."""
    chunks = data.get("chunks") if isinstance(data, dict) else None
    if not isinstance(chunks, dict):
        return None
    texts: dict[str, str] = {}
    for key in NAMES:
        entry = chunks.get(key)
        if not (isinstance(entry, tuple) and len(entry) == 3 and isinstance(entry[0], str)):
            return None
        texts[key] = entry[0]
    return texts


def bytecode(sources: dict[str, str]) -> dict[str, bytes]:
    """The bytecode of each chunk of SOURCES whose text is exactly the one it was made from, for this
    VM; chunks without one are left out (the caller compiles their text). In a source checkout a file
    that is missing or does not match is made again first."""
    try:
        found = _matching(_read_chunks(path())[0], sources)
    except Exception:  # missing, truncated or damaged: as if there were none
        found = {}
    if len(found) == len(sources) or not in_source_checkout():
        return found
    try:
        data = generate(sources)
        found = _matching(data, sources)
        _write(pack(data))
    except Exception:  # a read-only checkout, or a lupa that cannot dump: compile the text
        pass
    return found


def _write(content: bytes) -> None:
    """Replace the file at once (a new file renamed over it): a sandbox made at the same time reads
    the old file or the new one, never half of one. (luau uses nothing else of jouet_git's, so not
    store.write_atomic.)"""
    target = path()
    tmp = f"{target}.{os.getpid()}.tmp"
    try:
        with open(tmp, "wb") as f:
            f.write(content)
        os.replace(tmp, target)
    except BaseException:
        import contextlib

        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _matching(data: Any, sources: dict[str, str]) -> dict[str, bytes]:
    from zlib import crc32  # lupa's Cython module has imported zlib already

    if not (isinstance(data, dict) and data.get("format") == FORMAT and data.get("vm") == vm()):
        return {}
    chunks = data.get("chunks")
    if not isinstance(chunks, dict):
        return {}
    found: dict[str, bytes] = {}
    for key, source in sources.items():
        entry = chunks.get(key)
        if not (isinstance(entry, tuple) and len(entry) == 3):
            continue
        text, code, check = entry
        if text == source and isinstance(code, bytes) and crc32(code) == check:
            found[key] = code
    return found


def generate(sources: dict[str, str], scripts: list[tuple[str, str]] | None = None) -> dict[str, Any]:
    """The file's content: each chunk of SOURCES compiled by a fresh VM and dumped with its debug
    information (chunk name, line numbers), beside its source text and the VM it is valid for; and
    with SCRIPTS ((chunk name, Lua text) pairs: the built-in rules' scripts as the host compiles
    them), theirs too, by chunk name (see script())."""
    from zlib import crc32

    from lupa import lua54

    lua = lua54.LuaRuntime(encoding=None, register_eval=False, register_builtins=False)
    load = lua.eval("load")
    dump = lua.eval("string.dump")
    chunks: dict[str, tuple[str, bytes, int]] = {}
    for key, source in sources.items():
        fn = load(source.encode("utf-8"), ("=" + NAMES[key]).encode("utf-8"), b"t")
        if isinstance(fn, tuple):
            raise RuntimeError(f"jouet's own Lua chunk {NAMES[key]} does not compile: {fn[1]!r}")
        code = bytes(dump(fn, False))  # False: keep the debug information
        chunks[key] = (source, code, crc32(code))
    compiled: dict[str, list[tuple[str, bytes, int]]] = {}
    for name, text in scripts or ():
        fn = load(text.encode("utf-8"), ("=" + name).encode("utf-8"), b"t")
        if isinstance(fn, tuple):
            continue  # a script that does not compile fails when it runs, as it would anyway
        code = bytes(dump(fn, False))
        compiled.setdefault(name, []).append((text, code, crc32(code)))
    return {"format": FORMAT, "vm": vm(), "chunks": chunks, "scripts": compiled}
