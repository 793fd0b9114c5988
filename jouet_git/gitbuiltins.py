"""git's own subcommands, which git never takes as an alias, and the test that picks out a git
command whose subcommand may be one (gitalias.py reads config files only for those).

    alias_name(["git", "nuke"])     # "nuke"
    alias_name(["git", "status"])   # None: one of git's own

Kept apart from gitalias.py so that a call whose git commands are all git's own (nearly every one)
never imports the alias reader.
"""

from __future__ import annotations

# git's own commands (`git --list-cmds=main` and newer ones): git never takes an alias for these.
BUILTINS = frozenset({
    "add", "add--interactive", "am", "annotate", "apply", "archive", "backfill", "bisect", "bisect--helper",
    "blame", "branch", "bugreport", "bundle", "cat-file", "check-attr", "check-ignore", "check-mailmap",
    "check-ref-format", "checkout", "checkout--worker", "checkout-index", "cherry", "cherry-pick", "citool",
    "clean", "clone", "column", "commit", "commit-graph", "commit-tree", "config", "count-objects", "credential",
    "credential-cache", "credential-cache--daemon", "credential-store", "daemon", "describe", "diagnose", "diff",
    "diff-files", "diff-index", "diff-pairs", "diff-tree", "difftool", "difftool--helper", "env--helper",
    "fast-export", "fast-import", "fetch", "fetch-pack", "filter-branch", "fmt-merge-msg", "for-each-ref",
    "for-each-repo", "format-patch", "fsck", "fsck-objects", "fsmonitor--daemon", "gc", "get-tar-commit-id", "gitk",
    "grep", "gui", "hash-object", "help", "hook", "http-backend", "http-fetch", "http-push", "imap-send",
    "index-pack", "init", "init-db", "instaweb", "interpret-trailers", "last-modified", "log", "ls-files",
    "ls-remote", "ls-tree", "mailinfo", "mailsplit", "maintenance", "merge", "merge-base", "merge-file",
    "merge-index", "merge-octopus", "merge-one-file", "merge-ours", "merge-recursive", "merge-recursive-ours",
    "merge-recursive-theirs", "merge-resolve", "merge-subtree", "merge-tree", "mergetool", "mktag", "mktree",
    "multi-pack-index", "mv", "name-rev", "notes", "p4", "pack-objects", "pack-redundant", "pack-refs", "patch-id",
    "pickaxe", "prune", "prune-packed", "pull", "push", "quiltimport", "range-diff", "read-tree", "rebase",
    "receive-pack", "reflog", "refs", "remote", "remote-ext", "remote-fd", "remote-ftp", "remote-ftps",
    "remote-http", "remote-https", "repack", "replace", "replay", "repo", "request-pull", "rerere", "reset",
    "restore", "rev-list", "rev-parse", "revert", "rm", "send-email", "send-pack", "sh-i18n--envsubst", "shell",
    "shortlog", "show", "show-branch", "show-index", "show-ref", "sparse-checkout", "stage", "stash", "status",
    "stripspace", "submodule", "submodule--helper", "subtree", "svn", "switch", "symbolic-ref", "tag",
    "unpack-file", "unpack-objects", "update-index", "update-ref", "update-server-info", "upload-archive",
    "upload-archive--writer", "upload-pack", "var", "verify-commit", "verify-pack", "verify-tag", "version",
    "web--browse", "whatchanged", "worktree", "write-tree"
})


def alias_name(argv: list[str]) -> str | None:
    """The subcommand of the git command ARGV when it may be an alias (not one of git's own)."""
    from jouet_git.cmdline import skip_global_options

    i = skip_global_options("git", argv, 1)
    if i >= len(argv):
        return None
    name = argv[i]
    if name in BUILTINS or not name or name.startswith("-"):
        return None
    return name
