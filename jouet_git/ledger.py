"""The hook ledger: one line for every call a hook (or `jouet check`) decided, in one shape.

`$JOUET_STATE_DIR/ledger.jsonl` (by default ~/.local/state/jouet/ledger.jsonl), mode 0600, only ever
appended to, by every entry point through the runner. A line:

    {"v": 1, "time": "2026-11-30T21:03:47.123Z", "ts": 1796072627.123, "harness": "claude",
     "event": "pre-tool-use", "session": "...", "agent": null, "repo": "/src/app", "wt": "3f9c...",
     "cwd": "/src/app/api", "tool": "Bash", "kind": "shell", "command": "git push origin main",
     "shape": "git push <arg> <arg>", "path": null, "decision": "deny",
     "rules": [{"rule": "force-push", "action": "deny"}], "errors": [], "allowed": [], "records": [],
     "exit_code": null, "duration_ms": null, "ms": 4.2}

`wt` is a hash of the work tree's root, by which runs and sessions are matched without the path;
`ms` is the time jouet took to decide, `duration_ms` the tool's own time where the harness says it
(after a tool). `rules` names the rules that denied, warned, rewrote (`action`) or recorded a check
(`"record"`). `records` are the test, lint and build runs recorded after the tool:

    {"kind": "test", "rule": "checks", "ok": false, "exit_code": 1, "scope": "full", "selector": null,
     "dir": null, "command": "pytest", "shape": "pytest", "tree": "5b1e...", "wt": "3f9c...",
     "harness": "claude", "duration_ms": 2310}

Stop checks and session starts are lines too (`event` "stop" or "session-start", with the work
tree's hash in `tree`).

What may hold a secret is redacted before it is written: what gitleaks' rules call a secret
(gitleaks/redact.py: keyword pre-check, then the rule's pattern; the secret's span is replaced),
credentials in URLs (`user:token@`), values given to secret-looking variables and options
(`GITHUB_TOKEN=...`, `--password x`, `Authorization: Bearer ...`), and tokens of well-known shapes.
With JOUET_STORE_CONTENT=0 no text is stored at all: `command`, `path`, `cwd`, `repo` and a record's
`command`, `selector` and `dir` are left out, and only shapes (programs, subcommands, options,
`<arg>` for every argument) are kept.

The file is bounded: once it passes MAX_BYTES (16 MiB; JOUET_LEDGER_MAX_BYTES changes it) it is
renamed to ledger.jsonl.1 (the previous .1 becoming .2, the previous .2 dropped), under a lock so
that concurrent hooks rotate it once. A line is one write(2) on a file opened O_APPEND, so lines of
concurrent hooks never interleave; a hook that opened the file just before a rotation finishes its
line in ledger.jsonl.1, which readers read too.

Readers (the probes, the stop check, `jouet log`) read from the end backwards in blocks
(`backwards`), so answering about the last calls never reads the whole file.

On the hook path: imports os, re and json only (fcntl when rotating).
"""

from __future__ import annotations

import json
import os
import re
import time

from jouet_git import paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    from jouet_git.call import Call, Command
    from jouet_git.engine.decide import Decision

NAME = "ledger.jsonl"
VERSION = 1
REDACTED = "[redacted]"
MAX_BYTES = 16 * 1024 * 1024
KEEP = 2  # rotated files kept: ledger.jsonl.1 and ledger.jsonl.2
MAX_TEXT = 8192  # a command or path longer than this is cut (after redaction), and says so
MAX_KEPT_TEXTS = 2048  # how many texts a stream keeps stored (stored_text)
BLOCK = 64 * 1024

# Programs whose first argument is a subcommand, kept in a call's shape.
_SUBCOMMANDS = frozenset({
    "git", "gh", "npm", "pnpm", "yarn", "bun", "cargo", "go", "uv", "pip", "docker", "kubectl", "mise", "jj",
    "jouet", "make", "just", "poetry", "brew", "apt", "systemctl", "terraform", "helm", "rustup",
})
# What looks like a secret, each pattern with the words one of its matches must hold: a pattern is
# compiled, and run, only for text holding one of them (most commands hold none).
_SECRET_NAME = (r"[A-Za-z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY"
                r"|CREDENTIALS?|AUTH)[A-Za-z0-9_]*")
