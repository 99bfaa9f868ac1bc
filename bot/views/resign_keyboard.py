"""Resign asks first: the board's 🏳 Resign button becomes Yes / No for the player who tapped it.

Why buttons, not a second tap within a few seconds (as lichess confirms a resignation): the
question lives in the callback data (whose it is, on which board), so it needs no state in
the bot, holds across the bot's instances and restarts, and has no window that a slow network
can miss; the tapper sees plainly what a tap will do. Anyone else's tap on it is refused.
"""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.locales.texts import Texts
from bot.wire.callback_data import ResignAnswer, pack


def asking_to_resign(
    markup: InlineKeyboardMarkup, resign: str, game_id: int, ply: int, user_id: int, tr: Texts
) -> InlineKeyboardMarkup:
    """The board's keyboard with the Resign button (data `resign`) swapped for Yes and No."""
    answers = [
        InlineKeyboardButton(
            tr.BUTTON_RESIGN_YES, callback_data=pack(ResignAnswer(True, game_id, ply, user_id))
        ),
        InlineKeyboardButton(
            tr.BUTTON_RESIGN_NO, callback_data=pack(ResignAnswer(False, game_id, ply, user_id))
        ),
    ]
    rows = []
    for row in markup.inline_keyboard:
        swapped: list[InlineKeyboardButton] = []
        for button in row:
            swapped.extend(answers if button.callback_data == resign else [button])
        rows.append(swapped)
    return InlineKeyboardMarkup(rows)
