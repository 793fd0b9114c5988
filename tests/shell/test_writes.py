"""shell/writes.py: which paths a call's commands write, move away, delete or change the mode of."""

from __future__ import annotations

import pytest

from jouet_git.shell import parse
from jouet_git.shell.maywrite import WRITE_NEEDLES
from jouet_git.shell.writes import git_config_keys, writes


def written(command: str) -> list[tuple[str, str, bool]]:
    return [(w.path, w.how, w.removes) for w in writes(parse(command).commands)]


@pytest.mark.parametrize(("command", "expected"), [
    ("echo x > a.txt", [("a.txt", "redirect", False)]),
    ("echo x >> ~/.config/jouet/config.toml", [("~/.config/jouet/config.toml", "redirect", False)]),
    ("cd ~/.config/jouet && printf x > config.toml", [("~/.config/jouet/config.toml", "redirect", False)]),
    ("echo x > /dev/null", []),
    ("tee -a a b", [("a", "tee", False), ("b", "tee", False)]),
    ("sed -i 's/a/b/' f", [("f", "sed -i", False)]),
    ("sed -i.bak -e 's/a/b/' f g", [("f", "sed -i", False), ("g", "sed -i", False)]),
    ("sed -n 1p f", []),
    ("sed 's/i/j/' f", []),
    ("perl -pi -e 's/a/b/' f", [("f", "perl -i", False)]),
    ("rm -rf d", [("d", "rm", True)]),
    ("rm -- -odd", [("-odd", "rm", True)]),
    ("unlink f", [("f", "unlink", True)]),
    ("truncate -s 0 f", [("f", "truncate", False)]),
    ("chmod -x .git/hooks/pre-commit", [(".git/hooks/pre-commit", "chmod", False)]),
    ("chmod -R 000 d", [("d", "chmod", False)]),
    ("chown me:me f", [("f", "chown", False)]),
    ("dd if=/dev/zero of=f bs=1", [("f", "dd", False)]),
    ("find d -delete", [("d", "find", True)]),
    ("find d -name x -exec rm {} +", [("d", "find", True)]),
    ("find d -name x", []),
    ("tar xzf a.tgz -C out", [("out", "tar -x", True)]),
    ("curl -o f https://x", [("f", "curl -o", False)]),
    ("curl -sSLo out/f.tgz https://x/a.tgz", [("out/f.tgz", "curl -o", False)]),
    ("curl -ofile https://x", [("file", "curl -o", False)]),
    ("curl -s -o - https://x", []),
    ("curl -s https://x/a.tgz", []),
    ("curl -H 'Accept: x' -O https://x/dl/a.tgz?v=1#top", [("a.tgz", "curl -O", False)]),
    ("curl --remote-name-all https://x/a https://x/b", [("a", "curl -O", False), ("b", "curl -O", False)]),
    ("curl --output-dir d -o f https://x", [("d/f", "curl -o", False)]),
    ("curl --output-dir d -O https://x/f", [("d/f", "curl -O", False)]),
    ("curl -OJ https://x/dl", [(".", "curl -OJ", False)]),
    ("curl -c jar.txt -D headers.txt https://x", [("jar.txt", "curl -c", False), ("headers.txt", "curl -D", False)]),
    ("curl --url https://x/f -O", [("f", "curl -O", False)]),
    ("wget https://x/a.tgz", [("a.tgz", "wget", False)]),
    ("wget -q https://x/dir/", [("index.html", "wget", False)]),
    ("wget -qO- https://x/a", []),
    ("wget -O f https://x/a", [("f", "wget -O", False)]),
    ("wget --output-document=f https://x/a", [("f", "wget -O", False)]),
    ("wget -P dl -q https://x/a.tgz", [("dl/a.tgz", "wget", False)]),
    ("wget -o log.txt -O - https://x/a", [("log.txt", "wget -o", False)]),
    ("wget -r -np https://x/docs/", [(".", "wget -r", False)]),
    ("wget -i urls.txt -P dl", [("dl", "wget -i", False)]),
    ("wget --spider https://x/a", []),
    ("wget -t 3 -T 10 https://x/a", [("a", "wget", False)]),
    ("echo x | sponge f", [("f", "sponge", False)]),
    ("make 2> build.log", [("build.log", "redirect", False)]),
    ("python3 -m json.tool in.json out.json", [("out.json", "python -m json.tool", False)]),
    ("python3 -m json.tool in.json", []),
    ("openssl enc -d -base64 -in x.b64 -out x.bin", [("x.bin", "openssl -out", False)]),
    ("openssl genrsa -out key.pem 2048", [("key.pem", "openssl -out", False)]),
    ("ruby -pi.bak -e 'sub(/a/, \"b\")' f.txt", [("f.txt", "ruby -i", False)]),
    ("ruby -e 'puts 1' f.txt", []),
    ("gawk -i inplace -v n=1 '{print}' a.txt b.txt", [("a.txt", "gawk -i inplace", False),
                                                      ("b.txt", "gawk -i inplace", False)]),
    ("sd 'a' 'b' f.txt g.txt", [("f.txt", "sd", False), ("g.txt", "sd", False)]),
    ("yq -i '.a = 1' f.yaml", [("f.yaml", "yq -i", False)]),
    ("yq '.a' f.yaml", []),
    ("iconv -f latin1 -t utf8 -o out.txt in.txt", [("out.txt", "iconv -o", False)]),
    ("vim -es -c 'w! out.txt' -c q in.txt", [("in.txt", "vim", False), ("out.txt", "vim -c", False)]),
    ("vi +'sav copy.txt' in.txt", [("in.txt", "vi", False), ("copy.txt", "vi -c", False)]),
    ("python3 -c \"import sys; open(sys.argv[1], 'w').write('x')\" out.txt",
     [("out.txt", "python3 (inline code)", False)]),
    ("node -e \"require('fs').writeFileSync(process.argv[1], 'x')\" out.txt",
     [("out.txt", "node (inline code)", False)]),
    ("python3 -c \"import sys; print(open(sys.argv[1]).read())\" in.txt", []),
    ("python3 - x <<'EOF'\nimport sys\nopen(sys.argv[1], 'w').write('x')\nEOF",
     [("x", "python3 (inline code)", False)]),
    ("perl -e 'open(F, \">\", $ARGV[0])' -e 'print F 1' out.txt", [("out.txt", "perl (inline code)", False)]),
    ("awk '{print $1 > \"out/a.txt\"}' in.txt", [("out/a.txt", "awk >", False)]),
    ("awk -F, -v n=1 '{printf \"%s\", $1 >> \"./log.json\"}' in.csv", [("./log.json", "awk >", False)]),
    ("awk 'BEGIN{f=ENVIRON[\"HOME\"] \"/.config/x.toml\"; print 1 > f}'",
     [("/.config/x.toml", "awk >", False), ("~/.config/x.toml", "awk >", False)]),
    ("awk '$1 > 5 {print}' in.txt", []),
    ("gawk --source='{print > \"out/b.txt\"}' in.txt", [("out/b.txt", "awk >", False)]),
    ("awk '{print $1}' in.txt > out.txt", [("out.txt", "redirect", False)]),
    ("git --work-tree=/x checkout HEAD -- a.toml b", [("/x/a.toml", "git checkout", False),
                                                       ("/x/b", "git checkout", False)]),
    ("GIT_WORK_TREE=/x git reset --hard", [("/x/.", "git reset", True)]),
    ("git -C /x restore .", [("/x/.", "git restore", True)]),
    ("cd /x && git stash pop", [("/x/.", "git stash", True)]),
    ("git --git-dir=$HOME/.dotfiles --work-tree=$HOME checkout main", [("$HOME/.", "git checkout", True)]),
    ("git init /x", [("/x/.git", "git init", False)]),
    ("git -C /x init -b main", [("/x/./.git", "git init", False)]),
    ("git init", []),
    ("git checkout main", []),
    ("git reset --hard HEAD~1", []),
    ("echo x 3>> f", [("f", "redirect", False)]),
    ("exec {fd}> f", [("f", "redirect", False)]),
    ("cat <> f", [("f", "redirect", False)]),
    ("{ make; make test; } 2> err.log", [("err.log", "redirect", False)]),
    ("while read -r l; do :; done <> f", [("f", "redirect", False)]),
    ("make 2> /dev/null", []),
    ("make 2>&1 | tee -a log", [("log", "tee", False)]),
    ("sed -n 'w out.txt' in.txt", [("out.txt", "sed w", False)]),
    ("sed 's/a/b/w out.txt' in.txt", [("out.txt", "sed w", False)]),
    ("sed -e 's/a/b/' -e '/x/W  out.txt' in.txt", [("out.txt", "sed w", False)]),
    ("sed -i.bak -e '1w first.txt' f", [("f", "sed -i", False), ("first.txt", "sed w", False)]),
    ("sed -n '1,20p' in.txt", []),
    ("sort -o out.txt in.txt", [("out.txt", "sort -o", False)]),
    ("sort -rnuo out.txt in.txt", [("out.txt", "sort -o", False)]),
    ("sort --output=out.txt in.txt", [("out.txt", "sort -o", False)]),
    ("sort -k 2 -t , in.txt", []),
    ("uniq in.txt out.txt", [("out.txt", "uniq", False)]),
    ("uniq -c -f 1 in.txt", []),
    ("split -l 100 big.txt part_", [("part_*", "split", False)]),
    ("split -d -l 100 big.txt part_", [("part_*", "split", False)]),
    ("aria2c -c -x 4 https://x/a.iso", [("a.iso", "aria2c", False)]),
    ("http -v --download https://x/a.tgz", [("a.tgz", "http --download", False)]),
    ("csplit -f piece big.txt /x/", [("piece*", "csplit", False)]),
    ("gzip notes.txt", [("notes.txt", "gzip", True), ("notes.txt.gz", "gzip", False)]),
    ("gunzip a.tar.gz", [("a.tar.gz", "gunzip", True), ("a.tar", "gunzip", False)]),
    ("xz -d -k a.xz", [("a.xz", "xz", True), ("a", "xz", False)]),
    ("zstd -q a -o b.zst", [("a", "zstd", True), ("b.zst", "zstd", False)]),
    ("gzip -c notes.txt", []),
    ("gzip -dc a.gz", []),
    ("7z x a.7z -oout", [("out", "7z x", False)]),
    ("7z a backup.7z src/", [("backup.7z", "7z a", False)]),
    ("aria2c -d dl -o f.iso https://x/a.iso", [("dl/f.iso", "aria2c", False)]),
    ("aria2c https://x/a.iso", [("a.iso", "aria2c", False)]),
    ("http --download https://x/a.tgz", [("a.tgz", "http --download", False)]),
    ("http -o f.json GET https://x/a", [("f.json", "http -o", False)]),
    ("http GET https://x/a", []),
    ("git clone https://x/r.git", [("r", "git clone", False)]),
    ("git clone --depth 1 -b main git@host:team/r.git dest", [("dest", "git clone", False)]),
    ("git worktree add ../wt -b topic", [("../wt", "git worktree add", False)]),
    ("git worktree list", []),
    ("git archive --format=tar -o out.tar HEAD", [("out.tar", "git archive -o", False)]),
    ("git rm -q f", [("f", "git rm", True)]),
    ("git rm --cached f", []),
    ("git -C sub mv a b", [("sub/a", "git mv", True), ("sub/b", "git mv", False)]),
])
def test_shell_writes(command: str, expected: list[tuple[str, str, bool]]) -> None:
    assert written(command) == expected


