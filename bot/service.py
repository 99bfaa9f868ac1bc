"""Game use-cases: start, challenge, join, move, resign, rematch, timeouts, stats, review.

Each use-case is one database transaction that takes plain values and returns plain values
(a `GameView` and what happened); nothing here knows about Telegram. A game is written back
only if its version is unchanged, so of two concurrent taps exactly one is applied.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from enum import StrEnum

from sqlalchemy import func, or_, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm.exc import StaleDataError

from bot.db.models import Game, Move, Player, utcnow
from core.ai import LEVELS, choose_move
from core.board import EMPTY, Board, MoveError, parse_typed_move
from core.rules import is_over, play, turn, winner
from core.solver import position_score

USER = "user"
HUMAN = "human"  # the opponent kind of a game between two people, in stats
PLAYER_KINDS = (USER, *LEVELS)

OPEN = "open"
ACTIVE = "active"
FINISHED = "finished"
ABANDONED = "abandoned"
CANCELLED = "cancelled"
DECLINED = "declined"

DRAW = "draw"
MARKS = ("X", "O")


def other_mark(mark: str) -> str:
    return "O" if mark == "X" else "X"


@dataclass(frozen=True)
class PlayerInfo:
    """Who sent an update: a Telegram user as plain values."""

    id: int
    name: str
    language_code: str | None = None
    username: str | None = None


@dataclass(frozen=True)
class BoardRef:
    """Where a tap came from: a chat message, or an inline message (any chat)."""

    chat_id: int | None = None
    inline_message_id: str | None = None

    def matches(self, game: Game) -> bool:
        if self.inline_message_id is not None:
            return game.inline_message_id == self.inline_message_id
        return self.chat_id is None or game.chat_id == self.chat_id


@dataclass(frozen=True)
class GameView:
    """A game as the bot shows it: everything rendering needs, no database objects."""

    id: int
    chat_id: int | None
    message_id: int | None
    inline_message_id: str | None
    board: Board
    x_kind: str
    o_kind: str
    x_player_id: int | None
    o_player_id: int | None
    x_name: str | None
    o_name: str | None
    status: str
    result: str | None
    end_reason: str | None
    language: str | None = None
    created_by_id: int | None = None
    invited_player_id: int | None = None
    invited_name: str | None = None
    invited_username: str | None = None
    rematch_of_id: int | None = None
    nudges: int = 0

    @property
    def ply(self) -> int:
        """Moves played so far; callback data carries it to spot stale taps."""
        return _ply(self.board)

    @property
    def is_active(self) -> bool:
        return self.status == ACTIVE

    @property
    def is_open(self) -> bool:
        return self.status == OPEN

    @property
    def is_finished(self) -> bool:
        return self.status == FINISHED

    @property
    def to_move(self) -> str:
        return turn(self.board)

    def kind_of(self, mark: str) -> str:
        return self.x_kind if mark == "X" else self.o_kind

    def player_id_of(self, mark: str) -> int | None:
        return self.x_player_id if mark == "X" else self.o_player_id

    def name_of(self, mark: str) -> str | None:
        return self.x_name if mark == "X" else self.o_name

    def mark_of(self, user_id: int) -> str | None:
        """The side a user plays (X on one phone, where they play both)."""
        for mark in MARKS:
            if self.kind_of(mark) == USER and self.player_id_of(mark) == user_id:
                return mark
        return None

    @property
    def is_ai_match(self) -> bool:
        return self.x_kind != USER and self.o_kind != USER

    @property
    def is_one_phone(self) -> bool:
        return (
            self.x_kind == USER
            and self.o_kind == USER
            and self.x_player_id is not None
            and self.x_player_id == self.o_player_id
        )

    @property
    def is_between_people(self) -> bool:
        """Two different people (or a challenge waiting for the second one)."""
        return self.x_kind == USER and self.o_kind == USER and not self.is_one_phone


class MoveStatus(StrEnum):
    PLAYED = "played"
    NO_GAME = "no_game"
    NOT_A_PLAYER = "not_a_player"
    NOT_YOUR_TURN = "not_your_turn"
    STALE = "stale"
    GAME_OVER = "game_over"
    OCCUPIED = "occupied"
    INVALID = "invalid"
    CONFLICT = "conflict"
    WAITING = "waiting"  # the game waits for an opponent to join
    OWN_GAME = "own_game"  # a challenger tapping Join on their own challenge
    NOT_INVITED = "not_invited"
    NOT_CHALLENGER = "not_challenger"
    REMATCH_TAKEN = "rematch_taken"


@dataclass(frozen=True)
class MoveResult:
    """What a move attempt did. `error` carries the Hyperskill error of a typed move."""

    status: MoveStatus
    game: GameView | None = None
    error: MoveError | None = None

    @property
    def played(self) -> bool:
        return self.status is MoveStatus.PLAYED


@dataclass(frozen=True)
class StartResult:
    game: GameView
    # Games this start replaced (a private chat has one current game); their boards need closing.
    closed: tuple[GameView, ...] = ()


class TurnEvent(StrEnum):
    NUDGE = "nudge"
    TIMEOUT = "timeout"
    EXPIRED = "expired"  # a challenge nobody joined


@dataclass
class Record:
    wins: int = 0
    losses: int = 0
    draws: int = 0

    @property
    def played(self) -> int:
        return self.wins + self.losses + self.draws

    def add(self, outcome: str) -> None:
        if outcome == "win":
            self.wins += 1
        elif outcome == "loss":
            self.losses += 1
        else:
            self.draws += 1


@dataclass(frozen=True)
class Stats:
    """A player's record per opponent kind (each AI level, `human`) and win streaks."""

    by_opponent: dict[str, Record] = field(default_factory=dict)
    current_streak: int = 0
    best_streak: int = 0

    @property
    def total(self) -> Record:
        total = Record()
        for record in self.by_opponent.values():
            total.wins += record.wins
            total.losses += record.losses
            total.draws += record.draws
        return total


