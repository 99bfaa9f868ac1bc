"""One preamble for every button: the tap's data read by the callback-data table
(`bot.wire.callback_data.TABLE`), checked against where its kind of button lives and whose it
is, and handed to the handler typed. Anything else (data of another kind, malformed, forged,
a button where its kind never is) gets the "unknown button" pop-up, answered once, and no
handler runs. A button that makes something (`Button.once`) does it once: a second tap of it
on the same message in the same moment is answered so, and no handler runs."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from telegram import CallbackQuery, Chat, MaybeInaccessibleMessage, Message, Update
from telegram.error import TelegramError
from telegram.ext import CallbackQueryHandler

from bot.context import BotContext
from bot.games.model import BoardRef
from bot.handlers.common import (
    Answerer,
    TapAnswer,
    answer,
    board_ref,
    tap_answer,
    texts_of,
    unknown_button,
)
from bot.telegram.tapped_keyboard import tapped_data
from bot.telegram.update_lanes import update_arrived
from bot.wire.callback_data import LANGUAGE, pattern, read_callback_data
from bot.wire.codec import Button, Place, inline_key, is_authentic

log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True)
class Tapped(Generic[T]):
    """A tap that passed the preamble: the query, its data as a tap, and where it was."""

    update: Update
    query: CallbackQuery
    tap: T
    kind: Button

    @property
    def ref(self) -> BoardRef:
        """The board the button is on (kinds on a board or an inline message)."""
        ref = board_ref(self.query)
        assert ref is not None  # the preamble let only a known place through
        return ref

    @property
    def message(self) -> MaybeInaccessibleMessage:
        """The chat message the button is on (kinds on a chat message)."""
        assert self.query.message is not None  # as above
        return self.query.message

    @property
    def inline_message_id(self) -> str:
        """The inline message the button is on (inline kinds)."""
        assert self.query.inline_message_id is not None  # as above
        return self.query.inline_message_id


TapHandler = Callable[[Tapped[Any], BotContext], Awaitable[None]]


def button_handler(handler: TapHandler, *prefixes: str) -> CallbackQueryHandler[Any, None]:
    """The `CallbackQueryHandler` of these kinds of button: `handler` gets their taps, and
    only those that pass the preamble."""
    kinds = frozenset(prefixes)

    async def preamble(update: Update, context: BotContext) -> None:
        async with answered_in_time(update, context):
            tapped = await accepted(update, context, kinds)
            if tapped is not None:
                await once_in_a_moment(tapped, context, handler)

    preamble.__qualname__ = preamble.__name__ = getattr(handler, "__name__", "tap")
    return CallbackQueryHandler(preamble, pattern=pattern(*prefixes))


@contextlib.asynccontextmanager
async def answered_in_time(update: Update, context: BotContext) -> AsyncIterator[None]:
    """Around a tap's work: if it has not answered the tap within TAP_ANSWER_SECONDS of its
    arrival in its chat's lane (a database lock, a slow disk), answer "the game is busy"
    then, while Telegram still takes an answer, and let the work go on in the update's own
    task: its board edit still shows, its failure goes to the error handler, and its own
    answer is not sent (`TapAnswer`)."""
    query = update.callback_query
    assert query is not None  # a CallbackQueryHandler's callback
    guard = TapAnswer(query.id)
    tap_answer.set(guard)  # the update's task: the handler and the error handler see it
    # A timer, not a task: almost every tap is answered long before it, and a timer costs
    # far less to set and cancel than a task to start and cancel.
    busy: list[asyncio.Task[None]] = []

    def answer_busy() -> None:
        busy.append(asyncio.create_task(_answer_busy(query, context, guard)))

    # Counted from when the tap reached its chat's lane: it may have waited there for its turn.
    loop = asyncio.get_running_loop()
    arrived = update_arrived.get()
    waited = 0.0 if arrived is None else loop.time() - arrived
    timer = loop.call_later(max(0.0, context.settings.tap_answer_seconds - waited), answer_busy)
    try:
        yield
    finally:
        timer.cancel()
        if busy and not busy[0].done():
            await asyncio.shield(busy[0])  # its pop-up is on its way: let it arrive


async def _answer_busy(query: CallbackQuery, context: BotContext, guard: TapAnswer) -> None:
    if not guard.claim(query, Answerer.DEADLINE):
        return
    log.warning(
        "callback query %s not answered in %g s: answered busy, its work goes on",
        query.id,
        context.settings.tap_answer_seconds,
    )
    try:
        await query.answer(texts_of(query.from_user, context).POPUP_GAME_BUSY)
    except TelegramError as error:
        log.info("callback query %s was not answered: %s", query.id, error)


async def accepted(
    update: Update, context: BotContext, kinds: frozenset[str]
) -> Tapped[Any] | None:
    """The tap, if its data is of one of these kinds, where that kind lives, and (a menu's)
    tapped by its owner; None after saying why not."""
    query = update.callback_query
    assert query is not None  # a CallbackQueryHandler's callback
    read = read_callback_data(query.data)
    if read is None or read[0].prefix not in kinds or not _in_place(query, context, *read):
        await unknown_button(update, context)
        return None
    kind, tap = read
    if kind.owned and await _refuse_others(query, context, tap.owner, kind):
        return None
    return Tapped(update, query, tap, kind)


async def once_in_a_moment(tapped: Tapped[Any], context: BotContext, handler: TapHandler) -> None:
    """Hand the tap to its handler; a tap of a button that makes something (`Button.once`)
    only if it is the first of that button on its message in the moment (its claim,
    `HandledUpdates.claim_button`, holds for every instance and across a restart). Two taps
    arriving together made two boards, and the first stayed live for good. A tap whose work
    fails lets go of the claim, so that tapping again works. A button that redraws its own
    message (`Button.once_a_drawing`) claims the drawing it was tapped on, per tapper."""
    query, kind = tapped.query, tapped.kind
    # A cell's tap (most taps) claims nothing: no key is made for it.
    key = (
        _message_key(query, drawing=kind.once_a_drawing)
        if kind.once or kind.once_a_drawing
        else None
    )
    if key is None:
        await handler(tapped, context)
        return
    claim = await context.games.updates.claim_button(key, query.data or "")
    if claim is None:
        await answer(query, texts_of(query.from_user, context).POPUP_TAPPED_ALREADY)
        return
    try:
        await handler(tapped, context)
    except Exception:
        await context.games.updates.release_button(claim)
        raise


def _message_key(query: CallbackQuery, *, drawing: bool = False) -> str | None:
    """The message a button was tapped on: `chat:message`, or an inline message's id. With
    `drawing`, the drawing of it that was tapped, and by whom: a double tap's two updates carry
    the same message as it was (None when that is not known: an inline message)."""
    message = query.message
    if message is None:
        return None if drawing else f"inline:{query.inline_message_id}"
    key = f"{message.chat.id}:{message.message_id}"
    if not drawing:
        return key
    if not isinstance(message, Message):
        return None
    # Telegram's edit date counts whole seconds: with what the message says and offers, two
    # drawings differ unless they are alike and a second apart at most (▶ ◀ in a replay).
    edited = int(message.edit_date.timestamp()) if message.edit_date is not None else 0
    buttons = tapped_data(message)
    drawn = hashlib.blake2b(repr((message.text, buttons)).encode(), digest_size=6).hexdigest()
    # And whose tap: a board's buttons are anybody's to tap, and a tap refused (not a player)
    # must not keep the player's own from acting.
    return f"{key}@{edited}.{drawn}:{query.from_user.id}"


def _in_place(query: CallbackQuery, context: BotContext, kind: Button, tap: Any) -> bool:
    """Whether the button was tapped where its kind lives (inline data: signed by this bot)."""
    match kind.place:
        case Place.BOARD:
            return board_ref(query) is not None
        case Place.CHAT:
            return query.message is not None
        case Place.INLINE:
            key = inline_key(context.bot.token)
            return query.inline_message_id is not None and is_authentic(tap, key)
    return True


async def _refuse_others(
    query: CallbackQuery, context: BotContext, owner: int | None, kind: Button
) -> bool:
    """Refuse a tap on a menu's button (see `callback_data.OwnedTap`) by anyone but the
    person it belongs to, with a pop-up; True if refused. Data from before buttons had owners
    is taken in a private chat (only its user taps there) and refused in a group."""
    tr = texts_of(query.from_user, context)
    command = "/language" if kind.prefix == LANGUAGE else "/start"
    if owner is None:
        message = query.message
        if message is not None and message.chat.type == Chat.PRIVATE:
            return False
        await answer(query, tr.POPUP_OLD_MENU.format(command=command))
        return True
    if owner != query.from_user.id:
        await answer(query, tr.POPUP_NOT_YOUR_MENU.format(command=command))
        return True
    return False
