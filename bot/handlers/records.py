"""Records: /stats, a group's /top, and Review of a finished game."""

from __future__ import annotations

from telegram import Chat, Update

from bot.callback_data import GameTap, parse_callback_data
from bot.context import BotContext
from bot.handlers.common import answer, board_ref, player_from, texts_of, unknown_button
from bot.render import render_review, render_stats, render_top


async def stats(update: Update, context: BotContext) -> None:
    """The sender's record per opponent kind and their winning streak."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    record = await context.games.records.stats(user.id)
    await message.reply_text(render_stats(record, texts_of(user)))


async def top(update: Update, context: BotContext) -> None:
    """The group's leaderboard of games between people played there."""
    message, chat = update.effective_message, update.effective_chat
    if message is None or chat is None:
        return
    tr = texts_of(update.effective_user)
    if chat.type == Chat.PRIVATE:
        await message.reply_text(tr.TOP_PRIVATE)
        return
    await message.reply_text(render_top(await context.games.records.top(chat.id), tr))


async def tap_review(update: Update, context: BotContext) -> None:
    """Review: the tapper's first move that could have been better, in a pop-up."""
    query = update.callback_query
    assert query is not None
    tap, ref = parse_callback_data(query.data), board_ref(query)
    if not isinstance(tap, GameTap) or ref is None:
        await unknown_button(update, context)
        return
    tr = texts_of(query.from_user)
    review = await context.games.reviews.review(tap.game_id, ref, player_from(query.from_user))
    text = render_review(review, tr)
    await answer(query, text or tr.POPUP_NO_REVIEW, alert=text is not None)
