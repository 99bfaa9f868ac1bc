"""End to end: a button does its thing once (issue 51). Two taps of a button that makes
something (a new game, a replay, a picture, a search), arriving together on the same message,
make one thing: the second is answered at once and changes nothing. It holds across a restart
(the claim is in the database), and a moment later the button works again."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.games.db.models import HandledUpdate, utcnow
from bot.games.model import LIVE
from bot.locales import en
from tests.e2e.test_matchmaking_queue import live_games_of
from tests.support.bot_runner import BotRunner, settle
from tests.support.chat import current, not_modified, press, send
from tests.support.fake_telegram import FakeTelegram, StoredMessage

ALICE = FakeTelegram.user(5101, "Alice")


async def ended_game(telegram: FakeTelegram, command: str = "/start easy") -> StoredMessage:
    """A game against the AI, resigned before any move: its board, finished."""
    await send(telegram, ALICE, command)
    board = telegram.last_bot_message(ALICE["id"])
    await send(telegram, ALICE, "/stop")
    return current(telegram, board)


async def tap_twice(telegram: FakeTelegram, message: StoredMessage, label: str) -> list[str]:
    """Two taps of `label` at once, as a finger that lands twice: their pop-ups ('' for none),
    once the bot is done with both."""
    queries = [telegram.tap_button(ALICE, message, label) for _ in range(2)]
    answers = [await telegram.answer_to(query) for query in queries]
    await settle(telegram)
    return sorted(answer.get("text") or "" for answer in answers)


@pytest.mark.parametrize("label", [en.BUTTON_PLAY_AGAIN, en.BUTTON_SWAP_SIDES])
async def test_a_double_tap_on_a_new_game_button_starts_one_game(
    telegram: FakeTelegram, bot: BotRunner, engine: AsyncEngine, label: str
) -> None:
    ended = await ended_game(telegram)
    before = len(telegram.bot_messages(ALICE["id"]))
    assert await tap_twice(telegram, ended, label) == ["", en.POPUP_TAPPED_ALREADY]
    (posted,) = telegram.bot_messages(ALICE["id"])[before:]
    (live,) = [g for g in await live_games_of(engine, ALICE) if g.status in LIVE]
    assert live.message_id == posted.message_id


@pytest.mark.parametrize("label", [en.BUTTON_REPLAY, en.BUTTON_PICTURE])
async def test_a_double_tap_on_replay_or_picture_posts_one(
    telegram: FakeTelegram, bot: BotRunner, label: str
) -> None:
    ended = await ended_game(telegram)
    before = len(telegram.bot_messages(ALICE["id"]))
    assert await tap_twice(telegram, ended, label) == ["", en.POPUP_TAPPED_ALREADY]
    assert len(telegram.bot_messages(ALICE["id"])[before:]) == 1


async def test_the_second_tap_is_refused_after_a_restart_and_the_button_works_a_moment_later(
    telegram: FakeTelegram, bot: BotRunner, engine: AsyncEngine
) -> None:
    ended = await ended_game(telegram)
    await press(telegram, ALICE, ended, en.BUTTON_REPLAY)
    before = len(telegram.bot_messages(ALICE["id"]))
    await bot.stop()
    restarted = BotRunner(telegram, bot.settings.database_url.get_secret_value())
    await restarted.start()
    try:
        answer = await press(telegram, ALICE, current(telegram, ended), en.BUTTON_REPLAY)
        assert answer.get("text") == en.POPUP_TAPPED_ALREADY
        assert len(telegram.bot_messages(ALICE["id"])) == before
        # The moment has passed: the button makes its thing again.
        async with engine.begin() as connection:
            await connection.execute(
                update(HandledUpdate)
                .where(HandledUpdate.update_id < 0)
                .values(handled_at=utcnow() - timedelta(minutes=1))
            )
        answer = await press(telegram, ALICE, current(telegram, ended), en.BUTTON_REPLAY)
        assert not answer.get("text")
        assert len(telegram.bot_messages(ALICE["id"])) == before + 1
    finally:
        await restarted.stop()


async def test_a_double_tap_on_cancel_cancels_once_and_edits_once(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    # A journey's double tap on the waiting message's Cancel: the second tap removed a
    # keyboard the first had removed already, an edit refused as "not modified".
    await send(telegram, ALICE, "/play")
    waiting = telegram.last_bot_message(ALICE["id"])
    assert await tap_twice(telegram, waiting, en.BUTTON_CANCEL) == ["", en.POPUP_TAPPED_ALREADY]
    cancelled = current(telegram, waiting)
    assert cancelled.text == en.QUEUE_CANCELLED and cancelled.reply_markup is None
    assert not_modified(telegram) == []


async def test_a_double_tap_on_resign_asks_once_and_draws_the_question_once(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    # A journey's double tap on 🏳 Resign: both taps asked, and both drew the question; the
    # second drawing was the first's, refused as "not modified" (issue 51, item 8).
    await send(telegram, ALICE, "/start hard")
    board = telegram.last_bot_message(ALICE["id"])
    assert await tap_twice(telegram, board, en.BUTTON_RESIGN) == [en.POPUP_RESIGN_CONFIRM] * 2
    asked = current(telegram, board)
    assert en.BUTTON_RESIGN_YES in str(asked.reply_markup)
    assert not_modified(telegram) == []


@pytest.mark.parametrize("label", [en.BUTTON_FORGET_NO, en.BUTTON_FORGET_YES])
async def test_a_double_tap_on_forgets_question_answers_it_once(
    telegram: FakeTelegram, bot: BotRunner, label: str
) -> None:
    # A journey's double tap on /forget's "No": both taps edited the question to "Nothing
    # was deleted.", the second refused as "not modified" (issue 51, item 8). A button that
    # redraws its own message acts once a drawing of it.
    await ended_game(telegram)
    await send(telegram, ALICE, "/forget")
    question = telegram.last_bot_message(ALICE["id"])
    assert question.text == en.FORGET_ASK
    assert await tap_twice(telegram, question, label) == ["", en.POPUP_TAPPED_ALREADY]
    answered = current(telegram, question).text
    if label == en.BUTTON_FORGET_NO:
        assert answered == en.FORGET_KEPT
    else:
        assert answered.startswith(en.FORGET_DONE.split("{")[0])
    assert not_modified(telegram) == []
