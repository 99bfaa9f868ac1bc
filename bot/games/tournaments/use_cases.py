"""Tournaments in a group: sign-up (`/tournament`, Join, Leave), the organiser's Start and
Cancel (or End, once running), and the rounds moving on as their games end. Each use-case is
one transaction; the rules (pairings, standings) are `tournament_rules`, the rows
`bot.games.db.rows.tournaments`.

A round's games are ordinary group games between two people, created as every game is
(`lifecycle.new_game`, `store.insert`) in the transaction that pairs the round, on the
tournament's time control (`clock_rules.with_clock`: the turn clock flags a player who stops
moving, so one absent player holds a round up for one clock at most): their boards, moves,
clocks, endings and ratings are the games layer's as for any group game. A game ends
only the one way every game does (`endings`); the tournament hears of it afterwards:
`advance` reads which of the round's games are over, copies their results, and pairs the next
round once the last is decided. It works from the database alone, so whichever instance runs
it, and however late (after a restart), the tournament goes on from where it is.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from enum import StrEnum

from bot.games.db import store
from bot.games.db.models import utcnow
from bot.games.db.reads import Db
from bot.games.db.rows import players as player_rows
from bot.games.db.rows import tournaments as rows
from bot.games.db.store import LOST_RACE, Store
from bot.games.db.writes import CoreTransaction
from bot.games.model import USER, BoardRef, GameView, MoveResult, PlayerInfo
from bot.games.play import clock_rules, lifecycle
from bot.games.play.clock_rules import DEFAULT_CLOCK, Clock
from bot.games.play.resigning import Resigning
from bot.games.strangers.pairing import board_of_key
from bot.games.tournaments.rules import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    Format,
    TournamentStatus,
    TournamentView,
    choose_format,
    pair_round,
    rounds_for,
)

#: A sign-up nobody starts lapses after this long.
SIGNUP_LAPSE = timedelta(days=1)


class Refusal(StrEnum):
    """Why a tournament's command or button did nothing."""

    NO_TOURNAMENT = "no_tournament"  # gone, or never was
    UNDERWAY = "underway"  # the chat has a tournament in sign-up or running already
    NOT_ORGANISER = "not_organiser"
    TOO_FEW = "too_few"
    JOINED_ALREADY = "joined_already"
    NOT_JOINED = "not_joined"
    FULL = "full"
    STARTED = "started"  # sign-up is over
    OVER = "over"
    CONFLICT = "conflict"  # someone else changed it at the same moment: try again


@dataclass(frozen=True)
class Outcome:
    """What a use-case did: the tournament as it is now (what its message shows), or why
    nothing was done; the games it started (their boards to post); the game a player who
    left resigned."""

    tournament: TournamentView | None
    refusal: Refusal | None = None
    games: tuple[GameView, ...] = ()
    resigned: MoveResult | None = None

    @property
    def done(self) -> bool:
        return self.refusal is None and self.tournament is not None


