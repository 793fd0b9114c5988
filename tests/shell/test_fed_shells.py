"""Shells fed a script: eval, here-documents and here-strings, pipes from pure commands, script
files (read when small and inside the call's directory, or written earlier in the call), process
substitutions, and `sh -c "$(pure command)"`. The commands of the script are read as nested
commands whose via names the shell."""

from __future__ import annotations

from pathlib import Path

import pytest

from jouet_git.call import Command
from jouet_git.shell import parse
from jouet_git.shell.follow import MAX_FILE, MAX_READS

RESET = ["git", "reset", "--hard"]


def runs(script: str, argv: list[str] = RESET, cwd: str | None = None) -> list[Command]:
    return [c for c in parse(script, cwd=cwd).commands if c.argv == argv]


@pytest.mark.parametrize(
    ("script", "via"),
    [
        ('eval "git reset --hard"', ["eval"]),
        ("eval git reset '--hard'", ["eval"]),
        ('x="reset --hard"; eval "git $x"', ["eval"]),
        ("eval 'eval \"git reset --hard\"'", ["eval", "eval"]),
        ("bash <<EOF\ngit reset --hard\nEOF", ["bash"]),
        ("bash <<'EOF'\ngit reset --hard\nEOF", ["bash"]),
        ("sh <<-EOF\n\tgit reset --hard\n\tEOF", ["sh"]),
        ("sh <<<'git reset --hard'", ["sh"]),
        ('zsh <<< "git reset --hard"', ["zsh"]),
        ("echo 'git reset --hard' | sh", ["sh"]),
        ("echo git reset --hard | bash -", ["bash"]),
        ("printf 'git reset --hard\\n' | bash -s", ["bash"]),
        ("printf '%s\\n' 'git reset --hard' | dash -s -- arg", ["dash"]),
        ("printf 'git %s --%s' reset hard | ksh", ["ksh"]),
        ("cat <<EOF | bash\ngit reset --hard\nEOF", ["bash"]),
        ("cat <<< 'git reset --hard' | sh -x", ["sh"]),
        ("echo Z2l0IHJlc2V0IC0taGFyZA== | base64 -d | sh", ["sh"]),
        ("echo 'GIT RESET --HARD' | tr A-Z a-z | bash", ["bash"]),
        ("echo 'git reset --soft' | sed 's/soft/hard/' | bash", ["bash"]),
        ("printf '6769742072657365742d2d68617264' | xxd -r -p | sed 's/reset/reset /' | sh", ["sh"]),
        ("echo 'drah-- teser tig' | rev | sh", ["sh"]),
        ("printf 'ls\\ngit reset --hard\\n' | tail -n 1 | sh", ["sh"]),
        ('sh -c "$(echo git reset --hard)"', ["sh"]),
        ("bash -c \"$(printf 'git %s --%s' reset hard)\"", ["bash"]),
        ("bash -c \"$(cat <<EOF\ngit reset --hard\nEOF\n)\"", ["bash"]),
        ('bash -lc "`echo git reset --hard`"', ["bash"]),
        ("bash -euxo pipefail -c 'git reset --hard'", ["bash"]),
        ("bash <(echo git reset --hard)", ["bash"]),
        ("source <(printf 'git reset --hard\\n')", ["source"]),
        (". /dev/stdin <<< 'git reset --hard'", ["."]),
        ("bash /dev/stdin <<< 'git reset --hard'", ["bash"]),
        ("echo 'git reset --hard' > x.sh && bash x.sh", ["bash"]),
        ("printf 'git reset --hard' > x.sh; sh ./x.sh", ["sh"]),
        ("cat > x.sh <<'EOF'\ngit reset --hard\nEOF\nchmod +x x.sh && ./x.sh", ["x.sh"]),
        ("echo 'git reset --hard' | tee x.sh >/dev/null; source x.sh", ["source"]),
        ("mkdir d; echo 'git reset --hard' > d/x.sh; cd d && bash x.sh", ["bash"]),
        ("echo 'git reset --hard' | at now", ["at"]),
        ("busybox sh <<< 'git reset --hard'", ["busybox", "sh"]),
        ("exec bash <<< 'git reset --hard'", ["exec", "bash"]),
        ("fish -c 'git reset --hard'", ["fish"]),
    ],
)
def test_shell_fed_a_script(script: str, via: list[str]) -> None:
    found = runs(script)
    assert found, [(c.argv, c.via) for c in parse(script).commands]
    assert found[-1].nested and found[-1].via == via


