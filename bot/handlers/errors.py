"""The error handler: log with the update id, tell the user something useful."""

from __future__ import annotations

import logging

from telegram import Update
from telegram.error import Forbidden, TelegramError

from bot.context import BotContext
from bot.games.db.store import LOST_RACE
from bot.handlers.common import answer, texts_of
from bot.telegram.request import OutcomeUnknown

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
