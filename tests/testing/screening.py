"""Helpers for tests of output screening: secrets of known rules, a gitleaks that counts its starts,
and typical clean tool output."""

from __future__ import annotations

import json
import random
import stat
import string
import subprocess
from pathlib import Path
from typing import Any

from jouet_git.gitleaks import binary

ALNUM = string.ascii_letters + string.digits


class Planted:
    """Secrets gitleaks' default rules find, random (seeded) so they have real entropy."""

    def __init__(self, seed: int = 11) -> None:
        rng = random.Random(seed)
        self.github = "ghp_" + "".join(rng.choice(ALNUM) for _ in range(36))
        self.aws = "AKIA" + "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") for _ in range(16))
        self.slack = "xoxb-" + "".join(rng.choice(string.digits) for _ in range(12)) + "-" + \
            "".join(rng.choice(string.digits) for _ in range(13)) + "-" + "".join(rng.choice(ALNUM) for _ in range(24))
        self.stripe = "sk_live_" + "".join(rng.choice(ALNUM) for _ in range(32))

    def all(self) -> list[str]:
        return [self.github, self.aws, self.slack, self.stripe]


def counting_gitleaks(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """Environment for a gitleaks that logs each start, then runs the real one with the default rules
    (handed over through GITLEAKS_CONFIG, since the wrapper script holds no embedded config)."""
    from jouet_git.gitleaks.config import embedded_default

    real = binary.find_gitleaks()
    assert real is not None
    rules = tmp_path / "gitleaks-default.toml"
    rules.write_text(embedded_default(real))
    log = tmp_path / "gitleaks.log"
    wrapper = tmp_path / "gitleaks"
    wrapper.write_text(f'#!/bin/sh\necho "$@" >> "{log}"\nexec "{real}" "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    return {"JOUET_GITLEAKS": str(wrapper), "GITLEAKS_CONFIG": str(rules)}, log


def starts(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def gitleaks_finds(text: str) -> list[str]:
    """The rule ids the real gitleaks reports in TEXT (read from stdin, default rules)."""
    real = binary.find_gitleaks()
    assert real is not None
    proc = subprocess.run([real, "stdin", "--no-banner", "--redact", "--report-format", "json", "--report-path", "-",
                           "--exit-code", "99", "--max-decode-depth", "5", "--log-level", "error"],
                          input=text, capture_output=True, text=True, timeout=300)
    assert proc.returncode in (0, 99), proc.stderr
    return sorted(item["RuleID"] for item in json.loads(proc.stdout or "[]"))


ROOT = Path(__file__).resolve().parents[2]


def typical_outputs() -> dict[str, str]:
    """Clean output of typical size, as tools return it: a build log, source code, a listing, docs."""
    source = (ROOT / "jouet_git" / "harness" / "claude.py").read_text()
    log = "".join(f"tests/test_mod{i}.py::test_case_{i} PASSED{' ' * (i % 7)}[{i % 100:3d}%]\n" for i in range(400))
    listing = "".join(f"-rw-r--r--  1 dev staff  {1000 + i * 37:6d} Nov 30 12:{i % 60:02d} module_{i}.py\n"
                      for i in range(300))
    diff = "".join(f"@@ -{i},3 +{i},4 @@\n context line {i}\n-old value {i}\n+new value {i}\n+added {i}\n"
                   for i in range(200))
    readme = (ROOT / "README.md").read_text()[:20000]
    return {"test log": log, "source file": source, "directory listing": listing, "diff": diff, "docs": readme}


def tool_shapes(secret: str) -> dict[str, Any]:
    """Claude Code tool_response values of several tools, each holding SECRET in its text."""
    return {
        "Bash": {"stdout": f"building...\nexport TOKEN={secret}\ndone\n", "stderr": "warning: x\n",
                 "interrupted": False, "isImage": False},
        "PowerShell": {"stdout": f"Name  Value\n----  -----\nkey   {secret}\n", "stderr": "",
                       "interrupted": False, "isImage": False},
        "Read": {"type": "text", "file": {"filePath": "/repo/config/settings.py",
                                          "content": f"DEBUG = False\nAPI = '{secret}'\nPORT = 8080\n",
                                          "numLines": 3, "startLine": 1, "totalLines": 3}},
        "Grep": {"mode": "content", "numFiles": 1, "filenames": ["/repo/.env.local"],
                 "content": f"/repo/.env.local:2:GITHUB_TOKEN={secret}", "numLines": 1},
        "WebFetch": {"bytes": 5120, "code": 200, "codeText": "OK", "durationMs": 412,
                     "url": "https://example.test/setup",
                     "result": f"# Setup\n\nUse this token: {secret}\n\nThen run the installer."},
        "mcp__notes__read": [{"type": "text", "text": f"Note 12: deploy key is {secret}"},
                             {"type": "image", "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk",
                              "mimeType": "image/png"}],
    }
