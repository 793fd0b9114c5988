"""git aliases: `git X ARGS` where X is an alias runs the alias's words, or with `!`, a shell command.

    found, problems = expand(commands, cwd)   # the commands the aliases among COMMANDS run

Call.commands adds what this finds to the parsed commands, as nested commands with "git-alias" in
their `via`, so matchers and scripts see `git nuke` (alias.nuke = `reset --hard`) as the `git reset
--hard` it runs. An alias is looked up where git looks, later ones winning: the system, global and
repository config files (read as files, never by running git; `[include] path = ...` followed, a
conditional `[includeIf]` not), then GIT_CONFIG_COUNT / GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n (in
the command's own environment or the process's), then the command's `-c alias.X=...` and
`--config-env=alias.X=VAR`. A `!` alias is read as shell, with the arguments appended as git
appends them; its commands run in the repository's top directory (jouet places them where the git
command runs). An alias naming another alias is followed, up to a loop.

On the hook path: nothing is read unless a git command's subcommand is not one of git's own.
"""

from __future__ import annotations

import os

from jouet_git.gitbuiltins import alias_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from jouet_git.call import Command

VIA = "git-alias"

# How deep `[include]`s and aliases of aliases are followed.
_MAX_INCLUDE = 10
_MAX_CHAIN = 10


def expand(commands: list[Command], cwd: str) -> tuple[list[Command], list[str]]:
    """The commands the git aliases among COMMANDS run (nested, via "git-alias"), and what could
    not be read. COMMANDS are one parse's; CWD is the call's directory."""
    wanted = [k for k, c in enumerate(commands) if c.program == "git" and alias_name(c.argv) is not None]
    if not wanted:
        return [], []
    from jouet_git import cmdline
    from jouet_git.shell import dirs

    places = dirs(commands)
    found: list[Command] = []
    problems: list[str] = []
    files: dict[str, dict[str, str]] = {}
    for k in wanted:
        command = commands[k]
        where = cmdline.command_where(command, places[k])
        directory = _directory(cwd, where)
        earlier = _defined_before(commands[:k])
        queue = [command]
        depth = 0
        while queue and depth < _MAX_CHAIN:
            depth += 1
            current = queue.pop()
            name = alias_name(current.argv)
            if name is None:
                continue
            value = _lookup(name, current, directory, files, earlier)
            if value is None:
                continue
            made, trouble = _run(value, current, command)
            problems.extend(trouble)
            found.extend(made)
            queue.extend(c for c in made if c.program == "git")
    return found, problems


def _directory(cwd: str, where: str | bool | None) -> str:
    if not isinstance(where, str) or not where:
        return cwd
    path = os.path.expanduser(where.replace("${HOME}", "~", 1).replace("$HOME", "~", 1))
    return os.path.normpath(os.path.join(cwd, path))


# -- where the alias is -------------------------------------------------------------------------


def _lookup(name: str, command: Command, directory: str, files: dict[str, dict[str, str]],
            earlier: dict[str, str]) -> str | None:
    """The value of alias.NAME for COMMAND run in DIRECTORY, or None. EARLIER: aliases the call's
    own earlier commands write with `git config`."""
    key = f"alias.{name.lower()}"
    env = dict(os.environ)
    env.update(command.env)
    value: str | None = None
    for path in _config_files(env, directory):
        if path not in files:
            files[path] = _read_file(path, 0)
        value = files[path].get(key, value)
    value = earlier.get(key, value)
    value = _from_environment(env, key, value)
    return _from_options(command.argv, env, key, value)


# `git config` options that take a value, and those after which no value is written.
_CONFIG_VALUE = frozenset({"-f", "--file", "--blob", "--type", "--default", "--comment", "--value"})
_CONFIG_NOT_A_WRITE = frozenset({"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--unset", "--unset-all",
                                 "-l", "--list", "-e", "--edit", "--rename-section", "--remove-section"})


def _defined_before(commands: list[Command]) -> dict[str, str]:
    """The aliases COMMANDS write with `git config [--global|--local|...] alias.X VALUE` (or `git
    config set alias.X VALUE`), by config key: an alias defined and used in the same call."""
    from jouet_git.cmdline import skip_global_options

    found: dict[str, str] = {}
    for command in commands:
        argv = command.argv
        if command.program != "git" or command.nested:
            continue
        i = skip_global_options("git", argv, 1)
        if i >= len(argv) or argv[i] != "config":
            continue
        words: list[str] = []
        j = i + 1
        writes = True
        while j < len(argv):
            word = argv[j]
            j += 1
            if word in _CONFIG_VALUE:
                j += 1
            elif word in _CONFIG_NOT_A_WRITE:
                writes = False
            elif not word.startswith("-") or word == "-":
                words.append(word)
        if words[:1] == ["set"]:
            words = words[1:]
        if writes and len(words) >= 2:
            key = _config_key(words[0])
            if key.startswith("alias."):
                found[key] = words[1]
    return found


