"""Ratings: /rating, the global ladder under /top, and the ladder's opt-in button."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update

from bot.context import BotContext
from bot.games.ratings.rules import POOLS, ai_pool
from bot.handlers.common import answer, is_group, player_from, texts_of
from bot.handlers.taps import Tapped
from bot.locales.texts import Texts
from bot.views.rating import render_ladders, render_ratings
from bot.views.render import render_top
from bot.wire.callback_data import pack
from bot.wire.taps import LadderTap


async def rating(update: Update, context: BotContext) -> None:
    """The sender's ratings per pool, with their deviation and last change; the AI levels'."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    ratings = await context.games.ratings.of_player(user.id)
    await message.reply_text(render_ratings(ratings, texts_of(user, context)))


async def top(update: Update, context: BotContext) -> None:
    """In a group, its leaderboard of games between people; everywhere, the global ladder
    (people who opted in, first names), with a button to step on or off it."""
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if message is None or chat is None or user is None:
        return
    tr = texts_of(user, context)
    parts = []
    if is_group(chat):
        parts.append(render_top(await context.games.records.top(chat.id), tr))
    pools = [*POOLS, *(ai_pool(pool) for pool in POOLS)]  # between people, then vs the AI
    ladders = {pool: await context.games.ratings.ladder(pool) for pool in pools}
    parts.append(render_ladders(ladders, tr))
    on = await context.games.ratings.is_on_ladder(user.id)
    await message.reply_text("\n\n".join(parts), reply_markup=ladder_keyboard(tr, on))


def ladder_keyboard(tr: Texts, on: bool) -> InlineKeyboardMarkup:
    """Step on the ladder, or off it (the button acts for whoever taps it)."""
    label = tr.BUTTON_LADDER_LEAVE if on else tr.BUTTON_LADDER_JOIN
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(label, callback_data=pack(LadderTap(not on)))]]
    )


async def tap_ladder(tapped: Tapped[LadderTap], context: BotContext) -> None:
    """Show the tapper on the global ladder, or take them off it."""
    query, tap = tapped.query, tapped.tap
    tr = texts_of(query.from_user, context)
    await context.games.ratings.set_on_ladder(player_from(query.from_user), tap.on)
    await answer(query, tr.POPUP_LADDER_ON if tap.on else tr.POPUP_LADDER_OFF, alert=True)
