"""Finding a repository by reading files, never by running git (the hook path: imports only os).

Starting `git rev-parse` would cost more than everything else a hook does. What is needed is in a
handful of small files:

    <worktree>/.git                 a directory (the main worktree) or a file "gitdir: PATH"
    <git dir>/commondir             in a linked worktree: the path of the shared git dir
    <git dir>/HEAD                  "ref: refs/heads/BRANCH", or a commit id when detached
    <git dir>/index                 the index, whose header counts its entries
"""

from __future__ import annotations

import os
import stat

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

# How find() resolves symbolic links: os.path.realpath (a hook looks once: importing realpath.py would
# cost it more than it saves), or realpath.py's kernel way, for a stream that looks on every call.
_resolve: list[Callable[[str], str]] = [os.path.realpath]


def resolve_by_kernel() -> None:
    """Resolve links the kernel's way from now on (jouet_git/realpath.py: the same answers, in one
    step), for a process that looks for repositories many times (`jouet check --jsonl`)."""
    from jouet_git.realpath import realpath

    _resolve[0] = realpath


class Repo:
    """A worktree and the git directories behind it (all absolute, symlinks resolved)."""

    __slots__ = ("common_dir", "git_dir", "root")

    def __init__(self, root: str, git_dir: str, common_dir: str) -> None:
        self.root = root
        self.git_dir = git_dir
        self.common_dir = common_dir

    def branch(self) -> str | None:
        """The checked-out branch (`main`, `feat/x`), or None when HEAD is detached or unreadable."""
        head = _read(os.path.join(self.git_dir, "HEAD"))
        if head is None or not head.startswith("ref:"):
            return None
        ref = head[4:].strip()
        if ref.startswith("refs/heads/"):
            ref = ref[len("refs/heads/"):]
        if not ref or ref == ".invalid":  # a reftable repository keeps its real HEAD elsewhere
            return None
        return ref

    def __repr__(self) -> str:
        return f"Repo(root={self.root!r}, git_dir={self.git_dir!r}, common_dir={self.common_dir!r})"


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read(4096).strip()
    except OSError:
        return None


def _git_dir_of(worktree: str) -> tuple[str, bool] | None:
    """The git dir that WORKTREE/.git names, and whether that is WORKTREE/.git itself, a directory
    and not a symbolic link (so, with WORKTREE resolved, resolved already); None when there is none
    (or it is unusable)."""
    dot_git = worktree + "/.git" if worktree != "/" else "/.git"
    try:
        # None here (most directories a search walks up through): access() says so without the
        # exception a failing stat() raises.
        if not os.access(dot_git, os.F_OK):
            return None
        mode = os.lstat(dot_git).st_mode
        if stat.S_ISLNK(mode):
            mode = os.stat(dot_git).st_mode
            plain = False
        else:
            plain = True
    except (OSError, ValueError):
        return None
    if stat.S_ISDIR(mode):
        return (dot_git, plain) if os.access(dot_git + "/HEAD", os.F_OK) else None
    text = _read(dot_git)
    if text is None or not text.startswith("gitdir:"):
        return None
    target = text[len("gitdir:"):].strip()
    if not os.path.isabs(target):
        target = os.path.join(worktree, target)
    return (target, False) if os.path.isdir(target) else None


def find(cwd: str) -> Repo | None:
    """The repository whose worktree holds CWD, or None outside any (and in a bare repository)."""
    # Absolute and normalized from here on: plain string operations walk it up (a stream of calls
    # looks for the repository on every line).
    realpath = _resolve[0]
    current = realpath(cwd)
    while True:
        if current.endswith("/.git"):
            # Inside a git dir itself: no worktree here.
            return None
        named = _git_dir_of(current)
        if named is not None:
            git_dir = named[0] if named[1] else realpath(named[0])
            # (no commondir in a main worktree's git dir: access() says so without an exception)
            common = _read(git_dir + "/commondir") if os.access(git_dir + "/commondir", os.F_OK) else None
            if common:
                common_dir = common if os.path.isabs(common) else os.path.join(git_dir, common)
                common_dir = realpath(common_dir)
            else:
                common_dir = git_dir
            return Repo(current, git_dir, common_dir)
        if current == "/":
            return None
        current = current[:current.rfind("/")] or "/"


def find_root(cwd: str) -> str | None:
    """The root of the work tree holding CWD, or None outside any."""
    repo = find(cwd)
    return repo.root if repo is not None else None


