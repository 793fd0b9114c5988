"""Claims between agent sessions: advisory leases on paths of a repository.

An agent session claims paths (`jouet claim src/parser/`) so that other sessions, in the same
worktree, another worktree of the repository or another machine, learn before they edit or commit
there. The pieces, one job each:

    patterns.py   normalise, match and intersect claim patterns (exactly, by automata)
    repo.py       find the worktree root, git dir, common dir and branch by reading files
    process.py    the agent process behind a `jouet claim` and whether it still runs
    record.py     one claim, its timestamps, and why it lapsed
    store.py      the per-repository store: lock-free reads, locked atomic writes
    actions.py    claim, release, prune and list, as the command runs them
    machine.py    this machine's identity for cross-machine sync
    sync.py       publish and read claims through refs/jouet/claims on a remote
    probe.py      held(): what the rule engine asks on every tool call

This package's __init__ imports nothing: the probe is on the hook's hot path.
"""


def may_hold_claims() -> bool:
    """Whether any repository's claims store exists on this machine: one directory read. False means
    no session holds a claim anywhere, and the probe need not even be imported."""
    import os

    from jouet_git import paths

    try:
        return any(name.endswith(".json") for name in os.listdir(os.path.join(paths.state_dir(), "claims")))
    except OSError:
        return False
