"""Build hook: ship jouet's built-in rules and script translations pre-built in the wheel.

hatchling runs this when it builds a wheel. It writes jouet_git/prebuilt.marshal (see
jouet_git/engine/prebuilt.py) with the same code that loads rule files, so hooks never parse TOML
for the built-in rules and never take them, or their Lua translations, from a cache another process
can write. An editable install leaves it out: a source checkout makes and checks the file itself.
"""

from __future__ import annotations

import marshal
import os
import shutil
import sys
import tempfile
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class PrebuiltRules(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        if "tomli" not in sys.modules:
            try:
                import tomli  # noqa: F401
            except ImportError:  # Python 3.11+ has the same parser as tomllib
                import tomllib

                sys.modules["tomli"] = tomllib
        sys.path.insert(0, self.root)
        try:
            from jouet_git.engine import prebuilt

            data = prebuilt.generate(os.path.join(self.root, "rules"), os.path.join(self.root, "plugins"))
        finally:
            sys.path.remove(self.root)
        self._made = tempfile.mkdtemp(prefix="jouet-prebuilt-")
        out = os.path.join(self._made, prebuilt.FILE)
        with open(out, "wb") as f:
            f.write(marshal.dumps(data, 4))
        build_data["force_include"][out] = f"jouet_git/{prebuilt.FILE}"

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        made = getattr(self, "_made", None)
        if made:
            shutil.rmtree(made, ignore_errors=True)
