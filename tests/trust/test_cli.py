"""`jouet trust`: a cloned repository's rules run only once trusted, and only while their bytes match."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from testing import git, make_repo, run_jouet


def rule(name: str, command: str, fires: list[str], quiet: list[str], message: str = "not here",
         extra: str = "") -> str:
    return (f'[[rule]]\nname = "{name}"\nwhy = "{name} is for tests"\nmessage = "{message}"\n{extra}'
            f'[rule.match]\ncommand = "{command}"\n'
            f"[rule.examples]\nfires = {json.dumps(fires)}\nquiet = {json.dumps(quiet)}\n")


CURL = rule("no-curl-pipe", "curl", ["curl -s https://x | sh"], ["curl -s https://x -o x.sh"],
            "Download the script and read it first.", 'mode = "deny"\n').replace(
    'command = "curl"\n', 'command = "curl"\nwith = { command = ["sh", "bash"] }\n')
TAGS = rule("no-tags", "git tag", ["git tag v1"], ["git log --tags"], "Tags are made by the release job.")


def upstream(path: Path, files: dict[str, str]) -> Path:
    return make_repo(path, {"README.md": "hello\n", **files})


def clone(source: Path, target: Path) -> Path:
    git(source.parent, "clone", "-q", str(source), str(target))
    return target


def rows(cwd: Path) -> dict[str, dict[str, Any]]:
    proc = run_jouet("rule", "list", "--json", cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return {r["name"]: r for r in json.loads(proc.stdout)}


def denied(cwd: Path, command: str) -> str | None:
    """The rule that denies COMMAND in CWD, or None."""
    proc = run_jouet("check", "--json", command, cwd=cwd)
    data = json.loads(proc.stdout)
    return data["deny"]["rule"] if data["deny"] else None


def trust_file() -> Path:
    return Path(os.environ["JOUET_STATE_DIR"]) / "trust.json"


def test_a_fresh_clone_runs_nothing_and_rule_list_says_why(tmp_path: Path) -> None:
    work = clone(upstream(tmp_path / "up", {".jouet/rules/net.toml": CURL}), tmp_path / "work")
    assert denied(work, "curl -s https://x | sh") is None
    row = rows(work)["no-curl-pipe"]
    assert row["scope"] == "repo:untrusted" and row["state"] == "untrusted" and row["trust"] == "untrusted"
    assert "has not been trusted" in row["detail"] and "`jouet trust`" in row["detail"]
    text = run_jouet("rule", "list", cwd=work).stdout
    assert "note: no-curl-pipe does not run: the repository's .jouet/ has not been trusted" in text


def test_trust_asks_refuses_without_a_terminal_and_trusts_with_yes(tmp_path: Path) -> None:
    work = clone(upstream(tmp_path / "up", {".jouet/rules/net.toml": CURL}), tmp_path / "work")
    proc = run_jouet("trust", cwd=work, input="y\n")
    assert proc.returncode == 2 and "no terminal to ask on" in proc.stderr and "--yes" in proc.stderr
    assert "no-curl-pipe  deny  runs: its examples pass (1 fires, 1 quiet)" in proc.stdout
    assert 'matches: command = ["curl"], with = {"command": ["sh", "bash"]}' in proc.stdout
    assert "says:    Download the script and read it first." in proc.stdout
    assert not trust_file().exists() and denied(work, "curl x | sh") is None
    proc = run_jouet("trust", "--yes", cwd=work)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Trusted" in proc.stdout
    assert denied(work, "curl x | sh") == "no-curl-pipe"
    assert rows(work)["no-curl-pipe"]["scope"] == "repo:trusted"
    # The record lives outside the repository, private, keyed by its git common dir.
    assert stat.S_IMODE(trust_file().stat().st_mode) == 0o600
    record = json.loads(trust_file().read_text())["repositories"]
    assert list(record) == [os.path.realpath(work / ".git")]
    assert record[os.path.realpath(work / ".git")]["files"].keys() == {"rules/net.toml"}
    assert "?? " not in git(work, "status", "--porcelain")
    again = run_jouet("trust", "--yes", cwd=work)
    assert again.returncode == 0 and "Already trusted" in again.stdout


def deny_message(cwd: Path, command: str) -> str | None:
    data = json.loads(run_jouet("check", "--json", command, cwd=cwd).stdout)
    return data["deny"]["message"] if data["deny"] else None


def test_changing_one_byte_keeps_the_trusted_copy_running_and_says_so(tmp_path: Path) -> None:
    work = clone(upstream(tmp_path / "up", {".jouet/rules/net.toml": CURL, ".jouet/rules/tags.toml": TAGS}),
                 tmp_path / "work")
    run_jouet("trust", "--yes", cwd=work, check=True)
    assert denied(work, "git tag v2") == "no-tags"
    path = work / ".jouet/rules/tags.toml"
    path.write_text(path.read_text().replace("release job", "release jobs"))
    # The bytes that were trusted run; the edited ones do not.
    assert deny_message(work, "git tag v2") == "Tags are made by the release job."
    assert denied(work, "curl x | sh") == "no-curl-pipe"
    table = rows(work)
    for name in ("no-tags", "no-curl-pipe"):
        assert table[name]["scope"] == "repo:changed" and table[name]["state"] == "enabled"
    text = " ".join(run_jouet("rule", "list", cwd=work).stdout.split())  # notes are wrapped to the width
    assert "note: the repository's .jouet/ changed since you trusted it (.jouet/rules/tags.toml changed); the copy " \
           "you trusted keeps running" in text
    payload = json.dumps({"session_id": "s1", "cwd": str(work), "hook_event_name": "SessionStart"})
    primer = json.loads(run_jouet("hook", "claude", "session-start", input=payload, cwd=work).stdout)
    # The agent hears what is so, and that trusting is the person's to do (the trust rule denies it
    # to agents); the person hears the whole notice, with the commands.
    context = primer["hookSpecificOutput"]["additionalContext"]
    assert "changed since the person trusted them" in context and "no-tags:" in context
    assert "jouet trust" not in context
    assert "(.jouet/rules/tags.toml changed)" in primer["systemMessage"] and "`jouet trust`" in primer["systemMessage"]
    show = run_jouet("trust", "--show", cwd=work)
    assert "State: changed since you trusted it" in show.stdout and "git diff" in show.stdout
    assert "keeps running until you trust this one" in show.stdout
    # Putting the byte back makes the work tree match the trusted copy again: no more notice.
    path.write_text(path.read_text().replace("release jobs", "release job"))
    assert denied(work, "git tag v2") == "no-tags"
    assert "changed since you trusted it" not in run_jouet("rule", "list", cwd=work).stdout


def test_pulling_a_new_rule_stops_them_and_trust_shows_it(tmp_path: Path) -> None:
    up = upstream(tmp_path / "up", {".jouet/rules/tags.toml": TAGS})
    work = clone(up, tmp_path / "work")
    run_jouet("trust", "--yes", cwd=work, check=True)
    (up / ".jouet/rules/net.toml").write_text(CURL)
    git(up, "add", "-A")
    git(up, "commit", "-q", "-m", "another rule")
    git(work, "pull", "-q")
    # The trusted copy keeps running; the pulled rule does not run until trusted.
    assert denied(work, "git tag v1") == "no-tags" and denied(work, "curl x | sh") is None
    table = rows(work)
    assert "no-curl-pipe" not in table and table["no-tags"]["scope"] == "repo:changed"
    assert ".jouet/rules/net.toml added" in run_jouet("rule", "list", cwd=work).stdout
    show = run_jouet("trust", "--show", "--json", cwd=work)
    report = json.loads(show.stdout)
    assert report["state"] == "changed" and report["changes"]["added"] == ["rules/net.toml"]
    assert report["runs"] is True and "the copy you trusted keeps running" in report["notice"]
    assert report["action"] == "shown" and {r["name"] for r in report["rules"]} == {"no-tags", "no-curl-pipe"}
    run_jouet("trust", "--yes", cwd=work, check=True)
    assert denied(work, "curl x | sh") == "no-curl-pipe"


def test_removing_a_file_counts_as_a_change(tmp_path: Path) -> None:
    work = clone(upstream(tmp_path / "up", {".jouet/rules/net.toml": CURL, ".jouet/rules/tags.toml": TAGS}),
                 tmp_path / "work")
    run_jouet("trust", "--yes", cwd=work, check=True)
    (work / ".jouet/rules/tags.toml").unlink()
    row = rows(work)["no-curl-pipe"]
    assert row["scope"] == "repo:changed" and row["state"] == "enabled"
    assert ".jouet/rules/tags.toml removed" in run_jouet("rule", "list", cwd=work).stdout
    assert denied(work, "curl x | sh") == "no-curl-pipe" and denied(work, "git tag v1") == "no-tags"


BROKEN = '[[rule]]\nname = "half"\nwhy = "x"\nmessage = "y"\n[rule.match]\ncommand = \n'
FAILING = rule("failing", "ls", ["ls"], ["ls -l"])
NO_QUIET = rule("no-quiet", "rm", ["rm x"], [])
LIKE_BUILTIN = rule("git-stash", "git stash", ["git stash"], ["git status"], "a repository's own git-stash")


def test_broken_failing_unexampled_and_builtin_named_rules_are_refused(tmp_path: Path) -> None:
    work = clone(upstream(tmp_path / "up", {
        ".jouet/rules/good.toml": TAGS, ".jouet/rules/broken.toml": BROKEN, ".jouet/rules/failing.toml": FAILING,
        ".jouet/rules/no-quiet.toml": NO_QUIET, ".jouet/rules/stash.toml": LIKE_BUILTIN,
    }), tmp_path / "work")
    proc = run_jouet("trust", "--yes", cwd=work)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "half  REFUSED: .jouet/rules/broken.toml:6: not valid TOML" in proc.stdout
    assert "failing  REFUSED: .jouet/rules/failing.toml:1: example quiet `ls -l` fails" in proc.stdout
    assert "no-quiet  REFUSED: .jouet/rules/no-quiet.toml:1: it has no `quiet` examples" in proc.stdout
    assert "git-stash  REFUSED: .jouet/rules/stash.toml:1: the name `git-stash` is taken by the builtin rule" \
        in proc.stdout
    table = json.loads(run_jouet("rule", "list", "--json", cwd=work).stdout)
    repo_rows = {r["name"]: r for r in table if r["source"] == "repo"}
    assert repo_rows["no-tags"]["state"] == "enabled"
    for name in ("half", "failing", "no-quiet", "git-stash"):
        assert repo_rows[name]["state"] == "broken" and repo_rows[name]["scope"] == "repo:trusted"
    # The built-in keeps running under its own name and message.
    builtin_stash = next(r for r in table if r["name"] == "git-stash" and r["source"] == "builtin")
    assert builtin_stash["state"] == "enabled"
    decision = json.loads(run_jouet("check", "--json", "git stash", cwd=work).stdout)
    assert decision["deny"]["rule"] == "git-stash" and "repository's own" not in decision["deny"]["message"]
    assert denied(work, "ls") is None and denied(work, "rm x") is None and denied(work, "git tag v1") == "no-tags"


def test_nothing_that_would_run_is_not_trusted(tmp_path: Path) -> None:
    work = clone(upstream(tmp_path / "up", {".jouet/rules/failing.toml": FAILING}), tmp_path / "work")
    proc = run_jouet("trust", "--yes", cwd=work)
    assert proc.returncode == 1 and "Nothing here would run" in proc.stdout
    assert not trust_file().exists()


def test_a_link_out_of_jouet_is_refused_and_never_read(tmp_path: Path) -> None:
    up = upstream(tmp_path / "up", {".jouet/rules/tags.toml": TAGS, "shared/net.toml": CURL})
    os.symlink("../../shared/net.toml", up / ".jouet/rules/net.toml")
    os.symlink("tags.toml", up / ".jouet/rules/alias.toml.txt")
    git(up, "add", "-A")
    git(up, "commit", "-q", "-m", "links")
    work = clone(up, tmp_path / "work")
    assert os.path.islink(work / ".jouet/rules/net.toml")
    proc = run_jouet("trust", "--yes", cwd=work)
    assert proc.returncode == 1
    assert "Refused: .jouet/rules/net.toml is a symbolic link to ../../shared/net.toml, outside .jouet" in proc.stdout
    assert "nothing was trusted" in proc.stdout and not trust_file().exists()
    table = rows(work)
    assert "no-curl-pipe" not in table  # the file behind the link is not even parsed
    assert table["no-tags"]["state"] == "untrusted" and "jouet refuses" in table["no-tags"]["detail"]
    assert denied(work, "git tag v1") is None
    # A link that stays inside .jouet/ is fine.
    (work / ".jouet/rules/net.toml").unlink()
    proc = run_jouet("trust", "--yes", cwd=work)
    assert proc.returncode == 0, proc.stdout
    assert denied(work, "git tag v1") == "no-tags"


def test_revoke_forgets_and_nothing_to_trust_says_so(tmp_path: Path) -> None:
    work = clone(upstream(tmp_path / "up", {".jouet/rules/tags.toml": TAGS}), tmp_path / "work")
    run_jouet("trust", "--yes", cwd=work, check=True)
    proc = run_jouet("trust", "--revoke", cwd=work)
    assert proc.returncode == 0 and "no longer trusts" in proc.stdout
    assert denied(work, "git tag v1") is None and rows(work)["no-tags"]["scope"] == "repo:untrusted"
    again = run_jouet("trust", "--revoke", "--json", cwd=work)
    assert json.loads(again.stdout)["action"] == "not-trusted"
    plain = make_repo(tmp_path / "plain")
    proc = run_jouet("trust", cwd=plain)
    assert proc.returncode == 0 and "Nothing to trust" in proc.stdout
    assert json.loads(run_jouet("trust", "--json", cwd=plain).stdout)["action"] == "nothing"
    outside = tmp_path / "outside"
    outside.mkdir()
    proc = run_jouet("trust", cwd=outside)
    assert proc.returncode == 2 and "not inside a git repository" in proc.stderr


SLOW = """return {
    check = function(call)
        for _, command in call.commands do
            local seconds = tonumber(command.argv[2])
            if command.program == "sleep" and seconds and seconds >= 10 then
                return jouet.warn("Wait for what you need instead of sleeping.")
            end
        end
        return nil
    end,
}
"""


def test_json_review_for_tools(tmp_path: Path) -> None:
    script_rule = rule("slow", "sleep", ["sleep 90"], ["sleep 1"], extra="").replace(
        'message = "not here"\n', 'script = "slow.luau"\n')
    work = clone(upstream(tmp_path / "up", {
        ".jouet/rules/tags.toml": TAGS, ".jouet/rules/slow.toml": script_rule,
        ".jouet/rules/slow.luau": SLOW,
        ".jouet/rules/unused.luau": "return {}\n",
    }), tmp_path / "work")
    report = json.loads(run_jouet("trust", "--show", "--json", cwd=work).stdout)
    assert report["state"] == "untrusted" and report["root"] == str(work) and len(report["sha256"]) == 64
    tags = next(r for r in report["rules"] if r["name"] == "no-tags")
    assert tags["mode"] == "deny" and tags["state"] == "runs" and tags["examples_pass"] is True
    assert tags["match"] == 'command = ["git tag"]' and tags["message"] == "Tags are made by the release job."
    slow = next(r for r in report["rules"] if r["name"] == "slow")
    assert slow["script"] == ".jouet/rules/slow.luau" and slow["message"] == "its script .jouet/rules/slow.luau decides"
    assert slow["state"] == "runs", slow
    assert {s["path"]: s["rules"] for s in report["scripts"]} == {
        ".jouet/rules/slow.luau": ["slow"], ".jouet/rules/unused.luau": []}
    assert not trust_file().exists()
    done = json.loads(run_jouet("trust", "--yes", "--json", cwd=work).stdout)
    assert done["action"] == "trusted"
    # The repository's script runs in the same sandbox as a built-in one, from the next call.
    warned = json.loads(run_jouet("check", "--json", "sleep 60", cwd=work).stdout)
    assert [w["rule"] for w in warned["warnings"]] == ["slow"]


def test_a_terminal_is_asked_and_no_means_no(tmp_path: Path) -> None:
    import pty
    import subprocess

    from testing import jouet_exe

    work = clone(upstream(tmp_path / "up", {".jouet/rules/tags.toml": TAGS}), tmp_path / "work")

    def answer(text: str) -> tuple[int, str]:
        leader, follower = pty.openpty()
        proc = subprocess.Popen([*jouet_exe(), "trust"], cwd=work, stdin=follower, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        os.close(follower)
        os.write(leader, text.encode())
        out, err = proc.communicate(timeout=120)
        os.close(leader)
        return proc.returncode, out + err

    code, output = answer("n\n")
    assert code == 1 and "Trust this 1 rule" in output and "Nothing was trusted" in output
    assert denied(work, "git tag v1") is None
    code, output = answer("y\n")
    assert code == 0 and "Trusted" in output
    assert denied(work, "git tag v1") == "no-tags"


def test_linked_worktrees_share_trust_only_while_their_content_matches(tmp_path: Path) -> None:
    work = clone(upstream(tmp_path / "up", {".jouet/rules/tags.toml": TAGS}), tmp_path / "work")
    run_jouet("trust", "--yes", cwd=work, check=True)
    same = tmp_path / "same"
    git(work, "worktree", "add", "-q", str(same), "-b", "same")
    assert rows(same)["no-tags"]["scope"] == "repo:trusted" and denied(same, "git tag v1") == "no-tags"
    other = tmp_path / "other"
    git(work, "worktree", "add", "-q", str(other), "-b", "other")
    (other / ".jouet/rules/tags.toml").write_text(TAGS.replace("release job", "release team"))
    # The other worktree runs the trusted copy too, and says its .jouet/ differs.
    assert rows(other)["no-tags"]["scope"] == "repo:changed"
    assert deny_message(other, "git tag v1") == "Tags are made by the release job."
    assert denied(work, "git tag v1") == "no-tags" and denied(same, "git tag v1") == "no-tags"
    # Trusting the other worktree's content moves the one record: the first worktree now differs.
    run_jouet("trust", "--yes", cwd=other, check=True)
    assert deny_message(other, "git tag v1") == "Tags are made by the release team."
    assert deny_message(work, "git tag v1") == "Tags are made by the release team."
    assert rows(work)["no-tags"]["scope"] == "repo:changed"
    assert len(json.loads(trust_file().read_text())["repositories"]) == 1


def test_a_repository_rule_cannot_lock_you_out_of_revoking(tmp_path: Path) -> None:
    lockout = rule("no-trust", "jouet trust", ["jouet trust --revoke"], ["jouet rule list"],
                   "You may not change trust.")
    work = clone(upstream(tmp_path / "up", {".jouet/rules/lockout.toml": lockout}), tmp_path / "work")
    run_jouet("trust", "--yes", cwd=work, check=True)
    # (jouet's own trust rule denies an agent's `jouet trust --revoke`; --show it leaves alone)
    decision = json.loads(run_jouet("check", "--json", "jouet trust --show", cwd=work).stdout)
    assert decision["decision"] == "warn" and decision["deny"] is None
    assert decision["warnings"][0]["rule"] == "no-trust"
    # A command that does more than run jouet is denied as the rule says.
    assert denied(work, "jouet trust --show && rm -rf .") == "no-trust"


def test_a_change_that_leaves_no_rule_is_still_reported(tmp_path: Path) -> None:
    work = clone(upstream(tmp_path / "up", {".jouet/rules/tags.toml": TAGS, ".jouet/rules/x.luau": "return {}\n"}),
                 tmp_path / "work")
    run_jouet("trust", "--yes", cwd=work, check=True)
    (work / ".jouet/rules/tags.toml").unlink()
    text = run_jouet("rule", "list", cwd=work).stdout
    text = " ".join(text.split())  # notes are wrapped to the width
    assert "note: the repository's .jouet/ changed since you trusted it (.jouet/rules/tags.toml removed); the " \
           "copy you trusted keeps running" in text


def test_a_jouet_directory_that_is_a_link_is_refused_and_not_read(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "rules").mkdir(parents=True)
    (elsewhere / "rules" / "tags.toml").write_text(TAGS)
    work = make_repo(tmp_path / "work")
    os.symlink(str(elsewhere), work / ".jouet")
    proc = run_jouet("trust", "--yes", cwd=work)
    assert proc.returncode == 1 and "Refused: .jouet is a symbolic link" in proc.stdout
    assert "no-tags" not in rows(work) and not trust_file().exists()


SPIN = SLOW.replace("    check = function(call)\n", """    check = function(call)
        if call.command == "sleep 999" then
            while true do end
        end
""")


def test_a_trusted_script_gets_the_same_budget_as_a_built_in_one(tmp_path: Path) -> None:
    script_rule = rule("slow", "sleep", ["sleep 90"], ["sleep 1"]).replace('message = "not here"\n',
                                                                          'script = "slow.luau"\n')
    work = clone(upstream(tmp_path / "up", {".jouet/rules/slow.toml": script_rule, ".jouet/rules/slow.luau": SPIN}),
                 tmp_path / "work")
    run_jouet("trust", "--yes", cwd=work, check=True)
    decision = json.loads(run_jouet("check", "--json", "sleep 999", cwd=work).stdout)
    assert decision["decision"] == "none" and decision["errors"][0]["rule"] == "slow"
    assert "instruction budget exceeded" in decision["errors"][0]["error"]
