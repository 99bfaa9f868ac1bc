"""Showing a game: the one presenter, built at start-up and held by the context.

"AI's quick reply → render → send or edit every board of the game → record a board posted
afresh → tell the Mini App → let the AI follow" is written here once, and handlers, the Mini
App and every background chore (the AI-turns runner, the turn clock, the board catch-up, the
matchmaker) call it. What a running bot adds to its boards (`BoardHooks`: the Mini App's "Open
board" button and live pages, the board outbox's marks) is the presenter's, set once the
resources are open: no module-level registry.

A board tells the truth only if its edits land in order, so the presenter is where they get
it:
- In this process, one drawing of a game at a time, in the order asked, and never a version
  older than one drawn already (`bot.chat.draw_order`).
- Across processes, a claim in the database (`bot.games.db.outbox.BoardOutbox.claim`): one
  process at a time draws a game; one that finds it claimed draws it again a moment later,
  from the game as it is then (the holder may have drawn it already).
- A board is delivered (marked shown, its claim let go) only once Telegram has answered for
  that version, every board of the game. An edit that went unanswered on the way may still
  land after a newer one: the board is in doubt, and is drawn again from the newest game
  once the doubt is over (`doubt_seconds`). An edit that failed leaves the board behind, for
  the board catch-up (`bot.chores.board_catch_up`).
- The board that shows the player to move their turn starts their clock when Telegram
  answers for it (`bot.chat.boards.turn_shown`), not before: a group's pace, a retry or a
  posting in doubt costs nobody time.

Errors of Telegram reach the caller: a handler's go to the error handler (and are logged at
ERROR), a background chore decides for itself whether to try again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Protocol

from telegram import Bot

from bot.chat.boards import (
    NO_HOOKS,
    BoardHooks,
    Drawn,
    send_board,
    send_second_board,
    show_board,
    turn_shown,
)
from bot.chat.draw_order import DrawOrder
from bot.games.chats import Chats
from bot.games.db.engine import StorageError
from bot.games.db.outbox import CLAIM_SECONDS, BoardOutbox, is_behind
from bot.games.model import GameView
from bot.telegram.flood_gate import Pace
from bot.telegram.request import watch_unanswered
from bot.telemetry.log_context import game_scope
from core.board import O

log = logging.getLogger(__name__)

#: Seconds after an unanswered edit before the board is drawn again (BOARD_DOUBT_SECONDS):
#: the unanswered try may still land meanwhile, after a newer edit.
DOUBT_SECONDS = 10.0
#: Seconds before a board found claimed by another process is drawn again (if still behind):
#: the holder lets go with its marks, which are written within half a second.
CLAIMED_RETRY_SECONDS = 0.3
#: Games whose lit hint is remembered (the oldest forgotten first).
LIT_KEPT = 1000


class AiPlayer(Protocol):
    """What the presenter needs of the AI-turns runner (`bot.chores.ai_runner.AiMatchRunner`), which
    shows its own moves through the presenter."""

    async def reply_at_once(self, game: GameView) -> GameView: ...

    def follow(self, game: GameView) -> None: ...


class Presenter:
    def __init__(
        self,
        bot: Bot,
        chats: Chats,
        outbox: BoardOutbox,
        hooks: BoardHooks = NO_HOOKS,
        *,
        doubt_seconds: float = DOUBT_SECONDS,
        claim_seconds: float = CLAIM_SECONDS,
        claimed_retry_seconds: float = CLAIMED_RETRY_SECONDS,
    ) -> None:
        self._bot = bot
        self._chats = chats
        self._outbox = outbox
        #: What the running bot adds to every board (set once the Mini App is open).
        self.hooks = hooks
        #: The AI-turns runner, which shows its own moves through this presenter.
        self.ai: AiPlayer | None = None
        self._doubt_seconds = doubt_seconds
        self._claim_seconds = claim_seconds
        self._claimed_retry_seconds = claimed_retry_seconds
        #: The order of this process's drawings (`bot.chat.draw_order`).
        self.order = DrawOrder()
        #: Games whose last drawing here lit a hint: (version, cell). A hint asked again of
        #: the same position is on the board already ("not modified", were it drawn again).
        self._lit: OrderedDict[int, tuple[int, int]] = OrderedDict()

    def is_drawing(self, game_id: int) -> bool:
        """Whether this process draws the game's boards now, or will shortly (a redraw after
        a doubt or a claim): the board catch-up leaves such a board alone."""
        return self.order.is_drawing(game_id)

    # --- showing -----------------------------------------------------------------------------

    async def show(
        self,
        game: GameView,
        *,
        hint: int | None = None,
        block: int | None = None,
        pace: Pace = Pace.PERSON,
        ai: bool = True,
        post_missing: bool = False,
        again: bool = False,
        only_chat: int | None = None,
    ) -> GameView:
        """Show the game's new state on its boards (a `hint` cell lit; on ultimate's, the
        small board `block` chosen), after the AI's quick reply (so both moves come in one
        edit); record a board that had to be posted afresh; let the AI play its turns if it
        is to move. `ai=False` for the AI-turns runner itself and the chores that only
        redraw; `post_missing` for the board catch-up (⭕'s board never posted). Returns the
        game as shown.

        An ending is drawn once: its listener (`bot.listeners.ended_boards`) and the handler
        or chore that ended it may both ask, and the second finds it shown. `again` draws a
        version shown already all the same (a board in doubt, one found behind or unknown);
        `only_chat` only the board in that chat (one its person could not be shown while
        they had blocked the bot)."""
        with game_scope(game.id):  # what is logged meanwhile is about this game
            if ai and self.ai is not None:
                game = await self.ai.reply_at_once(game)
            try:
                async with self.order.in_order(game.id, game.version):
                    if self.order.is_older(game) or self.order.is_superseded(game):
                        return game
                    if not again and not game.is_live and self._drawn_already(game):
                        return game
                    if not again and hint is not None and self._lit_already(game, hint):
                        return game
                    game = await self._draw(game, pace, hint, block, post_missing, only_chat)
            finally:  # a board Telegram refused does not keep the AI from its turn
                if ai and self.ai is not None:
                    self.ai.follow(game)
            return game

    async def _draw(
        self,
        game: GameView,
        pace: Pace,
        hint: int | None,
        block: int | None,
        post_missing: bool,
        only_chat: int | None = None,
    ) -> GameView:
        """Draw the game's boards under this process's claim, the newest version there is."""
        try:
            stored_version = await self._outbox.claim(game.id, self._claim_seconds)
        except StorageError:
            # The database is away: draw what we have (the board tells more than nothing).
            log.warning("could not claim the board of game %s; drawing it all the same", game.id)
            stored_version = game.version
        if stored_version is None:
            if await self._outbox.game(game.id) is not None:
                # Another process draws it: look again in a moment.
                self.order.later(game.id, self._claimed_retry_seconds, self.redraw)
                return game
            # Gone (/forget deletes games): its boards say so, and nobody else draws them.
            stored_version = game.version
        if stored_version > game.version and game.is_live:
            # Somebody moved since this view was read: draw the game as it is now. (A view
            # of an ending is drawn as given.)
            newer = await self._outbox.game(game.id)
            if newer is not None:
                game, hint, block = newer, None, None
        self.order.showing(game)
        with watch_unanswered() as unanswered:
            async with claim_kept(self._outbox, game.id, self._claim_seconds):
                drawn = await show_board(
                    self._bot,
                    game,
                    hooks=self.hooks,
                    pace=pace,
                    hint=hint,
                    block=block,
                    post_missing=post_missing,
                    only_chat=only_chat,
                )
        game = await self._record(game, drawn)
        if unanswered:
            log.info(
                "board of game %s: an edit went unanswered (%s); drawn again in %gs",
                game.id,
                ", ".join(unanswered.endpoints),
                self._doubt_seconds,
            )
            self.order.doubt(game, self._doubt_seconds)
        doubt = self.order.doubt_left(game.id)
        if doubt is not None and doubt > 0:
            # Not delivered: the late edit may still land. Drawn again once it cannot.
            self.order.later(game.id, doubt, self.redraw)
        elif drawn.complete:
            self.order.settle(game.id)
            self._delivered(game)
            self._light(game, hint)
        return game

    def _lit_already(self, game: GameView, hint: int) -> bool:
        """Whether this process's last drawing of the game, delivered, lit this very hint."""
        return self._lit.get(game.id) == (game.version, hint) and self.order.has_delivered(game)

    def _light(self, game: GameView, hint: int | None) -> None:
        """Remember the hint the game's delivered drawing lit (or that it lit none)."""
        self._lit.pop(game.id, None)
        if hint is not None:
            self._lit[game.id] = (game.version, hint)
            while len(self._lit) > LIT_KEPT:
                self._lit.popitem(last=False)

    def _drawn_already(self, game: GameView) -> bool:
        """An ending this process has drawn: delivered, or drawn and in doubt (an edit went
        unanswered: the redraw after the doubt settles it, `redraw`; drawn again now, it
        would most likely be refused as "not modified")."""
        if self.order.has_delivered(game):
            return True
        return self.order.has_shown(game) and self.order.doubt_left(game.id) is not None

    def _delivered(self, game: GameView) -> None:
        """This version is on every board: so this process's order knows, and the hooks."""
        self.order.delivered(game)
        self.hooks.delivered(game)

    async def _record(self, game: GameView, drawn: Drawn) -> GameView:
        """Record the boards posted afresh."""
        if drawn.posted is not None:
            await self._chats.attach_message(game.id, drawn.posted)
            game = replace(game, message_id=drawn.posted)
        if drawn.second_posted is not None:
            await self._chats.attach_message(game.id, drawn.second_posted, second=True)
            game = replace(game, second_message_id=drawn.second_posted)
        return game

    async def redraw(self, game_id: int, *, pace: Pace = Pace.BACKGROUND) -> None:
        """Draw a game's boards again from the game as stored now, if they are behind it (or
        in doubt: an edit of this process went unanswered)."""
        game = await self._outbox.game(game_id)
        if game is None:
            self.order.settle(game_id)
            return
        doubt = self.order.doubt_left(game_id)
        if doubt is not None and doubt <= 0 and self.order.doubt_was_needless(game):
            # Nothing was drawn after the unanswered edit: however late it landed, the board
            # shows this version. No edit needed.
            self.order.settle(game_id)
            self._delivered(game)
            # Every board shows it by now, the player to move's too: their clock starts.
            await turn_shown(self.hooks, game, second=game.to_move == O)
            return
        if not is_behind(game) and doubt is None:
            return  # marked shown since (by the holder of the claim): nothing to draw
        await self.show(game, pace=pace, ai=False, again=True)

    async def stop(self) -> None:
        """Forget the redraws still waiting, and end those under way (at shutdown)."""
        await self.order.stop()

    # --- posting -----------------------------------------------------------------------------

    async def post(
        self, chat_id: int, game: GameView, *, pace: Pace = Pace.PERSON, ai: bool = True
    ) -> GameView:
        """Post a new game's board in a chat, record where it is, and let the AI start (a
        quick first move is on the board as it is posted)."""
        if ai and self.ai is not None:
            game = await self.ai.reply_at_once(game)
        try:
            # In the game's drawing order, and claimed (`posting_claimed`): no catch-up posts
            # it again while it waits for its chat's pace, and one soon does if this dies.
            claim = posting_claimed(self._outbox, game, self._claim_seconds)
            async with self.order.in_order(game.id), claim:
                message_id = await send_board(self._bot, chat_id, game, hooks=self.hooks, pace=pace)
                if message_id is not None:
                    # None: the answer was lost; the next tap on it (or the catch-up) records it.
                    await turn_shown(self.hooks, game)
                    await self._chats.attach_message(game.id, message_id)
                    game = replace(game, message_id=message_id)
            if game.second_chat_id is None:
                # Posted, or maybe (never twice): either way not a board still to draw.
                self._delivered(game)
        finally:
            if ai and self.ai is not None:
                self.ai.follow(game)
        return game

    async def post_second(self, game: GameView) -> GameView:
        """Post the second board of a game between strangers, in ⭕'s private chat, drawn from
        the game as it is when posted: ❌ may move while it waits for ⭕'s pace (not under the
        game's drawing order, so ❌'s moves are not held up by ⭕'s chat). If ❌ moved
        meanwhile, both boards are then drawn again from the newest game."""
        newest = await self._outbox.game(game.id) or game
        if newest.second_message_id is not None:
            return newest  # posted meanwhile (the board catch-up)
        posted = await send_second_board(self._bot, newest, self.hooks)
        if posted is not None:
            await turn_shown(self.hooks, newest, second=True)  # ❌ may have moved meanwhile
            await self._chats.attach_message(game.id, posted, second=True)
        # With no answer, it may well be there: posted all the same (never posted twice; a
        # tap on it says which message it is). So is ❌'s board, posted before this one.
        now = await self._outbox.game(game.id)
        if now is None:
            return replace(newest, second_message_id=posted)
        if now.version == newest.version == game.version:
            # Both boards show the game as paired, and nobody moved since.
            self._delivered(now)
            return now
        if posted is None:
            # Both boards went out at the version paired, at least: shown once, which the
            # board catch-up reads as posted (it posts only a board never shown).
            self._delivered(game)
        return await self.show(now, ai=False)


@contextlib.asynccontextmanager
async def claim_kept(outbox: BoardOutbox, game_id: int, seconds: float) -> AsyncIterator[None]:
    """Renew the claim on a game while its drawing lasts (a busy group's pace, retries
    after 5xx): the lease is short, so that a process that died is soon replaced. A
    timer, not a task: almost every drawing is over long before it."""
    loop = asyncio.get_running_loop()
    renewals: list[asyncio.Task[None]] = []

    async def renew() -> None:
        with contextlib.suppress(StorageError):
            await outbox.claim(game_id, seconds)

    timers: list[asyncio.TimerHandle] = []

    def due() -> None:
        renewals.append(asyncio.create_task(renew(), name="board claim"))
        timers.append(loop.call_later(seconds / 3, due))

    timers.append(loop.call_later(seconds / 3, due))
    try:
        yield
    finally:
        timers[-1].cancel()
        for renewal in renewals:
            renewal.cancel()
        await asyncio.gather(*renewals, return_exceptions=True)


@contextlib.asynccontextmanager
async def posting_claimed(
    outbox: BoardOutbox, game: GameView, seconds: float
) -> AsyncIterator[None]:
    """Claim a new game's drawing while its board is posted, and keep the claim (as long as
    the chat's pace holds the posting back): no instance's catch-up posts a board another
    live process claimed, and a claim its holder stopped renewing (a process killed while
    it posted) tells the catch-up that the posting died with it, so the board is posted
    within the claim and a round, not after the grace a posting nobody claimed gets (issue
    50: 30 s). Its mark, once delivered, lets go of it. Not for a game between strangers:
    ⭕'s board is posted afterwards, outside the game's drawing order (`post_second`), and a
    claim kept till then would hold up the drawing of moves heard by another instance."""
    if game.second_chat_id is not None:
        yield
        return
    with contextlib.suppress(StorageError):
        await outbox.claim(game.id, seconds)
    async with claim_kept(outbox, game.id, seconds):
        yield
