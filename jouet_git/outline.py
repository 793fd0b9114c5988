"""A light outline of a source file: the lines that define something (functions, classes, types),
found by a pattern per language, without parsing.

    outline.language("src/app.py")        # "Python", or None for a file jouet cannot outline
    outline.outline(text, "Python")       # [(12, "def main(argv):"), (40, "class Runner:"), ...]

The languages are those LANGUAGES lists, by file extension. A file in one of them counts as code
for the `min_code_lines` matcher key (a long log, a saved command output or a document read whole
does not), and `jouet read --outline FILE` prints its outline, so an agent can read the part it
needs instead of the whole file.

On the hook path only for `min_code_lines` (language() is a dictionary look-up); re is imported
when an outline is asked for.
"""

from __future__ import annotations

import os

# Extension -> language. Keep README.md's list ("Reading files") in step.
LANGUAGES: dict[str, str] = {
    ".py": "Python", ".pyi": "Python",
    ".js": "JavaScript", ".mjs": "JavaScript", ".cjs": "JavaScript", ".jsx": "JavaScript",
    ".ts": "TypeScript", ".mts": "TypeScript", ".cts": "TypeScript", ".tsx": "TypeScript",
    ".rs": "Rust",
    ".go": "Go",
    ".lua": "Lua", ".luau": "Lua",
    ".sh": "Shell", ".bash": "Shell", ".zsh": "Shell",
    ".rb": "Ruby",
    ".java": "Java", ".kt": "Kotlin", ".kts": "Kotlin", ".scala": "Scala",
    ".c": "C", ".h": "C", ".cc": "C++", ".cpp": "C++", ".cxx": "C++", ".hpp": "C++", ".hh": "C++",
    ".cs": "C#", ".swift": "Swift", ".php": "PHP",
}

_C_LIKE = (
    r"^\s*(?:(?:public|private|protected|internal|static|final|abstract|sealed|override|virtual|async|open|"
    r"inline|extern|export|data|suspend|partial)\s+)*(?:class|interface|struct|enum|record|object|trait|"
    r"namespace|fun|func|protocol|extension)\b"
    r"|^[A-Za-z_][\w:<>,\s\*&\[\]]*?[\s\*&]\**~?[A-Za-z_][\w:~]*\s*\([^;]*$"
)

# Language -> the pattern of a line that defines something.
PATTERNS: dict[str, str] = {
    "Python": r"^\s*(?:async\s+)?def\s+\w+|^\s*class\s+\w+",
    "JavaScript": (r"^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*\w+|^\s*(?:export\s+)?"
                   r"(?:default\s+)?class\s+\w+|^\s*(?:export\s+)?(?:const|let|var)\s+\w+\s*=\s*(?:async\s+)?"
                   r"(?:function\b|\([^)]*\)\s*=>|\w+\s*=>)"),
    "TypeScript": (r"^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:async\s+)?function\s*\*?\s*\w+"
                   r"|^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?class\s+\w+"
                   r"|^\s*(?:export\s+)?(?:declare\s+)?(?:interface|enum|namespace)\s+\w+"
                   r"|^\s*(?:export\s+)?type\s+\w+.*="
                   r"|^\s*(?:export\s+)?(?:const|let|var)\s+\w+\s*(?::[^=]+)?=\s*(?:async\s+)?"
                   r"(?:function\b|\([^)]*\)\s*(?::[^=]+)?=>|\w+\s*=>)"),
    "Rust": (r"^\s*(?:pub(?:\([\w:]+\))?\s+)?(?:const\s+|async\s+|unsafe\s+|extern\s+\"\w+\"\s+)*"
             r"(?:fn|struct|enum|trait|impl|mod|type|union|macro_rules!)\b"),
    "Go": r"^func\b|^type\s+\w+",
    "Lua": r"^\s*(?:local\s+)?function\s+[\w.:]+|^\s*(?:local\s+)?[\w.]+\s*=\s*function\b|^\s*(?:export\s+)?type\s+\w+",
    "Shell": r"^\s*function\s+[\w.:-]+|^\s*[\w.:-]+\s*\(\)\s*(?:\{|\(|$)",
    "Ruby": r"^\s*(?:def|class|module)\s+\S+",
    "Java": _C_LIKE, "Kotlin": _C_LIKE, "Scala": r"^\s*(?:(?:private|protected|final|sealed|abstract|case|"
                                                  r"implicit|override)\s+)*(?:def|class|object|trait)\s+\w+",
    "C": _C_LIKE, "C++": _C_LIKE, "C#": _C_LIKE, "Swift": _C_LIKE,
    "PHP": r"^\s*(?:(?:public|private|protected|static|abstract|final)\s+)*(?:function|class|interface|trait)\s+\w+",
}
MAX_LINE = 160


def language(path: str) -> str | None:
    """The language jouet outlines PATH as, by its extension; None for any other file."""
    return LANGUAGES.get(os.path.splitext(path)[1].lower())


def outline(text: str, lang: str) -> list[tuple[int, str]]:
    """(line number, the line) for each line of TEXT that defines something in LANG."""
    import re

    pattern = re.compile(PATTERNS[lang])
    out: list[tuple[int, str]] = []
    for number, line in enumerate(text.splitlines(), 1):
        if pattern.match(line):
            shown = line.rstrip()
            out.append((number, shown if len(shown) <= MAX_LINE else shown[:MAX_LINE] + "..."))
    return out
