"""Long polling as a real process (`bot.intake.polling`): a batch Telegram was told arrived
is handled after a `kill -9`, exactly once; Telegram down is one WARNING a while, not a
traceback a call; an update with an id no database column holds is dropped calmly.

The bot runs as `python -m bot` against the fake Bot API server, on the test database.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.support.chat import cell_data
from tests.support.fake_telegram import FakeTelegram
from tests.support.processes import BotProcess, bot_env, bots_done

pytestmark = pytest.mark.process

WAIT = 15.0  # generous: a wait only takes this long when something is broken
ALICE = FakeTelegram.user(1001, "Alice")


def replies_to(fake: FakeTelegram, chat_id: int) -> int:
    """Messages the bot sent to a chat (that Telegram carried out)."""
    return sum(
        1 for call in fake.calls_of("sendMessage") if call.ok and call.params["chat_id"] == chat_id
    )


async def test_a_batch_fetched_before_a_kill_is_handled_after_the_restart_once(
    telegram: FakeTelegram, tmp_path: Path, database_url: str
) -> None:
    fake = telegram
    # The inbox's rounds take up what a crash left after 3 rounds: 0.6 s here.
    env = bot_env(fake, database_url, BOARD_CATCH_UP_SECONDS="0.2")
    first, second = BotProcess(tmp_path, env, "first"), BotProcess(tmp_path, env, "second")
    users = [FakeTelegram.user(2000 + n, f"User{n}") for n in range(3)]
    each = 4
    try:
        since = fake.mark()
        await first.start()
        await first.wait_ready(fake, since)
        # Each chat's lane runs two updates at once (`bot.telegram.update_lanes`): their
        # replies are held on their way, and the chat's other two wait, unstarted.
        running = 2 * len(users)
        fake.hold_next("sendMessage", running)
        for _ in range(each):
            for user in users:
                fake.send_text(user, "/help")
        # The next getUpdates has asked for the offset after the batch: Telegram forgot it.
        await fake.wait_until(lambda: not fake.pending_updates and fake.held == running, WAIT)
        await first.kill()
        fake.release_held()  # their client is gone: they never reach Telegram
        await fake.wait_until(lambda: fake.held == 0, WAIT)
        assert all(replies_to(fake, user["id"]) == 0 for user in users)

        since = fake.mark()
        await second.start()
        await second.wait_ready(fake, since)
        await bots_done(fake)
        await asyncio.sleep(1.0)  # three of the inbox's rounds: nothing is handled again
        await fake.wait_idle(quiet=0.2, timeout=WAIT)
        # The updates whose reply was lost in flight had acted (the claim is committed
        # with the update's work): they act no more. Every other one acted once.
        assert [replies_to(fake, user["id"]) for user in users] == [each - 2] * len(users)
        # (Each of those is found already handled at least once: an inbox round may meet one
        # again before the round that found it has removed it, on PostgreSQL.)
        assert second.output.count("was delivered again: already handled") >= running
        assert "Traceback" not in second.output, second.tail()
    finally:
        fake.release_held()
        await first.kill()
        await second.kill()


async def test_telegram_down_is_a_warning_a_while_and_a_line_when_back(
    telegram: FakeTelegram, tmp_path: Path, database_url: str
) -> None:
    fake = telegram
    env = bot_env(fake, database_url, TELEGRAM_OUTAGE_LOG_SECONDS="1")
    bot = BotProcess(tmp_path, env)
    try:
        since = fake.mark()
        await bot.start()
        await bot.wait_ready(fake, since)
        # Four polls in a row get no answer (the connection closes), the fifth works.
        fake.drop_next("getUpdates", 4)
        fake.send_text(ALICE, "/help")  # ends the poll waiting now
        await fake.wait_until(lambda: replies_to(fake, ALICE["id"]) == 1, WAIT)
        await fake.wait_until(
            lambda: len([call for call in fake.calls_of("getUpdates") if not call.ok]) == 4, WAIT
        )
        fake.send_text(ALICE, "/help")
        await fake.wait_until(lambda: replies_to(fake, ALICE["id"]) == 2, WAIT)
        await asyncio.sleep(0.3)
        log = bot.output.splitlines()
        warnings = [line for line in log if " WARNING bot.intake.polling: " in line]
        # Backing off 0.5, 1 and 2 s: the failures come at 0, 0.5, 1.5 and 3.5 s; one line
        # a second at most logs the first, the third and the fourth.
        assert 1 <= len(warnings) <= 3, "\n".join(warnings)
        assert "Telegram's getUpdates fails: 1 failed calls in 0 s" in warnings[0]
        [back] = [line for line in log if " INFO bot.intake.polling: " in line]
        assert "answers again, after 4 failed calls" in back
        assert "Traceback" not in bot.output and " ERROR " not in bot.output, bot.tail()
        assert fake.token not in bot.output
    finally:
        await bot.kill()


def message(chat: dict[str, Any], user: dict[str, Any], text: str, message_id: int = 1) -> dict:
    """A message update's payload, as Telegram would send it."""
    message = {"message_id": message_id, "from": user, "chat": chat, "date": 1_700_000_000}
    if text.startswith("/"):
        message["entities"] = [{"offset": 0, "length": len(text), "type": "bot_command"}]
    return {"message": {**message, "text": text}}


