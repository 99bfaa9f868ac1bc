"""Telegram is not a perfect pipe: the same update may arrive twice, and users edit messages.

A repeated update is delivered straight to the running bot's `process_update`, as a webhook
server would hand it over (polling never repeats an update the bot has confirmed); an edited
message the same way, because the bot does not ask Telegram for edits (checked first)."""

from __future__ import annotations

import asyncio
import copy
import logging
import time
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.orm.exc import StaleDataError
from telegram import Update

from bot.app import ALLOWED_UPDATES
from bot.games.db.models import Game, Move
from bot.locales import en
from tests.support.bot_runner import BotRunner, settle
from tests.support.chat import board_cells, cell_data, send, state, tap_cell
from tests.support.fake_telegram import FakeTelegram

ALICE = FakeTelegram.user(1001, "Alice")


async def deliver(bot: BotRunner, update: dict[str, Any]) -> None:
    """Hand an update to the bot as its webhook server would, and wait until it is handled."""
    assert bot.application is not None
    await bot.application.process_update(Update.de_json(copy.deepcopy(update), bot.application.bot))


def edited(fake: FakeTelegram, message: dict[str, Any], text: str) -> dict[str, Any]:
    """The update Telegram sends when the user edits `message` to say `text`."""
    edit = {**copy.deepcopy(message), "text": text, "edit_date": int(time.time())}
    if text.startswith("/"):
        edit["entities"] = [{"offset": 0, "length": len(text.split()[0]), "type": "bot_command"}]
    else:
        edit.pop("entities", None)
    newest = max(update["update_id"] for update in fake.updates)
    return {"update_id": newest + 1000, "edited_message": edit}


async def games_in(engine: AsyncEngine, chat_id: int) -> list[tuple[int, str, str, str]]:
    async with engine.connect() as connection:
        rows = await connection.execute(
            select(Game.id, Game.o_kind, Game.status, Game.board)
            .where(Game.chat_id == chat_id)
            .order_by(Game.id)
        )
        return [tuple(row) for row in rows]


async def moves_of(engine: AsyncEngine, game_id: int) -> list[int]:
    async with engine.connect() as connection:
        rows = await connection.scalars(
            select(Move.cell).where(Move.game_id == game_id).order_by(Move.ply)
        )
        return list(rows)