@dataclass(frozen=True)
class LeaderRow:
    player_id: int
    name: str
    record: Record


class ReviewStatus(StrEnum):
    MISTAKE = "mistake"
    PERFECT = "perfect"
    WON = "won"
    NOT_A_PLAYER = "not_a_player"
    NOT_FINISHED = "not_finished"
    NO_GAME = "no_game"
    UNSUPPORTED = "unsupported"


@dataclass(frozen=True)
class Review:
    """The first move of a player where a better one existed (3×3, from the solved table).

    Scores are from the player's point of view: >0 a forced win, 0 a draw, <0 a loss."""

    status: ReviewStatus
    move_number: int | None = None
    played_cell: int | None = None
    better_cell: int | None = None
    played_score: int | None = None
    better_score: int | None = None


@dataclass(frozen=True)
class ForgetReport:
    """What `/forget` deleted, and the boards of games it ended (to show them ended)."""

    had_profile: bool
    games_deleted: int
    moves_deleted: int
    games_anonymized: int
    ended: tuple[GameView, ...] = ()


class GameService:
    """The use-cases, each in one transaction of its own."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        rng: random.Random,
        think: Thinker | None = None,
    ) -> None:
        self._sessions = sessions
        self._rng = rng
        self._think = think or think_in_thread
        # SQLite lets one writer in at a time and makes the others poll with growing sleeps;
        # queueing this process's writers on a lock instead keeps the latency tail short.
        # PostgreSQL needs no such thing: its row locks and our version check do the job.
        bind = sessions.kw.get("bind")
        self._write_lock = (
            asyncio.Lock() if bind is not None and bind.dialect.name == "sqlite" else None
        )

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[AsyncSession]:
        """One write transaction, committed on success and rolled back on error."""
        if self._write_lock is None:
            async with self._sessions.begin() as session:
                yield session
            return
        async with self._write_lock, self._sessions.begin() as session:
            yield session

    # Starting games

    async def start_game(
        self,
        chat_id: int,
        user: PlayerInfo,
        x_kind: str,
        o_kind: str,
        *,
        replace_current: bool = True,
        board: Board | None = None,
    ) -> StartResult:
        """A game the sender starts alone: against an AI, an AI match, or two players on one
        phone. An AI that plays X moves at once, unless both sides are AIs (those games advance
        with `ai_step`)."""
        _check_kinds(x_kind, o_kind)
        async with self._transaction() as session:
            player = await _upsert_player(session, user)
            closed: list[GameView] = []
            if replace_current:
                for old in await _live_games_in_chat(session, chat_id):
                    _close(old, ABANDONED, ABANDONED)
                    closed.append(old)
            game = _new_game(
                chat_id=chat_id,
                x_kind=x_kind,
                o_kind=o_kind,
                x_player=player if x_kind == USER else None,
                o_player=player if o_kind == USER else None,
                creator=player,
                board=board,
            )
            session.add(game)
            await session.flush()
            if x_kind != USER and o_kind == USER:
                self._play_ai_replies(session, game)
            await session.flush()
            return StartResult(_view(game), tuple(_view(g) for g in closed))

    async def start_inline_ai_game(
        self,
        inline_message_id: str,
        user: PlayerInfo,
        creator_id: int,
        level: str,
        cell: int,
        board: Board | None = None,
    ) -> MoveResult:
        """The first tap on an inline "play the AI" board: creates the game and plays the cell."""
        # Checked before any game exists: a refused tap must not take the message over.
        if level not in LEVELS or not 0 <= cell < len((board or Board.empty()).cells):
            return MoveResult(MoveStatus.INVALID)
        try:
            async with self._transaction() as session:
                existing = await _game_on_inline_message(session, inline_message_id)
                if existing is not None:
                    # The board was already replaced by the game's own buttons: an old tap.
                    return MoveResult(MoveStatus.STALE, _view(existing))
                if user.id != creator_id:
                    return MoveResult(MoveStatus.NOT_A_PLAYER)
                player = await _upsert_player(session, user)
                game = _new_game(
                    inline_message_id=inline_message_id,
                    x_kind=USER,
                    o_kind=level,
                    x_player=player,
                    o_player=None,
                    creator=player,
                    board=board,
                )
                session.add(game)
                await session.flush()
                return await self._play_human(session, game, _board(game), user, cell)
        except IntegrityError:
            return await self._conflict_on_inline(inline_message_id)

    async def create_challenge(
        self,
        chat_id: int,
        user: PlayerInfo,
        *,
        invited: PlayerInfo | None = None,
        invited_username: str | None = None,
        board: Board | None = None,
    ) -> GameView:
        """A group challenge: the sender plays X; anyone (or only the invited person) joins."""
        async with self._transaction() as session:
            player = await _upsert_player(session, user)
            invited_player = await _upsert_player(session, invited) if invited else None
            game = _new_game(
                chat_id=chat_id,
                x_kind=USER,
                o_kind=USER,
                x_player=player,
                creator=player,
                board=board,
            )
            game.status = OPEN
            game.invited_player = invited_player
            username = (invited_username or "").replace("\x00", "").lstrip("@")
            game.invited_username = username[:64] or None
            session.add(game)
            await session.flush()
            return _view(game)

    async def join_inline_challenge(
        self,
        inline_message_id: str,
        user: PlayerInfo,
        creator_id: int,
        creator_mark: str,
        board: Board | None = None,
    ) -> MoveResult:
        """A tap on Join of an inline challenge: the first person other than the challenger
        starts the game with them (the game is created here, keyed by the inline message)."""
        if creator_mark not in MARKS:
            return MoveResult(MoveStatus.INVALID)
        try:
            async with self._transaction() as session:
                existing = await _game_on_inline_message(session, inline_message_id)
                if existing is not None:
                    return MoveResult(
                        _join_refusal(existing, user) or MoveStatus.GAME_OVER, _view(existing)
                    )
                if user.id == creator_id:
                    return MoveResult(MoveStatus.OWN_GAME)
                creator = await session.get(Player, creator_id)
                if creator is None:
                    return MoveResult(MoveStatus.NO_GAME)
                joiner = await _upsert_player(session, user)
                x_player, o_player = (creator, joiner) if creator_mark == "X" else (joiner, creator)
                game = _new_game(
                    inline_message_id=inline_message_id,
                    x_kind=USER,
                    o_kind=USER,
                    x_player=x_player,
                    o_player=o_player,
                    creator=creator,
                    board=board,
                )
                session.add(game)
                await session.flush()
                return MoveResult(MoveStatus.PLAYED, _view(game))
        except IntegrityError:
            return await self._conflict_on_inline(inline_message_id)

    async def join(self, game_id: int, ref: BoardRef, user: PlayerInfo) -> MoveResult:
        """Accept a challenge: the joiner plays O and the game starts."""

        async def join(session: AsyncSession, game: Game) -> MoveResult:
            return await self._join(session, game, user)

        return await self._on_game(game_id, ref, join)

    async def decline(self, game_id: int, ref: BoardRef, user: PlayerInfo) -> MoveResult:
        """The invited person says no."""

        async def decline(_session: AsyncSession, game: Game) -> MoveResult:
            if game.status != OPEN:
                return MoveResult(MoveStatus.GAME_OVER, _view(game))
            # An open challenge (nobody invited) has no one to decline it: only cancel.
            invited = game.invited_player_id is not None or game.invited_username is not None
            if not invited or not _is_invited(game, user):
                return MoveResult(MoveStatus.NOT_INVITED, _view(game))
            _close(game, DECLINED, DECLINED)
            return MoveResult(MoveStatus.PLAYED, _view(game))

        return await self._on_game(game_id, ref, decline)

    async def cancel(self, game_id: int, ref: BoardRef, user: PlayerInfo) -> MoveResult:
        """The challenger withdraws a challenge nobody has joined yet."""

        async def cancel(_session: AsyncSession, game: Game) -> MoveResult:
            if game.status != OPEN:
                return MoveResult(MoveStatus.GAME_OVER, _view(game))
            if game.created_by_id != user.id:
                return MoveResult(MoveStatus.NOT_CHALLENGER, _view(game))
            _close(game, CANCELLED, CANCELLED)
            return MoveResult(MoveStatus.PLAYED, _view(game))

        return await self._on_game(game_id, ref, cancel)

    async def rematch(self, game_id: int, ref: BoardRef, user: PlayerInfo) -> MoveResult:
        """A new game between the same two people with sides swapped. On an inline message
        the new game takes the message over; in a chat it gets a message of its own."""
        try:
            async with self._transaction() as session:
                old = await session.get(Game, game_id)
                if old is not None and ref.inline_message_id and not ref.matches(old):
                    # A second Rematch tap: the first one's game took the inline message over.
                    taken = await _game_on_inline_message(session, ref.inline_message_id)
                    if taken is not None and taken.rematch_of_id == old.id:
                        return MoveResult(MoveStatus.REMATCH_TAKEN, _view(taken))
                if old is None or not ref.matches(old):
                    return MoveResult(MoveStatus.NO_GAME)
                view = _view(old)
                if old.status != FINISHED or not view.is_between_people:
                    return MoveResult(MoveStatus.INVALID, view)
                if view.mark_of(user.id) is None:
                    return MoveResult(MoveStatus.NOT_A_PLAYER, view)
                await _upsert_player(session, user)
                inline_message_id, old.inline_message_id = old.inline_message_id, None
                await session.flush()
                game = _new_game(
                    chat_id=old.chat_id,
                    inline_message_id=inline_message_id,
                    x_kind=USER,
                    o_kind=USER,
                    x_player=old.o_player,
                    o_player=old.x_player,
                    creator=old.o_player,
                    board=Board.empty(_board(old).size, old.k),
                )
                game.rematch_of_id = old.id
                game.language = old.language
                session.add(game)
                await session.flush()
                return MoveResult(MoveStatus.PLAYED, _view(game))
        except IntegrityError:
            return MoveResult(MoveStatus.REMATCH_TAKEN, await self.get_game(game_id))
        except StaleDataError:
            return await self._conflict(game_id)

    async def register_player(self, user: PlayerInfo) -> None:
        """Remember a user's name and language (an inline challenger, before any game)."""
        async with self._transaction() as session:
            await _upsert_player(session, user)

    async def attach_message(self, game_id: int, message_id: int) -> None:
        """Remember which message shows the game's board.

        Where the board lives is not game state: a plain UPDATE that leaves the version alone,
        so a tap racing the new board's first appearance is not refused as a conflict."""
        async with self._transaction() as session:
            await session.execute(
                update(Game)
                .where(Game.id == game_id)
                .values(message_id=message_id)
                .execution_options(synchronize_session=False)
            )

    # Moves

    async def play_tap(
        self, game_id: int, ref: BoardRef, user: PlayerInfo, ply: int, cell: int
    ) -> MoveResult:
        """A tap on a board cell. `ply` is the move number the board showed when tapped."""

        async def tap(session: AsyncSession, game: Game) -> MoveResult:
            board = _board(game)
            if game.status == OPEN:
                return MoveResult(MoveStatus.WAITING, _view(game))
            if game.status != ACTIVE:
                return MoveResult(MoveStatus.GAME_OVER, _view(game))
            if ply != _ply(board):
                return MoveResult(MoveStatus.STALE, _view(game))
            if not 0 <= cell < len(board.cells):
                return MoveResult(MoveStatus.INVALID, _view(game))
            return await self._play_human(session, game, board, user, cell)

        return await self._on_game(game_id, ref, tap)

    async def play_typed(
        self, chat_id: int, user: PlayerInfo, text: str, *, message_id: int | None = None
    ) -> MoveResult:
        """A typed move (`2 3` or `6`): in the game on `message_id` (a reply to a board in a
        group), else in the chat's current game."""
        try:
            async with self._transaction() as session:
                if message_id is not None:
                    game = await session.scalar(
                        select(Game).where(Game.chat_id == chat_id, Game.message_id == message_id)
                    )
                else:
                    games = await _live_games_in_chat(session, chat_id)
                    game = games[0] if games else None
                if game is None:
                    return MoveResult(MoveStatus.NO_GAME)
                board = _board(game)
                refusal = _move_refusal(game, board, user)
                if refusal is not None:
                    return MoveResult(refusal, _view(game))
                try:
                    cell = parse_typed_move(text, board)
                except MoveError as error:
                    return MoveResult(MoveStatus.INVALID, _view(game), error)
                return await self._play_human(session, game, board, user, cell)
        except (StaleDataError, IntegrityError):
            return await self._conflict(None)

    async def resign(self, game_id: int, ref: BoardRef, user: PlayerInfo) -> MoveResult:
        """The user gives up a game they play in; the opponent wins."""

        async def resign(_session: AsyncSession, game: Game) -> MoveResult:
            return _resign(game, user)

        return await self._on_game(game_id, ref, resign)

    async def stop_current(self, chat_id: int, user: PlayerInfo) -> MoveResult:
        """`/stop`: end the sender's newest game in this chat. A running game counts as
        resigned; a challenge is withdrawn; an AI match the sender started is stopped."""
        try:
            async with self._transaction() as session:
                for game in await _live_games_in_chat(session, chat_id):
                    view = _view(game)
                    if view.mark_of(user.id) is not None and game.status == ACTIVE:
                        return _resign(game, user)
                    if game.status == OPEN and game.created_by_id == user.id:
                        _close(game, CANCELLED, CANCELLED)
                        return MoveResult(MoveStatus.PLAYED, _view(game))
                    if view.is_ai_match and game.created_by_id in (user.id, None):
                        _close(game, ABANDONED, ABANDONED)
                        return MoveResult(MoveStatus.PLAYED, _view(game))
                return MoveResult(MoveStatus.NO_GAME)
        except StaleDataError:
            return await self._conflict(None)

    async def ai_step(self, game_id: int) -> GameView | None:
        """One AI move in a game where the AI is to move (an AI match, or a reply that needs
        thought); None when there is nothing to do.

        A move that needs thought (hard on a big board) is searched outside any transaction,
        off the event loop, and written only if the board is still the one searched."""
        snapshot = await self.get_game(game_id)
        if snapshot is None or not snapshot.is_active:
            return None
        level = snapshot.kind_of(snapshot.to_move)
        if level == USER:
            return None
        if is_instant(level, snapshot.board):
            cell = choose_move(level, snapshot.board, self._rng)
        else:
            cell = await self._think(level, snapshot.board, self._rng.getrandbits(32))
        try:
            async with self._transaction() as session:
                game = await session.get(Game, game_id)
                if game is None or game.status != ACTIVE or game.board != snapshot.board.to_cells():
                    return None  # the game moved on while the AI was thinking
                self._play_cell(session, game, _board(game), cell, None)
                await session.flush()
                return _view(game)
        except (StaleDataError, IntegrityError):
            return None

    # Turn timeouts

    async def overdue_turns(self, now: datetime, turn_timeout: timedelta) -> list[int]:
        """Games whose player to move (or whose challenge) has waited at least `timeout`."""
        async with self._sessions() as session:
            rows = await session.scalars(
                select(Game.id).where(
                    Game.status.in_((OPEN, ACTIVE)),
                    Game.x_kind == USER,
                    Game.o_kind == USER,
                    Game.turn_started_at <= now - turn_timeout,
                )
            )
            return list(rows)

    async def enforce_turn_timeout(
        self, game_id: int, now: datetime, turn_timeout: timedelta
    ) -> tuple[TurnEvent, GameView] | None:
        """After one timeout the player to move is nudged; after the second the game ends as a
        loss by timeout. A challenge nobody joins expires after two timeouts."""
        try:
            async with self._transaction() as session:
                game = await session.get(Game, game_id)
                if game is None or game.turn_started_at is None:
                    return None
                waited = now - _aware(game.turn_started_at)
                view = _view(game)
                if game.status == OPEN and waited >= 2 * turn_timeout:
                    _close(game, CANCELLED, TurnEvent.EXPIRED)
                    return TurnEvent.EXPIRED, _view(game)
                if game.status != ACTIVE or view.is_one_phone or not view.is_between_people:
                    return None
                if waited >= 2 * turn_timeout and game.nudges >= 1:
                    loser = turn(_board(game))
                    game.status, game.result = FINISHED, other_mark(loser)
                    game.end_reason = "timeout"
                    return TurnEvent.TIMEOUT, _view(game)
                if waited >= turn_timeout and game.nudges == 0:
                    game.nudges = 1
                    return TurnEvent.NUDGE, _view(game)
                return None
        except StaleDataError:
            return None  # a move came in meanwhile: the turn is fresh again

    # Queries

    async def get_game(self, game_id: int) -> GameView | None:
        async with self._sessions() as session:
            game = await session.get(Game, game_id)
            return None if game is None else _view(game)

    async def games_waiting_for_ai(self) -> list[GameView]:
        """Running games with a board message where the AI is to move (AI matches, and
        replies that were still being thought about): resumed after a restart."""
        async with self._sessions() as session:
            rows = await session.scalars(
                select(Game).where(
                    Game.status == ACTIVE,
                    or_(Game.x_kind != USER, Game.o_kind != USER),
                    or_(Game.message_id.is_not(None), Game.inline_message_id.is_not(None)),
                )
            )
            views = [_view(g) for g in rows.unique()]
            return [v for v in views if v.kind_of(v.to_move) != USER]

    async def stats(self, user_id: int) -> Stats:
        """A user's wins, losses and draws against each AI level and against people, and
        their current and best winning streaks."""
        async with self._sessions() as session:
            rows = await session.scalars(
                select(Game)
                .where(
                    Game.status == FINISHED,
                    or_(Game.x_player_id == user_id, Game.o_player_id == user_id),
                )
                .order_by(Game.updated_at, Game.id)
            )
            by_opponent: dict[str, Record] = {}
            streak = best = 0
            for game in rows.unique():
                view = _view(game)
                if view.is_one_phone:
                    continue  # two players on one phone: not a record against anybody
                mine = view.mark_of(user_id)
                if mine is None:
                    continue
                theirs = view.kind_of(other_mark(mine))
                outcome = _outcome_for(game.result, mine)
                by_opponent.setdefault(HUMAN if theirs == USER else theirs, Record()).add(outcome)
                streak = streak + 1 if outcome == "win" else 0
                best = max(best, streak)
            return Stats(by_opponent, current_streak=streak, best_streak=best)

    async def top(self, chat_id: int, limit: int = 10) -> list[LeaderRow]:
        """The chat's leaderboard of games between people played there."""
        async with self._sessions() as session:
            rows = await session.scalars(
                select(Game).where(
                    Game.chat_id == chat_id,
                    Game.status == FINISHED,
                    Game.x_kind == USER,
                    Game.o_kind == USER,
                    Game.x_player_id != Game.o_player_id,
                )
            )
            table: dict[int, LeaderRow] = {}
            for game in rows.unique():
                for mark, player in (("X", game.x_player), ("O", game.o_player)):
                    if player is None:
                        continue
                    row = table.setdefault(player.id, LeaderRow(player.id, player.name, Record()))
                    row.record.add(_outcome_for(game.result, mark))
            ranked = sorted(
                table.values(),
                key=lambda r: (-r.record.wins, r.record.losses, -r.record.draws, r.name),
            )
            return ranked[:limit]

    async def review(self, game_id: int, ref: BoardRef, user: PlayerInfo) -> Review:
        """The first move of the tapping player where a better move existed."""
        async with self._sessions() as session:
            game = await session.get(Game, game_id)
            if game is None or not ref.matches(game):
                return Review(ReviewStatus.NO_GAME)
            view = _view(game)
            mine = view.mark_of(user.id)
            if mine is None:
                return Review(ReviewStatus.NOT_A_PLAYER)
            if game.status != FINISHED:
                return Review(ReviewStatus.NOT_FINISHED)
            if view.board.size != 3 or view.board.k != 3:
                return Review(ReviewStatus.UNSUPPORTED)
            if game.result == mine and not view.is_one_phone:
                return Review(ReviewStatus.WON)
            moves = await session.scalars(
                select(Move).where(Move.game_id == game.id).order_by(Move.ply)
            )
            board = Board.empty()
            for move in moves:
                if move.mark == mine or view.is_one_phone:
                    best = position_score(board)
                    played = -position_score(play(board, move.cell))
                    if played < best:
                        better = max(
                            board.free_cells(), key=lambda c: -position_score(play(board, c))
                        )
                        return Review(
                            ReviewStatus.MISTAKE, move.ply, move.cell, better, played, best
                        )
                board = play(board, move.cell)
            return Review(ReviewStatus.PERFECT)

    async def forget(self, user: PlayerInfo) -> ForgetReport:
        """Delete everything stored about a user. Games of theirs alone (against the AI, on one
        phone) go entirely; games against people stay for the other person, without this
        user's id. Running games end first: resigned, or a challenge withdrawn."""
        uid = user.id
        async with self._transaction() as session:
            player = await session.get(Player, uid)
            games = (
                (
                    await session.scalars(
                        select(Game).where(
                            or_(
                                Game.x_player_id == uid,
                                Game.o_player_id == uid,
                                Game.created_by_id == uid,
                                Game.invited_player_id == uid,
                            )
                        )
                    )
                )
                .unique()
                .all()
            )
            deleted = moves = anonymized = 0
            ended: list[GameView] = []
            for game in games:
                view = _view(game)
                others = {view.x_player_id, view.o_player_id, view.invited_player_id} - {uid, None}
                if not others and view.created_by_id in (uid, None):
                    moves += (
                        await session.scalar(
                            select(func.count()).select_from(Move).where(Move.game_id == game.id)
                        )
                        or 0
                    )
                    if game.status in (OPEN, ACTIVE) and (
                        game.message_id or game.inline_message_id
                    ):
                        if game.status == OPEN:
                            _close(game, CANCELLED, CANCELLED)
                        else:
                            _close(game, ABANDONED, ABANDONED)
                        ended.append(_view(game))
                    await session.delete(game)
                    deleted += 1
                    continue
                if game.status == ACTIVE and view.mark_of(uid) is not None:
                    _resign(game, user)
                    ended.append(_view(game))
                elif game.status == OPEN:
                    _close(game, CANCELLED, CANCELLED)
                    ended.append(_view(game))
                for column in ("x_player_id", "o_player_id", "created_by_id", "invited_player_id"):
                    if getattr(game, column) == uid:
                        setattr(game, column, None)
                anonymized += 1
            await session.execute(update(Move).where(Move.player_id == uid).values(player_id=None))
            if player is not None:
                await session.delete(player)
            return ForgetReport(player is not None, deleted, moves, anonymized, tuple(ended))

    async def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> int:
        """A group became a supergroup with a new id: its games follow it."""
        async with self._transaction() as session:
            result = await session.execute(
                update(Game)
                .where(Game.chat_id == old_chat_id)
                .values(chat_id=new_chat_id)
                .execution_options(synchronize_session=False)
            )
            return result.rowcount or 0

    # Internals: each runs inside the caller's transaction.

    async def _on_game(
        self,
        game_id: int,
        ref: BoardRef,
        action: Callable[[AsyncSession, Game], Awaitable[MoveResult]],
    ) -> MoveResult:
        """Load a game the tap may touch, run `action(session, game)` in one transaction."""
        try:
            async with self._transaction() as session:
                game = await session.get(Game, game_id)
                if game is None or not ref.matches(game):
                    return MoveResult(MoveStatus.NO_GAME)
                return await action(session, game)
        except (StaleDataError, IntegrityError):
            return await self._conflict(game_id)

    async def _join(self, session: AsyncSession, game: Game, user: PlayerInfo) -> MoveResult:
        refusal = _join_refusal(game, user)
        if refusal is not None:
            return MoveResult(refusal, _view(game))
        game.o_player = await _upsert_player(session, user)
        game.status = ACTIVE
        game.turn_started_at, game.nudges = utcnow(), 0
        await session.flush()
        return MoveResult(MoveStatus.PLAYED, _view(game))

    async def _play_human(
        self, session: AsyncSession, game: Game, board: Board, user: PlayerInfo, cell: int
    ) -> MoveResult:
        refusal = _move_refusal(game, board, user)
        if refusal is not None:
            return MoveResult(refusal, _view(game))
        if board[cell] != EMPTY:
            return MoveResult(MoveStatus.OCCUPIED, _view(game))
        self._play_cell(session, game, board, cell, user.id)
        self._play_ai_replies(session, game)
        await session.flush()
        return MoveResult(MoveStatus.PLAYED, _view(game))

    def _play_ai_replies(self, session: AsyncSession, game: Game) -> None:
        """Let the AI answer at once while its answer needs no thought, until it is a human's
        turn or the game is over. A reply that needs thought is left to `ai_step`."""
        while game.status == ACTIVE:
            board = _board(game)
            level = _kind_to_move(game, board)
            if level == USER or not is_instant(level, board):
                return
            self._play_cell(session, game, board, choose_move(level, board, self._rng), None)

    def _play_cell(
        self, session: AsyncSession, game: Game, board: Board, cell: int, player_id: int | None
    ) -> None:
        mark = turn(board)
        after = play(board, cell)
        session.add(
            Move(game_id=game.id, ply=_ply(board) + 1, cell=cell, mark=mark, player_id=player_id)
        )
        game.board = after.to_cells()
        game.turn_started_at, game.nudges = utcnow(), 0
        if is_over(after):
            game.status = FINISHED
            game.result = winner(after) or DRAW
            game.end_reason = "line" if winner(after) else "full"

    async def _conflict(self, game_id: int | None) -> MoveResult:
        game = await self.get_game(game_id) if game_id is not None else None
        return MoveResult(MoveStatus.CONFLICT, game)

    async def _conflict_on_inline(self, inline_message_id: str) -> MoveResult:
        async with self._sessions() as session:
            game = await _game_on_inline_message(session, inline_message_id)
            return MoveResult(MoveStatus.CONFLICT, _view(game) if game else None)


