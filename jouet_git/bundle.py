"""jouet's Python code in one file, for processes that start often: the wheel's jouet_git/bundle.marshal.

A hook imports 35 to 55 of jouet's modules, and Python's import system spends more on finding and
checking each one than its code costs to load: it asks each finder, looks at the directory, stats
the source, then opens, reads and checks the .pyc, all of it in Python. The wheel carries the code of
every module of the package, compiled when the wheel is built (hatch_build.py), in one file that
starts with an index: `jouet` opens it once (cli.entry calls install()), and each of the package's
modules is then imported by reading its code from that file (one pread) and running it. On a
commit's hook this saves about 1.5 ms of 29 (bench/hook_bench.py).

    install()          take the package's modules from the file from now on, where it can be used
    generate(package)  the file's content, for the build hook: every module under PACKAGE, compiled
    read_index(data)   the index at the start of the file's content (tests)

When it is used: the file is there (a wheel: a source checkout, an editable install and the tests
have none, and import as usual), it was made for this Python's bytecode (its magic number), and
Python runs without -O (the code was compiled as a plain run compiles it). A module is taken from the
file only while its source is the one that was compiled: the same size, and not written after the
file was (an edit to an installed jouet, for debugging: that module is then imported from its source
as usual). The module gets what importing its source gives: __file__ and __spec__, __path__ for a
package, and code whose file name is the source's (tracebacks show its lines). A file that cannot be
read or makes no sense leaves the import system as it was.

The file is as trusted as the package's sources beside it (jouet's self-defence rules keep agents
from writing the package), and like prebuilt.marshal it is written by the build and by nothing after.
"""

from __future__ import annotations

import marshal
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any

FILE = "bundle.marshal"
FORMAT = 1
# The file's first bytes, then the index's length (4 bytes, big-endian), the index, the modules' code.
SIGNATURE = b"JOUETPY1"
# A source written up to this long after the file counts as installed with it (an installer writes
# the files one after the other): one written later was edited since, and is imported from its source.
INSTALL_WINDOW_NS = 10 * 1_000_000_000
PACKAGE = "jouet_git"


def path() -> str:
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), FILE)


def install(where: str | None = None, base: str | None = None) -> bool:
    """Import the package's modules from the file at WHERE (default: the package's own) from now on,
    where it can be used (see the module's docstring); whether it is. BASE: the directory holding the
    package whose sources the file was made from (default: the one holding the file's directory)."""
    if sys.flags.optimize or any(isinstance(f, _Finder) for f in sys.meta_path):
        return False
    where = where or path()
    try:
        fd = os.open(where, os.O_RDONLY)
    except OSError:
        return False
    try:
        head = os.pread(fd, len(SIGNATURE) + 4, 0)
        if len(head) != len(SIGNATURE) + 4 or not head.startswith(SIGNATURE):
            raise ValueError("not a bundle")
        size = int.from_bytes(head[len(SIGNATURE):], "big")
        index = read_index(head + os.pread(fd, size, len(head)))
        if index is None or index["magic"] != _magic():
            raise ValueError("another Python's bytecode")
        base = base or os.path.dirname(os.path.dirname(os.path.abspath(where)))
        finder = _Finder(fd, base, index["modules"], os.fstat(fd).st_mtime_ns + INSTALL_WINDOW_NS)
    except (OSError, ValueError, TypeError, KeyError, EOFError):
        os.close(fd)
        return False
    sys.meta_path.insert(0, finder)
    return True


def read_index(data: bytes) -> dict[str, Any] | None:
    """The index at the start of DATA (a bundle file's content, or its first part), or None."""
    if not data.startswith(SIGNATURE) or len(data) < len(SIGNATURE) + 4:
        return None
    size = int.from_bytes(data[len(SIGNATURE):len(SIGNATURE) + 4], "big")
    start = len(SIGNATURE) + 4
    if len(data) < start + size:
        return None
    index = marshal.loads(data[start:start + size])
    if not isinstance(index, dict) or index.get("format") != FORMAT or not isinstance(index.get("modules"), dict):
        return None
    return index


