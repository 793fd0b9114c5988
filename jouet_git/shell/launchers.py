"""The less common programs that run other programs (stdbuf, setsid, flock, ionice, chrt, taskset,
su, runuser, sg, script, watch, nsenter, unshare, chroot, tmux, hyperfine, uv run, ...): their
handlers for wrappers.unwrap_more, which imports this module when one of them appears (see
wrappers.MORE_NAMES). Each reads its program's own options, so that a value is not taken for the
command.
"""

from __future__ import annotations

from jouet_git.shell.wrappers import _ASKS, _PLAIN, Unwrapped, _options, _spec, _sudo, program_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from jouet_git.shell.wrappers import Handler, Step


def _flock(words: list[str], i: int, u: Unwrapped) -> Step | None:
    """flock [OPTIONS] FILE COMMAND [ARGS], flock [OPTIONS] FILE -c SCRIPT; flock FD runs nothing."""
    got = _options(words, i + 1, "wE", frozenset({"timeout", "conflict-exit-code"}))
    if got is None:
        return None
    i, seen = got
    if any(name in _ASKS for name, _ in seen):
        return None
    i += 1  # the lock file
    if i < len(words) and words[i] in ("-c", "--command"):
        if i + 1 < len(words):
            u.script = words[i + 1]
        return None
    return words, i


def _watch(words: list[str], i: int, u: Unwrapped) -> Step | None:
    """watch [OPTIONS] COMMAND...: the words are joined and run by `sh -c`, or run as they are with
    -x (--exec)."""
    got = _options(words, i + 1, "nq", frozenset({"interval", "equexit"}), "d")
    if got is None:
        return None
    i, seen = got
    names = {name for name, _ in seen}
    if names & _ASKS or i >= len(words):
        return None
    if names & {"x", "exec"}:
        return words, i
    u.script = " ".join(words[i:])
    return None


_SU_LONG = frozenset({
    "command", "session-command", "shell", "group", "supp-group", "whitelist-environment", "user",
})


def _su(words: list[str], i: int, u: Unwrapped) -> Step | None:
    """su [OPTIONS] [-] [USER [ARGS]]: options may come anywhere; -c SCRIPT is what runs. runuser
    is su's twin, and with -u USER runs the command given as its words."""
    runuser = program_name(words[i]) == "runuser"
    n = len(words)
    j = i + 1
    script: str | None = None
    user_opt = False
    while j < n:
        got = _options(words, j, "csgGwu", _SU_LONG)
        if got is None:
            return None
        k, seen = got
        for name, value in seen:
            if name in _ASKS:
                return None
            if name in ("c", "command", "session-command"):
                script = value
            elif name in ("u", "user"):
                user_opt = True
        dashed = k > j and words[k - 1] == "--"
        j = k
        if j >= n:
            break
        if runuser and user_opt and script is None:
            return words, j
        if dashed:
            break
        j += 1  # an operand: the user, or an argument for the user's shell
    if script is not None:
        u.script = script
    return None


def _sg(words: list[str], i: int, u: Unwrapped) -> Step | None:
    """sg [-] GROUP [-c] COMMAND: COMMAND is a script for /bin/sh."""
    j = i + 1
    if j < len(words) and words[j] == "-":
        j += 1
    j += 1  # the group
    if j < len(words) and words[j] == "-c":
        j += 1
    if j < len(words):
        u.script = " ".join(words[j:])
    return None


def _script(words: list[str], i: int, u: Unwrapped) -> Step | None:
    """script [OPTIONS] [FILE]: -c COMMAND is a script run by the shell; without it, script starts an
    interactive shell, which runs nothing of these words."""
    got = _options(words, i + 1, "cEIOBTm", frozenset({
        "command", "echo", "log-in", "log-out", "log-io", "log-timing", "logging-format",
        "output-limit",
    }), "t")
    if got is None:
        return None
    for name, value in got[1]:
        if name in ("c", "command") and value is not None:
            u.script = value
    return None


def _busybox(words: list[str], i: int, u: Unwrapped) -> Step | None:
    """busybox APPLET ARGS runs the applet (sh, git's neighbours...)."""
    if i + 1 < len(words) and not words[i + 1].startswith("-"):
        return words, i + 1
    return None


def _nix(words: list[str], i: int, u: Unwrapped) -> Step | None:
    """`nix develop -c CMD`, `nix shell PKGS -c CMD`, `nix-shell --run SCRIPT` (or --command)."""
    rest = words[i + 1 :]
    if program_name(words[i]) == "nix-shell":
        for k, word in enumerate(rest):
            if word in ("--run", "--command") and k + 1 < len(rest):
                u.script = rest[k + 1]
                return None
        return None
    for k, word in enumerate(rest):
        if word in ("-c", "--command"):
            return (words, i + 2 + k) if i + 2 + k < len(words) else None
    return None


