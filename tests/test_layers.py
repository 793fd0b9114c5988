"""The package's layers, as the README's "How it works" draws them, hold in the code.

Every `import` of jouet_git inside jouet_git is read (those inside functions too, not those under
`if TYPE_CHECKING:`, which never run) and checked against what each part may use.
"""

from __future__ import annotations

import ast
from pathlib import Path

import jouet_git
from jouet_git.harness import ADAPTERS

PACKAGE = Path(jouet_git.__file__).parent

# The leaves: they use nothing of jouet_git but each other (and call <-> shell: a Call parses its
# command with the shell reader on first use).
BASE = {"call", "errors", "paths", "store", "regular", "gitrun", "gitdir", "cmdline", "gitopts", "gitbuiltins",
        "budgets", "journal", "commands_index", "term", "agentenv", "realpath", "gitmemo", "__version__", "jouet_git"}
ALLOWED: dict[str, set[str]] = {
    "luau": set(),  # a library: nothing else of jouet_git, not even the base
    # What a session was shown (for `seen`), a project's fnox config, and source outlines: leaves
    # the engine asks when a matcher's state keys need them.
    "outline": set(),
    "fnox": set(),
    "reads": BASE | {"shell", "outline"},
    "shell": {"call", "cmdline"},
    "call": {"shell", "gitalias", "gitbuiltins"},
    # What a git alias runs is read as part of the command: with the shell reader, into Commands.
    "gitalias": BASE | {"shell"},
    "gitleaks": BASE,
    "claims": BASE,
    # Probes read the hooks' ledger (session.fired, ci.last_run); the ledger redacts what it stores
    # with gitleaks' rules.
    "probes": BASE | {"claims", "gitleaks", "shell", "ledger", "guarded", "fnox"},
    # What of jouet's a path is: jouet's directories, and the files `jouet setup` writes (setup's tables
    # and readers, which use only the base).
    "guarded": BASE | {"shell", "setup"},
    # The engine reads rule sources from trust records and plugin pins, and asks the harness
    # registry (jouet_git.harness) for tool kinds; trust/ and plugin/ build and show rules with it.
    "engine": BASE | {"shell", "luau", "probes", "claims", "trust", "plugin", "ledger", "ledger_stamp", "harness",
                      "guarded", "reads", "fnox"},
    "trust": BASE | {"engine"},
    "plugin": BASE | {"engine", "trust"},
    "ledger": BASE | {"gitleaks"},
    # A ledger line a stream writes again, made into JSON once (off the hook path: ledger.py is on it).
    "ledger_stamp": BASE | {"ledger"},
    "setup": BASE | {"harness"},
    "harness": BASE | {"engine", "shell", "screen", "prompts", "reads"},
    # Screening text for secrets with gitleaks' rules; the session's stored request.
    "screen": BASE | {"gitleaks", "ledger"},
    "prompts": BASE | {"ledger"},
    "commands": BASE | {"engine", "shell", "luau", "probes", "claims", "trust", "plugin", "ledger", "harness",
                        "setup", "gitleaks", "outline"},
    "cli": BASE | {"commands", "bundle"},
    # The code of a wheel's modules in one file, and the import finder that reads it: a leaf.
    "bundle": set(),
    # `jouet completions` reads every command's parser, as the CLI builds them: it sits beside cli.
    "completions": BASE | {"cli", "harness"},
    "__main__": {"cli"},
}
# Adapter modules only translate: they may use these and nothing else of jouet_git.
# harness.common holds what the adapters share (payload fields, apply_patch targets, the Verdict an
# Outcome comes to); the registry (jouet_git.harness) lets Claude Code's adapter hand a payload that
# another harness sent (Cursor and Copilot run Claude Code's hooks) to that harness's adapter.
ADAPTER_MAY_USE = {"jouet_git.call", "jouet_git.errors", "jouet_git.harness.base", "jouet_git.harness.git_events",
                   "jouet_git.harness.tools", "jouet_git.gitrun", "jouet_git.cmdline", "jouet_git.term", "jouet_git",
                   "jouet_git.harness.common", "jouet_git.harness"}


def _module(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "jouet_git"


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every jouet_git import that can run: not those under `if TYPE_CHECKING:`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            skipped.update(id(n) for child in node.body for n in ast.walk(child))
    found = []
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "jouet_git":
            for alias in node.names:  # `from jouet_git.harness import git_events` imports a module
                full = f"{node.module}.{alias.name}"
                is_module = (PACKAGE.parent / (full.replace(".", "/") + ".py")).exists() or \
                    (PACKAGE.parent / full.replace(".", "/")).is_dir()
                found.append((node.lineno, full if is_module else node.module))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.split(".")[0] == "jouet_git"]
    return found


def _files() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_each_part_uses_only_the_layers_below_it() -> None:
    wrong = []
    for path in _files():
        unit = _unit(_module(path))
        allowed = ALLOWED.get(unit, BASE)
        for line, imported in _imports(path):
            target = _unit(imported)
            if target != unit and target not in allowed:
                wrong.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {unit} imports {imported}")
    assert wrong == [], "\n".join(wrong)


def test_adapters_only_translate() -> None:
    wrong = []
    for module in ADAPTERS.values():
        path = PACKAGE.parent / (module.replace(".", "/") + ".py")
        for line, imported in _imports(path):
            if imported not in ADAPTER_MAY_USE:
                wrong.append(f"{path.relative_to(PACKAGE.parent)}:{line}: an adapter imports {imported}")
    assert wrong == [], "\n".join(wrong)


def test_no_command_imports_another() -> None:
    """A command may use its own parts (commands/rule.py uses rule_list.py, rule_test.py, ...)."""
    wrong = []
    for path in (PACKAGE / "commands").glob("*.py"):
        own = f"jouet_git.commands.{path.stem.split('_')[0]}"
        for line, imported in _imports(path):
            if imported.startswith("jouet_git.commands.") and not (imported == own or imported.startswith(own + "_")):
                wrong.append(f"{path.relative_to(PACKAGE.parent)}:{line}: imports {imported}")
    assert wrong == [], "\n".join(wrong)


def test_every_unit_is_placed() -> None:
    units = {_unit(_module(p)) for p in _files()}
    assert units <= set(ALLOWED) | BASE, sorted(units - set(ALLOWED) - BASE)
