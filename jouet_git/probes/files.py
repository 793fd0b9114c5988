"""jouet.file.contains(path, text): whether a file holds some text, without handing the file over.

A script learns only true or false, so a rule can ask whether a rule file says `mode = "deny"` without
ever seeing a secret that may sit next to it. But a script that may ask about any text can ask again
and again, a byte at a time, and read a file through the answers; and rule scripts are code an
agent can write (a rule of its own in ~/.config/jouet/rules). So what it may ask about is bounded:

- Only files inside the call's repository (its work tree), or, outside any repository, under the
  call's directory; plus jouet's own rule directories (yours, the system's, the built-in ones and
  installed plugins), which rule-files reads to see whether a rule is in deny mode. The path counts
  as written and after symlinks: both must be allowed. A file with more than one hard link is
  refused (a second name can put any file inside the repository).
- Never the credential files the secret-files rule protects (.env files, private keys,
  ~/.aws/credentials, ~/.netrc, ~/.pgpass, ~/.docker/config.json, ~/.kube/config, .npmrc, ...), by
  their name as written or after symlinks; nor anything under /proc, /sys or /dev. For those, only
  two questions get an answer: whether the file is there (the empty text), and, for the package
  manager configs that hold a token only sometimes (.npmrc, .pypirc, .yarnrc.yml), whether it names
  one of the settings that carry one (HINTS), which is what secret-files asks. These two are
  answered wherever the file is.

Anything else gets (None, why), which scripts read as "cannot say".
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_BYTES = 4 << 20  # files over 4 MiB are not read

# Package manager configs that hold a token only sometimes, and the settings that carry one.
HINTS: dict[str, tuple[str, ...]] = {
    ".npmrc": ("_auth", "_password"),
    ".pypirc": ("password",),
    ".yarnrc.yml": ("npmAuthToken", "npmAuthIdent"),
}

# Credential files by name, as secret-files lists them (placeholders and public keys excepted).
_NAMES = frozenset({
    ".env", ".netrc", "_netrc", ".pgpass", ".git-credentials", ".vault-token",
    "application_default_credentials.json", "credentials.tfrc.json", *HINTS,
})
_NAME_PREFIXES = (".env.", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519")
_SUFFIXES = (".pem", ".key", ".p12", ".pfx")
_PLACEHOLDERS = frozenset({".env.example", ".env.sample", ".env.template", ".env.dist"})
# Credential files by their last two path parts.
_TAILS = frozenset({(".aws", "credentials"), (".docker", "config.json"), (".kube", "config"),
                    ("gh", "hosts.yml")})
_SYSTEM = ("/proc", "/sys", "/dev")


def home() -> str:
    return os.environ.get("HOME") or os.path.expanduser("~")


def resolve(path: str, cwd: str) -> str:
    """PATH as an absolute path: from CWD when relative; `~`, `~/...`, `$HOME` and `${HOME}` start at
    the home directory."""
    for prefix in ("~", "$HOME", "${HOME}"):
        if path == prefix:
            return os.path.normpath(home())
        if path.startswith(prefix + "/"):
            return os.path.normpath(os.path.join(home(), path[len(prefix) + 1:]))
    return os.path.normpath(os.path.join(cwd, path))


def credential(path: str) -> str | None:
    """Why PATH (absolute, normalised) is a file no script may read, or None."""
    for top in _SYSTEM:
        if path == top or path.startswith(top + "/"):
            return f"{path} is under {top}"
    name = os.path.basename(path)
    if name in _PLACEHOLDERS or name.endswith(".pub"):
        return None
    if (name in _NAMES or name.startswith(_NAME_PREFIXES) or name.endswith(_SUFFIXES)
            or (os.path.basename(os.path.dirname(path)), name) in _TAILS):
        return f"{path} holds credentials"
    return None


def jouet_dirs() -> list[str]:
    """jouet's own rule directories, which rule scripts may read whatever the call's directory."""
    from jouet_git import paths

    dirs = [paths.user_rules_dir(), paths.system_rules_dir(), paths.builtin_rules_dir(),
            paths.builtin_plugins_dir(), os.path.join(paths.data_dir(), "plugins")]
    return [os.path.realpath(d) for d in dirs]


def refusal(target: str, text: str, base: str) -> str | None:
    """Why file.contains may not answer TEXT about TARGET (absolute, normalised), or None when it
    may. BASE is the call's repository root, or its directory outside a repository."""
    real = os.path.realpath(target)
    for where in (target, real):
        why = credential(where)
        if why is not None:
            hints = HINTS.get(os.path.basename(where), ())
            if text == "" or text in hints:
                return None if not _system(real) else why
            return f"{why}; file.contains answers only whether it is there"
    if _system(real):
        return f"{target} is under {real.split('/')[1]}"
    allowed = [os.path.realpath(base), *jouet_dirs()]
    for where in (os.path.abspath(target), real):
        if not any(_under(where, root) for root in allowed):
            return (f"{target} is outside the call's repository ({base}); file.contains reads only there"
                    " and in jouet's rule directories")
    return None


def contains(target: str, text: str, base: str | None = None) -> tuple[Any, str | None]:
    """(True or False, None) for whether the file at TARGET holds TEXT, or (None, why it cannot say).

    BASE is the call's repository root (or its directory outside a repository): see the module
    docstring for what is answered; without BASE, only the reading limits apply (tests, examples).
    """
    import stat

    if base is not None:
        why = refusal(target, text, base)
        if why is not None:
            return None, why
    try:
        info = os.stat(target)
    except FileNotFoundError:
        return None, f"no such file: {target}"
    except OSError as error:
        return None, f"cannot read {target}: {error.strerror}"
    if stat.S_ISDIR(info.st_mode):
        return None, f"{target} is a directory, not a file"
    if not stat.S_ISREG(info.st_mode):
        return None, f"{target} is not a regular file"
    if base is not None and info.st_nlink > 1 and text and text not in HINTS.get(os.path.basename(target), ()):
        return None, f"{target} has other hard links; file.contains does not read such files"
    if info.st_size > MAX_BYTES:
        return None, f"{target} is over 4 MiB ({info.st_size} bytes), the most file.contains reads"
    try:
        with open(target, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as error:
        return None, f"cannot read {target}: {error.strerror}"
    if len(data) > MAX_BYTES:
        return None, f"{target} is over 4 MiB, the most file.contains reads"
    return text.encode("utf-8", "surrogatepass") in data, None


def _system(real: str) -> bool:
    return any(real == top or real.startswith(top + "/") for top in _SYSTEM)


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")