@pytest.mark.parametrize(("command", "dest"), [
    ("cp a b", "b"), ("cp -r a b/", "b/"), ("mv a b", "b"), ("ln -sf /dev/null hook", "hook"),
    ("install -m 755 x /usr/bin/jouet", "/usr/bin/jouet"), ("rsync -a src/ dst/", "dst/"),
    ("cp -t dir a b", "dir"),
])
def test_destinations_and_what_lands_in_them(command: str, dest: str) -> None:
    paths = [p for p, _, _ in written(command)]
    assert dest in paths


def test_mv_removes_its_sources() -> None:
    assert ("a", "mv", True) in written("mv a b")


@pytest.mark.parametrize(("command", "expected"), [
    # A recursive copy or a move puts a tree in place: under each source's name in the destination...
    ("cp -r a b/", [("b/a", "cp -r", False), ("b/", "cp -r into", False)]),
    ("cp -a /tmp/x/.config ~/", [("~/.config", "cp -r", False), ("~/", "cp -r into", False)]),
    ("mv a b", [("a", "mv", True), ("b/a", "mv", False), ("b", "mv into", False)]),
    ("scp -r host:x local/", [("local/x", "scp -r", False), ("local/", "scp -r into", False)]),
    ("scp -r host:.config ~/", [("~/.config", "scp -r", False), ("~/", "scp -r into", False)]),
    ("scp -r local host:dir/", []),
    ("scp host:f ./", [("./", "scp", False), ("./f", "scp", False)]),
    # ... or, for a directory's content, in the destination itself.
    ("cp -r /tmp/x/. ~/.config/", [("~/.config/", "cp -r", False)]),
    ("cp -r /tmp/x/* ~/.config/", [("~/.config/", "cp -r", False)]),
    ("cp -rT /tmp/x ~/.config", [("~/.config", "cp -r", False)]),
    ("cp -r \"$SRC\" ~/.config/", [("~/.config/", "cp -r", False)]),
    ("mv -T /tmp/x ~/.config", [("/tmp/x", "mv", True), ("~/.config", "mv", False)]),
    ("rsync -a /tmp/x/ ~/.config/", [("~/.config/", "rsync -r", False)]),
    ("rsync -avz /tmp/x ~/", [("~/x", "rsync -r", False), ("~/", "rsync -r into", False)]),
    # Not recursive: files only, as before.
    ("cp a b/", [("b/", "cp", False), ("b/a", "cp", False)]),
    ("rsync src/f dst/", [("dst/", "rsync", False), ("dst/f", "rsync", False)]),
])
def test_copies_of_whole_trees(command: str, expected: list[tuple[str, str, bool]]) -> None:
    assert written(command) == expected


