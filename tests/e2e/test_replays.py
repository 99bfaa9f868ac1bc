"""End to end: replays (issue 40). 🎬 under a finished board and /replay post a message that
steps through the game both ways (⏮ ◀ ▶ ⏭, edits of that one message, each frame the game as
it stood); 🎞 sends the game as an animated GIF with a frame for every move; a replay of a
game in another chat is refused; replays outlive a restart."""

from __future__ import annotations

import io

from PIL import Image

from bot.locales import en
from bot.views.card import MARK_COLOURS, SHADE, TILE, mark_point, tint
from bot.views.card_animation import ANIMATION_SCALE
from bot.views.game_card import card_of
from bot.wire.callback_data import pack
from bot.wire.taps import ReplayTap
from tests.support.bot_runner import BotRunner
from tests.support.chat import current, game_id_on, press, send, tap_cell, tap_data
from tests.support.fake_telegram import FakeTelegram, StoredMessage

ANN = FakeTelegram.user(4301, "Ann")
BEN = FakeTelegram.user(4302, "Ben")
#: One phone, Ann playing both sides: ❌ takes the top row while ⭕ plays the middle one.
MOVES = [0, 3, 1, 4, 2]


def cells(tg: FakeTelegram, message: StoredMessage) -> list[str]:
    """The board's nine labels, row by row (the keyboard's first three rows)."""
    return [label for row in tg.keyboard(message)[:3] for label, _ in row]


def labels(tg: FakeTelegram, message: StoredMessage) -> list[str]:
    return [label for row in tg.keyboard(message)[3:] for label, _ in row]


async def finished_game(telegram: FakeTelegram) -> StoredMessage:
    await send(telegram, ANN, "/start user user")
    board = telegram.last_bot_message(ANN["id"])
    for cell in MOVES:
        await tap_cell(telegram, ANN, current(telegram, board), cell)
    board = current(telegram, board)
    assert en.OUTCOME_X_WINS in board.text.splitlines()
    return board


