"""An edit to a file of your rules, patched into the cached rule set instead of building it again.

engine/ruleset.py caches every rule from outside the package as one packed segment. When the only
paths that changed since are files of your own rules (`~/.config/jouet/rules/*.toml`, the directory
itself unchanged, so no file came or went), each is parsed again and its rules replace the ones it
held, in place: the other files are neither read nor decoded, and no other rule's examples run.

That is exactly what a full build would make, because an edited file of yours cannot change any
other rule: your rules run no examples, your source's trust does not depend on its files, and the
only tie between rules is their names (a rule whose name an earlier rule took is broken). So the
edited file's rules are settled against the names taken before it, and when a name the file takes
or gives back is also the name of a later rule, that rule's fate may change with it: the whole set
is built again instead.
Anything else that changed (config.toml, a directory, a script, another source's file) builds the
whole set again too (engine/build.py), as does anything this module cannot make sense of.

The extra data it needs (each file's span of rules, the name each rule took, the keys of the run
order) travels with the cache as one marshalled blob, decoded only on this path.
"""

from __future__ import annotations

import marshal
import os
import time

from jouet_git import paths as paths_module
from jouet_git.engine.model import USER, Rule
from jouet_git.engine.ruleset import (
    MARSHAL_VERSION,
    PATCH_LIMIT,
    Damaged,
    Segment,
    _lookup,
    _programs,
    _sig_list,
    is_racy,
    pack,
    pack_sigs,
    positions,
    signature,
)
from jouet_git.engine.sealed import index_line, seal, unseal, unseal_index

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def patch_info(rules: list[Rule], spans: dict[str, tuple[int, int]], claims: list[str | None]) -> bytes:
    """What patch() needs about a fresh build of RULES: SPANS, each file of yours with the index of its
    first rule and how many it holds; CLAIMS, the name each rule took (None: it took none)."""
    keys = [(r.source, r.source_label, r.script is not None) for r in rules]
    return marshal.dumps({"spans": spans, "claims": claims, "keys": keys}, MARSHAL_VERSION)


def patch(data: dict[str, Any], changed: list[str]) -> bool:
    """Bring DATA (a cached rule set as ruleset.read_cache reads it, its segment still packed) up to date
    with CHANGED, the paths whose signature or content no longer agree: True when done, False when the
    whole set must be built again. DATA is changed in place only when it returns True."""
    raw = data.get("patch")
    if not isinstance(raw, bytes) or not changed or len(changed) > PATCH_LIMIT:
        return False
    info = marshal.loads(raw)
    spans: dict[str, tuple[int, int]] = dict(info["spans"])
    claims: list[str | None] = list(info["claims"])
    keys: list[tuple[str, str, bool]] = list(info["keys"])
    # Only files directly in your rules directory, whatever the cache says: another source's file (a
    # repository's, whose trust depends on its content) is never parsed here as one of yours.
    yours = paths_module.user_rules_dir()
    if not all(isinstance(path, str) and path in spans and os.path.dirname(path) == yours
               and path.endswith(".toml") for path in changed):
        return False
    seg: dict[str, Any] = unseal(data["segment"], index=False)  # the index stays a string (_splice)
    if len(keys) != len(seg["blobs"]) or len(claims) != len(keys):
        raise Damaged("the patch data does not agree with the segment")
    paths: list[bytes] = data["paths"]
    sigs = _sig_list(data["sigs"])
    digests = dict(data["digests"])
    from jouet_git.engine import prebuilt
    from jouet_git.engine.settle import parse_file, settle

    builtin = prebuilt.segment()
    source: Any = _Yours()
    for path in sorted(changed):
        start, count = spans[path]
        if os.fsencode(path) not in paths or not 0 <= start <= start + count <= len(keys):
            raise Damaged(f"the patch data does not know {path}")
        sig = signature(path)
        read_at = time.time_ns()
        rules, digest = parse_file(path, USER, USER, "")
        if digest is None or sig is None:
            return False  # unreadable: a full build says why
        # The names taken before this file, with the rule that took each (for the error message).
        taken: dict[str, Rule] = {}
        names = {rule.name for rule in rules}
        cached = Segment(seg, trusted=False)
        for i, known in enumerate(builtin.opened().names):
            if known in names and known not in taken:
                taken[known] = builtin.rule(i, False)
        for i in range(start):
            claim = claims[i]
            if claim is not None and claim in names and claim not in taken:
                holder = cached.rule(i, False)
                if holder.source == "cache":
                    raise Damaged(f"the cached rule {claim} is damaged")
                taken[claim] = holder
        disable = data["disabled"]
        took: list[str | None] = []
        for rule in rules:
            settle(rule, source, taken, disable, None)
            took.append(rule.name if taken.get(rule.name) is rule else None)
        moved = {n for n in took if n} ^ {n for n in claims[start:start + count] if n}
        if moved and not moved.isdisjoint(seg["names"][start + count:]):
            return False  # a later rule's fate changes with the names this file takes or gives back
        seg = _splice(seg, start, count, pack(rules, None))
        delta = len(rules) - count
        claims[start:start + count] = took
        runs = [(r.source, r.source_label, r.script is not None) for r in rules]
        if runs != keys[start:start + count]:
            keys[start:start + count] = runs
            seg["order"] = positions(keys)
        if delta:
            for other, (at, n) in spans.items():
                if other > path:  # files of one directory load in the order of their names
                    spans[other] = (at + delta, n)
        spans[path] = (start, len(rules))
        sigs[paths.index(os.fsencode(path))] = sig
        if is_racy(sig, read_at):
            digests[path] = digest
        else:
            digests.pop(path, None)
    data["segment"] = seal(seg)
    data["sigs"] = pack_sigs(sigs)
    data["digests"] = digests
    data["patch"] = marshal.dumps({"spans": spans, "claims": claims, "keys": keys}, MARSHAL_VERSION)
    return True