_NAME_WORDS = ("token", "secret", "passw", "passp", "api", "access", "private", "credential", "auth")
_PATTERNS: tuple[tuple[str, tuple[str, ...], bool], ...] = (
    # (pattern, words one of which the lower-cased text must hold, or the text itself when case matters)
    (r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s:@]+(?::[^/\s@]*)?@", ("://",), False),
    (r"(?i)\b(" + _SECRET_NAME + r")=(\"[^\"]*\"|'[^']*'|[^\s;&|]+)", _NAME_WORDS, False),
    (r"(?i)(--?(?:password|passwd|token|secret|api-key|apikey|access-key|auth)(?:=|\s+))"
     r"(\"[^\"]*\"|'[^']*'|[^\s;&|]+)", ("passw", "token", "secret", "api", "access-key", "auth"), False),
    (r"(?i)(authorization:\s*(?:bearer|basic|token)\s+)[^\s'\"]+", ("authorization",), False),
    (r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,}"
     r"|xox[abprs]-[A-Za-z0-9-]{10,}|(?:AKIA|ASIA)[A-Z0-9]{16}|sk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}"
     r"|AIza[0-9A-Za-z_-]{35}|npm_[A-Za-z0-9]{36}|pypi-[A-Za-z0-9_-]{50,})\b",
     ("gh", "glpat-", "xox", "AKIA", "ASIA", "sk-", "AIza", "npm_", "pypi-"), True),
)
# What each pattern's match is replaced by ({1}: its first group, kept).
_KEEP = ("{1}" + REDACTED + "@", "{1}=" + REDACTED, "{1}" + REDACTED, "{1}" + REDACTED, REDACTED)
_compiled: dict[int, re.Pattern[str]] = {}


def path() -> str:
    return os.path.join(paths.state_dir(), NAME)


def files() -> list[str]:
    """The ledger's files, newest first: ledger.jsonl, then the rotated ones."""
    current = path()
    return [current] + [f"{current}.{n}" for n in range(1, KEEP + 1)]


def max_bytes() -> int:
    value = os.environ.get("JOUET_LEDGER_MAX_BYTES", "")
    try:
        return max(4096, int(value)) if value else MAX_BYTES
    except ValueError:
        return MAX_BYTES


def store_content() -> bool:
    """Whether text (commands, paths) may be stored: JOUET_STORE_CONTENT=0 keeps shapes only."""
    return os.environ.get("JOUET_STORE_CONTENT", "1").strip().lower() not in ("0", "false", "no", "off")


def root_hash(root: str | None) -> str | None:
    """The hash a work tree's root is known by in the ledger (not its path)."""
    if not root:
        return None
    try:
        from _blake2 import blake2b
    except ImportError:  # a Python built without it
        from hashlib import blake2b
    return blake2b(os.path.realpath(root).encode("utf-8", "surrogateescape"), digest_size=10).hexdigest()


# --- what is stored ---------------------------------------------------------------------------------


def redact(text: str) -> str:
    """TEXT with what looks like a secret replaced by [redacted]."""
    if not text:
        return text
    lowered = text.lower()
    _redacted[0] += 1
    if _redacted[0] > _ONE_SCAN_AFTER and _any_word().search(lowered) is None:
        return _redact_gitleaks(text)  # (a stream of texts: none holds a word of the patterns, in one scan)
    # A long text (a here-document): a word holding a character the lower-cased text lacks is not
    # looked for (a word of a case-sensitive pattern neither: its lower case would be in it).
    absent = _absent(lowered) if len(text) >= _LONG else None
    for number, (source, words, case) in enumerate(_PATTERNS):
        haystack = text if case else lowered
        for word in words:
            if (absent is None or absent.isdisjoint(word.lower() if case else word)) and word in haystack:
                break
        else:
            continue
        pattern = _compiled.get(number)
        if pattern is None:
            pattern = _compiled[number] = re.compile(source)
        text = pattern.sub(_KEEP[number].replace("{1}", r"\g<1>"), text)
        lowered = text.lower()
        absent = _absent(lowered) if absent is not None else None
    return _redact_gitleaks(text)


# How many texts redact() looked at, and the number after which it first asks whether the lower-cased
# text holds any word of the patterns (lower-cased), in one scan (a hook redacts one or two texts:
# making the expression would cost it more than it saves).
_redacted = [0]
_ONE_SCAN_AFTER = 4
_words: list[re.Pattern[str]] = []


