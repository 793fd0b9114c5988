"""jouet.repo(): the work tree's root, whether it is a linked worktree, and its GitHub repository.

Everything comes from files (the worktree's `.git`, the repository's `config`), so the probe starts
no process. The GitHub owner and name are read from the `origin` remote's URL in any form git
accepts: https://github.com/OWNER/NAME(.git), git@github.com:OWNER/NAME(.git),
ssh://git@github.com(:22)/OWNER/NAME(.git), git://..., with or without user and password, after the
`url.<base>.insteadOf` rewrites of the repository's and the user's git config.
"""

from __future__ import annotations

import os
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from jouet_git.claims.repo import Repo

_MAX_INCLUDE_DEPTH = 5
_SECTION = re.compile(r'\s*\[\s*([A-Za-z0-9.-]+)\s*(?:"((?:[^"\\]|\\.)*)")?\s*\]')
_KEY = re.compile(r"\s*([A-Za-z][A-Za-z0-9-]*)\s*(=)?")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


def describe(repo: Repo) -> dict[str, Any]:
    """The dict jouet.repo() returns for REPO; owner, name, repo and host only for a remote repository."""
    config = read_config(repo.common_dir, repo.git_dir)
    out: dict[str, Any] = {"root": repo.root, "worktree": repo.git_dir != repo.common_dir}
    url = last(config, "remote.origin.url")
    if url:
        parsed = parse_remote_url(rewrite_url(url, config + global_config()))
        if parsed is not None:
            host, owner, name = parsed
            out.update(host=host, owner=owner, name=name, repo=f"{owner}/{name}")
    return out


# -- git config files ------------------------------------------------------------------------------


def read_config(common_dir: str, git_dir: str | None = None) -> list[tuple[str, str]]:
    """The repository's config as (name, value) pairs in file order, and the worktree's own
    `config.worktree` after it when GIT_DIR differs. Unreadable files count as empty."""
    pairs = read_config_file(os.path.join(common_dir, "config"))
    if git_dir and git_dir != common_dir:
        pairs += read_config_file(os.path.join(git_dir, "config.worktree"))
    return pairs


def global_config() -> list[tuple[str, str]]:
    """The user's git config: $GIT_CONFIG_GLOBAL, or ~/.gitconfig and $XDG_CONFIG_HOME/git/config."""
    named = os.environ.get("GIT_CONFIG_GLOBAL")
    if named:
        return read_config_file(named)
    home = os.environ.get("HOME") or os.path.expanduser("~")
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    return read_config_file(os.path.join(xdg, "git", "config")) + read_config_file(
        os.path.join(home, ".gitconfig"))


def last(pairs: list[tuple[str, str]], name: str) -> str | None:
    """The last value of NAME (lowercase section and key, subsection as written), or None."""
    found = None
    for key, value in pairs:
        if key == name:
            found = value
    return found


def read_config_file(path: str, depth: int = 0) -> list[tuple[str, str]]:
    """One git config file as (section[.subsection].key, value) pairs, following `include.path`.

    Section and key names are lowercased (git reads them without regard to case); a subsection keeps
    its case. A key without `=` is a boolean true and reads "true".
    """
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as handle:
            text = handle.read(1 << 20)
    except OSError:
        return []
    pairs: list[tuple[str, str]] = []
    section = ""
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        header = _SECTION.match(line)
        if header is not None:
            name, sub = header.group(1), header.group(2)
            if sub is not None:
                section = name.lower() + "." + re.sub(r"\\(.)", r"\1", sub)
            elif "." in name:  # the old [section.subsection] form: the subsection is lowercase
                head, _, rest = name.partition(".")
                section = f"{head.lower()}.{rest.lower()}"
            else:
                section = name.lower()
            line = line[header.end():]
        key = _KEY.match(line)
        if key is None or not section:
            continue
        name = key.group(1).lower()
        if key.group(2) is None:
            if _strip_comment(line[key.end():]).strip():
                continue  # not a key line git would accept
            value = "true"
        else:
            raw = line[key.end():]
            while _continues(raw) and index < len(lines):
                raw = raw[:-1] + lines[index]
                index += 1
            value = _value(raw)
        full = f"{section}.{name}"
        pairs.append((full, value))
        if full == "include.path" and depth < _MAX_INCLUDE_DEPTH and value:
            target = os.path.expanduser(value)
            if not os.path.isabs(target):
                target = os.path.join(os.path.dirname(path), target)
            pairs += read_config_file(target, depth + 1)
    return pairs


def _continues(raw: str) -> bool:
    """Whether RAW ends in a backslash that joins the next line (an odd run of them, outside a comment)."""
    body = _strip_comment(raw)
    run = len(body) - len(body.rstrip("\\"))
    return body == raw.rstrip("\r") and run % 2 == 1


def _strip_comment(raw: str) -> str:
    quoted = False
    escaped = False
    for position, char in enumerate(raw):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == '"':
            quoted = not quoted
        elif char in "#;" and not quoted:
            return raw[:position]
    return raw


def _value(raw: str) -> str:
    """A config value: quotes removed, escapes read, comments and surrounding blanks dropped."""
    out: list[str] = []
    pending = ""  # blanks kept only if something follows them
    quoted = False
    chars = iter(raw.strip())
    for char in chars:
        if char == "\\":
            nxt = next(chars, "")
            out.append(pending + {"n": "\n", "t": "\t", "b": "\b"}.get(nxt, nxt))
            pending = ""
        elif char == '"':
            out.append(pending)
            pending = ""
            quoted = not quoted
        elif char in "#;" and not quoted:
            break
        elif char.isspace() and not quoted:
            pending += char
        else:
            out.append(pending + char)
            pending = ""
    return "".join(out)


# -- remote URLs -----------------------------------------------------------------------------------


def rewrite_url(url: str, config: list[tuple[str, str]]) -> str:
    """URL after git's `url.<base>.insteadOf` rewriting: the longest matching prefix wins."""
    best = ""
    base = ""
    for key, value in config:
        prefix = key.startswith("url.") and key.endswith(".insteadof") and value and url.startswith(value)
        if prefix and len(value) > len(best):
            best, base = value, key[len("url."):-len(".insteadof")]
    return base + url[len(best):] if best else url


def parse_remote_url(url: str) -> tuple[str, str, str] | None:
    """(host, owner, name) of a remote URL whose path is OWNER/NAME (`.git` and slashes trimmed).

    Reads scheme URLs (https, http, ssh, git, git+ssh), with user, password and port, and scp-like
    `[user@]host:OWNER/NAME`. None for local paths and for paths of any other depth.
    """
    url = url.strip()
    scheme = _SCHEME.match(url)
    if scheme is not None:
        if scheme.group(1).lower() == "file":
            return None
        rest = url[scheme.end():]
        authority, _, path = rest.partition("/")
        host = authority.rpartition("@")[2]
        # A port follows the host; an IPv6 address is in brackets: [::1]:22.
        host = host[1:].partition("]")[0] if host.startswith("[") else host.partition(":")[0]
    else:
        head, colon, path = url.partition(":")
        if not colon or "/" in head or not head or (len(head) == 1 and head.isalpha()):
            return None  # a local path (or a Windows drive letter)
        host = head.rpartition("@")[2]
        if host.startswith("[") and host.endswith("]"):
            host = host[1:-1]
    parts = [p for p in path.split("/") if p]
    if len(parts) != 2 or not host:
        return None
    owner, name = parts
    if name.endswith(".git"):
        name = name[:-4]
    if owner.startswith("~") or not owner or not name:
        return None
    return host.lower(), owner, name