async def test_an_id_no_column_holds_is_dropped_with_one_line(
    telegram: FakeTelegram, tmp_path: Path, database_url: str
) -> None:
    fake = telegram
    bot = BotProcess(tmp_path, bot_env(fake, database_url))
    huge = 2**70
    try:
        since = fake.mark()
        await bot.start()
        await bot.wait_ready(fake, since)
        giant = FakeTelegram.user(huge, "Giant")
        chat = {"id": huge, "type": "private", "first_name": "Giant"}
        alices = fake.add_chat(FakeTelegram.private_chat(ALICE))
        dropped = [
            fake.queue_update(message(chat, giant, "/start")),
            fake.queue_update(message(alices, ALICE, "/start", message_id=huge)),
        ]
        fake.send_text(ALICE, "/help")
        await fake.wait_until(lambda: replies_to(fake, ALICE["id"]) == 1, WAIT)
        await fake.wait_idle(quiet=0.2, timeout=WAIT)
        assert [call for call in fake.calls if call.params.get("chat_id") == huge] == []
        log = bot.output
        for update, where in zip(dropped, ("message.from.id", "message.message_id"), strict=True):
            line = f"WARNING bot.intake.polling: dropped update {update['update_id']}: "
            assert f"{line}update.{where} is out of range" in log, bot.tail()
        assert "Traceback" not in log and " ERROR " not in log, bot.tail()
    finally:
        await bot.kill()


async def test_a_tap_whose_move_was_stored_before_a_kill_is_answered_after_the_restart(
    telegram: FakeTelegram, tmp_path: Path, database_url: str
) -> None:
    # Issue 50: the move was committed, the process killed before its answer reached
    # Telegram; after the restart the tap was found handled and skipped without an answer, so
    # the player's button spun until Telegram gave up.
    fake = telegram
    env = bot_env(fake, database_url, BOARD_CATCH_UP_SECONDS="0.2")
    first, second = BotProcess(tmp_path, env, "first"), BotProcess(tmp_path, env, "second")
    try:
        since = fake.mark()
        await first.start()
        await first.wait_ready(fake, since)
        fake.send_text(ALICE, "/start easy")
        await fake.wait_until(lambda: replies_to(fake, ALICE["id"]) == 1, WAIT)
        board = fake.last_bot_message(ALICE["id"])
        fake.hold_next("answerCallbackQuery", 1)
        query = fake.tap(ALICE, board, cell_data(fake, board, 4))
        await fake.wait_until(lambda: fake.held == 1, WAIT)  # the move is stored by now
        await first.kill()
        fake.release_held()  # its client is gone: the answer never reaches Telegram
        await fake.wait_until(lambda: fake.held == 0, WAIT)
        assert query not in fake.callback_answers

        since = fake.mark()
        await second.start()
        await second.wait_ready(fake, since)
        await fake.wait_until(lambda: query in fake.callback_answers, WAIT, what="the answer")
        assert "already handled" in second.output
        assert not fake.callback_answers[query].get("text")  # nothing to say: it played
    finally:
        fake.release_held()
        await first.kill()
        await second.kill()