Thinker = Callable[[str, Board, int], Awaitable[int]]
"""(level, board, seed) -> the AI's move, computed off the event loop."""


def is_instant(level: str, board: Board) -> bool:
    """Moves that take microseconds: every 3×3 move (a table lookup) and easy and medium on
    any board. Only hard on a bigger board searches."""
    return level != "hard" or (board.size, board.k) == (3, 3)


async def think_in_thread(level: str, board: Board, seed: int) -> int:
    """The default thinker: the search in a worker thread."""
    return await asyncio.to_thread(choose_move, level, board, random.Random(seed))


def _check_kinds(x_kind: str, o_kind: str) -> None:
    if x_kind not in PLAYER_KINDS or o_kind not in PLAYER_KINDS:
        raise ValueError(f"unknown player kinds {x_kind!r}, {o_kind!r}")


def _new_game(
    *,
    x_kind: str,
    o_kind: str,
    x_player: Player | None,
    o_player: Player | None = None,
    creator: Player | None,
    chat_id: int | None = None,
    inline_message_id: str | None = None,
    board: Board | None = None,
) -> Game:
    board = board or Board.empty()
    return Game(
        chat_id=chat_id,
        inline_message_id=inline_message_id,
        board=board.to_cells(),
        size=board.size,
        k=board.k,
        x_kind=x_kind,
        o_kind=o_kind,
        x_player=x_player,
        o_player=o_player,
        created_by_id=creator.id if creator else None,
        language=creator.language_code if creator else None,
        status=ACTIVE,
        turn_started_at=utcnow(),
        nudges=0,
    )


