"""Games between people in a group: /challenge, Join (Accept), Decline, Cancel, Rematch."""

from __future__ import annotations

from telegram import Update

from bot.context import BotContext
from bot.handlers.common import (
    answer,
    answer_and_show,
    is_group,
    player_from,
    popup,
    texts_of,
)
from bot.handlers.taps import Tapped
from bot.views.render import symbol
from bot.wire.callback_data import CANCEL, DECLINE, JOIN
from bot.wire.game_spec import parse_board_size, parse_match_words
from bot.wire.taps import GameTap


async def challenge(update: Update, context: BotContext) -> None:
    """Challenge anyone in the group, `@name`, or the author of the replied-to message."""
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if message is None or chat is None or user is None:
        return
    tr = texts_of(user, context)
    if not is_group(chat):
        await message.reply_text(tr.GROUP_ONLY.format(bot=context.bot.username))
        return
    args = [a.lower() for a in context.args or []]
    invited = message.reply_to_message.from_user if message.reply_to_message else None
    mentions = [a for a in args if a.startswith("@")]
    match = parse_match_words([a for a in args if not a.startswith("@")])
    best_of, words = match or (1, ["?"])
    size = parse_board_size(words)
    if size is None or len(mentions) > 1 or any(len(m) < 2 for m in mentions):
        await message.reply_text(f"{tr.BAD_CHALLENGE}\n{tr.CHALLENGE_MATCH_HINT}")
        return
    username = None
    if mentions:
        username, invited = mentions[0][1:], None
    if invited is not None and invited.is_bot:
        await message.reply_text(tr.CHALLENGE_BOT)
        return
    if (invited is not None and invited.id == user.id) or (
        username and user.username and username.lower() == user.username.lower()
    ):
        await message.reply_text(tr.CHALLENGE_YOURSELF)
        return
    game = await context.games.challenges.create(
        chat.id,
        player_from(user),
        invited=player_from(invited) if invited else None,
        invited_username=username,
        board=size.empty_board(),
        best_of=best_of,
    )
    await context.presenter.post(chat.id, game)


async def tap_challenge(tapped: Tapped[GameTap], context: BotContext) -> None:
    """Join (or Accept), Decline or Cancel a challenge."""
    query, tap, ref = tapped.query, tapped.tap, tapped.ref
    challenges = context.games.challenges
    act = {JOIN: challenges.join, DECLINE: challenges.decline, CANCEL: challenges.cancel}
    result = await act[tap.action](tap.game_id, ref, player_from(query.from_user))
    await answer_and_show(query, context, result, joined=tap.action == JOIN)


async def tap_rematch(tapped: Tapped[GameTap], context: BotContext) -> None:
    """Offer a rematch (sides swapped), or accept the other player's offer: the offer is
    posted on a new board in the chat, or on the same inline message."""
    query, tap, ref = tapped.query, tapped.tap, tapped.ref
    tr = texts_of(query.from_user, context)
    result = await context.games.challenges.rematch(tap.game_id, ref, player_from(query.from_user))
    if not result.played or result.game is None:
        await answer(query, popup(tr, result.status))
        return
    game, user_id = result.game, query.from_user.id
    # Who accepted an offer learns their side, as with Join.
    mark = game.mark_of(user_id) if game.created_by_id != user_id else None
    await answer(query, tr.POPUP_JOINED.format(mark=symbol(mark, tr)) if mark else None)
    if game.has_board_message:
        await context.presenter.show(game)  # the inline message, or the accepted offer's board
    elif game.chat_id is not None:
        await context.presenter.post(game.chat_id, game)
