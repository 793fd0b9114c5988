from testing import run_jouet


def test_help_lists_every_command() -> None:
    proc = run_jouet("--help")
    assert proc.returncode == 0
    for name in ("check", "parse", "rule", "setup", "hook", "trust", "plugin", "claim", "secrets"):
        assert f"  {name}" in proc.stdout


def test_unknown_command_is_a_usage_error() -> None:
    proc = run_jouet("frobnicate")
    assert proc.returncode == 2
    assert "unknown command 'frobnicate'" in proc.stderr
