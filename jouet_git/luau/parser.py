"""The Luau parser: tokens in, a syntax tree out (nodes.py), with types read, checked and dropped.

It follows Luau's grammar, contextual keywords included (`type`, `export` and `continue` are names
anywhere else), and it resolves every name to its local declaration, which the emitter and the
`repeat ... until` check for `continue` rely on. The first error stops it: LuauSyntaxError says
where and what, for example "expected 'end' to close 'function' at line 3, got end of file".
"""

from __future__ import annotations

from jouet_git.luau import nodes as N
from jouet_git.luau.lexer import (
    ATTRIBUTE,
    EOF,
    INTERP_BEGIN,
    INTERP_END,
    INTERP_MID,
    INTERP_SIMPLE,
    KEYWORD,
    NAME,
    NUMBER,
    OP,
    STRING,
    LuauSyntaxError,
    Token,
)

# Binary operators: (left priority, right priority), as Luau ranks them.
BINARY_PRIORITY = {
    "+": (6, 6), "-": (6, 6), "*": (7, 7), "/": (7, 7), "//": (7, 7), "%": (7, 7),
    "^": (10, 9), "..": (5, 4),
    "==": (3, 3), "~=": (3, 3), "<": (3, 3), "<=": (3, 3), ">": (3, 3), ">=": (3, 3),
    "and": (2, 2), "or": (1, 1),
}
UNARY_PRIORITY = 8
COMPOUND_OPS = {"+=": "+", "-=": "-", "*=": "*", "/=": "/", "//=": "//", "%=": "%", "^=": "^", "..=": ".."}
BLOCK_END = frozenset(("end", "else", "elseif", "until"))
RESERVED_PREFIX = "__luau"
MAX_DEPTH = 150


class _Function:
    """What the parser knows about the function it is inside: varargs, and the loops open in it."""

    __slots__ = ("loops", "vararg")

    def __init__(self, vararg: bool) -> None:
        self.vararg = vararg
        self.loops: list[N.Loop] = []


