"""jouet_git/realpath.py answers what os.path.realpath answers, on a tree of real files, directories
and symbolic links (relative, absolute, chained, dangling, looping), for paths that exist and paths
that do not."""

from __future__ import annotations

import itertools
import os
import random
from pathlib import Path

import pytest

from jouet_git import realpath as fast


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "t"
    (root / "a" / "b").mkdir(parents=True)
    (root / "c").mkdir()
    (root / "a" / "b" / "f.txt").write_text("f")
    (root / "a" / "up").symlink_to("..")
    (root / "a" / "tob").symlink_to("b")
    (root / "abs").symlink_to(root / "a" / "b")
    (root / "chain").symlink_to("abs")
    (root / "c" / "back").symlink_to("../a/tob/f.txt")
    (root / "nowhere").symlink_to("missing/deeper")
    (root / "loop1").symlink_to("loop2")
    (root / "loop2").symlink_to("loop1")
    (root / "self").symlink_to(".")
    return root


def test_the_kernel_way_is_in_use_here() -> None:
    if not os.path.isdir("/proc/self/fd"):
        pytest.skip("no /proc: os.path.realpath answers")
    fast.realpath("/")
    assert fast._usable == [True]


def test_every_path_resolves_as_os_path_realpath_says(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    names = ["a", "b", "c", "up", "tob", "abs", "chain", "back", "nowhere", "loop1", "self", "f.txt", "new",
             "..", ".", ""]
    rng = random.Random(18)
    paths = {str(tree)} | {str(tree / a / b) for a, b in itertools.product(names, repeat=2)}
    for _ in range(3000):
        paths.add(str(tree) + "/" + "/".join(rng.choice(names) for _ in range(rng.randint(1, 5))))
    monkeypatch.chdir(tree / "a")
    paths |= {"b/f.txt", "tob/../up", "new/thing", "../chain/f.txt", "."}
    for path in sorted(paths):
        assert fast.realpath(path) == os.path.realpath(path), path