def _any_word() -> re.Pattern[str]:
    if not _words:
        from jouet_git.gitleaks.redact import words_pattern

        _words.append(words_pattern(sorted({word.lower() for _, words, _ in _PATTERNS for word in words})))
    return _words[0]


def _absent(lowered: str) -> set[str]:
    from jouet_git.gitleaks.redact import absent_chars

    return absent_chars(lowered)


# From this length on, the patterns' words are looked for only in a text holding each of their characters
# (gitleaks/redact.py: absent_chars).
_LONG = 256


def _redact_gitleaks(text: str) -> str:
    from jouet_git.gitleaks.redact import secret_spans

    try:
        spans = secret_spans(text)
    except Exception:  # a bad rule must not keep the line out; the patterns above still applied
        spans = []
    if not spans:
        return text
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    out = []
    at = 0
    for start, end in merged:
        out.append(text[at:start])
        out.append(REDACTED)
        at = end
    out.append(text[at:])
    return "".join(out)


def stored_text(text: str | None, kept: dict[tuple[str, str], str] | None = None,
                content: bool | None = None) -> str | None:
    """TEXT as the ledger stores it: redacted and cut to MAX_TEXT; None with content off (CONTENT:
    store_content(), when the caller asked it already).

    KEPT: what earlier calls of a stream stored for each text (redacting is a function of the text
    alone: the ledger's patterns and gitleaks' rules shipped with the package)."""
    if text is None or not (store_content() if content is None else content):
        return None
    if kept is None:
        return _stored(text)
    key = ("text", text)
    stored = kept.get(key)
    if stored is None:
        if len(kept) >= MAX_KEPT_TEXTS:
            kept.clear()
        stored = kept[key] = _stored(text)
    return stored


def _kept_hash(root: str, kept: dict[tuple[str, str], str]) -> str | None:
    """root_hash(ROOT) kept with a stream's texts. ROOT comes from gitdir.find, symbolic links
    resolved, so its hash is the same each time."""
    key = ("wt", root)
    stored = kept.get(key)
    if stored is None:
        hashed = root_hash(root)
        if hashed is None:
            return None
        stored = kept[key] = hashed
    return stored


def _stored(text: str) -> str:
    text = redact(text)
    if len(text) > MAX_TEXT:
        text = text[:MAX_TEXT] + " [cut]"
    return text


def shape(commands: list[Command]) -> str:
    """The call's commands with every argument replaced by <arg>: programs, subcommands and options
    (without their values) only."""
    return " ; ".join(command_shape(c) for c in commands if not c.nested)


def command_shape(command: Command) -> str:
    """One command's shape: its program, its subcommand, its options, <arg> for anything else."""
    words = [command.program or "?"]
    keep_next = command.program in _SUBCOMMANDS
    for word in command.argv[1:]:
        if len(word) > 1 and word[0] == "-":
            words.append(word.split("=", 1)[0] if word.startswith("--") else word)
        elif keep_next and word.replace("-", "").replace("_", "").replace(":", "").isalnum():
            words.append(word)
            keep_next = False
        else:
            words.append("<arg>")
            keep_next = False
    return " ".join(words)


def entry(call: Call, decision: Decision, root: str | None, ms: float | None = None,
          extra: dict[str, Any] | None = None, kept: dict[tuple[str, str], str] | None = None) -> dict[str, Any]:
    """The ledger line for CALL and what the rules decided about it (EXTRA: fields of a stop line;
    KEPT: a stream's texts stored before, see stored_text)."""
    content = store_content()
    fired = ([decision.deny] if decision.deny else []) + list(decision.warnings) + \
        ([decision.rewrite] if decision.rewrite else [])
    rules: list[dict[str, Any]] = [{"rule": f.rule, "action": f.action} for f in fired]
    for record in decision.records:
        if not any(r["rule"] == record.get("rule") and r["action"] == "record" for r in rules):
            rules.append({"rule": record.get("rule"), "action": "record"})
    now = time.time()
    line: dict[str, Any] = {
        "v": VERSION, "time": iso(now), "ts": round(now, 3), "harness": call.harness, "event": call.event,
        "session": call.session, "agent": call.agent, "repo": root if content else None,
        "wt": root_hash(root) if kept is None or root is None else _kept_hash(root, kept),
        "cwd": call.cwd if content else None, "tool": call.tool, "kind": call.kind,
        "command": stored_text(call.command, kept, content),
        "shape": shape(call.commands) if call.command else None,
        "path": stored_text(call.path, kept, content),
        "decision": decision.action or "none",
        "rules": rules,
        "errors": [{"rule": rule, "error": redact(error)} for rule, error in decision.errors],
        "allowed": list(decision.allowed),
        "records": [stored_record(r) for r in decision.records],
        "exit_code": call.exit_code,
        "duration_ms": getattr(call, "duration_ms", None),
        "ms": round(ms, 2) if ms is not None else None,
    }
    if extra:
        line.update(extra)
    return line


