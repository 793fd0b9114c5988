"""The harness adapters jouet speaks, by name, imported only when used.

Like pre-commit's table of languages: each entry names the module that holds one harness's
ADAPTER (see harness/base.py). `jouet hook NAME EVENT` imports just that one.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from jouet_git.harness.base import Adapter

ADAPTERS: dict[str, str] = {
    "claude": "jouet_git.harness.claude",
    "git": "jouet_git.harness.git",
    "neutral": "jouet_git.harness.neutral",
    "polyhook": "jouet_git.harness.polyhook",
}

_union: dict[str, str] | None = None


def adapter(name: str) -> Adapter | None:
    """The adapter for the harness NAME, or None when jouet has none."""
    module_name = ADAPTERS.get(name)
    if module_name is None:
        return None
    found: Adapter = __import__(module_name, fromlist=["ADAPTER"]).ADAPTER
    return found


def tool_kind(tool: str, harness: str | None = None) -> str:
    """What kind of tool TOOL is: by HARNESS's own table when jouet has that harness, else by the
    first adapter (in registry order) that knows the name."""
    global _union
    from jouet_git.call import KIND_OTHER

    own = adapter(harness) if harness else None
    if own is not None:
        return own.tool_kind(tool)
    if _union is None:
        union: dict[str, str] = {}
        for name in ADAPTERS:
            found = adapter(name)
            if found is not None:
                for known, kind in found.tools.items():
                    union.setdefault(known, kind)
        _union = union
    return _union.get(tool, KIND_OTHER)
