"""bot.config: settings from the environment and an optional `.env` file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.config import (
    DEFAULT_DATABASE_URL,
    ConfigError,
    Settings,
    load_database_url,
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
    assert "`tictactoe-bot console`" in message


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
        "BARE_KEY_SETS_NOTHING\n",
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
    }


def test_a_comment_after_a_value_is_not_part_of_it(tmp_path: Path) -> None:
    path = write_env(
        tmp_path,
        f"TELEGRAM_BOT_TOKEN={TOKEN}  # from BotFather\n"
        "LOG_LEVEL=debug # louder\n"
        "DATABASE_URL=sqlite+aiosqlite:///games.sqlite3\t# a tab before the hash\n"
        "AI_PAUSE_SECONDS='0.5' # quoted, then a comment\n"
        "WEBHOOK_SECRET=abc#def\n",  # no space before #: part of the value, as in a shell
    )
    assert read_env_file(path) == {
        "TELEGRAM_BOT_TOKEN": TOKEN,
        "LOG_LEVEL": "debug",
        "DATABASE_URL": "sqlite+aiosqlite:///games.sqlite3",
        "AI_PAUSE_SECONDS": "0.5",
        "WEBHOOK_SECRET": "abc#def",
    }
    settings = load_settings({}, env_file=path)
    assert (settings.token, settings.log_level, settings.ai_pause_seconds) == (TOKEN, "DEBUG", 0.5)


def test_a_value_may_name_an_earlier_one(tmp_path: Path) -> None:
    path = write_env(tmp_path, "DB_DIR=/srv/bot\nDATABASE_URL=sqlite+aiosqlite:///${DB_DIR}/g.db\n")
    assert read_env_file(path)["DATABASE_URL"] == "sqlite+aiosqlite:////srv/bot/g.db"


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (f'# the bot\nTELEGRAM_BOT_TOKEN="{TOKEN}\n', 2),
        (f"LOG_LEVEL=INFO\nTELEGRAM_BOT_TOKEN='{TOKEN}\nAI_PAUSE_SECONDS=1\n", 2),
        (f"TELEGRAM_BOT_TOKEN={TOKEN}\nno equals sign here\n", 2),
    ],
)
def test_a_line_that_cannot_be_read_is_a_one_line_error(
    tmp_path: Path, text: str, line: int, capfd: pytest.CaptureFixture[str]
) -> None:
    path = write_env(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_settings({}, env_file=path)
    message = str(caught.value)
    assert message.startswith(f".env line {line} is not KEY=value")
    assert "\n" not in message
    assert SECRET not in message  # the line is not repeated: it may hold the token
    out, err = capfd.readouterr()
    assert out + err == ""  # and python-dotenv did not warn about it on stderr either


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


# --- addresses -------------------------------------------------------------------------------

WEBHOOK = {"TELEGRAM_BOT_TOKEN": TOKEN, "WEBHOOK_SECRET": "s3cret"}


@pytest.mark.parametrize(
    "url",
    [
        "https://bot.example.org/telegram",
        "HTTPS://bot.example.org:8443/",
        "http://127.0.0.1:8080/telegram",
        "http://localhost/telegram",
        "http://[::1]:8443/tg",
    ],
)
def test_a_webhook_url_is_https_or_local_http(url: str) -> None:
    settings = load_settings({**WEBHOOK, "WEBHOOK_URL": url}, env_file=None)
    assert settings.webhook_url == url


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://bot.example.org/telegram", "'http://bot.example.org'"),
        (f"http://bot.example.org/{TOKEN}", "'http://bot.example.org'"),
        ("http://10.0.0.5:8443/tg", "'http://10.0.0.5'"),
        ("ftp://bot.example.org/tg", "'ftp://bot.example.org'"),
        ("bot.example.org/telegram", "'no URL with a host'"),
        ("https://", "'no URL with a host'"),
        ("https://[::1/tg", "'no URL with a host'"),
    ],
)
def test_any_other_webhook_url_is_a_one_line_error(url: str, shown: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings({**WEBHOOK, "WEBHOOK_URL": url}, env_file=None)
    message = str(caught.value)
    assert message.startswith("WEBHOOK_URL must be the public https:// address")
    assert message.endswith(f"not {shown}.")
    assert "\n" not in message
    assert SECRET not in message


@pytest.mark.parametrize("url", ["127.0.0.1:8081/bot", "api.telegram.org", "file:///bot"])
def test_a_bad_api_base_url_is_a_one_line_error(url: str) -> None:
    with pytest.raises(ConfigError, match=r"^TELEGRAM_API_BASE_URL must be the http://"):
        load_settings({"TELEGRAM_BOT_TOKEN": TOKEN, "TELEGRAM_API_BASE_URL": url}, env_file=None)


def test_the_database_url_alone_needs_no_token(tmp_path: Path) -> None:
    assert load_database_url({}, env_file=None) == DEFAULT_DATABASE_URL
    path = write_env(tmp_path, "DATABASE_URL=sqlite+aiosqlite:///from-file.sqlite3  # games\n")
    assert load_database_url({}, env_file=path) == "sqlite+aiosqlite:///from-file.sqlite3"
    environ = {"DATABASE_URL": "postgresql+asyncpg://u:p@db:5432/t"}
    assert load_database_url(environ, env_file=path) == "postgresql+asyncpg://u:p@db:5432/t"


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
