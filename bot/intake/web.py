"""The bot's web server (aiohttp): Telegram's updates in webhook mode, a health check, and
the Mini App (bot.webapp) when WEBAPP_URL is set (in polling mode it serves only those two).

    POST <path of WEBHOOK_URL>   an update from Telegram. Without the right
                                 X-Telegram-Bot-Api-Secret-Token header: 403, nothing read.
                                 Otherwise it is stored (`bot.intake.webhook_inbox`) and
                                 answered 200, then handled: a crash after the answer loses
                                 nothing. 503 when it cannot be stored (Telegram sends it
                                 again later; a tap hears once that it could not be saved).
    GET  /healthz                200 {"ok": true, "database": "ok"} while the bot runs and the
                                 database takes a tiny write; 503 with what is wrong otherwise
                                 ("database locked", "disk full", "database file missing",
                                 "database read-only", "timeout", "error", "not open").
    /app/…                       the Mini App's page and API (bot.webapp.api), with WEBAPP_URL.

`build_web_app` returns a plain `aiohttp.web.Application`, so more routes (a Mini App's pages
and API) are added with `web_app.router.add_get(...)` or `add_routes` before `WebServer.start`.
The shape follows python-telegram-bot's custom-webhook example: the web framework is ours,
the updates go to `application.update_queue`.
"""

from __future__ import annotations

import hmac
import json
import logging
import traceback
from typing import Any

from aiohttp import web
from aiohttp.http_exceptions import BadHttpMessage
from aiohttp.log import server_logger

from bot.chores.outage import Tally
from bot.context import BotApplication
from bot.games.db.health import DatabaseState, probe
from bot.games.db.sqlite_file import refusal
from bot.handlers.errors import not_stored
from bot.intake.incoming import NotAnUpdate, OutOfRange, read_update
from bot.intake.webhook_inbox import WebhookInbox
from bot.locales.texts import texts_for
from bot.webapp.api import add_routes as add_mini_app

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
HEALTH_PATH = "/healthz"
#: How long /healthz waits for the database's write before it says "timeout" (or "database
#: locked", when SQLite says so first).
HEALTH_DB_TIMEOUT = 3.0
#: How long a stopping server waits for requests in flight (ours answer in milliseconds).
SHUTDOWN_TIMEOUT = 5.0

APPLICATION = web.AppKey("application", BotApplication)
WEBHOOK_SECRET = web.AppKey("webhook_secret", bytes)
#: Requests refused for a wrong secret: anyone may send them, as many as they like.
REFUSED = web.AppKey("refused", Tally)


def build_web_app(
    application: BotApplication,
    webhook_path: str | None = None,
    secret: str | None = None,
    *,
    mini_app: bool = False,
) -> web.Application:
    """The routes above, for `application`: the webhook's when `secret` (WEBHOOK_SECRET) is
    given, the Mini App's with `mini_app`."""
    web_app = web.Application()
    web_app[APPLICATION] = application
    if secret is not None:
        web_app[WEBHOOK_SECRET] = secret.encode()
        refused = "refused a webhook request without the right secret"
        web_app[REFUSED] = Tally(refused, logger=log)
        web_app.router.add_post(webhook_path or "/", receive_update)
    web_app.router.add_get(HEALTH_PATH, healthz)
    if mini_app:
        add_mini_app(web_app, application)
    return web_app