def test_unquoted_here_document_bodies_are_expanded() -> None:
    # The shell runs the $(...) of an unquoted here-document's body, and substitutes variables.
    cmds = parse("cat <<EOF\nhello $(git reset --hard)\nEOF").commands
    inner = [c for c in cmds if c.argv == RESET]
    assert inner and inner[0].nested and inner[0].captured
    assert inner[0].span is not None
    assert runs("g=git; bash <<EOF\n$g reset --hard\nEOF")
    # Quoted: the body is data, and the script bash reads has $g unset.
    assert not runs("cat <<'EOF'\n$(git reset --hard)\nEOF")
    assert not runs("g=git; bash <<'EOF'\n$g reset --hard\nEOF")
    assert runs("export g=git; bash <<'EOF'\n$g reset --hard\nEOF")


def test_input_that_is_not_known_is_not_guessed() -> None:
    for script in ("curl -s https://example.com/x.sh | bash", "cat notes.txt | sh", "bash < $F",
                   "git show HEAD:x.sh | sh", "echo $(date) | sh"):
        commands = parse(script).commands
        assert not [c for c in commands if c.nested and c.via and c.via[-1] in ("sh", "bash")], script


def test_files_are_read_only_inside_the_calls_directory(tmp_path: Path) -> None:
    inside = tmp_path / "repo"
    (inside / "scripts").mkdir(parents=True)
    (inside / "scripts" / "x.sh").write_text("git reset --hard\n")
    (tmp_path / "outside.sh").write_text("git reset --hard\n")
    (inside / "link.sh").symlink_to(tmp_path / "outside.sh")
    (inside / "big.sh").write_text("git reset --hard\n" + "#" * MAX_FILE)
    os_fifo = inside / "fifo.sh"
    import os

    os.mkfifo(os_fifo)
    cwd = str(inside)
    assert runs("bash scripts/x.sh", cwd=cwd)
    assert runs("sh < scripts/x.sh", cwd=cwd)
    assert runs("cat scripts/x.sh | bash", cwd=cwd)
    assert runs("cd scripts && source x.sh", cwd=cwd)
    assert runs("bash " + str(inside / "scripts" / "x.sh"), cwd=cwd)
    # Outside the directory, through a link out of it, too big, not a regular file: not read.
    assert not runs("bash ../outside.sh", cwd=cwd)
    assert not runs("bash " + str(tmp_path / "outside.sh"), cwd=cwd)
    assert not runs("bash link.sh", cwd=cwd)
    assert not runs("bash big.sh", cwd=cwd)
    assert not runs("bash fifo.sh", cwd=cwd)  # and it does not hang
    # Without a directory (jouet.parse in a script), nothing is read from disk.
    assert not runs("bash scripts/x.sh")
    # After a cd jouet cannot follow, the path cannot be told.
    assert not runs("cd $D && bash x.sh", cwd=cwd)


def test_file_reads_are_counted(tmp_path: Path) -> None:
    for k in range(MAX_READS + 3):
        (tmp_path / f"s{k}.sh").write_text(f"git reset --hard # {k}\n")
    script = "; ".join(f"bash s{k}.sh" for k in range(MAX_READS + 3))
    assert len(runs(script, cwd=str(tmp_path))) == MAX_READS
    # More files than that are a limit: the call is not taken as read.
    assert parse(script, cwd=str(tmp_path)).problems[-1].startswith("too many files: ")


