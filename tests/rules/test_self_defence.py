"""Self-defence: every way an agent could switch jouet off is denied, and reading stays allowed.

Each attack runs as an agent's tool call would: a real Claude Code PreToolUse payload fed to the
installed `jouet hook claude pre`, in a real repository where `jouet setup` installed jouet's hooks
for Claude Code (user and project level) and for git. jouet's directories are where the test
environment's JOUET_* and XDG_* variables put them, as the hook sees them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from testing import BIN, claude_payload, git, make_repo, run_jouet

from jouet_git import paths


def hook(payload: str, cwd: Path) -> dict[str, Any] | None:
    proc = run_jouet("hook", "claude", "pre", input=payload, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["hookSpecificOutput"] if proc.stdout.strip() else None


def bash(command: str, cwd: Path) -> dict[str, Any] | None:
    return hook(claude_payload(command, cwd), cwd)


def tool(name: str, tool_input: dict[str, Any], cwd: Path) -> dict[str, Any] | None:
    return hook(claude_payload("", cwd, tool_name=name, tool_input=tool_input), cwd)


def denied(out: dict[str, Any] | None, rule: str | tuple[str, ...]) -> str:
    """Assert the call was denied by RULE (or by one of several rules that each deny it)."""
    assert out is not None and out.get("permissionDecision") == "deny", out
    reason = str(out["permissionDecisionReason"])
    rules = (rule,) if isinstance(rule, str) else rule
    assert any(reason.endswith(f"[jouet rule: {name}]") for name in rules), reason
    return reason


def passes(out: dict[str, Any] | None) -> None:
    assert out is None or out.get("permissionDecision") != "deny", out


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with jouet's hooks installed for Claude Code (user and project) and for git."""
    repo = make_repo(tmp_path / "repo", {"README.md": "hi\n", "src/app.py": "print(1)\n"})
    for args in (("setup", "claude"), ("setup", "claude", "--project"), ("setup", "git")):
        proc = run_jouet(*args, cwd=repo)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    return repo


def env_dir(name: str) -> str:
    return os.environ[name]


CONFIG = "JOUET_CONFIG_DIR"
STATE = "JOUET_STATE_DIR"
CACHE = "JOUET_CACHE_DIR"
DATA = "JOUET_DATA_DIR"
SYSTEM = "JOUET_SYSTEM_DIR"


# -- jouet's own files through the file tools -------------------------------------------------------


@pytest.mark.parametrize(("tool_name", "where", "name", "extra"), [
    pytest.param("Write", CONFIG, "config.toml", {"content": "[rules]\ndisable = [\"all\"]\n"},
                 id="write-tool-disables-every-rule-in-config"),
    pytest.param("Edit", STATE, "trust.json", {"old_string": "a", "new_string": "b"},
                 id="edit-tool-rewrites-trust-records"),
    pytest.param("MultiEdit", CACHE, "rulesets/0000.marshal", {"edits": [{"old_string": "a", "new_string": ""}]},
                 id="multiedit-rewrites-the-rule-set-cache"),
    pytest.param("Write", CACHE, "luau/" + "0" * 64 + ".lua", {"content": "return {check=function() end}"},
                 id="write-tool-replaces-a-translated-builtin-script"),
    pytest.param("NotebookEdit", DATA, "plugins/user/team/rules/x.toml", {"new_source": ""},
                 id="notebookedit-rewrites-a-pinned-plugin-copy"),
    pytest.param("Write", SYSTEM, "rules/protect.toml", {"content": ""},
                 id="write-tool-empties-an-enforced-rule"),
])
def test_file_tools_cannot_write_jouet_s_directories(repo: Path, tool_name: str, where: str, name: str,
                                                      extra: dict[str, Any]) -> None:
    path = os.path.join(env_dir(where), name)
    reason = denied(tool(tool_name, {"file_path": path, "notebook_path": path, **extra}, repo), "jouet-files")
    assert path in reason or os.path.realpath(path) in reason


def test_write_tool_on_jouet_s_default_config_while_a_variable_points_elsewhere(repo: Path) -> None:
    path = str(Path.home() / ".config" / "jouet" / "config.toml")
    denied(tool("Write", {"file_path": path, "content": "[rules]\ndisable = [\"all\"]\n"}, repo), "jouet-files")