def stamped(line: dict[str, Any], ms: float | None) -> dict[str, Any]:
    """A copy of LINE (what entry() made for a call) with the time of now and MS: the ledger line of
    the same call decided the same way again, in a stream (engine/runner.py)."""
    now = time.time()
    out = dict(line)
    out["time"] = iso(now)
    out["ts"] = round(now, 3)
    out["ms"] = round(ms, 2) if ms is not None else None
    return out


def encode_line(record: dict[str, Any]) -> str:
    """RECORD as its ledger line's JSON (without the newline)."""
    return _ENCODER.encode(record)


# (json.dumps with options makes a new encoder each call)
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def stored_record(record: dict[str, Any]) -> dict[str, Any]:
    """A recorded check as the ledger keeps it: text redacted, or left out with content off."""
    out = dict(record)
    if store_content():
        for key in ("command", "selector"):
            if isinstance(out.get(key), str):
                out[key] = stored_text(out[key])
    else:
        for key in ("command", "selector", "dir"):
            if key in out:
                out[key] = None
    return out


def unanswered(harness: str, event: str, what: str, message: str) -> dict[str, Any]:
    """The ledger line for a hook event jouet decided nothing about: WHAT is "unreadable" (input it
    could not read) or "error" (jouet itself failed); the call went ahead unchecked."""
    now = time.time()
    return {
        "v": VERSION, "time": iso(now), "ts": round(now, 3), "harness": harness, "event": event,
        "session": None, "agent": None, "repo": None, "wt": None,
        "cwd": os.getcwd() if store_content() else None, "tool": None, "kind": None,
        "command": None, "shape": None, "path": None, "decision": what, "rules": [],
        "errors": [{"rule": None, "error": redact(message)}], "allowed": [], "records": [], "exit_code": None,
        "duration_ms": None, "ms": None,
    }


