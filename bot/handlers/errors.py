"""The error handler: log with the update id, tell the user something useful."""

from __future__ import annotations

import logging

from telegram import Update
from telegram.error import Forbidden, TelegramError

from bot.context import BotContext
from bot.games.db.sqlite_file import refusal
from bot.games.db.store import LOST_RACE
from bot.handlers.common import answer, texts_of
from bot.locales.texts import Texts
from bot.telegram.request import OutcomeUnknown
from bot.telegram.unstored import Unstored

log = logging.getLogger(__name__)


async def on_error(update: object, context: BotContext) -> None:
    """Log the failure; answer a pending tap or message so the user is never left hanging."""
    update_id = update.update_id if isinstance(update, Update) else None
    if isinstance(context.error, OutcomeUnknown):
        # A message went out but its answer was lost: it has most likely arrived, so an
        # apology (and an ERROR) would be wrong.
        log.warning("update %s: %s", update_id, context.error)
        return
    if isinstance(context.error, Forbidden):
        # The user blocked the bot (or it left the chat): nothing to retry, nobody to tell.
        log.warning("update %s: Telegram refused: %s", update_id, context.error)
        return
    refused = refusal(context.error)
    if refused is not None and isinstance(update, Update):
        # The database would not store it (its file gone or read-only: one ERROR said so):
        # Telegram delivers it again (see `Unstored`), and its sender is told once.
        tr = texts_of(update.effective_user, context)
        await not_stored(update, context.bot_data.unstored, tr, refused.value)
        return
    # The use-cases answer their races themselves; one that slips through still only means
    # that someone else changed the game first, not that anything broke.
    raced = isinstance(context.error, LOST_RACE)
    if raced:
        log.warning("update %s lost a race: %s", update_id, type(context.error).__name__)
    else:
        log.error("update %s failed", update_id, exc_info=context.error)
    if not isinstance(update, Update):
        return
    user = update.effective_user
    tr = texts_of(user, context)
    try:
        if update.callback_query is not None:
            # Through `answer`: a tap the deadline answered already gets no second answer.
            await answer(update.callback_query, tr.POPUP_CONFLICT if raced else tr.POPUP_ERROR)
        elif update.effective_message is not None and update.effective_chat is not None:
            await update.effective_message.reply_text(tr.CONFLICT if raced else tr.SORRY_ERROR)
    except TelegramError:
        # Already answered, or Telegram itself is failing: nothing more to do here.
        log.debug("could not tell the user about the failure of update %s", update_id)


async def not_stored(
    update: Update, unstored: Unstored, tr: Texts, why: str, *, handled: bool = True
) -> None:
    """The database would not store the update's work (`handled`), or the update itself:
    noted for Telegram to deliver it again, and its sender told the first time: a tap that it
    could not be saved (a tap's answer is awaited); a message, when it was handled, that
    something went wrong."""
    first = unstored.refused(update.update_id)
    level = logging.WARNING if first else logging.DEBUG
    log.log(
        level, "update %s could not be stored (%s): Telegram sends it again", update.update_id, why
    )
    if not first:
        return
    try:
        if update.callback_query is not None:
            await answer(update.callback_query, tr.POPUP_NOT_SAVED)
        elif handled and update.effective_message is not None:
            await update.effective_message.reply_text(tr.SORRY_ERROR)
    except TelegramError:
        log.debug("could not tell the sender of update %s that it was not stored", update.update_id)
