"""Replays: /replay and the 🎬 button of a finished board post a message that steps through
the game (⏮ ◀ ▶ ⏭ edit it in place); 🎞 sends the game as an animated picture."""

from __future__ import annotations

import asyncio

from telegram import Update

from bot.context import BotContext
from bot.games.model import BoardRef, MoveStatus
from bot.games.summaries import Replay
from bot.handlers.common import answer, edit_tapped, popup, texts_of
from bot.handlers.taps import Tapped
from bot.locales.texts import Texts
from bot.views.replay import render_replay
from bot.wire.taps import GameTap, ReplayTap


async def replay_command(update: Update, context: BotContext) -> None:
    """/replay: step through the last game that ended in this chat."""
    message, chat = update.effective_message, update.effective_chat
    if message is None or chat is None:
        return
    tr = texts_of(update.effective_user, context)
    game = await context.games.chats.last_finished(chat.id)
    replay = (
        None if game is None else await context.games.replays.of_game(game.id, BoardRef(chat.id))
    )
    if replay is None:
        await message.reply_text(tr.NO_FINISHED_GAME)
        return
    await _post(context, chat.id, replay, tr)


async def tap_replay(tapped: Tapped[GameTap], context: BotContext) -> None:
    """🎬 under a finished board: its replay, posted in the board's chat."""
    query, ref = tapped.query, tapped.ref
    tr = texts_of(query.from_user, context)
    replay = await context.games.replays.of_game(tapped.tap.game_id, ref)
    if replay is None or ref.chat_id is None:
        await answer(query, popup(tr, MoveStatus.NO_GAME))  # forged: no such finished board
        return
    await answer(query)
    await _post(context, ref.chat_id, replay, tr)


async def tap_step(tapped: Tapped[ReplayTap], context: BotContext) -> None:
    """⏮ ◀ ▶ ⏭ on a replay: the same message shows the game after that move."""
    query, tap = tapped.query, tapped.tap
    tr = texts_of(query.from_user, context)
    replay = await context.games.replays.of_game(tap.game_id, tapped.ref)
    if replay is None:  # forged, or the game was deleted (/forget)
        await answer(query, popup(tr, MoveStatus.NO_GAME))
        return
    await answer(query)
    shown = render_replay(replay, tap.ply, tr)
    message = tapped.message
    if getattr(message, "text", None) == shown.text:
        return  # a cell of the position shown: nothing to redraw
    await edit_tapped(query.edit_message_text(shown.text, reply_markup=shown.keyboard))


async def tap_animation(tapped: Tapped[GameTap], context: BotContext) -> None:
    """🎞 on a replay: the game as an animated picture, every move a frame."""
    query, ref = tapped.query, tapped.ref
    tr = texts_of(query.from_user, context)
    replay = await context.games.replays.of_game(tapped.tap.game_id, ref)
    if replay is None or ref.chat_id is None:
        await answer(query, popup(tr, MoveStatus.NO_GAME))
        return
    await answer(query)
    key = (ref.chat_id, replay.game.id)
    if key in _DRAWING:
        return  # tapped again while it is being drawn: one animation is on its way
    # Imported when first asked for: Pillow adds to a bot's start-up (as for the picture).
    from bot.views.card_animation import render_animation
    from bot.views.game_card import animation_of

    _DRAWING.add(key)
    try:
        # Drawing every frame takes CPU (up to 2 s for 81 moves): off the event loop, which
        # serves the taps.
        gif = await asyncio.to_thread(render_animation, animation_of(replay, tr))
        caption = tr.CARD_CAPTION.format(bot=context.bot.username)
        await context.bot.send_animation(ref.chat_id, gif, caption=caption, filename="game.gif")
    finally:
        _DRAWING.discard(key)


#: The animations this process is drawing, by chat and game: a second tap meanwhile draws
#: nothing more (each costs a second or two of CPU).
_DRAWING: set[tuple[int, int]] = set()


async def _post(context: BotContext, chat_id: int, replay: Replay, tr: Texts) -> None:
    shown = render_replay(replay, 0, tr)
    await context.bot.send_message(chat_id, shown.text, reply_markup=shown.keyboard)
