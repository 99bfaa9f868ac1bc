"""Settings from the environment and an optional `.env` file (see `.env.example`).

`Settings` is a pydantic-settings `BaseSettings`: every field names its environment variable,
checks its value and says what is wrong in one line. The secrets are `SecretStr`s — the bot
token, the webhook's secret, and the password inside the database URL (`DatabaseUrl`) — so a
repr, a str, a log line or an error shows `**********` or `***` in their place, and only
`get_secret_value()` hands them out.

`load_settings` is the one reader: `.env` (read strictly: a line python-dotenv would skip is a
one-line error, since it may hold the token) overridden by the real environment, or by the
mapping a test passes instead. It hands exactly those values to `Settings`, whose only source
is what it is given: a `Settings(...)` made in code never reads the environment behind a
test's back.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Self
from urllib.parse import urlsplit

from dotenv import dotenv_values
from dotenv.parser import parse_stream
from pydantic import (
    AfterValidator,
    BeforeValidator,
    Field,
    InstanceOf,
    SecretStr,
    ValidationError,
    ValidationInfo,
    model_validator,
)
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from bot.database_url import DatabaseUrl
from bot.telegram.flood_limits import TELEGRAM_FLOOD_LIMITS, FloodLimits, Sharing

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///tictactoe.sqlite3"
DEFAULT_WEBHOOK_LISTEN = "0.0.0.0"
DEFAULT_WEBHOOK_PORT = 8443
DEFAULT_WEB_PORT = 8080
DEFAULT_METRICS_LISTEN = "127.0.0.1"
#: What Telegram accepts as a Mini App's short name (its t.me/<bot>/<name> links).
WEBAPP_SHORT_NAME_RE = re.compile(r"[A-Za-z0-9_]{3,30}")
#: What Telegram accepts as a webhook's secret_token (it comes back in a request header).
WEBHOOK_SECRET_RE = re.compile(r"[A-Za-z0-9_-]{1,256}")
#: The hosts a WEBHOOK_URL may name with plain http://.
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
LOG_FORMATS = ("text", "json")

TOKEN_MISSING = (
    "TELEGRAM_BOT_TOKEN is not set: create a bot with @BotFather and put its token in "
    ".env (see .env.example), or play in the terminal with `tictactoe-bot console`."
)


class ConfigError(Exception):
    """A missing or malformed setting; the message is one line meant for the person running it."""


# --- the checks, each a one-line message naming the variable ---------------------------------


def _env_name(info: ValidationInfo) -> str:
    """The environment variable of the field being checked."""
    name = info.field_name or ""
    return ENV_NAMES.get(name, name.upper())


def _token(value: SecretStr) -> SecretStr:
    if not value.get_secret_value().strip():
        raise ValueError(TOKEN_MISSING)
    return SecretStr(value.get_secret_value().strip())


def _log_level(value: Any) -> Any:
    level = str(value).strip().upper()
    if level not in LOG_LEVELS:
        raise ValueError(f"LOG_LEVEL must be DEBUG, INFO, WARNING or ERROR, not {level!r}.")
    return level


def _log_format(value: Any) -> Any:
    text = str(value).strip().lower()
    if text not in LOG_FORMATS:
        raise ValueError(f"LOG_FORMAT must be text or json, not {str(value).strip()!r}.")
    return text


def _seconds(low: float, high: float) -> BeforeValidator:
    """A number of seconds from the environment's text, checked against its range. A number
    given in code is taken as it is (tests shorten the clocks below what a person may set)."""

    def check(value: Any, info: ValidationInfo) -> Any:
        if not isinstance(value, str):
            return value
        text = value.strip()
        try:
            number = float(text)
        except ValueError:
            number = math.nan
        if not low <= number <= high:
            raise ValueError(
                f"{_env_name(info)} must be a number of seconds from {low:g} to {high:g}, "
                f"not {text!r}."
            )
        return number

    return BeforeValidator(check)


def _port(value: Any, info: ValidationInfo) -> Any:
    """A TCP port from the environment's text; one given in code as it is (0: any free one)."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 1 <= port <= 65535:
        raise ValueError(f"{_env_name(info)} must be a TCP port from 1 to 65535, not {text!r}.")
    return port