def common_dir(root: str) -> str | None:
    """The repository's common git directory, shared by all its worktrees."""
    repo = find(root)
    return repo.common_dir if repo is not None else None


def index_entries(root: str, repo: Repo | None = None) -> int | None:
    """How many entries the index holds (what `git ls-files` counts), read from its header (REPO:
    the repository of ROOT when the caller found it already)."""
    repo = repo if repo is not None and repo.root == root else find(root)
    if repo is None:
        return None
    try:
        with open(os.path.join(repo.git_dir, "index"), "rb") as f:
            header = f.read(12)
    except FileNotFoundError:
        return 0
    except OSError:
        return None
    if len(header) < 12 or header[:4] != b"DIRC":
        return None
    return int.from_bytes(header[8:12], "big")


def index_holds_top(repo: Repo, names: tuple[str, ...], hash_size: int, cwd: str) -> bool | None:
    """Whether the index git uses in REPO (from CWD) holds a file at the top of the work tree named
    one of NAMES (plain names: no slash, no character git quotes), read from the index's first
    entries only: entries come sorted by path, so reading stops at the first one past the last of
    NAMES. True (one is there, in any stage), False (none is), or None when the files cannot say for
    sure: a split index (most of its entries in a shared file), a version this does not read, a
    damaged file. The index is <git dir>/index, or the one GIT_INDEX_FILE names (git's hooks set it
    for a commit of named paths), relative to CWD. HASH_SIZE: the bytes of an object id (20 for
    SHA-1, 32 for SHA-256)."""
    if hash_size not in (20, 32):
        return None
    index = os.environ.get("GIT_INDEX_FILE") or os.path.join(repo.git_dir, "index")
    wanted = {name.encode("utf-8", "surrogateescape") for name in names}
    last = max(wanted)
    try:
        for place in {repo.git_dir, repo.common_dir}:
            if any(entry.startswith("sharedindex.") for entry in os.listdir(place)):
                return None  # (core.splitIndex: the index holds only what changed since the shared one)
        with open(os.path.join(cwd, index), "rb") as f:
            data = f.read(_INDEX_READ)
    except FileNotFoundError:
        return False  # no index yet: nothing is staged
    except OSError:
        return None
    if len(data) < 12 or data[:4] != b"DIRC":
        return None
    version = int.from_bytes(data[4:8], "big")
    count = int.from_bytes(data[8:12], "big")
    if version not in (2, 3, 4):
        return None
    fixed = 40 + hash_size  # times, device, inode, mode, ids, size, then the object id
    at = 12
    path = b""
    for _ in range(count):
        if at + fixed + 2 > len(data):
            return None  # past what was read (or cut short): unsure
        flags = int.from_bytes(data[at + fixed:at + fixed + 2], "big")
        start = at + fixed + 2
        if flags & 0x4000:  # extended flags (version 3 and later)
            if version < 3:
                return None
            start += 2
        if version == 4:
            strip, start = _varint(data, start)
            end = data.find(b"\0", start)
            if strip is None or end < 0 or strip > len(path):
                return None
            path = path[:len(path) - strip] + data[start:end]
            at = end + 1
        else:
            end = data.find(b"\0", start)
            if end < 0:
                return None
            path = data[start:end]
            at += (end - at + 8) // 8 * 8  # NUL-padded to a multiple of eight bytes
        if path in wanted:
            return True
        if path > last:
            return False
    return False  # every entry read


# How much of the index index_holds_top reads: the first entries, where names beginning with "."
# sort (a larger index is read no further: its names come in order).
_INDEX_READ = 64 * 1024


def _varint(data: bytes, at: int) -> tuple[int | None, int]:
    """The offset-encoded number at AT in DATA (the index's version 4 path prefix), and where it ends."""
    if at >= len(data):
        return None, at
    byte = data[at]
    value = byte & 0x7F
    at += 1
    while byte & 0x80:
        if at >= len(data):
            return None, at
        byte = data[at]
        value = ((value + 1) << 7) | (byte & 0x7F)
        at += 1
    return value, at


