"""The sandbox loads lupa's Lua 5.4 module without running lupa's package __init__ (contextlib and
off a commit's hook), and lupa stays whole for anything that asks for more later."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

CHECK = """
import json, sys
before = {m for m in ('contextlib',) if m in sys.modules}
from jouet_git.luau.sandbox import Sandbox
from jouet_git.luau import lupa_import
sb = Sandbox()
lean = sorted({m for m in ('contextlib',) if m in sys.modules} - before)
stood = lupa_import.STOOD_IN[0]
import lupa
from lupa import lua54
runtime = lupa.LuaRuntime(register_eval=False)
print(json.dumps({"lean": lean, "stood": stood, "sum": runtime.eval("1 + 2"),
                  "same": lua54 is sys.modules["lupa.lua54"] and lupa.lua54 is lua54,
                  "version": lupa.__version__ == lupa_import.version(),
                  "helper": callable(lupa.allow_lua_module_loading)}))
"""


def _run(code: str, *args: str) -> dict[str, object]:
    proc = subprocess.run([sys.executable, "-I", "-c", code, *args], capture_output=True, text=True, check=True)
    result: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def test_the_sandbox_loads_lua54_without_lupas_init_and_lupa_stays_whole() -> None:
    out = _run(CHECK)
    assert out == {"lean": [], "stood": 1, "sum": 3, "same": True, "version": True, "helper": True}


def test_lupa_imported_first_is_used_as_it_is() -> None:
    out = _run("import lupa\n" + CHECK.replace("before = {", "before = set() or {"))
    assert out["stood"] == 0 and out["sum"] == 3 and out["same"] is True


def test_a_lupa_that_does_not_load_that_way_is_imported_as_usual(tmp_path: Path) -> None:
    package = tmp_path / "lupa"
    package.mkdir()
    (package / "__init__.py").write_text("REAL = True\n")
    (package / "version.py").write_text("__version__ = '0.0'\n")
    # This lua54 insists on the real package: under the stand-in it fails, and the ordinary import follows.
    (package / "lua54.py").write_text(
        "import sys\nif 'REAL' not in vars(sys.modules['lupa']):\n    raise ImportError('needs the package')\n"
        "LUA_VERSION = (5, 4)\n")
    code = ("import json, sys\nsys.path.insert(0, sys.argv[1])\nfrom jouet_git.luau import lupa_import\n"
            "m = lupa_import.lua54()\n"
            "print(json.dumps({'stood': lupa_import.STOOD_IN[0], 'real': vars(sys.modules['lupa']).get('REAL'),"
            " 'file': m.__file__, 'version': lupa_import.version()}))\n")
    out = _run(code, str(tmp_path))
    assert out == {"stood": 1, "real": True, "file": str(package / "lua54.py"), "version": "0.0"}
