"""shell/jouetcmd.py: jouet under every name it runs under is read as `jouet`."""

from __future__ import annotations

import pytest

from jouet_git.shell import parse


def first(command: str) -> tuple[str, list[str]]:
    found = parse(command).commands[0]
    return found.program, found.argv


@pytest.mark.parametrize(("command", "argv"), [
    ("jouet trust --yes", ["jouet", "trust", "--yes"]),
    ("/home/me/.local/bin/jouet trust", ["/home/me/.local/bin/jouet", "trust"]),
    ("python3 -m jouet_git trust --yes", ["jouet", "trust", "--yes"]),
    ("python -m jouet_git.cli setup claude --uninstall", ["jouet", "setup", "claude", "--uninstall"]),
    ("python3.12 -I -m jouet_git.__main__ trust", ["jouet", "trust"]),
    ("python3 -Wignore -mjouet_git trust", ["jouet", "trust"]),
    ("python3 -W ignore -m jouet_git trust", ["jouet", "trust"]),
    ("/opt/venv/bin/python -m jouet_git trust", ["jouet", "trust"]),
    ("python3 /home/me/.local/bin/jouet trust", ["jouet", "trust"]),
    ("python3 -c \"from jouet_git.cli import main; main(['trust', '--yes'])\"", ["jouet", "trust", "--yes"]),
    ("python3 -c 'import sys\nfrom jouet_git.cli import main\nsys.exit(main([\"trust\"]))'", ["jouet", "trust"]),
    ("python3 -c 'from jouet_git.cli import main; raise SystemExit(main())' trust --yes",
     ["jouet", "trust", "--yes"]),
    ("python3 -c 'import jouet_git.cli as c; c.main((\"trust\",))'", ["jouet", "trust"]),
    ("pipx run jouet-git trust", ["jouet", "trust"]),
    ("pipx run --spec jouet-git==1.0 jouet trust", ["jouet", "trust"]),
    ("pipx run --spec git+https://github.com/me/jouet-git.git@v1 jouet trust", ["jouet", "trust"]),
    ("uvx jouet-git trust", ["jouet", "trust"]),
    ("uvx --from jouet-git jouet trust", ["jouet", "trust"]),
    ("uvx --from 'jouet-git[extra]>=1' jouet trust", ["jouet", "trust"]),
    ("uv tool run jouet-git trust", ["jouet", "trust"]),
    ("uv run jouet trust", ["jouet", "trust"]),
    ("uv run --with x python -m jouet_git trust", ["jouet", "trust"]),
    ("sudo -u me python3 -m jouet_git trust", ["jouet", "trust"]),
])
def test_every_name_of_jouet_is_jouet(command: str, argv: list[str]) -> None:
    assert first(command) == ("jouet", argv)


@pytest.mark.parametrize(("command", "program"), [
    ("python3 script.py", "python3"),
    ("python3 -m pytest --cov=jouet_git", "python3"),
    ("python3 -m jouet_git_helpers", "python3"),
    ("python3 -c 'import jouet_git; print(jouet_git.__file__)'", "python3"),
    ("python3 -c \"from jouet_git.cli import main; main(['rule', 'list']); open('x', 'w')\"", "python3"),
    ("python3 -c 'from jouet_git.cli import main; main(ARGS)'", "python3"),
    ("python3 --version", "python3"),
    ("uv run pytest -x", "pytest"),  # the reader looks through `uv run` to what it runs
    ("uvx ruff check", "uvx"),
    ("pipx run black .", "pipx"),
    ("pipx install jouet-git", "pipx"),
    ("jouetx trust", "jouetx"),
])
def test_other_programs_stay_themselves(command: str, program: str) -> None:
    assert first(command)[0] == program