def test_edit_tool_on_a_builtin_rule_in_the_installed_package(repo: Path) -> None:
    path = os.path.join(paths.builtin_rules_dir(), "force-push.toml")
    denied(tool("Edit", {"file_path": path, "old_string": "deny", "new_string": "warn"}, repo), "jouet-files")


def test_write_tool_on_jouet_s_own_code(repo: Path) -> None:
    path = os.path.join(paths.package_dir(), "engine", "decide.py")
    denied(tool("Write", {"file_path": path, "content": "def decide(*a): pass\n"}, repo), "jouet-files")


# -- jouet's own files through the shell ------------------------------------------------------------


def shell_attacks() -> list[Any]:
    config = "$JOUET_CONFIG_DIR_VALUE/config.toml"
    return [
        pytest.param(f"echo 'disable = [\"all\"]' >> {config}", id="redirect-appends-to-config"),
        pytest.param("cd $JOUET_CONFIG_DIR_VALUE && printf '[rules]\\ndisable = [\"all\"]\\n' > config.toml",
                     id="cd-into-config-dir-then-printf-redirect"),
        pytest.param(f"echo x | tee {config}", id="tee-over-config"),
        pytest.param(f"sed -i 's/deny/warn/' {config}", id="sed-i-on-config"),
        pytest.param(f"cp /tmp/evil.toml {config}", id="cp-over-config"),
        pytest.param(f"mv /tmp/evil.toml {config}", id="mv-over-config"),
        pytest.param("rm -rf $JOUET_STATE_DIR_VALUE", id="rm-rf-state-dir"),
        pytest.param("chmod 000 $JOUET_CACHE_DIR_VALUE", id="chmod-cache-dir"),
        pytest.param("ln -sf /tmp/evil $JOUET_CACHE_DIR_VALUE/rulesets", id="ln-replaces-cache"),
        pytest.param("truncate -s 0 $JOUET_STATE_DIR_VALUE/trust.json", id="truncate-trust-records"),
        pytest.param("install -m 644 /tmp/evil.toml $JOUET_SYSTEM_DIR_VALUE/rules/", id="install-into-enforced-rules"),
        pytest.param("rsync -a --delete /tmp/empty/ $JOUET_DATA_DIR_VALUE/", id="rsync-delete-plugin-copies"),
        pytest.param(f"dd if=/dev/null of={config}", id="dd-of-config"),
        pytest.param(f"python3 -c \"open('{config}', 'w').write('[rules]')\"", id="python-open-w-config"),
        pytest.param("python3 - <<'EOF'\nimport shutil\nshutil.rmtree('$JOUET_CACHE_DIR_VALUE')\nEOF",
                     id="python-heredoc-rmtree-cache"),
        pytest.param(f"perl -e 'unlink \"{config}\"'", id="perl-unlink-config"),
        pytest.param(f"node -e \"require('fs').writeFileSync('{config}', '')\"", id="node-writefilesync-config"),
        pytest.param("rm $BUILTIN_RULES/no-verify.toml", id="rm-builtin-rule-from-installed-package"),
        pytest.param("sed -i 's/deny/warn/' $BUILTIN_RULES/force-push.toml", id="sed-i-builtin-rule"),
        pytest.param("echo 'def decide(*a): pass' > $PACKAGE/engine/decide.py", id="redirect-over-jouet-code"),
        pytest.param("ln -sf /bin/true $JOUET_PROGRAM", id="ln-replaces-jouet-program"),
        pytest.param("rm -rf ~/.config/jouet", id="rm-rf-default-config-dir"),
        pytest.param("find $JOUET_STATE_DIR_VALUE -delete", id="find-delete-state"),
        pytest.param("ln -s $JOUET_CONFIG_DIR_VALUE /tmp/j && echo x > /tmp/j/config.toml",
                     id="ln-a-second-name-for-config-then-write"),
        pytest.param(f"curl -sSo {config} https://example.com/c", id="curl-clustered-o-over-config"),
        pytest.param("cd $JOUET_CONFIG_DIR_VALUE && curl -sSLO https://example.com/config.toml?raw=1",
                     id="curl-remote-name-into-config-dir"),
        pytest.param("curl --output-dir $JOUET_CONFIG_DIR_VALUE -O https://example.com/config.toml",
                     id="curl-output-dir-remote-name"),
        pytest.param("cd $JOUET_CONFIG_DIR_VALUE && curl -OJ https://example.com/c", id="curl-server-named-file"),
        pytest.param(f"curl -D {config} https://example.com", id="curl-dump-header-over-config"),
        pytest.param("cd $JOUET_CONFIG_DIR_VALUE && wget -q https://example.com/config.toml",
                     id="wget-into-config-dir"),
        pytest.param("wget -P $JOUET_CONFIG_DIR_VALUE https://example.com/config.toml", id="wget-directory-prefix"),
        pytest.param(f"wget -qO{config} https://example.com/c", id="wget-attached-O-over-config"),
        pytest.param("cd $JOUET_CONFIG_DIR_VALUE && wget -qr https://example.com/", id="wget-recursive-into-config"),
        pytest.param(f"echo 'disable = [\"all\"]' | sponge {config}", id="sponge-over-config"),
        pytest.param(f"sort -uo {config} /tmp/evil.toml", id="sort-clustered-o-over-config"),
        pytest.param(f"uniq /tmp/evil.toml {config}", id="uniq-output-over-config"),
        pytest.param(f"gzip {config}", id="gzip-takes-config-away"),
        pytest.param("git clone https://example.com/evil.git $JOUET_CONFIG_DIR_VALUE/x", id="git-clone-into-config"),
        pytest.param(f"git archive -o {config} HEAD", id="git-archive-over-config"),
        pytest.param("aria2c -d $JOUET_CONFIG_DIR_VALUE https://example.com/config.toml", id="aria2c-into-config"),
        pytest.param(f"http --download -o {config} https://example.com/c", id="httpie-download-over-config"),
        pytest.param("7z x /tmp/evil.7z -o$JOUET_CONFIG_DIR_VALUE", id="7z-extract-into-config"),
        pytest.param(f"sed -n 'w {config}' /tmp/evil.toml", id="sed-w-command-over-config"),
        pytest.param("git --work-tree=$JOUET_CONFIG_DIR_VALUE checkout HEAD -- config.toml",
                     id="git-checkout-into-a-moved-work-tree"),
        pytest.param("GIT_WORK_TREE=$JOUET_CONFIG_DIR_VALUE git restore --source=HEAD -- config.toml",
                     id="git-restore-with-git-work-tree"),
        pytest.param("cd $JOUET_CONFIG_DIR_VALUE && git checkout -- config.toml", id="git-checkout-after-cd"),
        pytest.param("git init $JOUET_CONFIG_DIR_VALUE", id="git-init-in-config-dir"),
        pytest.param(f"awk 'BEGIN{{print \"[rules]\" > \"{config}\"}}'", id="awk-prints-into-config"),
        pytest.param(f"yq -i -p toml -o toml '.rules.disable = [\"all\"]' {config}", id="yq-in-place-on-config"),
        pytest.param(f"gawk -i inplace '{{print}}' {config}", id="gawk-in-place-on-config"),
        pytest.param(f"ruby -pi -e 'sub(/deny/, \"warn\")' {config}", id="ruby-in-place-on-config"),
        pytest.param(f"openssl enc -d -base64 -in /tmp/evil.b64 -out {config}", id="openssl-out-over-config"),
        pytest.param(f"python3 -c \"import sys; open(sys.argv[1], 'w').write('[rules]')\" {config}",
                     id="python-writes-the-path-its-argv-names"),
        pytest.param(f"vim -es -c 'w! {config}' -c q /tmp/evil.toml", id="vim-writes-config-from-a-command"),
        pytest.param("python3 -m json.tool /tmp/evil.json $JOUET_STATE_DIR_VALUE/trust.json",
                     id="json-tool-over-trust-records"),
        pytest.param(f"python3 -c 'import sys; sys.stderr.write(\"[rules]\")' 2> {config}",
                     id="stderr-redirected-over-config"),
        pytest.param(f"exec 3>{config}; echo '[rules]' >&3", id="exec-opens-config-on-fd-3"),
        pytest.param(f"cat /tmp/evil.toml 1<&0 <> {config}", id="read-write-redirection-of-config"),
        pytest.param(f"{{ echo x; echo y >&2; }} 2>> {config}", id="group-stderr-appends-to-config"),
        pytest.param(f"sed 's/x/y/w {config}' /tmp/evil.toml", id="sed-s-w-flag-over-config"),
        # A tree copied into a directory that holds jouet's: its content lands on jouet's files.
        pytest.param("cp -r /tmp/evil/. $JOUET_CONFIG_DIR_VALUE/..", id="cp-r-tree-content-into-config-s-parent"),
        pytest.param("cp -r /tmp/evil/* $JOUET_CONFIG_DIR_VALUE/../", id="cp-r-glob-into-config-s-parent"),
        pytest.param("rsync -a /tmp/evil/ $JOUET_CONFIG_DIR_VALUE/..", id="rsync-tree-content-into-config-s-parent"),
        pytest.param("cp -rT /tmp/evil $JOUET_CONFIG_DIR_VALUE/..", id="cp-r-no-target-directory-onto-parent"),
        pytest.param("cp -r /tmp/evil/$CONFIG_NAME $JOUET_CONFIG_DIR_VALUE/..",
                     id="cp-r-a-tree-named-like-the-config-dir-into-its-parent"),
    ]


