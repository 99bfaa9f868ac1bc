"""Settings from the environment and an optional `.env` file (see `.env.example`)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///tictactoe.sqlite3"


class ConfigError(Exception):
    """A missing or malformed setting; the message is one line meant for the person running it."""


@dataclass(frozen=True)
class Settings:
    token: str
    database_url: str = DEFAULT_DATABASE_URL
    api_base_url: str | None = None
    log_level: str = "INFO"
    ai_pause_seconds: float = 1.0

    def __repr__(self) -> str:
        # The token must never reach a log line, even through a repr.
        return (
            f"Settings(token='***', database_url={self.database_url!r}, "
            f"api_base_url={self.api_base_url!r}, log_level={self.log_level!r}, "
            f"ai_pause_seconds={self.ai_pause_seconds!r})"
        )


def read_env_file(path: Path) -> dict[str, str]:
    """KEY=VALUE lines; blank lines and # comments are skipped, optional quotes removed."""
    values: dict[str, str] = {}
    if not path.is_file():
        return values
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        key = key.strip().removeprefix("export ").strip()
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        values[key] = value
    return values


def load_settings(
    environ: Mapping[str, str] | None = None, env_file: Path | None = Path(".env")
) -> Settings:
    """Settings from `.env` overridden by the real environment. Raises ConfigError."""
    values = read_env_file(env_file) if env_file else {}
    values.update(os.environ if environ is None else environ)

    token = values.get("TELEGRAM_BOT_TOKEN", "").strip()
    if not token:
        raise ConfigError(
            "TELEGRAM_BOT_TOKEN is not set: create a bot with @BotFather and put its token in "
            ".env (see .env.example), or play in the terminal with `python -m bot console`."
        )
    log_level = values.get("LOG_LEVEL", "INFO").strip().upper() or "INFO"
    if log_level not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
        raise ConfigError(f"LOG_LEVEL must be DEBUG, INFO, WARNING or ERROR, not {log_level!r}.")
    pause_text = values.get("AI_PAUSE_SECONDS", "1.0").strip() or "1.0"
    try:
        pause = float(pause_text)
    except ValueError:
        pause = -1.0
    if not 0 <= pause <= 60:
        raise ConfigError(
            f"AI_PAUSE_SECONDS must be a number of seconds from 0 to 60, not {pause_text!r}."
        )
    return Settings(
        token=token,
        database_url=values.get("DATABASE_URL", "").strip() or DEFAULT_DATABASE_URL,
        api_base_url=values.get("TELEGRAM_API_BASE_URL", "").strip() or None,
        log_level=log_level,
        ai_pause_seconds=pause,
    )
