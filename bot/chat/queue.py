"""What a player looking for an opponent sees: the waiting message (its seconds counting up,
then the AI's offer) and its buttons, as pure functions; what it says once they leave the queue
without a game; and its one way of being edited."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import BadRequest, TelegramError

from bot.games.ratings.rules import nearest_level, pool_of
from bot.games.strangers.matchmaking import LeftQueue
from bot.games.strangers.pairing import Waiting, board_of_key
from bot.locales.texts import Texts, texts_for
from bot.telegram.flood_gate import Pace, pace_args
from bot.views.render import BoardMessage
from bot.wire.callback_data import PLAY_AI_INSTEAD, STOP_LOOKING, pack
from bot.wire.taps import QueueTap
from core.ai import Level
from core.positions import is_ultimate

log = logging.getLogger(__name__)


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
    board = board_label(waiting.board, tr)
    if waiting.clock is not None:  # a control of their choosing (the default goes unsaid)
        board = f"{board}, ⏱ {waiting.clock}"
    if waiting.best_of > 1:  # a match: its length, as /play takes it
        board = f"{board}, 🏆 bo{waiting.best_of}"
    text = tr.QUEUE_LOOKING.format(board=board, seconds=seconds)
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


def shows_already(waiting: Waiting, message: BoardMessage) -> bool:
    """Whether the waiting message shows `message` already: as last drawn (or as posted), it
    is. Telegram refuses an edit to the same text and keyboard ("not modified")."""
    if waiting.message_id is None:
        return False
    drawn_at = waiting.shown_at or waiting.joined_at
    tr = texts_for(waiting.language)
    return render_waiting(waiting, drawn_at, tr, offer=waiting.offered_ai) == message


def render_left(reason: LeftQueue, waited: timedelta, tr: Texts) -> str:
    """What the waiting message says once its player left the queue without a game."""
    if reason is LeftQueue.TIMED_OUT:
        minutes = max(1, round(waited.total_seconds() / 60))
        return tr.count("QUEUE_TIMED_OUT", minutes)
    if reason is LeftQueue.OTHER_GAME:
        return tr.QUEUE_OTHER_GAME
    if reason is LeftQueue.AWAY:
        return tr.QUEUE_ENDED_AWAY
    return tr.QUEUE_CANCELLED


async def edit_waiting(
    bot: Bot,
    waiting: Waiting,
    text: str,
    keyboard: InlineKeyboardMarkup | None = None,
    *,
    pace: Pace = Pace.BACKGROUND,
) -> bool:
    """Edit the waiting message of `waiting` (if it has one): False when Telegram refused
    (the message is gone, or the bot blocked); an edit that changes nothing is no failure."""
    if waiting.message_id is None:
        return False
    return await _edit(bot, waiting.chat_id, waiting.message_id, text, keyboard, pace)


async def _edit(
    bot: Bot,
    chat_id: int,
    message_id: int,
    text: str,
    keyboard: InlineKeyboardMarkup | None,
    pace: Pace,
) -> bool:
    try:
        await bot.edit_message_text(
            text,
            chat_id=chat_id,
            message_id=message_id,
            reply_markup=keyboard,
            **pace_args(bot, pace),
        )
    except BadRequest as error:
        if "not modified" in str(error).lower():
            return True
        log.info("waiting message %s in %s: %s", message_id, chat_id, error)
        return False
    except TelegramError as error:
        log.info("waiting message %s in %s: %s", message_id, chat_id, error)
        return False
    return True


async def tell_left(bot: Bot, waiting: Waiting, reason: LeftQueue, now: datetime) -> None:
    """The waiting message of someone who left the queue without a game says why."""
    tr = texts_for(waiting.language)
    await edit_waiting(bot, waiting, render_left(reason, waiting.waited(now), tr), pace=Pace.PERSON)


async def tell_left_while_away(bot: Bot, chat_id: int, message_id: int, tr: Texts) -> None:
    """The waiting message of a search its person's block of the bot ended (it could not be
    edited then) says so once they are back, its Cancel gone."""
    text = render_left(LeftQueue.AWAY, timedelta(0), tr)
    await _edit(bot, chat_id, message_id, text, None, Pace.BACKGROUND)