def _scheme_and_host(url: str) -> tuple[str | None, str | None]:
    """A URL's scheme and host, or (None, None) for anything that is not a URL with a host."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:  # e.g. an unclosed [ of an IPv6 address
        return None, None
    return (parts.scheme, host) if host else (None, None)


def _api_base_url(url: str | None) -> str | None:
    """TELEGRAM_API_BASE_URL: an http(s) address of a Bot API server, or None for Telegram's."""
    if url is not None and _scheme_and_host(url)[0] not in ("http", "https"):
        raise ValueError(
            "TELEGRAM_API_BASE_URL must be the http:// or https:// address of a Bot API server "
            "ending in /bot, e.g. http://127.0.0.1:8081/bot."
        )
    return url


def _public_url(url: str | None, info: ValidationInfo) -> str | None:
    """Telegram posts updates only to https:// addresses (and opens Mini Apps only there);
    http:// is allowed on this machine alone (127.0.0.1, localhost), where a local Bot API
    server or a test may use it."""
    if url is None:
        return None
    scheme, host = _scheme_and_host(url)
    if not (scheme == "https" or (scheme == "http" and host in LOCAL_HOSTS)):
        # Only the scheme and host are repeated: some put the bot token in a webhook's path.
        given = f"{scheme}://{host}" if scheme else "no URL with a host"
        name = _env_name(info)
        what = (
            "where the bot's web server is reachable"
            if name == "WEBAPP_URL"
            else "Telegram posts updates to"
        )
        raise ValueError(
            f"{name} must be the public https:// address {what} "
            f"(http:// only on 127.0.0.1 or localhost), not {given!r}."
        )
    return url


def _short_name(name: str | None) -> str | None:
    if name is not None and not WEBAPP_SHORT_NAME_RE.fullmatch(name):
        raise ValueError(
            "WEBAPP_SHORT_NAME must be the Mini App's short name from @BotFather "
            f"(3 to 30 characters of A-Z, a-z, 0-9 and _), not {name!r}."
        )
    return name


PublicUrl = Annotated[str | None, AfterValidator(_public_url)]
Port = Annotated[int, BeforeValidator(_port)]


