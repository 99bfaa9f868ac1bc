"""Settings from the environment and an optional `.env` file (see `.env.example`)."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from dotenv import dotenv_values
from dotenv.parser import parse_stream

from bot.flood_gate import TELEGRAM_FLOOD_LIMITS, FloodLimits

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///tictactoe.sqlite3"
DEFAULT_WEBHOOK_LISTEN = "0.0.0.0"
DEFAULT_WEBHOOK_PORT = 8443
DEFAULT_WEB_PORT = 8080
#: What Telegram accepts as a Mini App's short name (its t.me/<bot>/<name> links).
WEBAPP_SHORT_NAME_RE = re.compile(r"[A-Za-z0-9_]{3,30}")
#: What Telegram accepts as a webhook's secret_token (it comes back in a request header).
WEBHOOK_SECRET_RE = re.compile(r"[A-Za-z0-9_-]{1,256}")
#: The hosts a WEBHOOK_URL may name with plain http://.
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


class ConfigError(Exception):
    """A missing or malformed setting; the message is one line meant for the person running it."""


@dataclass(frozen=True)
class Settings:
    token: str
    database_url: str = DEFAULT_DATABASE_URL
    api_base_url: str | None = None
    log_level: str = "INFO"
    ai_pause_seconds: float = 1.0
    # Games between people: the player to move is nudged after this long, and loses after
    # twice this long; a challenge nobody joins expires after twice this long.
    turn_timeout_seconds: float = 600.0
    # How long hard may think about one move on a board bigger than 3×3.
    ai_time_budget_seconds: float = 0.5
    # How often every instance looks for boards left behind their games (`bot.outbox`).
    board_catch_up_seconds: float = 5.0
    # A tap redraws a board behind its game once the game has been still this long (at most):
    # before, another instance's edit may still be waiting for a busy group's pace.
    board_tap_redraw_seconds: float = 10.0
    # Webhook mode when `webhook_url` is set (long polling otherwise).
    webhook_url: str | None = None
    webhook_listen: str = DEFAULT_WEBHOOK_LISTEN
    webhook_port: int = DEFAULT_WEBHOOK_PORT
    webhook_secret: str | None = None
    # The Mini App (bot.webapp) when `webapp_url` is set: its public base address, its short
    # name for t.me links in groups, and the port of the web server in polling mode (webhook
    # mode serves it on the webhook's server).
    webapp_url: str | None = None
    webapp_short_name: str | None = None
    web_port: int = DEFAULT_WEB_PORT
    # Not settable from the environment: the first wait before retrying a failed Bot API call
    # (doubled on every retry); tests make it short.
    retry_backoff_seconds: float = 0.5
    # Not settable from the environment either: Telegram's flood limits, under which the bot
    # paces its messages; tests lift them, except where a fake server enforces the same.
    flood_limits: FloodLimits = TELEGRAM_FLOOD_LIMITS

    @property
    def uses_webhook(self) -> bool:
        return self.webhook_url is not None

    def __repr__(self) -> str:
        # The token and the webhook secret must never reach a log line, even through a repr.
        return (
            f"Settings(token='***', database_url={self.database_url!r}, "
            f"api_base_url={self.api_base_url!r}, log_level={self.log_level!r}, "
            f"ai_pause_seconds={self.ai_pause_seconds!r}, webhook_url={self.webhook_url!r}, "
            f"webhook_listen={self.webhook_listen!r}, webhook_port={self.webhook_port!r}, "
            f"webhook_secret={'***' if self.webhook_secret else None!r}, "
            f"webapp_url={self.webapp_url!r}, webapp_short_name={self.webapp_short_name!r}, "
            f"web_port={self.web_port!r})"
        )


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
    """DATABASE_URL alone, from the same places as `load_settings`, for jobs such as
    migrations that need no token. Raises ConfigError."""
    return _read_values(environ, env_file).get("DATABASE_URL", "").strip() or DEFAULT_DATABASE_URL


def load_settings(
    environ: Mapping[str, str] | None = None, env_file: Path | None = Path(".env")
) -> Settings:
    """Settings from `.env` overridden by the real environment. Raises ConfigError."""
    values = _read_values(environ, env_file)

    token = values.get("TELEGRAM_BOT_TOKEN", "").strip()
    if not token:
        raise ConfigError(
            "TELEGRAM_BOT_TOKEN is not set: create a bot with @BotFather and put its token in "
            ".env (see .env.example), or play in the terminal with `tictactoe-bot console`."
        )
    log_level = values.get("LOG_LEVEL", "INFO").strip().upper() or "INFO"
    if log_level not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
        raise ConfigError(f"LOG_LEVEL must be DEBUG, INFO, WARNING or ERROR, not {log_level!r}.")
    pause = _number(values, "AI_PAUSE_SECONDS", 1.0, 0.0, 60.0)
    turn_timeout = _number(values, "TURN_TIMEOUT_SECONDS", 600.0, 1.0, 7 * 24 * 3600.0)
    ai_budget = _number(values, "AI_TIME_BUDGET_SECONDS", 0.5, 0.01, 30.0)
    catch_up = _number(values, "BOARD_CATCH_UP_SECONDS", 5.0, 0.1, 300.0)
    tap_redraw = _number(values, "BOARD_TAP_REDRAW_SECONDS", 10.0, 0.1, 300.0)
    webhook_url, webhook_listen, webhook_port, webhook_secret = _webhook_settings(values)
    webapp_url, webapp_short_name, web_port = _webapp_settings(values)
    return Settings(
        token=token,
        database_url=values.get("DATABASE_URL", "").strip() or DEFAULT_DATABASE_URL,
        api_base_url=_api_base_url(values),
        log_level=log_level,
        ai_pause_seconds=pause,
        turn_timeout_seconds=turn_timeout,
        ai_time_budget_seconds=ai_budget,
        board_catch_up_seconds=catch_up,
        board_tap_redraw_seconds=tap_redraw,
        webhook_url=webhook_url,
        webhook_listen=webhook_listen,
        webhook_port=webhook_port,
        webhook_secret=webhook_secret,
        webapp_url=webapp_url,
        webapp_short_name=webapp_short_name,
        web_port=web_port,
    )


def _number(values: Mapping[str, str], name: str, default: float, low: float, high: float) -> float:
    """A number of seconds from the settings, checked against its range."""
    text = values.get(name, "").strip() or str(default)
    try:
        number = float(text)
    except ValueError:
        number = low - 1
    if not low <= number <= high:
        raise ConfigError(
            f"{name} must be a number of seconds from {low:g} to {high:g}, not {text!r}."
        )
    return number


def _api_base_url(values: Mapping[str, str]) -> str | None:
    """TELEGRAM_API_BASE_URL: an http(s) address of a Bot API server, or None for Telegram's."""
    url = values.get("TELEGRAM_API_BASE_URL", "").strip() or None
    if url is not None and _scheme_and_host(url)[0] not in ("http", "https"):
        raise ConfigError(
            "TELEGRAM_API_BASE_URL must be the http:// or https:// address of a Bot API server "
            "ending in /bot, e.g. http://127.0.0.1:8081/bot."
        )
    return url