async def receive_update(request: web.Request) -> web.Response:
    """Queue Telegram's update for the Application; 403 without the secret, 400 for garbage."""
    given = request.headers.get(SECRET_HEADER, "").encode("utf-8", "surrogateescape")
    # Constant time: a timing difference must not reveal how much of a guess was right.
    if not hmac.compare_digest(given, request.app[WEBHOOK_SECRET]):
        request.app[REFUSED].heard(f"from {request.remote}")
        return web.Response(status=403, text="Forbidden")
    application = request.app[APPLICATION]
    try:
        data = await request.json()
        update = read_update(data, application.bot)
    except OutOfRange as error:
        # Well signed, but no database column holds one of its numbers: dropped, and
        # answered 200 so that Telegram does not send it again (it would be dropped again).
        log.warning("dropped update %s: %s", _update_id(data), error)
        return web.Response(text="OK")
    except NotAnUpdate as error:
        log.warning("refused a webhook request that is not an update: %s", error)
        return web.Response(status=400, text="Bad Request")
    except (ValueError, RecursionError) as error:
        # A well-signed body that is no JSON, or nested 5,000 deep: one line, not a traceback.
        log.warning("refused a webhook request that is not an update: %s", type(error).__name__)
        return web.Response(status=400, text="Bad Request")
    inbox: WebhookInbox | None = application.bot_data.inbox
    if inbox is None:
        await application.update_queue.put(update)
        return web.Response(text="OK")
    try:
        await inbox.receive(update, json.dumps(data, separators=(",", ":")))
    except Exception as error:  # any driver's error: Telegram sends the update again later
        refused = refusal(error)
        why = refused.value if refused is not None else type(error).__name__
        # Meanwhile a tap is told (once) that it could not be saved; this answer does not wait.
        user = update.effective_user
        tr = texts_for(user.language_code if user else None)
        told = not_stored(update, application.bot_data.unstored, tr, why, handled=False)
        application.create_task(told, name=f"not stored {update.update_id}")
        return web.Response(status=503, text="Service Unavailable")
    return web.Response(text="OK")


def _update_id(data: dict[str, Any]) -> object:
    """An update's id, for a log line (an int, or what was there instead, shortened)."""
    update_id = data.get("update_id")
    return update_id if isinstance(update_id, int) and abs(update_id) < 2**63 else "(bad id)"


async def healthz(request: web.Request) -> web.Response:
    """Whether the bot runs and its database takes a write, as JSON for a container's health
    check: the database's state in a few words (`bot.games.db.health.DatabaseState`)."""
    application = request.app[APPLICATION]
    state = await probe(application.bot_data.engine, HEALTH_DB_TIMEOUT)
    ok = application.running and state is DatabaseState.OK
    body: dict[str, Any] = {"ok": ok, "database": state.value}
    return web.json_response(body, status=200 if ok else 503)


class RequestErrors(logging.LoggerAdapter[logging.Logger]):
    """aiohttp's log of the requests it could not handle, without what the requests carried.

    aiohttp logs a request it cannot parse with the parser's error, whose text quotes the
    request (an over-long `Authorization` header: the start of a Mini App's initData, the
    user's id and name); an error in a handler, with the error's text (a database error's
    quotes its parameters). Here a request that is not HTTP enough is one line with the
    error's kind, and any other error its kind and traceback, never its text."""

    def log(self, level: int, msg: object, *args: object, **kwargs: Any) -> None:
        error = kwargs.pop("exc_info", None)
        if not isinstance(error, BaseException):
            self.logger.log(level, msg, *args, **kwargs)
        elif isinstance(error, BadHttpMessage):
            self.logger.info("refused a malformed HTTP request: %s", type(error).__name__)
        else:
            said = str(msg) % args if args else str(msg)
            where = "".join(traceback.format_tb(error.__traceback__))
            self.logger.log(level, "%s: %s\n%s", said, type(error).__name__, where)


class WebServer:
    """`web_app` served on host:port until `stop`."""

    def __init__(self, web_app: web.Application, host: str, port: int) -> None:
        self.host, self.port = host, port
        # No access log: the bot logs one line per update already. Errors: `RequestErrors`.
        self._runner = web.AppRunner(
            web_app,
            access_log=None,
            shutdown_timeout=SHUTDOWN_TIMEOUT,
            logger=RequestErrors(server_logger),
        )

    async def start(self) -> None:
        """Listen; raises OSError when the address is taken or not ours."""
        await self._runner.setup()
        try:
            await web.TCPSite(self._runner, self.host, self.port).start()
        except OSError:
            await self._runner.cleanup()
            raise
        log.info("web server listening on %s:%s", self.host, self.port)

    async def stop(self) -> None:
        """Stop listening, after the requests in flight are answered."""
        await self._runner.cleanup()
