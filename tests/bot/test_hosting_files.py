"""Dockerfile, .dockerignore, compose.yaml and .env.example agree with each other and the code.

Docker is not needed (nor run): these read the files. compose.yaml must parse; every setting
it gives the bot, and every variable it takes from .env, is named in .env.example; every
setting .env.example names is read by the bot or by compose; the Dockerfile runs the console
script pyproject declares, as a user that is not root; secrets never enter the image.
"""

from __future__ import annotations

import json
import re
import shlex
import tomllib
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from bot import cli, config
from bot.config import DEFAULT_WEBHOOK_PORT
from bot.intake import web

ROOT = Path(__file__).resolve().parents[2]
#: `${NAME}`, `${NAME:?message}`, `${NAME:-default}` or `$NAME`; `$$` is a literal dollar.
COMPOSE_VARIABLE = re.compile(r"(?<!\$)\$(?:\{([A-Za-z_][A-Za-z0-9_]*)[^}]*\}|([A-Za-z_]\w*))")
#: A setting in .env.example: `NAME=` on a line of its own, or commented out (`# NAME=`).
EXAMPLE_SETTING = re.compile(r"^(?:# )?([A-Z][A-Z0-9_]*)=", re.MULTILINE)


@cache
def compose() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))


@cache
def example_settings() -> set[str]:
    return set(EXAMPLE_SETTING.findall((ROOT / ".env.example").read_text(encoding="utf-8")))


def dockerfile() -> list[tuple[str, str]]:
    """(instruction, arguments) of each Dockerfile instruction, continuation lines joined."""
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8").replace("\\\n", " ")
    lines = [line.strip() for line in text.splitlines()]
    return [
        (line.split(None, 1)[0].upper(), line.split(None, 1)[1])
        for line in lines
        if line and not line.startswith("#")
    ]


def bot_service() -> dict[str, Any]:
    return compose()["services"]["bot"]


def compose_variables() -> set[str]:
    text = (ROOT / "compose.yaml").read_text(encoding="utf-8")
    uncommented = "\n".join(line.split(" #")[0] for line in text.splitlines() if line[:1] != "#")
    return {a or b for a, b in COMPOSE_VARIABLE.findall(uncommented)}


# --- compose.yaml ------------------------------------------------------------------------------


def test_compose_runs_the_bot_and_postgres_with_a_volume() -> None:
    services = compose()["services"]
    assert set(services) == {"bot", "postgres"}
    bot, postgres = services["bot"], services["postgres"]
    assert bot["build"] == "."
    assert bot["env_file"] == ".env"
    assert bot["depends_on"] == {"postgres": {"condition": "service_healthy"}}
    assert postgres["image"].startswith("postgres:")
    [volume] = postgres["volumes"]
    name, _, path = volume.partition(":")
    assert path == "/var/lib/postgresql/data"
    assert name in compose()["volumes"]
    assert "pg_isready" in " ".join(postgres["healthcheck"]["test"])
    for service in (bot, postgres):
        assert service["restart"] == "unless-stopped"


