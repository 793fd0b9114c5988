"""The rule-files rule on real rule files, through `jouet hook claude pre`.

Rules of both modes and of two authors live in a temporary JOUET_CONFIG_DIR (named .../jouet, as
every jouet rules directory is) and in a repository's .jouet/rules. The session making the calls is
claude_payload's "test-session". Quiet edits are then made for real, to show they were allowed to.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from testing import claude_payload, make_repo, run_jouet

SESSION = "test-session"  # what claude_payload sends as session_id
RULE = "[jouet rule: rule-files]"


def rule_text(name: str, author: str, mode: str | None) -> str:
    mode_line = f'mode = "{mode}"\n' if mode else ""
    return (
        f'[[rule]]\nname = "{name}"\nwhy = "tags are for releases"\n{mode_line}author = "{author}"\n'
        f'created = "2026-11-29"\nmessage = "Leave tags to the release job."\n\n'
        f'[rule.match]\ncommand = "git tag"\n\n'
        f'[rule.examples]\nfires = ["git tag v1"]\nquiet = ["git tag -l"]\n'
    )


class Rules:
    def __init__(self, root: Path) -> None:
        self.dir = root / "rules"
        self.dir.mkdir(parents=True)
        self.theirs_deny = self.write("theirs-deny", "agent-1", "deny")
        self.theirs_warn = self.write("theirs-warn", "agent-1", "warn")
        self.mine_deny = self.write("mine-deny", SESSION, "deny")
        (self.dir / "theirs-deny.luau").write_text("--!strict\nreturn { check = function(call) return nil end }\n")

    def write(self, name: str, author: str, mode: str | None) -> Path:
        path = self.dir / f"{name}.toml"
        path.write_text(rule_text(name.replace("_", "-"), author, mode))
        return path


@pytest.fixture
def rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Rules:
    config = tmp_path / "cfg" / "jouet"
    monkeypatch.setenv("JOUET_CONFIG_DIR", str(config))
    return Rules(config)


@pytest.fixture
def work(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "work")


def hook(payload: str, cwd: Path) -> dict[str, Any] | None:
    proc = run_jouet("hook", "claude", "pre", input=payload, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout) if proc.stdout.strip() else None


def bash(command: str, cwd: Path) -> dict[str, Any] | None:
    return hook(claude_payload(command, cwd), cwd)


def edit(tool: str, path: Path, cwd: Path, **fields: Any) -> dict[str, Any] | None:
    tool_input = {"file_path": str(path), **fields}
    return hook(claude_payload("", cwd, tool_name=tool, tool_input=tool_input), cwd)


def denied(answer: dict[str, Any] | None) -> str:
    assert answer is not None, "expected a denial, the hook said nothing"
    out = answer["hookSpecificOutput"]
    assert out.get("permissionDecision") == "deny", out
    reason: str = out["permissionDecisionReason"]
    assert reason.endswith(RULE), reason
    return reason


def sh(command: str, cwd: Path) -> None:
    subprocess.run(["bash", "-c", command], cwd=cwd, check=True, timeout=30)


# -- file tools ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("tool", ["Edit", "Write", "MultiEdit"])
def test_file_tools_may_not_change_another_author_s_deny_rule(rules: Rules, work: Path, tool: str) -> None:
    reason = denied(edit(tool, rules.theirs_deny, work, old_string="deny", new_string="warn"))
    assert str(rules.theirs_deny) in reason
    assert "tell the person" in reason


def test_a_deny_rule_s_script_is_the_rule_too(rules: Rules, work: Path) -> None:
    reason = denied(edit("Edit", rules.dir / "theirs-deny.luau", work, old_string="nil", new_string="nil"))
    assert "theirs-deny.toml" in reason


def test_file_tools_may_change_warn_rules_their_own_rules_and_new_files(rules: Rules, work: Path) -> None:
    assert edit("Edit", rules.theirs_warn, work, old_string="a", new_string="b") is None
    assert edit("Edit", rules.mine_deny, work, old_string="a", new_string="b") is None
    assert edit("Write", rules.dir / "brand-new.toml", work, content="") is None
    assert edit("Read", rules.theirs_deny, work) is None
    assert edit("Edit", work / "README.md", work, old_string="hello", new_string="hi") is None


# -- shell writes -------------------------------------------------------------------------------------


SHELL_WRITES = [
    "sed -i 's/tags/TAGS/' {rule}",
    "perl -pi -e 's/tags/TAGS/' {rule}",
    "echo '' > {rule}",
    "echo 'mode = \"warn\"' >> {rule}",
    "rm {rule}",
    "rm -f {rule}",
    "mv {rule} /tmp/",
    "cp /dev/null {rule}",
    "echo x | tee {rule}",
    "truncate -s 0 {rule}",
    "cd {dir} && sed -i 's/tags/TAGS/' {name}",
]


@pytest.mark.parametrize("template", SHELL_WRITES)
def test_shell_writes_to_another_author_s_deny_rule_are_denied(rules: Rules, work: Path, template: str) -> None:
    command = template.format(rule=rules.theirs_deny, dir=rules.dir, name=rules.theirs_deny.name)
    denied(bash(command, work))
    assert 'mode = "deny"' in rules.theirs_deny.read_text()  # nothing ran


@pytest.mark.parametrize("template", SHELL_WRITES)
def test_the_same_writes_to_a_warn_rule_are_quiet_and_go_through(rules: Rules, work: Path, template: str) -> None:
    command = template.format(rule=rules.theirs_warn, dir=rules.dir, name=rules.theirs_warn.name)
    before = rules.theirs_warn.read_text()
    assert bash(command, work) is None
    sh(command, work)
    changed = not rules.theirs_warn.exists() or rules.theirs_warn.read_text() != before
    assert changed, command


def test_a_session_may_rewrite_its_own_deny_rule(rules: Rules, work: Path) -> None:
    command = f"sed -i 's/Leave tags/Leave every tag/' {rules.mine_deny}"
    assert bash(command, work) is None
    sh(command, work)
    assert "Leave every tag" in rules.mine_deny.read_text()


def test_copying_a_rule_into_the_directory_by_name_is_checked(rules: Rules, work: Path) -> None:
    (work / "theirs-deny.toml").write_text(rule_text("theirs-deny", SESSION, "warn"))
    denied(bash(f"cp theirs-deny.toml {rules.dir}/", work))
    (work / "other.toml").write_text(rule_text("other", SESSION, "warn"))
    assert bash(f"cp other.toml {rules.dir}/", work) is None  # a new file there


def test_removing_the_whole_directory_is_denied(rules: Rules, work: Path) -> None:
    reason = denied(bash(f"rm -rf {rules.dir}", work))
    assert "your own rules by name" in reason
    denied(bash(f"rm {rules.dir}/*.toml", work))


def test_reading_rules_is_quiet(rules: Rules, work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JOUET_RULES_DISABLE", "reread")  # the same file read twice in one session
    for command in (f"cat {rules.theirs_deny}", f"sed -n 1,5p {rules.theirs_deny}",
                    f"cp {rules.theirs_deny} /tmp/copy.toml", f"grep -r mode {rules.dir}"):
        assert bash(command, work) is None, command


# -- a repository's rules deny unless they say warn ------------------------------------------------------


def test_repository_rules_without_a_mode_are_deny_rules(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    rules_dir = repo / ".jouet" / "rules"
    rules_dir.mkdir(parents=True)
    release = rules_dir / "release.toml"
    release.write_text(rule_text("release", "jdx", None))
    draft = rules_dir / "draft.toml"
    draft.write_text(rule_text("draft", "jdx", "warn"))

    denied(edit("Edit", release, repo, old_string="git tag", new_string="git tog"))
    denied(bash("rm .jouet/rules/release.toml", repo))
    denied(bash("git rm -q .jouet/rules/release.toml", repo))
    assert edit("Edit", draft, repo, old_string="git tag", new_string="git tog") is None
    assert bash("sed -i 's/tags/all tags/' .jouet/rules/draft.toml", repo) is None
