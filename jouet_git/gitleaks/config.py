"""The gitleaks config a scan will use, and what the pre-check needs from it.

gitleaks picks its config in this order: `--config`, $GITLEAKS_CONFIG (a path), $GITLEAKS_CONFIG_TOML
(the content), `<target>/.gitleaks.toml`, else the default config compiled into the binary. A config
may `[extend]` the default (`useDefault = true`) or another file (`path = ...`, relative to where
gitleaks runs, which for jouet is the top of the work tree), dropping some of its rules
(`disabledRules`); a rule repeated with the same id adds its keywords to the base rule's. Keys are
case-insensitive, as viper reads them.

summarize() follows the same steps and returns a RuleSummary (keywords, keyword-less rules, path-only
rules, allowlisted paths), or None with a reason when anything is not certain, in which case the
caller runs gitleaks.

The summary decides whether gitleaks runs at all, so it never comes from a file another process can
write. The default config of the gitleaks release jouet pins is generated with the package
(gitleaks/default.py: in the wheel when it is built, beside the sources in a source checkout) by
derive_default(): a gitleaks whose default config is that one (the official bundled binary of that
release, or any binary whose embedded config has the same hash) is summarized from it without
parsing anything. Any other config (a repository's, a commit's, another release's default) is read
from its files in each process that scans, a config that extends the default taking the generated
rules as its base; so is the default config itself when there is no generated data.
"""

from __future__ import annotations

import os

from jouet_git.gitleaks.summary import ConfigSource, RuleSummary

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

DEFAULT_MARKER = b'title = "gitleaks config"'
MAX_EXTEND_DEPTH = 2  # gitleaks follows [extend] at most two levels deep


class Unsure(Exception):
    """The config cannot be read, or read for sure, the way gitleaks would."""


def resolve_source(toplevel: str, environ: dict[str, str] | None = None) -> ConfigSource:
    """The config gitleaks would load when scanning TOPLEVEL, by gitleaks' own precedence."""
    env = os.environ if environ is None else environ
    path = env.get("GITLEAKS_CONFIG")
    if path:
        return ConfigSource("env", os.path.join(toplevel, path))
    text = env.get("GITLEAKS_CONFIG_TOML")
    if text:
        return ConfigSource("env-toml", text=text)
    repo = os.path.join(toplevel, ".gitleaks.toml")
    if os.path.isfile(repo):
        return ConfigSource("repo", repo)
    return ConfigSource("default")


def embedded_default(binary: str) -> str:
    """The default config compiled into the gitleaks BINARY (raises Unsure when not found)."""
    try:
        with open(binary, "rb") as f:
            data = f.read()
    except OSError as error:
        raise Unsure(f"cannot read {binary}: {error.strerror}") from None
    at = data.find(DEFAULT_MARKER)
    if at < 0 or data.find(DEFAULT_MARKER, at + 1) >= 0:
        raise Unsure(f"cannot find one default config inside {binary}")
    start = data.rfind(b"\0", 0, at) + 1
    end = data.find(b"\0", at)
    if end < 0:
        end = len(data)
    try:
        return data[start:end].decode("utf-8")
    except UnicodeDecodeError:
        raise Unsure(f"the default config inside {binary} is not UTF-8") from None


# --- reading a config the way gitleaks translates it ------------------------------------------------


class _Rule:
    __slots__ = ("entropy", "keywords", "path", "regex", "secret_group")

    def __init__(self, regex: str | None, path: str | None, keywords: list[str], entropy: float = 0.0,
                 secret_group: int = 0) -> None:
        self.regex = regex
        self.path = path
        self.keywords = keywords
        self.entropy = entropy  # a match whose secret has no more entropy than this is not a finding
        self.secret_group = secret_group


