"""The emitter: writes a Luau syntax tree (nodes.py) out as Lua 5.4 source, line for line.

Every token goes on the line its Luau came from, so a Lua error at line N is an error at line N of the
script. What Lua 5.4 lacks is written with plain Lua or a call into the runtime table `__luau` (see
runtime.py), the chunk's first vararg:

- `continue` is a `goto` to a label at the end of the loop body (for `repeat ... until`, the body from
  the first statement holding a `continue` goes in a `do ... end`, so no jump enters a local's scope);
- `a += b` and its kin evaluate the target's table and key once, through temporaries when needed;
- `if c then a else b` is `(c and a or b)` when `a` cannot be false or nil, else `(c and {a} or {b})[1]`;
- `` `x {y}` `` is `("x " .. __luau.tostr(y))`;
- `..`, `//` and `%` go through `__luau.concat`, `__luau.idiv` and `__luau.mod`, which give Luau's
  results where Lua 5.4's integers differ (number formatting, division by zero);
- `for k, v in t do` becomes `for k, v in __luau.iter(t) do`;
- `goto`, a name in Luau and a keyword in Lua, becomes `__luau_goto` as a variable and `["goto"]` as a field.
"""

from __future__ import annotations

from jouet_git.luau import nodes as N

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

RUNTIME = "__luau"
GOTO_VAR = "__luau_goto"

_NO_SPACE_AFTER = frozenset(("(", "[", "{", ".", ":"))
_NO_SPACE_BEFORE = frozenset((")", "]", "}", ",", ";", ".", ":"))

_ESCAPES: dict[int, str] = {}
for _code in range(256):
    if _code == 10:
        _ESCAPES[_code] = "\\n"
    elif _code == 9:
        _ESCAPES[_code] = "\\t"
    elif _code == 13:
        _ESCAPES[_code] = "\\r"
    elif _code in (34, 92):
        _ESCAPES[_code] = "\\" + chr(_code)
    elif _code < 32 or _code >= 127:
        _ESCAPES[_code] = f"\\{_code:03d}"


def lua_string(value: bytes) -> str:
    """A double-quoted Lua literal for these bytes, on one line."""
    return '"' + value.decode("latin-1").translate(_ESCAPES) + '"'


def var_name(name: str) -> str:
    return GOTO_VAR if name == "goto" else name


class Writer:
    """Collects tokens, starting a new line only when a token's source line is further down.

    A new line starts with the indentation its source line had, so the Lua reads like the script.
    """

    __slots__ = ("indents", "line", "parts", "prev")

    def __init__(self, indents: list[str] | None = None) -> None:
        self.parts: list[str] = []
        self.line = 1
        self.prev = ""
        self.indents = indents or []

    def tok(self, text: str, line: int = 0, glue: bool = False) -> None:
        """Write a token; `glue` keeps it against the previous one (a call's '(', an index's '[')."""
        if line > self.line:
            self.parts.append("\n" * (line - self.line))
            self.line = line
            if line <= len(self.indents):
                self.parts.append(self.indents[line - 1])
        elif self.prev and not glue and self.prev not in _NO_SPACE_AFTER and text not in _NO_SPACE_BEFORE:
            self.parts.append(" ")
        self.parts.append(text)
        self.prev = text

    def text(self) -> str:
        return "".join(self.parts) + "\n"


# Expressions that need no parentheses as the right operand of any binary operator (one value each).
_ATOMS = (N.Name, N.Number, N.String, N.Nil, N.Bool, N.Paren, N.Index, N.Field, N.Table, N.Interp, N.IfExpr)


def _multi(e: N.Node) -> bool:
    """Whether the expression can produce several values (and so needs parentheses to keep one)."""
    return isinstance(e, (N.Call, N.MethodCall, N.Vararg))


def _known_string(e: N.Node) -> bool:
    return isinstance(e, (N.String, N.Interp))


def _truthy(e: N.Node) -> bool:
    """Whether the expression's value can never be false or nil."""
    while isinstance(e, N.Paren):
        e = e.expr
    if isinstance(e, N.Bool):
        return e.value
    return isinstance(e, (N.Number, N.String, N.Interp, N.Table, N.Function))


def _starts_with_paren(e: N.Node) -> bool:
    while True:
        if isinstance(e, N.Paren):
            return True
        if isinstance(e, N.Call):
            e = e.func
        elif isinstance(e, (N.MethodCall, N.Index, N.Field)):
            e = e.obj
        else:
            return False


