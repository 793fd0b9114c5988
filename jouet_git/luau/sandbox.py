"""The Lua sandbox rule scripts run in: one lupa Lua 5.4 VM per hook process, budgets per call.

    from jouet_git.luau.sandbox import Sandbox, Budget, ScriptError, BudgetExceeded

    sb = Sandbox()                                  # 32 MiB VM, the Luau runtime loaded
    env = sb.new_env({"jouet": jouet_module})       # a rule's own globals
    rule = sb.load(lua_source, "long-sleep.luau", env, Budget())
    decision = sb.call(rule["check"], call_table, budget=Budget())

What a script can reach: the standard library without require, load, dofile, io, debug,
collectgarbage, package, string.dump or os beyond the clock; the Luau runtime's additions; and the
names given to new_env, made read-only. Nothing reaches Python: the VM has no `python` global, no
eval or builtins, and attribute access on Python objects is refused. A Python function handed to a
script (in new_env, readonly or call) reaches it as a Lua function that calls it; what it returns
is wrapped the same way, and an exception it raises becomes a string error "Type: message". One
call hands a Python function at most `argument_bytes` of text and `argument_items` table entries
(its arguments walked raw, nested tables included): Python's work on them cannot be interrupted by
the budget, so it is bounded by its input; a script passing more gets an error naming its line.
`limited` makes that bound tighter for one function, and `clipping` cuts long strings instead.

Budgets: each load and call gets `Budget.time` seconds of the script's own work (CPU time, minus
the time spent inside `sb.paused()`) and `Budget.instructions` VM instructions; the VM gets
`memory_limit` bytes while script code runs (outside, lupa converting values must never run out:
see kernel.py). Running out raises BudgetExceeded, whose kind says which. Any other failure (a
compile error, an error the script raised, a Python exception from a function it called) raises
ScriptError. Either way the sandbox is ready for the next call.

Values returned by load and call are copied out without running script code: Lua tables become
dicts (keys are strings or numbers), strings become str (invalid UTF-8 replaced), and functions
stay Lua functions that `call` accepts.

Use `sb.lua` only for what this class does not offer (table_from for data a probe returns, say):
run script code only through load and call, and hand scripts Python functions only through
new_env, readonly and call, which wrap them.

Importing this module is cheap: lupa and the Lua sources load when a Sandbox is created. jouet's
own Lua chunks load as bytecode when precompiled.py has bytecode matching their text (never a
script's: scripts load as text only), else as text; `sb.precompiled` names those that came as bytecode.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import TracebackType
    from typing import Any

__all__ = ["Budget", "BudgetExceeded", "Sandbox", "ScriptError"]

MAX_SOURCE = 4 * 1024 * 1024
# What one call of a Python function may be handed by a script: bytes of text, table entries.
ARGUMENT_BYTES = 1024 * 1024
ARGUMENT_ITEMS = 100_000


class Budget:
    """How much one load or call may use: seconds of the script's own work, and VM instructions."""

    __slots__ = ("instructions", "time")

    def __init__(self, time: float = 0.05, instructions: int = 1_000_000) -> None:
        if not time > 0:
            raise ValueError(f"Budget time must be a positive number of seconds, not {time!r}")
        if instructions < 1:
            raise ValueError(f"Budget instructions must be at least 1, not {instructions!r}")
        self.time = float(time)
        self.instructions = int(instructions)

    def __repr__(self) -> str:
        return f"Budget(time={self.time!r}, instructions={self.instructions!r})"


class ScriptError(Exception):
    """A script failed: it did not compile, raised an error, or returned something unusable."""

    def __init__(self, message: str, chunkname: str | None = None, line: int | None = None) -> None:
        super().__init__(message, chunkname, line)
        self.message = message
        self.chunkname = chunkname
        self.line = line

    def __str__(self) -> str:
        if self.chunkname and self.line:
            return f"{self.chunkname}:{self.line}: {self.message}"
        if self.chunkname:
            return f"{self.chunkname}: {self.message}"
        return self.message