def expand(command: str) -> str:
    values = {
        "$JOUET_CONFIG_DIR_VALUE": env_dir(CONFIG), "$JOUET_STATE_DIR_VALUE": env_dir(STATE),
        "$JOUET_CACHE_DIR_VALUE": env_dir(CACHE), "$JOUET_DATA_DIR_VALUE": env_dir(DATA),
        "$JOUET_SYSTEM_DIR_VALUE": env_dir(SYSTEM), "$BUILTIN_RULES": paths.builtin_rules_dir(),
        "$PACKAGE": paths.package_dir(), "$JOUET_PROGRAM": str(BIN / "jouet"),
        "$CONFIG_NAME": os.path.basename(env_dir(CONFIG).rstrip("/")),
    }
    for name, value in values.items():
        command = command.replace(name, value)
    return command


@pytest.mark.parametrize("command", shell_attacks())
def test_shell_cannot_write_jouet_s_files(repo: Path, command: str) -> None:
    for name in (CONFIG, STATE, CACHE, DATA, SYSTEM):
        Path(env_dir(name)).mkdir(parents=True, exist_ok=True)
    denied(bash(expand(command), repo), "jouet-files")


# -- the hooks jouet installed for Claude Code ----------------------------------------------------------


def claude_settings() -> Path:
    return Path.home() / ".claude" / "settings.json"