class Tournaments:
    def __init__(self, games: Store, resigning: Resigning, clock: Clock = DEFAULT_CLOCK) -> None:
        self._store = games
        self._resigning = resigning
        self._clock = clock  # the bot's stranger clock: a tournament's unless it asks another

    async def get(self, tournament_id: int) -> TournamentView | None:
        async with self._store.sessions() as session:
            return await rows.load(session, tournament_id)

    async def running(self) -> list[int]:
        async with self._store.sessions() as session:
            return await rows.running(session)

    async def open(
        self,
        chat_id: int,
        organiser: PlayerInfo,
        board: str,
        fmt: Format | None,
        clock: Clock | None = None,
    ) -> Outcome:
        """`/tournament`: sign-up opens, with the organiser as its first player; its games on
        `clock` (None: the bot's stranger clock)."""
        now = utcnow()
        async with self._store.transaction() as session:
            busy = await rows.underway_in_chat(session, chat_id)
            if busy is not None:
                return Outcome(await rows.load(session, busy), Refusal.UNDERWAY)
            stored = await player_rows.upsert_player(session, organiser)
            control = clock or self._clock
            tournament_id = await rows.insert(session, chat_id, stored, board, fmt, control, now)
            await rows.add_entrant(session, tournament_id, stored, now)
            return Outcome(await rows.load(session, tournament_id))

    async def attach_message(self, tournament_id: int, message_id: int) -> None:
        async with self._store.transaction() as session:
            await rows.attach_message(session, tournament_id, message_id)

    async def join(self, tournament_id: int, chat_id: int, user: PlayerInfo) -> Outcome:
        now = utcnow()
        try:
            async with self._store.transaction() as session:
                view = await _in_chat(session, tournament_id, chat_id)
                refusal = _signup_refusal(view)
                if view is None or refusal is not None:
                    return Outcome(view, refusal)
                if view.entrant(user.id) is not None:
                    return Outcome(view, Refusal.JOINED_ALREADY)
                if len(view.entrants) >= MAX_PLAYERS:
                    return Outcome(view, Refusal.FULL)
                player = await player_rows.upsert_player(session, user)
                await rows.add_entrant(session, view.id, player, now)
                return Outcome(await rows.load(session, view.id))
        except LOST_RACE:  # the same person's second tap, at the same moment
            return Outcome(await self.get(tournament_id), Refusal.CONFLICT)

    async def leave(self, tournament_id: int, chat_id: int, user: PlayerInfo) -> Outcome:
        """Leave the sign-up; or, once running, withdraw: the player's game underway is
        resigned (the normal resign), and what is left of their pairings is forfeited."""
        async with self._store.transaction() as session:
            view = await _in_chat(session, tournament_id, chat_id)
            if view is None:
                return Outcome(None, Refusal.NO_TOURNAMENT)
            entrant = view.entrant(user.id)
            if not (view.is_signup or view.is_running):
                return Outcome(view, Refusal.OVER)
            if entrant is None or entrant.withdrawn:
                return Outcome(view, Refusal.NOT_JOINED)
            if view.is_signup:
                await rows.remove_entrant(session, view.id, user.id)
            else:
                await rows.withdraw(session, view.id, user.id)
            pairing = view.open_pairing_of(user.id) if view.is_running else None
            after = await rows.load(session, view.id)
        resigned = None
        if pairing is not None and pairing.game_id is not None:
            ref = BoardRef(chat_id=view.chat_id)
            resigned = await self._resigning.resign(pairing.game_id, ref, user)
        return Outcome(after, resigned=resigned)

    async def start(self, tournament_id: int, chat_id: int, user: PlayerInfo) -> Outcome:
        """The organiser starts: the format (if none was asked for) by the number of players,
        and round 1 paired, its games started."""
        now = utcnow()
        try:
            async with self._store.transaction() as session:
                view = await _in_chat(session, tournament_id, chat_id)
                refusal = _signup_refusal(view)
                if view is not None and refusal is None:
                    refusal = _organiser_refusal(view, user)
                if view is None or refusal is not None:
                    return Outcome(view, refusal)
                if len(view.entrants) < MIN_PLAYERS:
                    return Outcome(view, Refusal.TOO_FEW)
                fmt = view.format or choose_format(len(view.entrants))
                rounds = rounds_for(fmt, len(view.entrants))
                status = TournamentStatus.RUNNING
                await rows.change(session, view, now, status=status, format=fmt, rounds=rounds)
                return await self._next_rounds(session, tournament_id)
        except LOST_RACE:
            return Outcome(await self.get(tournament_id), Refusal.CONFLICT)

    async def cancel(self, tournament_id: int, chat_id: int, user: PlayerInfo) -> Outcome:
        """The organiser cancels the sign-up, or ends a running tournament early: the
        standings are final as they are (games still on play on, outside it)."""
        now = utcnow()
        try:
            async with self._store.transaction() as session:
                view = await _in_chat(session, tournament_id, chat_id)
                if view is None:
                    return Outcome(None, Refusal.NO_TOURNAMENT)
                if not (view.is_signup or view.is_running):
                    return Outcome(view, Refusal.OVER)
                refusal = _organiser_refusal(view, user)
                if refusal is not None:
                    return Outcome(view, refusal)
                status = TournamentStatus.CANCELLED if view.is_signup else TournamentStatus.FINISHED
                await rows.change(session, view, now, status=status)
                return Outcome(await rows.load(session, tournament_id))
        except LOST_RACE:
            return Outcome(await self.get(tournament_id), Refusal.CONFLICT)

    async def lapse(self, now: datetime) -> list[TournamentView]:
        """Sign-ups open longer than `SIGNUP_LAPSE` that nobody started are cancelled (one
        left alone would hold its chat): as they are now."""
        async with self._store.transaction() as session:
            lapsed = await rows.lapse(session, now - SIGNUP_LAPSE, now)
            views = [await rows.load(session, tournament_id) for tournament_id in lapsed]
        return [view for view in views if view is not None]

    async def advance(self, tournament_id: int) -> Outcome | None:
        """The round's games that ended since: their results copied; once the round is all
        decided, the next one paired and its games started, or after the last round the
        tournament finished. None: nothing changed (a game is still being played, or another
        instance did it first)."""
        async with self._store.sessions() as session:
            view = await rows.load(session, tournament_id)
            if view is None or not view.is_running:
                return None
            ended = await rows.endings(session, view.current)
        if not ended and view.games_left > 0:
            return None
        try:
            async with self._store.transaction() as transaction:
                view = await rows.load(transaction, tournament_id)
                if view is None or not view.is_running:
                    return None
                ended = await rows.endings(transaction, view.current)
                for pairing_id, result in ended.items():
                    await rows.decide(transaction, pairing_id, result)
                return await self._next_rounds(transaction, tournament_id)
        except LOST_RACE:
            return None

    async def _next_rounds(self, session: CoreTransaction, tournament_id: int) -> Outcome:
        """While the round being played is all decided: pair the next one (a round of byes
        and forfeits only is decided at once), or finish after the last."""
        now = utcnow()
        while True:
            view = await rows.load(session, tournament_id)
            assert view is not None
            if view.games_left > 0:
                return Outcome(view)
            assert view.format is not None
            number = view.round + 1
            pairings = None
            if number <= view.rounds:
                pairings = pair_round(
                    view.format, view.seeds, view.withdrawn, view.pairings, number
                )
            if pairings is None:
                await rows.change(session, view, now, status=TournamentStatus.FINISHED)
                return Outcome(await rows.load(session, tournament_id))
            await rows.change(session, view, now, round=number)
            games = []
            for pairing in pairings:
                game = None
                if pairing.result is None and pairing.o is not None:
                    game = await self._new_game(session, view, pairing.x, pairing.o)
                    games.append(game)
                await rows.add_pairing(session, view.id, pairing, game.id if game else None)
            if games:
                return Outcome(await rows.load(session, tournament_id), games=tuple(games))

    async def _new_game(
        self, session: CoreTransaction, view: TournamentView, x: int, o: int
    ) -> GameView:
        """A round's game: an ordinary group game between two people, under way on the
        tournament's clock (if it has one)."""
        x_player = PlayerInfo(x, view.name_of(x), view.language)
        now = utcnow()
        draft = lifecycle.new_game(
            chat_id=view.chat_id,
            board=board_of_key(view.board),
            x_kind=USER,
            o_kind=USER,
            x_player=x_player,
            o_player=PlayerInfo(o, view.name_of(o)),
            creator=x_player,
            now=now,
        )
        draft = replace(draft, tournament_id=view.id)
        if view.clock is not None:
            draft = clock_rules.with_clock(draft, view.clock)
        return (await store.insert(session, draft)).view


async def _in_chat(session: Db, tournament_id: int, chat_id: int) -> TournamentView | None:
    """The tournament a tap names, if it is this chat's (a button's data is not trusted)."""
    view = await rows.load(session, tournament_id)
    return view if view is not None and view.chat_id == chat_id else None


def _signup_refusal(view: TournamentView | None) -> Refusal | None:
    if view is None:
        return Refusal.NO_TOURNAMENT
    if view.is_running:
        return Refusal.STARTED
    return None if view.is_signup else Refusal.OVER


def _organiser_refusal(view: TournamentView, user: PlayerInfo) -> Refusal | None:
    return None if view.organiser_id == user.id else Refusal.NOT_ORGANISER
