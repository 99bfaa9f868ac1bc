"""What a player looking for an opponent sees, as pure functions: the waiting message (its
seconds counting up, then the AI's offer) and its buttons."""

from __future__ import annotations

from datetime import datetime

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.games.pairing import Waiting, board_of_key
from bot.games.rating_rules import nearest_level, pool_of
from bot.views.render import BoardMessage
from bot.views.texts import Texts
from bot.wire.callback_data import PLAY_AI_INSTEAD, STOP_LOOKING, QueueTap, pack
from core.ai import Level
from core.positions import is_ultimate


def board_label(key: str, tr: Texts) -> str:
    """3×3, `6×6, 5 in a row`, Ultimate."""
    board = board_of_key(key)
    if is_ultimate(board):
        return tr.POOL_NAMES["ultimate"]
    return "3×3" if board.is_classic else tr.BOARD_SIZE.format(size=board.size, k=board.k)


def offered_level(waiting: Waiting) -> Level:
    """The AI level offered to someone nobody came for: the nearest to their rating."""
    return nearest_level(pool_of(board_of_key(waiting.board)), waiting.rating)


def render_waiting(waiting: Waiting, now: datetime, tr: Texts, *, offer: bool) -> BoardMessage:
    """ "Looking for an opponent… (12 s)" with Cancel; with `offer`, the AI level nearest the
    player's rating too."""
    seconds = int(waiting.waited(now).total_seconds())
    text = tr.QUEUE_LOOKING.format(board=board_label(waiting.board, tr), seconds=seconds)
    rows = [[InlineKeyboardButton(tr.BUTTON_CANCEL, callback_data=STOP_LOOKING)]]
    if offer:
        level = offered_level(waiting)
        text += "\n\n" + tr.QUEUE_AI_OFFER.format(
            level=tr.LEVEL_NAMES[level], rating=round(waiting.rating)
        )
        play = tr.BUTTON_PLAY_AI_LEVEL.format(level=tr.LEVEL_NAMES[level])
        rows.insert(
            0,
            [
                InlineKeyboardButton(
                    play, callback_data=pack(QueueTap(PLAY_AI_INSTEAD, waiting.board, level))
                )
            ],
        )
    return BoardMessage(text, InlineKeyboardMarkup(rows))