class Emitter:
    """Writes one chunk. Use `chunk`."""

    def __init__(self, indents: list[str] | None = None) -> None:
        self.w = Writer(indents)
        self.exprs: dict[type[N.Node], Callable[[N.Node], None]] = {
            N.Nil: self.nil, N.Bool: self.bool_, N.Number: self.number, N.String: self.string,
            N.Vararg: self.vararg, N.Function: self.function, N.Table: self.table, N.Name: self.name,
            N.Index: self.index, N.Field: self.field, N.Call: self.call, N.MethodCall: self.method_call,
            N.Paren: self.paren, N.Binary: self.binary, N.Unary: self.unary, N.IfExpr: self.if_expr,
            N.Interp: self.interp,
        }
        self.stats: dict[type[N.Node], Callable[[N.Node], None]] = {
            N.Local: self.local, N.LocalFunction: self.local_function, N.FunctionStat: self.function_stat,
            N.Assign: self.assign, N.Compound: self.compound, N.CallStat: self.call_stat, N.Do: self.do,
            N.While: self.while_, N.Repeat: self.repeat, N.NumericFor: self.numeric_for,
            N.GenericFor: self.generic_for, N.If: self.if_, N.Return: self.return_, N.Break: self.break_,
            N.Continue: self.continue_,
        }

    def chunk(self, body: list[N.Node]) -> str:
        tok = self.w.tok
        tok("local", 1)
        tok(RUNTIME)
        tok("=")
        tok("...")
        tok(";")
        self.block(body)
        return self.w.text()

    # -- statements ------------------------------------------------------------------

    def block(self, body: list[N.Node]) -> None:
        stats = self.stats
        for stat in body:
            stats[type(stat)](stat)

    def loop_body(self, body: list[N.Node], loop: N.Loop, end_line: int) -> None:
        """A while/for body, with the continue label last when a `continue` jumps to it."""
        if loop.label is None:
            self.block(body)
            return
        if body and isinstance(body[-1], N.Return):
            self.block(body[:-1])
            self.w.tok("do", body[-1].line)
            self.return_(body[-1])
            self.w.tok("end")
        else:
            self.block(body)
        self.label(loop.label, end_line)

    def label(self, name: str, line: int) -> None:
        tok = self.w.tok
        tok("::", line)
        tok(name)
        tok("::")

    def local(self, s: N.Node) -> None:
        assert isinstance(s, N.Local)
        tok = self.w.tok
        tok("local", s.line)
        for i, var in enumerate(s.names):
            if i:
                tok(",")
            tok(var_name(var.name), var.line)
        if s.values:
            tok("=")
            self.expr_list(s.values)

    def local_function(self, s: N.Node) -> None:
        assert isinstance(s, N.LocalFunction)
        tok = self.w.tok
        tok("local", s.line)
        tok("function")
        tok(var_name(s.var.name), s.var.line)
        self.function_rest(s.func, self_param=False)

    def function_stat(self, s: N.Node) -> None:
        assert isinstance(s, N.FunctionStat)
        tok = self.w.tok
        names: list[str] = []
        node = s.target
        while isinstance(node, N.Field):
            names.append(node.name)
            node = node.obj
        if s.method == "goto" or "goto" in names:
            # `function t.goto()` is not Lua syntax: assign the function instead.
            if s.method is not None:
                self.expr(N.Field(s.target, s.method, s.method_line))
            else:
                self.expr(s.target)
            tok("=")
            tok("function", s.func.line)
            self.function_rest(s.func, self_param=s.method is not None)
            return
        tok("function", s.line)
        self.expr(s.target)
        if s.method is not None:
            tok(":")
            tok(s.method, s.method_line)
        self.function_rest(s.func, self_param=False)

    def assign(self, s: N.Node) -> None:
        assert isinstance(s, N.Assign)
        tok = self.w.tok
        if _starts_with_paren(s.targets[0]):
            tok(";", s.line)
        for i, target in enumerate(s.targets):
            if i:
                tok(",")
            self.expr(target)
        tok("=")
        self.expr_list(s.values)

    def compound(self, s: N.Node) -> None:
        assert isinstance(s, N.Compound)
        tok = self.w.tok
        target = s.target
        if isinstance(target, N.Name):
            self.name(target)
            tok("=")
            self.operation(s.op, s.op_line, lambda: self.name(target), s.value)
            return
        assert isinstance(target, (N.Field, N.Index))
        obj = target.obj
        obj_temp = not (isinstance(obj, N.Name) and obj.local is not None)
        key: N.Node | None = target.key if isinstance(target, N.Index) else None
        key_temp = key is not None and not isinstance(key, (N.String, N.Number, N.Bool))
        if not obj_temp and not key_temp:
            self.expr(target)
            tok("=")
            self.operation(s.op, s.op_line, lambda: self.expr(target), s.value)
            return
        # Evaluate the table (and key) once, as Luau does: do local o, k = obj, key; o[k] = o[k] op v end
        tok("do", s.line)
        tok("local")
        temps: list[N.Node] = []
        if obj_temp:
            tok("__luau_o")
            temps.append(obj)
        if key_temp:
            if obj_temp:
                tok(",")
            tok("__luau_k")
            assert key is not None
            temps.append(key)
        tok("=")
        for i, value in enumerate(temps):
            if i:
                tok(",")
            self.single(value)
        tok(";")

        def ref() -> None:
            if obj_temp:
                tok("__luau_o")
            else:
                self.expr(obj)
            if isinstance(target, N.Field):
                self.field_suffix(target.name, 0)
            elif key_temp:
                tok("[")
                tok("__luau_k")
                tok("]")
            else:
                tok("[")
                assert key is not None
                self.expr(key)
                tok("]")

        ref()
        tok("=")
        self.operation(s.op, s.op_line, ref, s.value)
        tok("end")

    def operation(self, op: str, op_line: int, left: Callable[[], None], value: N.Node) -> None:
        """`left op (value)`, written the way `binary` writes that operator."""
        tok = self.w.tok
        helper = {"..": "concat", "//": "idiv", "%": "mod"}.get(op)
        if helper is not None:
            self.helper(helper, op_line)
            left()
            tok(",")
            self.single(value)
            tok(")")
            return
        left()
        tok(op, op_line)
        if isinstance(value, _ATOMS):
            self.expr(value)
        else:
            tok("(")
            self.expr(value)
            tok(")")

    def call_stat(self, s: N.Node) -> None:
        assert isinstance(s, N.CallStat)
        if _starts_with_paren(s.call):
            self.w.tok(";", s.line)
        self.expr(s.call)

    def do(self, s: N.Node) -> None:
        assert isinstance(s, N.Do)
        self.w.tok("do", s.line)
        self.block(s.body)
        self.w.tok("end", s.end_line)

    def while_(self, s: N.Node) -> None:
        assert isinstance(s, N.While)
        tok = self.w.tok
        tok("while", s.line)
        self.expr(s.cond)
        tok("do", s.do_line)
        self.loop_body(s.body, s.loop, s.end_line)
        tok("end", s.end_line)

    def repeat(self, s: N.Node) -> None:
        assert isinstance(s, N.Repeat)
        tok = self.w.tok
        tok("repeat", s.line)
        loop = s.loop
        if loop.label is None:
            self.block(s.body)
        else:
            # Locals declared before the first statement with a `continue` stay visible to `until`;
            # the rest sits in a block the goto leaves, so it never jumps into a local's scope.
            first = loop.first_index
            self.block(s.body[:first])
            tok("do", s.body[first].line)
            self.block(s.body[first:])
            tok("end", s.until_line)
            self.label(loop.label, s.until_line)
        tok("until", s.until_line)
        self.expr(s.cond)

    def numeric_for(self, s: N.Node) -> None:
        assert isinstance(s, N.NumericFor)
        tok = self.w.tok
        tok("for", s.line)
        tok(var_name(s.var.name), s.var.line)
        tok("=")
        self.expr(s.start)
        tok(",")
        self.expr(s.stop)
        if s.step is not None:
            tok(",")
            self.expr(s.step)
        tok("do", s.do_line)
        self.loop_body(s.body, s.loop, s.end_line)
        tok("end", s.end_line)

    def generic_for(self, s: N.Node) -> None:
        assert isinstance(s, N.GenericFor)
        tok = self.w.tok
        tok("for", s.line)
        for i, var in enumerate(s.vars):
            if i:
                tok(",")
            tok(var_name(var.name), var.line)
        tok("in", s.in_line)
        self.helper("iter", s.exprs[0].line)
        self.expr_list(s.exprs)
        tok(")")
        tok("do", s.do_line)
        self.loop_body(s.body, s.loop, s.end_line)
        tok("end", s.end_line)

    def if_(self, s: N.Node) -> None:
        assert isinstance(s, N.If)
        tok = self.w.tok
        for i, clause in enumerate(s.clauses):
            tok("elseif" if i else "if", clause.line)
            self.expr(clause.cond)
            tok("then", clause.then_line)
            self.block(clause.body)
        if s.else_body is not None:
            tok("else", s.else_line)
            self.block(s.else_body)
        tok("end", s.end_line)

    def return_(self, s: N.Node) -> None:
        assert isinstance(s, N.Return)
        self.w.tok("return", s.line)
        if not s.values:
            return
        last = s.values[-1]
        if isinstance(last, N.Binary) and last.op in ("..", "//", "%"):
            # Not a tail call: a runtime error in the helper then names this line, as Luau would.
            self.expr_list(s.values[:-1])
            if len(s.values) > 1:
                self.w.tok(",")
            self.w.tok("(")
            self.expr(last)
            self.w.tok(")")
        else:
            self.expr_list(s.values)

    def break_(self, s: N.Node) -> None:
        self.w.tok("break", s.line)

    def continue_(self, s: N.Node) -> None:
        assert isinstance(s, N.Continue)
        assert s.loop.label is not None
        self.w.tok("goto", s.line)
        self.w.tok(s.loop.label)

    # -- expressions -----------------------------------------------------------------

    def expr(self, e: N.Node) -> None:
        self.exprs[type(e)](e)

    def expr_list(self, values: list[N.Node]) -> None:
        for i, value in enumerate(values):
            if i:
                self.w.tok(",")
            self.expr(value)

    def single(self, e: N.Node) -> None:
        """An expression kept to one value, as an argument to a variadic helper needs."""
        if _multi(e):
            self.w.tok("(", e.line)
            self.expr(e)
            self.w.tok(")")
        else:
            self.expr(e)

    def helper(self, name: str, line: int) -> None:
        """`__luau.name(`: the start of a call into the runtime table."""
        tok = self.w.tok
        tok(RUNTIME, line)
        tok(".")
        tok(name)
        tok("(", glue=True)

    def nil(self, e: N.Node) -> None:
        self.w.tok("nil", e.line)

    def bool_(self, e: N.Node) -> None:
        assert isinstance(e, N.Bool)
        self.w.tok("true" if e.value else "false", e.line)

    def number(self, e: N.Node) -> None:
        assert isinstance(e, N.Number)
        self.w.tok(e.text, e.line)

    def string(self, e: N.Node) -> None:
        assert isinstance(e, N.String)
        self.w.tok(lua_string(e.value), e.line)

    def vararg(self, e: N.Node) -> None:
        assert isinstance(e, N.Vararg)
        if e.top:
            # The main chunk's first vararg is the runtime table; the script sees the rest.
            self.helper("tail", e.line)
            self.w.tok("...")
            self.w.tok(")")
        else:
            self.w.tok("...", e.line)

    def function(self, e: N.Node) -> None:
        assert isinstance(e, N.Function)
        self.w.tok("function", e.line)
        self.function_rest(e, self_param=False)

    def function_rest(self, f: N.Function, self_param: bool) -> None:
        tok = self.w.tok
        tok("(", glue=True)
        names = ["self"] if self_param else []
        names.extend(var_name(p.name) for p in f.params)
        if f.vararg:
            names.append("...")
        for i, name in enumerate(names):
            if i:
                tok(",")
            tok(name)
        tok(")")
        self.block(f.body)
        tok("end", f.end_line)

    def table(self, e: N.Node) -> None:
        assert isinstance(e, N.Table)
        tok = self.w.tok
        tok("{", e.line)
        for i, item in enumerate(e.items):
            if i:
                tok(",")
            if item.name is not None:
                if item.name == "goto":
                    tok("[", item.line)
                    tok('"goto"')
                    tok("]")
                else:
                    tok(item.name, item.line)
                tok("=")
            elif item.key is not None:
                tok("[", item.line)
                self.expr(item.key)
                tok("]")
                tok("=")
            self.expr(item.value)
        tok("}", e.close_line)

    def name(self, e: N.Node) -> None:
        assert isinstance(e, N.Name)
        self.w.tok(var_name(e.name), e.line)

    def index(self, e: N.Node) -> None:
        assert isinstance(e, N.Index)
        self.expr(e.obj)
        self.w.tok("[", e.bracket_line, glue=True)
        self.expr(e.key)
        self.w.tok("]", e.close_line)

    def field(self, e: N.Node) -> None:
        assert isinstance(e, N.Field)
        self.expr(e.obj)
        self.field_suffix(e.name, e.name_line)

    def field_suffix(self, name: str, line: int) -> None:
        tok = self.w.tok
        if name == "goto":
            tok("[", line, glue=True)
            tok('"goto"')
            tok("]")
        else:
            tok(".", line)
            tok(name)

    def call(self, e: N.Node) -> None:
        assert isinstance(e, N.Call)
        self.expr(e.func)
        self.args(e.open_line, e.args, e.close_line)

    def args(self, open_line: int, args: list[N.Node], close_line: int) -> None:
        self.w.tok("(", open_line, glue=True)
        self.expr_list(args)
        self.w.tok(")", close_line)

    def method_call(self, e: N.Node) -> None:
        assert isinstance(e, N.MethodCall)
        tok = self.w.tok
        if e.name == "goto":
            # obj:goto(...) is not Lua syntax: call the method through the runtime.
            self.helper("namecall", e.line)
            self.expr(e.obj)
            tok(",")
            tok('"goto"', e.name_line)
            for arg in e.args:
                tok(",")
                self.expr(arg)
            tok(")", e.close_line)
            return
        self.expr(e.obj)
        tok(":", e.name_line)
        tok(e.name)
        self.args(e.open_line, e.args, e.close_line)

    def paren(self, e: N.Node) -> None:
        assert isinstance(e, N.Paren)
        self.w.tok("(", e.line)
        self.expr(e.expr)
        self.w.tok(")", e.close_line)

    def binary(self, e: N.Node) -> None:
        assert isinstance(e, N.Binary)
        op = e.op
        tok = self.w.tok
        if op == "..":
            self.concat(e)
        elif op == "//" or op == "%":
            self.helper("idiv" if op == "//" else "mod", e.line)
            self.expr(e.left)
            tok(",", e.op_line)
            self.single(e.right)
            tok(")")
        else:
            self.expr(e.left)
            tok(op, e.op_line)
            self.expr(e.right)

    def concat(self, e: N.Binary) -> None:
        operands: list[N.Node] = []
        lines: list[int] = []
        node: N.Node = e
        while isinstance(node, N.Binary) and node.op == "..":
            operands.append(node.left)
            lines.append(node.op_line)
            node = node.right
        operands.append(node)
        tok = self.w.tok
        if all(_known_string(o) for o in operands):
            for i, operand in enumerate(operands):
                if i:
                    tok("..", lines[i - 1])
                self.expr(operand)
            return
        self.helper("concat", e.line)
        for i, operand in enumerate(operands):
            if i:
                tok(",", lines[i - 1])
            self.single(operand)
        tok(")")

    def unary(self, e: N.Node) -> None:
        assert isinstance(e, N.Unary)
        self.w.tok(e.op, e.line)
        self.expr(e.operand)

    def if_expr(self, e: N.Node) -> None:
        assert isinstance(e, N.IfExpr)
        tok = self.w.tok
        plain = all(_truthy(b.value) for b in e.branches)
        tok("(", e.line)
        for branch in e.branches:
            cond = branch.cond
            if isinstance(cond, N.Binary) and cond.op == "or":
                tok("(", cond.line)
                self.expr(cond)
                tok(")")
            else:
                self.expr(cond)
            tok("and")
            if plain:
                self.expr(branch.value)
            else:
                tok("{")
                self.single(branch.value)
                tok("}")
            tok("or")
        if plain:
            self.expr(e.else_value)
            tok(")")
        else:
            tok("{")
            self.single(e.else_value)
            tok("}")
            tok(")")
            tok("[")
            tok("1")
            tok("]")

    def interp(self, e: N.Node) -> None:
        assert isinstance(e, N.Interp)
        tok = self.w.tok
        if not e.exprs:
            tok(lua_string(e.strings[0]), e.line)
            return
        tok("(", e.line)
        first = True
        for i, piece in enumerate(e.strings):
            if piece:
                if not first:
                    tok("..")
                tok(lua_string(piece))
                first = False
            if i < len(e.exprs):
                value = e.exprs[i]
                if not first:
                    tok("..")
                self.helper("tostr", value.line)
                self.single(value)
                tok(")")
                first = False
        tok(")")


def emit(body: list[N.Node], indents: list[str] | None = None) -> str:
    """The Lua 5.4 source for a parsed chunk; it expects the runtime table as its first vararg.

    `indents` holds each source line's leading whitespace, to indent the Lua the same way.
    """
    return Emitter(indents).chunk(body)
