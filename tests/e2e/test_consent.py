"""Nobody acts for another (design §6), end to end in a group: the real bot against the strict
fake Bot API, with people whose wishes conflict. A menu belongs to whoever asked for it; a
rematch is an offer the other player accepts; resigning is confirmed; a game nobody moved in
counts nowhere."""

from __future__ import annotations

import functools
from typing import Any

from bot.locales import de, en
from tests.support.bot_runner import BotRunner
from tests.support.chat import (
    assert_every_query_answered,
    button_texts,
    press,
    send,
    state,
    tap_data,
)
from tests.support.fake_telegram import FakeTelegram

GROUP = FakeTelegram.group_chat(-100600, "Rivals")
ALICE = FakeTelegram.user(3001, "Alice", username="alice")
BOB = FakeTelegram.user(3002, "Bob", username="bob")
CAROL = FakeTelegram.user(3003, "Carol")

#: Send a message in the group and wait until the bot is done with it.
say = functools.partial(send, chat=GROUP)


def data_of(tg: FakeTelegram, message: Any, label: str) -> str:
    for row in tg.keyboard(message):
        for text, data in row:
            if text == label and data is not None:
                return data
    raise AssertionError(f"no button {label!r} on {tg.keyboard(message)!r}")


async def test_a_language_menu_is_only_its_askers(telegram: FakeTelegram, bot: BotRunner) -> None:
    """Alice asks for the languages; Bob taps Deutsch on her menu: nothing changes for either."""
    await say(telegram, ALICE, "/language")
    ask = telegram.last_bot_message(GROUP["id"])
    before = state(ask)
    refused = await press(telegram, BOB, ask, "Deutsch")
    assert refused["text"] == en.POPUP_NOT_YOUR_MENU.format(command="/language")
    assert state(ask) == before  # Alice's menu is still hers, unanswered

    # Old buttons (from before menus had owners) are refused in a group, and change nothing.
    old = await tap_data(telegram, BOB, ask, "lang:de")
    assert old["text"] == en.POPUP_OLD_MENU.format(command="/language")
    assert state(ask) == before

    assert not (await press(telegram, ALICE, ask, "Deutsch")).get("text")
    assert telegram.messages[ask.key].text == de.LANGUAGE_CHOSEN
    await say(telegram, ALICE, "/stats")
    assert telegram.last_bot_message(GROUP["id"]).text == de.STATS_EMPTY
    await say(telegram, BOB, "/stats")
    assert telegram.last_bot_message(GROUP["id"]).text == en.STATS_EMPTY
    assert_every_query_answered(telegram)


async def test_a_group_menu_is_only_its_askers(telegram: FakeTelegram, bot: BotRunner) -> None:
    """Alice's /start menu: Bob can neither redraw it for another size nor start a game
    from it; he gets a pop-up and sends /start for his own."""
    await say(telegram, ALICE, "/start")
    menu = telegram.last_bot_message(GROUP["id"])
    sent = len(telegram.bot_messages(GROUP["id"]))
    before = state(menu)
    not_yours = en.POPUP_NOT_YOUR_MENU.format(command="/start")
    for label in ("5×5", en.MENU_PLAY_X.format(level=en.LEVEL_NAMES["easy"]), en.MENU_HELP):
        assert label in button_texts(telegram, menu)
        assert (await press(telegram, BOB, menu, label))["text"] == not_yours
    assert state(menu) == before
    assert len(telegram.bot_messages(GROUP["id"])) == sent
    old = await tap_data(telegram, BOB, menu, "n:user:hard")
    assert old["text"] == en.POPUP_OLD_MENU.format(command="/start")
    assert len(telegram.bot_messages(GROUP["id"])) == sent

    # Alice's own taps work: the size redraws her menu, a level starts her game.
    assert not (await press(telegram, ALICE, menu, "5×5")).get("text")
    assert "✔5×5" in button_texts(telegram, menu)
    await press(telegram, ALICE, menu, en.MENU_PLAY_X.format(level=en.LEVEL_NAMES["easy"]))
    board = telegram.last_bot_message(GROUP["id"])
    assert board.text.splitlines()[0] == "❌ Alice vs ⭕ Easy AI"

    # Under her finished game, Play again is hers too.
    await say(telegram, ALICE, "/stop")
    again = en.BUTTON_PLAY_AGAIN
    assert (await press(telegram, BOB, board, again))["text"] == not_yours
    assert not (await press(telegram, ALICE, board, again)).get("text")
    assert telegram.last_bot_message(GROUP["id"]).text.startswith("❌ Alice vs ⭕ Easy AI")
    assert_every_query_answered(telegram)
