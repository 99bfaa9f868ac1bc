"""Looking for a stranger, as any handler starts or ends it: /play and its buttons join the
queue (one waiting message per player, edited again by a second /play), and /stop or a game
started otherwise takes the player out of it, their waiting message saying why."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Protocol

from telegram import Bot, Chat, InlineKeyboardButton, InlineKeyboardMarkup, Message, User
from telegram.error import Forbidden, TelegramError

from bot.chat.queue import edit_waiting, render_waiting, shows_already
from bot.context import BotContext
from bot.games.model import GameView, PlayerInfo
from bot.games.play.clock_rules import Clock
from bot.games.strangers.matchmaking import JoinStatus, LeftQueue
from bot.games.strangers.pairing import Waiting, board_key
from bot.games.use_cases import Games
from bot.handlers.common import player_from, texts_of
from bot.listeners.queue import leave_queue
from bot.locales.texts import Texts, texts_for
from bot.resources import Running
from bot.telegram.flood_gate import Pace
from bot.views.keyboards import replace_for_search_keyboard
from bot.views.render import opponent_name, player_name
from bot.wire.game_spec import PLAY_DEEP_LINK, parse_play_args
from core.board import BoardSize, X, other


async def play(
    context: BotContext, message: Message, chat: Chat, user: User, args: list[str]
) -> None:
    """/play's words (or `/start play`'s): in a private chat, look for a stranger on that
    board; /play's usage for words that name none; in a group, a button to the private chat
    that opens it on /play."""
    tr = texts_of(user, context)
    if chat.type != Chat.PRIVATE:
        link = InlineKeyboardButton(
            tr.BUTTON_OPEN_PRIVATE,
            url=f"https://t.me/{context.bot.username}?start={PLAY_DEEP_LINK}",
        )
        await message.reply_text(tr.QUEUE_PRIVATE_ONLY, reply_markup=InlineKeyboardMarkup([[link]]))
        return
    seek = parse_play_args(args)
    if seek is None:
        await message.reply_text(tr.PLAY_USAGE)
        return
    await look_for_opponent(
        context,
        chat.id,
        player_from(user),
        seek.board,
        language_of(user, context),
        seek.clock,
        best_of=seek.best_of,
    )


def language_of(user: User, context: BotContext) -> str | None:
    """The language the user speaks here: the one chosen with /language, else their app's."""
    return context.chosen_language or user.language_code


async def look_for_opponent(
    context: Seekers,
    chat_id: int,
    user: PlayerInfo,
    board: BoardSize,
    language: str | None,
    clock: Clock | None = None,
    *,
    resign_underway: bool = False,
    best_of: int = 1,
) -> None:
    """Join the queue (with `clock`; None: the default; for a match of `best_of` games):
    paired at once (both boards posted), or a waiting message with Cancel (the one they have
    already, if they were waiting: edited, never a second one), or told to finish the game
    against a stranger they play already. The chat's current game closes first, as for a new
    game: one the user moved in only with `resign_underway` (else they are asked first). From
    a chat, or the Mini App (`context` is either's)."""
    async with context.running.matchmaker.one_search_at_a_time(user.id):
        await _look_for_opponent(
            context, chat_id, user, board, language, clock, resign_underway, best_of
        )


async def _look_for_opponent(
    context: Seekers,
    chat_id: int,
    user: PlayerInfo,
    board: BoardSize,
    language: str | None,
    clock: Clock | None,
    resign_underway: bool,
    best_of: int,
) -> None:
    tr = texts_for(language)
    cleared = await context.games.stranger_chats.clear_for_stranger(chat_id, user, resign_underway)
    if cleared.stranger is not None:
        await _say_playing(context, chat_id, cleared.stranger, user.id, tr)
        return
    if cleared.underway is not None:
        name = opponent_name(cleared.underway, user.id, tr)
        keyboard = replace_for_search_keyboard(tr, board, clock, user.id)
        question = tr.QUEUE_REPLACE_QUESTION.format(name=name)
        await context.bot.send_message(chat_id, question, reply_markup=keyboard)
        return
    result = await context.games.matchmaking.join(
        user, chat_id, board_key(board), language, clock, best_of
    )
    if result.status is JoinStatus.PLAYING and result.game is not None:
        await _say_playing(context, chat_id, result.game, user.id, tr)
        return
    waiting = result.waiting
    if result.paired is not None:
        if await context.running.matchmaker.begin(result.paired):
            return
        # Undone (the other's board could not be posted): waiting on, told nothing else.
        waiting = await context.games.matchmaking.waiting_of(user.id)
    if waiting is not None:
        now = datetime.now(UTC)
        shown = render_waiting(waiting, now, tr, offer=False)
        if result.same_search and shows_already(waiting, shown):
            return  # asked again for the search under way (a double tap): it shows already
        if await edit_waiting(context.bot, waiting, shown.text, shown.keyboard, pace=Pace.PERSON):
            assert waiting.message_id is not None  # edited: it has one
            # As drawn now: a round does not draw the same seconds again.
            await context.games.matchmaking.attach_message(user.id, waiting.message_id, now)
            return
        posted = await context.bot.send_message(chat_id, shown.text, reply_markup=shown.keyboard)
        if not await context.games.matchmaking.attach_message(user.id, posted.message_id, now):
            # Paired (or let go) by a round of the matchmaker while it was being posted: the
            # round told the entry's message, which was none yet, so this one would stay
            # "Looking…" with a live Cancel. It goes.
            try:
                await context.bot.delete_message(chat_id, posted.message_id)
            except Forbidden:
                # They blocked the bot as it was posted, which ended the search: it says so
                # once they are back.
                await context.games.chats.keep_search_message(user.id, posted.message_id)
            except TelegramError:
                pass


async def _say_playing(
    context: Seekers, chat_id: int, game: GameView, user_id: int, tr: Texts
) -> None:
    """ "You are playing Bob already: finish that game first." """
    name = player_name(game, other(game.mark_of(user_id) or X), tr)
    await context.bot.send_message(chat_id, tr.QUEUE_PLAYING.format(name=name))


class Seekers(Protocol):
    """What the queue's steps need: the use-cases, the bot and the running chores (a
    handler's context, or the Mini App's)."""

    @property
    def games(self) -> Games: ...

    @property
    def bot(self) -> Bot: ...

    @property
    def running(self) -> Running: ...


async def stop_searching(context: Seekers, user_id: int, reason: LeftQueue) -> Waiting | None:
    """Take the user out of the queue, if they were in it (`leave_queue`)."""
    return await leave_queue(context.games.matchmaking, context.bot, user_id, reason)
