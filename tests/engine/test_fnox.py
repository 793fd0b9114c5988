"""Reading a project's fnox config (jouet_git/fnox.py) as fnox's documentation describes it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from jouet_git import fnox


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    fnox.clear_cache()
    yield
    fnox.clear_cache()


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_no_config_is_no_fnox_project(tmp_path: Path) -> None:
    assert fnox.find(str(tmp_path)) is None


def test_which_entries_are_secrets(tmp_path: Path) -> None:
    write(tmp_path / "fnox.toml", """
default_provider = "age"
[providers]
age = { type = "age", recipients = ["age1x"] }
aws = { type = "aws-sm", region = "us-east-1" }
plain = { type = "plain" }
dotenv = { type = "plain", file = "conf/secrets.env", format = "env" }
[secrets]
JWT_SECRET = { provider = "age", value = "YWdl" }
DATABASE_URL = { provider = "aws", value = "database-url", default = "postgres://localhost/dev" }
STRIPE = { value = "YWdl" }
FROM_ENV = { description = "set in CI", if_missing = "error" }
LOG_LEVEL = { default = "info" }
MODE = { provider = "plain", value = "dev" }
DB = { provider = "dotenv", value = "DATABASE_URL" }
APP_NAME = "myapp"
[profiles.prod.secrets]
PROD_HOOK = { provider = "age", value = "x" }
[profiles.prod.providers]
vault = { type = "plain", file = "~/prod.env", format = "env" }
""")
    config = fnox.find(str(tmp_path))
    assert config is not None and config.root == str(tmp_path)
    assert config.secrets == {"JWT_SECRET", "DATABASE_URL", "STRIPE", "FROM_ENV", "DB", "PROD_HOOK", "FNOX_AGE_KEY"}
    assert config.secret_files == {str(tmp_path / "conf" / "secrets.env"), str(Path.home() / "prod.env")}
    assert config.has_file("conf/secrets.env", str(tmp_path))
    assert config.has_file("../conf/secrets.env", str(tmp_path / "src"))
    assert config.has_file("~/prod.env", str(tmp_path))
    assert not config.has_file("conf/other.env", str(tmp_path))


def test_the_walk_up_the_hidden_and_config_forms_siblings_and_root(tmp_path: Path) -> None:
    write(tmp_path / "fnox.toml", '[secrets]\nOUTER = { provider = "a", value = "x" }\n')
    project = tmp_path / "project"
    write(project / ".fnox.toml", 'root = true\n[secrets]\nPROJECT = { provider = "a", value = "x" }\n')
    write(project / "fnox.local.toml", '[secrets]\nLOCAL = { provider = "a", value = "x" }\n')
    write(project / ".fnox.staging.toml", '[secrets]\nSTAGING = { provider = "a", value = "x" }\n')
    service = project / "services" / "api"
    write(service / ".config" / "fnox.toml", '[secrets]\nAPI = { provider = "a", value = "x" }\n')
    write(service / ".config" / "fnox.local.toml", '[secrets]\nAPI_LOCAL = { provider = "a", value = "x" }\n')
    (service / "src").mkdir()
    config = fnox.find(str(service / "src"))
    assert config is not None and config.root == str(service)
    # root = true in the project's config stops the walk: the outer config is not the project's.
    assert config.secrets == {"PROJECT", "LOCAL", "STAGING", "API", "API_LOCAL", "FNOX_AGE_KEY"}
    assert fnox.find(str(tmp_path)) is not None
    outer = fnox.find(str(tmp_path))
    assert outer is not None and outer.secrets == {"OUTER", "FNOX_AGE_KEY"}


def test_imports_and_broken_files(tmp_path: Path) -> None:
    write(tmp_path / "fnox.toml", 'imports = ["shared/base.toml"]\n[secrets]\nA = { provider = "x", value = "y" }\n')
    write(tmp_path / "shared" / "base.toml", '[secrets]\nSHARED = { provider = "x", value = "y" }\n'
          '[providers]\nf = { type = "plain", file = "../secrets.json", format = "json" }\n')
    write(tmp_path / "fnox.local.toml", "this is [not toml")
    config = fnox.find(str(tmp_path))
    assert config is not None
    assert config.secrets == {"A", "SHARED", "FNOX_AGE_KEY"}
    assert config.secret_files == {str(tmp_path / "secrets.json")}


def test_a_project_with_a_config_but_no_secrets_is_still_a_fnox_project(tmp_path: Path) -> None:
    write(tmp_path / "fnox.toml", "")
    config = fnox.find(str(tmp_path))
    assert config is not None and config.secrets == {"FNOX_AGE_KEY"} and not config.secret_files