async def test_the_bot_asks_telegram_only_for_what_it_handles(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    await send(telegram, ALICE, "/help")  # a poll returns (calls are recorded when answered)
    asked = {
        tuple(call.params.get("allowed_updates") or ()) for call in telegram.calls_of("getUpdates")
    }
    assert asked == {tuple(ALLOWED_UPDATES)}
    assert "edited_message" not in ALLOWED_UPDATES and "my_chat_member" in ALLOWED_UPDATES


async def test_an_edited_command_or_move_changes_nothing(
    telegram: FakeTelegram, bot: BotRunner, engine: AsyncEngine
) -> None:
    command = await send(telegram, ALICE, "/start hard")
    board = telegram.last_bot_message(ALICE["id"])
    typed = await send(telegram, ALICE, "2 2", reply_to=board)
    [(game_id, level, status, cells)] = await games_in(engine, ALICE["id"])
    assert (level, status) == ("hard", "active") and cells.count("_") == 7
    played = await moves_of(engine, game_id)
    sent = len(telegram.bot_messages(ALICE["id"]))
    shown = state(telegram.messages[board.key])  # type: ignore[index]
    mark = telegram.mark()

    await deliver(bot, edited(telegram, command, "/start easy"))
    await deliver(bot, edited(telegram, typed, "1 1"))

    assert await games_in(engine, ALICE["id"]) == [(game_id, level, status, cells)]
    assert await moves_of(engine, game_id) == played
    assert len(telegram.bot_messages(ALICE["id"])) == sent
    assert state(telegram.messages[board.key]) == shown  # type: ignore[index]
    assert telegram.calls[mark:] == []


async def test_a_repeated_update_acts_once(
    telegram: FakeTelegram,
    bot: BotRunner,
    engine: AsyncEngine,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    await send(telegram, ALICE, "/start hard")
    start = telegram.updates[-1]
    board = telegram.last_bot_message(ALICE["id"])
    await deliver(bot, start)  # the same /start again: no second board, no closed game
    [(game_id, _, status, _)] = await games_in(engine, ALICE["id"])
    assert status == "active" and len(telegram.bot_messages(ALICE["id"])) == 1

    await send(telegram, ALICE, "2 2", reply_to=board)
    typed = telegram.updates[-1]
    await deliver(bot, typed)
    assert len(await moves_of(engine, game_id)) == 2  # Alice's move and the AI's reply

    free = board_cells(telegram, board).index("_")
    query_id = telegram.tap(ALICE, board, cell_data(telegram, board, free))
    await telegram.answer_to(query_id)
    await settle(telegram)
    tap = telegram.updates[-1]
    mark = telegram.mark()
    await deliver(bot, tap)
    assert len(await moves_of(engine, game_id)) in (3, 4)  # the game may be over after 3
    assert telegram.calls[mark:] == []
    answers = [
        c
        for c in telegram.calls_of("answerCallbackQuery")
        if c.params.get("callback_query_id") == query_id
    ]
    assert len(answers) == 1

    skipped = [r for r in caplog.records if "delivered again" in r.getMessage()]
    assert [r.levelno for r in skipped] == [logging.INFO] * 3
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_resign_and_its_yes_delivered_again_act_once(
    telegram: FakeTelegram, bot: BotRunner, engine: AsyncEngine
) -> None:
    """Resign's first tap (claimed before its handler) and its Yes (claimed in the
    resignation's own transaction) each answer once, however often they arrive."""
    await send(telegram, ALICE, "/start hard")
    board = telegram.last_bot_message(ALICE["id"])
    await tap_cell(telegram, ALICE, board, 4)
    for label in (en.BUTTON_RESIGN, en.BUTTON_RESIGN_YES):
        data = next(d for row in telegram.keyboard(board) for text, d in row if text == label)
        query_id = telegram.tap(ALICE, board, str(data))
        await telegram.answer_to(query_id)
        await settle(telegram)
        mark = telegram.mark()
        await deliver(bot, telegram.updates[-1])
        assert telegram.calls[mark:] == []
        answers = [
            c
            for c in telegram.calls_of("answerCallbackQuery")
            if c.params.get("callback_query_id") == query_id
        ]
        assert len(answers) == 1
    [(_, _, status, _)] = await games_in(engine, ALICE["id"])
    assert status == "finished"


GROUP = FakeTelegram.group_chat(-5001, "Friends")


def replies(fake: FakeTelegram, since: int) -> list[tuple[str, Any]]:
    """The bot's calls since `since` other than polling: what it said, and where."""
    return [
        (call.method, call.params.get("chat_id"))
        for call in fake.calls[since:]
        if call.method != "getUpdates"
    ]


@pytest.mark.parametrize(
    ("text", "in_group"),
    [
        ("/start hard", False),  # a new game: claimed in the game's own statement
        ("/start nonsense", False),  # a /start that names no game: claimed first
        ("/start user user user", False),  # three seats: groups only
        ("/start menu", False),
        ("/start user user", True),  # a challenge in a group
    ],
)
async def test_a_start_delivered_twice_at_once_acts_once(
    telegram: FakeTelegram,
    bot: BotRunner,
    engine: AsyncEngine,
    caplog: pytest.LogCaptureFixture,
    text: str,
    in_group: bool,
) -> None:
    """Two instances given the same /start at the same moment (a webhook retry): the same
    answer as for one delivery, and whichever comes second says and stores nothing."""
    caplog.set_level(logging.INFO)
    chat = GROUP if in_group else None
    chat_id = GROUP["id"] if in_group else ALICE["id"]
    await send(telegram, ALICE, "/start hard", chat=chat)  # a live game to replace, or not
    # Once, by polling: what one delivery does.
    before, mark = await games_in(engine, chat_id), telegram.mark()
    await send(telegram, ALICE, text, chat=chat)
    once = (replies(telegram, mark), len(await games_in(engine, chat_id)) - len(before))
    assert once[0]
    # The same again as a new update, handed over twice at once.
    update = copy.deepcopy(telegram.updates[-1])
    update["update_id"] = max(u["update_id"] for u in telegram.updates) + 1000
    update["message"]["message_id"] += 1000
    before, mark = await games_in(engine, chat_id), telegram.mark()

    await asyncio.gather(deliver(bot, update), deliver(bot, update))
    await settle(telegram)

    twice = (replies(telegram, mark), len(await games_in(engine, chat_id)) - len(before))
    # The same calls, in either order: the replaced game's board and the new one are two games'
    # views, each in its own lane, so nothing orders one before the other.
    assert (sorted(twice[0]), twice[1]) == (sorted(once[0]), once[1])
    skipped = [r for r in caplog.records if "delivered again" in r.getMessage()]
    assert len(skipped) == 1
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_race_that_slips_through_a_use_case_is_the_board_changed_not_an_error(
    telegram: FakeTelegram,
    bot: BotRunner,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The use-cases answer lost races themselves; the error handler's net catches one that
    does not (here: forced), so the user hears "the game changed", and no ERROR is logged."""
    await send(telegram, ALICE, "/start user user")
    board = telegram.last_bot_message(ALICE["id"])
    assert bot.application is not None
    play = bot.application.bot_data.running.games.play

    async def lose_the_race(*_args: object, **_kwargs: object) -> None:
        raise StaleDataError("UPDATE statement on table 'games' expected to update 1 row")

    monkeypatch.setattr(play, "tap", lose_the_race)
    monkeypatch.setattr(play, "start_game", lose_the_race)
    answer = await tap_cell(telegram, ALICE, board, 4)
    assert answer["text"] == en.POPUP_CONFLICT
    await send(telegram, ALICE, "/start hard")
    assert telegram.last_bot_message(ALICE["id"]).text == en.CONFLICT
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len([r for r in caplog.records if "lost a race" in r.getMessage()]) == 2