def top_of_commit(repo: Repo, commit: str) -> set[str] | None:
    """The names at the top of COMMIT's tree, read from the loose objects of the commit and its tree
    (each a zlib-compressed file named by its id, written once by git and never changed); None when
    either is not a loose object (packed, or in an alternate object store), when replace refs may
    stand in for an object (`git replace`), or when what is read is not as git writes it."""
    hex_size = len(commit)
    if hex_size not in (40, 64) or not _is_object_id(commit) or _replacing(repo):
        return None
    body = _loose(repo, commit, b"commit")
    if body is None or not body.startswith(b"tree ") or body[5 + hex_size:6 + hex_size] != b"\n":
        return None
    tree = body[5:5 + hex_size].decode("ascii", "replace")
    if not _is_object_id(tree):
        return None
    entries = _loose(repo, tree, b"tree")
    if entries is None:
        return None
    names: set[str] = set()
    at = 0
    id_size = hex_size // 2
    while at < len(entries):  # "<mode> <name>\0<id>" each
        space = entries.find(b" ", at)
        end = entries.find(b"\0", space + 1) if space >= 0 else -1
        if space < 0 or end < 0 or end + 1 + id_size > len(entries):
            return None
        names.add(entries[space + 1:end].decode("utf-8", "surrogateescape"))
        at = end + 1 + id_size
    return names


def _loose(repo: Repo, oid: str, kind: bytes) -> bytes | None:
    """The content of the loose object OID when it is a KIND, else None (not loose, another kind, damaged)."""
    import zlib

    try:
        with open(os.path.join(repo.common_dir, "objects", oid[:2], oid[2:]), "rb") as f:
            data = zlib.decompress(f.read())
    except (OSError, zlib.error):
        return None
    header, _, body = data.partition(b"\0")
    if header != kind + b" " + str(len(body)).encode():
        return None
    return body


def _replacing(repo: Repo) -> bool:
    """Whether replace refs may make git read another object than the one named (refs/replace)."""
    if os.environ.get("GIT_REPLACE_REF_BASE"):
        return True
    try:
        if os.listdir(os.path.join(repo.common_dir, "refs", "replace")):
            return True
    except FileNotFoundError:
        pass
    except OSError:
        return True
    try:
        with open(os.path.join(repo.common_dir, "packed-refs"), "rb") as f:
            data = f.read(PACKED_REFS_LIMIT + 1)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return len(data) > PACKED_REFS_LIMIT or b" refs/replace/" in data


# A packed-refs file larger than this is not searched (git answers faster than Python reads it).
PACKED_REFS_LIMIT = 1 << 20
# Per-worktree refs live in the worktree's own git dir; every other ref in the common one.
_WORKTREE_REFS = ("refs/bisect/", "refs/worktree/", "refs/rewritten/")


def head_commit(repo: Repo) -> tuple[bool, str | None]:
    """The commit HEAD names, read from the files: (True, its id), (True, None) before the first
    commit, or (False, None) when the files do not say for sure (a reftable repository, a ref that
    is neither a loose file nor in packed-refs as a plain id, a packed-refs file over the limit)
    and git must be asked.

    A reftable repository keeps its refs in <common dir>/reftable, where loose files and packed-refs
    left beside it (written by anyone) are not what git reads: such a repository is always git's to
    answer, whatever its HEAD file says."""
    if os.path.isdir(os.path.join(repo.common_dir, "reftable")):
        return False, None
    text = _read(os.path.join(repo.git_dir, "HEAD"))
    for _ in range(5):  # HEAD -> refs/heads/main (-> another symbolic ref, rarely)
        if text is None:
            return False, None
        if not text.startswith("ref:"):
            return (True, text) if _is_object_id(text) else (False, None)
        ref = text[4:].strip()
        if not ref.startswith("refs/") or ".." in ref.split("/") or ref.endswith("/.invalid"):
            return False, None  # (a reftable repository's HEAD names refs/heads/.invalid)
        where = repo.git_dir if ref.startswith(_WORKTREE_REFS) else repo.common_dir
        path = os.path.join(where, ref)
        if os.path.exists(path):
            text = _read(path)
            continue
        return _packed(where, ref)
    return False, None


def _packed(where: str, ref: str) -> tuple[bool, str | None]:
    """REF's id in WHERE/packed-refs: (True, None) when it is not there (an unborn branch)."""
    try:
        with open(os.path.join(where, "packed-refs"), "rb") as f:
            data = f.read(PACKED_REFS_LIMIT + 1)
    except FileNotFoundError:
        return True, None
    except OSError:
        return False, None
    if len(data) > PACKED_REFS_LIMIT:
        return False, None
    wanted = b" " + ref.encode("utf-8", "surrogateescape")
    for line in data.split(b"\n"):
        if line.endswith(wanted) and not line.startswith((b"#", b"^")):
            text = line[:-len(wanted)].decode("ascii", "replace")
            return (True, text) if _is_object_id(text) else (False, None)
    return True, None


def _is_object_id(text: str) -> bool:
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)