class BudgetExceeded(ScriptError):
    """A script ran out of budget; kind is "time", "instructions" or "memory"."""

    def __init__(
        self, message: str, chunkname: str | None = None, line: int | None = None, *, kind: str
    ) -> None:
        super().__init__(message, chunkname, line)
        self.kind = kind


def _deny_attribute(obj: object, name: object, is_setting: bool) -> object:
    raise AttributeError("rule scripts cannot reach the attributes of Python objects")





class _Stale(Exception):
    """Raised through Lua on purpose, to make lupa drop the exception it kept."""


class _Paused:
    """Context manager: the time spent inside is not charged to the running script."""

    __slots__ = ("_sandbox",)

    def __init__(self, sandbox: Sandbox) -> None:
        self._sandbox = sandbox

    def __enter__(self) -> None:
        sb = self._sandbox
        sb._pause_depth += 1
        if sb._pause_depth == 1:
            sb._pause_begin()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        sb = self._sandbox
        sb._pause_depth -= 1
        if sb._pause_depth == 0:
            sb._pause_end()


def _split_position(message: str, chunkname: str) -> tuple[str, int | None]:
    """`chunk:12: text` -> ("text", 12) when the prefix names the chunk (Lua may shorten it)."""
    for prefix in (chunkname, chunkname[:59]):
        head = prefix + ":"
        if message.startswith(head):
            rest = message[len(head):]
            digits, sep, text = rest.partition(":")
            if sep and digits.isdigit():
                return text.lstrip(" "), int(digits)
    return message, None