def test_sed_i_deleting_jouet_from_claude_settings(repo: Path) -> None:
    assert "jouet hook claude pre" in claude_settings().read_text()
    reason = denied(bash(f"sed -i '/jouet/d' {claude_settings()}", repo), "jouet-files")
    assert "Claude Code" in reason


def test_edit_tool_taking_jouet_s_hook_out_of_claude_settings(repo: Path) -> None:
    text = claude_settings().read_text()
    hook_line = next(line for line in text.splitlines() if "jouet" in line and "hook claude pre" in line)
    denied(tool("Edit", {"file_path": str(claude_settings()), "old_string": hook_line, "new_string": ""}, repo),
           "jouet-files")


def test_write_tool_replacing_claude_settings_without_jouet(repo: Path) -> None:
    denied(tool("Write", {"file_path": str(claude_settings()), "content": "{}\n"}, repo), "jouet-files")


def test_edit_tool_renaming_the_hooks_key_of_the_project_settings(repo: Path) -> None:
    settings = repo / ".claude" / "settings.json"
    assert '"hooks"' in settings.read_text()
    denied(tool("Edit", {"file_path": str(settings), "old_string": '"hooks"', "new_string": '"xhooks"'}, repo),
           "jouet-files")


def test_rm_of_the_project_settings_holding_jouet_s_hooks(repo: Path) -> None:
    denied(bash("rm .claude/settings.json", repo), "jouet-files")


def test_disable_all_hooks_written_into_settings_local_json(repo: Path) -> None:
    path = repo / ".claude" / "settings.local.json"
    denied(tool("Write", {"file_path": str(path), "content": '{"disableAllHooks": true}\n'}, repo), "jouet-files")
    denied(bash("echo '{\"disableAllHooks\": true}' > .claude/settings.local.json", repo), "jouet-files")