def _config_files(env: dict[str, str], directory: str) -> list[str]:
    """The config files git reads, in order: system, global, the repository's."""
    paths: list[str] = []
    if not env.get("GIT_CONFIG_NOSYSTEM"):
        paths.append(env.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig")
    if "GIT_CONFIG_GLOBAL" in env:
        if env["GIT_CONFIG_GLOBAL"]:
            paths.append(env["GIT_CONFIG_GLOBAL"])
    else:
        home = env.get("HOME", "")
        xdg = env.get("XDG_CONFIG_HOME") or (os.path.join(home, ".config") if home else "")
        if xdg:
            paths.append(os.path.join(xdg, "git", "config"))
        if home:
            paths.append(os.path.join(home, ".gitconfig"))
    from jouet_git.gitdir import find

    repo = find(directory) if os.path.isdir(directory) else None
    if repo is not None:
        paths.append(os.path.join(repo.common_dir, "config"))
    return paths


def _from_environment(env: dict[str, str], key: str, value: str | None) -> str | None:
    try:
        count = int(env.get("GIT_CONFIG_COUNT", "0"))
    except ValueError:
        return value
    for n in range(min(count, 1000)):
        if env.get(f"GIT_CONFIG_KEY_{n}", "").lower() == key:
            value = env.get(f"GIT_CONFIG_VALUE_{n}", "")
    return value


def _from_options(argv: list[str], env: dict[str, str], key: str, value: str | None) -> str | None:
    """VALUE as the `-c` and `--config-env` before git's subcommand leave it."""
    from jouet_git.cmdline import skip_global_options

    end = skip_global_options("git", argv, 1)
    i = 1
    while i < end:
        word = argv[i]
        setting: str | None = None
        from_env = False
        if word in ("-c", "--config-env") and i + 1 < end:
            setting = argv[i + 1]
            from_env = word == "--config-env"
            i += 1
        elif word.startswith("--config-env="):
            setting = word[len("--config-env="):]
            from_env = True
        i += 1
        if setting is None:
            continue
        name, eq, rest = setting.partition("=")
        if _config_key(name) != key:
            continue
        if from_env:
            value = env.get(rest, value)
        else:
            value = rest if eq else "true"
    return value


def _config_key(name: str) -> str:
    """A config key as git compares it: section and name lower-cased, a subsection as written."""
    first, dot, rest = name.partition(".")
    if not dot:
        return name.lower()
    middle, dot2, last = rest.rpartition(".")
    if not dot2:
        return f"{first.lower()}.{rest.lower()}"
    return f"{first.lower()}.{middle}.{last.lower()}"


# -- reading a config file ----------------------------------------------------------------------


def _read_file(path: str, depth: int) -> dict[str, str]:
    """The alias.* settings of the git config file at PATH (and the files it includes), last wins."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read(1 << 20)
    except OSError:
        return {}
    out: dict[str, str] = {}
    for section, name, value in _entries(text):
        if section == "alias" and value is not None:
            out[f"alias.{name}"] = value
        elif section == "include" and name == "path" and value and depth < _MAX_INCLUDE:
            included = os.path.expanduser(value)
            if not os.path.isabs(included):
                included = os.path.join(os.path.dirname(path), included)
            out.update(_read_file(included, depth + 1))
    return out


def _entries(text: str) -> list[tuple[str, str, str | None]]:
    """(section, name, value) of each setting in git config TEXT; section and name lower-cased
    (a subsection kept after a dot), value None for a bare name."""
    out: list[tuple[str, str, str | None]] = []
    section = ""
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c in " \t\r\n":
            i += 1
        elif c in "#;":
            i = _line_end(text, i)
        elif c == "[":
            end = text.find("]", i)
            if end < 0:
                break
            header = text[i + 1:end].strip()
            base, _, sub = header.partition(" ")
            base, dot, old_sub = base.partition(".")
            section = base.lower()
            if sub.strip().startswith('"'):
                section += "." + sub.strip()[1:-1].replace('\\"', '"').replace("\\\\", "\\")
            elif dot:
                section += "." + old_sub.lower()
            i = end + 1
        else:
            j = i
            while j < n and (text[j].isalnum() or text[j] == "-"):
                j += 1
            name = text[i:j].lower()
            while j < n and text[j] in " \t":
                j += 1
            if not name:
                i = _line_end(text, i)
                continue
            if j < n and text[j] == "=":
                value, i = _value(text, j + 1)
                out.append((section, name, value))
            else:
                out.append((section, name, None))
                i = _line_end(text, j)
    return out


def _line_end(text: str, i: int) -> int:
    end = text.find("\n", i)
    return len(text) if end < 0 else end + 1


def _value(text: str, i: int) -> tuple[str, int]:
    """A value from I to the end of its line: quotes, escapes and continuation lines read as git does."""
    out: list[str] = []
    pending_space = ""
    quoted = False
    n = len(text)
    started = False
    while i < n:
        c = text[i]
        i += 1
        if c == "\n" and not quoted:
            break
        if c == "\n" and quoted:
            break  # git refuses a newline inside quotes; stop here
        if not quoted and c in "#;":
            i = _line_end(text, i - 1)
            break
        if c in " \t" and not quoted:
            if started:
                pending_space += c
            continue
        if c == "\\":
            if i >= n:
                break
            e = text[i]
            i += 1
            if e == "\n":
                continue  # a continuation line
            out.append(pending_space)
            pending_space = ""
            out.append({"n": "\n", "t": "\t", "b": "\b", '"': '"', "\\": "\\"}.get(e, e))
            started = True
            continue
        if c == '"':
            quoted = not quoted
            out.append(pending_space)
            pending_space = ""
            started = True
            continue
        out.append(pending_space)
        pending_space = ""
        out.append(c)
        started = True
    return "".join(out), i


# -- what the alias runs ------------------------------------------------------------------------


def split_cmdline(value: str) -> list[str]:
    """An alias's words, split as git splits them: on blanks, with '...' and "..." quoting and
    backslash escapes (not inside single quotes)."""
    words: list[str] = []
    word: list[str] = []
    have = False
    quote = ""
    i = 0
    while i < len(value):
        c = value[i]
        i += 1
        if quote:
            if c == quote:
                quote = ""
            elif c == "\\" and quote == '"' and i < len(value):
                word.append(value[i])
                i += 1
            else:
                word.append(c)
            continue
        if c in " \t\n":
            if have:
                words.append("".join(word))
                word = []
                have = False
            continue
        have = True
        if c in "'\"":
            quote = c
        elif c == "\\" and i < len(value):
            word.append(value[i])
            i += 1
        else:
            word.append(c)
    if have:
        words.append("".join(word))
    return words


def _quote(word: str) -> str:
    return "'" + word.replace("'", "'\\''") + "'"


def _with_arguments(script: str, args: list[str]) -> str:
    """SCRIPT as git runs it with ARGS: appended as its positional parameters. Where the script
    uses them itself ($1, "$@", often inside a function it calls), they are written in too, so
    that the commands read show the values."""
    if not args:
        return script
    quoted = [_quote(word) for word in args]
    every = " ".join(quoted)
    for spelled in ('"$@"', '"${@}"', '"$*"', '"${*}"', "$@", "${@}", "$*", "${*}"):
        script = script.replace(spelled, every)
    for n in range(min(len(args), 9), 0, -1):
        for spelled in (f'"${n}"', f'"${{{n}}}"', f"${{{n}}}", f"${n}"):
            script = script.replace(spelled, quoted[n - 1])
    return script + " " + every


def _run(value: str, current: Command, origin: Command) -> tuple[list[Command], list[str]]:
    """The commands alias VALUE runs for CURRENT (a git command; ORIGIN is the one in the call)."""
    from jouet_git.call import Command
    from jouet_git.cmdline import skip_global_options

    argv = current.argv
    i = skip_global_options("git", argv, 1)
    rest = argv[i + 1:]
    via = [*origin.via, VIA]
    if value.startswith("!"):
        from jouet_git.shell import parse

        script = _with_arguments(value[1:], rest)
        result = parse(script)
        made = []
        for cmd in result.commands:
            cmd.via = [*via, *cmd.via]
            cmd.env = {**origin.env, **cmd.env}
            _place_like(cmd, origin)
            made.append(cmd)
        problems = [f"git alias {argv[i]}: {p}" for p in result.problems] if result.incomplete else []
        return made, problems
    words = ["git", *argv[1:i], *split_cmdline(value), *rest]
    line = " ".join(words)
    cmd = Command(words, list(words), "git", via=via, env=dict(origin.env), text=line[:80], line=line)
    _place_like(cmd, origin)
    return [cmd], []


def _place_like(cmd: Command, origin: Command) -> None:
    """Make CMD run where ORIGIN runs, as part of it (for jouet.dirs and the rules' view)."""
    cmd.nested = True
    cmd.span = None
    cmd.words_at = None
    cmd.seq = origin.seq
    cmd.scope = origin.scope
    cmd.captured = cmd.captured or origin.captured
    cmd.piped = cmd.piped or origin.piped
    cmd.background = cmd.background or origin.background
    cmd.status = origin.status