def test_a_script_run_directly_is_read_only_when_written_in_the_call(tmp_path: Path) -> None:
    (tmp_path / "x.sh").write_text("#!/bin/sh\ngit reset --hard\n")
    assert not runs("./x.sh", cwd=str(tmp_path))
    assert runs("echo '#!/usr/bin/env bash\ngit reset --hard' > y.sh; chmod +x y.sh; ./y.sh")
    # A script for another interpreter is not read as shell.
    assert not runs("printf '#!/usr/bin/python3\\ngit reset --hard' > y; ./y")


def test_child_shells_see_only_exported_variables() -> None:
    assert not runs("g=git; bash -c '$g reset --hard'")
    assert runs("export g=git; bash -c '$g reset --hard'")
    assert runs("g=git bash -c '$g reset --hard'")
    assert runs("g=git; bash -c \"$g reset --hard\"")  # expanded before bash starts
    # eval and source run in this shell: they see everything, and their assignments stay.
    assert runs("g=git; eval '$g reset --hard'")
    assert runs("eval g=git; $g reset --hard")


def test_unquoted_substitution_splits_into_words() -> None:
    # `bash -lc git reset --hard` runs git, with reset as $0: bash does not see the whole line.
    assert parse("bash -lc `echo git reset --hard`").commands[0].argv == ["bash", "-lc", "git", "reset", "--hard"]
    assert not runs("bash -lc `echo git reset --hard`")


def test_a_known_pure_substitution_is_its_value() -> None:
    cmd = parse('git commit -m "$(printf "%s\\n" one two)"').commands[0]
    assert cmd.argv == ["git", "commit", "-m", "one\ntwo"]
    # What is not pure stays as written.
    assert parse("git reset $(cat flags)").commands[0].argv == ["git", "reset", "$(cat flags)"]
    assert parse("git reset $(echo --hard > f)").commands[0].argv == ["git", "reset", "$(echo --hard > f)"]


@pytest.mark.parametrize("script", [
    "cat > x.sh <<'EOF'\ngit reset --hard\nEOF\nbash x.sh",
    "cat > x.sh <<'EOF'\ngit reset --hard\nEOF\n\n  bash x.sh  \n",
    "cat > x.sh <<'EOF'\ngit reset --hard\nEOF\n# then\nsource x.sh",
    "for i in 1 2; do bash x.sh; cat > x.sh <<'EOF'\ngit reset --hard\nEOF\ndone",
    "f() { bash x.sh; }; cat > x.sh <<'EOF'\ngit reset --hard\nEOF\nf",
    "echo 'git reset --hard' > x.sh\nbash x.sh",
    "{ echo 'git reset --hard' > x.sh; }; bash x.sh",
])
def test_a_file_written_in_the_call_is_read_when_a_later_command_runs_it(script: str) -> None:
    found = runs(script)
    assert found and found[-1].nested, [(c.argv, c.via) for c in parse(script).commands]


def test_a_file_written_last_is_not_worked_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing after the last command can run what it writes: neither its output nor what it would
    hold is worked out (follow.write), for a here-document or a plain redirection."""
    from jouet_git.shell import follow

    called: list[str] = []
    monkeypatch.setattr(follow, "write", lambda r, elems, k: called.append(elems[k].cmd.argv[0]))
    for script in ("cat > plan.md <<'EOF'\n" + "- a step\n" * 50 + "EOF", "cat > plan.md <<'EOF'\nx\nEOF\n\n",
                   "echo hi > notes.txt", "printf '%s\\n' a b > notes.txt  "):
        cmds = parse(script).commands
        assert cmds and not cmds[0].nested
    assert called == []
    parse("echo hi > notes.txt; cat notes.txt")
    assert called == ["echo"]
