"""jouet.git.tree(): one hash for everything in the work tree, staged or not.

The hash is the id of the git tree object that committing the whole work tree would record: every
tracked file as it is on disk now (deleted ones left out), plus the untracked files that are not
ignored, as long as there are at most 1,000 of those. It is worked out without writing anything:
one `git ls-files` lists the index with each entry's blob id and which entries differ from the
disk; those, and untracked files, are hashed here the way git hashes a blob, and the tree objects
are hashed in memory. So a clean work tree hashes to its HEAD's tree, and the same content always
hashes the same, whoever wrote it.

Content that git would pass through a clean filter or line-ending conversion before storing it is
hashed as it is on disk, so for such files it may differ from what a commit records; it is still
the same for the same content.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from jouet_git.claims.repo import Repo
    from jouet_git.probes.core import Probes

MAX_UNTRACKED = 1000
_FILE, _EXEC, _LINK, _GITLINK, _TREE = b"100644", b"100755", b"120000", b"160000", b"40000"


def tree(runner: Probes, repo: Repo) -> tuple[Any, str | None]:
    """The work tree's hash (hex), or None and why."""
    from jouet_git.probes.core import OutOfTime

    code, out, err = runner.run_git(
        ["ls-files", "-z", "-t", "-s", "-m", "-d", "-o", "--exclude-standard"], repo.root
    )
    if code != 0:
        message = err.decode("utf-8", "replace").strip().splitlines()
        return None, f"git ls-files failed in {repo.root}: {message[0] if message else 'no message'}"
    entries, stale, untracked = parse_ls_files(out)
    if len(untracked) > MAX_UNTRACKED:
        untracked = []
    algorithm = _algorithm(entries, repo)
    root = os.fsencode(repo.root)
    for count, path in enumerate(sorted(stale) + untracked):
        if count % 64 == 0 and runner.remaining() <= 0:
            raise OutOfTime("git.tree ran out of the probes' time while hashing changed files")
        known = entries.get(path)
        if known is not None and known[0] == _GITLINK:
            continue  # a submodule: what the index records
        hashed = hash_file(os.path.join(root, path), algorithm)
        if hashed is None:
            entries.pop(path, None)
        else:
            entries[path] = hashed
    return tree_id(entries, algorithm).hex(), None


def parse_ls_files(out: bytes) -> tuple[dict[bytes, tuple[bytes, bytes]], set[bytes], list[bytes]]:
    """From `git ls-files -z -t -s -m -d -o` output: the index's stage-0 entries as path -> (mode,
    binary id), the paths whose content must be read from disk (changed, deleted or conflicted),
    and the untracked files (not embedded repositories, which show as `dir/`)."""
    entries: dict[bytes, tuple[bytes, bytes]] = {}
    stale: set[bytes] = set()
    untracked: list[bytes] = []
    for record in out.split(b"\0"):
        if len(record) < 3:
            continue
        tag, body = record[:1], record[2:]
        if tag == b"?":
            if not body.endswith(b"/"):
                untracked.append(body)
            continue
        info, tab, path = body.partition(b"\t")
        if not tab:
            continue
        fields = info.split(b" ")
        if len(fields) != 3:
            continue
        mode, oid, stage = fields
        if tag in (b"C", b"R") or stage != b"0":
            stale.add(path)
        if stage == b"0" and tag not in (b"C", b"R"):
            entries[path] = (mode, bytes.fromhex(oid.decode("ascii")))
    return entries, stale, untracked


def _algorithm(entries: dict[bytes, tuple[bytes, bytes]], repo: Repo) -> str:
    for _mode, oid in entries.values():
        return "sha256" if len(oid) == 32 else "sha1"
    from jouet_git.probes.repo import last, read_config

    fmt = last(read_config(repo.common_dir), "extensions.objectformat")
    return "sha256" if fmt and fmt.lower() == "sha256" else "sha1"


def hash_object(kind: bytes, data: bytes, algorithm: str) -> bytes:
    """The binary id git gives an object of KIND holding DATA (nothing is written)."""
    import hashlib

    digest = hashlib.new(algorithm)
    digest.update(kind + b" " + str(len(data)).encode("ascii") + b"\0")
    digest.update(data)
    return digest.digest()


def hash_file(path: bytes, algorithm: str) -> tuple[bytes, bytes] | None:
    """(mode, blob id) of the file or symlink at PATH as it is on disk; None when it is gone or is
    now a directory."""
    import stat

    try:
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode):
            return _LINK, hash_object(b"blob", os.readlink(path), algorithm)
        if not stat.S_ISREG(info.st_mode):
            return None
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    mode = _EXEC if info.st_mode & 0o100 else _FILE
    return mode, hash_object(b"blob", data, algorithm)


def tree_id(entries: dict[bytes, tuple[bytes, bytes]], algorithm: str) -> bytes:
    """The binary id of the tree holding ENTRIES (path -> (mode, binary id)), subtrees included."""
    nested: dict[bytes, Any] = {}
    for path, leaf in entries.items():
        node = nested
        parts = path.split(b"/")
        for part in parts[:-1]:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                break  # a file where a directory should be: the file stays, the deeper path goes
            node = child
        else:
            if parts[-1] not in node:
                node[parts[-1]] = leaf
    return _write(nested, algorithm)


def _write(node: dict[bytes, Any], algorithm: str) -> bytes:
    items: list[tuple[bytes, bytes, bytes]] = []
    for name, value in node.items():
        if isinstance(value, dict):
            if value:
                items.append((name + b"/", _TREE, _write(value, algorithm)))
        else:
            items.append((name, value[0], value[1]))
    items.sort(key=lambda item: item[0])  # git orders a subtree as if its name ended in "/"
    data = b"".join(mode + b" " + name.rstrip(b"/") + b"\0" + oid for name, mode, oid in items)
    return hash_object(b"tree", data, algorithm)