def _hyperfine(words: list[str], i: int, u: Unwrapped) -> Step | None:
    """hyperfine [OPTIONS] COMMAND...: each command, and the setup, prepare and cleanup ones, is a
    shell script."""
    scripts: list[str] = []
    values = {"w": 1, "m": 1, "M": 1, "r": 1, "P": 3, "D": 1, "L": 2, "S": 1, "u": 1, "n": 1,
              "warmup": 1, "min-runs": 1, "max-runs": 1, "runs": 1, "parameter-scan": 3,
              "parameter-step-size": 1, "parameter-list": 2, "shell": 1, "time-unit": 1,
              "command-name": 1, "style": 1, "export-asciidoc": 1, "export-csv": 1,
              "export-json": 1, "export-markdown": 1, "export-orgmode": 1, "output": 1,
              "sort": 1, "reference": 1}
    script_opts = {"s", "p", "c", "setup", "prepare", "cleanup", "conclude", "reference"}
    j = i + 1
    n = len(words)
    while j < n:
        word = words[j]
        if word.startswith("-") and len(word) > 1:
            name, eq, value = word.lstrip("-").partition("=")
            if not word.startswith("--") and len(name) > 1:
                name, value, eq = name[0], name[1:], "="
            if name in script_opts:
                if eq:
                    scripts.append(value)
                    j += 1
                elif j + 1 < n:
                    scripts.append(words[j + 1])
                    j += 2
                else:
                    j += 1
                continue
            j += 1 + (0 if eq else values.get(name, 0))
            continue
        scripts.append(word)
        j += 1
    if scripts:
        u.script = "\n".join(scripts)
    return None


_TMUX_VALUES = {
    "new-session": "ceFfnstxy", "new": "ceFfnstxy", "new-window": "ceFnt", "neww": "ceFnt",
    "split-window": "celFpt", "splitw": "celFpt", "respawn-pane": "cet", "respawnp": "cet",
    "respawn-window": "cet", "respawnw": "cet", "run-shell": "dt", "run": "dt",
}


def _tmux(words: list[str], i: int, u: Unwrapped) -> Step | None:
    """tmux -c SCRIPT; tmux new-session/new-window/split-window/respawn-pane/run-shell [OPTIONS]
    [COMMAND...] run a shell command; send-keys types its keys into a shell (Enter or C-m ends a
    line)."""
    got = _options(words, i + 1, "fLSc")
    if got is None:
        return None
    j, seen = got
    for name, value in seen:
        if name == "c" and value is not None:
            u.script = value
            return None
    if j >= len(words):
        return None
    sub = words[j]
    if sub in ("send-keys", "send"):
        got = _options(words, j + 1, "tN")
        if got is None:
            return None
        keys = ["\n" if word in ("Enter", "C-m", "KPEnter") else word for word in words[got[0] :]]
        u.script = "".join(keys)
        return None
    values = _TMUX_VALUES.get(sub)
    if values is None:
        return None
    got = _options(words, j + 1, values)
    if got is None or got[0] >= len(words):
        return None
    u.script = " ".join(words[got[0] :])
    return None