class Settings(BaseSettings):
    """The bot's settings. Fields are in the order they are checked: the first problem is the
    one reported."""

    model_config = SettingsConfigDict(
        frozen=True,
        extra="ignore",
        # A field is given by its environment variable (load_settings) or by its name (code).
        validate_by_alias=True,
        validate_by_name=True,
        # Never echo a value in a ValidationError: it may be the token.
        hide_input_in_errors=True,
    )

    token: Annotated[SecretStr, AfterValidator(_token)] = Field(
        validation_alias="TELEGRAM_BOT_TOKEN"
    )
    log_level: Annotated[str, BeforeValidator(_log_level)] = "INFO"
    # One line of text per event (people), or one JSON object per line (a log pipeline).
    log_format: Annotated[str, BeforeValidator(_log_format)] = "text"
    ai_pause_seconds: Annotated[float, _seconds(0.0, 60.0)] = 1.0
    # Games between people: the player to move is nudged after this long, and loses after
    # twice this long; a challenge nobody joins expires after twice this long.
    turn_timeout_seconds: Annotated[float, _seconds(1.0, 7 * 24 * 3600.0)] = 600.0
    # Games between strangers (/play) are on the clock instead (`bot.games.play.clock_rules`):
    # this long a side, and up to this much back after each move; a running clock is
    # redrawn on both boards this often.
    stranger_clock_seconds: Annotated[float, _seconds(1.0, 3600.0)] = 60.0
    stranger_clock_delay_seconds: Annotated[float, _seconds(0.0, 60.0)] = 5.0
    clock_redraw_seconds: Annotated[float, _seconds(0.1, 300.0)] = 10.0
    # A turn's clock starts when Telegram has the board that shows the player their turn
    # (`bot.games.play.turn_starts`), and at the latest this long after the turn began.
    clock_grace_seconds: Annotated[float, _seconds(0.1, 600.0)] = 30.0
    # How long hard may think about one move on a board bigger than 3×3.
    ai_time_budget_seconds: Annotated[float, _seconds(0.01, 30.0)] = 0.5
    # How often every instance looks for boards left behind their games
    # (`bot.chores.board_catch_up`).
    board_catch_up_seconds: Annotated[float, _seconds(0.1, 300.0)] = 2.5
    # A tap redraws a board behind its game once the game has been still this long (at most):
    # before, another instance's edit may still be waiting for a busy group's pace.
    board_tap_redraw_seconds: Annotated[float, _seconds(0.1, 300.0)] = 6.0
    # A player looking for a stranger leaves the queue after waiting this long for nobody
    # (their waiting message says so).
    queue_wait_seconds: Annotated[float, _seconds(1.0, 24 * 3600.0)] = 300.0
    # A board whose edit went unanswered is drawn again after this long (`bot.chat.presenter`):
    # the unanswered edit may still land meanwhile, after a newer one.
    board_doubt_seconds: Annotated[float, _seconds(0.1, 300.0)] = 10.0
    # A tap is answered within this long, "busy, try again" if its work is not done by then:
    # Telegram takes an answer for 15 s only (`bot.handlers.taps`).
    tap_answer_seconds: Annotated[float, _seconds(0.1, 14.0)] = 8.0
    # While Telegram fails, one WARNING this often (`bot.intake.polling`).
    telegram_outage_log_seconds: Annotated[float, _seconds(0.1, 3600.0)] = 60.0
    # Webhook mode when `webhook_url` is set (long polling otherwise).
    webhook_port: Port = DEFAULT_WEBHOOK_PORT
    webhook_url: PublicUrl = None
    webhook_listen: str = DEFAULT_WEBHOOK_LISTEN
    # Checked only with a webhook_url, where it is used.
    webhook_secret: SecretStr | None = None
    # The Mini App (bot.webapp) when `webapp_url` is set: its public base address, its short
    # name for t.me links in groups, and the port of the web server in polling mode (webhook
    # mode serves it on the webhook's server).
    webapp_url: PublicUrl = None
    webapp_short_name: Annotated[str | None, AfterValidator(_short_name)] = None
    # New games one user may start from the Mini App in a minute (bot.webapp.pace).
    webapp_new_games_per_minute: Annotated[int, Field(ge=1, le=1000)] = 10
    web_port: Port = DEFAULT_WEB_PORT
    # /metrics in Prometheus's format on a port of its own, both modes
    # (`bot.intake.metrics_page`): off unless a port is set, and on this machine only unless
    # METRICS_LISTEN says otherwise.
    metrics_port: Annotated[int | None, BeforeValidator(_port)] = None
    metrics_listen: str = DEFAULT_METRICS_LISTEN
    database_url: DatabaseUrl = DatabaseUrl(DEFAULT_DATABASE_URL)
    # A file the bot rewrites every few seconds with its database's state, for a health check
    # in polling mode too (`bot.chores.heartbeat`, `tictactoe-bot health`).
    heartbeat_file: str | None = None
    # Telegram's flood limits counted in the database for all instances (auto: PostgreSQL).
    flood_budget: Annotated[Sharing, BeforeValidator(Sharing.read)] = Sharing.AUTO
    api_base_url: Annotated[str | None, AfterValidator(_api_base_url)] = Field(
        None, validation_alias="TELEGRAM_API_BASE_URL"
    )
    # Not settable from the environment: the first wait before retrying a failed Bot API call
    # (doubled on every retry); tests make it short.
    retry_backoff_seconds: float = 0.5
    # Not settable from the environment either: Telegram's flood limits, under which the bot
    # paces its messages; tests lift them, except where a fake server enforces the same.
    flood_limits: InstanceOf[FloodLimits] = TELEGRAM_FLOOD_LIMITS

    @model_validator(mode="after")
    def _webhook_needs_a_secret(self) -> Self:
        if self.webhook_url is None:
            return self
        if self.webhook_secret is None:
            raise ValueError(
                "WEBHOOK_SECRET is required with WEBHOOK_URL: 1 to 256 characters of A-Z, a-z, "
                "0-9, _ and -, e.g. from "
                "`python3 -c 'import secrets; print(secrets.token_urlsafe(32))'`."
            )
        secret = self.webhook_secret.get_secret_value()
        if not WEBHOOK_SECRET_RE.fullmatch(secret):
            # The value itself is a secret: never repeat it.
            problem = f"it has {len(secret)}" if len(secret) > 256 else "it has other characters"
            raise ValueError(
                f"WEBHOOK_SECRET must be 1 to 256 characters of A-Z, a-z, 0-9, _ and - ({problem})."
            )
        return self

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # Only what it is given: load_settings reads the environment and `.env` (strictly,
        # and from a test's mapping instead when given one).
        return (init_settings,)

    @property
    def uses_webhook(self) -> bool:
        return self.webhook_url is not None


