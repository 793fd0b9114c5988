"""The syntax tree the parser builds and the emitter writes out as Lua 5.4.

Types are gone by the time a tree exists: the parser reads and checks them, then drops them. Every node
keeps the source line of its first token (and of the keywords and brackets inside it that matter), so
the emitter can put each piece of Lua on the line its Luau came from.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator


class Node:
    """Base of every tree node. Subclasses list their fields in __slots__, which `walk` relies on."""

    __slots__ = ()
    line: int


class LocalVar:
    """One local variable declaration; Name nodes that refer to it point at this object."""

    __slots__ = ("line", "name")

    def __init__(self, name: str, line: int) -> None:
        self.name = name
        self.line = line


class Loop:
    """A loop's `continue` bookkeeping: its label, its first continue's line and (for repeat) statement."""

    __slots__ = ("first_index", "first_line", "label")

    def __init__(self) -> None:
        self.label: str | None = None
        self.first_line = 0
        self.first_index = -1


# -- expressions -----------------------------------------------------------------


class Nil(Node):
    __slots__ = ("line",)

    def __init__(self, line: int) -> None:
        self.line = line


class Bool(Node):
    __slots__ = ("line", "value")

    def __init__(self, line: int, value: bool) -> None:
        self.line = line
        self.value = value


class Number(Node):
    """A number literal, already written the way Lua 5.4 should read it."""

    __slots__ = ("line", "text")

    def __init__(self, line: int, text: str) -> None:
        self.line = line
        self.text = text


class String(Node):
    __slots__ = ("line", "value")

    def __init__(self, line: int, value: bytes) -> None:
        self.line = line
        self.value = value


class Vararg(Node):
    """`...`; `top` is true in the main chunk, whose first vararg is the runtime table."""

    __slots__ = ("line", "top")

    def __init__(self, line: int, top: bool) -> None:
        self.line = line
        self.top = top


class Function(Node):
    __slots__ = ("body", "end_line", "line", "params", "vararg")

    def __init__(
        self, line: int, params: list[LocalVar], vararg: bool, body: list[Node], end_line: int
    ) -> None:
        self.line = line
        self.params = params
        self.vararg = vararg
        self.body = body
        self.end_line = end_line


class TableItem(Node):
    """One field of a table constructor: `value`, `name = value` or `[key] = value`."""

    __slots__ = ("key", "line", "name", "value")

    def __init__(self, line: int, name: str | None, key: Node | None, value: Node) -> None:
        self.line = line
        self.name = name
        self.key = key
        self.value = value


class Table(Node):
    __slots__ = ("close_line", "items", "line")

    def __init__(self, line: int, items: list[TableItem], close_line: int) -> None:
        self.line = line
        self.items = items
        self.close_line = close_line


class Name(Node):
    """A variable: `local` is its declaration, or None for a global."""

    __slots__ = ("col", "line", "local", "name")

    def __init__(self, line: int, name: str, local: LocalVar | None, col: int = 0) -> None:
        self.line = line
        self.name = name
        self.local = local
        self.col = col


class Index(Node):
    """obj[key]; `bracket_line` is the line of '['."""

    __slots__ = ("bracket_line", "close_line", "key", "line", "obj")

    def __init__(self, obj: Node, bracket_line: int, key: Node, close_line: int) -> None:
        self.line = obj.line
        self.obj = obj
        self.bracket_line = bracket_line
        self.key = key
        self.close_line = close_line


class Field(Node):
    """obj.name; `name_line` is the line of the name."""

    __slots__ = ("line", "name", "name_line", "obj")

    def __init__(self, obj: Node, name: str, name_line: int) -> None:
        self.line = obj.line
        self.obj = obj
        self.name = name
        self.name_line = name_line


class Call(Node):
    """func(args); `open_line` is the line where the arguments start."""

    __slots__ = ("args", "close_line", "func", "line", "open_line")

    def __init__(self, func: Node, open_line: int, args: list[Node], close_line: int) -> None:
        self.line = func.line
        self.func = func
        self.open_line = open_line
        self.args = args
        self.close_line = close_line


class MethodCall(Node):
    """obj:name(args)."""

    __slots__ = ("args", "close_line", "line", "name", "name_line", "obj", "open_line")

    def __init__(
        self, obj: Node, name: str, name_line: int, open_line: int, args: list[Node], close_line: int
    ) -> None:
        self.line = obj.line
        self.obj = obj
        self.name = name
        self.name_line = name_line
        self.open_line = open_line
        self.args = args
        self.close_line = close_line


class Paren(Node):
    __slots__ = ("close_line", "expr", "line")

    def __init__(self, line: int, expr: Node, close_line: int) -> None:
        self.line = line
        self.expr = expr
        self.close_line = close_line


class Binary(Node):
    __slots__ = ("left", "line", "op", "op_line", "right")

    def __init__(self, op: str, left: Node, op_line: int, right: Node) -> None:
        self.line = left.line
        self.op = op
        self.left = left
        self.op_line = op_line
        self.right = right


class Unary(Node):
    __slots__ = ("line", "op", "operand")

    def __init__(self, line: int, op: str, operand: Node) -> None:
        self.line = line
        self.op = op
        self.operand = operand


class IfBranch(Node):
    """`cond then value` of an if-expression."""

    __slots__ = ("cond", "line", "value")

    def __init__(self, line: int, cond: Node, value: Node) -> None:
        self.line = line
        self.cond = cond
        self.value = value


class IfExpr(Node):
    __slots__ = ("branches", "else_value", "line")

    def __init__(self, line: int, branches: list[IfBranch], else_value: Node) -> None:
        self.line = line
        self.branches = branches
        self.else_value = else_value


class Interp(Node):
    """A backtick string: `strings` has one more piece than `exprs`."""

    __slots__ = ("exprs", "line", "strings")

    def __init__(self, line: int, strings: list[bytes], exprs: list[Node]) -> None:
        self.line = line
        self.strings = strings
        self.exprs = exprs


# -- statements ------------------------------------------------------------------


class Local(Node):
    __slots__ = ("line", "names", "values")

    def __init__(self, line: int, names: list[LocalVar], values: list[Node]) -> None:
        self.line = line
        self.names = names
        self.values = values


class LocalFunction(Node):
    __slots__ = ("func", "line", "var")

    def __init__(self, line: int, var: LocalVar, func: Function) -> None:
        self.line = line
        self.var = var
        self.func = func


class FunctionStat(Node):
    """`function a.b.c:m() end`: `target` is the Name/Field chain, `method` the name after ':'."""

    __slots__ = ("func", "line", "method", "method_line", "target")

    def __init__(self, line: int, target: Node, method: str | None, method_line: int, func: Function) -> None:
        self.line = line
        self.target = target
        self.method = method
        self.method_line = method_line
        self.func = func


class Assign(Node):
    __slots__ = ("line", "targets", "values")

    def __init__(self, targets: list[Node], values: list[Node]) -> None:
        self.line = targets[0].line
        self.targets = targets
        self.values = values


class Compound(Node):
    """`target op= value`, with op the binary operator ('+', '..', '//', ...)."""

    __slots__ = ("line", "op", "op_line", "target", "value")

    def __init__(self, target: Node, op: str, op_line: int, value: Node) -> None:
        self.line = target.line
        self.target = target
        self.op = op
        self.op_line = op_line
        self.value = value


class CallStat(Node):
    __slots__ = ("call", "line")

    def __init__(self, call: Node) -> None:
        self.line = call.line
        self.call = call


class Do(Node):
    __slots__ = ("body", "end_line", "line")

    def __init__(self, line: int, body: list[Node], end_line: int) -> None:
        self.line = line
        self.body = body
        self.end_line = end_line


class While(Node):
    __slots__ = ("body", "cond", "do_line", "end_line", "line", "loop")

    def __init__(
        self, line: int, cond: Node, do_line: int, body: list[Node], end_line: int, loop: Loop
    ) -> None:
        self.line = line
        self.cond = cond
        self.do_line = do_line
        self.body = body
        self.end_line = end_line
        self.loop = loop


class Repeat(Node):
    __slots__ = ("body", "cond", "line", "loop", "until_line")

    def __init__(self, line: int, body: list[Node], until_line: int, cond: Node, loop: Loop) -> None:
        self.line = line
        self.body = body
        self.until_line = until_line
        self.cond = cond
        self.loop = loop


class NumericFor(Node):
    __slots__ = ("body", "do_line", "end_line", "line", "loop", "start", "step", "stop", "var")

    def __init__(
        self, line: int, var: LocalVar, start: Node, stop: Node, step: Node | None,
        do_line: int, body: list[Node], end_line: int, loop: Loop,
    ) -> None:
        self.line = line
        self.var = var
        self.start = start
        self.stop = stop
        self.step = step
        self.do_line = do_line
        self.body = body
        self.end_line = end_line
        self.loop = loop


class GenericFor(Node):
    __slots__ = ("body", "do_line", "end_line", "exprs", "in_line", "line", "loop", "vars")

    def __init__(
        self, line: int, vars: list[LocalVar], in_line: int, exprs: list[Node],
        do_line: int, body: list[Node], end_line: int, loop: Loop,
    ) -> None:
        self.line = line
        self.vars = vars
        self.in_line = in_line
        self.exprs = exprs
        self.do_line = do_line
        self.body = body
        self.end_line = end_line
        self.loop = loop


class IfClause(Node):
    """`if cond then body` or `elseif cond then body`; `line` is the line of the keyword."""

    __slots__ = ("body", "cond", "line", "then_line")

    def __init__(self, line: int, cond: Node, then_line: int, body: list[Node]) -> None:
        self.line = line
        self.cond = cond
        self.then_line = then_line
        self.body = body


class If(Node):
    __slots__ = ("clauses", "else_body", "else_line", "end_line", "line")

    def __init__(
        self, clauses: list[IfClause], else_line: int, else_body: list[Node] | None, end_line: int
    ) -> None:
        self.line = clauses[0].line
        self.clauses = clauses
        self.else_line = else_line
        self.else_body = else_body
        self.end_line = end_line


class Return(Node):
    __slots__ = ("line", "values")

    def __init__(self, line: int, values: list[Node]) -> None:
        self.line = line
        self.values = values


class Break(Node):
    __slots__ = ("line",)

    def __init__(self, line: int) -> None:
        self.line = line


class Continue(Node):
    __slots__ = ("line", "loop")

    def __init__(self, line: int, loop: Loop) -> None:
        self.line = line
        self.loop = loop


def walk(node: Node) -> Iterator[Node]:
    """Every node under `node`, itself included, depth first."""
    stack: list[Node] = [node]
    while stack:
        current = stack.pop()
        yield current
        slot: str
        for slot in type(current).__slots__:
            value = getattr(current, slot)
            if isinstance(value, Node):
                stack.append(value)
            elif isinstance(value, list):
                stack.extend(item for item in value if isinstance(item, Node))
