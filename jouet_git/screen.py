"""Screening text for secrets before a model reads it: what gitleaks' rules find, replaced.

    found = screen(["text", ...], cwd)          # Screened: .texts with each secret replaced
    result = screen_output(tool_response, cwd)  # the same over any JSON value, its shape kept

A secret is whatever gitleaks finds with the config it would use in CWD's repository (its
.gitleaks.toml, $GITLEAKS_CONFIG, or its default rules). Each one is replaced in place by
`[secret redacted: RULE-ID]`; the rest of the text is left exactly as it was.

Clean text costs no process. gitleaks takes a good part of a second to start, so before it runs,
jouet checks, rule by rule, whether gitleaks could find anything at all: a rule fires only when one
of its keywords occurs in the text (or in what gitleaks decodes from it), then its pattern matches
(translated from Go), then the matched secret has more entropy than the rule asks for. Each step only
ever lets more through than gitleaks would, so skipping gitleaks when no rule gets through loses no
finding. When any rule could fire, gitleaks runs once, over standard input, for all the texts.

When gitleaks is missing, fails or runs out of time on text that could hold a secret, the text
gets jouet's own redaction of well-known token shapes (ledger.redact) and `problem` says why.

No secret is kept: gitleaks' report is read in memory, used to replace, and dropped; what is
returned and recorded is rule ids and counts.

On the hook path: imports os only at the top; the rest when a text is long enough to matter.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from re import Match, Pattern
    from typing import Any

    from jouet_git.gitleaks.config import RuleSpec

MARK = "[secret redacted: {}]"
FALLBACK_RULE = "jouet-token-shapes"
LEAKS_FOUND = 99
MAX_REPORT = 16 << 20
# Above this many characters the pre-check (about a millisecond per kB) would cost more than
# starting gitleaks, which then simply runs.
PRECHECK_LIMIT = 512 * 1024
# Keys whose strings are binary payloads (an image a tool returns): never text for the model.
BINARY_KEYS = frozenset({"base64", "blob"})
# Keys whose strings say what shape a value has: read, never written into (a client drops a result
# whose discriminator changed, and shows the original instead).
DISCRIMINATORS = frozenset({"type", "mode", "kind", "role", "mimeType", "mime_type", "media_type", "encoding"})
# Strings that name something rather than carry text: written into when a secret sits there, but
# never chosen to carry the notice.
NAMES = frozenset({"filePath", "file_path", "path", "url", "uri", "id", "name", "title", "codeText",
                   "tool_use_id", "filename"})


class Screened:
    """What screening some texts found: the texts with each secret replaced, and counts by rule."""

    __slots__ = ("found", "gitleaks", "problem", "texts")

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        self.found: dict[str, int] = {}  # rule id -> how many secrets it replaced
        self.gitleaks = False  # whether gitleaks ran
        self.problem: str | None = None  # why gitleaks could not screen text that needed it

    @property
    def rules(self) -> list[str]:
        return sorted(self.found)

    @property
    def count(self) -> int:
        return sum(self.found.values())

    def _add(self, rule: str, n: int = 1) -> None:
        self.found[rule] = self.found.get(rule, 0) + n


def screen(texts: list[str], cwd: str, deadline: float | None = None) -> Screened:
    """TEXTS with every secret gitleaks finds replaced (see the module docstring)."""
    out = Screened(list(texts))
    wanted = [i for i, text in enumerate(texts) if text and not text.isspace()]
    if not wanted:
        return out
    from jouet_git.gitleaks import binary as gl_binary

    gitleaks = gl_binary.find_gitleaks()
    if gitleaks is None:
        _fallback(out, wanted, gl_binary.missing_reason())
        return out
    from jouet_git import gitdir
    from jouet_git.gitleaks import config

    base = gitdir.find_root(cwd) if os.path.isdir(cwd) else None
    base = base or (cwd if os.path.isdir(cwd) else os.getcwd())
    source = config.resolve_source(base)
    specs, _why = config.rule_specs(gitleaks, source, base)
    need = wanted if specs is None else [
        i for i in wanted if len(texts[i]) > PRECHECK_LIMIT or may_find(specs, texts[i])]
    if not need:
        return out
    _run(out, need, gitleaks, source, base, deadline)
    return out


# -- the pre-check ------------------------------------------------------------------------------

_compiled: dict[str, Pattern[str] | None] = {}


def _pattern(regex: str) -> Pattern[str] | None:
    """REGEX (Go syntax) for Python, or None when it cannot be translated exactly."""
    if regex not in _compiled:
        from jouet_git.gitleaks.goregex import Unsupported, compile_go

        try:
            _compiled[regex] = compile_go(regex)
        except (Unsupported, ValueError):
            _compiled[regex] = None
    return _compiled[regex]


def _passes(text: str) -> list[str]:
    """TEXT and each decoding pass gitleaks makes of it (--max-decode-depth 5)."""
    from jouet_git.gitleaks.decode import MAX_DECODE_DEPTH, decode_pass

    out = [text]
    current = text
    for _ in range(MAX_DECODE_DEPTH):
        current, count = decode_pass(current)
        if not count:
            break
        out.append(current)
    return out


def may_find(specs: list[RuleSpec], text: str) -> bool:
    """Whether gitleaks could report anything in TEXT with the rules SPECS (never False when it could)."""
    from jouet_git.gitleaks.precheck import go_lower

    keywords = {k for spec in specs for k in spec.keywords}
    for current in _passes(text):
        lowered = go_lower(current)
        present = {k for k in keywords if k in lowered}
        for spec in specs:
            if spec.regex is None:
                continue  # a rule about file names: standard input has none
            if spec.keywords and not any(k in present for k in spec.keywords):
                continue
            pattern = _pattern(spec.regex)
            if pattern is None:
                return True
            for match in pattern.finditer(current):
                if _could_report(spec, pattern, match):
                    return True
    return False


def _could_report(spec: RuleSpec, pattern: Pattern[str], match: Match[str]) -> bool:
    """Whether MATCH passes the rule's entropy threshold for any secret gitleaks may take from it.

    gitleaks runs the pattern again on the matched text and takes its secret group from that second
    match (the whole match when the pattern has no group); the first match's group counts too.
    """
    if not spec.entropy:
        return True
    candidates = [match.group(0)]
    if pattern.groups:
        if spec.secret_group > pattern.groups:
            return True
        candidates.append(_secret(spec, match))
        again = pattern.search(match.group(0))
        if again is not None:
            candidates.append(_secret(spec, again))
    return any(go_entropy(c) > spec.entropy for c in candidates)


def _secret(spec: RuleSpec, match: Match[str]) -> str:
    if spec.secret_group:
        return match.group(spec.secret_group) or ""
    for group in match.groups():
        if group:
            return str(group)
    return match.group(0)


def go_entropy(text: str) -> float:
    """Shannon entropy as gitleaks computes it: counts by character, divided by the length in bytes."""
    if not text:
        return 0.0
    import math

    counts: dict[str, int] = {}
    for char in text:
        counts[char] = counts.get(char, 0) + 1
    inverse = 1.0 / len(text.encode("utf-8", "surrogatepass"))
    entropy = 0.0
    for n in counts.values():
        freq = n * inverse
        entropy -= freq * math.log2(freq)
    return entropy


# -- running gitleaks and replacing what it found --------------------------------------------------


def _run(out: Screened, need: list[int], gitleaks: str, source: Any, base: str, deadline: float | None) -> None:
    import json
    import time

    from jouet_git import budgets, gitrun

    pieces = [out.texts[i] for i in need]
    joined = "\n\n".join(pieces)
    starts = []  # the line each piece starts on in the joined text
    line = 1
    for piece in pieces:
        starts.append(line)
        line += piece.count("\n") + 2
    argv = [gitleaks, "stdin", "--no-banner", "--report-format", "json", "--report-path", "-",
            "--exit-code", str(LEAKS_FOUND), "--max-decode-depth", "5", "--log-level", "error"]
    env = gitrun.git_env()
    if source.kind in ("env", "repo") and source.path:
        argv += ["--config", os.path.abspath(source.path)]
        env.pop("GITLEAKS_CONFIG", None)
        env.pop("GITLEAKS_CONFIG_TOML", None)
    end = time.monotonic() + budgets.secrets()
    if deadline is not None:
        end = min(end, deadline)
    out.gitleaks = True
    try:
        result = gitrun.run(argv, base, deadline=end, env=env, kind="gitleaks", max_output=MAX_REPORT,
                            input=joined.encode("utf-8", "surrogatepass"))
    except gitrun.Timeout:
        _fallback(out, need, f"gitleaks ran out of its {budgets.secrets():g} s budget")
        return
    except (gitrun.GitMissing, OSError) as error:
        _fallback(out, need, f"cannot run gitleaks ({gitleaks}): {error}")
        return
    report = None
    if result.code in (0, LEAKS_FOUND):
        try:
            report = json.loads(result.stdout.decode("utf-8", "replace") or "[]")
        except ValueError:
            report = None
    if not isinstance(report, list):
        lines = result.stderr.decode("utf-8", "replace").strip().splitlines()
        # gitleaks' own last line (a config error, say): it never holds the scanned text.
        detail = lines[-1][:200] if lines and result.code not in (0, LEAKS_FOUND) else f"exit code {result.code}"
        _fallback(out, need, f"gitleaks failed: {detail}")
        return
    _replace(out, need, pieces, starts, [f for f in report if isinstance(f, dict)])


def _replace(out: Screened, need: list[int], pieces: list[str], starts: list[int],
             findings: list[dict[str, Any]]) -> None:
    by_secret: dict[str, str] = {}
    spans: dict[int, list[tuple[int, int, str]]] = {}
    for finding in findings:
        rule = str(finding.get("RuleID") or "unknown-rule")
        secret = finding.get("Secret")
        if isinstance(secret, str) and secret and not _decoded(finding) and any(secret in p for p in pieces):
            by_secret.setdefault(secret, rule)
            continue
        placed = _span(pieces, starts, finding)
        if placed is None:
            # No place at all: every screened text is withheld rather than risk passing it on.
            for k in range(len(pieces)):
                spans.setdefault(k, []).append((0, len(pieces[k]), rule))
        else:
            spans.setdefault(placed[0], []).append((placed[1], placed[2], rule))
        out._add(rule)
    # Places first, on the text gitleaks saw; from the end, overlapping places merged.
    for k, found in spans.items():
        piece = pieces[k]
        merged: list[list[Any]] = []
        for start, stop, rule in sorted(found):
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], stop)
            else:
                merged.append([start, stop, rule])
        for start, stop, rule in reversed(merged):
            piece = piece[:start] + MARK.format(rule) + piece[stop:]
        pieces[k] = piece
    for k, piece in enumerate(pieces):
        # Longest first, so a secret that contains another is replaced whole.
        for secret in sorted(by_secret, key=lambda s: (-len(s), s)):
            n = piece.count(secret)
            if n:
                piece = piece.replace(secret, MARK.format(by_secret[secret]))
                out._add(by_secret[secret], n)
        pieces[k] = piece
    for k, i in enumerate(need):
        out.texts[i] = pieces[k]


def _encoded_runs(piece: str, line_start: int, line_end: int, start: int, stop: int) -> tuple[int, int]:
    """The encoded runs of a line (as gitleaks' decoder finds them) that a decoded finding's place
    touches: gitleaks' columns for those are rough, the runs are what holds the secret. A place that
    touches none stands for the run nearest to it; a line without runs, for the whole line."""
    from jouet_git.gitleaks.decode import encoded_runs

    runs = [(line_start + a, line_start + b) for a, b in encoded_runs(piece[line_start:line_end])]
    if not runs:
        return line_start, line_end
    touched = [(a, b) for a, b in runs if a <= max(stop, start + 1) and b >= start]
    if not touched:
        touched = [min(runs, key=lambda r: min(abs(r[0] - start), abs(r[1] - start)))]
    return min(a for a, _ in touched), max(b for _, b in touched)


def _decoded(finding: dict[str, Any]) -> bool:
    tags = finding.get("Tags")
    return isinstance(tags, list) and any(isinstance(t, str) and t.startswith("decoded:") for t in tags)


def _span(pieces: list[str], starts: list[int], finding: dict[str, Any]) -> tuple[int, int, int] | None:
    """(piece, start, stop) of a finding gitleaks reported by place only (a secret it decoded from
    an encoded run, or one whose text differs from the input's); None when it has no place.

    gitleaks counts columns from 1 on the first line and from 2 on the others. A decoded finding
    stands for the encoded runs its place touches; a place that makes no sense, for its whole line.
    """
    try:
        first, last = int(finding.get("StartLine") or 0), int(finding.get("EndLine") or 0)
        col, end_col = int(finding.get("StartColumn") or 0), int(finding.get("EndColumn") or 0)
    except (TypeError, ValueError):
        return None
    k = max((j for j, s in enumerate(starts) if s <= first), default=-1) if first > 0 else -1
    if k < 0:
        return None
    piece = pieces[k]
    lines = piece.split("\n")
    row = min(first - starts[k], len(lines) - 1)
    end_row = min(max(last - starts[k], row), len(lines) - 1)
    offsets = [0]
    for text in lines[:-1]:
        offsets.append(offsets[-1] + len(text) + 1)
    start = offsets[row] + max(col - (1 if first == 1 else 2), 0)
    stop = offsets[end_row] + max(end_col - (0 if last == 1 else 1), 0)
    line_end = offsets[end_row] + len(lines[end_row])
    start, stop = min(start, line_end), min(max(stop, start), line_end)
    if _decoded(finding):
        start, stop = _encoded_runs(piece, offsets[row], line_end, start, stop)
    if stop <= start or not piece[start:stop].strip():
        start, stop = offsets[row], line_end
    return k, start, stop


def _fallback(out: Screened, indexes: list[int], problem: str) -> None:
    """gitleaks could not screen: jouet's own redaction of well-known token shapes, and why."""
    from jouet_git.ledger import redact

    out.problem = problem
    for i in indexes:
        redacted = redact(out.texts[i])
        if redacted != out.texts[i]:
            out.texts[i] = redacted
            out._add(FALLBACK_RULE)


# -- a tool's output, whatever its shape --------------------------------------------------------------


class _Leaf:
    __slots__ = ("carries_notice", "path", "text", "writable")

    def __init__(self, path: tuple[Any, ...], text: str, writable: bool, carries_notice: bool) -> None:
        self.path = path
        self.text = text
        self.writable = writable
        self.carries_notice = carries_notice


def _leaves(value: Any, path: tuple[Any, ...] = (), key: Any = None, parent: Any = None) -> list[_Leaf]:
    if isinstance(value, str):
        if key in BINARY_KEYS or (key == "data" and isinstance(parent, dict)
                                  and parent.get("type") in ("image", "audio")):
            return []
        writable = key not in DISCRIMINATORS
        return [_Leaf(path, value, writable, writable and key not in NAMES)]
    out: list[_Leaf] = []
    if isinstance(value, dict):
        for k, v in value.items():
            out += _leaves(v, (*path, k), k, value)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _leaves(v, (*path, i), None, value)
    return out


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _assign(root: Any, path: tuple[Any, ...], text: str) -> Any:
    if not path:
        return text
    target = root
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = text
    return root


class OutputScreen:
    """What screening a tool's output did.

    value: the output with each secret replaced (the same object when nothing was found), the
    notice appended to its longest text. withheld: every secret found was replaced (False when one
    sat in a field jouet does not write into); written: some string was rewritten. notice: the line
    that says what was replaced; placed: whether it went into the output (else the caller says it
    some other way).
    """

    __slots__ = ("notice", "placed", "screened", "value", "withheld", "written")

    def __init__(self, value: Any, screened: Screened) -> None:
        self.value = value
        self.screened = screened
        self.withheld = True
        self.written = False  # whether any string of the output was rewritten
        self.notice = ""
        self.placed = False

    @property
    def changed(self) -> bool:
        return bool(self.screened.found)

    def record(self) -> dict[str, Any]:
        """The ledger's account of it: rule ids and counts, never text."""
        return {"screen": {"rules": dict(sorted(self.screened.found.items())), "withheld": self.withheld,
                           "gitleaks": self.screened.gitleaks, "problem": self.screened.problem}}


def notice_for(found: dict[str, int]) -> str:
    n = sum(found.values())
    rules = ", ".join(sorted(found))
    what = "secret was" if n == 1 else "secrets were"
    return (f"[jouet: {n} {what} replaced in this output by [secret redacted: RULE-ID] "
            f"(gitleaks rules: {rules}). Do not try to recover, repeat or store the original.]")


def screen_output(value: Any, cwd: str, deadline: float | None = None) -> OutputScreen:
    """VALUE (a tool's output: a string, or JSON objects and lists) with every secret replaced.

    Every string is screened wherever it sits, except binary payloads (base64 image data). A
    secret is replaced in the string that holds it; a discriminator (`type`, `mode`, ...) is never
    written, so a secret there (never seen in practice) is reported as not withheld. Numbers,
    booleans and keys are returned as they came. The notice goes at the end of the longest string
    that carries text (not a path, URL or name).
    """
    leaves = _leaves(value)
    screened = screen([leaf.text for leaf in leaves], cwd, deadline)
    result = OutputScreen(value, screened)
    if not screened.found:
        return result
    new = _copy(value)
    for leaf, text in zip(leaves, screened.texts, strict=True):
        if text == leaf.text:
            continue
        if leaf.writable:
            new = _assign(new, leaf.path, text)
            result.written = True
        else:
            result.withheld = False
    result.notice = notice_for(screened.found)
    carriers = [(len(text), i) for i, (leaf, text) in enumerate(zip(leaves, screened.texts, strict=True))
                if leaf.carries_notice]
    if carriers:
        _, best = max(carriers)
        new = _assign(new, leaves[best].path, screened.texts[best].rstrip("\n") + "\n\n" + result.notice)
        result.placed = True
    result.value = new
    return result