def _board(game: Game) -> Board:
    """The game's board; its size follows from the stored cells, k is stored beside them."""
    return Board.from_cells(game.board, k=game.k or None)


def _close(game: Game, status: str, reason: str) -> None:
    game.status, game.end_reason = status, reason


def _ply(board: Board) -> int:
    """Moves played on a board: its marks."""
    return sum(1 for c in board.cells if c != EMPTY)


def _kind_to_move(game: Game, board: Board) -> str:
    return game.x_kind if turn(board) == "X" else game.o_kind


def _is_player(game: Game, mark: str, user_id: int) -> bool:
    kind = game.x_kind if mark == "X" else game.o_kind
    player_id = game.x_player_id if mark == "X" else game.o_player_id
    return kind == USER and player_id == user_id


def _is_invited(game: Game, user: PlayerInfo) -> bool:
    if game.invited_player_id is None and game.invited_username is None:
        return True  # an open challenge: anyone may join
    if game.invited_player_id is not None and game.invited_player_id == user.id:
        return True
    return bool(
        game.invited_username
        and user.username
        and game.invited_username.lower() == user.username.lower()
    )


def _join_refusal(game: Game, user: PlayerInfo) -> MoveStatus | None:
    if game.status == ACTIVE and user.id in (game.x_player_id, game.o_player_id):
        return MoveStatus.STALE  # already in: a double tap on Join
    if game.status == ACTIVE:
        return MoveStatus.NOT_A_PLAYER  # someone else joined first: the game is running
    if game.status != OPEN:
        return MoveStatus.GAME_OVER
    if game.x_player_id == user.id:
        return MoveStatus.OWN_GAME
    if not _is_invited(game, user):
        return MoveStatus.NOT_INVITED
    return None