def test_rsync_delete_removes_the_destination() -> None:
    assert ("dst/", "rsync --delete", True) in written("rsync -a --delete src/ dst/")


def test_a_path_after_a_cd_jouet_cannot_follow_is_lost() -> None:
    found = writes(parse("cd $(mktemp -d) && echo x > config.toml").commands)
    assert [(w.path, w.lost) for w in found] == [("config.toml", True)]


@pytest.mark.parametrize("command", [
    "python3 -c \"open('/x/config.toml', 'w').write('a')\"",
    "python3 -c \"import pathlib; pathlib.Path('/x/config.toml').write_text('a')\"",
    "python3 -c \"import os; os.remove('/x/config.toml')\"",
    "python3 -c \"import shutil; shutil.rmtree('/x/config.toml')\"",
    "python3 - <<'EOF'\nopen('/x/config.toml', 'a').write('x')\nEOF",
    "perl -e 'unlink \"/x/config.toml\"'",
    "perl -e 'open(F, \">/x/config.toml\")'",
    "perl -e 'open(my $f, \">\", \"/x/config.toml\")'",
    "node -e \"require('fs').writeFileSync('/x/config.toml', '')\"",
    "ruby -e \"File.write('/x/config.toml', '')\"",
])
def test_inline_programs_that_write_name_their_literal_paths(command: str) -> None:
    assert "/x/config.toml" in [p for p, _, _ in written(command)]


