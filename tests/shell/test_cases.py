"""Hand-written cases for the shell reader: every construct it reads, and the traps agents hit.

Each case is a script and the commands expected from it, in order. A command is given as its argv
(a list of words) when that is all that matters, or as a dict of the Command fields to check;
`src` is the text its span covers. Cases marked incomplete expect the result to say so.
"""

from __future__ import annotations

from typing import Any

import pytest

from jouet_git.shell import parse

C = dict  # one expected command: the fields to check

CASES: list[tuple[str, list[Any]] | tuple[str, list[Any], dict[str, Any]]] = [
    # -- plain commands and word values ----------------------------------------------------------
    ("git status", [C(argv=["git", "status"], program="git", op=None, src="git status")]),
    ("  git   status  ", [C(argv=["git", "status"], src="git   status")]),
    ("git\tstatus", [["git", "status"]]),
    ("echo 'single quoted $HOME'", [["echo", "single quoted $HOME"]]),
    ('echo "double $HOME"', [["echo", "double $HOME"]]),
    ('echo "$HOME"', [["echo", "$HOME"]]),
    ('echo "a\\"b\\\\c\\$d\\`e"', [["echo", 'a"b\\c$d`e']]),
    ('echo "keep \\n and \\q"', [["echo", "keep \\n and \\q"]]),
    ("echo a\\ b \\'c\\' \\\\", [["echo", "a b", "'c'", "\\"]]),
    ("echo $'tab\\there\\nnl \\x41\\101\\u00e9'", [["echo", "tab\there\nnl AAé"]]),
    ("echo $'it\\'s'", [["echo", "it's"]]),
    ("echo $'\\cA\\e\\z'", [["echo", "\x01\x1b\\z"]]),
    ("echo $'a\\0b'c", [["echo", "ac"]]),
    ('echo $"locale $x"', [["echo", "locale $x"]]),
    ("echo pre'mid'\"dq\"post", [["echo", "premiddqpost"]]),
    ("echo '' \"\"", [["echo", "", ""]]),
    (
        "echo ${HOME}/x ${#a} ${a:-$b} ${a//\\//_}",
        [["echo", "${HOME}/x", "${#a}", "${a:-$b}", "${a//\\//_}"]],
    ),
    ("echo $1 $@ $# $? $$ $! $- $0", [["echo", "$1", "$@", "$#", "$?", "$$", "$!", "$-", "$0"]]),
    ("echo $ a$ '$'", [["echo", "$", "a$", "$"]]),
    ("echo *.py src/**/[ab]?.rs ~/x ~", [["echo", "*.py", "src/**/[ab]?.rs", "~/x", "~"]]),
    ("echo {a,b} a{1..3}", [["echo", "{a,b}", "a{1..3}"]]),
    ("echo a#b #comment", [["echo", "a#b"]]),
    ("echo a\\\nb", [C(argv=["echo", "ab"], src="echo a\\\nb")]),
    ("echo one \\\n  two", [["echo", "one", "two"]]),
    ("echo 'multi\nline'", [["echo", "multi\nline"]]),
    ('echo "multi\nline"', [["echo", "multi\nline"]]),
    ('echo "cont\\\ninued"', [["echo", "continued"]]),
    ("echo 'back\\slash'", [["echo", "back\\slash"]]),
    ("echo é ü", [C(argv=["echo", "é", "ü"], src="echo é ü")]),
    (
        "printf '%s\\n' \"ñ\" && git status",
        [
            C(argv=["printf", "%s\\n", "ñ"], src="printf '%s\\n' \"ñ\""),
            C(argv=["git", "status"], src="git status"),
        ],
    ),
    # -- danger text that is data -----------------------------------------------------------------
    ('git commit -m "never git add -A"', [C(argv=["git", "commit", "-m", "never git add -A"])]),
    ("git commit -m 'rm -rf old code'", [["git", "commit", "-m", "rm -rf old code"]]),
    ("echo 'rm -rf /'", [["echo", "rm -rf /"]]),
    ("echo git push --force # git push --force", [["echo", "git", "push", "--force"]]),
    ("# git add -A\ngit status", [["git", "status"]]),
    ("git status # ; git add -A", [["git", "status"]]),
    ("echo 'a; git add -A && b'", [["echo", "a; git add -A && b"]]),
    ('echo "a | git push -f"', [["echo", "a | git push -f"]]),
    ("cat <<EOF\ngit add -A\nEOF", [C(argv=["cat"], heredocs=["git add -A\n"], stdin_redirected=True)]),
    ("cat <<'EOF'\n$(git push -f)\nEOF", [C(argv=["cat"], heredocs=["$(git push -f)\n"])]),
    (
        "git commit -F - <<EOF\nnever git add -A\nEOF\ngit log",
        [
            C(argv=["git", "commit", "-F", "-"], heredocs=["never git add -A\n"], op="seq"),
            ["git", "log"],
        ],
    ),
    ("grep 'git stash' notes.txt", [["grep", "git stash", "notes.txt"]]),
    ('echo "\\$(git push)"', [["echo", "$(git push)"]]),
    ("echo '$(git push)' '`git push`'", [["echo", "$(git push)", "`git push`"]]),
    # -- operators -----------------------------------------------------------------------------------
    ("a; b", [C(argv=["a"], op="seq"), C(argv=["b"], op=None)]),
    ("a && b || c", [C(argv=["a"], op="and"), C(argv=["b"], op="or"), C(argv=["c"], op=None)]),
    (
        "a | b |& c",
        [
            C(argv=["a"], op="pipe", piped=True),
            C(argv=["b"], op="pipe", piped=True),
            C(argv=["c"], piped=False),
        ],
    ),
    ("a & b", [C(argv=["a"], op="background", background=True), C(argv=["b"], background=False)]),
    ("npm run dev &", [C(argv=["npm", "run", "dev"], op="background", background=True)]),
    ("a && b &", [C(argv=["a"], op="and", background=True), C(argv=["b"], op="background", background=True)]),
    ("a\nb\n\nc\n", [C(argv=["a"], op="seq"), C(argv=["b"], op="seq"), C(argv=["c"], op=None)]),
    ("a;b;c", [["a"], ["b"], ["c"]]),
    ("a&&b||c|d", [["a"], ["b"], ["c"], ["d"]]),
    (
        "a &&\n  b ||\n  c |\n  d",
        [C(argv=["a"], op="and"), C(argv=["b"], op="or"), C(argv=["c"], op="pipe"), ["d"]],
    ),
    ("a;", [C(argv=["a"], op=None)]),
    ("a &>log; b", [C(argv=["a"], stdout_to="log", op="seq"), ["b"]]),
    (
        "! git diff --quiet && echo changed",
        [C(argv=["git", "diff", "--quiet"], op="and"), ["echo", "changed"]],
    ),
    # -- redirections --------------------------------------------------------------------------------
    ("echo hi > out.txt", [C(argv=["echo", "hi"], stdout_to="out.txt", src="echo hi > out.txt")]),
    ("echo hi >> out.txt", [C(stdout_to="out.txt")]),
    ("echo hi >| out.txt", [C(stdout_to="out.txt")]),
    ("echo hi 1> out.txt", [C(stdout_to="out.txt")]),
    ("echo hi &> all.log", [C(stdout_to="all.log")]),
    ("echo hi &>> all.log", [C(stdout_to="all.log")]),
    ("echo hi >& all.log", [C(stdout_to="all.log")]),
    ("make 2>&1 > build.log", [C(argv=["make"], stdout_to="build.log")]),
    ("make > build.log 2>&1", [C(argv=["make"], stdout_to="build.log", src="make > build.log 2>&1")]),
    ("make 2> err.log", [C(argv=["make"], stdout_to=None)]),
    ("echo oops >&2", [C(argv=["echo", "oops"], stdout_to=None, piped=False)]),
    ("echo oops 1>&2 | cat", [C(argv=["echo", "oops"], piped=False), ["cat"]]),
    ("echo x >/dev/null", [C(stdout_to="/dev/null")]),
    ('echo x > "$OUT/file name"', [C(stdout_to="$OUT/file name")]),
    ("> empty.txt", [C(argv=[], words=[], program="", stdout_to="empty.txt", src="> empty.txt")]),
    ("< in.txt wc -l", [C(argv=["wc", "-l"], stdin_redirected=True, src="< in.txt wc -l")]),
    ("wc -l < in.txt", [C(argv=["wc", "-l"], stdin_redirected=True)]),
    ("cat 0< in.txt", [C(stdin_redirected=True)]),
    ("cat 3< in.txt", [C(stdin_redirected=False)]),
    ("exec 3<> /dev/tcp/host/80", [C(argv=["exec"], stdin_redirected=False)]),
    ("cat <> rw.txt", [C(stdin_redirected=True)]),
    ('read x <<< "$line"', [C(argv=["read", "x"], stdin_redirected=True, heredocs=["$line"])]),
    ("tee -a .gitignore <<< 'dist/'", [C(heredocs=["dist/"])]),
    ("cmd {fd}> file", [C(argv=["cmd"], stdout_to=None)]),
    ("cmd 2>/dev/null 1>out", [C(argv=["cmd"], stdout_to="out")]),
    ("echo a>b", [C(argv=["echo", "a"], stdout_to="b")]),
    ("echo 2>x 22", [C(argv=["echo", "22"])]),
    ("cat <&3", [C(stdin_redirected=True)]),
    # -- here-documents ------------------------------------------------------------------------------
    (
        "cat <<EOF\nline 1\nline 2\nEOF\necho after",
        [C(argv=["cat"], heredocs=["line 1\nline 2\n"], src="cat <<EOF"), ["echo", "after"]],
    ),
    ("cat <<-EOF\n\tindented\n\tEOF\necho after", [C(heredocs=["indented\n"]), ["echo", "after"]]),
    ('cat <<"END"\n$x\nEND', [C(heredocs=["$x\n"])]),
    ("cat <<E\\OF\nx\nEOF", [C(heredocs=["x\n"])]),
    ("cat <<A <<B\na\nA\nb\nB\necho done", [C(heredocs=["a\n", "b\n"]), ["echo", "done"]]),
    ("cat <<A; cat <<B\na\nA\nb\nB", [C(heredocs=["a\n"], op="seq"), C(heredocs=["b\n"])]),
    (
        "cat <<EOF | grep x\nbody\nEOF",
        [C(argv=["cat"], heredocs=["body\n"], op="pipe", piped=True), C(argv=["grep", "x"], heredocs=[])],
    ),
    ("cat <<EOF > out\nbody\nEOF", [C(heredocs=["body\n"], stdout_to="out", src="cat <<EOF > out")]),
    ("cat <<EOF\nEOF\n", [C(heredocs=[""])]),
    ("cat <<EOF\n  EOF\nEOF", [C(heredocs=["  EOF\n"])]),
    ("cat <<EOF\nno end", [C(heredocs=["no end\n"])], {"incomplete": True}),
    (
        "git commit -m \"$(cat <<'EOF'\nFix: never git add -A\n\nBody.\nEOF\n)\"",
        [
            C(
                # What a pure command substitution prints is known: the message itself.
                argv=["git", "commit", "-m", "Fix: never git add -A\n\nBody."],
                nested=False,
            ),
            C(
                argv=["cat"],
                heredocs=["Fix: never git add -A\n\nBody.\n"],
                nested=True,
                captured=True,
                src="cat <<'EOF'",
            ),
        ],
    ),
    (
        "python3 - <<'PY'\nimport os\nos.system('git push -f')\nPY",
        [C(argv=["python3", "-"], heredocs=["import os\nos.system('git push -f')\n"]),
         # The program is read: the command it hands to os.system is a command of its own.
         C(argv=["git", "push", "-f"], nested=True, via=["python3"])],
    ),
    (
        'while read -r f; do git add "$f"; done <<EOF\na\nb\nEOF',
        [
            C(argv=["read", "-r", "f"], stdin_redirected=True, heredocs=["a\nb\n"]),
            C(argv=["git", "add", "$f"], stdin_redirected=True),
        ],
    ),
    # bash ends a here-document inside $(...) at a delimiter followed by the closing paren.
    (
        'echo "$(cat <<EOF\nbody\nEOF)" after; git status',
        [
            ["echo", "body", "after"],
            ["git", "status"],
            C(argv=["cat"], heredocs=["body\n"]),
        ],
    ),
    ("cat <<EOF\nEOF)\nEOF", [C(argv=["cat"], heredocs=["EOF)\n"])]),
    ("cat <<EOF file\nx\nEOF", [C(argv=["cat", "file"], heredocs=["x\n"], src="cat <<EOF file")]),
    (
        'x=$(cat <<EOF\na)\nEOF\n); echo "$x"',
        [C(env={"x": "a)"}), ["echo", "a)"], ["cat"]],
    ),
    # -- subshells, groups, compound commands ------------------------------------------------------
    ("(cd sub && make)", [C(argv=["cd", "sub"], op="and"), C(argv=["make"])]),
    ("( a ; b )", [["a"], ["b"]]),
    ("{ a; b; }", [["a"], ["b"]]),
    (
        "{ git status; git diff; } > out.log",
        [C(argv=["git", "status"], stdout_to="out.log"), C(argv=["git", "diff"], stdout_to="out.log")],
    ),
    ("{ a; b > own; } > group", [C(argv=["a"], stdout_to="group"), C(argv=["b"], stdout_to="own")]),
    (
        "(a; b) | tail",
        [C(argv=["a"], piped=True), C(argv=["b"], piped=True, op="pipe"), C(argv=["tail"], piped=False)],
    ),
    (
        "{ a | b; } > log",
        [C(argv=["a"], piped=True, stdout_to=None), C(argv=["b"], piped=False, stdout_to="log")],
    ),
    ("{ a; } > log | b", [C(argv=["a"], piped=False, stdout_to="log"), ["b"]]),
    ("(a) < in", [C(argv=["a"], stdin_redirected=True)]),
    (
        "if git diff --quiet; then echo clean; else git stash; fi",
        [C(argv=["git", "diff", "--quiet"], op="seq"), ["echo", "clean"], ["git", "stash"]],
    ),
    ("if a; then b; elif c; then d; else e; fi", [["a"], ["b"], ["c"], ["d"], ["e"]]),
    (
        "if RUST_LOG=1 cargo test 2>&1; then echo ok; fi",
        [C(argv=["cargo", "test"], env={"RUST_LOG": "1"}, src="RUST_LOG=1 cargo test 2>&1"), ["echo", "ok"]],
    ),
    ("if\na\nthen\nb\nfi", [["a"], ["b"]]),
    ("while true; do sleep 1; done", [["true"], ["sleep", "1"]]),
    ("until curl -sf localhost; do sleep 1; done", [["curl", "-sf", "localhost"], ["sleep", "1"]]),
    ("while ! gh pr checks; do sleep 30; done", [["gh", "pr", "checks"], ["sleep", "30"]]),
    # A for loop's variable takes each known value: the body is read again (nested) for the others.
    ('for f in *.py; do ruff check "$f"; done', [["ruff", "check", "*.py"]]),
    ("for f in a b c\ndo\n  echo $f\ndone", [["echo", "a"], C(argv=["echo", "b"], nested=True),
                                              C(argv=["echo", "c"], nested=True)]),
    ("for f; do echo $f; done", [["echo", "$f"]]),
    ("for ((i = 0; i < 3; i++)); do echo $i; done", [["echo", "$i"]]),
    ("for x in 1 2; { echo $x; }", [["echo", "1"], C(argv=["echo", "2"], nested=True)]),
    ("select opt in a b; do echo $opt; break; done", [["echo", "$opt"], ["break"]]),
    (
        "for f in $(git ls-files); do wc -l $f; done",
        [C(argv=["wc", "-l", "$f"], nested=False), C(argv=["git", "ls-files"], nested=True)],
    ),
    (
        "case $x in a) git push;; b|c) echo b;; *) echo other;; esac",
        [["git", "push"], ["echo", "b"], ["echo", "other"]],
    ),
    (
        'case "$1" in\n  start) npm start ;;\n  (stop) pkill node ;&\n  *) ;;\nesac',
        [["npm", "start"], ["pkill", "node"]],
    ),
    ("case x in esac", []),
    ("case $(uname) in Linux) echo l;; esac", [C(argv=["echo", "l"]), C(argv=["uname"], nested=True)]),
    # A call of a function defined in the call reads its body again, with the call's arguments.
    ("f() { git push -f; }; f", [C(argv=["git", "push", "-f"]), ["f"],
                                 C(argv=["git", "push", "-f"], nested=True, via=["f"])]),
    ("f() { git reset $1; }; f --hard", [C(argv=["git", "reset", "$1"]), ["f", "--hard"],
                                         C(argv=["git", "reset", "--hard"], nested=True)]),
    ("function deploy { git push origin main; }", [["git", "push", "origin", "main"]]),
    ("function deploy() (make deploy)", [["make", "deploy"]]),
    ("f ()\n{\n  echo in f\n}", [["echo", "in", "f"]]),
    (
        "[[ -f Cargo.toml ]] && cargo build",
        [C(argv=["[[", "-f", "Cargo.toml", "]]"], program="[[", op="and"), ["cargo", "build"]],
    ),
    (
        "[[ $a == b && $c =~ ^(x|y)$ ]] || exit 1",
        [C(argv=["[[", "$a", "==", "b", "&&", "$c", "=~", "^(x|y)$", "]]"]), ["exit", "1"]],
    ),
    ("[[ $x < $y ]]", [C(argv=["[[", "$x", "<", "$y", "]]"], stdin_redirected=False)]),
    ("[ -f x ] && echo y", [["[", "-f", "x", "]"], ["echo", "y"]]),
    ("test -d .git || git init", [["test", "-d", ".git"], ["git", "init"]]),
    ("((i++)) && echo $i", [["echo", "$i"]]),
    ("(( x = 1 + 2 ))", []),
    (
        "echo $((1 + 2)) $(( $(wc -l < f) * 2 ))",
        [["echo", "$((1 + 2))", "$(( $(wc -l < f) * 2 ))"], C(argv=["wc", "-l"], nested=True)],
    ),
    ("( (a) )", [["a"]]),
    ("((a) || (b))", [["a"], ["b"]]),
    ("echo $( (a) )", [["echo", "$( (a) )"], C(argv=["a"], nested=True)]),
    ("time git status", [C(argv=["git", "status"], via=["time"])]),
    ("time -p make", [C(argv=["make"], via=["time"])]),
    ("time { a; b; }", [["a"], ["b"]]),
    ("coproc cat", [["cat"]]),
    ("coproc W { git fetch; }", [["git", "fetch"]]),
    ("! a | b", [["a"], ["b"]]),
    # -- assignments ---------------------------------------------------------------------------------
    ("VAR=x cmd", [C(argv=["cmd"], words=["cmd"], env={"VAR": "x"}, words_at=7, src="VAR=x cmd")]),
    (
        "A=1 B='two words' C=\"$x\" git status",
        [C(argv=["git", "status"], env={"A": "1", "B": "two words", "C": "$x"})],
    ),
    ("a[1]=x cmd", [C(env={"a[1]": "x"})]),
    ("PATH+=:/opt/bin cmd", [C(env={"PATH": ":/opt/bin"})]),
    ("arr=(one two 'three four') cmd", [C(argv=["cmd"], env={"arr": "(one two 'three four')"})]),
    ("x=1", [C(argv=[], program="", env={"x": "1"}, words_at=None, src="x=1")]),
    (
        "x=$(git rev-parse HEAD)",
        [
            C(argv=[], env={"x": "$(git rev-parse HEAD)"}),
            C(argv=["git", "rev-parse", "HEAD"], nested=True, captured=True),
        ],
    ),
    ("cmd VAR=x", [C(argv=["cmd", "VAR=x"], env={})]),
    ("=x cmd", [["=x", "cmd"]]),
    ("1x=2 cmd", [["1x=2", "cmd"]]),
    ("'A'=1 cmd", [["A=1", "cmd"]]),
    ("A=1 > out B=2 cmd", [C(argv=["cmd"], env={"A": "1", "B": "2"}, stdout_to="out")]),
    ("export PATH=$PATH:/x", [C(argv=["export", "PATH=$PATH:/x"], env={})]),
    # -- command substitutions and nested scripts ----------------------------------------------------
    (
        "echo $(git rev-parse HEAD)",
        [
            C(argv=["echo", "$(git rev-parse HEAD)"], nested=False),
            C(argv=["git", "rev-parse", "HEAD"], nested=True, captured=True, src="git rev-parse HEAD"),
        ],
    ),
    (
        "echo `git rev-parse HEAD`",
        [
            ["echo", "`git rev-parse HEAD`"],
            C(argv=["git", "rev-parse", "HEAD"], nested=True, captured=True, src="git rev-parse HEAD"),
        ],
    ),
    (
        'echo "$(a "$(b)")"',
        [["echo", '$(a "$(b)")'], C(argv=["a", "$(b)"], nested=True), C(argv=["b"], nested=True)],
    ),
    (
        "echo $(a) $(b) && c",
        [["echo", "$(a)", "$(b)"], ["c"], C(argv=["a"], nested=True), C(argv=["b"], nested=True)],
    ),
    (
        "echo $(a; b | c)",
        [
            ["echo", "$(a; b | c)"],
            C(argv=["a"], op="seq"),
            C(argv=["b"], piped=True, op="pipe"),
            C(argv=["c"], captured=True, op=None),
        ],
    ),
    ("echo $(echo ')')", [["echo", ")"], ["echo", ")"]]),
    ("echo $(case x in a) b;; esac)", [["echo", "$(case x in a) b;; esac)"], C(argv=["b"], nested=True)]),
    (
        "echo `echo \\`date\\``",
        [
            # date's output is not known: the substitution stays as written.
            ["echo", "`echo \\`date\\``"],
            C(argv=["echo", "`date`"], nested=True),
            C(argv=["date"], nested=True),
        ],
    ),
    ('echo "`echo \\"x\\"`"', [["echo", "x"], C(argv=["echo", "x"], nested=True)]),
    (
        "diff <(sort a) <(sort b)",
        [
            ["diff", "<(sort a)", "<(sort b)"],
            C(argv=["sort", "a"], nested=True, captured=True),
            C(argv=["sort", "b"], nested=True),
        ],
    ),
    (
        "tee >(grep err) < log",
        [
            C(argv=["tee", ">(grep err)"], stdin_redirected=True),
            C(argv=["grep", "err"], nested=True, captured=False),
        ],
    ),
    ("echo ${x:-$(whoami)}", [["echo", "${x:-$(whoami)}"], C(argv=["whoami"], nested=True)]),
    (
        "bash -c 'git push -f'",
        [
            C(argv=["bash", "-c", "git push -f"]),
            C(argv=["git", "push", "-f"], nested=True, span=None, words_at=None),
        ],
    ),
    ("bash -lc 'git push -f'", [["bash", "-lc", "git push -f"], C(argv=["git", "push", "-f"], nested=True)]),
    (
        'sh -c "cd web && npm run build"',
        [
            ["sh", "-c", "cd web && npm run build"],
            C(argv=["cd", "web"], nested=True, op="and"),
            C(argv=["npm", "run", "build"], nested=True),
        ],
    ),
    ("zsh -c 'git add -A'", [["zsh", "-c", "git add -A"], C(argv=["git", "add", "-A"], nested=True)]),
    ("dash -c 'git stash'", [["dash", "-c", "git stash"], C(argv=["git", "stash"], nested=True)]),
    (
        "bash -euo pipefail -c 'make test'",
        [["bash", "-euo", "pipefail", "-c", "make test"], ["make", "test"]],
    ),
    ("bash -x -c 'a' name arg", [["bash", "-x", "-c", "a", "name", "arg"], ["a"]]),
    ("bash script.sh -c 'not a script'", [["bash", "script.sh", "-c", "not a script"]]),
    ("bash -c", [["bash", "-c"]]),
    ("/bin/bash -c 'ls'", [C(program="bash"), ["ls"]]),
    (
        "sudo -u ci bash -c 'git push'",
        [C(argv=["bash", "-c", "git push"], via=["sudo"]), C(argv=["git", "push"], nested=True)],
    ),
    (
        "bash -c 'bash -c \"git push -f\"'",
        [
            ["bash", "-c", 'bash -c "git push -f"'],
            C(argv=["bash", "-c", "git push -f"], nested=True),
            C(argv=["git", "push", "-f"], nested=True),
        ],
    ),
    (
        "bash -c 'echo $(git log)'",
        [
            ["bash", "-c", "echo $(git log)"],
            C(argv=["echo", "$(git log)"], nested=True),
            C(argv=["git", "log"], nested=True, captured=True),
        ],
    ),
    (
        "x=$(bash -c 'git log')",
        [C(argv=[]), C(argv=["bash", "-c", "git log"], captured=True), C(argv=["git", "log"], captured=True)],
    ),
    (
        "bash -c 'git log' | head",
        [C(argv=["bash", "-c", "git log"], piped=True), ["head"], C(argv=["git", "log"], piped=True)],
    ),
    ("bash -c 'git log' > out", [C(stdout_to="out"), C(argv=["git", "log"], stdout_to="out")]),
    ("bash -c 'git log' &", [C(background=True), C(argv=["git", "log"], background=True)]),
    ("bash -c 'cat' < in", [C(stdin_redirected=True), C(argv=["cat"], stdin_redirected=True)]),
    # -- wrappers ------------------------------------------------------------------------------------
    ("/usr/bin/git status", [C(argv=["/usr/bin/git", "status"], program="git")]),
    ("git.exe status", [C(program="git")]),
    ("C:\\\\Git\\\\bin\\\\git.EXE status", [C(program="git")]),
    ("./scripts/deploy.sh", [C(program="deploy.sh")]),
    ("git -C dir add -A", [C(argv=["git", "-C", "dir", "add", "-A"], program="git", via=[])]),
    ("sudo git push", [C(argv=["git", "push"], via=["sudo"], words=["sudo", "git", "push"])]),
    ("sudo -u deploy -H git pull", [C(argv=["git", "pull"], via=["sudo"])]),
    ("sudo --user=deploy git pull", [C(argv=["git", "pull"], via=["sudo"])]),
    ("sudo -iu root make install", [C(argv=["make", "install"], via=["sudo"])]),
    ("sudo -g wheel -C 3 -D /srv -p pw: -T 10 ls", [C(argv=["ls"], via=["sudo"])]),
    ("sudo FOO=1 make", [C(argv=["make"], env={"FOO": "1"}, via=["sudo"])]),
    ("sudo -l", [C(argv=["sudo", "-l"], via=[], program="sudo")]),
    ("sudo -e /etc/hosts", [C(program="sudo")]),
    ("sudo", [C(program="sudo", via=[])]),
    ("doas -u root rm -rf /tmp/x", [C(argv=["rm", "-rf", "/tmp/x"], via=["doas"])]),
    ("doas -s", [C(program="doas")]),
    ("env FOO=1 BAR=2 git status", [C(argv=["git", "status"], via=["env"], env={"FOO": "1", "BAR": "2"})]),
    ("env -i PATH=/bin git status", [C(argv=["git", "status"], via=["env"], env={"PATH": "/bin"})]),
    ("env -u GIT_DIR -C ../other git status", [C(argv=["git", "status"], via=["env"])]),
    ("env --chdir=/x --unset=A git log", [C(argv=["git", "log"], via=["env"])]),
    ("env -S 'git push -f'", [C(argv=["git", "push", "-f"], via=["env"])]),
    ("env", [C(argv=["env"], program="env", via=[])]),
    ("env FOO=1", [C(argv=["env", "FOO=1"], program="env")]),
    ("/usr/bin/env python3 x.py", [C(argv=["python3", "x.py"], via=["env"])]),
    ("timeout 60 npm test", [C(argv=["npm", "test"], via=["timeout"])]),
    ("timeout -s KILL -k 5 30s make", [C(argv=["make"], via=["timeout"])]),
    ("timeout --signal=TERM --preserve-status 1m make", [C(argv=["make"], via=["timeout"])]),
    ("timeout 10", [C(program="timeout", via=[])]),
    (
        "nohup python server.py > server.log 2>&1 &",
        [C(argv=["python", "server.py"], via=["nohup"], stdout_to="server.log", background=True)],
    ),
    ("nice -n 10 make", [C(argv=["make"], via=["nice"])]),
    ("nice -5 make", [C(argv=["make"], via=["nice"])]),
    ("nice --adjustment=3 make", [C(argv=["make"], via=["nice"])]),
    ("command git status", [C(argv=["git", "status"], via=["command"])]),
    ("command -p git status", [C(argv=["git", "status"], via=["command"])]),
    ("command -v git", [C(argv=["command", "-v", "git"], program="command", via=[])]),
    ("command -V git", [C(program="command")]),
    ("builtin cd /tmp", [C(argv=["cd", "/tmp"], via=["builtin"])]),
    ("exec git status", [C(argv=["git", "status"], via=["exec"])]),
    ("exec -a name -cl make", [C(argv=["make"], via=["exec"])]),
    ("exec > log", [C(argv=["exec"], program="exec", stdout_to="log")]),
    ("exec 3>&1", [C(argv=["exec"], program="exec")]),
    ("rtk git status", [C(argv=["git", "status"], via=["rtk"])]),
    ("rtk -v cargo test", [C(argv=["cargo", "test"], via=["rtk"])]),
    ("mise x node@20 -- npm ci", [C(argv=["npm", "ci"], via=["mise"])]),
    ("mise exec python@3.12 uv@latest -- uv run pytest", [C(argv=["pytest"], via=["mise", "uv"])]),
    ("mise x -- git status", [C(argv=["git", "status"], via=["mise"])]),
    ("mise -C sub x node -- node app.js", [C(argv=["node", "app.js"], via=["mise"])]),
    ("mise run test", [C(argv=["mise", "run", "test"], program="mise", via=[])]),
    ("mise x node", [C(program="mise")]),
    (
        "sudo -u x env FOO=1 timeout 5 nice -n 2 nohup /usr/bin/git.exe push",
        [
            C(
                argv=["/usr/bin/git.exe", "push"],
                program="git",
                via=["sudo", "env", "timeout", "nice", "nohup"],
                env={"FOO": "1"},
            )
        ],
    ),
    ("rtk sudo -u x git status", [C(argv=["git", "status"], via=["rtk", "sudo"])]),
    ("time nohup make", [C(argv=["make"], via=["time", "nohup"])]),
    ("xargs git add", [C(argv=["git", "add"], program="git", via=["xargs"], stdin_args=True)]),
    # -- cd and the traps ---------------------------------------------------------------------------
    ("cd sub && git add -A", [C(argv=["cd", "sub"], op="and"), C(argv=["git", "add", "-A"])]),
    ("cd /repo; git push --force", [["cd", "/repo"], ["git", "push", "--force"]]),
    (
        "git add . && git commit -m 'msg' && git push",
        [["git", "add", "."], ["git", "commit", "-m", "msg"], ["git", "push"]],
    ),
    ("git stash list | head -5", [C(argv=["git", "stash", "list"], piped=True), ["head", "-5"]]),
    ("cargo test 2>&1 | tail -20", [C(argv=["cargo", "test"], piped=True, stdout_to=None), ["tail", "-20"]]),
    ("GIT_DIR=/x git -C repo push -f", [C(argv=["git", "-C", "repo", "push", "-f"], env={"GIT_DIR": "/x"})]),
    ("git commit --amend --no-edit --no-verify", [["git", "commit", "--amend", "--no-edit", "--no-verify"]]),
    ("git log --format='%H %s' -n 3", [["git", "log", "--format=%H %s", "-n", "3"]]),
    ("git push origin +main", [["git", "push", "origin", "+main"]]),
    (
        "echo done; git push -f origin HEAD:main",
        [["echo", "done"], ["git", "push", "-f", "origin", "HEAD:main"]],
    ),
    (
        "python -c 'import os; os.system(\"git push\")'",
        [["python", "-c", 'import os; os.system("git push")'], C(argv=["git", "push"], via=["python"])],
    ),
    ("ssh host 'git push -f'", [["ssh", "host", "git push -f"]]),
    (
        "gh pr create --body \"$(cat <<'EOF'\n- git add -A\nEOF\n)\"",
        [
            ["gh", "pr", "create", "--body", "- git add -A"],
            C(argv=["cat"], heredocs=["- git add -A\n"], nested=True),
        ],
    ),
    # -- syntax errors and unfinished text ----------------------------------------------------------
    ("echo 'unterminated", [["echo", "unterminated"]], {"incomplete": True}),
    ('echo "unterminated', [["echo", "unterminated"]], {"incomplete": True}),
    (
        "echo $(unterminated",
        [["echo", "$(unterminated"], C(argv=["unterminated"], nested=True)],
        {"incomplete": True},
    ),
    ("echo `unterminated", [["echo", "`unterminated"], ["unterminated"]], {"incomplete": True}),
    ("if true; then echo x", [["true"], ["echo", "x"]], {"incomplete": True}),
    ("(a; b", [["a"], ["b"]], {"incomplete": True}),
    ("{ a; b", [["a"], ["b"]], {"incomplete": True}),
    ("a && ", [["a"]], {"incomplete": True}),
    ("a | ", [["a"]], {"incomplete": True}),
    ("a ) b", [["a"], ["b"]], {"incomplete": True}),
    ("fi; git status", [["git", "status"]], {"incomplete": True}),
    ("; a", [["a"]], {"incomplete": True}),
    ("a && && b", [["a"], ["b"]], {"incomplete": True}),
    ("echo >", [["echo"]], {"incomplete": True}),
    ("echo ${unterminated", [["echo", "${unterminated"]], {"incomplete": True}),
    ("echo $'unterminated", [["echo", "unterminated"]], {"incomplete": True}),
    ("case x in a) echo", [["echo"]], {"incomplete": True}),
    ("", []),
    ("   \n\n  # only a comment\n", []),
    ("echo \x00 nul", [["echo", "\x00", "nul"]]),
]


