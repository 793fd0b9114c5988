"""A fetched plugin, checked the way the engine will check it, before it is pinned.

The rules are loaded and settled by the engine's own code (engine/build.py): a rule that does not
load, lacks examples of either kind or fails one is refused. Their examples run with the plugin's
default settings, as they do when the rule set is built.
"""

from __future__ import annotations

from typing import Any

from jouet_git import term
from jouet_git.engine.load import load_file
from jouet_git.engine.model import PLUGIN, Rule
from jouet_git.engine.settle import settle as _settle
from jouet_git.engine.sources import Source
from jouet_git.plugin.manifest import RULES, Manifest, PluginError, jouet_too_old, read_manifest
from jouet_git.trust import review
from jouet_git.trust.content import Content, scan


class PluginReview:
    """A plugin folder's manifest, content, rules (settled) and why it cannot be pinned, if so."""

    __slots__ = ("content", "folder", "manifest", "name", "refusal", "rules", "views")

    def __init__(self, name: str, folder: str, manifest: Manifest | None, content: Content, rules: list[Rule],
                 refusal: str) -> None:
        self.name = name
        self.folder = folder
        self.manifest = manifest
        self.content = content
        self.rules = rules
        self.views = [review.rule_view(r, folder) for r in rules]
        self.refusal = refusal

    @property
    def runnable(self) -> int:
        return review.count_runnable(self.views)

    def scripts(self) -> list[dict[str, Any]]:
        import os

        paths = [os.path.join(self.folder, rel) for rel in self.content.files if rel.endswith(".luau")]
        return review.scripts_view(self.rules, paths, self.folder)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name, "sha256": self.content.digest, "refused": self.refusal or None,
            "description": self.manifest.description if self.manifest else None,
            "min_jouet": self.manifest.min_jouet if self.manifest else None,
            "settings": self.manifest.settings if self.manifest else None,
            "rules": self.views, "scripts": self.scripts(), "runnable": self.runnable,
        }

    def render(self) -> list[str]:
        lines = []
        if self.manifest is not None:
            lines.append(f"{self.name}: {self.manifest.description}")
            if self.manifest.settings:
                shown = ", ".join(f"{k} = {v!r}" for k, v in self.manifest.settings.items())
                lines.append(f"Settings (defaults): {shown}")
        files = term.count(len(self.content.files), "file")
        lines.append(f"Content: {files}, sha256 {self.content.digest}")
        if self.refusal:
            lines.append(f"Refused: {self.refusal}")
        lines.append(f"Rules ({len(self.views)}):")
        lines.extend(review.render_rules(self.views) or ["  none"])
        scripts = self.scripts()
        if scripts:
            lines.append(f"Scripts ({len(scripts)}):")
            lines.extend(review.render_scripts(scripts))
        return lines


def review_folder(name: str, folder: str) -> PluginReview:
    """Check the plugin in FOLDER as NAME: manifest, content, and each rule as the engine settles it."""
    import os

    content = scan(folder)
    try:
        manifest: Manifest | None = read_manifest(folder)
    except PluginError as error:
        return PluginReview(name, folder, None, content, [], error.message)
    assert manifest is not None
    refusal = ""
    if content.refused:
        refusal = content.refused[0]
    elif manifest.name != name:
        refusal = (f"{manifest.file} names the plugin `{manifest.name}`: add it as "
                   f"`jouet plugin add {manifest.name} ...`")
    elif jouet_too_old(manifest.min_jouet):
        refusal = jouet_too_old(manifest.min_jouet)
    rules: list[Rule] = []
    if not content.refused:
        label = f"plugin:{name}"
        source = Source(PLUGIN, label, os.path.join(folder, RULES), prefix=f"{name}/",
                        settings=manifest.settings, default_settings=manifest.settings)
        taken: dict[str, Rule] = {}
        for file in source.files:
            for rule in load_file(file, PLUGIN, label, source.prefix):
                rule.data["settings"] = dict(manifest.settings)
                _settle(rule, source, taken, [])
                rules.append(rule)
    return PluginReview(name, folder, manifest, content, rules, refusal)
