"""Buttons that ask first: 🏳 Resign and 🚫 Don't pair me become Yes / No for whoever tapped
them; 🤝 Offer a draw asks the opponent (Accept / Decline). 🚫's question is swapped in on the
tapped keyboard; Resign's and the draw's are stored on their game, as a running board is drawn
again by others (its clock, the catch-up) that must keep asking them.

Why buttons, not a second tap within a few seconds (as lichess confirms a resignation): the
question lives in the callback data (whose it is, on which board), so it needs no state in
the bot, holds across the bot's instances and restarts, and has no window that a slow network
can miss; the tapper sees plainly what a tap will do. Anyone else's tap on it is refused.
"""

from __future__ import annotations

from collections.abc import Sequence

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.locales.texts import Texts
from bot.wire.callback_data import pack
from bot.wire.taps import BlockPlayerTap, DrawAnswer, ResignAnswer


def swapped(
    markup: InlineKeyboardMarkup, data: str, buttons: Sequence[InlineKeyboardButton]
) -> InlineKeyboardMarkup:
    """The keyboard with its button of callback data `data` swapped for `buttons` (none: the
    button goes, and a row left empty with it)."""
    rows = []
    for row in markup.inline_keyboard:
        kept: list[InlineKeyboardButton] = []
        for button in row:
            kept.extend(buttons if button.callback_data == data else [button])
        if kept:
            rows.append(kept)
    return InlineKeyboardMarkup(rows)


def resign_answers(game_id: int, ply: int, user_id: int, tr: Texts) -> list[InlineKeyboardButton]:
    """Yes and No on Resign's question to `user_id`, where the board has 🏳 Resign (the
    question is stored on the game: `resign_rules.resign_question`)."""
    return [
        InlineKeyboardButton(
            tr.BUTTON_RESIGN_YES, callback_data=pack(ResignAnswer(True, game_id, ply, user_id))
        ),
        InlineKeyboardButton(
            tr.BUTTON_RESIGN_NO, callback_data=pack(ResignAnswer(False, game_id, ply, user_id))
        ),
    ]


def draw_answers(game_id: int, ply: int, user_id: int, tr: Texts) -> list[InlineKeyboardButton]:
    """Accept and Decline of the draw offered to `user_id` (the offer is stored on the game:
    `draw_rules.draw_offer`)."""
    return [
        InlineKeyboardButton(
            tr.BUTTON_DRAW_ACCEPT, callback_data=pack(DrawAnswer(True, game_id, ply, user_id))
        ),
        InlineKeyboardButton(
            tr.BUTTON_DRAW_DECLINE, callback_data=pack(DrawAnswer(False, game_id, ply, user_id))
        ),
    ]


def block_answers(game_id: int) -> tuple[str, str]:
    """The callback data of Yes and No on 🚫's question."""
    return pack(BlockPlayerTap(game_id, True)), pack(BlockPlayerTap(game_id, False))


def asking_to_block(
    markup: InlineKeyboardMarkup, block: str, game_id: int, tr: Texts
) -> InlineKeyboardMarkup:
    """The ended board's keyboard with 🚫 (data `block`) swapped for Yes and No. A stranger's
    board is in their own chat: the question is theirs."""
    yes, no = block_answers(game_id)
    answers = [
        InlineKeyboardButton(tr.BUTTON_BLOCK_YES, callback_data=yes),
        InlineKeyboardButton(tr.BUTTON_BLOCK_NO, callback_data=no),
    ]
    return swapped(markup, block, answers)


def block_answered(
    markup: InlineKeyboardMarkup, game_id: int, confirmed: bool, tr: Texts
) -> InlineKeyboardMarkup:
    """After Yes (the question and 🚫 go: done) or No (🚫 is back, as it was)."""
    yes, no = block_answers(game_id)
    again = [] if confirmed else [block_button(game_id, tr)]
    return swapped(swapped(markup, yes, again), no, [])


def block_button(game_id: int, tr: Texts) -> InlineKeyboardButton:
    """🚫 Don't pair me with them again (it asks first)."""
    return InlineKeyboardButton(tr.BUTTON_BLOCK, callback_data=pack(BlockPlayerTap(game_id)))
