"""The format-preserving JSON editor behind `jouet setup`."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jouet_git.setup.jsonedit import Document, JsonSyntaxError

scalars = st.one_of(st.none(), st.booleans(), st.integers(-1000, 1000), st.text(max_size=8))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=5), inner, max_size=4)), max_leaves=12)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.text(max_size=6), values, max_size=5), values,
       st.sampled_from([None, 2, 3, 4, "\t"]), st.booleans())
def test_add_then_remove_gives_back_the_same_bytes(data: dict[str, Any], new: Any, indent: Any, crlf: bool) -> None:
    text = json.dumps({**data, "list": [1, {"a": [2, 3]}]}, indent=indent, ensure_ascii=False)
    if crlf:
        text = text.replace("\n", "\r\n")
    doc = Document.parse(text, "x.json")
    doc.append_item(["list"], new)
    doc.set_member([], "\u00e9new", {"k": [new]})
    assert json.loads(doc.text) == {**data, "list": [1, {"a": [2, 3]}, new], "\u00e9new": {"k": [new]}}
    doc.remove_member([], "\u00e9new")
    doc.remove_item(["list"], 2)
    assert doc.text == text


def test_the_file_style_is_kept() -> None:
    text = '{\r\n\t"a": [1,2],\r\n\t"b": {"x":1}\r\n}\r\n'
    doc = Document.parse(text, "x.json")
    doc.set_member([], "c", {"d": [1]})
    doc.append_item(["a"], 3)
    assert doc.text == '{\r\n\t"a": [1,2, 3],\r\n\t"b": {"x":1},\r\n\t"c": {\r\n\t\t"d": [1]\r\n\t}\r\n}\r\n'


def test_comments_and_trailing_commas_survive() -> None:
    text = '{\n  // hooks\n  "h": [\n    1, // one\n    2, /* two */\n  ],\n}\n'
    doc = Document.parse(text, "x.jsonc")
    doc.append_item(["h"], 3)
    assert doc.text == '{\n  // hooks\n  "h": [\n    1, // one\n    2, /* two */\n    3,\n  ],\n}\n'
    doc.remove_item(["h"], 2)
    assert doc.text == text
    doc.insert_item(["h"], 0, {"z": 0})
    assert doc.get(["h"]) == [{"z": 0}, 1, 2]


@pytest.mark.parametrize("text, where", [
    ('{"a": 1,, }', "x.json:1:9: unexpected ','"),
    ('{"a": [1, 2}', "x.json:1:12: expected ',' or ']'"),
    ('{\n  "a": "line\nbreak"\n}', "x.json:2:13: newline inside a string"),
    ('{"a": tru}', "x.json:1:7: unexpected 't'"),
    ("/* open", "x.json:1:1: unterminated /* comment"),
    ("", "x.json:1:1: the file is empty of JSON"),
])
def test_errors_name_the_line_and_column(text: str, where: str) -> None:
    with pytest.raises(JsonSyntaxError) as caught:
        Document.parse(text, "x.json")
    assert str(caught.value).startswith(where), str(caught.value)
