"""`python -m bot`: settings, logging without the token, long polling."""

from __future__ import annotations

import logging
import sys

from telegram import Update

from bot.app import build_application
from bot.config import ConfigError, load_settings


class RedactToken(logging.Filter):
    """Replace the bot token in every log record, wherever it comes from."""

    def __init__(self, token: str) -> None:
        super().__init__()
        self._token = token

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if self._token in message:
            record.msg, record.args = message.replace(self._token, "<token>"), None
        return True


def configure_logging(level: str, token: str) -> None:
    logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s", level=level)
    for handler in logging.getLogger().handlers:
        handler.addFilter(RedactToken(token))
    # httpx logs every request URL, and Telegram's URLs contain the token.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logging.getLogger("httpcore").setLevel(logging.WARNING)


def run_bot() -> int:
    """Run the bot until interrupted. Returns the process exit code."""
    try:
        settings = load_settings()
    except ConfigError as error:
        print(error, file=sys.stderr)
        return 2
    configure_logging(settings.log_level, settings.token)
    application = build_application(settings)
    application.run_polling(allowed_updates=Update.ALL_TYPES)
    return 0