def _move_refusal(game: Game, board: Board, user: PlayerInfo) -> MoveStatus | None:
    """Why this user may not move now, or None if they may."""
    if game.status == OPEN:
        return MoveStatus.WAITING
    if game.status != ACTIVE:
        return MoveStatus.GAME_OVER
    if not (_is_player(game, "X", user.id) or _is_player(game, "O", user.id)):
        return MoveStatus.NOT_A_PLAYER
    if not _is_player(game, turn(board), user.id):
        return MoveStatus.NOT_YOUR_TURN
    return None


def _resign(game: Game, user: PlayerInfo) -> MoveResult:
    if game.status == OPEN:
        return MoveResult(MoveStatus.WAITING, _view(game))
    if game.status != ACTIVE:
        return MoveResult(MoveStatus.GAME_OVER, _view(game))
    board = _board(game)
    marks = [m for m in MARKS if _is_player(game, m, user.id)]
    if not marks:
        return MoveResult(MoveStatus.NOT_A_PLAYER, _view(game))
    # On one phone both sides belong to the user: the side to move gives up.
    loser = turn(board) if len(marks) == 2 else marks[0]
    game.status = FINISHED
    game.result = other_mark(loser)
    game.end_reason = "resigned"
    return MoveResult(MoveStatus.PLAYED, _view(game))


