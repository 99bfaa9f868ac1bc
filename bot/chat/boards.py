"""Sending and editing board messages (chat messages and inline messages alike).

Nothing here writes to the database: a function that posts a new board returns its message
id, and the caller records it (`Games.chats.attach_message`).

A board whose posting got no answer (`OutcomeUnknown`) is not posted again: it may well be in
the chat already. Its message id stays unknown; the next tap on it tells the bot which message
it is, and a game nobody taps is shown afresh by the turn clock. Background callers (AI
matches, the turn clock) pass a slower `Pace`, so people's boards go first
(`bot.telegram.flood_gate`).

A running bot adds `BoardHooks` (`bot.chat.presenter.Presenter` holds them): the Mini App adds its
"Open board" button to every board's keyboard, and hears of every board shown, so that its
pages show each move the moment the chat does, whoever made it; the board outbox
(`bot.chores.board_catch_up`) hears of every board Telegram has, to mark it shown; the
clock of a turn starts the moment Telegram answers for the board that shows the player their
turn (`turn_shown`), before any other board of the game is drawn.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from telegram import Bot, InlineKeyboardMarkup
from telegram.error import BadRequest, Forbidden, TelegramError

from bot.games.model import GameView
from bot.telegram.flood_gate import Pace
from bot.telegram.json_calls import edit_text, send_text
from bot.telegram.request import OutcomeUnknown
from bot.views.render import BoardMessage, render_game
from core.board import O, X

log = logging.getLogger(__name__)

KeyboardHook = Callable[[InlineKeyboardMarkup | None, GameView], InlineKeyboardMarkup | None]


def _same_keyboard(
    keyboard: InlineKeyboardMarkup | None, _game: GameView
) -> InlineKeyboardMarkup | None:
    return keyboard


def _nobody(_game: GameView) -> None:
    return None


async def _no_clock(_game: GameView, _at: datetime) -> None:
    return None


@dataclass(frozen=True)
class BoardHooks:
    """What a running bot adds to its boards: `keyboard` turns a board's keyboard into the
    one shown, `shown` hears of every game whose board is about to be posted or edited,
    `delivered` of every game whose boards Telegram has, all of them, at that version
    (`bot.chat.presenter` decides: an answer that came late or not at all is no delivery),
    and `turn_seen` of the moment Telegram answered for the board that shows the player to
    move their turn (awaited there and then: the clock of that turn starts then)."""

    keyboard: KeyboardHook = _same_keyboard
    shown: Callable[[GameView], None] = _nobody
    delivered: Callable[[GameView], None] = _nobody
    turn_seen: Callable[[GameView, datetime], Awaitable[object]] = _no_clock


#: A bot's boards with nothing added (tests that draw boards without a running bot).
NO_HOOKS = BoardHooks()


@dataclass(frozen=True)
class Drawn:
    """What drawing a game's boards did. `complete`: Telegram has every board of the game at
    this version (posted, edited, or showing it already). A board still to post (⭕'s, while
    the pairing posts it) or an edit that failed leaves the game incomplete; a posting that
    got no answer does not (it may well be there, and a board is never posted twice).
    `posted` / `second_posted`: a board posted afresh."""

    complete: bool
    posted: int | None = None
    second_posted: int | None = None


def shows_turn(game: GameView, *, second: bool = False) -> bool:
    """Whether a board of the game is one its player to move sees: between strangers each
    has their own (❌'s in `chat_id`, ⭕'s the `second`), any other board is everyone's."""
    if not game.is_between_strangers:
        return True
    return game.to_move == (O if second else X)


async def turn_shown(hooks: BoardHooks, game: GameView, *, second: bool = False) -> None:
    """Telegram has just answered for a board of the game (⭕'s: `second`) at this version:
    if it shows the player to move their turn, their clock starts now. Only an answer does
    (not a posting in doubt: a clock never runs for a board that may not be there)."""
    if not shows_turn(game, second=second):
        return
    at = datetime.now(UTC)
    try:
        await hooks.turn_seen(game, at)
    except Exception:
        # The database is away, say: the drawing goes on, and the clock starts after its
        # grace (`bot.chores.turn_clock`).
        log.warning("could not start the clock of game %s", game.id, exc_info=True)


def _render(
    hooks: BoardHooks, game: GameView, hint: int | None = None, block: int | None = None
) -> BoardMessage:
    """The board message with the hooks applied, which are told of it (the first board of a
    game between strangers is ❌'s)."""
    board = render_game(game, hint, block, X if game.is_between_strangers else None)
    hooks.shown(game)
    return BoardMessage(board.text, hooks.keyboard(board.keyboard, game))


async def send_board(
    bot: Bot,
    chat_id: int,
    game: GameView,
    *,
    hooks: BoardHooks,
    reply_to: int | None = None,
    pace: Pace = Pace.PERSON,
) -> int | None:
    """Post a new board message for the game; returns its message id, or None when Telegram's
    answer was lost (the board may be there: it is not posted twice)."""
    board = _render(hooks, game)
    try:
        return await send_text(
            bot, chat_id, board.text, board.keyboard, reply_to=reply_to, pace=pace
        )
    except OutcomeUnknown:
        log.info(
            "board of game %s: posted with no answer; the next tap on it will show it", game.id
        )
        return None


def _second_missing(game: GameView) -> bool:
    """Whether a game between strangers has no second board yet (its pairing posts it)."""
    return game.second_chat_id is not None and game.second_message_id is None