def generate(package_dir: str) -> bytes:
    """The file's content: every module under PACKAGE_DIR (the package's own directory), each compiled
    as importing its source would compile it, with its name, its path (relative to the directory that
    holds the package), whether it is a package, and its source's size."""
    base = os.path.dirname(os.path.abspath(package_dir))
    name = os.path.basename(os.path.abspath(package_dir))
    entries: list[tuple[str, str, bool, int, bytes]] = []
    for directory, folders, files in os.walk(package_dir):
        folders[:] = sorted(f for f in folders if f != "__pycache__")
        for file in sorted(files):
            if not file.endswith(".py"):
                continue
            source = os.path.join(directory, file)
            relative = os.path.relpath(source, base)
            dotted = relative[:-3].replace(os.sep, ".")
            is_package = file == "__init__.py"
            if is_package:
                dotted = dotted[:-len(".__init__")]
            with open(source, "rb") as f:
                text = f.read()
            # (dont_inherit: the build's own `from __future__` flags must not reach jouet's code)
            code = compile(text, relative, "exec", dont_inherit=True, optimize=0)
            entries.append((dotted, relative, is_package, len(text), marshal.dumps(code)))
    if not any(dotted == name for dotted, *_ in entries):
        raise ValueError(f"{package_dir} is not a package: it has no __init__.py")
    modules: dict[str, tuple[str, bool, int, int, int]] = {}
    offset = 0
    for dotted, relative, is_package, size, code_bytes in entries:
        modules[dotted] = (relative, is_package, size, offset, len(code_bytes))
        offset += len(code_bytes)
    # (offsets count from the end of the index: they are known before the index's own length is)
    index = marshal.dumps({"format": FORMAT, "magic": _magic(), "modules": modules})
    return b"".join([SIGNATURE, len(index).to_bytes(4, "big"), index, *(code for *_, code in entries)])


def _magic() -> bytes:
    """This Python's bytecode magic number (what a .pyc starts with)."""
    loaded = sys.modules.get("_frozen_importlib_external")  # (importlib's own, loaded at start-up)
    magic = getattr(loaded, "MAGIC_NUMBER", None)
    if isinstance(magic, bytes):
        return magic
    from importlib.util import MAGIC_NUMBER

    return bytes(MAGIC_NUMBER)


class _Finder:
    """Finds the package's modules in the file (a meta path finder, first in sys.meta_path)."""

    __slots__ = ("base", "code_start", "fd", "modules", "newest")

    def __init__(self, fd: int, base: str, modules: dict[str, tuple[str, bool, int, int, int]],
                 newest: int) -> None:
        self.fd = fd
        self.base = base  # the directory holding the package
        self.modules = modules
        self.newest = newest  # a source written after this (st_mtime_ns) was edited since the build
        size = int.from_bytes(os.pread(fd, 4, len(SIGNATURE)), "big")
        self.code_start = len(SIGNATURE) + 4 + size

    def find_spec(self, name: str, path: Any = None, target: ModuleType | None = None) -> Any:
        entry = self.modules.get(name)
        if entry is None:
            return None
        relative, is_package, size, offset, length = entry
        source = os.path.join(self.base, relative)
        try:
            found = os.stat(source)
        except OSError:
            return None
        if found.st_size != size or found.st_mtime_ns > self.newest:
            return None  # the source changed since the build: import it as usual
        from importlib.machinery import ModuleSpec

        # (_LOADER has what the import system asks of a loader; importlib.abc, which declares it, is
        # not imported for it)
        spec = ModuleSpec(name, _LOADER, origin=source, loader_state=(self, offset, length),  # type: ignore[arg-type]
                          is_package=is_package)
        spec.has_location = True
        if is_package:
            spec.submodule_search_locations = [os.path.dirname(source)]
        return spec

    def invalidate_caches(self) -> None:
        pass


class _Loader:
    """Runs a module's code read from the file (the loader of the specs _Finder makes)."""

    @staticmethod
    def create_module(spec: Any) -> None:
        return None  # the default module

    @staticmethod
    def exec_module(module: ModuleType) -> None:
        spec = module.__spec__
        assert spec is not None and spec.origin is not None
        finder, offset, length = spec.loader_state
        try:
            data = os.pread(finder.fd, length, finder.code_start + offset)
            code = marshal.loads(data) if len(data) == length else None
        except (OSError, ValueError, EOFError, TypeError):  # a damaged file: the source, as usual
            code = None
        if code is None:
            with open(spec.origin, "rb") as f:
                code = compile(f.read(), spec.origin, "exec", dont_inherit=True)
        else:
            import _imp

            fix = getattr(_imp, "_fix_co_filename", None)  # (what importing a moved .pyc does)
            if fix is not None:
                fix(code, spec.origin)  # tracebacks name the source and show its lines
        exec(code, module.__dict__)


_LOADER = _Loader()
