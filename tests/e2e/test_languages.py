"""Every player in their own language: a game, a refused tap, a typed-move error, /stop,
/stats and /help in each language the bot speaks; /language switches a player for good."""

from __future__ import annotations

from typing import Any

import pytest

from bot.locales.texts import LANGUAGE_NAMES, Texts, available_languages, texts_for
from bot.views.render import render_help
from tests.support.bot_runner import BotRunner
from tests.support.chat import button_texts, cell_data, send, tap_cell, tap_data
from tests.support.fake_telegram import FakeTelegram

#: The language_code a Telegram client sends, for each catalog.
CLIENT_CODES = {"en": "en", "ru": "ru", "uk": "uk", "es": "es", "pt_BR": "pt-br", "de": "de"}
CLIENT_CODES |= {"fa": "fa", "id": "id"}
#: A Persian player has a Persian name; the others a Latin one.
NAMES = {"fa": "علی رضایی"}


def test_every_language_is_played_here() -> None:
    assert set(CLIENT_CODES) == set(available_languages()) == set(LANGUAGE_NAMES)


@pytest.mark.parametrize("code", sorted(CLIENT_CODES))
async def test_a_game_and_its_mistakes_in_the_players_language(
    telegram: FakeTelegram, bot: BotRunner, code: str
) -> None:
    tr = texts_for(code)
    player = FakeTelegram.user(2001, NAMES.get(code, "Ana"), language_code=CLIENT_CODES[code])

    await send(telegram, player, "/start hard")
    board = telegram.last_bot_message(player["id"])
    name = NAMES.get(code, "Ana")
    shown_name = f"\u2068{name}\u2069" if tr.rtl or code in NAMES else name
    hard = tr.AI_NAME.format(level=tr.LEVEL_NAMES["hard"])
    title = tr.VERSUS.format(x=tr.X_SYMBOL, x_name=shown_name, o=tr.O_SYMBOL, o_name=hard)
    assert board.text.splitlines()[0] == title
    assert tr.YOUR_MOVE.format(mark=tr.X_SYMBOL) in board.text
    assert tr.BUTTON_RESIGN in button_texts(telegram, board)

    # A move, then a tap on the same (now taken) cell: refused in the player's language.
    assert not (await tap_cell(telegram, player, board, 4)).get("text")
    refused = await tap_data(telegram, player, board, cell_data(telegram, board, 4))
    assert refused["text"] == tr.POPUP_OCCUPIED

    # Typed mistakes.
    await send(telegram, player, "two two")
    assert telegram.last_bot_message(player["id"]).text == tr.ERROR_NOT_NUMBERS
    await send(telegram, player, "9 9")
    assert telegram.last_bot_message(player["id"]).text == tr.ERROR_OUT_OF_RANGE.format(size=3)
    await send(telegram, player, "2 2")
    assert telegram.last_bot_message(player["id"]).text == tr.ERROR_OCCUPIED

    # Giving up, and the record: one game, worded with the language's plural rule.
    await send(telegram, player, "/stop")
    assert telegram.last_bot_message(player["id"]).text == tr.STOPPED
    await send(telegram, player, "/stats")
    stats = telegram.last_bot_message(player["id"]).text.splitlines()
    assert stats[0] == tr.STATS_HEADER
    total = tr.STATS_TOTAL.format(wins=0, losses=1, draws=0, games=tr.count("COUNT_GAMES", 1))
    assert total in stats

    await send(telegram, player, "/help")
    help_message = telegram.last_bot_message(player["id"])
    assert help_message.text == help_text(tr, telegram.bot_username)
    assert button_texts(telegram, help_message) == [
        tr.BUTTON_ADD_TO_GROUP,
        tr.BUTTON_CHALLENGE_FRIEND,
    ]