async def show_board(
    bot: Bot,
    game: GameView,
    *,
    hooks: BoardHooks,
    pace: Pace = Pace.PERSON,
    hint: int | None = None,
    block: int | None = None,
    post_missing: bool = False,
    only_chat: int | None = None,
) -> Drawn:
    """Show the game's current state on its board messages. A running game whose chat board
    is gone (deleted by a user) continues on a fresh one; with `post_missing`, a board never
    posted is posted (the board catch-up decides: only for a game whose posting never went
    out, once the posting had time to). The edited board lights a `hint` cell; ultimate's shows
    the small board `block` chosen. Raises `FrameSkipped` for a `Pace.FRAME` that Telegram's
    flood limits have no room for now. With `only_chat`, only the board in that chat is
    drawn (the others show this version already)."""
    live = game.is_live
    second: Drawn = Drawn(complete=not _second_missing(game))
    if only_chat is not None and only_chat != game.second_chat_id:
        pass  # ⭕'s board (if any) is not the one asked for: left as it is
    elif game.second_message_id is not None:
        # Before the first board: ⭕ sees a move no later than ❌.
        second = Drawn(complete=await _show_second(bot, game, hooks, pace))
    elif post_missing and live and _second_missing(game):
        posted = await send_second_board(bot, game, hooks)
        # Posted, or no answer came: then it may well be there, and it is never posted twice.
        second = Drawn(complete=True, second_posted=posted)
        if posted is not None:
            await turn_shown(hooks, game, second=True)
    if only_chat is not None and only_chat != game.chat_id:
        return second
    if game.inline_message_id is not None:
        where: dict[str, Any] = {"inline_message_id": game.inline_message_id}
    elif game.chat_id is not None and game.message_id is not None:
        where = {"chat_id": game.chat_id, "message_id": game.message_id}
    elif post_missing and game.chat_id is not None and live:
        return await _post_first(bot, game, second, hooks, pace)
    else:
        # A board not known yet: still being posted, or posted with no answer (it may well be
        # there: never posted twice; a tap on it says which message it is), or a closed game's
        # (closed while it was being posted). Nothing to update now.
        return replace(second, complete=False)
    board = _render(hooks, game, hint, block)
    return await _edit_first(bot, game, board, where, second, hooks, pace)


async def _edit_first(
    bot: Bot,
    game: GameView,
    board: BoardMessage,
    where: dict[str, Any],
    second: Drawn,
    hooks: BoardHooks,
    pace: Pace,
) -> Drawn:
    """Edit the game's first board (`where`) to `board`: `second` (what ⭕'s board's drawing
    came to), with the first board posted afresh if it was gone."""
    try:
        await edit_text(bot, board.text, board.keyboard, where=where, pace=pace)
    except Forbidden as error:
        # Its person blocked the bot (or it left the group): drawn when they are back
        # (`bot.handlers.groups.chat_events`), as ⭕'s is. Left behind, the board catch-up
        # would draw the other board again, which shows this already.
        log.warning("board of game %s: %s", game.id, error)
        return second
    except BadRequest as error:
        text = str(error).lower()
        if "not modified" in text:
            await turn_shown(hooks, game)  # already showing this state (a retried update)
            return second
        if "not found" in text and game.chat_id is not None and game.is_live:
            log.info("board message of game %s is gone; posting a fresh one", game.id)
            return await _post_first(bot, game, second, hooks, pace)
        raise
    await turn_shown(hooks, game)
    return second


async def _post_first(
    bot: Bot, game: GameView, drawn: Drawn, hooks: BoardHooks, pace: Pace
) -> Drawn:
    """Post the game's first board afresh in its chat: `drawn` with it posted (None: the
    posting got no answer)."""
    assert game.chat_id is not None
    posted = await send_board(bot, game.chat_id, game, hooks=hooks, pace=pace)
    if posted is not None:
        await turn_shown(hooks, game)
    return replace(drawn, posted=posted)


def second_view(game: GameView) -> GameView:
    """A game between strangers as its second board shows it: in ⭕'s language."""
    return replace(game, language=game.second_language)


async def send_second_board(bot: Bot, game: GameView, hooks: BoardHooks) -> int | None:
    """Post the second board of a game between strangers, in ⭕'s private chat."""
    assert game.second_chat_id is not None
    return await send_board(bot, game.second_chat_id, second_view(game), hooks=hooks)


async def _show_second(bot: Bot, game: GameView, hooks: BoardHooks, pace: Pace) -> bool:
    """Edit ⭕'s board of a game between strangers; whether Telegram has it now (or there
    is nothing more to draw). A failure here (⭕ blocked the bot, deleted the board) must not
    keep ❌'s board from showing the move: it is logged, and ⭕'s board stays behind (a block
    ends the game, which draws both again)."""
    board = render_game(second_view(game), seat=O)
    keyboard = hooks.keyboard(board.keyboard, game)
    try:
        where = {"chat_id": game.second_chat_id, "message_id": game.second_message_id}
        await edit_text(bot, board.text, keyboard, where=where, pace=pace)
    except BadRequest as error:
        if "not modified" in str(error).lower():
            await turn_shown(hooks, game, second=True)
            return True
        log.warning("second board of game %s: %s", game.id, error)
        return "not found" in str(error).lower()  # deleted by ⭕: nothing more to draw
    except TelegramError as error:
        log.warning("second board of game %s: %s", game.id, error)
        return isinstance(error, Forbidden)  # blocked: the block ends the game
    # ⭕'s clock, if it is his turn, starts before ❌'s board is drawn.
    await turn_shown(hooks, game, second=True)
    return True