MORE: dict[str, Handler] = {
    "please": _sudo,
    "run0": _spec("ugDh", ("user", "group", "chdir", "unit", "property", "description", "slice",
                           "nice", "setenv", "background", "machine")),
    "stdbuf": _spec("ioe", ("input", "output", "error")),
    "setsid": _PLAIN,
    "flock": _flock,
    "ionice": _spec("cnpPu", ("class", "classdata", "pid", "pgid", "uid"),
                    stops=("p", "P", "u", "pid", "pgid", "uid")),
    "chrt": _spec("TPD", ("sched-runtime", "sched-period", "sched-deadline"),
                  stops=("p", "pid", "m", "max"), operands=1),
    "taskset": _spec(stops=("p", "pid"), operands=1),
    "unbuffer": _PLAIN,
    "script": _script,
    "su": _su,
    "runuser": _su,
    "sg": _sg,
    "watch": _watch,
    "nsenter": _spec("tSGW", ("target", "setuid", "setgid", "wdns", "env"), optional="muinpUCTrw",
                     chdirs=("w", "wd")),
    "unshare": _spec("RwSG", ("propagation", "setgroups", "root", "wd", "setuid", "setgid",
                              "monotonic", "boottime", "map-user", "map-group", "map-users",
                              "map-groups"), optional="muinpUCT", chdirs=("w", "wd")),
    "chroot": _spec("", ("userspec", "groups"), operands=1),
    "systemd-run": _spec("upEMHsi", ("unit", "property", "setenv", "machine", "host", "description",
                                     "slice", "uid", "gid", "nice", "working-directory",
                                     "on-calendar", "on-active", "on-boot", "on-startup",
                                     "on-unit-active", "on-unit-inactive", "timer-property",
                                     "path-property", "socket-property", "service-type",
                                     "expand-environment"), stops=("S", "shell"),
                         chdirs=("working-directory",)),
    "strace": _spec("eoOpsSaPIbEuXU", ("output", "attach", "string-limit", "trace", "signal",
                                       "status", "env", "user", "summary-sort-by", "columns"),
                    stops=("p", "attach")),
    "ltrace": _spec("eoplsnuaADxFIw", ("output", "library", "indent", "align"), stops=("p",)),
    "valgrind": _PLAIN,
    "pkexec": _spec("", ("user",)),
    "gosu": _spec(operands=1),
    "su-exec": _spec(operands=1),
    "setuidgid": _spec(operands=1),
    "envdir": _spec(operands=1),
    "envuidgid": _spec(operands=1),
    "setlock": _spec(operands=1),
    "softlimit": _spec("mdsloafcprt"),
    "chpst": _spec("uUbe/nlLmdopfcrt"),
    "faketime": _spec("fp", operands=1),
    "dumb-init": _spec("r", ("rewrite",)),
    "tini": _spec("ep"),
    "catchsegv": _PLAIN,
    "eatmydata": _PLAIN,
    "nocache": _PLAIN,
    "fakeroot": _spec("lsib", ("lib", "faked")),
    "chronic": _PLAIN,
    "ifne": _PLAIN,
    "proxychains": _spec("f"),
    "proxychains4": _spec("f"),
    "torsocks": _spec("uapPd", ("user", "pass", "address", "port")),
    "xvfb-run": _spec("nsfeapw", ("server-num", "server-args", "auth-file", "error-file",
                                  "xauth-protocol", "wait")),
    "dbus-run-session": _spec("", ("config-file", "dbus-daemon")),
    "caffeinate": _spec("tw"),
    "ssh-agent": _spec("aEPtO", stops=("k", "D", "T")),
    "sem": _spec("j", ("id", "jobs", "timeout", "semaphoretimeout", "st")),
    "entr": _PLAIN,
    "busybox": _busybox,
    "toybox": _busybox,
    "nix": _nix,
    "nix-shell": _nix,
    "hyperfine": _hyperfine,
    "tmux": _tmux,
    "uv": _spec("pw", ("with", "with-editable", "with-requirements", "python", "directory",
                       "project", "package", "extra", "group", "only-group", "no-group",
                       "env-file", "index", "default-index", "index-url", "extra-index-url",
                       "find-links", "cache-dir", "config-file", "color", "allow-insecure-host"),
                sub=("run",), chdirs=("directory",)),
    "poetry": _spec("C", ("directory", "project"), sub=("run",), chdirs=("C", "directory")),
    "pipenv": _spec(sub=("run",)),
    "pdm": _spec(sub=("run",)),
    "rye": _spec(sub=("run",)),
    "bundle": _spec("", ("gemfile",), sub=("exec",)),
    "pnpm": _spec("C", ("dir", "filter"), sub=("exec",), chdirs=("C", "dir")),
    "yarn": _spec(sub=("exec",)),
    "conda": _spec("np", ("name", "prefix", "cwd"), sub=("run",)),
    "mamba": _spec("np", ("name", "prefix", "cwd"), sub=("run",)),
    "micromamba": _spec("np", ("name", "prefix", "cwd"), sub=("run",)),
    "direnv": _spec(sub=("exec",), operands=1),
    "asdf": _spec(sub=("exec",)),
    "rbenv": _spec(sub=("exec",)),
    "pyenv": _spec(sub=("exec",)),
    "nodenv": _spec(sub=("exec",)),
    "aws-vault": _spec("d", ("duration", "region", "mfa-token", "prompt", "backend"), sub=("exec",),
                       operands=1),
    "op": _spec("", ("env-file", "account", "config"), sub=("run",), dashdash=True),
    "doppler": _spec("pc", ("project", "config", "token", "scope", "command", "name-transformer",
                            "mount", "mount-format", "fallback", "config-dir"), sub=("run",),
                     scripts=("command",)),
}
