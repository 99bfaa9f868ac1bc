"""Every board message the bot can render is one Telegram takes: for any board kind and size,
any position reached by legal moves, any status, players, language and place (chat or inline
message), the text and the inline keyboard keep the Bot API's rules.

The rules, from the Bot API documentation (https://core.telegram.org/bots/api):
- sendMessage `text`: "Text of the message to be sent, 1-4096 characters after entities parsing".
- InlineKeyboardButton `callback_data`: "Data to be sent in a callback query to the bot when the
  button is pressed, 1-64 bytes"; `text`: "Label text on the button" (Telegram refuses an empty
  one), and a button uses exactly one of its optional fields.
- An `InlineKeyboardMarkup` with no buttons is refused ("can't parse inline keyboard markup JSON
  object"): a message without buttons is sent without `reply_markup`.
- At most 8 buttons in a row and 100 in all (Telegram's limits on inline keyboards; the board
  sizes stop at 8×8 for that reason).
"""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st
from telegram import (
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    SwitchInlineQueryChosenChat,
    WebAppInfo,
)

from bot.games.model import PLAYER_KINDS, USER, EndReason, GameStatus, GameView
from bot.locales.texts import available_languages
from bot.telegram.json_calls import keyboard_json
from bot.views.render import render_game
from core.board import SIZES, Board, BoardSize
from core.positions import ULTIMATE, is_full, move_error, play, winner


def _position(shape: BoardSize, moves: int, seed: int) -> tuple[Board, int | None]:
    """A position `moves` random legal moves deep (fewer if the game ends first)."""
    rng = random.Random(seed)
    board, last = shape.empty_board(), None
    for _ in range(moves):
        if winner(board, last) or is_full(board, last):
            break
        legal = [cell for cell in board.free_cells() if move_error(board, last, cell) is None]
        cell = rng.choice(legal)
        board, last = play(board, last, cell), cell
    return board, last


@st.composite
def games(draw: st.DrawFn) -> GameView:
    shape = draw(st.sampled_from([ULTIMATE, *(BoardSize(n) for n in SIZES)]))
    board, last = draw(st.builds(_position, st.just(shape), st.integers(0, 90), st.integers()))
    status = draw(st.sampled_from(list(GameStatus)))
    x_kind, o_kind = draw(st.sampled_from(PLAYER_KINDS)), draw(st.sampled_from(PLAYER_KINDS))
    inline = draw(st.booleans())
    return GameView(
        id=draw(st.integers(1, 2**31 - 1)),
        chat_id=None if inline else draw(st.sampled_from([1001, -1_002_003_004])),
        message_id=None if inline else 7,
        inline_message_id="AgAAAInline000001" if inline else None,
        board=board,
        x_kind=x_kind,
        o_kind=o_kind,
        x_player_id=1001 if x_kind == USER else None,
        o_player_id=1002 if o_kind == USER else None,
        x_name=draw(st.text(min_size=1, max_size=64)) if x_kind == USER else None,
        o_name=draw(st.text(min_size=1, max_size=64)) if o_kind == USER else None,
        status=status,
        result=draw(st.sampled_from(["X", "O", "draw"])) if status == GameStatus.FINISHED else None,
        end_reason=draw(st.sampled_from(list(EndReason))) if status != GameStatus.ACTIVE else None,
        language=draw(st.sampled_from(available_languages())),
        last_cell=last,
        assisted=draw(st.booleans()),
    )


@given(games(), st.booleans())
def test_every_board_message_is_one_telegram_takes(game: GameView, hinted: bool) -> None:
    hint = game.board.free_cells()[0] if hinted and game.board.free_cells() else None
    message = render_game(game, hint)
    assert 1 <= len(message.text.encode("utf-16-le")) // 2 <= 4096
    if message.keyboard is None:
        return
    rows = message.keyboard.inline_keyboard
    assert rows and all(rows), "a keyboard with no buttons, or an empty row"
    assert max(len(row) for row in rows) <= 8
    assert sum(len(row) for row in rows) <= 100
    for button in (button for row in rows for button in row):
        assert button.text.strip()
        kinds = [
            k
            for k in ("callback_data", "url", "switch_inline_query_chosen_chat")
            if getattr(button, k) is not None
        ]
        assert len(kinds) == 1, button
        if button.callback_data is not None:
            assert 1 <= len(str(button.callback_data).encode()) <= 64


@given(games())
def test_a_board_keyboard_goes_out_as_ptb_would_write_it(game: GameView) -> None:
    """The boards' calls write keyboards out field by field (`bot.telegram.json_calls`), not
    through PTB's `to_dict`: the JSON must be the same, for every board, and for the buttons
    the hooks add (the Mini App's, a web_app) and the share buttons (a chosen chat)."""
    keyboard = render_game(game).keyboard
    assert keyboard_json(keyboard) == (keyboard.to_dict() if keyboard is not None else None)
    added = InlineKeyboardMarkup(
        [
            [InlineKeyboardButton("Open", web_app=WebAppInfo("https://example.org/app"))],
            [
                InlineKeyboardButton(
                    "Share",
                    switch_inline_query_chosen_chat=SwitchInlineQueryChosenChat(
                        "x", allow_group_chats=True
                    ),
                )
            ],
        ]
    )
    assert keyboard_json(added) == added.to_dict()