def _outcome_for(result: str | None, mark: str) -> str:
    if result == DRAW:
        return "draw"
    return "win" if result == mark else "loss"


def _aware(moment: datetime) -> datetime:
    # SQLite hands back naive datetimes; every time stored here is UTC.
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


async def _live_games_in_chat(session: AsyncSession, chat_id: int) -> Sequence[Game]:
    """The chat's running games and open challenges, newest first."""
    rows = await session.scalars(
        select(Game)
        .where(Game.chat_id == chat_id, Game.status.in_((OPEN, ACTIVE)))
        .order_by(Game.id.desc())
    )
    return rows.unique().all()


async def _game_on_inline_message(session: AsyncSession, inline_message_id: str) -> Game | None:
    return await session.scalar(select(Game).where(Game.inline_message_id == inline_message_id))


async def _upsert_player(session: AsyncSession, user: PlayerInfo) -> Player:
    """Insert or refresh the player's name and language, safe against concurrent inserts."""
    insert = sqlite_insert if session.bind.dialect.name == "sqlite" else postgresql_insert
    now = utcnow()
    # PostgreSQL text cannot hold NUL; nothing legitimate carries one.
    name = user.name.replace("\x00", "")[:128] or str(user.id)
    language = (user.language_code or "").replace("\x00", "")[:16] or None
    statement = insert(Player).values(
        id=user.id, name=name, language_code=language, created_at=now, updated_at=now
    )
    statement = statement.on_conflict_do_update(
        index_elements=[Player.id],
        set_={"name": name, "language_code": language, "updated_at": now},
    )
    await session.execute(statement)
    player = await session.get(Player, user.id, populate_existing=True)
    assert player is not None
    return player


def _view(game: Game) -> GameView:
    return GameView(
        id=game.id,
        chat_id=game.chat_id,
        message_id=game.message_id,
        inline_message_id=game.inline_message_id,
        board=_board(game),
        x_kind=game.x_kind,
        o_kind=game.o_kind,
        x_player_id=game.x_player.id if game.x_player is not None else game.x_player_id,
        o_player_id=game.o_player.id if game.o_player is not None else game.o_player_id,
        x_name=game.x_player.name if game.x_player is not None else None,
        o_name=game.o_player.name if game.o_player is not None else None,
        status=game.status,
        result=game.result,
        end_reason=game.end_reason,
        language=game.language,
        created_by_id=game.created_by_id,
        invited_player_id=game.invited_player_id,
        invited_name=game.invited_player.name if game.invited_player is not None else None,
        invited_username=game.invited_username,
        rematch_of_id=game.rematch_of_id,
        nudges=game.nudges or 0,
    )