#: The environment variable of each settable field: its name in capitals unless it says else.
ENV_NAMES: dict[str, str] = {
    name: field.validation_alias if isinstance(field.validation_alias, str) else name.upper()
    for name, field in Settings.model_fields.items()
    if name not in ("retry_backoff_seconds", "flood_limits")
}


def read_env_file(path: Path) -> dict[str, str]:
    """The `KEY=value` lines of a `.env` file, read by python-dotenv: `export`, quotes,
    `# comments` (also after a value, following a space) and `${VAR}` as a shell and Docker
    Compose read them. A missing file is empty; a line it cannot parse is a ConfigError."""
    if not path.is_file():
        return {}
    with path.open(encoding="utf-8") as stream:
        # dotenv_values only logs a warning for a line it skips; a skipped line may hold the
        # token, so it is an error here, said before dotenv_values warns on stderr.
        for binding in parse_stream(stream):
            if binding.error:
                raise ConfigError(
                    f"{path.name} line {binding.original.line} is not KEY=value: "
                    "check its quotes (see .env.example)."
                )
    values = dotenv_values(path, encoding="utf-8")
    # A bare `KEY` (no `=`) sets nothing.
    return {key: value for key, value in values.items() if value is not None}


def _read_values(environ: Mapping[str, str] | None, env_file: Path | None) -> dict[str, str]:
    """`.env` overridden by the real environment (os.environ unless `environ` is given)."""
    values = read_env_file(env_file) if env_file else {}
    values.update(os.environ if environ is None else environ)
    return values


def load_database_url(
    environ: Mapping[str, str] | None = None, env_file: Path | None = Path(".env")
) -> str:
    """DATABASE_URL alone (the URL to connect with, password and all), from the same places
    as `load_settings`, for jobs such as migrations that need no token. Raises ConfigError."""
    return _read_values(environ, env_file).get("DATABASE_URL", "").strip() or DEFAULT_DATABASE_URL


def load_settings(
    environ: Mapping[str, str] | None = None, env_file: Path | None = Path(".env")
) -> Settings:
    """Settings from `.env` overridden by the real environment. Raises ConfigError."""
    values = _read_values(environ, env_file)
    # Only the bot's own variables, stripped; an empty one means its default.
    given: dict[str, Any] = {
        env: value.strip()
        for env in ENV_NAMES.values()
        if (value := values.get(env)) is not None and value.strip()
    }
    try:
        return Settings(**given)
    except ValidationError as error:
        # `from None`: the ValidationError would only repeat the message, at length.
        raise ConfigError(_one_line(error)) from None


def _one_line(error: ValidationError) -> str:
    """The first problem of a ValidationError, as one line naming the variable."""
    first = error.errors(include_input=False, include_url=False)[0]
    if first["type"] == "missing" and first["loc"] == ("TELEGRAM_BOT_TOKEN",):
        return TOKEN_MISSING
    cause = first.get("ctx", {}).get("error")
    if isinstance(cause, ValueError):  # one of the checks above: its own message
        return str(cause)
    where = ".".join(str(part) for part in first["loc"]) or "a setting"
    return f"{where}: {first['msg']}."