#: A player types in their language's digits (Persian ones in Persian).
DIGITS = {"fa": str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")}


@pytest.mark.parametrize("code", sorted(CLIENT_CODES))
async def test_a_finished_board_says_the_result_in_the_boards_language(
    telegram: FakeTelegram, bot: BotRunner, code: str
) -> None:
    tr = texts_for(code)
    player = FakeTelegram.user(2002, NAMES.get(code, "Ana"), language_code=CLIENT_CODES[code])
    await send(telegram, player, "/start user user")
    board = telegram.last_bot_message(player["id"])
    for move in ("1 1", "2 1", "1 2", "2 2", "1 3"):
        await send(telegram, player, move.translate(DIGITS.get(code, {})))
    lines = telegram.messages[board.key].text.splitlines()
    assert tr.OUTCOME_X_WINS in lines, lines
    assert tr.RESULT_MARK_WON.format(mark=tr.X_SYMBOL) in lines
    if code != "en":
        # Every line of the board in the board's language: no English result words.
        assert not {"X wins", "O wins", "Draw"} & set(lines), lines


async def test_o_wins_and_a_draw_in_russian(telegram: FakeTelegram, bot: BotRunner) -> None:
    ru = texts_for("ru")
    boris = FakeTelegram.user(2003, "Борис", language_code="ru")
    for moves, outcome in [
        ("1 4 2 5 9 6", ru.OUTCOME_O_WINS),
        ("1 2 3 5 8 4 6 9 7", ru.OUTCOME_DRAW),
    ]:
        await send(telegram, boris, "/start user user")
        board = telegram.last_bot_message(boris["id"])
        for cell in moves.split():
            await send(telegram, boris, cell)
        lines = telegram.messages[board.key].text.splitlines()
        assert outcome in lines and not {"X wins", "O wins", "Draw"} & set(lines), lines
    assert (ru.OUTCOME_O_WINS, ru.OUTCOME_DRAW) == ("Нолики победили", "Ничья")


def help_text(tr: Texts, bot: str) -> str:
    """What /help answers in a private chat: how to play, then every command."""
    return render_help(tr, bot, group=False)


def language_buttons(telegram: FakeTelegram, message: Any) -> dict[str, str]:
    return {text: data for row in telegram.keyboard(message) for text, data in row}


async def test_language_switches_a_player_for_good(
    telegram: FakeTelegram, bot: BotRunner, database_url: str
) -> None:
    en, de = texts_for("en"), texts_for("de")
    alice = FakeTelegram.user(2002, "Alice", language_code="en")
    await send(telegram, alice, "/language")
    ask = telegram.last_bot_message(alice["id"])
    assert ask.text == en.LANGUAGE_ASK
    buttons = language_buttons(telegram, ask)
    assert list(buttons) == [
        ("✔ " if code == "en" else "") + name for code, name in LANGUAGE_NAMES.items()
    ]
    assert [len(row) for row in telegram.keyboard(ask)] == [2, 2, 2, 2]

    answer = await tap_data(telegram, alice, ask, buttons["Deutsch"])
    assert not answer.get("text")
    assert telegram.messages[ask.key].text == de.LANGUAGE_CHOSEN
    # This chat's command menu speaks German too.
    menu = await telegram.wait_for(
        lambda c: (
            c.method == "setMyCommands" and (c.params.get("scope") or {}).get("type") == "chat"
        )
    )
    assert menu.params["scope"]["chat_id"] == alice["id"]
    assert dict(de.COMMANDS)["start"] in [c["description"] for c in menu.params["commands"]]

    await send(telegram, alice, "/help")
    assert telegram.last_bot_message(alice["id"]).text == help_text(de, "tictactoe_test_bot")
    await send(telegram, alice, "/start hard")
    assert de.YOUR_MOVE.format(mark="❌") in telegram.last_bot_message(alice["id"]).text

    # The choice is stored: a restarted bot still speaks German with Alice.
    await bot.stop()
    again = BotRunner(telegram, database_url)
    await again.start()
    try:
        await send(telegram, alice, "/stats")
        assert telegram.last_bot_message(alice["id"]).text == de.STATS_EMPTY
        # A forged language is a dead button, and changes nothing.
        await send(telegram, alice, "/language")
        ask = telegram.last_bot_message(alice["id"])
        assert "✔ Deutsch" in language_buttons(telegram, ask)
        refused = await tap_data(telegram, alice, ask, "lang:xx")
        assert refused["text"] == de.POPUP_UNKNOWN_BUTTON
        # /forget deletes the choice with everything else: English again.
        await send(telegram, alice, "/forget")
        confirm = telegram.last_bot_message(alice["id"])
        await tap_data(telegram, alice, confirm, telegram.keyboard(confirm)[0][0][1] or "")
        await send(telegram, alice, "/help")
        assert telegram.last_bot_message(alice["id"]).text == help_text(en, "tictactoe_test_bot")
    finally:
        await again.stop()
