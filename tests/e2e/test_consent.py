"""Nobody acts for another (design §6), end to end in a group: the real bot against the strict
fake Bot API, with people whose wishes conflict. A menu belongs to whoever asked for it; a
rematch is an offer the other player accepts; resigning is confirmed; a game nobody moved in
counts nowhere."""

from __future__ import annotations

import functools
from datetime import timedelta
from typing import Any

from bot.games.db.models import utcnow
from bot.locales import de, en
from bot.views.render import render_welcome
from tests.support.bot_runner import BotRunner
from tests.support.chat import (
    assert_every_query_answered,
    board_cells,
    button_texts,
    play_cells,
    press,
    send,
    state,
    tap_data,
)
from tests.support.fake_telegram import FakeTelegram, StoredMessage

GROUP = FakeTelegram.group_chat(-100600, "Rivals")
ALICE = FakeTelegram.user(3001, "Alice", username="alice")
BOB = FakeTelegram.user(3002, "Bob", username="bob")
CAROL = FakeTelegram.user(3003, "Carol")

#: Send a message in the group and wait until the bot is done with it.
say = functools.partial(send, chat=GROUP)

JOIN, ACCEPT, DECLINE, CANCEL = "✋ Join", "✅ Accept", "🙅 Decline", "✖ Cancel"
REMATCH = "🔁 Rematch"
TURN_TIMEOUT = timedelta(seconds=600)  # the default setting


async def game_between(tg: FakeTelegram, x: dict[str, Any], o: dict[str, Any]) -> StoredMessage:
    """A challenge by `x`, joined by `o`: the running game's board."""
    await say(tg, x, "/challenge")
    board = tg.last_bot_message(GROUP["id"])
    assert (await press(tg, o, board, JOIN))["text"] == "You're in! You play ⭕."
    return board


async def top(tg: FakeTelegram) -> list[str]:
    await say(tg, CAROL, "/top")
    group_part = tg.last_bot_message(GROUP["id"]).text.split("\n\n")[0]  # the ladder follows
    return group_part.splitlines()[1:]


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