class _Reader:
    """Reads one config and what it extends, remembering every file it read."""

    def __init__(self, binary: str, toplevel: str) -> None:
        self.binary = binary
        self.toplevel = toplevel
        self.files: list[str] = []

    def default_rules(self) -> tuple[dict[str, _Rule], list[str]]:
        """The rules and allowlisted paths of the binary's default config."""
        rules, allow = default_config(self.binary)
        return {k: _Rule(r.regex, r.path, list(r.keywords), r.entropy, r.secret_group) for k, r in rules.items()}, \
            list(allow)

    def read_file(self, path: str) -> str:
        full = os.path.join(self.toplevel, path)
        try:
            with open(full, encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError) as error:
            raise Unsure(f"cannot read the gitleaks config {full}: {error}") from None
        self.files.append(os.path.abspath(full))
        return text

    def translate(self, text: str, depth: int, name: str) -> tuple[dict[str, _Rule], list[str]]:
        """The rules (by id) and allowlisted path patterns of a config, extensions included."""
        data = _parse_toml(text, name)
        rules: dict[str, _Rule] = {}
        for index, raw in enumerate(_list_of_tables(data.get("rules", []), f"{name}: rules")):
            rule_id = raw.get("id", f"#{index}")
            regex = _optional_str(raw.get("regex"), f"{name}: rule {rule_id}: regex")
            path = _optional_str(raw.get("path"), f"{name}: rule {rule_id}: path")
            keywords = _str_list(raw.get("keywords", []), f"{name}: rule {rule_id}: keywords")
            entropy = _number(raw.get("entropy", 0.0), f"{name}: rule {rule_id}: entropy")
            group = _number(raw.get("secretgroup", 0), f"{name}: rule {rule_id}: secretGroup")
            rules[str(rule_id)] = _Rule(regex, path, [k.lower() for k in keywords], float(entropy), int(group))
        allow = _allow_paths(data, name)
        extend = data.get("extend", {})
        if not isinstance(extend, dict):
            raise Unsure(f"{name}: [extend] is not a table")
        if depth != MAX_EXTEND_DEPTH:
            use_default = extend.get("usedefault", False)
            path = _optional_str(extend.get("path"), f"{name}: extend.path")
            if not isinstance(use_default, bool):
                raise Unsure(f"{name}: extend.useDefault is not true or false")
            if use_default and path:
                raise Unsure(f"{name}: sets both extend.useDefault and extend.path, which gitleaks refuses")
            base = None
            if use_default:
                base = self.default_rules()
            elif path:
                base = self.translate(self.read_file(path), depth + 1, path)
            if base is not None:
                disabled = set(_str_list(extend.get("disabledrules", []), f"{name}: extend.disabledRules"))
                _merge(rules, base[0], disabled)
                allow = allow + base[1]
        return rules, allow


def _lower_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k).lower(): _lower_keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_lower_keys(v) for v in value]
    return value


def _parse_toml(text: str, name: str) -> dict[str, Any]:
    import tomli

    try:
        data = tomli.loads(text)
    except tomli.TOMLDecodeError as error:
        raise Unsure(f"{name}: not valid TOML: {error}") from None
    lowered: dict[str, Any] = _lower_keys(data)
    return lowered


def _list_of_tables(value: Any, what: str) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise Unsure(f"{what} is not a list of tables")
    return value


def _optional_str(value: Any, what: str) -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise Unsure(f"{what} is not a string")
    return value


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise Unsure(f"{what} is not a number")
    return value


