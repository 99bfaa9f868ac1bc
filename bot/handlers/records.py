"""Records: /stats and Review of a finished game (/top is with the ratings)."""

from __future__ import annotations

from telegram import Update

from bot.context import BotContext
from bot.handlers.common import answer, player_from, texts_of
from bot.handlers.taps import Tapped
from bot.views.render import render_review, render_stats
from bot.wire.taps import GameTap


async def stats(update: Update, context: BotContext) -> None:
    """The sender's record per opponent kind and their winning streak."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    record = await context.games.records.stats(user.id)
    await message.reply_text(render_stats(record, texts_of(user, context)))


async def tap_review(tapped: Tapped[GameTap], context: BotContext) -> None:
    """Review: the tapper's first move that could have been better, in a pop-up."""
    query, tap, ref = tapped.query, tapped.tap, tapped.ref
    tr = texts_of(query.from_user, context)
    review = await context.games.reviews.review(tap.game_id, ref, player_from(query.from_user))
    text = render_review(review, tr)
    await answer(query, text or tr.POPUP_NO_REVIEW, alert=text is not None)
