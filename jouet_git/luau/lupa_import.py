"""lupa's Lua 5.4 module and lupa's version, without running lupa's package `__init__` on the hook path.

`from lupa import lua54` first runs `lupa/__init__.py`, which imports contextlib and collections.abc
and sets up `lupa.LuaRuntime` (the newest Lua it ships), none of which jouet uses: about 3 M
instructions, a twentieth of what a commit's hook adds to a bare interpreter. So when no one in this
process has imported lupa yet, the package is stood in by a module of the same name and folder: its
`lua54` and `version` submodules load from that folder as usual, and the first time anything reads a
name the stand-in does not have (`lupa.LuaRuntime`, `lupa.allow_lua_module_loading`...), lupa's real
`__init__.py` runs in the stand-in's namespace, which from then on is the package it would have been.
Anything that goes wrong on the way falls back to the ordinary import.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType

# How many times this process stood lupa's package in (tests).
STOOD_IN = [0]


def lua54() -> ModuleType:
    """lupa.lua54 (see the module's docstring)."""
    found = sys.modules.get("lupa.lua54")
    if found is not None:
        return found
    if "lupa" not in sys.modules:
        folder = _package_folder()
        if folder is not None:
            _stand_in(folder)
            try:
                import lupa.lua54  # noqa: F401 - not `from lupa import`, which asks the stand-in first
            except ImportError:  # a lupa that does not load this way: the ordinary import
                sys.modules.pop("lupa", None)
                sys.modules.pop("lupa.lua54", None)
            else:
                return sys.modules["lupa.lua54"]
    from lupa import lua54 as module

    loaded: ModuleType = module
    return loaded


def version() -> str:
    """lupa's version (its `lupa/version.py`)."""
    lua54()
    from lupa.version import __version__

    return str(__version__)


def _package_folder() -> str | None:
    """The folder of the lupa package the import system would find first, or None."""
    for entry in sys.path:
        folder = os.path.join(entry or ".", "lupa")
        if os.path.isfile(os.path.join(folder, "__init__.py")):
            return os.path.abspath(folder)
    return None


def _stand_in(folder: str) -> None:
    module = type(sys)("lupa")
    init = os.path.join(folder, "__init__.py")
    module.__file__ = init
    module.__path__ = [folder]
    module.__package__ = "lupa"

    def complete(name: str) -> object:
        """Run lupa's own __init__.py in this module, once, then answer NAME as it would."""
        namespace = module.__dict__
        if namespace.get("__getattr__") is complete:
            del namespace["__getattr__"]
            with open(init, "rb") as f:
                code = compile(f.read(), init, "exec")
            exec(code, namespace)
        if name in namespace:
            return namespace[name]
        real = namespace.get("__getattr__")
        if real is None or real is complete:
            raise AttributeError(f"module 'lupa' has no attribute {name!r}")
        return real(name)

    module.__getattr__ = complete  # type: ignore[method-assign]
    sys.modules["lupa"] = module
    STOOD_IN[0] += 1
