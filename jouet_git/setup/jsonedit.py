"""Edit a JSON (or JSONC) file in place, changing only the bytes of what is added or removed.

`jouet setup` merges its hook entries into files that people and other tools also edit. Loading
the file and dumping it again would re-indent it, reorder nothing but still rewrite every line,
and drop comments. This module parses the text into a tree that remembers where every value
starts and ends, and makes each change as a splice of the original text:

    doc = Document.parse(text, "settings.json")
    doc.set_member(["hooks"], "PreToolUse", [...])     # add a key at the end, or replace its value
    doc.append_item(["hooks", "PreToolUse"], {...})    # add an element at the end of an array
    doc.remove_item(["hooks", "PreToolUse"], 2)        # take an element (and its comma) out
    doc.text                                            # the edited file

New values are written in the file's own style: its indentation unit (spaces or tabs), its
newline, its `": "` or `":"`. Comments (`//` and `/* */`) and trailing commas are accepted, as in
JSONC files (Gemini's and Amp's settings). A file that does not parse raises JsonSyntaxError with
the line and column.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

Path = list[str | int]


class JsonSyntaxError(ValueError):
    def __init__(self, where: str, line: int, column: int, problem: str) -> None:
        super().__init__(f"{where}:{line}:{column}: {problem}")
        self.where, self.line, self.column, self.problem = where, line, column, problem


@dataclass
class Node:
    kind: str  # object, array, string, number, true, false, null
    start: int
    end: int
    value: Any = None  # for scalars
    keys: list[str] = field(default_factory=list)  # object member names, in order
    children: list[Node] = field(default_factory=list)  # object values / array items, in order
    key_spans: list[tuple[int, int]] = field(default_factory=list)  # where each member's key is

    def to_python(self) -> Any:
        if self.kind == "object":
            return {k: c.to_python() for k, c in zip(self.keys, self.children, strict=True)}
        if self.kind == "array":
            return [c.to_python() for c in self.children]
        return self.value


class _Parser:
    def __init__(self, text: str, where: str) -> None:
        self.text, self.where, self.pos = text, where, 0

    def fail(self, problem: str, pos: int | None = None) -> JsonSyntaxError:
        at = self.pos if pos is None else pos
        line = self.text.count("\n", 0, at) + 1
        column = at - (self.text.rfind("\n", 0, at) + 1) + 1
        return JsonSyntaxError(self.where, line, column, problem)

    def skip(self) -> None:
        text, n = self.text, len(self.text)
        while self.pos < n:
            c = text[self.pos]
            if c in " \t\r\n\ufeff":
                self.pos += 1
            elif text.startswith("//", self.pos):
                end = text.find("\n", self.pos)
                self.pos = n if end < 0 else end
            elif text.startswith("/*", self.pos):
                end = text.find("*/", self.pos + 2)
                if end < 0:
                    raise self.fail("unterminated /* comment")
                self.pos = end + 2
            else:
                return

    def document(self) -> Node:
        self.skip()
        if self.pos >= len(self.text):
            raise self.fail("the file is empty of JSON")
        node = self.value()
        self.skip()
        if self.pos < len(self.text):
            raise self.fail(f"unexpected {self.text[self.pos]!r} after the end of the JSON value")
        return node

    def value(self) -> Node:
        self.skip()
        if self.pos >= len(self.text):
            raise self.fail("unexpected end of file, expected a value")
        c = self.text[self.pos]
        if c == "{":
            return self.obj()
        if c == "[":
            return self.arr()
        if c == '"':
            start = self.pos
            return Node("string", start, self.pos_after_string(), self.string_value(start))
        for word, kind, val in (("true", "true", True), ("false", "false", False), ("null", "null", None)):
            if self.text.startswith(word, self.pos):
                start = self.pos
                self.pos += len(word)
                return Node(kind, start, self.pos, val)
        return self.number()

    def pos_after_string(self) -> int:
        text, i = self.text, self.pos + 1
        while i < len(text):
            c = text[i]
            if c == "\\":
                i += 2
                continue
            if c == '"':
                self.pos = i + 1
                return self.pos
            if c == "\n":
                raise self.fail("newline inside a string", i)
            i += 1
        raise self.fail("unterminated string", self.pos)

    def string_value(self, start: int) -> str:
        try:
            value = json.loads(self.text[start:self.pos])
        except ValueError:
            raise self.fail("invalid escape in string", start) from None
        assert isinstance(value, str)
        return value

    def number(self) -> Node:
        text, start, i = self.text, self.pos, self.pos
        while i < len(text) and text[i] in "+-0123456789.eE":
            i += 1
        if i == start:
            raise self.fail(f"unexpected {text[start]!r}, expected a value")
        try:
            value = json.loads(text[start:i])
        except ValueError:
            raise self.fail(f"invalid number {text[start:i]!r}", start) from None
        self.pos = i
        return Node("number", start, i, value)

    def obj(self) -> Node:
        node = Node("object", self.pos, self.pos)
        self.pos += 1
        while True:
            self.skip()
            if self.pos >= len(self.text):
                raise self.fail("unexpected end of file inside an object, expected '}'")
            if self.text[self.pos] == "}":
                self.pos += 1
                node.end = self.pos
                return node
            if self.text[self.pos] != '"':
                raise self.fail(f"unexpected {self.text[self.pos]!r}, expected a quoted key or '}}'")
            start = self.pos
            key_end = self.pos_after_string()
            key = self.string_value(start)
            node.key_spans.append((start, key_end))
            self.skip()
            if self.pos >= len(self.text) or self.text[self.pos] != ":":
                raise self.fail(f"expected ':' after the key {key!r}")
            self.pos += 1
            child = self.value()
            node.keys.append(key)
            node.children.append(child)
            self.skip()
            if self.pos < len(self.text) and self.text[self.pos] == ",":
                self.pos += 1
            elif self.pos >= len(self.text) or self.text[self.pos] != "}":
                raise self.fail("expected ',' or '}' after an object member")

    def arr(self) -> Node:
        node = Node("array", self.pos, self.pos)
        self.pos += 1
        while True:
            self.skip()
            if self.pos >= len(self.text):
                raise self.fail("unexpected end of file inside an array, expected ']'")
            if self.text[self.pos] == "]":
                self.pos += 1
                node.end = self.pos
                return node
            node.children.append(self.value())
            self.skip()
            if self.pos < len(self.text) and self.text[self.pos] == ",":
                self.pos += 1
            elif self.pos >= len(self.text) or self.text[self.pos] != "]":
                raise self.fail("expected ',' or ']' after an array element")


def parse(text: str, where: str = "<json>") -> Node:
    return _Parser(text, where).document()


def line_col(text: str, pos: int) -> tuple[int, int]:
    return text.count("\n", 0, pos) + 1, pos - (text.rfind("\n", 0, pos) + 1) + 1


class Document:
    """A JSON text and its tree; every edit splices the text and parses it again."""

    def __init__(self, text: str, where: str) -> None:
        self.where = where
        self.text = text
        self.root = parse(text, where)
        self.newline = "\r\n" if "\r\n" in text else "\n"
        self.unit = self._indent_unit()
        self.colon = self._colon_style()

    @classmethod
    def parse(cls, text: str, where: str = "<json>") -> Document:
        return cls(text, where)

    @classmethod
    def empty(cls, where: str, unit: str = "  ") -> Document:
        doc = cls("{}\n", where)
        doc.unit = unit
        return doc

    # -- looking things up --------------------------------------------------------------

    def node(self, path: Path) -> Node | None:
        node = self.root
        for step in path:
            if isinstance(step, str):
                if node.kind != "object" or step not in node.keys:
                    return None
                # the last duplicate key wins, as in JSON.parse
                node = node.children[len(node.keys) - 1 - node.keys[::-1].index(step)]
            else:
                if node.kind != "array" or not -len(node.children) <= step < len(node.children):
                    return None
                node = node.children[step]
        return node

    def get(self, path: Path) -> Any:
        node = self.node(path)
        return None if node is None else node.to_python()

    def where_is(self, path: Path) -> str:
        node = self.node(path)
        line, col = line_col(self.text, node.start if node else 0)
        return f"{self.where}:{line}:{col}"

    # -- style ----------------------------------------------------------------------------

    def _line_start(self, pos: int) -> int:
        return self.text.rfind("\n", 0, pos) + 1

    def _indent_of(self, pos: int) -> str:
        start = self._line_start(pos)
        end = start
        while end < len(self.text) and self.text[end] in " \t":
            end += 1
        return self.text[start:end]

    def _starts_line(self, pos: int) -> bool:
        return self.text[self._line_start(pos):pos].strip() == ""

    def _indent_unit(self) -> str:
        """The indentation of one level, from the first member that sits on a line of its own."""
        stack = [self.root]
        while stack:
            node = stack.pop(0)
            for child_pos, child in self._child_positions(node):
                if self._starts_line(child_pos):
                    outer = self._indent_of(node.start)
                    inner = self._indent_of(child_pos)
                    if inner.startswith(outer) and len(inner) > len(outer):
                        return inner[len(outer):]
                stack.append(child)
        return "  "

    def _colon_style(self) -> str:
        for node in self._walk(self.root):
            if node.kind == "object" and node.keys:
                between = self.text[node.key_spans[0][1]:node.children[0].start]
                return ":" if between.strip() == ":" and between.endswith(":") else ": "
        return ": "

    def _walk(self, node: Node) -> list[Node]:
        out = [node]
        for child in node.children:
            out.extend(self._walk(child))
        return out

    def _key_start(self, obj: Node, index: int) -> int:
        return obj.key_spans[index][0]

    def _child_positions(self, node: Node) -> list[tuple[int, Node]]:
        if node.kind == "object":
            return [(self._key_start(node, i), c) for i, c in enumerate(node.children)]
        if node.kind == "array":
            return [(c.start, c) for c in node.children]
        return []

    # -- rendering ------------------------------------------------------------------------

    def render(self, value: Any, indent: str) -> str:
        """VALUE as JSON in this file's style, its inner lines indented from INDENT.

        A file written on one line gets new values on one line too.
        """
        if self._one_line():
            return json.dumps(value, ensure_ascii=False, separators=(", ", self.colon))
        nl, unit = self.newline, self.unit
        if isinstance(value, dict):
            if not value:
                return "{}"
            inner = indent + unit
            members = [f"{inner}{json.dumps(k, ensure_ascii=False)}{self.colon}{self.render(v, inner)}"
                       for k, v in value.items()]
            return "{" + nl + ("," + nl).join(members) + nl + indent + "}"
        if isinstance(value, list):
            if not value:
                return "[]"
            if all(not isinstance(v, dict | list) for v in value):
                return "[" + ", ".join(self.render(v, indent) for v in value) + "]"
            inner = indent + unit
            items = [inner + self.render(v, inner) for v in value]
            return "[" + nl + ("," + nl).join(items) + nl + indent + "]"
        return json.dumps(value, ensure_ascii=False)

    # -- editing --------------------------------------------------------------------------

    def _splice(self, start: int, end: int, replacement: str) -> None:
        self.text = self.text[:start] + replacement + self.text[end:]
        self.root = parse(self.text, self.where)

    def _container(self, path: Path, kind: str) -> Node:
        node = self.node(path)
        if node is None or node.kind != kind:
            raise KeyError(f"{path!r} is not an {kind}")
        return node

    def _after_value(self, pos: int) -> int:
        """Skip spaces and comments on the rest of this line after POS (not the newline)."""
        text, i = self.text, pos
        while True:
            while i < len(text) and text[i] in " \t":
                i += 1
            if text.startswith("/*", i):
                end = text.find("*/", i + 2)
                if end < 0 or "\n" in text[i:end]:
                    return i
                i = end + 2
                continue
            return i

    def _insert_child(self, container: Node, index: int, rendered_for: Any, key: str | None) -> None:
        """Insert a new member/element at INDEX of CONTAINER (an object or an array)."""
        positions = self._child_positions(container)
        nl = self.newline
        if not positions:
            outer = self._indent_of(container.start)
            inner = outer + self.unit
            body = self._member_text(key, rendered_for, inner)
            close = container.end - 1
            between = self.text[container.start + 1:close]
            if between.strip() == "" and "\n" not in between:
                if self._one_line():
                    self._splice(container.start + 1, close, body)
                else:
                    self._splice(container.start + 1, close, nl + inner + body + nl + outer)
            elif self._starts_line(close):  # comments or blank lines inside: add after them
                at = self._line_start(close)
                self._splice(at, at, inner + body + nl)
            else:
                self._splice(close, close, nl + inner + body + nl + outer)
            return
        multiline = any(self._starts_line(p) for p, _ in positions)
        if index >= len(positions):  # after the last child
            last_pos, last = positions[-1]
            inner = self._indent_of(last_pos) if multiline else ""
            body = self._member_text(key, rendered_for, inner if multiline else self._indent_of(last_pos))
            end = last.end
            after = self._after_value(end)
            has_comma = after < len(self.text) and self.text[after] == ","
            if multiline:
                # the comma goes right after the value; the new line goes after any comment
                line_end = self.text.find("\n", end)
                line_end = len(self.text) if line_end < 0 else line_end
                if self.text[line_end - 1:line_end] == "\r":
                    line_end -= 1
                close = container.end - 1
                if close < line_end:  # the closing bracket is on the same line as the last child
                    insert_at = (after + 1) if has_comma else end
                    text = ("" if has_comma else ",") + nl + inner + body
                    self._splice(insert_at, insert_at, text)
                    return
                new_line = nl + inner + body + ("," if has_comma else "")
                if has_comma:
                    self._splice(line_end, line_end, new_line)
                else:
                    self.text = self.text[:end] + "," + self.text[end:]
                    self._splice(line_end + 1, line_end + 1, new_line)
            else:  # a compact container stays compact: the new value goes on the same line
                insert_at = (after + 1) if has_comma else end
                inline = self._compact(key, rendered_for)
                self._splice(insert_at, insert_at, ("" if has_comma else ",") + " " + inline)
            return
        # before child INDEX
        pos, _ = positions[index]
        if multiline and self._starts_line(pos):
            line_start = self._line_start(pos)
            inner = self._indent_of(pos)
            self._splice(line_start, line_start, inner + self._member_text(key, rendered_for, inner) + "," + nl)
        else:
            self._splice(pos, pos, self._compact(key, rendered_for) + ", ")

    def _compact(self, key: str | None, value: Any) -> str:
        rendered = json.dumps(value, ensure_ascii=False, separators=(", ", self.colon))
        return rendered if key is None else f"{json.dumps(key, ensure_ascii=False)}{self.colon}{rendered}"

    def _one_line(self) -> bool:
        return "\n" not in self.text[self.root.start:self.root.end] and self.root.end - self.root.start > 2

    def _member_text(self, key: str | None, value: Any, indent: str) -> str:
        rendered = self.render(value, indent)
        return rendered if key is None else f"{json.dumps(key, ensure_ascii=False)}{self.colon}{rendered}"

    def set_member(self, path: Path, key: str, value: Any) -> None:
        """Give object PATH the member KEY = VALUE: replaced in place, or added at the end."""
        obj = self._container(path, "object")
        if key in obj.keys:
            self.replace([*path, key], value)
        else:
            self._insert_child(obj, len(obj.children), value, key)

    def replace(self, path: Path, value: Any) -> None:
        node = self.node(path)
        if node is None:
            raise KeyError(f"{path!r} is not in the document")
        if node.to_python() == value and type(node.to_python()) is type(value):
            return
        self._splice(node.start, node.end, self.render(value, self._indent_of(node.start)))

    def append_item(self, path: Path, value: Any) -> None:
        arr = self._container(path, "array")
        self._insert_child(arr, len(arr.children), value, None)

    def insert_item(self, path: Path, index: int, value: Any) -> None:
        arr = self._container(path, "array")
        self._insert_child(arr, index, value, None)

    def remove_member(self, path: Path, key: str) -> None:
        obj = self._container(path, "object")
        if key not in obj.keys:
            return
        self._remove_child(obj, obj.keys.index(key))

    def remove_item(self, path: Path, index: int) -> None:
        self._remove_child(self._container(path, "array"), index)

    def _remove_child(self, container: Node, index: int) -> None:
        positions = self._child_positions(container)
        pos, child = positions[index]
        text = self.text
        if len(positions) == 1:
            self._splice(container.start + 1, container.end - 1, "")
            return
        if index < len(positions) - 1:
            next_pos = positions[index + 1][0]
            if self._starts_line(pos) and self._starts_line(next_pos):
                self._splice(self._line_start(pos), self._line_start(next_pos), "")
            else:
                self._splice(pos, next_pos, "")
            return
        # the last child: take it out with the comma after the previous one
        comma = self._skip_all(positions[index - 1][1].end)
        end = child.end
        after = self._after_value(end)
        trailing = after < len(text) and text[after] == ","
        if trailing:
            end = after + 1  # its own trailing comma goes with it; the one before it stays
        if self._starts_line(pos):
            line_end = text.find("\n", end)
            line_end = len(text) if line_end < 0 else line_end
            if text[line_end - 1:line_end] == "\r":
                line_end -= 1
            cut_start = self._line_start(pos) - len(self.newline)
            self._splice(max(cut_start, comma + 1), line_end, "")
        else:
            self._splice(comma + 1, end, "")
        if not trailing:
            self._splice(comma, comma + 1, "")

    def _skip_all(self, pos: int) -> int:
        """The first position at or after POS that is not whitespace or a comment."""
        p = _Parser(self.text, self.where)
        p.pos = pos
        p.skip()
        return p.pos
