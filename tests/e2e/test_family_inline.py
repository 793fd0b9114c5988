"""Family: inline programs (python -c and here-documents, node -e, perl -e, ruby -e, php -r, awk).
Each variant is denied by jouet and really loses the work when bash runs it in a twin repository;
the controls (programs that only print, or run read-only git commands) are left alone."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing.realrun import (
    FORCED,
    MODIFIED,
    PRINTED,
    STAGED,
    UNTRACKED,
    check_control,
    check_variant,
    skip_unless_installed,
)

VARIANTS = [
    ("python3 -c 'import os; os.system(\"git reset --hard\")'", "reset-hard", MODIFIED),
    ("python3 -c 'import subprocess; subprocess.run([\"git\", \"checkout\", \"--\", \"a.txt\"])'",
     "discard-changes", MODIFIED),
    ("python3 -c 'import subprocess as sp; c = \"git clean -f\"; sp.run(c, shell=True)'",
     "clean-untracked", UNTRACKED),
    ("python3 - <<'EOF'\nfrom subprocess import check_call\ncheck_call(['git', 'add', '-A'])\nEOF",
     "git-add-all", STAGED),
    ("python3 <<EOF\nimport os\nos.execvp('git', ['git', 'reset', '--hard'])\nEOF", "reset-hard", MODIFIED),
    ("python3 -c 'import os; m = \"--force\"; os.system(f\"git push {m} origin main\")'", "force-push", FORCED),
    ("node -e 'require(\"child_process\").execSync(\"git reset --hard\")'", "reset-hard", MODIFIED),
    ("node -e 'const {spawnSync} = require(\"child_process\"); spawnSync(\"git\", [\"clean\", \"-f\"])'",
     "clean-untracked", UNTRACKED),
    ("perl -e 'system(\"git reset --hard\")'", "reset-hard", MODIFIED),
    ("perl -e 'system \"git\", \"checkout\", \"--\", \"a.txt\"'", "discard-changes", MODIFIED),
    ("perl -e 'my $c = \"git clean -f\"; `$c`'", "clean-untracked", UNTRACKED),
    ("ruby -e 'system(\"git\", \"reset\", \"--hard\")'", "reset-hard", MODIFIED),
    ("ruby -e '%x(git clean -f)'", "clean-untracked", UNTRACKED),
    ("php -r 'shell_exec(\"git reset --hard\");'", "reset-hard", MODIFIED),
    ("awk 'BEGIN { system(\"git reset --hard\") }'", "reset-hard", MODIFIED),
    ("awk -v c='git clean -f' 'BEGIN { system(c) }'", "clean-untracked", UNTRACKED),
    ("gawk 'BEGIN { \"git checkout -- a.txt\" | getline x }'", "discard-changes", MODIFIED),
    # Files the program reads in its own language: the secret in .env reaches the output.
    ("python3 -c \"print(open('.env').read())\"", "secret-files", PRINTED),
    ("cat .env | python3 -c 'import sys; print(sys.stdin.read())'", "secret-files", PRINTED),
    ("cat .env | node -e 'process.stdin.pipe(process.stdout)'", "secret-files", PRINTED),
    ("cat .env | perl -e 'print <STDIN>'", "secret-files", PRINTED),
    ("python3 -c \"import io; print(io.open('.env').read())\"", "secret-files", PRINTED),
    ("python3 -c \"from pathlib import Path; print(Path('.env').read_text())\"", "secret-files", PRINTED),
    ("python3 -c \"import pathlib as p; print(p.Path('.env').read_bytes())\"", "secret-files", PRINTED),
    ("python3 -c \"import os; print(os.read(os.open('.env', os.O_RDONLY), 999))\"", "secret-files", PRINTED),
    ("python3 -c \"import shutil, sys; shutil.copyfileobj(open('.env'), sys.stdout)\"", "secret-files", PRINTED),
    ("python3 -c \"p = '.env'\nwith open(p) as f: print(f.read())\"", "secret-files", PRINTED),
    ("python3 -c \"import sys; print(open(sys.argv[1]).read())\" .env", "secret-files", PRINTED),
    ("python3 - <<'EOF'\nwith open('.env') as f:\n    print(f.read())\nEOF", "secret-files", PRINTED),
    ("echo \"print(open('.env').read())\" | python3", "secret-files", PRINTED),
    ("python3 -c \"print(open('.env').read())\" | head -3", "secret-files", PRINTED),
    ("node -e \"console.log(require('fs').readFileSync('.env', 'utf8'))\"", "secret-files", PRINTED),
    ("node -e \"const fs = require('fs'); fs.createReadStream('.env').pipe(process.stdout)\"", "secret-files",
     PRINTED),
    ("node -e \"console.log(require('fs').readFileSync(process.argv[1], 'utf8'))\" .env", "secret-files", PRINTED),
    ("ruby -e 'puts File.read(\".env\")'", "secret-files", PRINTED),
    ("ruby -e 'File.open(\".env\") { |f| puts f.read }'", "secret-files", PRINTED),
    ("ruby -e 'puts IO.readlines(\".env\")'", "secret-files", PRINTED),
    ("ruby -ne 'print' .env", "secret-files", PRINTED),
    ("perl -e 'open(F, \"<\", \".env\"); print <F>'", "secret-files", PRINTED),
    ("perl -e 'open F, \".env\"; print while <F>'", "secret-files", PRINTED),
    ("perl -ne print .env", "secret-files", PRINTED),
    ("php -r 'echo file_get_contents(\".env\");'", "secret-files", PRINTED),
    ("php -r '$f = fopen(\".env\", \"r\"); echo fread($f, 999);'", "secret-files", PRINTED),
    ("awk 'BEGIN { while ((getline l < \".env\") > 0) print l }'", "secret-files", PRINTED),
    ("gawk 'BEGIN { getline < \".env\"; print }'", "secret-files", PRINTED),
]

NEEDS = {"node ": ("node",), "perl ": ("perl",), "ruby ": ("ruby",), "php ": ("php",), "gawk ": ("gawk",)}




@pytest.mark.parametrize(("command", "rule", "effect"), VARIANTS)
def test_variant_is_denied_and_really_loses_work(tmp_path: Path, command: str, rule: str, effect: str) -> None:
    skip_unless_installed(command, NEEDS, at_start=True)
    check_variant(tmp_path, command, rule, effect)


CONTROLS = [
    "python3 -c 'print(\"git reset --hard\")'",
    "python3 -c 'import subprocess; print(subprocess.run([\"git\", \"status\"], capture_output=True).returncode)'",
    "node -e 'console.log(\"git reset --hard\")'",
    "perl -ne 'print if /reset/' a.txt",
    "ruby -e 'puts `git log -1 --oneline`'",
    "awk '{ print \"git reset --hard\" }' a.txt",
    "awk -F= '{ print $1 }' a.txt",
    # Files read in the program's own language that hold no secret, or a secret that is not shown.
    "python3 -c \"print(open('a.txt').read())\"",
    "python3 -c \"print(open('.env.example').read())\" 2>/dev/null || true",
    "python3 -c \"open('.env', 'a').write('DEBUG=1\\n')\"",
    "python3 -c \"import os; print(open(os.environ.get('F', 'a.txt')).read())\"",
    "python3 -c \"print(open('.env').read())\" > out.txt",
    "node -e \"console.log(require('fs').readFileSync('a.txt', 'utf8'))\"",
    "ruby -e 'puts File.exist?(\".env\")'",
    "perl -e 'print -e \".env\" ? \"yes\\n\" : \"no\\n\"'",
]


@pytest.mark.parametrize("command", CONTROLS)
def test_read_only_controls_stay_quiet(tmp_path: Path, command: str) -> None:
    skip_unless_installed(command, NEEDS, at_start=True)
    check_control(tmp_path, command)
