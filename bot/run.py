"""`tictactoe-bot run` (and `python -m bot`): settings, logging without secrets, then the bot's
life: start-up, long polling or a webhook server, and a clean stop on SIGINT or SIGTERM. With
WEBAPP_URL the web server also serves the Mini App: the webhook's server in webhook mode, one
of its own on WEB_PORT in polling mode.

The order is `run_polling`'s: initialize, post_init, start receiving updates, start … stop
receiving, stop, post_stop, shutdown, post_shutdown. It is written out here rather than left to
`run_polling`/`run_webhook` so that webhook mode can use our own web server (bot.intake.web, which
also serves /healthz), long polling our own loop (bot.intake.polling, which stores a batch
before acknowledging it), and so that a Telegram that cannot be reached at start-up (or that
refuses the webhook) is one line on stderr, not a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
from collections.abc import Coroutine, Iterator
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web
from telegram.error import BadRequest, InvalidToken, NetworkError, TelegramError

from bot.app import ALLOWED_UPDATES, build_application
from bot.config import ConfigError, Settings, load_settings
from bot.context import BotApplication
from bot.games.db.reachable import DatabaseProblem, check_database
from bot.games.db.sqlite_file import end_process_if_left_open, say_why_before_a_bus_error
from bot.intake.metrics_page import build_metrics_app
from bot.intake.polling import Polling
from bot.intake.web import WebServer, build_web_app
from bot.telegram import request as telegram_request
from bot.telemetry.json_logs import JsonFormatter

TELEGRAM_API = "https://api.telegram.org"
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


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


def configure_logging(level: str, token: str, *secrets: str, log_format: str = "text") -> None:
    """The root logger at `level`, on stderr, as text lines or JSON objects (LOG_FORMAT), each
    scrubbed of the token and `secrets` before it is formatted, whatever the format."""
    logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s", level=level)
    for handler in logging.getLogger().handlers:
        handler.addFilter(RedactToken(token, *secrets))
        if log_format == "json":
            handler.setFormatter(JsonFormatter())
    if log_format == "json":
        # A warning would otherwise be written to stderr as lines of its own.
        logging.captureWarnings(True)
    # httpx logs every request URL, and Telegram's URLs contain the token.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logging.getLogger("httpcore").setLevel(logging.WARNING)


class StartupError(Exception):
    """The bot cannot start for a reason outside it (Telegram out of reach, the port taken);
    the message is one line for the person running it, free of secrets."""


def run_bot() -> int:
    """Run the bot until SIGINT or SIGTERM. Returns the process exit code."""
    try:
        settings = load_settings()
    except ConfigError as error:
        print(error, file=sys.stderr)
        return 2
    webhook_secret = settings.webhook_secret.get_secret_value() if settings.webhook_secret else ""
    configure_logging(
        settings.log_level,
        settings.token.get_secret_value(),
        webhook_secret,
        log_format=settings.log_format,
    )
    say_why_before_a_bus_error()
    application = build_application(settings)
    try:
        asyncio.run(BotLife(application, settings).run())
    except InvalidToken:
        # PTB's message quotes the whole token; say what to do instead, on one line.
        print(
            "Telegram rejected TELEGRAM_BOT_TOKEN: copy the token again from @BotFather "
            "(or play in the terminal with `tictactoe-bot console`).",
            file=sys.stderr,
        )
        return 2
    except DatabaseProblem as problem:
        print(problem, file=sys.stderr)
        return 2 if problem.settings else 1
    except StartupError as error:
        # 1, not 2: the settings may be right and the world wrong (no network, a busy port);
        # a process manager may well retry.
        print(error, file=sys.stderr)
        return 1
    # A read-only SQLite file's connections were left open: the interpreter's exit would
    # close them, and that would end the process with SIGBUS.
    end_process_if_left_open(0)
    return 0


class BotLife:
    """One run of the bot, from start-up to a stop signal and a clean stop."""

    def __init__(self, application: BotApplication, settings: Settings) -> None:
        self.application = application
        self.settings = settings
        self.web_server: WebServer | None = None
        self.metrics_server: WebServer | None = None
        self.polling: Polling | None = None

    async def run(self) -> None:
        """Start, serve until SIGINT or SIGTERM, stop. A signal during start-up stops too."""
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in STOP_SIGNALS:
            loop.add_signal_handler(signum, stop.set)
        try:
            if await _unless(stop, self.start()):
                await stop.wait()
        finally:
            await self.stop()
            for signum in STOP_SIGNALS:
                loop.remove_signal_handler(signum)

    async def start(self) -> None:
        """Initialize, post_init, start receiving updates (long polling or the webhook
        server), start handling them."""
        application = self.application
        # The database first: a wrong DATABASE_URL is one line, and Telegram is not bothered.
        await check_database(self.settings.database_url.get_secret_value())
        await self.initialize()
        if application.post_init:
            await application.post_init(application)
        await self.serve_metrics()
        if self.settings.uses_webhook:
            await self.start_webhook()
        else:
            if self.settings.webapp_url is not None:
                await self.serve(build_web_app(application, mini_app=True), "WEB_PORT")
            await self.start_polling()

    async def initialize(self) -> None:
        """PTB's initialize (getMe), with Telegram out of reach said in one line."""
        retries = logging.getLogger(telegram_request.__name__)
        with _held_back(retries) as held:
            try:
                await self.application.initialize()
            except NetworkError as error:  # TimedOut too; an answer such as 400 is not this
                await _close_connections(self.application)
                if isinstance(error, BadRequest):
                    raise
                raise StartupError(
                    f"cannot reach the Telegram Bot API at {self.api_url()}: {self.scrub(error)}"
                ) from None
            except BaseException:
                await _close_connections(self.application)
                raise
        for record in held:  # it came through in the end: the retries are worth a log line
            retries.handle(record)

    async def start_webhook(self) -> None:
        """Serve WEBHOOK_URL's path (and /healthz), then register the URL with Telegram: a
        port that cannot be had stops the start before Telegram is told of it."""
        settings = self.settings
        assert settings.webhook_url is not None and settings.webhook_secret is not None
        path = urlsplit(settings.webhook_url).path
        mini_app = settings.webapp_url is not None
        secret = settings.webhook_secret.get_secret_value()
        web_app = build_web_app(self.application, path, secret, mini_app=mini_app)
        await self.serve(web_app, "WEBHOOK_PORT")
        try:
            await self.application.bot.set_webhook(
                url=settings.webhook_url,
                secret_token=secret,
                allowed_updates=ALLOWED_UPDATES,
            )
        except TelegramError as error:  # refused (a URL Telegram will not post to), or no answer
            raise StartupError(
                f"Telegram refused the webhook {self.scrub(settings.webhook_url)} "
                f"(WEBHOOK_URL): {self.scrub(error)}"
            ) from None
        # Updates that arrive before this wait in the inbox; /healthz says 503 until then.
        await self.application.start()
        inbox = self.application.bot_data.inbox
        assert inbox is not None  # webhook mode opens it
        inbox.start()

    async def start_polling(self) -> None:
        """Handle updates, then long poll (`bot.intake.polling`: each batch goes into the
        inbox before Telegram is told it arrived)."""
        application, settings = self.application, self.settings
        inbox = application.bot_data.inbox
        assert inbox is not None  # opened in both modes
        await application.start()
        inbox.start()
        self.polling = Polling(
            application.bot,
            inbox,
            ALLOWED_UPDATES,
            backoff=settings.retry_backoff_seconds,
            outage_log_seconds=settings.telegram_outage_log_seconds,
        )
        await self.polling.start()

    async def serve(self, web_app: web.Application, port_setting: str) -> None:
        """Serve `web_app` on WEBHOOK_LISTEN and the port `port_setting` names; a port that
        cannot be had is a StartupError."""
        settings = self.settings
        port = settings.webhook_port if port_setting == "WEBHOOK_PORT" else settings.web_port
        address = (settings.webhook_listen, port, "WEBHOOK_LISTEN", port_setting)
        self.web_server = await _listen(web_app, *address)

    async def serve_metrics(self) -> None:
        """With METRICS_PORT, serve /metrics on METRICS_LISTEN:METRICS_PORT (both modes)."""
        settings, resources = self.settings, self.application.bot_data
        if settings.metrics_port is None or resources.metrics is None:
            return
        web_app = build_metrics_app(resources.metrics, resources.running)
        address = (settings.metrics_listen, settings.metrics_port, "METRICS_LISTEN", "METRICS_PORT")
        self.metrics_server = await _listen(web_app, *address)

    async def stop(self) -> None:
        """Undo whatever `start` got to, in reverse order; safe after a failed start."""
        application = self.application
        for server in (self.metrics_server, self.web_server):
            if server is not None:
                await server.stop()
        if self.polling is not None:
            await self.polling.stop()
        inbox = application.bot_data.inbox
        if inbox is not None:
            # The updates in flight finish while the bot can still talk to Telegram (those
            # that do not in time stay in the inbox for the next start).
            await inbox.stop()
        if application.running:
            await application.stop()
            if application.post_stop:
                await application.post_stop(application)
        await application.shutdown()
        if application.post_shutdown:
            await application.post_shutdown(application)

    def api_url(self) -> str:
        """The Bot API's address as configured, without the token."""
        return self.scrub(self.settings.api_base_url or TELEGRAM_API)

    def scrub(self, error: object) -> str:
        """One line of text without the token."""
        text = " ".join(str(error).split()) or type(error).__name__
        return text.replace(self.settings.token.get_secret_value(), "<token>")


