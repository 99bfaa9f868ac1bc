"""`python -m bot`: settings, logging without secrets, long polling or a webhook."""

from __future__ import annotations

import logging
import sys
from urllib.parse import urlsplit

from telegram.error import InvalidToken
from telegram.ext import Application

from bot.app import ALLOWED_UPDATES, build_application
from bot.config import ConfigError, Settings, load_settings


class RedactToken(logging.Filter):
    """Replace the bot token (and other secrets, such as the webhook's) in every log record,
    wherever it comes from."""

    def __init__(self, token: str, *secrets: str) -> None:
        super().__init__()
        self._token = token
        self._secrets = [s for s in (token, *secrets) if s]

    def _scrub(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, "<token>" if secret == self._token else "<secret>")
        return text

    def _has_secret(self, text: str) -> bool:
        return any(secret in text for secret in self._secrets)

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if self._has_secret(message):
            record.msg, record.args = self._scrub(message), None
        # Tracebacks too: PTB's InvalidToken message quotes the token. A formatter uses a set
        # exc_text as is instead of formatting exc_info again.
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text and self._has_secret(record.exc_text):
            record.exc_text = self._scrub(record.exc_text)
        if record.stack_info and self._has_secret(record.stack_info):
            record.stack_info = self._scrub(record.stack_info)
        return True


def configure_logging(level: str, token: str, *secrets: str) -> None:
    logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s", level=level)
    for handler in logging.getLogger().handlers:
        handler.addFilter(RedactToken(token, *secrets))
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
    configure_logging(settings.log_level, settings.token, settings.webhook_secret or "")
    application = build_application(settings)
    try:
        if settings.uses_webhook:
            run_webhook(application, settings)
        else:
            application.run_polling(allowed_updates=ALLOWED_UPDATES)
    except InvalidToken:
        # PTB's message quotes the whole token; say what to do instead, on one line.
        print(
            "Telegram rejected TELEGRAM_BOT_TOKEN: copy the token again from @BotFather "
            "(or play in the terminal with `python -m bot console`).",
            file=sys.stderr,
        )
        return 2
    return 0


def run_webhook(application: Application, settings: Settings) -> None:
    """Serve Telegram's POSTs on WEBHOOK_LISTEN:WEBHOOK_PORT at WEBHOOK_URL's path.

    PTB's server (tornado) answers 403 to a request without the right
    X-Telegram-Bot-Api-Secret-Token header, so only Telegram's updates are processed.
    """
    assert settings.webhook_url is not None and settings.webhook_secret is not None
    application.run_webhook(
        listen=settings.webhook_listen,
        port=settings.webhook_port,
        url_path=urlsplit(settings.webhook_url).path.lstrip("/"),
        webhook_url=settings.webhook_url,
        secret_token=settings.webhook_secret,
        allowed_updates=ALLOWED_UPDATES,
    )