class Parser:
    """One parse of one chunk. Use `parse_chunk`."""

    def __init__(self, tokens: list[Token], chunkname: str) -> None:
        self.toks = tokens
        self.i = 0
        self.tok = tokens[0]
        self.chunk = chunkname
        self.scopes: list[dict[str, N.LocalVar]] = [{}]
        self.functions = [_Function(vararg=True)]
        self.depth = 0
        self.labels = 0

    # -- token helpers -------------------------------------------------------------

    def advance(self) -> Token:
        tok = self.tok
        self.i += 1
        self.tok = self.toks[self.i] if self.i < len(self.toks) else self.toks[-1]
        return tok

    def peek(self, ahead: int = 1) -> Token:
        at = self.i + ahead
        return self.toks[at] if at < len(self.toks) else self.toks[-1]

    def is_op(self, value: str) -> bool:
        return self.tok.kind == OP and self.tok.value == value

    def is_kw(self, value: str) -> bool:
        return self.tok.kind == KEYWORD and self.tok.value == value

    def error(self, message: str, tok: Token | None = None) -> LuauSyntaxError:
        at = tok or self.tok
        return LuauSyntaxError(self.chunk, at.line, at.col, message)

    def expect_op(self, value: str, context: str) -> Token:
        if not self.is_op(value):
            raise self.error(f"expected '{value}' {context}, got {self.tok.text()}")
        return self.advance()

    def expect_kw(self, value: str, context: str) -> Token:
        if not self.is_kw(value):
            raise self.error(f"expected '{value}' {context}, got {self.tok.text()}")
        return self.advance()

    def expect_close(self, value: str, opener: Token) -> Token:
        """The keyword or bracket that closes `opener`, or an error naming what it would have closed."""
        tok = self.tok
        if (tok.kind == KEYWORD or tok.kind == OP) and tok.value == value:
            return self.advance()
        raise self.error(
            f"expected '{value}' to close '{opener.value}' at line {opener.line}, got {tok.text()}"
        )

    def name(self, context: str) -> Token:
        """A name that is not a variable: a field, a method, a type."""
        if self.tok.kind != NAME:
            raise self.error(f"expected a name {context}, got {self.tok.text()}")
        return self.advance()

    def var_name(self, context: str) -> Token:
        """A variable's name, which may not use the translator's reserved prefix."""
        tok = self.name(context)
        if tok.value.startswith(RESERVED_PREFIX):
            raise self.error(
                f"names that start with '{RESERVED_PREFIX}' are reserved for jouet's Luau translation; "
                f"rename '{tok.value}'",
                tok,
            )
        return tok

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.error("the script nests too deeply to translate; split it into smaller functions")

    # -- scopes -----------------------------------------------------------------------

    def declare(self, tok: Token) -> N.LocalVar:
        var = N.LocalVar(tok.value, tok.line)
        self.scopes[-1][var.name] = var
        return var

    def resolve(self, name: str) -> N.LocalVar | None:
        for scope in reversed(self.scopes):
            var = scope.get(name)
            if var is not None:
                return var
        return None

    # -- blocks and statements ---------------------------------------------------------

    def parse_chunk(self) -> list[N.Node]:
        body = self.block()
        if self.tok.kind != EOF:
            if body and isinstance(body[-1], (N.Return, N.Break, N.Continue)):
                raise self.error(
                    f"expected the end of the script after the last statement of its block, got {self.tok.text()}"
                )
            raise self.error(f"unexpected {self.tok.text()} outside any block")
        return body

    def block(self, loop: N.Loop | None = None) -> list[N.Node]:
        """Statements up to a block end, in a new scope."""
        self.scopes.append({})
        body = self.statements(loop)
        self.scopes.pop()
        return body

    def statements(self, loop: N.Loop | None = None) -> list[N.Node]:
        """Statements up to a block end, in the current scope. `loop` marks the body of a repeat loop."""
        body: list[N.Node] = []
        while True:
            tok = self.tok
            if tok.kind == EOF or (tok.kind == KEYWORD and tok.value in BLOCK_END):
                return body
            stat = self.statement()
            if self.is_op(";"):
                self.advance()
            if stat is None:
                continue
            if loop is not None and loop.label is not None and loop.first_index < 0:
                loop.first_index = len(body)
            body.append(stat)
            if isinstance(stat, (N.Return, N.Break, N.Continue)):
                return body

    def statement(self) -> N.Node | None:
        tok = self.tok
        self.enter()
        try:
            if tok.kind == KEYWORD:
                kw = tok.value
                if kw == "if":
                    return self.if_stat()
                if kw == "while":
                    return self.while_stat()
                if kw == "do":
                    self.advance()
                    body = self.block()
                    end = self.expect_close("end", tok)
                    return N.Do(tok.line, body, end.line)
                if kw == "for":
                    return self.for_stat()
                if kw == "repeat":
                    return self.repeat_stat()
                if kw == "function":
                    return self.function_stat()
                if kw == "local":
                    return self.local_stat()
                if kw == "return":
                    return self.return_stat()
                if kw == "break":
                    self.advance()
                    if not self.functions[-1].loops:
                        raise self.error("'break' must be inside a loop", tok)
                    return N.Break(tok.line)
            elif tok.kind == ATTRIBUTE:
                return self.attribute_stat()
            return self.expression_stat()
        finally:
            self.depth -= 1

    def expression_stat(self) -> N.Node | None:
        start = self.tok
        if start.kind != NAME and not (start.kind == OP and start.value == "("):
            raise self.error(f"expected a statement, got {start.text()}")
        if start.kind == NAME and start.value == "goto" and self.peek().kind == NAME:
            raise self.error("'goto' is not part of Luau; use 'continue', 'break' or a function instead")
        expr = self.primary_expr()
        if isinstance(expr, (N.Call, N.MethodCall)):
            return N.CallStat(expr)
        if self.is_op(",") or self.is_op("="):
            return self.assignment(expr, start)
        if self.tok.kind == OP and self.tok.value in COMPOUND_OPS:
            self.check_target(expr, start)
            op_tok = self.advance()
            value = self.expr()
            return N.Compound(expr, COMPOUND_OPS[op_tok.value], op_tok.line, value)
        if isinstance(expr, N.Name) and start.kind == NAME:
            word = expr.name
            if word == "type" and (self.tok.kind == NAME or self.is_kw("function")):
                self.type_declaration()
                return None
            if word == "export" and self.tok.kind == NAME and self.tok.value == "type":
                self.advance()
                self.type_declaration()
                return None
            if word == "continue":
                return self.continue_stat(start)
        raise self.error(
            f"incomplete statement: expected an assignment or a function call, got {self.tok.text()}"
        )

    def check_target(self, expr: N.Node, at: Token) -> None:
        if not isinstance(expr, (N.Name, N.Index, N.Field)):
            raise self.error("the left side of an assignment must be a variable or a field", at)

    def assignment(self, first: N.Node, start: Token) -> N.Node:
        targets = [first]
        self.check_target(first, start)
        while self.is_op(","):
            self.advance()
            at = self.tok
            target = self.primary_expr()
            self.check_target(target, at)
            targets.append(target)
        self.expect_op("=", "in assignment")
        values = self.expr_list()
        return N.Assign(targets, values)

    def continue_stat(self, tok: Token) -> N.Node:
        loops = self.functions[-1].loops
        if not loops:
            raise self.error("'continue' must be inside a loop", tok)
        loop = loops[-1]
        if loop.label is None:
            self.labels += 1
            loop.label = f"__luau_continue_{self.labels}"
            loop.first_line = tok.line
        return N.Continue(tok.line, loop)

    def if_stat(self) -> N.Node:
        opener = self.advance()
        clauses: list[N.IfClause] = []
        kw = opener
        while True:
            cond = self.expr()
            then = self.expect_kw("then", f"after the condition of '{kw.value}' at line {kw.line}")
            body = self.block()
            clauses.append(N.IfClause(kw.line, cond, then.line, body))
            if self.is_kw("elseif"):
                kw = self.advance()
                continue
            break
        else_line = 0
        else_body = None
        if self.is_kw("else"):
            else_line = self.advance().line
            else_body = self.block()
        end = self.expect_close("end", opener)
        return N.If(clauses, else_line, else_body, end.line)

    def while_stat(self) -> N.Node:
        opener = self.advance()
        cond = self.expr()
        do = self.expect_kw("do", f"after the condition of 'while' at line {opener.line}")
        loop = N.Loop()
        body = self.loop_body(loop)
        end = self.expect_close("end", opener)
        return N.While(opener.line, cond, do.line, body, end.line, loop)

    def loop_body(self, loop: N.Loop) -> list[N.Node]:
        self.functions[-1].loops.append(loop)
        body = self.block()
        self.functions[-1].loops.pop()
        return body

    def repeat_stat(self) -> N.Node:
        opener = self.advance()
        loop = N.Loop()
        self.functions[-1].loops.append(loop)
        self.scopes.append({})
        body = self.statements(loop)
        self.functions[-1].loops.pop()
        until = self.expect_close("until", opener)
        cond = self.expr()
        self.scopes.pop()
        if loop.label is not None:
            self.check_until(body, loop, cond)
        return N.Repeat(opener.line, body, until.line, cond, loop)

    def check_until(self, body: list[N.Node], loop: N.Loop, cond: N.Node) -> None:
        """Luau's rule: the condition may not use a local that a `continue` jumps over."""
        skipped: set[N.LocalVar] = set()
        for stat in body[loop.first_index + 1:]:
            if isinstance(stat, N.Local):
                skipped.update(stat.names)
            elif isinstance(stat, N.LocalFunction):
                skipped.add(stat.var)
        if not skipped:
            return
        for node in N.walk(cond):
            if isinstance(node, N.Name) and node.local in skipped:
                raise LuauSyntaxError(
                    self.chunk, node.line, node.col,
                    f"local '{node.name}' used in the repeat..until condition is undefined because the "
                    f"continue statement on line {loop.first_line} jumps over it",
                )

    def for_stat(self) -> N.Node:
        opener = self.advance()
        first = self.var_name("after 'for'")
        self.optional_annotation()
        if self.is_op("="):
            self.advance()
            start = self.expr()
            self.expect_op(",", "after the start value of a numeric 'for'")
            stop = self.expr()
            step = None
            if self.is_op(","):
                self.advance()
                step = self.expr()
            do = self.expect_kw("do", f"in the 'for' loop at line {opener.line}")
            loop = N.Loop()
            self.scopes.append({})
            var = self.declare(first)
            body = self.loop_body(loop)
            self.scopes.pop()
            end = self.expect_close("end", opener)
            return N.NumericFor(opener.line, var, start, stop, step, do.line, body, end.line, loop)
        names = [first]
        while self.is_op(","):
            self.advance()
            names.append(self.var_name("in the 'for' variable list"))
            self.optional_annotation()
        in_tok = self.expect_kw("in", "or '=' after the 'for' variables")
        exprs = self.expr_list()
        do = self.expect_kw("do", f"in the 'for' loop at line {opener.line}")
        loop = N.Loop()
        self.scopes.append({})
        variables = [self.declare(tok) for tok in names]
        body = self.loop_body(loop)
        self.scopes.pop()
        end = self.expect_close("end", opener)
        return N.GenericFor(opener.line, variables, in_tok.line, exprs, do.line, body, end.line, loop)

    def function_stat(self) -> N.Node:
        opener = self.advance()
        base = self.var_name("after 'function'")
        target: N.Node = N.Name(base.line, base.value, self.resolve(base.value))
        method = None
        method_line = 0
        while self.is_op("."):
            self.advance()
            field = self.name("after '.' in a function name")
            target = N.Field(target, field.value, field.line)
        if self.is_op(":"):
            self.advance()
            field = self.name("after ':' in a function name")
            method = field.value
            method_line = field.line
        func = self.function_body(opener, is_method=method is not None)
        return N.FunctionStat(opener.line, target, method, method_line, func)

    def attribute_stat(self) -> N.Node:
        self.attributes()
        if self.is_kw("function"):
            return self.function_stat()
        if self.is_kw("local") and self.peek().kind == KEYWORD and self.peek().value == "function":
            return self.local_stat()
        raise self.error(f"expected 'function' or 'local function' after an attribute, got {self.tok.text()}")

    def attributes(self) -> None:
        """Skip attributes (@native, @checked, @[deprecated ...]): they change nothing in Lua."""
        while self.tok.kind == ATTRIBUTE:
            tok = self.advance()
            if tok.value == "":
                if not self.is_op("["):
                    raise self.error("expected an attribute name after '@'", tok)
                self.skip_balanced("[", "]")

    def skip_balanced(self, open_: str, close: str) -> None:
        opener = self.advance()
        depth = 1
        while depth:
            tok = self.tok
            if tok.kind == EOF:
                raise self.error(
                    f"expected '{close}' to close '{open_}' at line {opener.line}, got end of file"
                )
            if tok.kind == OP and tok.value == open_:
                depth += 1
            elif tok.kind == OP and tok.value == close:
                depth -= 1
            self.advance()

    def local_stat(self) -> N.Node:
        opener = self.advance()
        if self.tok.kind == ATTRIBUTE:
            self.attributes()
            if not self.is_kw("function"):
                raise self.error(f"expected 'function' after 'local' and an attribute, got {self.tok.text()}")
        if self.is_kw("function"):
            fn_tok = self.advance()
            name = self.var_name("after 'local function'")
            var = self.declare(name)
            func = self.function_body(fn_tok, is_method=False)
            return N.LocalFunction(opener.line, var, func)
        names = [self.var_name("after 'local'")]
        self.optional_annotation()
        while self.is_op(","):
            self.advance()
            names.append(self.var_name("in the 'local' list"))
            self.optional_annotation()
        if self.is_op("<"):
            raise self.error("local attributes such as <const> and <close> are not part of Luau")
        values: list[N.Node] = []
        if self.is_op("="):
            self.advance()
            values = self.expr_list()
        variables = [self.declare(tok) for tok in names]
        return N.Local(opener.line, variables, values)

    def return_stat(self) -> N.Node:
        tok = self.advance()
        values: list[N.Node] = []
        nxt = self.tok
        if not (nxt.kind == EOF or (nxt.kind == KEYWORD and nxt.value in BLOCK_END) or self.is_op(";")):
            values = self.expr_list()
        return N.Return(tok.line, values)

    # -- functions ---------------------------------------------------------------------

    def function_body(self, opener: Token, is_method: bool) -> N.Function:
        if self.is_op("<"):
            self.generic_list(defaults=False)
        self.expect_op("(", f"to start the parameters of the function at line {opener.line}")
        params: list[Token] = []
        vararg = False
        if not self.is_op(")"):
            while True:
                if self.is_op("..."):
                    self.advance()
                    vararg = True
                    if self.is_op(":"):
                        self.advance()
                        self.variadic_annotation()
                    break
                params.append(self.var_name("in the parameter list"))
                self.optional_annotation()
                if not self.is_op(","):
                    break
                self.advance()
        self.expect_op(")", "to end the parameter list")
        if self.is_op(":"):
            self.advance()
            self.return_type()
        elif self.is_op("->"):
            raise self.error("a function's return type is written after ':', not '->'")
        self.scopes.append({})
        self.functions.append(_Function(vararg))
        variables = []
        if is_method:
            variables.append(N.LocalVar("self", opener.line))
            self.scopes[-1]["self"] = variables[0]
        variables.extend(self.declare(tok) for tok in params)
        body = self.block()
        self.functions.pop()
        self.scopes.pop()
        end = self.expect_close("end", opener)
        return N.Function(opener.line, variables[1:] if is_method else variables, vararg, body, end.line)

    # -- expressions -------------------------------------------------------------------

    def expr_list(self) -> list[N.Node]:
        values = [self.expr()]
        while self.is_op(","):
            self.advance()
            values.append(self.expr())
        return values

    def expr(self, limit: int = 0) -> N.Node:
        self.enter()
        try:
            tok = self.tok
            if (tok.kind == KEYWORD and tok.value == "not") or (tok.kind == OP and tok.value in ("-", "#")):
                self.advance()
                operand = self.expr(UNARY_PRIORITY)
                left: N.Node = N.Unary(tok.line, tok.value, operand)
            elif tok.kind == OP and tok.value == "!":
                raise self.error("unexpected '!'; Luau writes 'not' (and '~=' for not-equal)")
            else:
                left = self.assertion_expr()
            while True:
                op_tok = self.tok
                if op_tok.kind == OP or op_tok.kind == KEYWORD:
                    prio = BINARY_PRIORITY.get(op_tok.value)
                else:
                    prio = None
                if prio is None:
                    if op_tok.kind == OP and op_tok.value in ("&", "|") and self.peek().kind == OP \
                            and self.peek().value == op_tok.value:
                        word = "and" if op_tok.value == "&" else "or"
                        raise self.error(f"unexpected '{op_tok.value * 2}'; Luau writes '{word}'")
                    if op_tok.kind == OP and op_tok.value == "!" and self.peek().kind == OP \
                            and self.peek().value == "=":
                        raise self.error("unexpected '!='; Luau writes '~='")
                    return left
                if prio[0] <= limit:
                    return left
                self.advance()
                right = self.expr(prio[1])
                left = N.Binary(op_tok.value, left, op_tok.line, right)
        finally:
            self.depth -= 1

    def assertion_expr(self) -> N.Node:
        expr = self.simple_expr()
        if self.is_op("::"):
            self.advance()
            self.type_()
            if isinstance(expr, (N.Call, N.MethodCall, N.Vararg)):
                # A cast keeps one value, as Luau's does.
                return N.Paren(expr.line, expr, expr.line)
        return expr

    def simple_expr(self) -> N.Node:
        tok = self.tok
        kind = tok.kind
        if kind == NUMBER:
            self.advance()
            return N.Number(tok.line, tok.value)
        if kind in (STRING, INTERP_SIMPLE):
            self.advance()
            return N.String(tok.line, tok.data)
        if kind == INTERP_BEGIN:
            return self.interpolation()
        if kind == KEYWORD:
            kw = tok.value
            if kw == "nil":
                self.advance()
                return N.Nil(tok.line)
            if kw == "true" or kw == "false":
                self.advance()
                return N.Bool(tok.line, kw == "true")
            if kw == "function":
                self.advance()
                return self.function_body(tok, is_method=False)
            if kw == "if":
                return self.if_expr()
        if kind == ATTRIBUTE:
            self.attributes()
            if not self.is_kw("function"):
                raise self.error(f"expected 'function' after an attribute, got {self.tok.text()}")
            fn = self.advance()
            return self.function_body(fn, is_method=False)
        if kind == OP:
            if tok.value == "...":
                self.advance()
                if not self.functions[-1].vararg:
                    raise self.error("'...' can only be used inside a function declared with '...'", tok)
                return N.Vararg(tok.line, top=len(self.functions) == 1)
            if tok.value == "{":
                return self.table()
        return self.primary_expr()

    def if_expr(self) -> N.Node:
        opener = self.advance()
        branches: list[N.IfBranch] = []
        kw = opener
        while True:
            cond = self.expr()
            self.expect_kw("then", "in the if-then-else expression")
            value = self.expr()
            branches.append(N.IfBranch(kw.line, cond, value))
            if self.is_kw("elseif"):
                kw = self.advance()
                continue
            break
        if not self.is_kw("else"):
            raise self.error(
                f"expected 'else' in the if-then-else expression at line {opener.line} (it always needs "
                f"one), got {self.tok.text()}"
            )
        self.advance()
        return N.IfExpr(opener.line, branches, self.expr())

    def interpolation(self) -> N.Node:
        first = self.advance()
        strings = [first.data]
        exprs: list[N.Node] = []
        while True:
            if self.tok.kind in (INTERP_MID, INTERP_END):
                raise self.error("expected an expression inside '{}' in the interpolated string")
            exprs.append(self.expr())
            tok = self.tok
            if tok.kind not in (INTERP_MID, INTERP_END):
                raise self.error(
                    f"expected '}}' to end the expression in the interpolated string, got {tok.text()}"
                )
            self.advance()
            strings.append(tok.data)
            if tok.kind == INTERP_END:
                return N.Interp(first.line, strings, exprs)

    def table(self) -> N.Node:
        opener = self.advance()
        items: list[N.TableItem] = []
        while not self.is_op("}"):
            tok = self.tok
            if tok.kind == EOF:
                self.expect_close("}", opener)
            if tok.kind == OP and tok.value == "[":
                bracket = self.advance()
                key = self.expr()
                self.expect_close("]", bracket)
                self.expect_op("=", "after a '[key]' in a table")
                items.append(N.TableItem(tok.line, None, key, self.expr()))
            elif tok.kind == NAME and self.peek().kind == OP and self.peek().value == "=":
                name = self.name("in a table")
                self.advance()
                items.append(N.TableItem(tok.line, name.value, None, self.expr()))
            else:
                items.append(N.TableItem(tok.line, None, None, self.expr()))
            if self.is_op(",") or self.is_op(";"):
                self.advance()
            elif not self.is_op("}"):
                raise self.error(
                    f"expected ',' or '}}' after a table field (table started at line {opener.line}), "
                    f"got {self.tok.text()}"
                )
        close = self.advance()
        return N.Table(opener.line, items, close.line)

    def prefix_expr(self) -> N.Node:
        tok = self.tok
        if tok.kind == OP and tok.value == "(":
            self.advance()
            inner = self.expr()
            if not self.is_op(")"):
                hint = "; did you mean '{' to build a table?" if self.is_op("=") else ""
                raise self.error(f"expected ')' to close '(' at line {tok.line}, got {self.tok.text()}{hint}")
            close = self.advance()
            return N.Paren(tok.line, inner, close.line)
        if tok.kind == NAME:
            name = self.var_name("")
            value = name.value
            return N.Name(name.line, value, self.resolve(value), name.col)
        raise self.error(f"expected an expression, got {tok.text()}")

    def primary_expr(self) -> N.Node:
        expr = self.prefix_expr()
        last = self.toks[self.i - 1]
        while True:
            tok = self.tok
            if tok.kind == OP:
                op = tok.value
                if op == ".":
                    self.advance()
                    field = self.field_name(tok)
                    expr = N.Field(expr, field.value, field.line)
                elif op == "[":
                    self.advance()
                    key = self.expr()
                    close = self.expect_close("]", tok)
                    expr = N.Index(expr, tok.line, key, close.line)
                elif op == ":":
                    self.advance()
                    field = self.field_name(tok)
                    self.explicit_type_args()
                    if not (self.is_op("(") or self.is_op("{") or self.tok.kind == STRING):
                        raise self.error(f"expected arguments after the method name '{field.value}', got "
                                         f"{self.tok.text()}")
                    open_line, args, close_line = self.call_args(self.toks[self.i - 1])
                    expr = N.MethodCall(expr, field.value, field.line, open_line, args, close_line)
                elif op == "(" or op == "{":
                    open_line, args, close_line = self.call_args(last)
                    expr = N.Call(expr, open_line, args, close_line)
                elif op == "<" and self.peek().kind == OP and self.peek().value == "<" \
                        and self.peek().pos == tok.end:
                    self.explicit_type_args()
                    continue
                else:
                    return expr
            elif tok.kind == STRING:
                open_line, args, close_line = self.call_args(last)
                expr = N.Call(expr, open_line, args, close_line)
            else:
                return expr
            last = self.toks[self.i - 1]

    def explicit_type_args(self) -> None:
        """f<<number>>(x): explicit type instantiation, dropped."""
        if not (self.is_op("<") and self.peek().kind == OP and self.peek().value == "<"
                and self.peek().pos == self.tok.end):
            return
        opener = self.advance()
        self.advance()
        self.type_params()
        self.expect_close(">", opener)
        self.expect_close(">", opener)

    def field_name(self, dot: Token) -> Token:
        tok = self.tok
        if tok.kind == NAME:
            return self.advance()
        if tok.kind == KEYWORD and tok.line == dot.line:
            raise self.error(f"{tok.text()} is a keyword and cannot be a field name after '{dot.value}'; "
                             f"write [\"{tok.value}\"] instead")
        raise self.error(f"expected a field name after '{dot.value}', got {tok.text()}")

    def call_args(self, before: Token) -> tuple[int, list[N.Node], int]:
        tok = self.tok
        if tok.kind == STRING:
            self.advance()
            return tok.line, [N.String(tok.line, tok.data)], tok.line
        if tok.kind == OP and tok.value == "{":
            table = self.table()
            assert isinstance(table, N.Table)
            return tok.line, [table], table.close_line
        if tok.line != before.line:
            raise self.error(
                "ambiguous syntax: this '(' could call the expression on the line before or start a new "
                "statement; add ';' before it to start a statement, or join the lines to make a call"
            )
        self.advance()
        args: list[N.Node] = []
        if not self.is_op(")"):
            args = self.expr_list()
        close = self.expect_close(")", tok)
        return tok.line, args, close.line

    # -- types: read, checked, dropped ---------------------------------------------------

    def optional_annotation(self) -> None:
        if self.is_op(":"):
            self.advance()
            self.type_()

    def type_declaration(self) -> None:
        """After `type` (or `export type`): an alias, or a type function whose body is checked and dropped."""
        if self.is_kw("function"):
            opener = self.advance()
            self.name("after 'type function'")
            saved = self.scopes
            self.scopes = [{}]
            self.function_body(opener, is_method=False)
            self.scopes = saved
            return
        self.name("after 'type'")
        if self.is_op("<"):
            self.generic_list(defaults=True)
        self.expect_op("=", "in the type declaration")
        self.type_()

    def generic_list(self, defaults: bool) -> None:
        opener = self.advance()
        seen_pack = False
        while True:
            name = self.name("in the list of generic types")
            if self.is_op("..."):
                self.advance()
                seen_pack = True
            elif seen_pack:
                raise self.error("generic types come before generic type packs", name)
            if defaults and self.is_op("="):
                self.advance()
                if self.type_pack_start():
                    self.type_pack()
                else:
                    self.simple_type(allow_pack=True)
                    self.type_suffix()
            if not self.is_op(","):
                break
            self.advance()
        self.expect_close(">", opener)

    def type_pack_start(self) -> bool:
        return self.is_op("...") or (
            self.tok.kind == NAME and self.peek().kind == OP and self.peek().value == "..."
        )

    def type_pack(self) -> None:
        if self.is_op("..."):
            self.advance()
            self.type_()
        else:
            self.advance()
            self.advance()

    def variadic_annotation(self) -> None:
        """`...: T` or `...: T...` in a parameter list."""
        if self.tok.kind == NAME and self.peek().kind == OP and self.peek().value == "...":
            self.advance()
            self.advance()
        else:
            self.type_()

    def type_(self) -> None:
        self.enter()
        try:
            if not (self.is_op("|") or self.is_op("&")):
                self.simple_type(allow_pack=False)
            self.type_suffix()
        finally:
            self.depth -= 1

    def type_suffix(self) -> None:
        union = intersection = False
        while True:
            if self.is_op("|"):
                self.advance()
                self.simple_type(allow_pack=False)
                union = True
            elif self.is_op("&"):
                self.advance()
                self.simple_type(allow_pack=False)
                intersection = True
            elif self.is_op("?"):
                self.advance()
                union = True
            else:
                break
            if union and intersection:
                raise self.error("mixing union and intersection types is not allowed; add parentheses")

    def simple_type(self, allow_pack: bool) -> bool:
        """One type without a '|', '&' or '?' after it. Returns True when it read a type pack instead."""
        self.enter()
        try:
            tok = self.tok
            if tok.kind == KEYWORD and tok.value in ("nil", "true", "false"):
                self.advance()
                return False
            if tok.kind == STRING or tok.kind == INTERP_SIMPLE:
                if tok.kind == INTERP_SIMPLE:
                    raise self.error("interpolated strings cannot be used as types")
                self.advance()
                return False
            if tok.kind == INTERP_BEGIN:
                raise self.error("interpolated strings cannot be used as types")
            if tok.kind == NAME:
                self.advance()
                if self.is_op("."):
                    self.advance()
                    self.name("after '.' in a type name")
                elif tok.value == "typeof" and self.is_op("("):
                    opener = self.advance()
                    self.expr()
                    self.expect_close(")", opener)
                    return False
                if self.is_op("<"):
                    opener = self.advance()
                    self.type_params()
                    self.expect_close(">", opener)
                return False
            if tok.kind == OP and tok.value == "{":
                self.table_type()
                return False
            if tok.kind == OP and tok.value in ("(", "<"):
                return self.function_type(allow_pack)
            if tok.kind == KEYWORD and tok.value == "function":
                raise self.error("'function' is not a type; write a function type like '(number) -> string'")
            if tok.kind == ATTRIBUTE:
                self.attributes()
                return self.function_type(allow_pack)
            raise self.error(f"expected a type, got {tok.text()}")
        finally:
            self.depth -= 1

    def type_params(self) -> None:
        """The inside of `<...>` after a type name (the '<' is already read, the '>' is left)."""
        if self.is_op(">"):
            return
        while True:
            if self.type_pack_start():
                self.type_pack()
            elif self.is_op("("):
                pack = self.simple_type(allow_pack=True)
                if not pack or (self.tok.kind == OP and self.tok.value in ("|", "&", "?")):
                    self.type_suffix()
            else:
                self.type_()
            if not self.is_op(","):
                return
            self.advance()

    def table_type(self) -> None:
        opener = self.advance()
        first = True
        while not self.is_op("}"):
            tok = self.tok
            nxt = self.peek()
            access = tok.kind == NAME and tok.value in ("read", "write")
            if access and not (nxt.kind == OP and nxt.value == ":"):
                self.advance()
                tok = self.tok
                nxt = self.peek()
            if tok.kind == OP and tok.value == "[":
                bracket = self.advance()
                if self.tok.kind == STRING:
                    self.advance()
                else:
                    self.type_()
                self.expect_close("]", bracket)
                self.expect_op(":", "after '[...]' in a table type")
                self.type_()
            elif first and not (tok.kind == NAME and nxt.kind == OP and nxt.value == ":"):
                self.type_()  # {T}: an array of T
                break
            else:
                self.name("for a field of the table type")
                self.expect_op(":", "after the field name in a table type")
                self.type_()
            first = False
            if self.is_op(",") or self.is_op(";"):
                self.advance()
            elif not self.is_op("}"):
                break
        self.expect_close("}", opener)

    def function_type(self, allow_pack: bool) -> bool:
        forced = self.is_op("<")
        if forced:
            self.generic_list(defaults=False)
        opener = self.expect_op("(", "to start the parameters of the function type")
        count = 0
        tail = False
        named = False
        if not self.is_op(")"):
            while True:
                if self.type_pack_start():
                    self.type_pack()
                    tail = True
                    break
                if self.tok.kind == NAME and self.peek().kind == OP and self.peek().value == ":":
                    self.advance()
                    self.advance()
                    named = True
                self.type_()
                count += 1
                if not self.is_op(","):
                    break
                self.advance()
        self.expect_close(")", opener)
        arrow = self.is_op("->")
        if self.is_op(":"):
            raise self.error("a function type's return type is written after '->', not ':'")
        if not arrow:
            missing = f"expected '->' after the parameters of the function type, got {self.tok.text()}"
            if forced or named:
                raise self.error(missing)
            if count == 1 and not tail:
                return allow_pack
            if allow_pack:
                return True
            if count == 0 and not tail:
                raise self.error("expected '->' after '()' in a function type; did you mean 'nil'?")
            raise self.error(missing)
        self.advance()
        self.return_type()
        return False

    def return_type(self) -> None:
        if not self.is_op("("):
            if self.type_pack_start():
                self.type_pack()
            else:
                self.type_()
            return
        opener = self.advance()
        count = 0
        if not self.is_op(")"):
            while True:
                if self.type_pack_start():
                    self.type_pack()
                    break
                if self.tok.kind == NAME and self.peek().kind == OP and self.peek().value == ":":
                    self.advance()
                    self.advance()
                self.type_()
                count += 1
                if not self.is_op(","):
                    break
                self.advance()
        self.expect_close(")", opener)
        if self.is_op("->"):
            self.advance()
            self.return_type()
        elif count == 1:
            self.type_suffix()


def parse(tokens: list[Token], chunkname: str) -> list[N.Node]:
    """The statements of a chunk. Raises LuauSyntaxError at the first error."""
    return Parser(tokens, chunkname).parse_chunk()
