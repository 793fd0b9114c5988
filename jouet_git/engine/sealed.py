"""The rule set's cached segment as the cache keeps it (engine/ruleset.py: Segment reads it): sealed,
its index by program one string and its rules one marshalled body. Made when a rule set is cached
(ruleset.write_cache) and taken apart only to patch an edited file of yours in (engine/patch.py):
never on the path of a call that reads the cache.
"""

from __future__ import annotations

import marshal

from jouet_git.engine.ruleset import MARSHAL_VERSION, Damaged

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def seal(data: dict[str, Any]) -> dict[str, Any]:
    """Segment DATA (pack(); its index may be sealed already) as the cache keeps it: the index as one
    string (for each program, a line break, the program, a tab and its rules' numbers joined by commas;
    one line break at the end), and what only a decoded rule needs as one marshalled body."""
    index = data["index"]
    if not isinstance(index, str):
        index = "".join([index_line(program, found) for program, found in index.items()]) + "\n"
    return {"base": data["base"], "count": len(data["blobs"]), "index": index,
            "always": data["always"], "broken": data["broken"],
            "body": marshal.dumps((data["blobs"], data["extras"], data["states"], data["names"], data["order"]),
                                  MARSHAL_VERSION)}


def index_line(program: str, found: list[int]) -> str:
    """PROGRAM's line of a sealed index ("" when no rule is listed under it)."""
    return f"\n{program}\t{','.join(map(str, found))}" if found else ""


def unseal(data: dict[str, Any], index: bool = True) -> dict[str, Any]:
    """Sealed segment DATA (seal()) as pack() makes it; without INDEX, its index stays the string."""
    blobs, extras, states, names, order = marshal.loads(data["body"])
    if not (len(blobs) == len(extras) == len(states) == len(names) == len(order) == data["count"]):
        raise Damaged("the sealed segment's lists do not agree")
    return {"base": data["base"], "blobs": blobs, "extras": extras, "states": states,
            "index": unseal_index(data["index"]) if index else data["index"],
            "always": data["always"], "order": order, "names": names, "broken": data["broken"]}


def unseal_index(sealed: str) -> dict[str, list[int]]:
    """A sealed index as a dict."""
    index: dict[str, list[int]] = {}
    for line in sealed.split("\n"):
        if line:
            program, _, found = line.partition("\t")
            index[program] = [int(i) for i in found.split(",")]
    return index
