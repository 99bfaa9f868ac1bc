"""End to end: a game closed by what a player does next — a new game of another kind, the
menu, /forget — closes cleanly on every kind of board: the old board says it is closed and
keeps no buttons it cannot have, the new board comes, and nobody reads an apology.

The first of these (an ultimate game closed by `/start hard`) failed for every new player who
tried a second game: the closed ultimate board was edited with an empty keyboard, which
Telegram refuses."""

from __future__ import annotations

import pytest

from bot.locales import en
from tests.support.bot_runner import BotRunner
from tests.support.chat import current, press, send
from tests.support.fake_telegram import FakeTelegram, StoredMessage

ALICE = FakeTelegram.user(1001, "Alice")

#: A game of each kind a private chat can hold, by how it is started.
GAME_KINDS = [
    "/start ultimate",
    "/start hard",
    "/start hard 6",
    "/start easy hard",
    "/start ultimate easy medium",
]


async def start(telegram: FakeTelegram, command: str) -> StoredMessage:
    await send(telegram, ALICE, command)
    return telegram.last_bot_message(ALICE["id"])


def assert_closed(
    telegram: FakeTelegram, board: StoredMessage, words: str = en.GAME_REPLACED
) -> None:
    """The old board says it is closed (by default: replaced by a new game before any move,
    so it counts nowhere), and no call of the bot was refused."""
    shown = current(telegram, board)
    assert words in shown.text.splitlines(), shown.text
    refused = [call for call in telegram.calls if not call.ok and call.method != "getUpdates"]
    assert refused == []
    assert all(en.SORRY_ERROR not in message.text for message in telegram.messages.values())


@pytest.mark.parametrize("first", GAME_KINDS)
@pytest.mark.parametrize("then", ["/start hard", "/start ultimate"])
async def test_a_new_game_closes_the_current_one_of_any_kind(
    telegram: FakeTelegram, bot: BotRunner, first: str, then: str
) -> None:
    old = await start(telegram, first)
    new = await start(telegram, then)
    assert new.message_id != old.message_id
    assert_closed(telegram, old)
    assert en.GAME_REPLACED not in new.text


async def test_the_menu_closes_a_live_ultimate_game(telegram: FakeTelegram, bot: BotRunner) -> None:
    old = await start(telegram, "/start ultimate")
    menu = await start(telegram, "/start")
    first_button = telegram.keyboard(menu)[0][0][0]
    answer = await press(telegram, ALICE, menu, first_button)
    assert not answer.get("text")
    new = telegram.last_bot_message(ALICE["id"])
    assert new.message_id not in (old.message_id, menu.message_id)
    assert_closed(telegram, old)


async def test_forget_with_a_live_ultimate_game_says_what_it_deleted(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    old = await start(telegram, "/start ultimate")
    question = await start(telegram, "/forget")
    await press(telegram, ALICE, question, en.BUTTON_FORGET_YES)
    said = current(telegram, question).text
    assert said.startswith(en.FORGET_DONE.split("{")[0]), said
    assert_closed(telegram, old, en.GAME_CLOSED)
    # A second /forget finds nothing: the first one did delete.
    again = await start(telegram, "/forget")
    await press(telegram, ALICE, again, en.BUTTON_FORGET_YES)
    assert current(telegram, again).text == en.FORGET_NOTHING