class _Yours:
    """What settle() asks of the source of your rules (engine/sources.py: user): they always run, with
    no settings. (Importing sources would cost this path more than the rest of it.)"""

    kind = label = USER
    runs = True
    detail = prefix = ""
    settings = default_settings = None


def _splice(seg: dict[str, Any], start: int, count: int, new: dict[str, Any]) -> dict[str, Any]:
    """Segment data SEG with its rules START to START+COUNT replaced by those of NEW (both packed; the
    index of SEG sealed or not)."""
    end = start + count
    delta = len(new["blobs"]) - count

    def moved(indexes: list[int], added: list[int]) -> list[int]:
        kept = [i if i < start else i + delta for i in indexes if not start <= i < end]
        return sorted(kept + [start + i for i in added])

    index: dict[str, list[int]] | str = seg["index"]
    if delta:  # every index after the span moves
        old = unseal_index(index) if isinstance(index, str) else index
        index = {}
        for program, found in old.items():
            kept = moved(found, new["index"].get(program, []))
            if kept:
                index[program] = kept
        for program, found in new["index"].items():
            if program not in index:
                index[program] = [start + i for i in found]
    else:  # only the programs of the rules replaced and of their replacements
        touched = set(new["index"])
        for blob in seg["blobs"][start:end]:
            touched.update(_programs(marshal.loads(blob)[0]) or ())
        if isinstance(index, str):  # each touched program's line rewritten, the others left as they are
            for program in sorted(touched):
                index = _set_line(index, program, moved(_lookup(index, program), new["index"].get(program, [])))
        else:
            index = dict(index)
            for program in touched:
                kept = moved(index.get(program, []), new["index"].get(program, []))
                if kept:
                    index[program] = kept
                else:
                    index.pop(program, None)
    out = dict(seg)
    for field in ("blobs", "extras", "states", "names"):
        out[field] = seg[field][:start] + new[field] + seg[field][end:]
    out["index"] = index
    out["always"] = moved(seg["always"], new["always"])
    out["broken"] = moved(seg["broken"], new["broken"])
    return out


def _set_line(index: str, program: str, found: list[int]) -> str:
    """A sealed INDEX with PROGRAM's line saying FOUND (its line dropped when FOUND is empty)."""
    line = index_line(program, found)
    at = index.find(f"\n{program}\t")  # a program is a rule's first word: it holds no whitespace
    if at < 0:
        return index[:-1] + line + "\n" if line else index
    return index[:at] + line + index[index.index("\n", at + 1):]
