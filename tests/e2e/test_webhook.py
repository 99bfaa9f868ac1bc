"""Webhook mode: `python -m bot` with WEBHOOK_URL serves Telegram's POSTs on 127.0.0.1.

The fake Bot API server records setWebhook and every reply; updates are POSTed to the bot the
way Telegram does, with or without the secret header. The bot runs as a real process (started
with `asyncio.create_subprocess_exec`, since the fake server lives in the test's event loop).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import signal
import socket
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from telegram.ext import Application

from bot.app import build_application
from bot.config import ConfigError, Settings, load_settings
from bot.games.db.engine import create_engine
from bot.intake import web
from bot.intake.web import SECRET_HEADER, WebServer, build_web_app
from tests.support.fake_telegram import FakeTelegram
from tests.support.processes import WebhookBot, free_port, get_json, post_update, run_to_exit

# Every test here runs `python -m bot` (or its script) as a process.
pytestmark = pytest.mark.process

TOKEN = "7412589630:AAF-secretPart_ForTests-xyz"
SECRET = "webhook_Secret-123"
ALICE = FakeTelegram.user(1001, "Alice")
MALLORY = FakeTelegram.user(666, "Mallory")
WAIT = 15.0  # generous: a wait only takes this long when something is broken
UPDATE_IDS = itertools.count(500_000)


# --- settings --------------------------------------------------------------------------------


def test_without_webhook_url_the_bot_long_polls() -> None:
    settings = load_settings({"TELEGRAM_BOT_TOKEN": TOKEN}, env_file=None)
    assert not settings.uses_webhook
    assert (settings.webhook_listen, settings.webhook_port) == ("0.0.0.0", 8443)


def test_webhook_settings_are_read() -> None:
    settings = load_settings(
        {
            "TELEGRAM_BOT_TOKEN": TOKEN,
            "WEBHOOK_URL": "https://bot.example.org/telegram",
            "WEBHOOK_LISTEN": "127.0.0.1",
            "WEBHOOK_PORT": "8080",
            "WEBHOOK_SECRET": SECRET,
        },
        env_file=None,
    )
    assert settings.uses_webhook
    assert settings.webhook_url == "https://bot.example.org/telegram"
    assert (settings.webhook_listen, settings.webhook_port) == ("127.0.0.1", 8080)
    assert settings.webhook_secret is not None
    assert settings.webhook_secret.get_secret_value() == SECRET
    assert SECRET not in repr(settings)


@pytest.mark.parametrize(
    ("values", "words"),
    [
        ({}, "WEBHOOK_SECRET is required"),
        ({"WEBHOOK_SECRET": "has spaces in it"}, "A-Z, a-z, 0-9, _ and -"),
        ({"WEBHOOK_SECRET": "bad/char"}, "A-Z, a-z, 0-9, _ and -"),
        ({"WEBHOOK_SECRET": "x" * 257}, "1 to 256"),
        ({"WEBHOOK_SECRET": SECRET, "WEBHOOK_PORT": "0"}, "WEBHOOK_PORT"),
        ({"WEBHOOK_SECRET": SECRET, "WEBHOOK_PORT": "http"}, "WEBHOOK_PORT"),
    ],
)
def test_bad_webhook_settings_are_one_line_errors(values: dict[str, str], words: str) -> None:
    environ = {"TELEGRAM_BOT_TOKEN": TOKEN, "WEBHOOK_URL": "https://bot.example.org/tg", **values}
    with pytest.raises(ConfigError, match=words) as caught:
        load_settings(environ, env_file=None)
    message = str(caught.value)
    assert "\n" not in message
    secret = values.get("WEBHOOK_SECRET")
    assert not secret or secret not in message  # a secret is never repeated


def test_a_secret_of_256_allowed_characters_is_accepted() -> None:
    secret = ("Az09_-" * 43)[:256]
    settings = load_settings(
        {"TELEGRAM_BOT_TOKEN": TOKEN, "WEBHOOK_URL": "https://x.org/", "WEBHOOK_SECRET": secret},
        env_file=None,
    )
    assert settings.webhook_secret is not None
    assert settings.webhook_secret.get_secret_value() == secret


def test_settings_default_is_polling() -> None:
    assert not Settings(token=TOKEN).uses_webhook


# --- the bot as a webhook server -------------------------------------------------------------


@pytest.fixture
async def webhook_bot(
    telegram: FakeTelegram, tmp_path: Path, database_url: str
) -> AsyncIterator[WebhookBot]:
    bot = WebhookBot(telegram, tmp_path, database_url, SECRET, log_level="DEBUG")
    await bot.start()
    try:
        await bot.wait_listening()
        yield bot
    finally:
        await bot.stop(timeout=WAIT, exited_ok=True)


def update_with_text(telegram: FakeTelegram, user: dict[str, Any], text: str) -> dict[str, Any]:
    """A Telegram update carrying a private message, as Telegram would POST it."""
    chat = telegram.add_chat(FakeTelegram.private_chat(user))
    message: dict[str, Any] = {
        "message_id": 1,
        "from": dict(user),
        "chat": dict(chat),
        "date": int(time.time()),
        "text": text,
    }
    if text.startswith("/"):
        message["entities"] = [{"offset": 0, "length": len(text.split()[0]), "type": "bot_command"}]
    return {"update_id": next(UPDATE_IDS), "message": message}


def calls_to(telegram: FakeTelegram, chat_id: int) -> list[Any]:
    return [call for call in telegram.calls if call.params.get("chat_id") == chat_id]


async def test_set_webhook_is_called_with_the_url_and_the_secret(
    telegram: FakeTelegram, webhook_bot: WebhookBot
) -> None:
    [call] = telegram.calls_of("setWebhook")
    assert call.ok
    assert call.params["url"] == webhook_bot.url
    assert call.params["secret_token"] == SECRET
    assert telegram.webhook_url == webhook_bot.url
    # No long polling in webhook mode.
    assert telegram.calls_of("getUpdates") == []


async def test_only_updates_with_the_right_secret_are_processed(
    telegram: FakeTelegram, webhook_bot: WebhookBot
) -> None:
    forged = update_with_text(telegram, MALLORY, "/help")
    assert await post_update(webhook_bot.url, forged, None) == 403
    assert await post_update(webhook_bot.url, forged, "wrong-secret") == 403
    assert await post_update(webhook_bot.url, forged, SECRET.upper()) == 403
    assert await post_update(webhook_bot.url, forged, "") == 403

    mark = telegram.mark()
    genuine = update_with_text(telegram, ALICE, "/help")
    assert await post_update(webhook_bot.url, genuine, SECRET) == 200
    reply = await telegram.wait_for(
        lambda call: call.method == "sendMessage" and call.params.get("chat_id") == ALICE["id"],
        WAIT,
        since=mark,
    )
    assert reply.ok and "/start" in reply.params["text"]
    # A refused request never reaches the bot: nothing was ever sent to Mallory's chat.
    assert calls_to(telegram, MALLORY["id"]) == []

    # A game over the webhook: the board comes, a typed move edits it.
    mark = telegram.mark()
    start = update_with_text(telegram, ALICE, "/start user user")
    assert await post_update(webhook_bot.url, start, SECRET) == 200
    await telegram.wait_for("sendMessage", WAIT, since=mark)
    mark = telegram.mark()
    move = update_with_text(telegram, ALICE, "2 2")
    assert await post_update(webhook_bot.url, move, SECRET) == 200
    edit = await telegram.wait_for("editMessageText", WAIT, since=mark)
    assert edit.ok and edit.params["chat_id"] == ALICE["id"]


async def test_shutdown_is_clean_and_no_secret_is_logged(
    telegram: FakeTelegram, tmp_path: Path, database_url: str
) -> None:
    bot = WebhookBot(telegram, tmp_path, database_url, SECRET, log_level="DEBUG")
    await bot.start()
    try:
        await bot.wait_listening()
        mark = telegram.mark()
        assert await post_update(bot.url, update_with_text(telegram, ALICE, "/help"), SECRET) == 200
        await telegram.wait_for("sendMessage", WAIT, since=mark)
    finally:
        code = await bot.stop(timeout=WAIT, exited_ok=True)
    log = bot.output
    assert code == 0, log
    # DEBUG logging shows setWebhook's parameters: the secret and the token are scrubbed.
    assert "setWebhook" in log
    assert SECRET not in log and telegram.token not in log
    # One line per update, with its kind and chat.
    assert f"message chat {ALICE['id']} handled in" in log


# --- refused requests, /healthz, start-up failures -------------------------------------------


async def test_refused_requests_are_never_processed(
    telegram: FakeTelegram, webhook_bot: WebhookBot
) -> None:
    forged = update_with_text(telegram, MALLORY, "/start hard")
    # (Spaces around a header's value are not part of it in HTTP, so they are no near miss.)
    near_misses = [None, "", "wrong-secret", SECRET.upper(), SECRET[:-1], SECRET + "x"]
    for secret in near_misses:
        assert await post_update(webhook_bot.url, forged, secret) == 403, secret
    async with aiohttp.ClientSession() as session:
        headers = {SECRET_HEADER: SECRET}
        async with session.post(webhook_bot.url, data=b"{not json", headers=headers) as response:
            assert response.status == 400
        async with session.post(webhook_bot.url, json=[1, 2], headers=headers) as response:
            assert response.status == 400
        # Well signed, JSON, and still no update: a field of the wrong type, deep nesting.
        wrong_type = {"update_id": 1, "message": "x"}
        deep = b'{"update_id": 2, "message": ' + b'{"a": ' * 5000 + b"1" + b"}" * 5001
        for body in (json.dumps(wrong_type).encode(), deep, b"[" * 100_000):
            async with session.post(webhook_bot.url, data=body, headers=headers) as response:
                assert response.status == 400
        async with session.get(webhook_bot.url) as response:
            assert response.status == 405

    mark = telegram.mark()
    genuine = update_with_text(telegram, ALICE, "/help")
    assert await post_update(webhook_bot.url, genuine, SECRET) == 200
    await telegram.wait_for("sendMessage", WAIT, since=mark)
    await webhook_bot.wait_handled({genuine["update_id"]})
    # Only the genuine update was handled; nothing ever went to Mallory's chat.
    assert webhook_bot.handled() == {genuine["update_id"]}, webhook_bot.tail()
    assert calls_to(telegram, MALLORY["id"]) == []
    assert await webhook_bot.stop(signal.SIGTERM, timeout=WAIT) == 0, webhook_bot.tail()
    assert "Traceback" not in webhook_bot.output, webhook_bot.tail()


async def test_healthz_answers_while_the_bot_runs(webhook_bot: WebhookBot) -> None:
    async with aiohttp.ClientSession() as session, session.get(webhook_bot.health_url) as response:
        assert response.status == 200
        assert response.content_type == "application/json"
        assert await response.json() == {"ok": True, "database": "ok"}
    # Only GET: Telegram's path takes POSTs, /healthz does not.
    assert await post_update(webhook_bot.health_url, {}, SECRET) == 405


@pytest.fixture
async def web_server(
    telegram: FakeTelegram, tmp_path: Path
) -> AsyncIterator[tuple[Application, str]]:
    """The bot's web app in this process, on a free port, for an Application that is started
    (but whose post_init never ran: the tests give it the database engine they want)."""
    settings = Settings(token=telegram.token, api_base_url=telegram.base_url)
    application = build_application(settings)
    port = free_port()
    server = WebServer(build_web_app(application, "/tg", SECRET), "127.0.0.1", port)
    await server.start()
    try:
        yield application, f"http://127.0.0.1:{port}/healthz"
    finally:
        await server.stop()
        if application.running:
            await application.stop()
        await application.shutdown()
        engine = application.bot_data.engine
        if engine is not None:
            await engine.dispose()


async def test_healthz_is_503_until_the_bot_runs_with_a_database(
    web_server: tuple[Application, str], database_url: str
) -> None:
    application, health_url = web_server
    assert await get_json(health_url) == (503, {"ok": False, "database": "not open"})
    application.bot_data.engine = create_engine(database_url)
    assert await get_json(health_url) == (503, {"ok": False, "database": "ok"})
    await application.initialize()
    await application.start()
    assert await get_json(health_url) == (200, {"ok": True, "database": "ok"})
    await application.stop()
    assert await get_json(health_url) == (503, {"ok": False, "database": "ok"})


async def test_healthz_is_503_when_the_database_does_not_answer(
    web_server: tuple[Application, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    application, health_url = web_server
    await application.initialize()
    await application.start()
    # Nothing listens on this port: the connection is refused.
    refused = f"postgresql+asyncpg://bot:pw@127.0.0.1:{free_port()}/games"
    application.bot_data.engine = create_engine(refused)
    status, body = await get_json(health_url)
    assert status == 503 and body["ok"] is False
    assert body["database"] == "error", body
    await application.bot_data.engine.dispose()
    application.bot_data.engine = None

    # A server that accepts connections and never answers: /healthz gives up in time.
    async def silent(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(WAIT)
        writer.close()

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    monkeypatch.setattr(web, "HEALTH_DB_TIMEOUT", 0.2)
    application.bot_data.engine = create_engine(f"postgresql+asyncpg://bot@127.0.0.1:{port}/g")
    try:
        assert await get_json(health_url) == (503, {"ok": False, "database": "timeout"})
    finally:
        server.close()


async def test_a_port_that_is_taken_is_one_line(
    telegram: FakeTelegram, tmp_path: Path, database_url: str
) -> None:
    bot = WebhookBot(telegram, tmp_path, database_url, SECRET)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", bot.port))
        taken.listen()
        code, out, err = await run_to_exit(tmp_path, bot.env)
    assert code == 1, err
    last = err.splitlines()[-1]
    assert last.startswith(
        f"cannot listen on 127.0.0.1:{bot.port} (WEBHOOK_LISTEN, WEBHOOK_PORT): "
    )
    assert "Traceback" not in err
    # Telegram was never told to post to an address nobody serves.
    assert telegram.calls_of("setWebhook") == []
    assert SECRET not in out + err and telegram.token not in out + err


async def test_a_refused_webhook_is_one_line(
    telegram: FakeTelegram, tmp_path: Path, database_url: str
) -> None:
    bot = WebhookBot(telegram, tmp_path, database_url, SECRET)
    telegram.fail_next("setWebhook", 400, "Bad Request: bad webhook: HTTPS url must be provided")
    code, out, err = await run_to_exit(tmp_path, bot.env)
    assert code == 1, err
    assert "Traceback" not in err, err
    # Nothing but the one line: INFO lines before it are the start-up's own.
    assert not [line for line in err.splitlines()[:-1] if " ERROR " in line], err
    last = err.splitlines()[-1]
    assert last == (
        f"Telegram refused the webhook {bot.url} (WEBHOOK_URL): "
        "Bad webhook: https url must be provided"  # as PTB words Telegram's description
    ), err
    assert SECRET not in out + err and telegram.token not in out + err


async def test_an_update_with_an_id_no_column_holds_is_dropped(
    telegram: FakeTelegram, webhook_bot: WebhookBot
) -> None:
    huge = update_with_text(telegram, ALICE, "/help")
    huge["message"]["chat"]["id"] = 2**70
    # Answered 200: sent again, it would be dropped again.
    assert await post_update(webhook_bot.url, huge, SECRET) == 200
    genuine = update_with_text(telegram, ALICE, "/help")
    assert await post_update(webhook_bot.url, genuine, SECRET) == 200
    await webhook_bot.wait_handled({genuine["update_id"]})
    assert webhook_bot.handled() == {genuine["update_id"]}, webhook_bot.tail()
    line = f"WARNING bot.intake.web: dropped update {huge['update_id']}: "
    assert f"{line}update.message.chat.id is out of range" in webhook_bot.output
    assert "Traceback" not in webhook_bot.output and " ERROR " not in webhook_bot.output
