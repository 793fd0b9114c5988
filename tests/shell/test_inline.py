"""Inline programs: literal commands that python, node, perl, ruby, php, awk and lua programs hand
to the language's ways of running a command are read as commands whose via ends with the
interpreter. Programs are read, never run; Python with ast."""

from __future__ import annotations

import subprocess
import sys

import pytest

from jouet_git.call import Command
from jouet_git.shell import parse
from jouet_git.shell.inline import UNKNOWN, commands, source

RESET = ["git", "reset", "--hard"]


def inner(script: str) -> list[Command]:
    return [c for c in parse(script).commands if c.argv == RESET]


PY = [
    "import os; os.system('git reset --hard')",
    "import os; os.popen('git reset --hard').read()",
    "from os import system as s; s('git reset --hard')",
    "import subprocess; subprocess.run(['git', 'reset', '--hard'])",
    "import subprocess as sp; sp.check_call('git reset --hard', shell=True)",
    "from subprocess import Popen; Popen(['git', 'reset', '--hard']).wait()",
    "import subprocess; subprocess.check_output(args=['git', 'reset', '--hard'])",
    "import subprocess; subprocess.call('git reset --hard'.split())",
    "import subprocess, shlex; subprocess.run(shlex.split('git reset --hard'))",
    "import subprocess; subprocess.getoutput('git reset --hard')",
    "import os; c = 'git reset'; os.system(c + ' --hard')",
    "import os; m = '--hard'; os.system(f'git reset {m}')",
    "import os; os.system('git %s --%s' % ('reset', 'hard'))",
    "import os; os.system('git {} --hard'.format('reset'))",
    "import os; os.system(' '.join(['git', 'reset', '--hard']))",
    "import os; a = ['git']; a += ['reset', '--hard']; os.system(' '.join(a))",
    "import os; os.execvp('git', ['git', 'reset', '--hard'])",
    "import os; os.execlp('git', 'git', 'reset', '--hard')",
    "import os; os.spawnvp(os.P_WAIT, 'git', ['git', 'reset', '--hard'])",
    "import os; os.posix_spawnp('git', ['git', 'reset', '--hard'], {})",
    "import pty; pty.spawn(['git', 'reset', '--hard'])",
    "__import__('os').system('git reset --hard')",
    "exec(\"import os; os.system('git reset --hard')\")",
    "import os\ndef f():\n    os.system('git reset --hard')\nf()",
    "import os, base64; os.system(base64.b64decode('Z2l0IHJlc2V0IC0taGFyZA==').decode())",
    "import asyncio; asyncio.run(asyncio.create_subprocess_exec('git', 'reset', '--hard'))",
]


@pytest.mark.parametrize("code", PY)
def test_python(code: str) -> None:
    quoted = "'" + code.replace("'", "'\\''") + "'"
    found = inner(f"python3 -c {quoted}")
    assert found, (code, [(c.argv, c.via) for c in parse(f"python3 -c {quoted}").commands])
    assert found[-1].nested and found[-1].via[0] == "python3"


@pytest.mark.parametrize(
    "script",
    [
        "python3 - <<'EOF'\nimport os\nos.system('git reset --hard')\nEOF",
        "python3 <<EOF\nimport subprocess\nsubprocess.run(['git', 'reset', '--hard'])\nEOF",
        "echo \"import os; os.system('git reset --hard')\" | python",
        "python3.12 -Bc \"import os; os.system('git reset --hard')\"",
        "uv run python -c \"import os; os.system('git reset --hard')\"",
        "printf \"import os\\nos.system('git reset --hard')\" > x.py && python3 x.py",
        "node -e 'require(\"child_process\").execSync(\"git reset --hard\")'",
        "node -e 'const cp = require(\"child_process\"); cp.exec(\"git reset --hard\")'",
        "node -e 'const {spawnSync} = require(\"child_process\"); spawnSync(\"git\", [\"reset\", \"--hard\"])'",
        "node -e 'const {spawn} = require(\"child_process\"); spawn(\"git reset --hard\", {shell: true})'",
        "node -e 'const c = \"--hard\"; require(\"child_process\").execSync(`git reset ${c}`)'",
        "node - <<'EOF'\nimport { execFileSync } from 'node:child_process';\n"
        "execFileSync('git', ['reset', '--hard']);\nEOF",
        "bun -e 'await $`git reset --hard`'",
        "bun -e 'Bun.spawnSync([\"git\", \"reset\", \"--hard\"])'",
        "deno eval 'new Deno.Command(\"git\", {args: [\"reset\", \"--hard\"]}).outputSync()'",
        "perl -e 'system(\"git reset --hard\")'",
        "perl -e 'system \"git\", \"reset\", \"--hard\"'",
        "perl -e 'my $c = \"git reset --hard\"; system $c'",
        "perl -e 'my $m = \"--hard\"; system(\"git reset $m\")'",
        "perl -e '`git reset --hard`'",
        "perl -e 'qx{git reset --hard}'",
        "perl -e 'open(my $f, \"-|\", \"git\", \"reset\", \"--hard\")'",
        "perl -e 'open(F, \"git reset --hard |\")'",
        "perl -le 'exec(\"git\", \"reset\", \"--hard\")'",
        "ruby -e 'system(\"git reset --hard\")'",
        "ruby -e 'system(\"git\", \"reset\", \"--hard\")'",
        "ruby -e '`git reset --hard`'",
        "ruby -e '%x(git reset --hard)'",
        "ruby -e 'm = \"--hard\"; system(\"git reset #{m}\")'",
        "ruby -e 'require \"open3\"; Open3.capture2(\"git reset --hard\")'",
        "ruby -e 'IO.popen([\"git\", \"reset\", \"--hard\"]).read'",
        "php -r 'shell_exec(\"git reset --hard\");'",
        "php -r 'system(\"git reset --hard\");'",
        "php -r '$c = \"git reset --hard\"; passthru($c);'",
        "php -r 'echo `git reset --hard`;'",
        "awk 'BEGIN { system(\"git reset --hard\") }'",
        "gawk 'BEGIN { c = \"git reset --hard\"; system(c) }'",
        "mawk -v c='git reset --hard' 'BEGIN { system(c) }'",
        "awk 'BEGIN { system(\"git reset \" \"--hard\") }'",
        "awk 'BEGIN { print \"x\" | \"git reset --hard\" }'",
        "awk 'BEGIN { \"git reset --hard\" | getline x }'",
        "lua -e 'os.execute(\"git reset --hard\")'",
        "lua -e 'io.popen(\"git reset --hard\")'",
    ],
)
def test_other_forms(script: str) -> None:
    found = inner(script)
    assert found, [(c.argv, c.via) for c in parse(script).commands]
    assert found[-1].nested


