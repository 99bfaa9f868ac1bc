"""What `bot.telegram.http_transport` puts on the wire: a call without files is one JSON object
(its keyboard an object, its text as written), a call with a file is multipart."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp import web
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup

from bot.telegram.http_transport import AiohttpRequest

TOKEN = "123456:TEST-token"
ME = {"id": 123456, "is_bot": True, "first_name": "Bot", "username": "test_bot"}
MESSAGE = {"message_id": 7, "date": 0, "chat": {"id": 42, "type": "private"}, "text": "x"}


@pytest.fixture
async def received() -> AsyncIterator[tuple[str, list[dict[str, Any]]]]:
    """A server that records each call's content type and parameters, and answers a message
    (`getMe`, which starting the bot calls, with the bot)."""
    calls: list[dict[str, Any]] = []

    async def handle(request: web.Request) -> web.Response:
        if request.match_info["method"] == "getMe":
            return web.json_response({"ok": True, "result": ME})
        if request.content_type == "application/json":
            parameters = await request.json()
        else:
            parameters = {key: value for key, value in (await request.post()).items()}
        calls.append({"type": request.content_type, "parameters": parameters})
        return web.json_response({"ok": True, "result": MESSAGE})

    app = web.Application()
    app.router.add_post("/bot{token}/{method}", handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield f"http://127.0.0.1:{port}/bot", calls
    finally:
        await runner.cleanup()


async def test_a_call_without_files_is_one_json_object_and_with_a_file_multipart(
    received: tuple[str, list[dict[str, Any]]],
) -> None:
    base_url, calls = received
    bot = Bot(TOKEN, base_url=base_url, request=AiohttpRequest(), get_updates_request=None)
    keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("❌ ⭕ «2 2»", callback_data="m:5")]])
    async with bot:
        await bot.send_message(42, "Your turn ❌ — «Ann»", reply_markup=keyboard)
        await bot.send_photo(42, b"\x89PNG\r\n\x1a\n", caption="Ann ❌")
    text_call, photo_call = calls
    assert text_call["type"] == "application/json"
    assert text_call["parameters"] == {
        "chat_id": 42,
        "text": "Your turn ❌ — «Ann»",
        "reply_markup": {
            "inline_keyboard": [[{"text": "❌ ⭕ «2 2»", "callback_data": "m:5"}]],
        },
    }
    assert photo_call["type"] == "multipart/form-data"
    assert photo_call["parameters"]["caption"] == "Ann ❌"
    assert photo_call["parameters"]["chat_id"] == "42"
