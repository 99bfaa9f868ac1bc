"""What every handler needs: the sender as plain values, their texts, answering a tap, and
showing a game after a use-case changed it."""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
from collections.abc import Awaitable
from contextvars import ContextVar
from dataclasses import dataclass, replace

from telegram import (
    CallbackQuery,
    Chat,
    Message,
    Update,
    User,
)
from telegram.error import BadRequest, TelegramError

from bot.context import BotContext
from bot.games.model import BoardRef, GameView, MoveResult, MoveStatus, PlayerInfo
from bot.handlers.delivery import claim_now
from bot.locales.texts import Texts, texts_for
from bot.telegram.tapped_keyboard import tapped_data
from bot.views.render import symbol

log = logging.getLogger(__name__)

POPUPS = {
    MoveStatus.GAME_OVER: "POPUP_GAME_OVER",
    MoveStatus.STALE: "POPUP_STALE",
    MoveStatus.OCCUPIED: "POPUP_OCCUPIED",
    MoveStatus.NOT_YOUR_TURN: "POPUP_NOT_YOUR_TURN",
    MoveStatus.NOT_A_PLAYER: "POPUP_NOT_A_PLAYER",
    MoveStatus.NO_GAME: "POPUP_NO_GAME",
    MoveStatus.INVALID: "POPUP_UNKNOWN_BUTTON",
    MoveStatus.CONFLICT: "POPUP_CONFLICT",
    MoveStatus.WAITING: "POPUP_WAITING",
    MoveStatus.OWN_GAME: "POPUP_OWN_GAME",
    MoveStatus.NOT_INVITED: "POPUP_NOT_INVITED",
    MoveStatus.NOT_CHALLENGER: "POPUP_NOT_CHALLENGER",
    MoveStatus.REMATCH_TAKEN: "POPUP_REMATCH_TAKEN",
    MoveStatus.REMATCH_OFFERED: "POPUP_REMATCH_OFFERED",
    MoveStatus.REMATCH_CLOSED: "POPUP_REMATCH_CLOSED",
    MoveStatus.NOT_AGAINST_AI: "POPUP_NOT_AGAINST_AI",
    MoveStatus.NOTHING_TO_UNDO: "POPUP_NOTHING_TO_UNDO",
    MoveStatus.ASKED_ALREADY: "POPUP_RESIGN_CONFIRM",
    MoveStatus.WRONG_BOARD: "POPUP_WRONG_BOARD",
    MoveStatus.JOINED_ALREADY: "POPUP_JOINED_ALREADY",
}


def popup(tr: Texts, status: MoveStatus, game: GameView | None = None) -> str:
    """Why a tap did nothing, in the tapper's language; on a finished game of a match that
    goes on (`game`), that the match is played on its newest board."""
    match = game.match if game is not None else None
    if status is MoveStatus.GAME_OVER and match is not None and not match.is_over:
        return tr.POPUP_MATCH_GOES_ON
    return tr.text(POPUPS.get(status, "POPUP_ERROR"))


def player_from(user: User) -> PlayerInfo:
    """The plain values of a Telegram user."""
    return PlayerInfo(
        id=user.id, name=user.full_name, language_code=user.language_code, username=user.username
    )


def texts_of(user: User | None, context: BotContext) -> Texts:
    """The strings in the language of the update's sender: the one they chose with
    /language, else their Telegram client's."""
    return texts_for(context.chosen_language or (user.language_code if user else None))


def is_group(chat: Chat) -> bool:
    return chat.type in (Chat.GROUP, Chat.SUPERGROUP)


def board_ref(query: CallbackQuery) -> BoardRef | None:
    """Where a tapped button lives: a chat message or an inline message (None if neither is
    known, e.g. a message too old for Telegram to include)."""
    if query.inline_message_id is not None:
        return BoardRef(inline_message_id=query.inline_message_id)
    if query.message is not None:
        return BoardRef(chat_id=query.message.chat.id)
    return None


async def unknown_button(update: Update, context: BotContext) -> None:
    """A button of no kind this bot makes (or one made up): say so, change nothing."""
    query = update.callback_query
    if query is not None and await claim_now(context):
        await answer(query, texts_of(query.from_user, context).POPUP_UNKNOWN_BUTTON)


class Answerer(enum.Enum):
    """Who gave a tap its one answer."""

    HANDLER = "handler"
    DEADLINE = "deadline"


@dataclass
class TapAnswer:
    """A tap's one answer: whoever claims it first sends it (its handler, or the deadline's
    "busy" pop-up, `bot.handlers.taps`); any later answer is not sent."""

    query_id: str
    by: Answerer | None = None

    def claim(self, query: CallbackQuery, by: Answerer) -> bool:
        """Whether `by` may answer `query` (a query of another update is none of its
        business: True)."""
        if query.id != self.query_id:
            return True
        if self.by is not None:
            return False
        self.by = by
        return True


#: The answer of the tap being handled, set by the taps' preamble for its update's task.
tap_answer: ContextVar[TapAnswer | None] = ContextVar("tap_answer", default=None)


