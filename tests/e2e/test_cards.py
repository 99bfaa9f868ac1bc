"""End to end: the picture of a finished game (🖼 and /card) is a PNG of its final position,
sent to the chat the game was played in."""

from __future__ import annotations

import io

from PIL import Image

from bot.games.use_cases import Games
from bot.locales import en
from bot.views.card import MARK_COLOURS, last_point, mark_point
from bot.views.game_card import card_of
from core.notation import parse_cells
from core.rules import is_over
from tests.support.bot_runner import BotRunner
from tests.support.chat import (
    assert_every_query_answered,
    board_cells,
    button_texts,
    current,
    game_id_on,
    press,
    send,
    tap_cell,
    tap_data,
)
from tests.support.fake_telegram import FakeTelegram, StoredMessage

ALICE = FakeTelegram.user(1001, "Alice")
BOB = FakeTelegram.user(1002, "Bob")
GROUP = FakeTelegram.group_chat(-100800, "Friends")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def photos(tg: FakeTelegram, chat_id: int) -> list[StoredMessage]:
    return [m for m in tg.messages.values() if m.chat_id == chat_id and m.photo is not None]


def drawn_mark(pixel: tuple[int, ...]) -> str:
    """X's red or O's blue (lighter or darker on the winning line), or neither: a grey or
    tinted tile."""
    red, _, blue = pixel[:3]
    if red - blue > 60:
        return "X"
    return "O" if blue - red > 60 else "_"


async def assert_picture_shows(bot: BotRunner, picture: bytes, game_id: int, cells: str) -> None:
    """The picture is a PNG whose board holds exactly the game's marks, cell by cell."""
    assert picture.startswith(PNG_SIGNATURE)
    image = Image.open(io.BytesIO(picture))
    image.verify()
    image = Image.open(io.BytesIO(picture)).convert("RGB")
    assert bot.application is not None
    games: Games = bot.application.bot_data.running.games
    game = await games.store.get_game(game_id)
    assert game is not None and game.is_finished
    card = card_of(game, en)
    assert [drawn_mark(MARK_COLOURS[mark]) for mark in "XO"] == ["X", "O"]
    # The last move is marked: a dot of its mark's colour at the top of its cell.
    last = last_point(card)
    assert last is not None and card.last_cell is not None
    assert drawn_mark(image.getpixel(last)) == card.cells[card.last_cell]
    for index, mark in enumerate(cells):
        pixel = image.getpixel(mark_point(card, index))
        assert isinstance(pixel, tuple)
        assert drawn_mark(pixel) == mark, (index, mark, pixel)


async def finish_against(
    tg: FakeTelegram, user: dict, chat: dict | None, level: str
) -> StoredMessage:
    await send(tg, user, f"/start {level}", chat=chat)
    board = tg.last_bot_message((chat or user)["id"])
    while not is_over(parse_cells(board_cells(tg, current(tg, board)))):
        cells = board_cells(tg, current(tg, board))
        assert not (await tap_cell(tg, user, board, cells.index("_"))).get("text")
    return current(tg, board)


async def test_the_picture_button_sends_the_final_position(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    final = await finish_against(telegram, ALICE, None, "hard")
    assert "🖼 Picture" in button_texts(telegram, final)
    await press(telegram, ALICE, final, "🖼 Picture")
    [sent] = photos(telegram, ALICE["id"])
    assert sent.text == en.CARD_CAPTION.format(bot=telegram.bot_username)
    await assert_picture_shows(
        bot, sent.photo or b"", game_id_on(telegram, final), board_cells(telegram, final)
    )
    assert_every_query_answered(telegram)


async def test_card_command_in_a_group_and_refusals(telegram: FakeTelegram, bot: BotRunner) -> None:
    await send(telegram, ALICE, "/card", chat=GROUP)
    assert telegram.last_bot_message(GROUP["id"]).text == en.NO_FINISHED_GAME

    # A running game has no picture: forged data for it changes nothing.
    await send(telegram, BOB, "/start easy", chat=GROUP)
    running = telegram.last_bot_message(GROUP["id"])
    refused = await tap_data(telegram, BOB, running, f"pc:{game_id_on(telegram, running)}")
    assert refused["text"] == en.POPUP_NO_GAME
    assert photos(telegram, GROUP["id"]) == []

    final = await finish_against(telegram, ALICE, GROUP, "medium")
    await send(telegram, BOB, "/card", chat=GROUP)  # anyone in the chat may ask
    [sent] = photos(telegram, GROUP["id"])
    await assert_picture_shows(
        bot, sent.photo or b"", game_id_on(telegram, final), board_cells(telegram, final)
    )
    # In another chat that game is not "the last one".
    await send(telegram, BOB, "/card")
    assert telegram.last_bot_message(BOB["id"]).text == en.NO_FINISHED_GAME
    assert_every_query_answered(telegram)