def _scheme_and_host(url: str) -> tuple[str | None, str | None]:
    """A URL's scheme and host, or (None, None) for anything that is not a URL with a host."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:  # e.g. an unclosed [ of an IPv6 address
        return None, None
    return (parts.scheme, host) if host else (None, None)


def _check_webhook_url(url: str, name: str = "WEBHOOK_URL", what: str = "") -> None:
    """Telegram posts updates only to https:// addresses (and opens Mini Apps only there);
    http:// is allowed on this machine alone (127.0.0.1, localhost), where a local Bot API
    server or a test may use it."""
    scheme, host = _scheme_and_host(url)
    if not (scheme == "https" or (scheme == "http" and host in LOCAL_HOSTS)):
        # Only the scheme and host are repeated: some put the bot token in a webhook's path.
        given = f"{scheme}://{host}" if scheme else "no URL with a host"
        what = what or "Telegram posts updates to"
        raise ConfigError(
            f"{name} must be the public https:// address {what} "
            f"(http:// only on 127.0.0.1 or localhost), not {given!r}."
        )


def _port(values: Mapping[str, str], name: str, default: int) -> int:
    text = values.get(name, "").strip() or str(default)
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 1 <= port <= 65535:
        raise ConfigError(f"{name} must be a TCP port from 1 to 65535, not {text!r}.")
    return port


def _webapp_settings(values: Mapping[str, str]) -> tuple[str | None, str | None, int]:
    """WEBAPP_URL, WEBAPP_SHORT_NAME and WEB_PORT, checked."""
    url = values.get("WEBAPP_URL", "").strip() or None
    if url is not None:
        _check_webhook_url(url, "WEBAPP_URL", "where the bot's web server is reachable")
    short_name = values.get("WEBAPP_SHORT_NAME", "").strip() or None
    if short_name is not None and not WEBAPP_SHORT_NAME_RE.fullmatch(short_name):
        raise ConfigError(
            "WEBAPP_SHORT_NAME must be the Mini App's short name from @BotFather "
            f"(3 to 30 characters of A-Z, a-z, 0-9 and _), not {short_name!r}."
        )
    return url, short_name, _port(values, "WEB_PORT", DEFAULT_WEB_PORT)


def _webhook_settings(values: Mapping[str, str]) -> tuple[str | None, str, int, str | None]:
    """WEBHOOK_URL, WEBHOOK_LISTEN, WEBHOOK_PORT and WEBHOOK_SECRET, checked."""
    url = values.get("WEBHOOK_URL", "").strip() or None
    listen = values.get("WEBHOOK_LISTEN", "").strip() or DEFAULT_WEBHOOK_LISTEN
    port = _port(values, "WEBHOOK_PORT", DEFAULT_WEBHOOK_PORT)
    secret = values.get("WEBHOOK_SECRET", "").strip() or None
    if url is None:
        return None, listen, port, secret
    _check_webhook_url(url)
    if secret is None:
        raise ConfigError(
            "WEBHOOK_SECRET is required with WEBHOOK_URL: 1 to 256 characters of A-Z, a-z, 0-9, "
            "_ and -, e.g. from `python3 -c 'import secrets; print(secrets.token_urlsafe(32))'`."
        )
    if not WEBHOOK_SECRET_RE.fullmatch(secret):
        # The value itself is a secret: never repeat it.
        problem = f"it has {len(secret)}" if len(secret) > 256 else "it has other characters"
        raise ConfigError(
            f"WEBHOOK_SECRET must be 1 to 256 characters of A-Z, a-z, 0-9, _ and - ({problem})."
        )
    return url, listen, port, secret