@pytest.mark.parametrize(
    "script",
    [
        "python3 -c 'print(\"git reset --hard\")'",
        "python3 -c 'x = \"git reset --hard\"'",
        "python3 -c 'import subprocess; subprocess.run(\"git reset --hard\")'",  # no shell: no such program
        "python3 -m pip install 'git reset --hard'",
        "python3 script.py 'git reset --hard'",
        "node -e 'console.log(\"git reset --hard\")'",
        "node -e '/x/.exec(\"git reset --hard\")'",
        "perl -ne 'print if /system\\(\"git reset --hard\"\\)/'",
        "perl -e 'print \"git reset --hard\"'",
        "ruby -e 'puts \"git reset --hard\"'",
        "php -r 'echo \"git reset --hard\";'",
        "awk '{ print \"git reset --hard\" }'",
        "awk -F: '{ print $1 }' /etc/passwd",
        "awk 'a || b { print }'",
    ],
)
def test_no_command_where_none_runs(script: str) -> None:
    assert not inner(script), [(c.argv, c.via) for c in parse(script).commands]


def test_unknown_values_are_kept_as_unknown_words() -> None:
    found = commands("python", "import os, sys\nos.system('git reset ' + sys.argv[1])")
    assert found == [("shell", f"git reset {UNKNOWN}")]
    assert commands("python", "import subprocess\nsubprocess.run(['git', 'push', *extra])") == [
        ("argv", ["git", "push", UNKNOWN])]
    assert commands("perl", "system($ENV{CMD})") == [("shell", UNKNOWN)]


def test_sources() -> None:
    assert source("python", ["python3", "-I", "-W", "ignore", "-c", "x"]) == ("code", "x", {})
    assert source("python", ["python3", "-Bc", "x"]) == ("code", "x", {})
    assert source("python", ["python3", "-"]) == ("stdin", None, {})
    assert source("python", ["python3"]) == ("stdin", None, {})
    assert source("python", ["python3", "-m", "pytest"])[0] == "none"
    assert source("python", ["python3", "x.py", "-c"]) == ("file", "x.py", {})
    assert source("perl", ["perl", "-ne", "a", "-e", "b", "f"]) == ("code", "a\nb", {})
    assert source("perl", ["perl", "-I", "lib", "x.pl"]) == ("file", "x.pl", {})
    assert source("ruby", ["ruby", "-rjson", "-e", "x"]) == ("code", "x", {})
    assert source("awk", ["awk", "-F", ":", "-v", "a=b", "{x}", "f"]) == ("code", "{x}", {"a": "b"})
    assert source("js", ["node", "--eval=x"]) == ("code", "x", {})
    assert source("php", ["php", "-r", "x"]) == ("code", "x", {})


def test_ast_is_imported_only_for_python() -> None:
    program = """
import json, sys
from jouet_git.shell import parse
parse("perl -e 'system(1)'; awk '{print}'; node -e 'x'", 0)
before = "ast" in sys.modules
parse("python3 -c 'import os; os.system(1)'", 0)
print(json.dumps([before, "ast" in sys.modules]))
"""
    proc = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "[false, true]"


