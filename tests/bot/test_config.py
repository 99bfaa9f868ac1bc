"""bot.config: settings from the environment and an optional `.env` file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pydantic import ValidationError

from bot.config import (
    DEFAULT_DATABASE_URL,
    ConfigError,
    DatabaseUrl,
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
    assert (settings.token.get_secret_value(), settings.log_level, settings.ai_pause_seconds) == (
        TOKEN,
        "DEBUG",
        0.5,
    )


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
    assert settings.token.get_secret_value() == TOKEN
    assert settings.ai_pause_seconds == 0.0
    assert settings.log_level == "ERROR"  # not overridden: still from the file


def test_the_default_env_file_is_the_one_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_env(tmp_path, f"TELEGRAM_BOT_TOKEN={TOKEN}\n")
    monkeypatch.chdir(tmp_path)
    assert load_settings({}).token.get_secret_value() == TOKEN
    for name in list(os.environ):
        if name.startswith(("TELEGRAM_", "WEBHOOK_")) or name in ("DATABASE_URL", "LOG_LEVEL"):
            monkeypatch.delenv(name)
    monkeypatch.delenv("AI_PAUSE_SECONDS", raising=False)
    monkeypatch.setenv("LOG_LEVEL", "warning")
    settings = load_settings()  # os.environ and ./.env
    assert (settings.token.get_secret_value(), settings.log_level) == (TOKEN, "WARNING")


def test_no_env_file_reads_only_the_environment(tmp_path: Path) -> None:
    path = write_env(tmp_path, "TELEGRAM_BOT_TOKEN=111:from-the-file\n")
    assert (
        load_settings({"TELEGRAM_BOT_TOKEN": TOKEN}, env_file=None).token.get_secret_value()
        == TOKEN
    )
    with pytest.raises(ConfigError):
        load_settings({}, env_file=None)
    assert load_settings({}, env_file=path).token.get_secret_value() == "111:from-the-file"


# --- defaults and validation -----------------------------------------------------------------


def test_defaults() -> None:
    settings = load_settings({"TELEGRAM_BOT_TOKEN": f"  {TOKEN}\t"}, env_file=None)
    assert settings.token.get_secret_value() == TOKEN
    assert settings.database_url.get_secret_value() == DEFAULT_DATABASE_URL
    assert DEFAULT_DATABASE_URL.startswith("sqlite+aiosqlite:///")
    assert DEFAULT_DATABASE_URL.endswith(".sqlite3")
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


def test_logs_are_text_and_metrics_off_unless_set() -> None:
    settings = load_settings({"TELEGRAM_BOT_TOKEN": TOKEN}, env_file=None)
    assert settings.log_format == "text"
    assert settings.metrics_port is None
    assert settings.metrics_listen == "127.0.0.1"
    environ = {
        "TELEGRAM_BOT_TOKEN": TOKEN,
        "LOG_FORMAT": " JSON ",
        "METRICS_PORT": "9464",
        "METRICS_LISTEN": "0.0.0.0",
    }
    settings = load_settings(environ, env_file=None)
    assert (settings.log_format, settings.metrics_port) == ("json", 9464)
    assert settings.metrics_listen == "0.0.0.0"


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


# --- the secrets stay secret ----------------------------------------------------------------

DB_PASSWORD = "pg-Pa55word-for-tests"
POSTGRES = f"postgresql+asyncpg://tictactoe:{DB_PASSWORD}@db.example.org:5432/games?ssl=require"
WEBHOOK_SECRET = "webhook-Secret_for-tests"


def shown_forms(value: object) -> list[str]:
    """Every way a value is commonly turned into text: in a log line, an f-string, a list."""
    return [repr(value), str(value), f"{value}", f"{value!r}", repr([value]), format(value)]


def test_repr_and_str_of_settings_never_show_a_secret() -> None:
    settings = load_settings(
        {
            "TELEGRAM_BOT_TOKEN": TOKEN,
            "DATABASE_URL": POSTGRES,
            "TELEGRAM_API_BASE_URL": "http://127.0.0.1:8081/bot",
            "LOG_LEVEL": "DEBUG",
            "AI_PAUSE_SECONDS": "0.5",
            "WEBHOOK_URL": "https://bot.example.org/telegram",
            "WEBHOOK_SECRET": WEBHOOK_SECRET,
        },
        env_file=None,
    )
    for text in [*shown_forms(settings), settings.model_dump_json(), str(settings.model_dump())]:
        for secret in (TOKEN, SECRET, "7412589630", DB_PASSWORD, WEBHOOK_SECRET):
            assert secret not in text
    # The other settings are shown, so the repr is still useful in logs: the database URL
    # with *** for its password.
    text = repr(settings)
    assert "postgresql+asyncpg://tictactoe:***@db.example.org:5432/games?ssl=require" in text
    assert "http://127.0.0.1:8081/bot" in text
    assert "'DEBUG'" in text and "0.5" in text
    # And the code that needs a secret asks for it by name.
    assert settings.token.get_secret_value() == TOKEN
    assert settings.database_url.get_secret_value() == POSTGRES
    assert settings.webhook_secret is not None
    assert settings.webhook_secret.get_secret_value() == WEBHOOK_SECRET


@pytest.mark.parametrize(
    ("url", "shown", "password"),
    [
        (POSTGRES, POSTGRES.replace(DB_PASSWORD, "***"), DB_PASSWORD),
        # SQLAlchemy reads the password up to the first @, slashes and colons and all.
        ("postgresql://u:a/b:c@h/db", "postgresql://u:***@h/db", "a/b:c"),
        ("postgresql://u:@h/db", "postgresql://u:***@h/db", ""),
        ("postgresql://u@h/db", "postgresql://u@h/db", None),
        ("postgresql:///db?host=/run/postgresql", "postgresql:///db?host=/run/postgresql", None),
        (DEFAULT_DATABASE_URL, DEFAULT_DATABASE_URL, None),
    ],
)
def test_a_database_url_shows_its_password_as_stars(
    url: str, shown: str, password: str | None
) -> None:
    from sqlalchemy.engine import make_url

    database_url = DatabaseUrl(url)
    assert database_url.get_secret_value() == url
    assert str(database_url) == shown
    assert repr(database_url) == f"DatabaseUrl({shown!r})"
    assert make_url(url).password == password  # the part SQLAlchemy connects with
    if password is None:
        assert database_url.password is None
    else:
        assert database_url.password is not None
        assert database_url.password.get_secret_value() == password
        for text in shown_forms(database_url):
            assert password == "" or password not in text
    assert database_url == DatabaseUrl(url)
    assert database_url != DatabaseUrl(url + "x")


@pytest.mark.parametrize(
    ("extra", "starts"),
    [
        ({"LOG_LEVEL": "nope"}, "LOG_LEVEL must be"),
        ({"AI_PAUSE_SECONDS": "nope"}, "AI_PAUSE_SECONDS must be"),
        ({"WEBHOOK_PORT": "nope"}, "WEBHOOK_PORT must be"),
        ({"WEBHOOK_URL": f"http://bot.example.org/{TOKEN}"}, "WEBHOOK_URL must be"),
        ({"WEBHOOK_URL": "https://bot.example.org/tg"}, "WEBHOOK_SECRET is required"),
        (
            {"WEBHOOK_URL": "https://bot.example.org/tg", "WEBHOOK_SECRET": f"{WEBHOOK_SECRET}!"},
            "WEBHOOK_SECRET must be",
        ),
        ({"WEBAPP_SHORT_NAME": "no"}, "WEBAPP_SHORT_NAME must be"),
        ({"TELEGRAM_API_BASE_URL": "ftp://x"}, "TELEGRAM_API_BASE_URL must be"),
        ({"LOG_FORMAT": "yaml"}, "LOG_FORMAT must be text or json"),
        ({"METRICS_PORT": "99999"}, "METRICS_PORT must be a TCP port"),
    ],
)
def test_config_errors_are_one_line_and_never_show_a_secret(
    extra: dict[str, str], starts: str
) -> None:
    environ = {"TELEGRAM_BOT_TOKEN": TOKEN, "DATABASE_URL": POSTGRES, **extra}
    with pytest.raises(ConfigError) as caught:
        load_settings(environ, env_file=None)
    message = str(caught.value)
    assert message.startswith(starts)
    assert "\n" not in message
    # Not in the message, nor in anything chained to it that a traceback would print.
    assert caught.value.__cause__ is None and caught.value.__suppress_context__
    for secret in (SECRET, DB_PASSWORD, WEBHOOK_SECRET):
        assert secret not in message
        assert secret not in repr(caught.value)


def test_settings_made_in_code_hide_their_input_in_errors() -> None:
    with pytest.raises(ValidationError) as caught:
        Settings(token=TOKEN, webhook_url="https://x.example.org/", webhook_secret="bad secret!")
    assert "bad secret!" not in str(caught.value)
    with pytest.raises(ValidationError) as caught:
        Settings(token=TOKEN, log_level=object())
    assert SECRET not in str(caught.value)


def test_settings_made_in_code_read_no_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    # Only load_settings reads the environment: a test's Settings(...) is what it says.
    monkeypatch.setenv("LOG_LEVEL", "ERROR")
    monkeypatch.setenv("RETRY_BACKOFF_SECONDS", "9")
    settings = Settings(token=TOKEN)
    assert (settings.log_level, settings.retry_backoff_seconds) == ("INFO", 0.5)
    # Nor are the settings that code alone sets taken from the environment.
    assert load_settings({"TELEGRAM_BOT_TOKEN": TOKEN, "RETRY_BACKOFF_SECONDS": "9"}, None) == (
        Settings(token=TOKEN)
    )


def test_numbers_given_in_code_are_taken_as_they_are() -> None:
    # The ranges are for what a person sets; tests run the clocks faster than that.
    settings = Settings(token=TOKEN, turn_timeout_seconds=0.5, webhook_port=0)
    assert (settings.turn_timeout_seconds, settings.webhook_port) == (0.5, 0)
    with pytest.raises(ValidationError):
        Settings(token=TOKEN, turn_timeout_seconds=[1])  # but they are numbers


def test_settings_are_immutable() -> None:
    settings = Settings(token=TOKEN)
    with pytest.raises(ValidationError, match="frozen"):
        settings.log_level = "DEBUG"  # type: ignore[misc]
