"""Tournaments move on, on every instance: when a game in a group ends (the store's ending
event, `GameEnded`) and every few seconds besides, each running tournament is
advanced (`Tournaments.advance`): the results of its round's games that ended are copied,
and once the round is decided the next is paired and its boards posted, or the winner shown.
All of it is read from the database, so a restart, a lost event or another instance loses
nothing: the next round here picks up what is due. The first round after start-up redraws
every running tournament's message (an edit a crash lost). A sign-up nobody started for a day
lapses (cancelled), so that its chat can hold another. What changed is shown in a task a
tournament, so that one group's pace holds up no other group's tournament."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from functools import partial
from typing import Any

from telegram import Bot

from bot.chat.presenter import Presenter
from bot.chat.tournament import show_tournament
from bot.chores.rounds import Rounds
from bot.games.db.models import utcnow
from bot.games.db.store import Store
from bot.games.events import GameEnded
from bot.games.tournaments.use_cases import Tournaments
from bot.telegram.flood_gate import Pace

log = logging.getLogger(__name__)

#: Seconds between rounds when no ending wakes it sooner.
EVERY_SECONDS = 5.0


class TournamentRounds:
    def __init__(
        self,
        tournaments: Tournaments,
        store: Store,
        presenter: Presenter,
        bot: Bot,
        every: float = EVERY_SECONDS,
    ) -> None:
        """The chore, hearing of every game `store` ends from now on (`heard`)."""
        self._tournaments = tournaments
        self._presenter = presenter
        self._bot = bot
        self._rounds = Rounds("tournaments", self.round, every)
        self._redrawn = False
        #: The tournaments whose change is being shown, each by its task.
        self._showing: dict[int, asyncio.Task[None]] = {}
        store.events.subscribe(GameEnded, self.heard)

    async def heard(self, event: GameEnded) -> None:
        """A game ended: a game between two people in a group ended (it may be
        a tournament's): a round comes at once."""
        game = event.game
        if game.chat_id is not None and game.chat_id < 0 and game.is_between_people:
            self._rounds.wake()

    def start(self) -> None:
        self._rounds.start()

    async def stop(self) -> None:
        await self._rounds.stop()
        showing = list(self._showing.values())
        for task in showing:
            task.cancel()
        await asyncio.gather(*showing, return_exceptions=True)

    async def round(self) -> None:
        """Advance every running tournament that has something due, and show what changed;
        the first time, redraw the others' messages too. Sign-ups nobody started for a day
        lapse. A tournament whose last change is still being shown waits for the next round
        (that showing's end brings one)."""
        for lapsed in await self._tournaments.lapse(utcnow()):
            self._show(lapsed.id, show_tournament(self._bot, self._presenter, lapsed))
        for tournament_id in await self._tournaments.running():
            if tournament_id in self._showing:
                continue
            outcome = await self._tournaments.advance(tournament_id)
            if outcome is not None:
                # A result, or the next round: the players wait for it, as for their moves.
                # At the background's pace it waited until the group had four tokens (its own
                # and the three kept for people): 12 s where the games had spent them.
                shown = show_tournament(
                    self._bot, self._presenter, outcome.tournament, outcome.games, pace=Pace.PERSON
                )
                self._show(tournament_id, shown)
            elif not self._redrawn:
                view = await self._tournaments.get(tournament_id)
                self._show(tournament_id, show_tournament(self._bot, self._presenter, view))
        self._redrawn = True

    def _show(self, tournament_id: int, showing: Coroutine[Any, Any, None]) -> None:
        """Show a tournament's change in a task of its own: its message's edit and its new
        boards wait for its group's pace (a round's four boards, 12 s in a busy group), and
        no other group's tournament waits with them. One at a time a tournament, so that its
        message's edits go out in order."""
        task = asyncio.create_task(showing, name=f"tournament {tournament_id} shown")
        self._showing[tournament_id] = task
        task.add_done_callback(partial(self._shown, tournament_id))

    def _shown(self, tournament_id: int, task: asyncio.Task[None]) -> None:
        """A showing is over: a round, for what came meanwhile in its tournament."""
        del self._showing[tournament_id]
        if not task.cancelled() and task.exception() is not None:
            # As a round that failed: the message is drawn again with the next change.
            log.warning("tournament %s: not shown", tournament_id, exc_info=task.exception())
        self._rounds.wake()