def test_programs_that_do_not_parse_run_nothing() -> None:
    assert not inner("python3 -c 'import os; os.system(\"git reset --hard\"'")
    assert commands("python", "(" * 10000) == []  # too deep for ast: nothing, no error


READS = [
    ("python", "print(open('.env').read())", [], [".env"]),
    ("python", "print(open('.e' + 'nv').read())", [], [".env"]),
    ("python", "exec(\"print(open('.env').read())\")", [], [".env"]),
    ("python", "from pathlib import Path; print((Path.home() / '.netrc').read_text())", [], ["~/.netrc"]),
    ("python", "import os; os.open('.env', os.O_WRONLY | os.O_CREAT)", [], []),
    ("python", "open('.env', 'w').write('x')", [], []),
    ("python", "open('.env', 'r+').read()", [], [".env"]),
    ("python", "import sys; print(open(sys.argv[1]).read())", [".env"], [".env"]),
    ("python", "import os; print(open(os.environ['F']).read())", [], []),
    ("js", "const t = require('fs').readFileSync('.env', 'utf8'); console.log(t)", [], [".env"]),
    ("js", "window.open('https://example.com')", [], []),
    ("js", "require('fs').writeFileSync('.env', 'x')", [], []),
    ("ruby", "File.open('.env', 'w') { |f| f.write 'x' }", [], []),
    ("ruby", "x = File.read('.env'); puts x", [], [".env"]),
    ("perl", 'open(my $f, ">", ".env")', [], []),
    ("perl", 'my $p = ".env"; open(F, $p); print <F>', [], [".env"]),
    ("perl", "print while <>", [".env"], [".env"]),
    ("php", "$f = fopen('.env', 'r'); echo fread($f, 99);", [], [".env"]),
    ("php", "$f = fopen('.env', 'w');", [], []),
    ("awk", 'BEGIN { while ((getline l < ".env") > 0) print l }', [], [".env"]),
    ("awk", "{ print $1 < 3 }", [], []),
    ("lua", "for l in io.lines('.env') do print(l) end", [], [".env"]),
    ("lua", "io.open('.env', 'w'):write('x')", [], []),
]


@pytest.mark.parametrize(("language", "code", "operands", "reads"), READS)
def test_the_files_an_inline_program_reads(language: str, code: str, operands: list[str], reads: list[str]) -> None:
    from jouet_git.shell.inline import inspect

    assert inspect(language, code, {}, operands)[1] == reads


@pytest.mark.parametrize(("script", "reads"), [
    ("python3 -c \"print(open('.env').read())\"", [".env"]),
    ("python3 - <<'EOF'\nprint(open('.env').read())\nEOF", [".env"]),
    ("echo \"print(open('.env').read())\" | python3", [".env"]),
    ("perl -lne print .env", [".env"]),
    ("ruby -ne 'print' .env", [".env"]),
    ("python3 -c \"import sys; print(open(sys.argv[1]).read())\" .env", [".env"]),
    ("python3 -c 'print(1)' .env", []),
])
def test_the_reader_puts_an_inline_programs_reads_on_its_command(script: str, reads: list[str]) -> None:
    from jouet_git.shell import parse

    interpreter = [c for c in parse(script).commands if c.program in ("python3", "perl", "ruby")]
    assert interpreter[0].reads == reads


def test_python_without_a_known_call_is_not_parsed() -> None:
    program = """
import json, sys
from jouet_git.shell import parse
parse("python3 -c 'print(1)'; python3 -c 'import sys; print(sys.version)'", 0)
print(json.dumps("ast" in sys.modules))
"""
    proc = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "false"


@pytest.mark.parametrize("code", [
    *PY, *(code for language, code, _, _ in READS if language == "python"),
    "subprocess.run(['git', 'reset', '--hard'])",  # no import, still read as written
    "os . system ('git reset --hard')",
    "print(open('.env').read())",
    "exec('os.system(\"git reset --hard\")')",
    "shutil.copy('.env', '/tmp/x')",
    "x = pathlib.Path('.env'); print(x.read_text())",
    "os.execvp('git', ['git', 'reset', '--hard'])",
    "dotenv.dotenv_values('.env')",
    "print(1)",
    "import sys; print(sys.version)",
    "from subprocess import run as go; go(['git', 'reset', '--hard'])",
    "from builtins import open as o; print(o('.env').read())",
    "import subprocess as s, os; s.check_call(['git', 'reset', '--hard'])",
    "ｏｓ.ｓｙｓｔｅｍ('git reset --hard')",  # Python reads these names as os.system
    "ｐｒｉｎｔ(ｏｐｅｎ('.env').read())",
])
def test_skipping_the_parse_finds_what_parsing_finds(code: str) -> None:
    from jouet_git.shell.inline import _python_reader, inspect

    reader = _python_reader(code, 0, [".env"])
    full = (reader.found, reader.reads) if reader is not None else ([], [])
    assert inspect("python", code, {}, [".env"]) == full

