"""The editor git would start for a commit message, and for an interactive rebase's todo list.

    editor(probes, repo) -> ({"editor": "vi", "from": "default", "sequence_editor": "vi",
                              "sequence_from": "default", "in_progress": "rebase"}, None)

git picks its editor (editor.c, git_editor()) from GIT_EDITOR, then core.editor, then VISUAL
(unless TERM is dumb), then EDITOR; with none of them it starts vi, or, when TERM is dumb,
refuses with "Terminal is dumb, but EDITOR unset" instead of waiting. An interactive rebase's todo
list goes to GIT_SEQUENCE_EDITOR, then sequence.editor, then that same editor. `editor` is left
out when git would refuse to start one.

The environment read is the hook's own, which an agent's shell shares in the harnesses jouet
knows (Claude Code runs both with its environment); assignments in the command itself
(`GIT_EDITOR=true git commit`, `git -c core.editor=true commit`) are the script's to read. The
config is read with one `git config` process in the work tree (repository, global and system
files, as git reads them). `in_progress` says which operation has stopped for the person to finish
(rebase, merge, cherry-pick, revert; from the files git keeps in the git directory), since only then
does `git rebase --continue` or `git merge --continue` commit (and start the editor) rather than
stop at once.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from jouet_git.gitdir import Repo
    from jouet_git.probes.core import Probes

DEFAULT = "vi"


def editor(probes: Probes, repo: Repo, environ: dict[str, str] | None = None) -> tuple[Any, str | None]:
    env = os.environ if environ is None else environ
    code, out, _ = probes.run_git(["config", "--get-regexp", r"^(core|sequence)\.editor$"], repo.root)
    config: dict[str, str] = {}
    if code == 0:
        for line in out.decode("utf-8", "replace").splitlines():
            key, _, value = line.partition(" ")
            config[key.lower()] = value
    found = choose(env, config)
    operation = in_progress(repo.git_dir)
    if operation is not None:
        found["in_progress"] = operation
    return found, None


def in_progress(git_dir: str) -> str | None:
    """The operation stopped in the work tree whose git directory is GIT_DIR, or None."""
    if os.path.isdir(os.path.join(git_dir, "rebase-merge")) or os.path.isdir(os.path.join(git_dir, "rebase-apply")):
        return "rebase"
    for name, operation in (("MERGE_HEAD", "merge"), ("CHERRY_PICK_HEAD", "cherry-pick"), ("REVERT_HEAD", "revert")):
        if os.path.exists(os.path.join(git_dir, name)):
            return operation
    return None


def choose(env: Any, config: dict[str, str]) -> dict[str, Any]:
    """What git would start, from its environment ENV and config values CONFIG (lowercased keys)."""
    dumb = env.get("TERM", "") in ("", "dumb")
    found: tuple[str, str] | None = None
    for value, origin in ((env.get("GIT_EDITOR"), "GIT_EDITOR"), (config.get("core.editor"), "core.editor"),
                          (None if dumb else env.get("VISUAL"), "VISUAL"), (env.get("EDITOR"), "EDITOR")):
        if value:
            found = (value, origin)
            break
    if found is None and not dumb:
        found = (DEFAULT, "default")
    out: dict[str, Any] = {}
    if found is not None:
        out["editor"], out["from"] = found
    sequence = env.get("GIT_SEQUENCE_EDITOR") or config.get("sequence.editor")
    if sequence:
        out["sequence_editor"] = sequence
        out["sequence_from"] = "GIT_SEQUENCE_EDITOR" if env.get("GIT_SEQUENCE_EDITOR") else "sequence.editor"
    elif found is not None:
        out["sequence_editor"], out["sequence_from"] = found
    return out
