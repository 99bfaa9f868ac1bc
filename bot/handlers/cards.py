"""The result card: the 🖼 button of a finished board, and /card for the chat's last game."""

from __future__ import annotations

import asyncio

from telegram import Bot, Update

from bot.context import BotContext
from bot.games.model import GameView, MoveStatus
from bot.handlers.common import answer, popup, texts_of
from bot.handlers.taps import Tapped
from bot.locales.texts import Texts
from bot.wire.taps import GameTap


async def tap_picture(tapped: Tapped[GameTap], context: BotContext) -> None:
    """Send the finished game's picture to the chat its board is in."""
    query, tap, ref = tapped.query, tapped.tap, tapped.ref
    tr = texts_of(query.from_user, context)
    game = await context.games.store.get_game(tap.game_id)
    if game is None or not ref.matches(game) or game.chat_id is None or not game.is_finished:
        await answer(query, popup(tr, MoveStatus.NO_GAME))  # forged: no such finished board
        return
    await answer(query)
    await send_card(context.bot, game.chat_id, game, tr)


async def card(update: Update, context: BotContext) -> None:
    """/card: the picture of the last game that ended in this chat."""
    message, chat = update.effective_message, update.effective_chat
    if message is None or chat is None:
        return
    tr = texts_of(update.effective_user, context)
    game = await context.games.chats.last_finished(chat.id)
    if game is None:
        await message.reply_text(tr.NO_FINISHED_GAME)
        return
    await send_card(context.bot, chat.id, game, tr)


async def send_card(bot: Bot, chat_id: int, game: GameView, tr: Texts) -> None:
    """The finished game's picture, sent to `chat_id` (the chat's 🖼 and /card, the Mini App's
    Picture)."""
    # Imported when first asked for: Pillow adds 26 ms and 6 MiB to a bot's start-up.
    from bot.views.card import render_card
    from bot.views.game_card import card_of

    # Drawing takes tens of milliseconds of CPU: off the event loop, which serves the taps.
    picture = await asyncio.to_thread(render_card, card_of(game, tr))
    caption = tr.CARD_CAPTION.format(bot=bot.username)
    await bot.send_photo(chat_id, picture, caption=caption)