def iso(now: float | None = None) -> str:
    now = time.time() if now is None else now
    second = int(now // 1)
    if second != _second[0]:  # (a stream writes many lines a second: the date is formatted once)
        _second[0] = second
        _second[1] = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
    return f"{_second[1]}.{int(now * 1000) % 1000:03d}Z"


# The last whole second iso() formatted, and its text.
_second: list[Any] = [None, ""]


def now_iso() -> str:
    return iso()


# --- writing ----------------------------------------------------------------------------------------


def append(record: dict[str, Any] | str) -> None:
    """Append RECORD as one line: one write(2) in O_APPEND mode, so concurrent hooks never interleave;
    then rotate the file if it has grown past max_bytes(). A line left unfinished by a process that
    died while writing is ended first, so it costs only itself."""
    append_many([record])


def append_many(records: list[dict[str, Any] | str]) -> None:
    """Append RECORDS (each a line's fields, or its JSON text as Stamp.record makes it), one line each,
    in one write(2) (see append)."""
    if not records:
        return
    directory = paths.state_dir()
    os.makedirs(directory, mode=0o700, exist_ok=True)
    line = "".join((record if isinstance(record, str) else encode_line(record)) + "\n"
                   for record in records).encode("utf-8", "replace")
    target = os.path.join(directory, NAME)
    fd = os.open(target, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
    if os.fstat(fd).st_size > 2 * max_bytes():
        # A rotation is overdue (the hook doing it was descheduled while others appended): wait for
        # it, or do it, so that no file grows far past the limit however busy the machine is.
        os.close(fd)
        rotate(target, wait=1.0)
        fd = os.open(target, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        end = os.fstat(fd).st_size
        if end and os.pread(fd, 1, end - 1) != b"\n":
            line = b"\n" + line  # a line left unfinished (a process killed while writing) stays on its own
        written = os.write(fd, line)
        while written < len(line):  # a short write (a full disk, a signal): finish the same line
            written += os.write(fd, line[written:])
        size = os.fstat(fd).st_size
    finally:
        os.close(fd)
    if size > max_bytes():
        rotate(target)


def rotate(target: str | None = None, wait: float = 0.0) -> bool:
    """Move a ledger that passed max_bytes() aside (.1, and .1 to .2); False when another process is
    doing it (after WAIT seconds of waiting for it) or already did. Safe to call from many hooks at once."""
    import fcntl
    import time

    target = target or path()
    lock = os.open(target + ".lock", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        give_up = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError:
                if time.monotonic() >= give_up:
                    return False  # another hook is rotating it
                time.sleep(0.005)
        try:
            if os.stat(target).st_size <= max_bytes():
                return False  # rotated by another hook between our write and our lock
        except FileNotFoundError:
            return False
        for n in range(KEEP, 1, -1):
            older = f"{target}.{n - 1}"
            if os.path.exists(older):
                os.replace(older, f"{target}.{n}")
        os.replace(target, f"{target}.1")
        return True
    finally:
        os.close(lock)


# --- reading ----------------------------------------------------------------------------------------


def backwards(max_bytes: int | None = None, deadline: float | None = None, needle: bytes | None = None,
              include_rotated: bool = True) -> Iterator[dict[str, Any]]:
    """The ledger's lines, newest first, parsed, reading blocks from the end of each file.

    MAX_BYTES stops after reading that much; DEADLINE (a time.monotonic() value) stops when passed
    (the caller cannot tell the two from the end of the ledger: it asked for at most so much).
    NEEDLE skips, before parsing, every line that does not contain those bytes. Lines that are not
    JSON objects (a line cut short by a crash) are skipped.
    """
    budget = max_bytes
    for name in files() if include_rotated else files()[:1]:
        for raw in lines_backwards(name, deadline):
            if budget is not None:
                budget -= len(raw) + 1
                if budget < 0:
                    return
            if needle is not None and needle not in raw:
                continue
            record = parse_line(raw)
            if record is not None:
                yield record
        if deadline is not None and time.monotonic() > deadline:
            return


def lines_backwards(name: str, deadline: float | None = None) -> Iterator[bytes]:
    try:
        fd = os.open(name, os.O_RDONLY)
    except OSError:
        return
    try:
        yield from lines_before(fd, os.fstat(fd).st_size, deadline)
    finally:
        os.close(fd)


def lines_before(fd: int, end: int, deadline: float | None = None) -> Iterator[bytes]:
    """The lines of the file open as FD before offset END, newest first (unparsed, blank ones left
    out), read in blocks from END backwards."""
    position = end
    rest = b""
    while position > 0:
        if deadline is not None and time.monotonic() > deadline:
            return
        size = min(BLOCK, position)
        position -= size
        block = os.pread(fd, size, position) + rest
        lines = block.split(b"\n")
        rest = lines[0]
        for raw in reversed(lines[1:]):
            if raw:
                yield raw
    if rest:
        yield rest


def rotated() -> list[tuple[str, int]]:
    """The rotated ledger files that are there (ledger.jsonl.1, .2, ...), newest first, with their inodes."""
    found: list[tuple[str, int]] = []
    for name in files()[1:]:
        try:
            found.append((name, os.stat(name).st_ino))
        except OSError:
            continue
    return found


def rotated_older_than(inode: int | None) -> list[str]:
    """The rotated ledger files older than the ledger file with INODE, newest first: those after it
    when it was rotated itself, all of them when it was not (or when INODE is None: there was no
    ledger file)."""
    names = rotated()
    for number, (_, there) in enumerate(names):
        if there == inode:
            names = names[number + 1:]
            break
    return [name for name, _ in names]


def parse_line(raw: bytes) -> dict[str, Any] | None:
    try:
        record = json.loads(raw)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def forwards(include_rotated: bool = True) -> Iterator[dict[str, Any]]:
    """Every line, oldest first (for statistics and replay, which read it all)."""
    names = files() if include_rotated else files()[:1]
    for name in reversed(names):
        try:
            with open(name, "rb") as handle:
                for raw in handle:
                    record = parse_line(raw.rstrip(b"\n"))
                    if record is not None:
                        yield record
        except FileNotFoundError:
            continue


def exists() -> bool:
    return any(os.path.exists(name) for name in files())