@pytest.mark.parametrize("command", [
    "python3 -c \"print(open('/x/config.toml').read())\"",
    "python3 -c \"print(open('/tmp/popen-gw1/config.toml').read())\"",  # a word in a path is not a call
    "python3 script.py /x/config.toml",
    "perl -ne 'print if /x/' /x/config.toml",
    "node -e \"console.log(require('fs').readFileSync('/x/config.toml', 'utf8'))\"",
])
def test_inline_programs_that_only_read_write_nothing(command: str) -> None:
    assert written(command) == []


def test_the_write_pattern_s_needles_cover_every_match() -> None:
    # Code holding none of WRITE_NEEDLES is never searched with _WRITE_CALL: each string one of
    # which every match of the pattern holds must itself hold one of them.
    from jouet_git.engine.needles import needles
    from jouet_git.shell import writes as writes_module

    found = needles(writes_module._WRITE_CALL)
    assert found is not None
    assert all(any(mine in needle for mine in WRITE_NEEDLES) for needle in found), found


def test_inline_code_without_a_write_compiles_no_pattern(monkeypatch: pytest.MonkeyPatch) -> None:
    import re

    searched: list[str] = []
    original = re.search

    def search(pattern: str, *args: object) -> object:
        searched.append(pattern)
        return original(pattern, *args)  # type: ignore[call-overload]

    from jouet_git.shell import writes as writes_module

    monkeypatch.setattr(writes_module.re, "search", search)
    assert written("python3 -c 'import sys; print(sys.version)'") == []
    assert searched == []
    assert written("python3 -c \"open('/x/a.txt', 'w')\"") == [("/x/a.txt", "python3 (inline code)", False)]
    assert writes_module._WRITE_CALL in searched


@pytest.mark.parametrize(("args", "keys"), [
    (["core.hooksPath", "/dev/null"], ["core.hookspath"]),
    (["--global", "CORE.HOOKSPATH", "x"], ["core.hookspath"]),
    (["--unset", "core.hooksPath"], ["core.hookspath"]),
    (["--unset-all", "core.hooksPath"], ["core.hookspath"]),
    (["--replace-all", "core.hooksPath", "x"], ["core.hookspath"]),
    (["--add", "include.path", "x"], ["include.path"]),
    (["set", "core.hooksPath", "x"], ["core.hookspath"]),
    (["unset", "core.hooksPath"], ["core.hookspath"]),
    (["--remove-section", "core"], ["[core]"]),
    (["rename-section", "core", "x"], ["[core]"]),
    (["--edit"], ["*"]),
    (["-f", "other.cfg", "core.hooksPath", "x"], ["core.hookspath"]),
    (["core.hooksPath"], []),
    (["--get", "core.hooksPath"], []),
    (["get", "core.hooksPath"], []),
    (["--list"], []),
    (["user.name", "me"], ["user.name"]),
])
def test_git_config_keys(args: list[str], keys: list[str]) -> None:
    assert git_config_keys(args) == keys


def test_the_option_writers_are_the_programs_the_cheap_test_names() -> None:
    """maywrite.py (imported on every hook) and writers.py (only for a call that may write) name the
    same programs: one missing from writers.py would raise, one missing from maywrite.py would never
    be looked at."""
    from jouet_git.shell import maywrite, writers

    assert writers.PROGRAMS == maywrite.OPTION_WRITERS