class Sandbox:
    """One Lua VM for rule scripts, with per-call budgets. See the module docstring."""

    __slots__ = (
        "_compile",
        "_declared",
        "_fail",
        "_kernel",
        "_lua_type",
        "_new_env",
        "_pause_begin",
        "_pause_depth",
        "_pause_end",
        "_python_failed",
        "_readonly",
        "_reset",
        "_runner",
        "_running",
        "_runtime",
        "_source_name",
        "_take_output",
        "_varied",
        "lua",
        "memory_limit",
        "precompiled",
        "scripts_precompiled",
    )

    def __init__(
        self,
        memory_limit: int = 32 * 1024 * 1024,
        runtime_lua: str | None = None,
        output_limit: int = 64 * 1024,
        argument_bytes: int = ARGUMENT_BYTES,
        argument_items: int = ARGUMENT_ITEMS,
    ) -> None:
        from jouet_git.luau import precompiled
        from jouet_git.luau.lupa_import import lua54 as lupa_lua54

        lua54 = lupa_lua54()

        # jouet's own chunks as bytecode where it matches their text exactly (never a script's)
        sources, binary = precompiled.chunks()
        if runtime_lua is None:
            runtime_lua = sources["runtime"]
        else:
            binary.pop("runtime", None)
        self.memory_limit = int(memory_limit)
        self.lua = lua54.LuaRuntime(
            max_memory=self.memory_limit,
            register_eval=False,
            register_builtins=False,
            attribute_filter=_deny_attribute,
            unpack_returned_tuples=True,
        )
        self._lua_type = lua54.lua_type
        load = self.lua.eval("load")
        used: list[str] = []

        def chunk(key: str) -> Any:
            name = "=" + precompiled.NAMES[key]
            code = binary.get(key)
            if code is not None:
                fn = load(code, name, "b")
                if not isinstance(fn, tuple):
                    used.append(key)
                    return fn
            fn = load(sources[key], name, "t")
            if isinstance(fn, tuple):
                raise RuntimeError(f"the sandbox's own {name[1:]} does not compile: {fn[1]}")
            return fn

        kernel = chunk("kernel")(
            self.memory_limit, int(output_limit), int(argument_bytes), int(argument_items)
        )
        patterns = chunk("patterns")(kernel["C"], kernel["charge"])
        env = chunk("safelib")(kernel, patterns, runtime_lua, self.memory_limit, binary.get("runtime"))
        if env["runtime_precompiled"]:
            used.append("runtime")
        self.precompiled = tuple(used)
        # The scripts loaded from bytecode (built-in rules' in a wheel: precompiled.script).
        self.scripts_precompiled: list[str] = []
        self._kernel = kernel
        self._runner = kernel["runner"]
        self._compile = kernel["compile"]
        self._readonly = kernel["readonly"]
        self._reset = kernel["reset"]
        self._pause_begin = kernel["pause_begin"]
        self._pause_end = kernel["pause_end"]
        self._take_output = kernel["take_output"]
        self._source_name = kernel["source_name"]
        self._new_env = env["new_env"]
        self._runtime = env["runtime"]
        self._varied = env["varied"]
        self._pause_depth = 0
        self._running = False
        self._declared: dict[tuple[str, ...], Any] = {}
        # The memory limit holds while script code runs; outside it (Python converting values,
        # trusted Lua) there is none: see "Python calls" in kernel.py.
        kernel["set_python"](self._room, self._describe)
        self._fail = self.lua.eval("function(e) error(e, 0) end")
        self._python_failed = False
        self.lua.set_max_memory(0)

    def _room(self, lifted: bool) -> None:
        self.lua.set_max_memory(0 if lifted else self.memory_limit)

    def _describe(self, error: object) -> str:
        """The text of an error a Python function raised for a script."""
        self._python_failed = True
        if isinstance(error, BaseException):
            return f"{type(error).__name__}: {error}"
        if isinstance(error, str):
            return error
        return "error object is a Python object"

    def _forget_python_error(self) -> None:
        """lupa keeps the last exception a Python callback raised, to re-raise it when a later Lua
        call fails with a Python exception, and its traceback keeps that call's frames (and with
        them a script's globals) alive. A call failing that way on purpose makes lupa hand it
        over, and it is dropped."""
        self._python_failed = False
        try:
            self._fail(_Stale())
        except BaseException as stale:  # whatever it is, it is stale: drop it
            del stale

    # Building what scripts see -----------------------------------------------------------

    def readonly(self, value: Any) -> Any:
        """A deep read-only Lua table from a dict, list, tuple or Lua table (a snapshot of it).

        Writing a field, rawset, table.insert and setmetatable on it raise in Lua; reading,
        `#`, pairs, ipairs, next and rawget work as on the original. Python functions in it
        become functions scripts can call (see `for_lua`).
        """
        if isinstance(value, (dict, list, tuple)):
            value = self.lua.table_from(self._prepare(value), recursive=True)
        elif self._lua_type(value) != "table":
            raise TypeError(f"readonly() takes a dict, list, tuple or Lua table, not {type(value).__name__}")
        return self._readonly(value)

    def new_env(self, globals: dict[str, object] | None = None) -> Any:
        """Fresh globals for one rule: the safe library plus `globals`, tables made read-only."""
        extra = self.lua.table()
        for name, value in (globals or {}).items():
            extra[name] = self._to_lua(value)
        return self._new_env(extra)

    def for_lua(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """fn as scripts call it: dicts, lists and tuples it returns become read-only tables, and a
        tuple it returns gives several values (`return None, "no upstream"` is `nil, "no upstream"`).
        new_env, readonly and call apply it to every Python function they are given."""
        to_lua = self._to_lua

        def for_lua(*args: Any) -> Any:
            result = fn(*args)
            if isinstance(result, tuple):
                return tuple(to_lua(r) for r in result)
            return to_lua(result)

        return for_lua

    def _to_lua(self, value: Any) -> Any:
        """A value as scripts get it: containers as read-only tables, Python functions wrapped."""
        if isinstance(value, (dict, list, tuple)) or self._lua_type(value) == "table":
            return self.readonly(value)
        if callable(value) and self._lua_type(value) is None:
            return self.for_lua(value)
        return value

    def _prepare(self, value: Any) -> Any:
        """A copy of nested dicts, lists and tuples with their Python functions wrapped."""
        if isinstance(value, dict):
            return {k: self._prepare(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self._prepare(v) for v in value]
        if callable(value) and self._lua_type(value) is None:
            return self.for_lua(value)
        return value

    def module(self, value: dict[str, Any], missing: Callable[[str], Any] | None = None,
               call: Any = None, declared: tuple[str, ...] = ()) -> Any:
        """A read-only table like `readonly`, which calls `missing(key)` when a script reads a key it
        lacks (and `declared` does not list), and can be called when `call` is given."""
        table = self.lua.table_from(self._prepare(value), recursive=True)
        known = self.lua.table_from(list(declared))
        wrapped_missing = self.for_lua(missing) if missing is not None else None
        if call is not None and self._lua_type(call) is None:
            call = self.for_lua(call)
        return self._kernel["module"](table, wrapped_missing, call, known)

    def plain_module(self, value: dict[str, Any], missing: Callable[[str], Any], declared: tuple[str, ...]) -> Any:
        """module(VALUE, missing, None, declared) for a VALUE of plain data only (strings, numbers,
        booleans, tables made here, and dicts, lists and tuples of them: no function), made without
        copying it first. MISSING is a function for_lua made (made once, used for many tables).

        No list or dict may come twice in VALUE: lupa's table_from (recursive) makes an empty table of
        one it meets again, so the caller hands over copies where its data shares them."""
        return self._kernel["module"](self.lua.table_from(value, recursive=True), missing, None,
                                      self._declared_table(declared))

    def module_list(self, rows: list[dict[str, Any]], missing: Callable[[str], Any], declared: tuple[str, ...],
                    tags: list[int], list_tag: int) -> Any:
        """A read-only list of plain_module(row, missing, declared) for each of ROWS, the I-th tagged
        TAGS[I] and the list LIST_TAG (see `tag`), made in one step."""
        return self._kernel["module_list"](self.lua.table_from(rows, recursive=True), missing,
                                           self._declared_table(declared), self.lua.table_from(tags), list_tag)

    def _declared_table(self, declared: tuple[str, ...]) -> Any:
        table = self._declared.get(declared)
        if table is None:
            table = self._declared[declared] = self.lua.table_from(list(declared))
        return table

    def tag(self, table: Any, tag: int) -> Any:
        """Mark a table jouet built, so `by_tag` helpers can tell it apart (see kernel.py)."""
        return self._kernel["tag"](table, tag)

    def by_tag(self, fn: Callable[..., Any], position: int) -> Any:
        """A Lua function calling fn with the tag of the argument at `position` (1-based) instead."""
        return self._kernel["by_tag"](self.for_lua(fn), position)

    def with_strings(self, fn: Callable[..., Any], position: int, what: str, optional: bool = False) -> Any:
        """A Lua function calling fn with the list of strings at `position` as a plain Lua table
        (nil passed on when `optional`)."""
        return self._kernel["with_strings"](self.for_lua(fn), position, what, optional)

    def limited(self, fn: Callable[..., Any], max_bytes: int, what: str) -> Any:
        """A Lua function calling fn that refuses more than max_bytes of text in one call, with an
        error naming `what` and the script's line: for a function whose work grows fast with its
        input (jouet.parse reads about a microsecond a byte, in one step no budget interrupts)."""
        return self._kernel["limited"](self.for_lua(fn), int(max_bytes), what)

    def clipping(self, fn: Callable[..., Any], max_bytes: int) -> Any:
        """A Lua function calling fn with each string argument longer than max_bytes cut to about
        max_bytes, noting how long it was: for messages (jouet.deny), so that a rule never fails,
        and says nothing, because it said too much."""
        return self._kernel["clipping"](self.for_lua(fn), int(max_bytes))

    def paused(self) -> _Paused:
        """`with sb.paused():` around work done for the script (a probe) that is not its own."""
        return _Paused(self)

    @property
    def varied(self) -> int:
        """How many times scripts asked the clock, the date or the random generator (os.clock,
        os.time, os.date, math.random, math.randomseed) since the VM started: what they decided
        after asking may differ for the same call."""
        return int(self._varied[1])

    def take_output(self) -> str:
        """What scripts printed since the last call, and clear it."""
        return str(self._take_output())

    # Running ------------------------------------------------------------------------------

    def load(self, lua_source: str, chunkname: str, env: Any, budget: Budget) -> Any:
        """Compile lua_source as chunkname with env as its globals, run it with the Luau runtime
        as its first argument, and return (a plain copy of) what it returns."""
        if len(lua_source) > MAX_SOURCE:
            raise ScriptError(
                f"the script is {len(lua_source)} bytes; scripts are limited to {MAX_SOURCE} bytes",
                chunkname,
            )
        from jouet_git.luau import precompiled

        code = precompiled.script(chunkname, lua_source)
        fn = self._compile(lua_source, chunkname, env, code)
        if code is not None and not isinstance(fn, tuple):
            self.scripts_precompiled.append(chunkname)
        if isinstance(fn, tuple):
            message, line = _split_position(str(fn[1]), chunkname)
            raise ScriptError(message, chunkname, line)
        return self._run(fn, budget, (self._runtime,))

    def call(self, fn: Any, *args: Any, budget: Budget) -> Any:
        """Call the Lua function fn under budget and return (a plain copy of) its first result.

        dicts, lists, tuples and Lua tables among args are passed as read-only tables, Python
        functions as `for_lua` makes them.
        """
        if self._lua_type(fn) != "function":
            raise TypeError(f"call() takes a Lua function, not {type(fn).__name__}")
        return self._run(fn, budget, tuple(self._to_lua(a) for a in args))

    def _run(self, fn: Any, budget: Budget, args: tuple[Any, ...]) -> Any:
        from jouet_git.luau.lupa_import import lua54 as lupa_lua54

        lua54 = lupa_lua54()

        if self._running:
            raise RuntimeError("the sandbox is already running a script: calls do not nest")
        self._running = True
        self._pause_depth = 0
        try:
            try:
                result = self._runner(budget.time, budget.instructions, fn, *args)
            except (lua54.LuaError, UnicodeDecodeError) as e:
                # only when the VM was too full for the runner to finish (or a bug of ours)
                self._recover()
                if isinstance(e, lua54.LuaMemoryError) or "not enough memory" in str(e):
                    raise BudgetExceeded(
                        f"memory budget exceeded: the VM may use {self.memory_limit // 1048576} MiB;"
                        " build smaller strings and tables",
                        self._chunkname(fn),
                        kind="memory",
                    ) from None
                raise ScriptError(f"the sandbox failed to run the script: {e}", self._chunkname(fn)) from None
        finally:
            self._running = False
            self.lua.set_max_memory(0)
        if self._python_failed or not result[0]:
            self._forget_python_error()
        if result[0]:
            return self._to_python(result[1])
        _, kind, message, line, pyobj, chunkname = (tuple(result) + (None,) * 6)[:6]
        if kind:
            # what the script built is garbage now; collect it before the next rule runs
            self.lua.gccollect()
            raise BudgetExceeded(str(message), chunkname, line, kind=str(kind))
        # raised without naming them: a name would tie the frame (and the script's function,
        # with its globals) into a reference cycle with the traceback
        if isinstance(pyobj, BaseException):
            raise ScriptError(str(message), chunkname, line) from pyobj
        raise ScriptError(str(message), chunkname, line)

    def _recover(self) -> None:
        """After an error escaped the runner: lift the memory limit (lupa must not run out of memory
        outside Lua's protection), free garbage, turn the hooks off."""
        self.lua.set_max_memory(0)
        self.lua.gccollect()
        self._reset()

    def _chunkname(self, fn: Any) -> str | None:
        name = self._source_name(fn)
        return str(name) if name is not None else None

    def _to_python(self, value: Any) -> Any:
        if self._lua_type(value) == "table":
            return {k: self._to_python(v) for k, v in value.items()}
        return value