def _str_list(value: Any, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise Unsure(f"{what} is not a list of strings")
    return value


def _allow_paths(data: dict[str, Any], name: str) -> list[str]:
    """Path patterns of global allowlists that skip a file whatever its content."""
    tables: list[dict[str, Any]] = []
    if isinstance(data.get("allowlist"), dict):
        tables.append(data["allowlist"])
    elif "allowlist" in data:
        raise Unsure(f"{name}: [allowlist] is not a table")
    tables += _list_of_tables(data.get("allowlists", []), f"{name}: allowlists")
    paths: list[str] = []
    for table in tables:
        if table.get("targetrules"):
            continue
        condition = str(table.get("condition", "")).lower()
        if condition in ("", "or", "||"):
            pass
        elif condition in ("and", "&&"):
            if table.get("commits") or table.get("regexes") or table.get("stopwords"):
                continue
        else:
            raise Unsure(f"{name}: unknown allowlist condition {condition!r}")
        paths += _str_list(table.get("paths", []), f"{name}: allowlist paths")
    return paths


def _merge(rules: dict[str, _Rule], base: dict[str, _Rule], disabled: set[str]) -> None:
    """Fold the extended config's rules into RULES, as gitleaks' extend step does."""
    for rule_id, rule in base.items():
        if rule_id in disabled:
            continue
        mine = rules.get(rule_id)
        if mine is None:
            rules[rule_id] = rule
            continue
        keywords = rule.keywords + mine.keywords
        rules[rule_id] = _Rule(mine.regex or rule.regex, mine.path or rule.path, keywords,
                               mine.entropy or rule.entropy, mine.secret_group or rule.secret_group)


def _summary(rules: dict[str, _Rule], allow: list[str]) -> RuleSummary:
    keywords: set[str] = set()
    always = False
    path_rules: list[str] = []
    for rule_id, rule in rules.items():
        if rule.regex is None and rule.path is None:
            raise Unsure(f"rule {rule_id} has neither a regex nor a path")
        if rule.keywords:
            for keyword in rule.keywords:
                if keyword == "":
                    always = True
                elif "\n" in keyword or "\r" in keyword:
                    raise Unsure(f"rule {rule_id} has a keyword spanning lines")
                keywords.add(keyword)
        elif rule.regex is not None:
            always = True
        else:
            path_rules.append(rule.path or "")
    from jouet_git.gitleaks.precheck import go_lower

    return RuleSummary(sorted({go_lower(k) for k in keywords if k}), always, path_rules, allow)


# --- the default config, generated or read -----------------------------------------------------------

_defaults: dict[str, tuple[dict[str, _Rule], list[str], bool]] = {}


def _sha256(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def is_generated(binary: str) -> bool:
    """Whether BINARY's default config is the one generated with jouet (gitleaks/default.py)."""
    default_config(binary)
    return _defaults[binary][2]


def default_config(binary: str) -> tuple[dict[str, _Rule], list[str]]:
    """The rules (by id) and allowlisted paths of the default config inside BINARY: the generated ones
    when it is the config they were made from, else read out of the binary (raises Unsure)."""
    known = _defaults.get(binary)
    if known is None:
        from jouet_git.gitleaks import default as generated
        from jouet_git.gitleaks.binary import bundled_release

        head = generated.head()
        text = None
        same = False
        if head is not None:
            if head["official"] and head["version"] is not None and bundled_release(binary) == head["version"]:
                same = True
            else:
                text = embedded_default(binary)
                same = _sha256(text) == head["config_sha256"]
        body = generated.body() if same else None
        if body is not None:
            rules = _rules_from(body["rules"])
            allow = list(body["allow_paths"])
        else:
            if text is None:
                text = embedded_default(binary)
            rules, allow = _Reader(binary, "/").translate(text, MAX_EXTEND_DEPTH, "the default config")
            same = False
        known = _defaults[binary] = (rules, allow, same)
    return known[0], known[1]


def _rules_from(derived: dict[str, list[Any]]) -> dict[str, _Rule]:
    """Rules as derive_default() lists them, as _Rule objects."""
    return {rule_id: _Rule(regex, path, list(keywords), float(entropy), int(group))
            for rule_id, (regex, path, keywords, entropy, group) in derived.items()}


def summary_of(rules: dict[str, list[Any]], allow: list[str]) -> RuleSummary:
    """The summary of derived rules ({id: [regex, path, keywords, entropy, secretGroup]}, as
    derive_default() gives them) with their path patterns translated ahead (raises Unsure)."""
    from jouet_git.gitleaks.summary import translations

    summary = _summary(_rules_from(rules), allow)
    summary.translated = translations(summary.path_rules + summary.allow_paths)
    return summary


def derive_default(binary: str) -> dict[str, Any]:
    """What jouet generates about the default config inside BINARY (gitleaks/default.py): its hash,
    its rules and allowlisted paths, and the rules the ledger redacts with (raises Unsure)."""
    from jouet_git.gitleaks.redact import build_from_text

    text = embedded_default(binary)
    rules, allow = _Reader(binary, "/").translate(text, MAX_EXTEND_DEPTH, "the default config")
    redact = build_from_text(text) or {"rules": [], "allow": []}
    return {"config_sha256": _sha256(text),
            "rules": {k: [r.regex, r.path, r.keywords, r.entropy, r.secret_group] for k, r in rules.items()},
            "allow_paths": allow, "redact_rules": redact["rules"], "redact_allow": redact["allow"]}


def _read_chain(binary: str, source: ConfigSource, toplevel: str) -> tuple[dict[str, _Rule], list[str]]:
    if source.kind == "default":
        return default_config(binary)
    reader = _Reader(binary, toplevel)
    if source.kind == "env-toml":
        text, name = source.text or "", "$GITLEAKS_CONFIG_TOML"
    else:
        text, name = reader.read_file(source.path or ""), str(source.path)
    return reader.translate(text, 0, name)


def summarize(binary: str, source: ConfigSource, toplevel: str,
              use_cache: bool = True) -> tuple[RuleSummary | None, str]:
    """The RuleSummary of SOURCE as gitleaks at BINARY will read it, or None and why not. The second
    value says how it was had: "generated" (the default config generated with jouet) or "read"."""
    if source.kind == "default":
        from jouet_git.gitleaks.summary import generated_default

        ready = generated_default(binary)
        if ready is not None:
            return ready, "generated"
    try:
        rules, allow = _read_chain(binary, source, toplevel)
        summary = _summary(rules, allow)
    except Unsure as error:
        return None, str(error)
    generated = source.kind == "default" and is_generated(binary)
    return summary, "generated" if generated else "read"


class RuleSpec:
    """One rule as far as telling whether it can match text matters: what screening pre-checks.

    keywords are lower-cased (empty: the rule runs on every fragment); regex None: a rule about
    file names only; entropy 0: no threshold; secret_group 0: the first non-empty group.
    """

    __slots__ = ("entropy", "id", "keywords", "regex", "secret_group")

    def __init__(self, id: str, regex: str | None, keywords: list[str], entropy: float, secret_group: int) -> None:
        self.id = id
        self.regex = regex
        self.keywords = keywords
        self.entropy = entropy
        self.secret_group = secret_group

    def to_json(self) -> list[Any]:
        return [self.id, self.regex, self.keywords, self.entropy, self.secret_group]

    @classmethod
    def from_json(cls, data: list[Any]) -> RuleSpec:
        rule_id, regex, keywords, entropy, group = data
        return cls(str(rule_id), regex if isinstance(regex, str) else None, [str(k) for k in keywords],
                   float(entropy), int(group))


def rule_specs(binary: str, source: ConfigSource, toplevel: str,
               use_cache: bool = True) -> tuple[list[RuleSpec] | None, str]:
    """Every rule of SOURCE as gitleaks at BINARY will read it (RuleSpec), or None and why not (the
    second value as for summarize())."""
    from jouet_git.gitleaks.precheck import go_lower

    try:
        rules, _allow = _read_chain(binary, source, toplevel)
        for rule_id, rule in rules.items():
            if rule.regex is None and rule.path is None:
                raise Unsure(f"rule {rule_id} has neither a regex nor a path")
    except Unsure as error:
        return None, str(error)
    specs = [RuleSpec(rule_id, rule.regex, sorted({go_lower(k) for k in rule.keywords}), rule.entropy,
                      rule.secret_group) for rule_id, rule in rules.items()]
    generated = source.kind == "default" and is_generated(binary)
    return specs, "generated" if generated else "read"


def has_relative_extend(source: ConfigSource, toplevel: str) -> bool:
    """Whether the config chain extends a file by a relative path (resolved from where gitleaks runs)."""
    reader = _Reader("", toplevel)
    try:
        if source.kind == "env-toml":
            text = source.text or ""
        elif source.path:
            text = reader.read_file(source.path)
        else:
            return False
        for _ in range(MAX_EXTEND_DEPTH):
            extend = _parse_toml(text, "config").get("extend", {})
            path = extend.get("path") if isinstance(extend, dict) else None
            if not isinstance(path, str) or not path or extend.get("usedefault"):
                return False
            if not os.path.isabs(path):
                return True
            text = reader.read_file(path)
    except Unsure:
        return False
    return False


def write_absolute_copy(source: ConfigSource, toplevel: str, directory: str) -> str:
    """Copies of the config chain under DIRECTORY whose extend paths are absolute; the top copy's path.

    gitleaks resolves `[extend] path` from its working directory; jouet runs `gitleaks dir` from a
    temporary directory, so a relative path must be made absolute first (from the top of the work
    tree, where gitleaks would run as a git hook). tomlkit keeps everything else as written.
    """
    import tomlkit

    if source.kind == "env-toml":
        text = source.text or ""
    else:
        with open(source.path or "", encoding="utf-8") as f:
            text = f.read()
    top = ""
    for level in range(MAX_EXTEND_DEPTH + 1):
        doc = tomlkit.parse(text)
        target = None
        for key in list(doc.keys()):
            if key.lower() == "extend":
                table = doc[key]
                for sub in list(table.keys()):
                    if sub.lower() == "path" and isinstance(table[sub], str) and table[sub]:
                        target = os.path.join(toplevel, str(table[sub]))
                        table[sub] = os.path.join(directory, f"config-{level + 1}.toml")
        out = os.path.join(directory, f"config-{level}.toml")
        with open(out, "w", encoding="utf-8") as f:
            f.write(tomlkit.dumps(doc))
        top = top or out
        if target is None or level == MAX_EXTEND_DEPTH:
            break
        with open(target, encoding="utf-8") as f:
            text = f.read()
    return top
