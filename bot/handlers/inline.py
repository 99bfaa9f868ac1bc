"""Inline mode: `@bot` in any chat offers challenges and games against the AI; the posted
message's first tap creates the game."""

from __future__ import annotations

from telegram import InlineQueryResultArticle, InputTextMessageContent, Update

from bot.context import BotContext
from bot.handlers.common import answer_and_show, player_from, texts_of
from bot.handlers.taps import Tapped
from bot.locales.texts import Texts, isolate
from bot.views.keyboards import inline_ai_keyboard, inline_challenge_keyboard
from bot.views.render import symbol
from bot.wire.codec import inline_key
from bot.wire.game_spec import parse_board_size
from bot.wire.taps import InlineAiTap, InlineJoinTap
from core.ai import LEVELS
from core.board import CLASSIC, O, X


async def inline_query(update: Update, context: BotContext) -> None:
    """Offer: challenge as X, challenge as O, play each AI level in this chat."""
    query = update.inline_query
    if query is None:
        return
    tr = texts_of(query.from_user, context)
    user = player_from(query.from_user)
    # `@bot 5`, `@bot 6x6`, `@bot 6 4`: the board size; anything else is the classic 3×3,
    # under a first result that says which sizes there are.
    asked = parse_board_size(query.query.lower().split())
    board = asked or CLASSIC
    key = inline_key(context.bot.token)
    size_note = "" if board.is_classic else " · " + tr.BOARD_SIZE.format(size=board.size, k=board.k)
    # The game itself is created on the first tap; remember the challenger's name for it.
    await context.games.challenges.register_player(user)
    results = [] if asked is not None else [_sizes_article(tr, context.bot.username)]
    for mark, other, title in (
        (X, O, tr.INLINE_CHALLENGE_X_TITLE),
        (O, X, tr.INLINE_CHALLENGE_O_TITLE),
    ):
        text = tr.INLINE_CHALLENGE_TEXT.format(
            name=isolate(user.name, tr), mark=symbol(mark, tr), other=symbol(other, tr)
        )
        results.append(
            InlineQueryResultArticle(
                id=f"challenge-{mark}-{board.size}-{board.k}",
                title=title + size_note,
                description=tr.INLINE_CHALLENGE_DESCRIPTION,
                input_message_content=InputTextMessageContent(text + size_note),
                reply_markup=inline_challenge_keyboard(tr, user.id, mark, board, key=key),
            )
        )
    for level in LEVELS:
        name = tr.LEVEL_NAMES[level]
        results.append(
            InlineQueryResultArticle(
                id=f"ai-{level}-{board.size}-{board.k}",
                title=tr.INLINE_AI_TITLE.format(level=name) + size_note,
                description=tr.INLINE_AI_DESCRIPTION,
                input_message_content=InputTextMessageContent(
                    tr.INLINE_AI_TEXT.format(name=isolate(user.name, tr), level=name) + size_note
                ),
                reply_markup=inline_ai_keyboard(tr, user.id, level, board, key=key),
            )
        )
    # Results carry the sender's id: personal, and cached only briefly.
    await query.answer(results, cache_time=10, is_personal=True)


def _sizes_article(tr: Texts, bot: str) -> InlineQueryResultArticle:
    """The note above the 3×3 games when the query named no board: which sizes exist. Chosen,
    it posts the same in the chat (an article result must post something)."""
    return InlineQueryResultArticle(
        id="sizes",
        title=tr.INLINE_SIZES_TITLE,
        description=tr.INLINE_SIZES_DESCRIPTION,
        input_message_content=InputTextMessageContent(tr.INLINE_SIZES_TEXT.format(bot=bot)),
    )


async def tap_join(tapped: Tapped[InlineJoinTap], context: BotContext) -> None:
    """Join on an inline challenge: the game between the two starts on this message."""
    query, inline_message_id, tap = tapped.query, tapped.inline_message_id, tapped.tap
    result = await context.games.challenges.join_inline(
        inline_message_id,
        player_from(query.from_user),
        tap.creator_id,
        tap.creator_mark,
        tap.board.empty_board(),
    )
    await answer_and_show(query, context, result, joined=True)


async def tap_ai_cell(tapped: Tapped[InlineAiTap], context: BotContext) -> None:
    """The first move on an inline board against the AI: the game starts with it."""
    query, inline_message_id, tap = tapped.query, tapped.inline_message_id, tapped.tap
    result = await context.games.play.start_inline_ai_game(
        inline_message_id,
        player_from(query.from_user),
        tap.creator_id,
        tap.level,
        tap.cell,
        tap.board.empty_board(),
    )
    await answer_and_show(query, context, result)
