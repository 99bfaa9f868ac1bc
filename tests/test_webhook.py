"""Webhook mode: `python -m bot` with WEBHOOK_URL serves Telegram's POSTs on 127.0.0.1.

The fake Bot API server records setWebhook and every reply; updates are POSTed to the bot the
way Telegram does, with or without the secret header. The bot runs as a real process (started
with `asyncio.create_subprocess_exec`, since the fake server lives in the test's event loop).
"""

from __future__ import annotations

import asyncio
import itertools
import os
import signal
import socket
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.config import ConfigError, Settings, load_settings
from tests.fake_telegram import FakeTelegram

TOKEN = "7412589630:AAF-secretPart_ForTests-xyz"
SECRET = "webhook_Secret-123"
ALICE = FakeTelegram.user(1001, "Alice")
MALLORY = FakeTelegram.user(666, "Mallory")
WAIT = 15.0  # generous: a wait only takes this long when something is broken
HEADER = "X-Telegram-Bot-Api-Secret-Token"
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
    assert settings.webhook_secret == SECRET
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
    assert settings.webhook_secret == secret


def test_settings_default_is_polling() -> None:
    assert not Settings(token=TOKEN).uses_webhook


# --- the bot as a webhook server -------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class WebhookBot:
    """`python -m bot` in webhook mode against the fake server; output goes to files."""

    def __init__(self, fake: FakeTelegram, tmp_path: Path, database_url: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/telegram-updates"
        self.env = {
            name: value
            for name, value in os.environ.items()
            if not name.startswith(("TELEGRAM_", "WEBHOOK_"))
            and name not in ("DATABASE_URL", "LOG_LEVEL", "AI_PAUSE_SECONDS")
        }
        self.env.update(
            PYTHONUNBUFFERED="1",
            TELEGRAM_BOT_TOKEN=fake.token,
            TELEGRAM_API_BASE_URL=fake.base_url,
            DATABASE_URL=database_url,
            LOG_LEVEL="DEBUG",
            WEBHOOK_URL=self.url,
            WEBHOOK_LISTEN="127.0.0.1",
            WEBHOOK_PORT=str(self.port),
            WEBHOOK_SECRET=SECRET,
        )
        self.cwd = tmp_path
        self.output = tmp_path / "bot.log"
        self.proc: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        with self.output.open("wb") as out:
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "bot",
                cwd=self.cwd,
                env=self.env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=out,
                stderr=asyncio.subprocess.STDOUT,
            )

    def log(self) -> str:
        return self.output.read_text(encoding="utf-8", errors="replace")

    async def wait_listening(self) -> None:
        """Until the webhook server accepts connections; fails fast if the bot exits."""
        assert self.proc is not None
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            if self.proc.returncode is not None:
                raise AssertionError(f"the bot exited with {self.proc.returncode}:\n{self.log()}")
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", self.port)
            except OSError:
                await asyncio.sleep(0.05)
                continue
            writer.close()
            await writer.wait_closed()
            return
        raise AssertionError(f"the webhook server never listened:\n{self.log()}")

    async def stop(self) -> int:
        """SIGINT, as Ctrl+C; the exit code."""
        assert self.proc is not None
        if self.proc.returncode is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                async with asyncio.timeout(WAIT):
                    await self.proc.wait()
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()
                raise AssertionError(f"the bot did not stop on SIGINT:\n{self.log()}") from None
        assert self.proc.returncode is not None
        return self.proc.returncode


@pytest.fixture
async def webhook_bot(
    telegram: FakeTelegram, tmp_path: Path, database_url: str
) -> AsyncIterator[WebhookBot]:
    bot = WebhookBot(telegram, tmp_path, database_url)
    await bot.start()
    try:
        await bot.wait_listening()
        yield bot
    finally:
        await bot.stop()


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


async def post(url: str, update: dict[str, Any], secret: str | None) -> int:
    headers = {HEADER: secret} if secret is not None else {}
    async with (
        aiohttp.ClientSession() as session,
        session.post(url, json=update, headers=headers) as response,
    ):
        return response.status


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
    assert await post(webhook_bot.url, forged, None) == 403
    assert await post(webhook_bot.url, forged, "wrong-secret") == 403
    assert await post(webhook_bot.url, forged, SECRET.upper()) == 403
    assert await post(webhook_bot.url, forged, "") == 403

    mark = telegram.mark()
    genuine = update_with_text(telegram, ALICE, "/help")
    assert await post(webhook_bot.url, genuine, SECRET) == 200
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
    assert (
        await post(webhook_bot.url, update_with_text(telegram, ALICE, "/start user user"), SECRET)
        == 200
    )
    await telegram.wait_for("sendMessage", WAIT, since=mark)
    mark = telegram.mark()
    assert await post(webhook_bot.url, update_with_text(telegram, ALICE, "2 2"), SECRET) == 200
    edit = await telegram.wait_for("editMessageText", WAIT, since=mark)
    assert edit.ok and edit.params["chat_id"] == ALICE["id"]


async def test_shutdown_is_clean_and_no_secret_is_logged(
    telegram: FakeTelegram, tmp_path: Path, database_url: str
) -> None:
    bot = WebhookBot(telegram, tmp_path, database_url)
    await bot.start()
    try:
        await bot.wait_listening()
        mark = telegram.mark()
        assert await post(bot.url, update_with_text(telegram, ALICE, "/help"), SECRET) == 200
        await telegram.wait_for("sendMessage", WAIT, since=mark)
    finally:
        code = await bot.stop()
    log = bot.log()
    assert code == 0, log
    # DEBUG logging shows setWebhook's parameters: the secret and the token are scrubbed.
    assert "setWebhook" in log
    assert SECRET not in log and telegram.token not in log
    # One line per update, with its kind and chat.
    assert f"message chat {ALICE['id']} handled in" in log