async def _listen(
    web_app: web.Application, host: str, port: int, host_setting: str, port_setting: str
) -> WebServer:
    """`web_app` served on host:port; a port that cannot be had is a StartupError naming the
    settings that chose it."""
    server = WebServer(web_app, host, port)
    try:
        await server.start()
    except OSError as error:
        raise StartupError(
            f"cannot listen on {host}:{port} ({host_setting}, {port_setting}): {error}"
        ) from None
    return server


async def _close_connections(application: BotApplication) -> None:
    """Close the Bot API connections of a bot whose initialize failed: PTB's shutdown skips a
    bot that never finished initializing, and an open aiohttp session would be reported."""
    transports = application.bot_data.transports
    for request in transports:  # (getUpdates, everything else): see bot.app
        with contextlib.suppress(Exception):
            await request.shutdown()


async def _unless(stop: asyncio.Event, step: Coroutine[Any, Any, None]) -> bool:
    """Run `step` unless `stop` is set first (then `step` is cancelled); True if it ran."""
    task = asyncio.ensure_future(step)
    stopped = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({task, stopped}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopped.cancel()
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
    if task.cancelled():
        return False
    task.result()  # its exception, if it failed
    return True


@contextlib.contextmanager
def _held_back(logger: logging.Logger) -> Iterator[list[logging.LogRecord]]:
    """Collect `logger`'s records instead of emitting them, for the caller to emit or drop."""
    held: list[logging.LogRecord] = []

    def hold(record: logging.LogRecord) -> bool:
        held.append(record)
        return False

    logger.addFilter(hold)
    try:
        yield held
    finally:
        logger.removeFilter(hold)