def test_disable_all_hooks_edited_into_user_settings(repo: Path) -> None:
    denied(tool("Edit", {"file_path": str(claude_settings()), "old_string": "{",
                         "new_string": '{"disableAllHooks": true,'}, repo), "jouet-files")


def test_editing_the_rest_of_claude_settings_stays_allowed(repo: Path) -> None:
    settings = repo / ".claude" / "settings.local.json"
    passes(tool("Write", {"file_path": str(settings), "content": '{"permissions": {"allow": ["Bash(ls:*)"]}}\n'},
                repo))
    passes(tool("Edit", {"file_path": str(claude_settings()), "old_string": '"hooks"',
                         "new_string": '"model": "opus", "hooks"'}, repo))


def test_gemini_settings_that_switch_hooks_off(repo: Path) -> None:
    """A project's .gemini/settings.json overrides the user's: hooksConfig.enabled false, a disabled
    list, tools.enableHooks false or a `hooks` of its own would leave jouet's hook out."""
    path = repo / ".gemini" / "settings.json"
    for content in ('{"hooksConfig": {"enabled": false}}', '{"hooksConfig": {"disabled": ["jouet"]}}',
                    '{"tools": {"enableHooks": false}}', '{"hooks": {}}'):
        denied(tool("Write", {"file_path": str(path), "content": content}, repo), "jouet-files")
    denied(bash("mkdir -p .gemini && echo '{\"hooksConfig\": {\"enabled\": false}}' > .gemini/settings.json", repo),
           "jouet-files")
    denied(bash("cp /tmp/mine.json ~/.gemini/settings.json", repo), "jouet-files")


def test_editing_the_rest_of_gemini_settings_stays_allowed(repo: Path) -> None:
    path = repo / ".gemini" / "settings.json"
    path.parent.mkdir()
    path.write_text('{"model": {"name": "gemini-2.5-pro"}, "tools": {"sandbox": false}}\n')
    passes(tool("Edit", {"file_path": str(path), "old_string": "gemini-2.5-pro", "new_string": "gemini-2.5-flash"},
                repo))
    passes(bash("cat .gemini/settings.json", repo))
    denied(tool("Edit", {"file_path": str(path), "old_string": '"sandbox": false',
                         "new_string": '"sandbox": false, "enableHooks": false'}, repo), "jouet-files")
    denied(tool("Edit", {"file_path": str(path), "old_string": "{",
                         "new_string": '{"hooksConfig": {"enabled": false},'}, repo), "jouet-files")


# -- git's hooks -----------------------------------------------------------------------------------


def test_rm_git_hooks_pre_commit(repo: Path) -> None:
    reason = denied(bash("rm .git/hooks/pre-commit", repo), "jouet-files")
    assert "pre-commit hook jouet installed" in reason


def test_chmod_x_on_git_hooks_pre_commit(repo: Path) -> None:
    denied(bash("chmod -x .git/hooks/pre-commit", repo), "jouet-files")


@pytest.mark.parametrize("command", [
    pytest.param("rm -rf .git/hooks", id="rm-rf-hooks-dir"),
    pytest.param("mv .git/hooks /tmp/hooks-off", id="mv-hooks-dir-away"),
    pytest.param("ln -sf /bin/true .git/hooks/pre-push", id="ln-over-pre-push"),
    pytest.param("echo 'exit 0' > .git/hooks/pre-commit", id="redirect-over-pre-commit"),
    pytest.param("cp /dev/null .git/hooks/post-checkout", id="cp-over-post-checkout"),
    pytest.param("echo 'kill $PPID' > .git/hooks/pre-commit.jouet-chained", id="write-the-chained-hook"),
    pytest.param("cd .git/hooks && rm pre-commit", id="cd-into-hooks-then-rm"),
    pytest.param("cp -r /tmp/evil/. .git/hooks/", id="cp-r-a-tree-into-the-hooks-dir"),
    pytest.param("cp -r /tmp/evil/hooks .git/", id="cp-r-a-tree-named-hooks-into-git-dir"),
    pytest.param("git config core.hooksPath /dev/null", id="git-config-core-hookspath"),
    pytest.param("git config --global core.hooksPath /tmp/nohooks", id="git-config-global-core-hookspath"),
    pytest.param("git config --unset core.hooksPath", id="git-config-unset-core-hookspath"),
    pytest.param("git config --remove-section core", id="git-config-remove-section-core"),
    pytest.param("git config set core.hooksPath /tmp/x", id="git-config-set-subcommand"),
    pytest.param("git config include.path /tmp/evil.gitconfig", id="git-config-include-path"),
    pytest.param("printf '[core]\\n\\thooksPath = /dev/null\\n' >> .git/config", id="append-hookspath-to-git-config"),
    pytest.param("sed -i '/hooksPath/d' ~/.gitconfig", id="sed-i-global-gitconfig-hookspath"),
])
def test_git_hook_attacks(repo: Path, command: str) -> None:
    # Pointing core.hooksPath away is also the hooks-path rule's: whichever runs first denies.
    denied(bash(command, repo), ("jouet-files", "hooks-path") if "hooksPath" in command else "jouet-files")


