"""Boards catch up with their games, whatever crashes: the running side of the board outbox
(`bot.games.db.outbox` has the database side).

The presenter tells of every game whose boards Telegram has, all of them, at a version
(`delivered`, a `bot.chat.boards.BoardHooks` hook). Shown boards are marked in the database
in batches, which let go of the presenter's claims on them (a mark lost in a crash costs one
needless redraw, never a frozen board). A background round (`every` seconds, on every
instance) reads the games whose board is behind and that no other live process draws, and
draws those that stayed behind at the same version for `grace` seconds and that the presenter
is not drawing already: the edit a crash lost, an edit Telegram refused for a while (5xx past
every retry), the board of a game whose posting never went out (`post_grace`: a `/start`
waiting for a busy group's pace, or a pairing posting ⭕'s board, must not get a second one;
but not once the posting's claim lapsed, `Presenter.post`: its poster died), or one whose
posting got no answer, once its game moved on (its player would otherwise watch a board that
never changes).
A tap on a board that is behind redraws it too (`needs_redraw`).

Drawing here is background work (`Pace.BACKGROUND`): people's boards go first.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from datetime import datetime, timedelta

from telegram.error import BadRequest, Forbidden, TelegramError

from bot.chat.presenter import Presenter
from bot.chores.rounds import Rounds
from bot.games.db.models import utcnow
from bot.games.db.outbox import BoardOutbox, Shown, is_behind
from bot.games.model import GameView
from bot.telegram.flood_gate import Pace
from bot.telemetry.metrics import Metrics

log = logging.getLogger(__name__)

#: Seconds between rounds (BOARD_CATCH_UP_SECONDS); a board is drawn once its game has been
#: still for GRACE rounds, a board never posted for POST_GRACE rounds (its `/start` may still
#: be waiting for a busy group's pace; GRACE rounds once its poster's claim lapsed). Counted
#: from the game's stored `updated_at`, so a restart waits no grace again: a board catches up
#: within GRACE + 1 rounds of its change, and within the claim of a dead process
#: (`outbox.CLAIM_SECONDS`) + 1 round of a restart.
EVERY_SECONDS = 2.5
GRACE = 2.0
POST_GRACE = 12.0
#: A tap redraws a board behind its game only once the game has been still this long (at
#: most; BOARD_TAP_REDRAW_SECONDS): before, another instance's edit may be waiting for a busy
#: group's pace.
TAP_REDRAW_AFTER_SECONDS = 6.0
#: How long shown boards gather before their marks are written (one statement for all): at
#: 0.05 s a busy bot wrote one for every tap or two; a mark lost in a crash costs one redraw
#: that changes nothing.
MARK_DELAY_SECONDS = 0.5


class BoardCatchUp:
    """Marks drawn boards, and draws the boards left behind."""

    def __init__(
        self,
        outbox: BoardOutbox,
        presenter: Presenter,
        *,
        every: float = EVERY_SECONDS,
        tap_redraw_after: float = TAP_REDRAW_AFTER_SECONDS,
        metrics: Metrics | None = None,
    ) -> None:
        self._outbox, self._presenter = outbox, presenter
        #: Told how many boards are behind, each round, and of each redraw (None: not).
        self._metrics = metrics
        self._tap_redraw_after = tap_redraw_after
        self._every, self._grace, self._post_grace = every, GRACE * every, POST_GRACE * every
        self._marks: dict[int, int] = {}
        self._writing: dict[int, int] = {}
        self._marking: asyncio.Task[None] | None = None
        self._rounds = Rounds("board catch-up", self.catch_up, every)

    # --- the boards' hooks -------------------------------------------------------------------

    def delivered(self, game: GameView) -> None:
        """Telegram has the board at this version: mark it, with the others of the moment."""
        if game.version <= game.shown_version:
            return  # read as shown already (a redraw of a board that was up to date)
        self._marks[game.id] = max(game.version, self._marks.get(game.id, 0))
        if self._marking is None or self._marking.done():
            self._marking = asyncio.create_task(self._write_marks(), name="board marks")

    def needs_redraw(self, game: GameView, now: datetime | None = None) -> bool:
        """Whether a tap on the game's board should redraw it: the database says it is behind,
        no drawing of this process is on its way, and the game has been still long enough
        for another instance's to have come (a crash lost it)."""
        if not is_behind(game) or self._presenter.is_drawing(game.id):
            return False
        still = min(self._grace, self._tap_redraw_after)
        changed = game.updated_at
        return changed is None or (now or utcnow()) - changed >= timedelta(seconds=still)

    # --- marks -------------------------------------------------------------------------------

    async def _write_marks(self) -> None:
        await asyncio.sleep(MARK_DELAY_SECONDS)
        marks, self._marks = self._marks, {}
        self._writing = marks
        try:
            await self._outbox.mark_shown(self._shown(marks))
        except Exception:
            # The database is away: a round redraws those boards later ("not modified").
            log.warning("could not mark %d boards as shown", len(marks), exc_info=True)
        finally:
            self._writing = {}

    def _marked_soon(self, game_id: int, version: int) -> bool:
        """Whether this process delivered the board at `version` and its mark is on its way
        (gathered, or being written): the board is not behind, whatever the row says yet."""
        return max(self._marks.get(game_id, 0), self._writing.get(game_id, 0)) >= version

    def _shown(self, marks: dict[int, int]) -> list[Shown]:
        """The marks to write; a board the presenter draws again now keeps its claim."""
        return [
            Shown(game_id, version, release=not self._presenter.is_drawing(game_id))
            for game_id, version in marks.items()
        ]

    async def flush(self) -> None:
        """Write the marks gathered so far (at shutdown, and in tests)."""
        if self._marking is not None:
            await self._marking
        if self._marks:
            marks, self._marks = self._marks, {}
            await self._outbox.mark_shown(self._shown(marks))

    # --- rounds ------------------------------------------------------------------------------

    def start(self) -> None:
        self._rounds.start()

    async def stop(self) -> None:
        await self._rounds.stop()
        with contextlib.suppress(Exception):
            await self.flush()

    async def catch_up(self, now: datetime | None = None) -> int:
        """One round: draw the boards that stayed behind long enough. Returns how many."""
        now = now or utcnow()
        drawn = 0
        left_behind = await self._outbox.behind(now=now)
        if self._metrics is not None:
            self._metrics.boards_behind.set(len(left_behind))
        for game_id, behind in left_behind.items():
            still = (now - behind.changed_at).total_seconds() if behind.changed_at else math.inf
            if self._presenter.is_drawing(game_id) or still < self._grace:
                continue
            if self._marked_soon(game_id, behind.version):
                continue
            game = await self._outbox.game(game_id)
            if game is None or game.version != behind.version:
                continue  # deleted, or moved on: a later round sees it again
            unposted = (game.message_id is None and game.inline_message_id is None) or (
                game.second_chat_id is not None and game.second_message_id is None
            )
            waiting = unposted and game.shown_version == 0 and still < self._post_grace
            # Never shown: its posting may still be waiting for its chat's pace, unless its
            # poster's claim lapsed (the posting died with its process).
            if waiting and not (behind.abandoned and game.message_id is None):
                continue
            # A posting that went out with no answer (shown once) is posted again, once the
            # game moved on: a board its player sees that never changes is worse than a second
            # board (a tap on the first says which message it is: `attach_tapped`).
            drawn += await self._draw(game)
        if self._metrics is not None and drawn:
            self._metrics.catch_up_redraws.inc(drawn)
        return drawn

    async def _draw(self, game: GameView) -> int:
        """Draw one board left behind; a board Telegram refuses for good is given up."""
        if game.message_id is None and game.inline_message_id is None and not game.is_live:
            # Closed while its board was being posted, and the posting never recorded: there
            # is no board to draw.
            await self._outbox.mark_shown([Shown(game.id, game.version)])
            return 0
        log.info(
            "board of game %s shows an older version: drawing version %s", game.id, game.version
        )
        try:
            await self._presenter.show(
                game, pace=Pace.BACKGROUND, ai=False, post_missing=True, again=True
            )
        except (BadRequest, Forbidden) as error:
            # Refused for good: the board is no longer waiting.
            log.warning("board of game %s cannot be drawn (%s); given up", game.id, error)
            await self._outbox.mark_shown([Shown(game.id, game.version)])
        except TelegramError as error:
            log.info("board of game %s not drawn now (%s); next round", game.id, error)
            return 0
        # Drawn, it is marked as Telegram answers (the presenter's `delivered`).
        return 1
