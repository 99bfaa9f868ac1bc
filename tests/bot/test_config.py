"""bot.config: settings from the environment and an optional `.env` file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.config import (
    DEFAULT_DATABASE_URL,
    ConfigError,
    Settings,
    load_settings,
    read_env_file,
)

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "7412589630:AAF-secretPart_ForTests-xyz"
SECRET = TOKEN.split(":", 1)[1]


def write_env(directory: Path, text: str) -> Path:
    path = directory / ".env"
    path.write_text(text, encoding="utf-8")
    return path


# --- a missing token -------------------------------------------------------------------------


@pytest.mark.parametrize("environ", [{}, {"TELEGRAM_BOT_TOKEN": ""}, {"TELEGRAM_BOT_TOKEN": "  "}])
def test_a_missing_token_is_a_one_line_error_saying_what_to_do(environ: dict[str, str]) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(environ, env_file=None)
    message = str(caught.value)
    assert "\n" not in message
    assert "TELEGRAM_BOT_TOKEN" in message
    assert "@BotFather" in message
    assert "`python -m bot console`" in message


def test_the_example_env_file_as_is_asks_for_a_token(tmp_path: Path) -> None:
    example = (ROOT / ".env.example").read_text(encoding="utf-8")
    with pytest.raises(ConfigError, match="TELEGRAM_BOT_TOKEN"):
        load_settings({}, env_file=write_env(tmp_path, example))


def test_the_example_env_file_with_a_token_gives_the_defaults(tmp_path: Path) -> None:
    example = (ROOT / ".env.example").read_text(encoding="utf-8")
    example = example.replace("TELEGRAM_BOT_TOKEN=", f"TELEGRAM_BOT_TOKEN={TOKEN}", 1)
    settings = load_settings({}, env_file=write_env(tmp_path, example))
    assert settings == Settings(token=TOKEN)


# --- the .env file ---------------------------------------------------------------------------


def test_read_env_file_skips_comments_and_blank_lines_and_strips_quotes(tmp_path: Path) -> None:
    path = write_env(
        tmp_path,
        "# a comment\n"
        "\n"
        "   \n"
        "  # an indented comment = not a value\n"
        "PLAIN=value\n"
        'DOUBLE="two words"\n'
        "SINGLE='it is # not a comment'\n"
        "export EXPORTED=yes\n"
        "  SPACED  =  padded  \n"
        "EMPTY=\n"
        'EMPTY_QUOTES=""\n'
        "URL=postgresql+asyncpg://u:p@h:5432/db?ssl=require\n"
        'UNBALANCED="open\n'
        "no equals sign here\n",
    )
    assert read_env_file(path) == {
        "PLAIN": "value",
        "DOUBLE": "two words",
        "SINGLE": "it is # not a comment",
        "EXPORTED": "yes",
        "SPACED": "padded",
        "EMPTY": "",
        "EMPTY_QUOTES": "",
        "URL": "postgresql+asyncpg://u:p@h:5432/db?ssl=require",
        "UNBALANCED": '"open',
    }


def test_read_env_file_of_a_missing_file_is_empty(tmp_path: Path) -> None:
    assert read_env_file(tmp_path / "nothing-here.env") == {}
    assert read_env_file(tmp_path) == {}  # a directory is not a file


def test_settings_come_from_the_env_file(tmp_path: Path) -> None:
    path = write_env(
        tmp_path,
        "# the bot\n"
        f'export TELEGRAM_BOT_TOKEN="{TOKEN}"\n'
        "\n"
        "DATABASE_URL='sqlite+aiosqlite:///games.sqlite3'\n"
        "TELEGRAM_API_BASE_URL=http://127.0.0.1:8081/bot\n"
        "LOG_LEVEL=debug\n"
        "AI_PAUSE_SECONDS=0.25\n",
    )
    assert load_settings({}, env_file=path) == Settings(
        token=TOKEN,
        database_url="sqlite+aiosqlite:///games.sqlite3",
        api_base_url="http://127.0.0.1:8081/bot",
        log_level="DEBUG",
        ai_pause_seconds=0.25,
    )


def test_the_real_environment_overrides_the_env_file(tmp_path: Path) -> None:
    path = write_env(
        tmp_path,
        "TELEGRAM_BOT_TOKEN=111:from-the-file\nLOG_LEVEL=ERROR\nAI_PAUSE_SECONDS=5\n",
    )
    settings = load_settings({"TELEGRAM_BOT_TOKEN": TOKEN, "AI_PAUSE_SECONDS": "0"}, env_file=path)
    assert settings.token == TOKEN
    assert settings.ai_pause_seconds == 0.0
    assert settings.log_level == "ERROR"  # not overridden: still from the file


def test_the_default_env_file_is_the_one_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_env(tmp_path, f"TELEGRAM_BOT_TOKEN={TOKEN}\n")
    monkeypatch.chdir(tmp_path)
    assert load_settings({}).token == TOKEN
    for name in list(os.environ):
        if name.startswith(("TELEGRAM_", "WEBHOOK_")) or name in ("DATABASE_URL", "LOG_LEVEL"):
            monkeypatch.delenv(name)
    monkeypatch.delenv("AI_PAUSE_SECONDS", raising=False)
    monkeypatch.setenv("LOG_LEVEL", "warning")
    settings = load_settings()  # os.environ and ./.env
    assert (settings.token, settings.log_level) == (TOKEN, "WARNING")


def test_no_env_file_reads_only_the_environment(tmp_path: Path) -> None:
    path = write_env(tmp_path, "TELEGRAM_BOT_TOKEN=111:from-the-file\n")
    assert load_settings({"TELEGRAM_BOT_TOKEN": TOKEN}, env_file=None).token == TOKEN
    with pytest.raises(ConfigError):
        load_settings({}, env_file=None)
    assert load_settings({}, env_file=path).token == "111:from-the-file"


# --- defaults and validation -----------------------------------------------------------------


def test_defaults() -> None:
    settings = load_settings({"TELEGRAM_BOT_TOKEN": f"  {TOKEN}\t"}, env_file=None)
    assert settings.token == TOKEN
    assert settings.database_url == DEFAULT_DATABASE_URL
    assert settings.database_url.startswith("sqlite+aiosqlite:///")
    assert settings.database_url.endswith(".sqlite3")
    assert settings.api_base_url is None
    assert settings.log_level == "INFO"
    assert settings.ai_pause_seconds == 1.0


def test_empty_values_mean_the_defaults() -> None:
    settings = load_settings(
        {
            "TELEGRAM_BOT_TOKEN": TOKEN,
            "DATABASE_URL": " ",
            "TELEGRAM_API_BASE_URL": "",
            "LOG_LEVEL": "",
            "AI_PAUSE_SECONDS": "",
        },
        env_file=None,
    )
    assert settings == Settings(token=TOKEN)


@pytest.mark.parametrize(
    ("value", "expected"),
    [("debug", "DEBUG"), (" Info ", "INFO"), ("WARNING", "WARNING"), ("error", "ERROR")],
)
def test_log_level_is_case_insensitive(value: str, expected: str) -> None:
    environ = {"TELEGRAM_BOT_TOKEN": TOKEN, "LOG_LEVEL": value}
    assert load_settings(environ, env_file=None).log_level == expected


@pytest.mark.parametrize("value", ["VERBOSE", "loud", "10", "WARN ING"])
def test_a_bad_log_level_is_a_one_line_error(value: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings({"TELEGRAM_BOT_TOKEN": TOKEN, "LOG_LEVEL": value}, env_file=None)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("LOG_LEVEL must be")
    assert value.upper() in message


@pytest.mark.parametrize(("value", "expected"), [("0", 0.0), ("0.05", 0.05), ("60", 60.0)])
def test_ai_pause_in_range(value: str, expected: float) -> None:
    environ = {"TELEGRAM_BOT_TOKEN": TOKEN, "AI_PAUSE_SECONDS": value}
    assert load_settings(environ, env_file=None).ai_pause_seconds == expected


@pytest.mark.parametrize("value", ["fast", "-1", "-0.5", "60.5", "1e9", "nan", "inf", "1,5"])
def test_a_bad_ai_pause_is_a_one_line_error(value: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings({"TELEGRAM_BOT_TOKEN": TOKEN, "AI_PAUSE_SECONDS": value}, env_file=None)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("AI_PAUSE_SECONDS must be")
    assert repr(value) in message


def test_config_errors_never_show_the_token() -> None:
    for extra in ({"LOG_LEVEL": "nope"}, {"AI_PAUSE_SECONDS": "nope"}):
        with pytest.raises(ConfigError) as caught:
            load_settings({"TELEGRAM_BOT_TOKEN": TOKEN, **extra}, env_file=None)
        assert SECRET not in str(caught.value)


# --- the token stays secret ------------------------------------------------------------------


def test_repr_of_settings_never_shows_the_token() -> None:
    settings = Settings(
        token=TOKEN,
        database_url="sqlite+aiosqlite:///x.sqlite3",
        api_base_url="http://127.0.0.1:8081/bot",
        log_level="DEBUG",
        ai_pause_seconds=0.5,
    )
    for text in (repr(settings), str(settings), f"{settings}", f"{settings!r}", repr([settings])):
        assert TOKEN not in text
        assert SECRET not in text
        assert "7412589630" not in text
        assert "token='***'" in text
    # The other settings are shown, so the repr is still useful in logs.
    assert "sqlite+aiosqlite:///x.sqlite3" in repr(settings)
    assert "http://127.0.0.1:8081/bot" in repr(settings)
    assert "'DEBUG'" in repr(settings) and "0.5" in repr(settings)


def test_settings_are_immutable() -> None:
    settings = Settings(token=TOKEN)
    with pytest.raises(AttributeError):
        settings.token = "other"  # type: ignore[misc]