def interpolate(value: str, variables: dict[str, str]) -> str:
    """``value`` as compose makes it from ``variables`` (the .env file): `${NAME:?message}`
    fails on an unset or empty NAME, `${NAME:-default}` falls back, `$$` is a `$`."""

    def one(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        rule = match.group(0)[2 + len(name) : -1] if match.group(1) else ""
        if variables.get(name):
            return variables[name]
        if rule.startswith(":?"):
            raise ValueError(f"{name}: {rule[2:]}")
        return rule[2:] if rule.startswith(":-") else ""

    return COMPOSE_VARIABLE.sub(one, value).replace("$$", "$")


def test_the_bot_uses_the_postgres_service_as_its_database() -> None:
    dot_env = {"POSTGRES_PASSWORD": "pw-From_dot_env"}
    raw_url = bot_service()["environment"]["DATABASE_URL"]
    url = urlsplit(interpolate(raw_url, dot_env))
    postgres = {
        name: interpolate(value, dot_env)
        for name, value in compose()["services"]["postgres"]["environment"].items()
    }
    assert url.scheme == "postgresql+asyncpg"
    assert (url.hostname, url.port) == ("postgres", 5432)
    assert url.username == postgres["POSTGRES_USER"]
    assert url.password == postgres["POSTGRES_PASSWORD"] == "pw-From_dot_env"
    assert url.path == "/" + postgres["POSTGRES_DB"]
    # Without a password in .env compose refuses to start, rather than run an open database.
    for value in (raw_url, compose()["services"]["postgres"]["environment"]["POSTGRES_PASSWORD"]):
        with pytest.raises(ValueError, match=r"set POSTGRES_PASSWORD in \.env"):
            interpolate(value, {"POSTGRES_PASSWORD": ""})


def test_the_webhook_port_is_the_one_published_and_health_checked() -> None:
    bot = bot_service()
    port = int(bot["environment"]["WEBHOOK_PORT"])
    assert port == DEFAULT_WEBHOOK_PORT
    assert bot["environment"]["WEBHOOK_LISTEN"] == "0.0.0.0"  # reachable from the host
    [published] = bot["ports"]
    host, _, container_port = published.split(":")
    assert host == "127.0.0.1"  # for a reverse proxy on the server, not the internet
    assert int(container_port) == port
    # `tictactoe-bot health` asks /healthz on that port in webhook mode, and reads the
    # heartbeat in both modes (polling serves no HTTP).
    assert bot["healthcheck"]["test"] == ["CMD", "tictactoe-bot", "health"]
    assert port == cli.HEALTHZ_PORT and web.HEALTH_PATH == "/healthz"
    assert bot["environment"]["HEARTBEAT_FILE"].startswith("/tmp/")


def test_every_setting_compose_gives_the_bot_is_in_the_example() -> None:
    environment = set(bot_service()["environment"])
    assert environment <= example_settings(), environment - example_settings()


def test_every_variable_compose_reads_from_env_is_in_the_example() -> None:
    variables = compose_variables()
    assert variables == {"POSTGRES_PASSWORD"}
    assert variables <= example_settings()


def test_every_setting_in_the_example_is_read_by_the_bot_or_compose() -> None:
    read_by_the_bot = example_settings() & set(config.ENV_NAMES.values())
    unread = example_settings() - read_by_the_bot - compose_variables()
    assert unread == set()
    assert {"TELEGRAM_BOT_TOKEN", "DATABASE_URL", "WEBHOOK_URL"} <= read_by_the_bot


def test_the_settings_page_documents_every_setting() -> None:
    page = (ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
    undocumented = {name for name in example_settings() if f"| `{name}` |" not in page}
    assert undocumented == set()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "](docs/settings.md)" in readme


# --- Dockerfile and .dockerignore --------------------------------------------------------------


def test_the_image_runs_the_console_script_pyproject_declares() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    [cmd] = [arguments for instruction, arguments in dockerfile() if instruction == "CMD"]
    command = json.loads(cmd)  # the exec form: SIGTERM reaches the bot, not a shell
    assert command[0] in project["scripts"]
    assert command[1:] == ["run"]
    assert any(
        instruction == "RUN" and "pip install ." in arguments
        for instruction, arguments in dockerfile()
    )


def test_the_image_is_a_python_the_project_supports() -> None:
    [base] = [arguments for instruction, arguments in dockerfile() if instruction == "FROM"]
    match = re.fullmatch(r"python:3\.(\d+)-slim", base)
    assert match, base
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "requires-python"
    ]
    assert int(match.group(1)) >= int(requires.removeprefix(">=3."))


def test_the_bot_does_not_run_as_root() -> None:
    instructions = dockerfile()
    users = [(i, arguments) for i, (name, arguments) in enumerate(instructions) if name == "USER"]
    assert users, "no USER: the bot would run as root"
    position, user = users[-1]
    assert user not in ("root", "0")
    cmd_position = next(i for i, (name, _) in enumerate(instructions) if name == "CMD")
    assert position < cmd_position
    assert [a for name, a in instructions if name == "EXPOSE"] == [str(DEFAULT_WEBHOOK_PORT)]


#: Debian's packages the card needs to draw every language (tests/bot/test_card_scripts.py).
CARD_PACKAGES = ("fonts-dejavu-core", "libfribidi0")


def test_the_image_and_ci_install_what_the_card_draws_every_language_with() -> None:
    installs = [
        arguments
        for name, arguments in dockerfile()
        if name == "RUN" and "apt-get install" in arguments
    ]
    assert installs, "the image installs no Debian package"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    for package in CARD_PACKAGES:
        assert any(package in line.split() for line in installs), package
        assert f"apt-get install -y -qq {' '.join(CARD_PACKAGES)}" in ci
        assert f"dpkg -s {' '.join(CARD_PACKAGES)}" in ci
    # Installed before the image drops root, and its package lists not kept in a layer.
    position = next(i for i, (name, args) in enumerate(dockerfile()) if args == installs[0])
    user = next(i for i, (name, _) in enumerate(dockerfile()) if name == "USER")
    assert position < user
    assert "rm -rf /var/lib/apt/lists/*" in installs[0]


def test_what_the_image_copies_exists() -> None:
    for name, arguments in dockerfile():
        if name == "COPY":
            *sources, _ = shlex.split(arguments)
            for source in sources:
                assert (ROOT / source).exists(), source


def test_secrets_and_local_state_stay_out_of_the_build_context() -> None:
    ignored = (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
    for pattern in (".env", "*.sqlite3", ".git", ".venv"):
        assert pattern in ignored, pattern


def test_readme_is_for_a_newcomer() -> None:
    """What the bot does, the two commands, how to play and host, in a page one reads in two
    minutes; the performance history and the design notes live behind links."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.encode()) <= 14 * 1024
    assert "pip install . && .venv/bin/tictactoe-bot" in readme  # install and run
    assert "pip install -e '.[test]' && .venv/bin/python -m pytest" in readme  # the tests
    for heading in ("## Run it", "## Run the tests", "## In the chat", "## Host it on a server"):
        assert heading in readme
    for page in ("docs/playing.md", "docs/settings.md", "docs/how-it-works.md", "bench/README.md"):
        assert f"]({page})" in readme and (ROOT / page).is_file()
    assert "## Performance" not in readme and "| medians of 3 paired runs" not in readme
