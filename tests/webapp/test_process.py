"""`python -m bot` with WEBAPP_URL, as a real process: in polling mode its own web server on
WEB_PORT serves the Mini App; in webhook mode the webhook's server does (one port). Stopping
it with an events stream open is still prompt and clean."""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from pathlib import Path

import aiohttp
import pytest

from tests.support.fake_telegram import FakeTelegram
from tests.support.processes import BotProcess, WebhookBot, bot_env, free_port
from tests.webapp.support import telegram_init_data

# Every test here runs `python -m bot` (or its script) as a process.
pytestmark = pytest.mark.process

WAIT = 15.0  # generous: a wait only takes this long when something is broken
ALICE = FakeTelegram.user(1001, "Alice")


async def wait_healthy(bot: BotProcess, url: str) -> None:
    assert bot.proc is not None
    deadline = time.monotonic() + WAIT
    async with aiohttp.ClientSession() as http:
        while time.monotonic() < deadline:
            assert bot.proc.returncode is None, bot.tail()
            with contextlib.suppress(aiohttp.ClientError):
                async with http.get(url) as response:
                    if response.status == 200:
                        return
            await asyncio.sleep(0.05)
    raise AssertionError(f"never healthy:\n{bot.tail()}")


async def check_mini_app(base: str, token: str) -> None:
    """The page is served; the API refuses a request without initData."""
    async with aiohttp.ClientSession() as http:
        async with http.get(base + "/app/") as page:
            assert page.status == 200
            assert page.content_type == "text/html"
            text = await page.text()
            assert re.search(r"static/app\.[0-9a-f]+\.js", text) and token not in text
        async with http.get(base + "/app/api/games") as api:
            assert api.status == 401


async def test_polling_mode_serves_the_mini_app_on_web_port(
    telegram: FakeTelegram, tmp_path: Path, database_url: str
) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    # Plain HTTP: Telegram's test environment ("Mini Apps in the test environment can use
    # HTTP links without TLS").
    telegram.test_environment = True
    env = bot_env(
        telegram,
        database_url,
        WEBAPP_URL=base,
        WEB_PORT=str(port),
        WEBHOOK_LISTEN="127.0.0.1",
    )
    bot = BotProcess(tmp_path, env)
    await bot.start()
    try:
        await wait_healthy(bot, base + "/healthz")
        await check_mini_app(base, telegram.token)
        await telegram.wait_until(lambda: None in telegram.menu_buttons, timeout=WAIT)
        assert telegram.menu_buttons[None]["web_app"]["url"] == base + "/app/"
        assert telegram.calls_of("setWebhook") == []  # still long polling
        # A page follows a game when the bot is stopped: the stop ends its stream.
        telegram.add_chat(FakeTelegram.private_chat(ALICE))
        alice = {"Authorization": "tma " + telegram_init_data(telegram.token, ALICE)}
        new_game = {"level": "easy", "mark": "X", "size": 3}
        async with aiohttp.ClientSession() as http:
            async with http.post(base + "/app/api/games", json=new_game, headers=alice) as made:
                assert made.status == 201
                game_id = (await made.json())["game"]["id"]
            events = base + f"/app/api/games/{game_id}/events"
            async with http.get(events, headers=alice) as stream:
                assert (await stream.content.readline()) == b"event: state\n"
                code = await bot.stop(timeout=WAIT)
                await stream.read()  # the stream ends with the server
    finally:
        code = await bot.stop(timeout=WAIT, exited_ok=True)
    assert code == 0, bot.tail()
    assert telegram.token not in bot.output


async def test_webhook_mode_serves_the_mini_app_on_the_webhook_port(
    telegram: FakeTelegram, tmp_path: Path, database_url: str
) -> None:
    bot = WebhookBot(telegram, tmp_path, database_url, "s3cret")
    base = f"http://127.0.0.1:{bot.port}"
    telegram.test_environment = True  # plain HTTP, as above
    bot.env["WEBAPP_URL"] = base
    await bot.start()
    try:
        await bot.wait_listening()
        await check_mini_app(base, telegram.token)
    finally:
        code = await bot.stop(timeout=WAIT, exited_ok=True)
    assert code == 0, bot.tail()