async def answer(query: CallbackQuery, text: str | None = None, *, alert: bool = False) -> None:
    """Answer a tap (clients spin until it is answered). Telegram takes one answer per query,
    and only for a while: a query already answered (the same update delivered twice, or by the
    deadline's pop-up) or too old (handled late, after a restart) is no failure, and must not
    keep a move that is already stored from being shown on the board."""
    guard = tap_answer.get()
    if guard is not None and not guard.claim(query, Answerer.HANDLER):
        log.info("callback query %s was answered already (it took too long): not again", query.id)
        return
    try:
        await query.answer(text, show_alert=True if alert else None)
    except BadRequest as error:
        if "query is too old" not in str(error).lower():
            raise
        log.info("callback query %s was not answered: %s", query.id, error)


async def edit_tapped(edit: Awaitable[object]) -> None:
    """Edit the tapped message; after a double tap it already shows this ("not modified")."""
    try:
        await edit
    except BadRequest as error:
        if "not modified" not in str(error).lower():
            raise


#: Refusals of a tap on a board that may be behind its game: the board is redrawn too.
REDRAWN = (MoveStatus.STALE, MoveStatus.GAME_OVER)


async def redraw_if_behind(context: BotContext, game: GameView) -> None:
    """Draw the game's board afresh if it shows an older position (a crash lost its edit)
    and no drawing is on its way: the tap that found it out brings it up to date."""
    catch_up = context.board_catch_up
    if catch_up.needs_redraw(game):
        await context.presenter.show(game)


def tapped_board(query: CallbackQuery) -> Message | None:
    """The tapped message, if the tap's data is one of its buttons: only then does the tap say
    which game the message shows. Data not on it (made up, by a client that sends any) may
    name any game of the chat, whose board this message is not."""
    message = query.message
    if not isinstance(message, Message) or query.data is None:
        return None
    return message if query.data in tapped_data(message) else None


async def attach_tapped(context: BotContext, game: GameView, query: CallbackQuery) -> GameView:
    """A tap on a board the game does not know yet (a tap that raced its first posting, or
    whose posting lost its answer; played or refused): the tapped message is the board, from
    now on (in ⭕'s chat, a stranger game's second). The game as it is then."""
    tapped = tapped_board(query)
    if tapped is None or game.chat_id is None:
        return game
    if game.message_id is None and tapped.chat.id == game.chat_id:
        await context.games.chats.attach_message(game.id, tapped.message_id)
        return replace(game, message_id=tapped.message_id)
    if game.second_message_id is None and tapped.chat.id == game.second_chat_id:
        await context.games.chats.attach_message(game.id, tapped.message_id, second=True)
        return replace(game, second_message_id=tapped.message_id)
    return game


def is_copy(game: GameView, tapped: Message) -> bool:
    """Whether the tapped message is a second board of the game in its chat: a posting that
    got no answer, posted again (`bot.chores.board_catch_up`)."""
    chat, message_id = tapped.chat.id, tapped.message_id
    if chat == game.chat_id and game.message_id not in (None, message_id):
        return True
    return chat == game.second_chat_id and game.second_message_id not in (None, message_id)


async def settle_copy(query: CallbackQuery, game: GameView, tr: Texts) -> None:
    """A tap on a copy of a board posted again: the copy says where the game goes on, and
    offers nothing more (the tap itself acts on the game, as any tap on its chat's board)."""
    # Whether it is a copy first: a move's tap (nearly every tap) is on the board itself, and
    # its keyboard need not be read.
    message = query.message
    if isinstance(message, Message) and is_copy(game, message) and tapped_board(query):
        with contextlib.suppress(TelegramError):
            await query.edit_message_text(tr.BOARD_POSTED_AGAIN)


async def answer_and_show(
    query: CallbackQuery,
    context: BotContext,
    result: MoveResult,
    *,
    joined: bool = False,
    block: int | None = None,
) -> None:
    """Answer the tap (a pop-up when refused) and show the game's new state (on ultimate's
    board, the small board `block` if the player chose one)."""
    tr = texts_of(query.from_user, context)
    game = result.game
    if game is not None:
        game = await attach_tapped(context, game, query)
    if not result.played or game is None:
        await answer(query, popup(tr, result.status, game))
        if game is not None:
            await settle_copy(query, game, tr)
        if game is not None and game is not result.game:
            # A board unknown till now (refused: out of turn, or behind the game): drawn.
            await context.presenter.show(game, ai=False, again=True)
        elif result.status in REDRAWN and game is not None:
            await redraw_if_behind(context, game)
        return
    mark = game.mark_of(query.from_user.id)
    said = tr.POPUP_JOINED.format(mark=symbol(mark, tr)) if joined and mark is not None else None
    # The answer goes first and is paced by nothing; the board follows at its chat's pace, in
    # this update's own task (so that while it waits for that pace, the update gives its
    # shared slot back: `bot.telegram.flood_gate`). Both leave at once when the chat has room:
    # the tapper's spinner stops and the board changes in one round trip's time, not two.
    answering = asyncio.create_task(answer(query, said), name=f"answer {query.id}")
    try:
        await context.presenter.show(game, block=block)
    finally:
        await answering
    await settle_copy(query, game, tr)