async def test_a_rematch_is_an_offer_the_other_player_may_decline(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    """Alice won and wants a rematch; Bob does not: he declines, and no game binds him."""
    board = await game_between(telegram, ALICE, BOB)
    await play_cells(telegram, board, ALICE, BOB, [0, 3, 1, 4, 2])
    assert "Alice wins! 🎉" in board.text
    assert not (await press(telegram, ALICE, board, REMATCH)).get("text")
    offer = telegram.last_bot_message(GROUP["id"])
    # Sides swapped: Alice takes ⭕ and ❌ waits for Bob, who would start.
    assert offer.text.splitlines()[0] == "❌ Bob vs ⭕ Alice"  # whom it is for
    assert en.REMATCH_OFFER.format(name="Alice", invited="Bob") in offer.text
    assert button_texts(telegram, offer) == [ACCEPT, DECLINE, CANCEL]
    before = state(offer)
    for label in (ACCEPT, DECLINE):
        refused = await press(telegram, CAROL, offer, label)
        assert refused["text"] == en.POPUP_NOT_INVITED
    assert (await press(telegram, ALICE, offer, ACCEPT))["text"] == en.POPUP_OWN_GAME
    assert (await press(telegram, ALICE, board, REMATCH))["text"] == en.POPUP_REMATCH_OFFERED
    assert state(offer) == before

    assert not (await press(telegram, BOB, offer, DECLINE)).get("text")
    assert en.CHALLENGE_DECLINED.format(invited="Bob") in offer.text
    assert offer.reply_markup is None
    assert (await press(telegram, BOB, board, REMATCH))["text"] == en.POPUP_REMATCH_CLOSED
    await say(telegram, BOB, "/stop")  # Bob is in no game
    assert telegram.last_bot_message(GROUP["id"]).text == en.NO_GAME
    assert await top(telegram) == ["1. Alice: 1 / 0 / 0", "2. Bob: 0 / 1 / 0"]
    assert_every_query_answered(telegram)


async def test_an_unanswered_rematch_lapses_and_unplayed_games_count_nowhere(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    """Bob lost and asks for a rematch; Alice does not answer: the offer lapses after one
    turn timeout. Then a game Bob stops, and one that times out, before anyone moved: neither
    counts in /top or /stats."""
    assert bot.application is not None
    clock = bot.turn_clock
    board = await game_between(telegram, ALICE, BOB)
    await play_cells(telegram, board, ALICE, BOB, [0, 3, 1, 4, 2])
    assert not (await press(telegram, BOB, board, REMATCH)).get("text")
    offer = telegram.last_bot_message(GROUP["id"])
    assert offer.text.splitlines()[0] == "❌ Bob vs ⭕ Alice"  # whom it is for
    assert await clock.tick(utcnow() + TURN_TIMEOUT / 2) == []
    events = await clock.tick(utcnow() + TURN_TIMEOUT)
    assert [event for event, _ in events] == ["expired"]
    assert en.REMATCH_LAPSED in offer.text and offer.reply_markup is None
    assert (await press(telegram, ALICE, board, REMATCH))["text"] == en.POPUP_REMATCH_CLOSED

    unmoved = await game_between(telegram, ALICE, BOB)
    await say(telegram, BOB, "/stop")
    assert en.RESULT_NAME_RESIGNED.format(name="Bob") in unmoved.text
    timed_out = await game_between(telegram, BOB, ALICE)
    await clock.tick(utcnow() + TURN_TIMEOUT)
    await clock.tick(utcnow() + 2 * TURN_TIMEOUT)
    assert en.RESULT_NAME_TIMED_OUT.format(name="Bob") in timed_out.text
    assert board_cells(telegram, timed_out) == "_________"
    assert await top(telegram) == ["1. Alice: 1 / 0 / 0", "2. Bob: 0 / 1 / 0"]
    await say(telegram, BOB, "/stats")
    assert "People: 0 / 1 / 0" in telegram.last_bot_message(GROUP["id"]).text.splitlines()
    assert_every_query_answered(telegram)


async def test_resign_asks_first_and_only_the_player_answers(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    """Bob's thumb slips onto 🏳 Resign: the board asks him first. Alice would gladly take
    the win, but only Bob can answer; he plays on, and later resigns for real."""
    board = await game_between(telegram, ALICE, BOB)
    await play_cells(telegram, board, ALICE, BOB, [4, 0])
    resign = en.BUTTON_RESIGN
    assert (await press(telegram, CAROL, board, resign))["text"] == en.POPUP_NOT_A_PLAYER
    text = board.text
    asked = await press(telegram, BOB, board, resign)
    assert asked["text"] == en.POPUP_RESIGN_CONFIRM
    assert board.text == text  # asked on the keyboard only: nothing has happened yet
    assert button_texts(telegram, board)[9:] == [
        en.BUTTON_RESIGN_YES,
        en.BUTTON_RESIGN_NO,
        en.BUTTON_DRAW_OFFER,
    ]
    asking = state(board)
    for user in (ALICE, CAROL):
        for label in (en.BUTTON_RESIGN_YES, en.BUTTON_RESIGN_NO):
            assert (await press(telegram, user, board, label))["text"] == en.POPUP_NOT_YOURS
    assert state(board) == asking
    assert not (await press(telegram, BOB, board, en.BUTTON_RESIGN_NO)).get("text")
    assert (
        button_texts(telegram, board)[9:] == [resign, en.BUTTON_DRAW_OFFER] and board.text == text
    )

    # Asked again, then Alice moves meanwhile: the question goes, the game goes on.
    await press(telegram, BOB, board, resign)
    await play_cells(telegram, board, ALICE, BOB, [8])
    assert button_texts(telegram, board)[9:] == [resign, en.BUTTON_DRAW_OFFER]
    await press(telegram, BOB, board, resign)
    assert not (await press(telegram, BOB, board, en.BUTTON_RESIGN_YES)).get("text")
    assert en.RESULT_NAME_RESIGNED.format(name="Bob") in board.text
    assert await top(telegram) == ["1. Alice: 1 / 0 / 0", "2. Bob: 0 / 1 / 0"]
    assert_every_query_answered(telegram)


async def test_a_new_start_says_the_game_with_a_person_goes_on(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    """Mid-game with Bob, Alice asks for the menu and starts a game against the AI: before
    she starts it she reads that her game with Bob goes on, and how it can end."""
    board = await game_between(telegram, ALICE, BOB)
    await play_cells(telegram, board, ALICE, BOB, [4])
    note = en.GAMES_GO_ON.format(names="Bob")
    await say(telegram, ALICE, "/start")
    menu = telegram.last_bot_message(GROUP["id"])
    assert menu.text == render_welcome(en, group=True) + "\n\n" + note
    await say(telegram, CAROL, "/start")  # Carol plays nothing here: the plain welcome
    assert telegram.last_bot_message(GROUP["id"]).text == render_welcome(en, group=True)
    await say(telegram, BOB, "/start hard")
    assert telegram.last_bot_message(GROUP["id"]).text == en.GAMES_GO_ON.format(names="Alice")
    # Nothing happened to the game: Bob plays on in it.
    assert "Bob's turn ⭕" in board.text
    await play_cells(telegram, board, ALICE, BOB, [0])
    assert board_cells(telegram, board)[0] == "O"
