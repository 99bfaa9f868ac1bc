"""What the Mini App's tests share: initData signed the way Telegram signs it (written out
here from Telegram's documentation, not taken from the bot), and the bot with its web server."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import socket
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import aiohttp

from bot.intake.web import WebServer, build_web_app
from tests.support.bot_runner import BotRunner
from tests.support.fake_telegram import FakeTelegram, StoredMessage

WEBAPP_SHORT_NAME = "board"


def telegram_init_data(
    token: str,
    user: dict[str, Any],
    *,
    auth_date: float | None = None,
    start_param: str | None = None,
) -> str:
    """Telegram.WebApp.initData for `user`, signed with the bot's token as Telegram does."""
    fields = {
        "query_id": "AAHdF6IQAAAAAN0XohDhrOrc",
        "user": json.dumps({k: v for k, v in user.items() if k != "is_bot"}, separators=(",", ":")),
        "auth_date": str(int(time.time() if auth_date is None else auth_date)),
    }
    if start_param is not None:
        fields["start_param"] = start_param
    check = "\n".join(f"{key}={fields[key]}" for key in sorted(fields))
    secret = hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()
    fields["hash"] = hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()
    return urlencode(fields)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@asynccontextmanager
async def bot_with_mini_app(
    telegram: FakeTelegram, database_url: str, **settings: Any
) -> AsyncIterator[tuple[BotRunner, str]]:
    """The real bot polling the fake server, and its web server serving the Mini App (as
    `tictactoe-bot run` does in polling mode); yields the runner and the page's address."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    # The page is served over plain HTTP here, which Telegram allows only in its test
    # environment ("Mini Apps in the test environment can use HTTP links without TLS").
    telegram.test_environment = True
    runner = BotRunner(
        telegram,
        database_url,
        webapp_url=base,
        webapp_short_name=WEBAPP_SHORT_NAME,
        web_port=port,
        **settings,
    )
    application = await runner.start()
    servers = [WebServer(build_web_app(application, mini_app=True), "127.0.0.1", port)]
    _SERVERS[id(runner)] = (application, port, servers)
    try:
        await servers[0].start()
        yield runner, f"{base}/app/"
    finally:
        await servers[-1].stop()
        _SERVERS.pop(id(runner), None)
        await runner.stop()


# The web servers of the running bots (by id(runner)), for a test that takes one away.
_SERVERS: dict[int, tuple[Any, int, list[WebServer]]] = {}


async def stop_web_server(runner: BotRunner) -> None:
    """The web server goes away (the bot keeps running), as in a restart behind a proxy."""
    await _SERVERS[id(runner)][2][-1].stop()


async def start_web_server(runner: BotRunner) -> None:
    """A new web server for the same bot on the same port, as after a restart."""
    application, port, servers = _SERVERS[id(runner)]
    servers.append(WebServer(build_web_app(application, mini_app=True), "127.0.0.1", port))
    await servers[-1].start()


def public_id_on(telegram: FakeTelegram, board: StoredMessage) -> str:
    """The public id of the game a board shows, as its "Open board" button names it: the
    web_app page's `?game=` in a private chat, the t.me link's `startapp=g…` elsewhere."""
    shown = telegram.inline_messages[board.inline_message_id] if board.inline_message_id else None
    shown = shown or telegram.messages[board.key]  # type: ignore[index]
    assert shown.reply_markup is not None, "a board with no buttons"
    button = shown.reply_markup["inline_keyboard"][-1][0]
    link = button["web_app"]["url"] if "web_app" in button else button["url"]
    query = parse_qs(urlsplit(link).query)
    return query["game"][0] if "game" in query else query["startapp"][0].removeprefix("g")


def auth(telegram: FakeTelegram, user: dict[str, Any], **kwargs: Any) -> dict[str, str]:
    """The API's Authorization header for `user`, signed as Telegram signs init data."""
    return {"Authorization": "tma " + telegram_init_data(telegram.token, user, **kwargs)}


async def call(
    http: aiohttp.ClientSession, method: str, url: str, headers: dict[str, str], body: Any = None
) -> tuple[int, Any]:
    """One API request (a JSON body, or a string sent as it is): the status and JSON answer."""
    data = body if isinstance(body, str) else None
    json_body = None if isinstance(body, str) else body
    async with http.request(method, url, headers=headers, json=json_body, data=data) as answer:
        text = await answer.text()
        return answer.status, json.loads(text) if text else None


def versioned_names(page_html: str) -> dict[str, str]:
    """The page's files as it names them (bot.webapp.serving.assets), by their names in
    static/: {"app.js": "app.<hash>.js", …}."""
    found = re.findall(r"static/([\w-]+)\.([0-9a-f]{12})(\.\w+)", page_html)
    return {stem + suffix: f"{stem}.{digest}{suffix}" for stem, digest, suffix in found}


async def static_url(http: aiohttp.ClientSession, page: str, name: str) -> str:
    """The address the page (at `page`) loads static/'s `name` from, versioned."""
    async with http.get(page) as answer:
        return page + "static/" + versioned_names(await answer.text())[name]
