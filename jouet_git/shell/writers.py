"""The files written by programs that say where in their options or name them after their input
(for shell/writes.py).

curl writes where -o names (into --output-dir when that is given), the last part of each URL's path
with -O (--remote-name, --remote-name-all), whatever name the server gives with -J (the directory is
reported then), and the files its header, cookie, trace and log options name. wget writes the last
part of each URL's path (index.html for a path ending in /) into -P's directory unless -O names the
file, a whole tree under that directory with -r, -m or -p, and its log where -o or -a names one.
aria2c writes into -d's directory (-o's name, or the URL's), httpie's --download where -o names or the
URL's name. sort writes -o's file, uniq its second operand, split and csplit files named after their
prefix, yq -i and sd the files they edit, iconv -o and openssl's -out the file they name. gzip,
bzip2, xz and zstd replace each file they are given (file.gz for file, or back), unless they write to
standard output; 7z extracts into -o's directory. A value of `-` is standard output. Short options
cluster (`-sSo f`, `-qO-`, `sort -uo f`) and take their value attached or as the next word.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Protocol

    # add(path, how): one file written; the other also says whether it is removed
    Add = Callable[[str, str], None]
    AddRemoving = Callable[[str, str, bool], None]

    class Adder(Protocol):
        """What write() is given: either kind of add (shell/writes.py's _Adder)."""

        def __call__(self, path: str, how: str, removes: bool = False) -> None: ...

# Short options that take a value (the rest of the cluster, or the next word).
_CURL_SHORT_VALUES = frozenset("AbcCdDeEFHKmoPQrtTuUwxXyYz")
_WGET_SHORT_VALUES = frozenset("aABDeiIlOoPQRtTUwX")
# Long options that take a value; any other long option is taken to take none.
_CURL_LONG_VALUES = frozenset({
    "--output", "--output-dir", "--dump-header", "--cookie-jar", "--trace", "--trace-ascii", "--stderr",
    "--libcurl", "--etag-save", "--etag-compare", "--hsts", "--alt-svc", "--data", "--data-raw", "--data-binary",
    "--data-urlencode", "--header", "--request", "--user", "--user-agent", "--referer", "--cookie", "--form",
    "--upload-file", "--write-out", "--config", "--cert", "--key", "--proxy", "--max-time", "--connect-timeout",
    "--retry", "--url", "--range", "--continue-at", "--cacert", "--capath", "--resolve", "--connect-to",
    "--max-filesize", "--limit-rate", "--oauth2-bearer", "--proxy-user", "--netrc-file", "--interface",
    "--json", "--variable", "--expand-url", "--time-cond", "--quote", "--telnet-option",
})
_WGET_LONG_VALUES = frozenset({
    "--output-document", "--output-file", "--append-output", "--directory-prefix", "--tries", "--timeout",
    "--wait", "--user-agent", "--header", "--input-file", "--base", "--execute", "--level", "--accept",
    "--reject", "--domains", "--exclude-directories", "--include-directories", "--quota", "--user",
    "--password", "--post-data", "--post-file", "--load-cookies", "--save-cookies", "--ca-certificate",
    "--certificate", "--private-key", "--limit-rate", "--referer", "--method", "--body-data", "--body-file",
})
# The options whose value is a file curl or wget writes.
_CURL_WRITES = {"-o": "curl -o", "--output": "curl -o", "-D": "curl -D", "--dump-header": "curl -D",
                "-c": "curl -c", "--cookie-jar": "curl -c", "--trace": "curl --trace",
                "--trace-ascii": "curl --trace", "--stderr": "curl --stderr", "--libcurl": "curl --libcurl",
                "--etag-save": "curl --etag-save", "--hsts": "curl --hsts", "--alt-svc": "curl --alt-svc"}
_WGET_WRITES = {"-o": "wget -o", "--output-file": "wget -o", "-a": "wget -a", "--append-output": "wget -a",
                "--save-cookies": "wget --save-cookies"}


def read(argv: list[str], short_values: str | frozenset[str], long_values: frozenset[str]) -> tuple[
        list[tuple[str, str]], list[str]]:
    """(options with their values, in order; a flag, or an option whose value is missing, gets ""),
    operands: cmdline.read_options with SHORT_VALUES given as letters."""
    from jouet_git import cmdline

    options, operands, _ = cmdline.read_options(argv, frozenset("-" + c for c in short_values) | long_values, 1)
    return [(name, "" if value is None else value) for name, value in options], operands


def url_name(url: str, empty: str = "") -> str:
    """The last part of URL's path, without its query or fragment (EMPTY when the path ends in /)."""
    rest = url.split("://", 1)[1] if "://" in url else url
    path = rest.split("?", 1)[0].split("#", 1)[0]
    if "/" not in path:
        return empty
    return path.rsplit("/", 1)[1] or empty


def _within(directory: str, name: str) -> str:
    if not directory or name.startswith(("/", "~")):
        return name
    return f"{directory.rstrip('/')}/{name}"


def curl(argv: list[str], add: Add) -> None:
    options, operands = read(argv, _CURL_SHORT_VALUES, _CURL_LONG_VALUES)
    directory = ""
    remote = header_name = False
    urls = list(operands)
    for name, value in options:
        if name == "--output-dir":
            directory = value
        elif name in ("-O", "--remote-name", "--remote-name-all"):
            remote = True
        elif name in ("-J", "--remote-header-name"):
            header_name = True
        elif name == "--url":
            urls.append(value)
    for name, value in options:
        how = _CURL_WRITES.get(name)
        if how is not None and value and value != "-":
            add(_within(directory, value) if name in ("-o", "--output") else value, how)
    if header_name:
        add(directory or ".", "curl -OJ")  # the server names the file
    elif remote:
        for url in urls:
            found = url_name(url)
            if found:
                add(_within(directory, found), "curl -O")


def wget(argv: list[str], add: Add) -> None:
    options, operands = read(argv, _WGET_SHORT_VALUES, _WGET_LONG_VALUES)
    directory = ""
    document: str | None = None
    tree = False
    for name, value in options:
        if name in ("-P", "--directory-prefix"):
            directory = value
        elif name in ("-O", "--output-document"):
            document = value
        elif name in ("-r", "--recursive", "-m", "--mirror", "-p", "--page-requisites"):
            tree = True
        how = _WGET_WRITES.get(name)
        if how is not None and value and value != "-":
            add(value, how)
    if document is not None:
        if document != "-":
            add(document, "wget -O")
    elif "--spider" in (name for name, _ in options):
        return  # checks that the pages are there, keeps nothing
    elif tree or any(name in ("-i", "--input-file") for name, _ in options):
        add(directory or ".", "wget -r" if tree else "wget -i")  # files the site or the list names
    else:
        for url in operands:
            add(_within(directory, url_name(url, "index.html")), "wget")


def aria2c(argv: list[str], add: Add) -> None:
    options, operands = read(argv, frozenset("dojsxik"), frozenset({"--dir", "--out", "--input-file", "--split",
                                                                       "--max-connection-per-server"}))
    values = dict(options)
    directory = values.get("-d") or values.get("--dir") or ""
    out = values.get("-o") or values.get("--out")
    if values.get("-i") or values.get("--input-file"):
        add(directory or ".", "aria2c -i")
    elif out:
        add(_within(directory, out), "aria2c")
    else:
        for url in operands:
            name = url_name(url, "index.html")
            if name:
                add(_within(directory, name), "aria2c")


def httpie(argv: list[str], add: Add) -> None:
    options, operands = read(argv, frozenset("oaAp"), frozenset({"--output", "--auth", "--auth-type", "--session",
                                                                   "--session-read-only", "--verify", "--cert",
                                                                   "--cert-key", "--print", "--pretty", "--style"}))
    values = dict(options)
    out = values.get("-o") or values.get("--output")
    if out and out != "-":
        add(out, "http -o")
    elif "-d" in values or "--download" in values:
        urls = [word for word in operands if word not in ("GET", "POST", "PUT", "HEAD", "DELETE", "PATCH")]
        if urls:
            name = url_name(urls[0], "index.html")
            if name:
                add(name, "http --download")


def sort(argv: list[str], add: Add) -> None:
    options, _ = read(argv, frozenset("okStT"), frozenset({"--output", "--key", "--field-separator", "--buffer-size",
                                                             "--temporary-directory", "--files0-from", "--batch-size",
                                                             "--parallel", "--compress-program", "--random-source"}))
    for name, value in options:
        if name in ("-o", "--output") and value and value != "-":
            add(value, "sort -o")


def uniq(argv: list[str], add: Add) -> None:
    _, operands = read(argv, frozenset("fsw"), frozenset({"--skip-fields", "--skip-chars", "--check-chars",
                                                            "--all-repeated", "--group"}))
    if len(operands) >= 2 and operands[1] != "-":
        add(operands[1], "uniq")


def split(program: str, argv: list[str], add: Add) -> None:
    """split FILE PREFIX, csplit -f PREFIX FILE PATTERN...: files named PREFIX and a suffix."""
    if program == "split":
        _, operands = read(argv, frozenset("abClnt"), frozenset({"--suffix-length", "--additional-suffix",
                                                                    "--bytes", "--line-bytes", "--lines", "--number",
                                                                    "--separator", "--filter", "--numeric-suffixes",
                                                                    "--hex-suffixes"}))
        prefix = operands[1] if len(operands) >= 2 else "x"
    else:
        options, _ = read(argv, frozenset("bfn"), frozenset({"--suffix-format", "--prefix", "--digits"}))
        values = dict(options)
        prefix = values.get("-f") or values.get("--prefix") or "xx"
    add(prefix + "*", program)


_COMPRESSORS = {"gzip": ".gz", "gunzip": ".gz", "bzip2": ".bz2", "bunzip2": ".bz2", "xz": ".xz", "unxz": ".xz",
                "lzma": ".lzma", "unlzma": ".lzma", "zstd": ".zst", "unzstd": ".zst", "lz4": ".lz4", "pigz": ".gz",
                "unpigz": ".gz"}
_DECOMPRESSORS = frozenset({"gunzip", "bunzip2", "unxz", "unlzma", "unzstd", "unpigz"})


def compressor(program: str, argv: list[str], add: AddRemoving) -> None:
    """Each FILE becomes FILE.gz (or back with -d): the one is written, the other removed; nothing
    with -c (standard output), -t (a test) or -l (a listing). zstd and lz4 keep the input unless
    told to remove it; a write is reported for it all the same."""
    options, operands = read(argv, frozenset("bSoLTM#") if program in ("zstd", "unzstd", "lz4") else frozenset("S"),
                             frozenset({"--suffix", "--output", "--threads", "--memory"}))
    names = {name for name, _ in options}
    if names & {"-c", "--stdout", "--to-stdout", "-t", "--test", "-l", "--list"}:
        return
    values = dict(options)
    suffix = values.get("-S") or values.get("--suffix") or _COMPRESSORS[program]
    out = values.get("-o") or values.get("--output")
    unpack = program in _DECOMPRESSORS or bool(names & {"-d", "--decompress", "--uncompress"})
    for operand in operands:
        if operand == "-":
            continue
        add(operand, program, True)
        if out:
            add(out, program, False)
        elif unpack:
            add(operand[: -len(suffix)] if operand.endswith(suffix) else operand + ".out", program, False)
        else:
            add(operand + suffix, program, False)


def seven_zip(argv: list[str], add: Add) -> None:
    """7z x/e ARCHIVE -oDIR extracts into DIR (the working directory without -o); 7z a ARCHIVE writes it."""
    words = argv[1:]
    if not words:
        return
    command = words[0]
    rest = [w for w in words[1:] if not w.startswith("-")]
    out = next((w[2:] for w in words[1:] if w.startswith("-o")), None)
    if command in ("x", "e"):
        add(out or ".", "7z x")
    elif command in ("a", "u", "d", "rn") and rest:
        add(rest[0], "7z " + command)


def edits(program: str, argv: list[str], add: Add) -> None:
    """yq -i EXPR FILE... and sd FIND REPLACE FILE... rewrite their files; iconv -o and openssl's
    -out (and -keyout) name the file they write."""
    if program == "yq":
        options, operands = read(argv, frozenset("pormIs"), frozenset({"--input-format", "--output-format",
                                                                        "--from-file", "--indent", "--split-exp"}))
        if any(name in ("-i", "--inplace") for name, _ in options):
            for file in operands[1:] if not any(n == "--from-file" for n, _ in options) else operands:
                add(file, "yq -i")
    elif program == "sd":
        _, operands = read(argv, frozenset("fn"), frozenset({"--flags", "--max-replacements"}))
        for file in operands[2:]:
            add(file, "sd")
    elif program == "iconv":
        options, _ = read(argv, frozenset("fto"), frozenset({"--from-code", "--to-code", "--output"}))
        for name, value in options:
            if name in ("-o", "--output") and value and value != "-":
                add(value, "iconv -o")
    else:
        for k, word in enumerate(argv[:-1]):
            if word in ("-out", "-keyout") and argv[k + 1] != "-":
                add(argv[k + 1], "openssl " + word)


# Each program this module reads, by how it is called: with its argv alone, or told its name too.
_BY_ARGV: dict[str, Callable[[list[str], Adder], None]] = {
    "curl": curl, "wget": wget, "aria2c": aria2c, "http": httpie, "https": httpie, "sort": sort, "uniq": uniq,
    "7z": seven_zip, "7za": seven_zip, "7zr": seven_zip}
_BY_NAME: dict[str, Callable[[str, list[str], Adder], None]] = {
    "split": split, "csplit": split, "yq": edits, "sd": edits, "iconv": edits, "openssl": edits,
    **dict.fromkeys(_COMPRESSORS, compressor)}
# The programs write() reads (shell/maywrite.py's OPTION_WRITERS: a test keeps them the same).
PROGRAMS = frozenset(_BY_ARGV) | frozenset(_BY_NAME)


def write(program: str, argv: list[str], add: Adder) -> None:
    """The files PROGRAM (one of PROGRAMS) writes, run as ARGV, each given to ADD."""
    by_argv = _BY_ARGV.get(program)
    if by_argv is not None:
        by_argv(argv, add)
    else:
        _BY_NAME[program](program, argv, add)