@pytest.mark.parametrize("command", [
    "git config -f {config} rules.disable all",
    "git config --file={config} --add rules.disable all",
    "git bundle create {config} HEAD",
    "git diff --output={config}",
    "git log --output {config}",
    "git format-patch -o {dir} HEAD",
    "git config -f .claude/settings.json hooks.x y",
])
def test_git_commands_that_write_a_file_of_jouet_s(repo: Path, command: str) -> None:
    """git writes files of its own: `git config -f` any file (in git's format), `git bundle create`,
    `--output`, format-patch's directory. Pointed at jouet's settings, they are writes like any other."""
    config = paths.config_dir()
    filled = command.format(config=os.path.join(config, "config.toml"), dir=config)
    denied(bash(filled, repo), "jouet-files")


@pytest.mark.parametrize("command", ["git config -f /tmp/elsewhere.cfg user.name x", "git diff --output=out.patch",
                                     "git format-patch -o patches HEAD", "git bundle create repo.bundle --all",
                                     "git config -f {config} --get rules.disable"])
def test_git_commands_writing_elsewhere_or_reading_pass(repo: Path, command: str) -> None:
    passes(bash(command.format(config=os.path.join(paths.config_dir(), "config.toml")), repo))


def test_git_config_editing_hookspath_with_the_edit_tool(repo: Path) -> None:
    config = repo / ".git" / "config"
    denied(tool("Edit", {"file_path": str(config), "old_string": "[core]",
                         "new_string": "[core]\n\thooksPath = /dev/null"}, repo), "jouet-files")


