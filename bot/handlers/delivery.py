"""Before any handler: an update Telegram delivered again (a webhook retry, maybe to another
instance) is skipped, so every update acts once."""

from __future__ import annotations

import logging

from telegram import Update
from telegram.ext import ApplicationHandlerStop

from bot.context import BotContext

log = logging.getLogger(__name__)


async def claim_update(update: Update, context: BotContext) -> None:
    """Let the update through if no instance has acted on it yet; stop it otherwise. The
    sender's chosen language comes with the claim, for every reply to the update."""
    user = update.effective_user
    claim = await context.games.updates.claim(update.update_id, user.id if user else None)
    if not claim.new:
        log.info("update %s was delivered again: already handled, skipped", update.update_id)
        raise ApplicationHandlerStop
    context.chosen_language = claim.chosen_language
