"""Before any handler: an update Telegram delivered again (a webhook retry, maybe to another
instance) is skipped, so every update acts once."""

from __future__ import annotations

import contextlib
import logging
import re

from telegram import Update
from telegram.error import TelegramError
from telegram.ext import ApplicationHandlerStop

from bot.context import BotContext
from bot.games.model import Claim, UpdateClaim
from bot.telegram.update_lanes import update_recovered
from bot.wire.callback_data import CELL, DRAW_YES, RESIGN_YES

log = logging.getLogger(__name__)


#: Callback data of the taps whose use-case claims the update in its own transaction: a move,
#: and the "Yes, resign" and "Accept draw" that end a game (Resign's first tap only asks, 🤝
#: only offers, and are claimed here).
CLAIMED_BY_USE_CASE = (f"{CELL}:", f"{RESIGN_YES}:", f"{DRAW_YES}:")
#: Likewise a `/start` that names a game (`menu.start`): the new game's statement claims it.
START_COMMAND = re.compile(r"/start(@\w+)?\s+\S")


async def claim_update(update: Update, context: BotContext) -> None:
    """Let the update through if no instance has acted on it yet; stop it otherwise. The
    sender's chosen language comes with the claim, for every reply to the update.

    A tap on a board, the bot's busiest update, and a `/start` that names a game are let
    through unclaimed: the use-case claims them in the transaction that plays the move or
    starts the game (one commit, not two), and the handler claims one first if it answers
    without that use-case (`claim_now`)."""
    user = update.effective_user
    user_id = user.id if user else None
    query, message = update.callback_query, update.message
    context.tap = query
    if (query is not None and query.data and query.data.startswith(CLAIMED_BY_USE_CASE)) or (
        message is not None and message.text and START_COMMAND.match(message.text)
    ):
        context.deferred_claim = UpdateClaim(update.update_id, user_id)
        return
    claim = await context.games.updates.claim(update.update_id, user_id)
    if not await accepted(context, claim, update.update_id):
        raise ApplicationHandlerStop


async def accepted(context: BotContext, claim: Claim, update_id: int) -> bool:
    """Take an update's claim: its sender's language for the replies, and whether to go on
    (False: another delivery of it was handled already). A tap handled already that comes
    again after a restart is answered all the same, with nothing to say: its first handling
    may have died between its commit and its answer, and the player's button would spin till
    Telegram gives up (answered, Telegram refuses this one: harmless). A tap delivered twice
    while its first handling runs is not: that one answers it, maybe with words."""
    context.deferred_claim = None
    context.chosen_language = claim.chosen_language
    if not claim.new:
        log.info("update %s was delivered again: already handled, skipped", update_id)
        if context.tap is not None and update_recovered.get():
            with contextlib.suppress(TelegramError):
                await context.tap.answer()
    return claim.new


async def claim_now(context: BotContext) -> bool:
    """Before answering a deferred update without its use-case: claim it now. False when it
    was handled already (say nothing then)."""
    deferred = context.deferred_claim
    if deferred is None:
        return True
    claim = await context.games.updates.claim(deferred.update_id, deferred.user_id)
    return await accepted(context, claim, deferred.update_id)


async def claimed_by(context: BotContext, claim: Claim | None) -> bool:
    """After a use-case that was handed the deferred claim: whether to answer the update."""
    deferred = context.deferred_claim
    if claim is not None and deferred is not None:
        return await accepted(context, claim, deferred.update_id)
    return await claim_now(context)