def test_a_denied_hook_removal_leaves_git_s_check_running(repo: Path) -> None:
    """As git runs it: the hook the agent was refused to delete still stops a forced push."""
    denied(bash("rm -f .git/hooks/pre-push", repo), "jouet-files")
    remote = repo.parent / "remote.git"
    git(repo.parent, "init", "-q", "--bare", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "origin", "main")
    (repo / "README.md").write_text("rewritten\n")
    git(repo, "commit", "-q", "-a", "--amend", "-m", "rewritten")
    proc = subprocess.run(["git", "push", "-f", "origin", "main"], cwd=repo, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode != 0 and "[jouet rule: force-push]" in proc.stderr


# -- jouet under every name ----------------------------------------------------------------------------


@pytest.mark.parametrize(("command", "rule"), [
    pytest.param("python3 -m jouet_git trust --yes", "trust", id="python-m-jouet-git-trust"),
    pytest.param("python3 -I -m jouet_git.cli trust --revoke", "trust", id="python-m-jouet-git-cli-trust"),
    pytest.param(f"{sys.executable} -m jouet_git plugin remove team", "trust", id="venv-python-m-plugin-remove"),
    pytest.param("python3 -c \"from jouet_git.cli import main; main(['trust', '--yes'])\"", "trust",
                 id="inline-import-of-the-cli-trust"),
    pytest.param("python3 -c 'import sys; from jouet_git.cli import main; sys.exit(main())' trust --yes", "trust",
                 id="inline-cli-reading-sys-argv"),
    pytest.param("pipx run jouet-git trust --yes", "trust", id="pipx-run-jouet-git-trust"),
    pytest.param("uvx jouet-git trust --yes", "trust", id="uvx-jouet-git-trust"),
    pytest.param("uvx --from jouet-git jouet plugin add team https://x/y.git", "trust", id="uvx-from-plugin-add"),
    pytest.param("uv run jouet trust --yes", "trust", id="uv-run-jouet-trust"),
    pytest.param(f"{BIN / 'jouet'} trust --yes", "trust", id="path-to-jouet-script-trust"),
    pytest.param(f"python3 {BIN / 'jouet'} trust --yes", "trust", id="python-runs-jouet-script-trust"),
    pytest.param("python3 -m jouet_git setup claude --uninstall", "jouet-config", id="python-m-setup-uninstall"),
    pytest.param("python3 -c \"from jouet_git.cli import main; main(['setup', 'git', '--uninstall'])\"",
                 "jouet-config", id="inline-cli-setup-git-uninstall"),
    pytest.param("uvx jouet-git setup claude --uninstall", "jouet-config", id="uvx-setup-uninstall"),
    pytest.param("python3 -c 'from jouet_git.trust import store; store.update(lambda r: r.clear())'",
                 "jouet-config", id="inline-python-drives-jouet-internals"),
    pytest.param("python3 -m jouet_git.commands.trust", "jouet-config", id="python-m-a-jouet-module"),
    pytest.param("printf 'from jouet_git.cli import main\\nmain([\"trust\"])\\n' | python3", "jouet-config",
                 id="cli-piped-into-python"),
])
def test_jouet_under_another_name(repo: Path, command: str, rule: str) -> None:
    denied(bash(command, repo), rule)


@pytest.mark.parametrize("command", [
    pytest.param("XDG_CONFIG_HOME=/tmp/cfg git commit -m x", id="xdg-config-home-for-git"),
    pytest.param("export XDG_CONFIG_HOME=/tmp/cfg", id="export-xdg-config-home"),
    pytest.param("GITLEAKS_CONFIG=/tmp/allow.toml git commit -m x", id="gitleaks-config-for-git"),
    pytest.param("GIT_CONFIG_GLOBAL=/dev/null git commit -m x", id="git-config-global-for-git"),
    pytest.param("JOUET_SYSTEM_DIR=/tmp/empty git commit -m x", id="jouet-system-dir-for-git"),
    pytest.param("unset JOUET_SESSION_ID CLAUDECODE; git commit -m x", id="unset-the-agent-session-markers"),
])
def test_variables_that_move_jouet_s_settings(repo: Path, command: str) -> None:
    denied(bash(command, repo), "jouet-config")


# -- reading stays allowed, and ordinary work passes ------------------------------------------------------


@pytest.mark.parametrize("command", [
    pytest.param("cat $JOUET_CONFIG_DIR_VALUE/config.toml", id="cat-config"),
    pytest.param("cp $JOUET_CONFIG_DIR_VALUE/config.toml /tmp/config-backup.toml", id="cp-config-elsewhere"),
    pytest.param("python3 -c \"print(open('$JOUET_CONFIG_DIR_VALUE/config.toml').read())\"", id="python-reads"),
    pytest.param("ls -la .git/hooks && cat .git/hooks/pre-commit", id="read-git-hooks"),
    pytest.param("git config --get core.hooksPath", id="git-config-get"),
    pytest.param("git config user.email me@example.com", id="git-config-other-key"),
    pytest.param("cat ~/.claude/settings.json", id="cat-claude-settings"),
    pytest.param("grep -rn jouet $BUILTIN_RULES", id="grep-builtin-rules"),
    pytest.param("python3 -m jouet_git rule list", id="python-m-jouet-rule-list"),
    pytest.param("echo hi > notes.txt && rm notes.txt", id="ordinary-writes"),
    pytest.param("cp -r src build && mv build out && rsync -a out/ /tmp/jouet-test-copy/ && rm -rf out",
                 id="ordinary-tree-copies"),
    pytest.param("cp -r src .git/src-copy && cp -r /tmp/notes .git/", id="tree-copies-into-git-dir-beside-hooks"),
    pytest.param("python -m pytest --cov=jouet_git tests", id="pytest-with-coverage-of-jouet-git"),
])
def test_reading_stays_allowed(repo: Path, command: str) -> None:
    passes(bash(expand(command), repo))


def test_read_tool_on_jouet_s_files_stays_allowed(repo: Path) -> None:
    for path in (os.path.join(env_dir(CONFIG), "config.toml"), str(claude_settings()),
                 str(repo / ".git" / "hooks" / "pre-commit"), os.path.join(paths.builtin_rules_dir(), "trust.toml")):
        passes(tool("Read", {"file_path": path}, repo))


def test_ordinary_edits_in_the_repository_pass(repo: Path) -> None:
    passes(tool("Edit", {"file_path": str(repo / "src" / "app.py"), "old_string": "1", "new_string": "2"}, repo))
    passes(tool("Write", {"file_path": str(repo / "package.json"), "content": "{}"}, repo))


# -- every harness's file tools, by their kind ---------------------------------------------------------


@pytest.mark.parametrize(("harness", "tool_name", "tool_input"), [
    pytest.param("gemini", "write_file", {"file_path": "{config}", "content": "x"}, id="gemini-write-file"),
    pytest.param("gemini", "replace", {"file_path": "{settings}", "old_string": "jouet hook claude pre",
                                       "new_string": "true"}, id="gemini-replace-in-claude-settings"),
    pytest.param("codex", "apply_patch", {"patch": "*** Begin Patch\n*** Update File: {settings}\n@@\n-jouet\n"
                                                   "*** End Patch\n"}, id="codex-apply-patch"),
    pytest.param("amp", "edit_file", {"path": "{config}", "old_str": "a", "new_str": "b"}, id="amp-edit-file"),
    pytest.param("cline", "write_to_file", {"path": "{hook}", "content": "exit 0\n"}, id="cline-write-to-file"),
    pytest.param("cursor", "Delete", {"path": "{hook}"}, id="cursor-delete"),
    pytest.param("copilot", "str_replace_editor", {"path": "{settings}", "old_str": "hooks", "new_str": "x"},
                 id="copilot-str-replace"),
])
def test_other_harnesses_file_tools_by_kind(repo: Path, harness: str, tool_name: str,
                                            tool_input: dict[str, Any]) -> None:
    """Each harness's adapter gives its file tools the edit kind; the guard judges the kind, the path
    and the input, whatever the tool is called."""
    from jouet_git.call import KIND_EDIT, Call
    from jouet_git.engine.runner import Runner

    values = {"{config}": os.path.join(env_dir(CONFIG), "config.toml"), "{settings}": str(claude_settings()),
              "{hook}": str(repo / ".git" / "hooks" / "pre-commit")}
    data = json.loads(json.dumps(tool_input))
    for key, value in data.items():
        for name, path in values.items():
            value = value.replace(name, path)
        data[key] = value
    path = data.get("file_path") or data.get("path")
    call = Call(harness=harness, tool=tool_name, kind=KIND_EDIT, path=path, cwd=str(repo), input=data)
    decision = Runner(record=False).decide(call)
    assert decision.deny is not None and decision.deny.rule == "jouet-files", decision.to_json()


def test_another_jouet_placed_on_path_is_denied(repo: Path, tmp_path: Path) -> None:
    """A program named jouet put in a directory of PATH would run instead of jouet (a project's hook
    command is a bare `jouet`); the same name elsewhere is just a file."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    for command in (f"printf '#!/bin/sh\\nexit 0\\n' > {bin_dir}/jouet", f"ln -sf /bin/true {bin_dir}/jouet",
                    f"cp /bin/true {bin_dir}/jouet"):
        payload = claude_payload(command, repo)
        proc = run_jouet("hook", "claude", "pre", input=payload, cwd=repo, env=env)
        out = json.loads(proc.stdout)["hookSpecificOutput"]
        assert "a program named jouet on PATH" in denied(out, "jouet-files")
    passes(bash("echo hi > notes/jouet", repo))


@pytest.mark.parametrize("command", ["pip uninstall -y jouet-git", "python3 -m pip uninstall -y jouet_git",
                                     "sudo pipx uninstall jouet-git", "uv tool uninstall jouet-git"])
def test_removing_jouet_s_package_is_denied(repo: Path, command: str) -> None:
    denied(bash(command, repo), "jouet-config")