def _ids() -> list[str]:
    return [case[0].replace("\n", "\\n")[:60] or "(empty)" for case in CASES]


@pytest.mark.parametrize("case", CASES, ids=_ids())
def test_case(case: tuple[Any, ...]) -> None:
    script, expected = case[0], case[1]
    options = case[2] if len(case) > 2 else {}
    result = parse(script)
    got = result.commands
    described = [(c.argv, c.nested) for c in got]
    assert len(got) == len(expected), f"{script!r}: got {described}"
    for cmd, want in zip(got, expected, strict=True):
        if isinstance(want, list):
            want = {"argv": want}
        for field, value in want.items():
            if field == "src":
                assert cmd.span is not None, f"{script!r}: {cmd.argv} has no span"
                data = script.encode("utf-8", "surrogatepass")
                assert data[cmd.span[0] - 1 : cmd.span[1]].decode() == value, (
                    f"{script!r}: span of {cmd.argv}"
                )
            else:
                assert getattr(cmd, field) == value, (
                    f"{script!r}: {field} of {cmd.argv}: {getattr(cmd, field)!r}"
                )
    assert result.incomplete == options.get("incomplete", False), f"{script!r}: {result.problems}"


def test_there_are_enough_cases() -> None:
    assert len(CASES) >= 150
