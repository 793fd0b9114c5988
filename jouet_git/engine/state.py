"""What a matcher's state keys ask about one call: what the session was shown (`seen`,
`min_read_lines`, `min_code_lines`) and the project's fnox config (`fnox`, `secret_vars`,
`secret_args`, `secret_files`).

    HookState(call)          in hooks and `jouet check`: worked out from the files (jouet_git/reads.py,
                             jouet_git/fnox.py), each at most once per call and only when asked
    ExampleState(example)    under `jouet rule test`: what the example says (seen, read_lines,
                             code_lines, fnox), so an example gives the same answer on any machine

A matcher asks these last, once every other key of it holds (engine/match.py), so a hook reads a
file or a fnox config only for a call a rule with these keys otherwise matched.

On the hook path: imports nothing at the top; reads and fnox are imported when first asked.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from jouet_git.call import Call
    from jouet_git.reads import Shown


class Fnox:
    """The names and files a fnox project's config defines, as the matchers compare them."""

    __slots__ = ("files", "secrets")

    def __init__(self, secrets: frozenset[str], files: frozenset[str]) -> None:
        self.secrets = secrets
        self.files = files

    def has_file(self, path: str, cwd: str) -> bool:
        full = os.path.normpath(os.path.join(cwd, os.path.expanduser(path)))
        return full in self.files


class State:
    """No state at all: not a fnox project, and nothing read (decide() without a context)."""

    def fnox(self) -> Any:
        return None

    def read_lines(self) -> int:
        return 0

    def code_lines(self) -> int:
        return 0

    def seen(self) -> bool:
        return False


class HookState(State):
    """The state of a real call, read from the disk when first asked."""

    __slots__ = ("_fnox", "_fnox_done", "_seen", "_shown", "_shown_done", "asked", "call")

    def __init__(self, call: Call) -> None:
        self.call = call
        # The questions asked (fnox, read_lines, code_lines, seen), in order, each once: a stream
        # of calls gives a decision again while their answers stay the same (engine/runner.py).
        self.asked: list[str] = []
        self._fnox: Any = None
        self._fnox_done = False
        self._shown: Shown | None = None
        self._shown_done = False
        self._seen: bool | None = None

    def _note(self, question: str) -> None:
        if question not in self.asked:
            self.asked.append(question)

    def fnox(self) -> Any:
        self._note("fnox")
        if not self._fnox_done:
            from jouet_git import fnox

            self._fnox = fnox.find(self.call.cwd)
            self._fnox_done = True
        return self._fnox

    def shown(self) -> Shown | None:
        if not self._shown_done:
            from jouet_git.call import shows_no_file

            if not shows_no_file(self.call):  # else None, without importing reads.py
                from jouet_git import reads

                self._shown = reads.shown(self.call)
            self._shown_done = True
        return self._shown

    def read_lines(self) -> int:
        self._note("read_lines")
        what = self.shown()
        return what.lines if what is not None else 0

    def code_lines(self) -> int:
        self._note("code_lines")
        what = self.shown()
        return what.code_lines if what is not None else 0

    def seen(self) -> bool:
        self._note("seen")
        if self._seen is None:
            what = self.shown()
            if what is None:  # nothing shown was seen before (reads.seen says so too)
                self._seen = False
            else:
                from jouet_git import reads

                self._seen = reads.seen(self.call, what)
        return self._seen


class ExampleState(State):
    """The state an example describes: `seen` (false if omitted), `read_lines` and `code_lines` (0 if
    omitted), and `fnox` (omitted: not a fnox project)."""

    __slots__ = ("_code", "_fnox", "_lines", "_seen")

    def __init__(self, example: dict[str, Any], cwd: str) -> None:
        self._seen = example.get("seen") is True
        lines, code = example.get("read_lines"), example.get("code_lines")
        self._lines: int = lines if isinstance(lines, int) else 0
        self._code: int = code if isinstance(code, int) else 0
        given = example.get("fnox")
        self._fnox: Fnox | None = None
        if isinstance(given, dict):
            from jouet_git.fnox import ALWAYS_SECRET

            names = [n for n in given.get("secrets") or () if isinstance(n, str)]
            files = [f for f in given.get("files") or () if isinstance(f, str)]
            self._fnox = Fnox(frozenset(names) | frozenset(ALWAYS_SECRET),
                              frozenset(os.path.normpath(os.path.join(cwd, os.path.expanduser(f))) for f in files))

    def fnox(self) -> Any:
        return self._fnox

    def read_lines(self) -> int:
        return self._lines

    def code_lines(self) -> int:
        return self._code

    def seen(self) -> bool:
        return self._seen


NO_STATE = State()