async def test_a_replay_steps_through_the_game_both_ways_in_one_message(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    board = await finished_game(telegram)
    await press(telegram, ANN, board, en.BUTTON_REPLAY)
    replay = telegram.last_bot_message(ANN["id"])
    assert replay.text.startswith("🎬 ") and en.REPLAY_START.format(total=5) in replay.text
    assert set(cells(telegram, replay)) == {en.EMPTY_SYMBOL}
    assert labels(telegram, replay) == ["▶", "⏭", en.BUTTON_ANIMATION]  # nothing before the start
    sent_before = len(telegram.bot_messages(ANN["id"]))
    # ▶ five times: each frame is the game after that many moves, its last move framed.
    for ply, cell in enumerate(MOVES, start=1):
        await press(telegram, ANN, current(telegram, replay), "▶")
        shown = current(telegram, replay)
        mark = "❌" if ply % 2 else "⭕"
        assert (
            en.REPLAY_MOVE.format(
                ply=ply, total=5, mark=mark, cell=f"{cell // 3 + 1} {cell % 3 + 1}"
            )
            in shown.text
        )
        marked = [i for i, label in enumerate(cells(telegram, shown)) if label != en.EMPTY_SYMBOL]
        assert marked == sorted(MOVES[:ply])
    # The last frame is the result, the winning line lit; nothing after the end.
    final = current(telegram, replay)
    assert en.OUTCOME_X_WINS in final.text.splitlines()
    assert cells(telegram, final)[:3] == [en.X_WIN_SYMBOL] * 3
    assert labels(telegram, final) == ["⏮", "◀", en.BUTTON_ANIMATION]
    # ◀ goes back one move at a time, ⏮ to the start, ⏭ to the end.
    await press(telegram, ANN, final, "◀")
    marked = [
        i
        for i, label in enumerate(cells(telegram, current(telegram, replay)))
        if label != en.EMPTY_SYMBOL
    ]
    assert marked == sorted(MOVES[:4])
    await press(telegram, ANN, current(telegram, replay), "⏮")
    assert en.REPLAY_START.format(total=5) in current(telegram, replay).text
    await press(telegram, ANN, current(telegram, replay), "⏭")
    assert current(telegram, replay).text == final.text
    # Every step edited the one message: nothing new was sent.
    assert len(telegram.bot_messages(ANN["id"])) == sent_before
    assert current(telegram, replay).edit_count == 5 + 3
    # A cell of the replay shows the same position: no edit at all.
    edits = current(telegram, replay).edit_count
    await tap_cell(telegram, ANN, current(telegram, replay), 4)
    assert current(telegram, replay).edit_count == edits


async def test_replay_command_and_the_animated_card_show_every_move(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    await send(telegram, ANN, "/replay")
    assert telegram.last_bot_message(ANN["id"]).text == en.NO_FINISHED_GAME
    board = await finished_game(telegram)
    await send(telegram, ANN, "/replay")
    replay = telegram.last_bot_message(ANN["id"])
    assert en.REPLAY_START.format(total=5) in replay.text
    await press(telegram, ANN, replay, en.BUTTON_ANIMATION)
    sent = telegram.last_bot_message(ANN["id"])
    assert sent.animation is not None and sent.text == en.CARD_CAPTION.format(
        bot=telegram.bot_user["username"]
    )
    gif = Image.open(io.BytesIO(sent.animation))
    assert gif.n_frames == len(MOVES) + 1  # the empty board, then each move
    # Frame n shows the first n moves, each in its mark's colour, and the rest empty (where
    # the final card, whose layout every frame has, puts each cell).
    game_id = game_id_on(telegram, board)
    assert bot.application is not None
    game = await bot.application.bot_data.running.games.store.get_game(game_id)
    assert game is not None
    card = card_of(game, en)
    for frame in range(gif.n_frames):
        gif.seek(frame)
        image = gif.convert("RGB")
        for ply, cell in enumerate(MOVES):
            x, y = mark_point(card, cell)
            pixel = image.getpixel((x // ANIMATION_SCALE, y // ANIMATION_SCALE))
            expected = ("X" if ply % 2 == 0 else "O") if ply < frame else " "
            assert seen(pixel) == expected, (frame, cell, pixel, expected)


async def test_a_replay_elsewhere_is_refused_and_replays_outlive_a_restart(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    board = await finished_game(telegram)
    await press(telegram, ANN, board, en.BUTTON_REPLAY)
    replay = telegram.last_bot_message(ANN["id"])
    game_id = game_id_on(telegram, board)
    # Ben forges a step of Ann's game in his own chat: refused, nothing posted there.
    await send(telegram, BEN, "/start")
    menu = telegram.last_bot_message(BEN["id"])
    answer = await tap_data(telegram, BEN, menu, pack(ReplayTap(game_id, 3)))
    assert answer.get("text") == en.POPUP_NO_GAME
    # After a restart the replay steps on: it lives in the database.
    await bot.stop()
    restarted = BotRunner(telegram, bot.settings.database_url.get_secret_value())
    await restarted.start()
    try:
        await press(telegram, ANN, current(telegram, replay), "⏭")
        assert en.OUTCOME_X_WINS in current(telegram, replay).text.splitlines()
    finally:
        await restarted.stop()


def seen(pixel: object) -> str:
    """What a pixel at a mark's point shows: X, O (in its colour, or darker under the winning
    line's strike) or an empty tile."""
    assert isinstance(pixel, tuple)
    inks = {" ": [TILE]}
    for mark in "XO":
        inks[mark] = [MARK_COLOURS[mark], tint(MARK_COLOURS[mark], SHADE, 0)]

    def distance(colour: tuple[int, int, int]) -> int:
        return sum(abs(a - b) for a, b in zip(pixel[:3], colour, strict=True))

    return min(inks, key=lambda mark: min(distance(colour) for colour in inks[mark]))
