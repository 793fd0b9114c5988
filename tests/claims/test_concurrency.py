"""Twenty `jouet claim` processes at once: the store ends valid, with exactly the winners' claims."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from testing import git, jouet_exe, make_repo

from jouet_git.claims.store import store_path


def test_twenty_concurrent_claimers(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    free = [(f"free-{i}", [f"free/d{i}/"]) for i in range(10)]
    # Within each group every pattern overlaps every other, so exactly one session wins it.
    groups = [
        [("g0-glob", ["shared0/**/*.py"]), ("g0-file", ["shared0/x/y.py"]), ("g0-dir", ["shared0/x/"])],
        [("g1-a", ["shared1/"]), ("g1-b", ["shared1/**/*.txt"]), ("g1-c", ["shared1/a/b/c.txt", "solo/"])],
        [("g2-a", ["hot/a.py"]), ("g2-b", ["hot/*.py"])],
        [("g3-a", ["native/**/*.rs"]), ("g3-b", ["native/lib.rs"])],
    ]
    claimers = free + [member for group in groups for member in group]
    assert len(claimers) == 20
    procs = {}
    for session, paths in claimers:
        env = dict(os.environ, JOUET_SESSION_ID=session, JOUET_AGENT_PID=str(os.getpid()))
        procs[session] = subprocess.Popen(
            [*jouet_exe(), "claim", "--json", *paths], cwd=repo, env=env,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
    results = {}
    for session, proc in procs.items():
        out, err = proc.communicate(timeout=180)
        results[session] = (proc.returncode, out, err)
        assert proc.returncode in (0, 1), (session, proc.returncode, err)

    common = git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir").strip()
    path = Path(store_path(common))
    store = json.loads(path.read_text())  # a whole, valid store
    held = [(c["session"], c["pattern"]) for c in store["claims"]]
    assert len(held) == len(set(held)), "a claim was duplicated"

    expected = {(session, p) for session, paths in free for p in paths}
    for session, _ in free:
        assert results[session][0] == 0, results[session]
    for group in groups:
        winners = [s for s, _ in group if results[s][0] == 0]
        assert len(winners) == 1, (group, {s: results[s][0] for s, _ in group})
        winner = winners[0]
        expected |= {(winner, p) for s, paths in group if s == winner for p in paths}
        for session, _ in group:
            if session == winner:
                continue
            report = json.loads(results[session][1])
            assert report["claimed"] == []
            assert {c["holder"]["session"] for c in report["conflicts"]} == {winner}
    assert set(held) == expected
    # No temporary files are left next to the store.
    leftovers = [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []
    assert oct(path.stat().st_mode & 0o777) == oct(0o600)
