"""Game use-cases: start, move, resign, AI steps and stats.

Each use-case is one database transaction that takes plain values and returns plain values
(a `GameView` and what happened); nothing here knows about Telegram. A move writes back only if
the game's version is unchanged, so of two concurrent taps exactly one is applied.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from sqlalchemy import or_, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm.exc import StaleDataError

from bot.db.models import Game, Move, Player, utcnow
from core.ai import LEVELS, choose_move
from core.board import EMPTY, Board, MoveError, parse_typed_move
from core.rules import is_over, play, turn, winner

USER = "user"
PLAYER_KINDS = (USER, *LEVELS)

ACTIVE = "active"
FINISHED = "finished"
ABANDONED = "abandoned"

DRAW = "draw"


@dataclass(frozen=True)
class PlayerInfo:
    """Who sent an update: a Telegram user as plain values."""

    id: int
    name: str
    language_code: str | None = None


@dataclass(frozen=True)
class GameView:
    """A game as the bot shows it: everything rendering needs, no database objects."""

    id: int
    chat_id: int | None
    message_id: int | None
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

    @property
    def ply(self) -> int:
        """Moves played so far; callback data carries it to spot stale taps."""
        return sum(1 for c in self.board.cells if c != EMPTY)

    @property
    def is_active(self) -> bool:
        return self.status == ACTIVE

    @property
    def to_move(self) -> str:
        return turn(self.board)

    def kind_of(self, mark: str) -> str:
        return self.x_kind if mark == "X" else self.o_kind

    def player_id_of(self, mark: str) -> int | None:
        return self.x_player_id if mark == "X" else self.o_player_id

    def name_of(self, mark: str) -> str | None:
        return self.x_name if mark == "X" else self.o_name

    @property
    def is_ai_match(self) -> bool:
        return self.x_kind != USER and self.o_kind != USER


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


@dataclass
class Record:
    wins: int = 0
    losses: int = 0
    draws: int = 0

    @property
    def played(self) -> int:
        return self.wins + self.losses + self.draws


@dataclass(frozen=True)
class Stats:
    """A player's record per opponent kind (AI levels)."""

    by_opponent: dict[str, Record] = field(default_factory=dict)

    @property
    def total(self) -> Record:
        total = Record()
        for record in self.by_opponent.values():
            total.wins += record.wins
            total.losses += record.losses
            total.draws += record.draws
        return total


class GameService:
    """The use-cases, each in one transaction of its own."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession], rng: random.Random) -> None:
        self._sessions = sessions
        self._rng = rng

    async def start_game(
        self,
        chat_id: int,
        user: PlayerInfo,
        x_kind: str,
        o_kind: str,
        *,
        replace_current: bool = True,
    ) -> StartResult:
        """Create a game in a chat. The sender plays every `user` side; an AI that plays X
        moves at once, unless both sides are AIs (those games advance with `ai_step`)."""
        if x_kind not in PLAYER_KINDS or o_kind not in PLAYER_KINDS:
            raise ValueError(f"unknown player kinds {x_kind!r}, {o_kind!r}")
        async with self._sessions.begin() as session:
            player = await _upsert_player(session, user)
            closed: list[GameView] = []
            if replace_current:
                for old in await _active_games_in_chat(session, chat_id):
                    old.status, old.end_reason = ABANDONED, ABANDONED
                    closed.append(old)
            game = Game(
                chat_id=chat_id,
                board=Board.empty().to_cells(),
                x_kind=x_kind,
                o_kind=o_kind,
                x_player=player if x_kind == USER else None,
                o_player=player if o_kind == USER else None,
                status=ACTIVE,
            )
            session.add(game)
            await session.flush()
            if x_kind != USER and o_kind == USER:
                self._play_ai_replies(session, game)
            await session.flush()
            return StartResult(_view(game), tuple(_view(g) for g in closed))

    async def attach_message(self, game_id: int, message_id: int) -> None:
        """Remember which message shows the game's board."""
        async with self._sessions.begin() as session:
            game = await session.get(Game, game_id)
            if game is not None:
                game.message_id = message_id

    async def play_tap(
        self, game_id: int, chat_id: int | None, user: PlayerInfo, ply: int, cell: int
    ) -> MoveResult:
        """A tap on a board cell. `ply` is the move number the board showed when tapped."""
        try:
            async with self._sessions.begin() as session:
                game = await session.get(Game, game_id)
                if game is None or (chat_id is not None and game.chat_id != chat_id):
                    return MoveResult(MoveStatus.NO_GAME)
                board = Board.from_cells(game.board)
                if game.status != ACTIVE:
                    return MoveResult(MoveStatus.GAME_OVER, _view(game))
                if ply != _ply(board):
                    return MoveResult(MoveStatus.STALE, _view(game))
                if not 0 <= cell < len(board.cells):
                    return MoveResult(MoveStatus.INVALID, _view(game))
                return await self._play_human(session, game, board, user, cell)
        except (StaleDataError, IntegrityError):
            return await self._conflict(game_id)

    async def play_typed(self, chat_id: int, user: PlayerInfo, text: str) -> MoveResult:
        """A typed move (`2 3` or `6`) in the chat's current game."""
        try:
            async with self._sessions.begin() as session:
                games = await _active_games_in_chat(session, chat_id)
                if not games:
                    return MoveResult(MoveStatus.NO_GAME)
                game = games[0]
                board = Board.from_cells(game.board)
                refusal = _refuse_player(game, board, user)
                if refusal is not None:
                    return MoveResult(refusal, _view(game))
                try:
                    cell = parse_typed_move(text, board)
                except MoveError as error:
                    return MoveResult(MoveStatus.INVALID, _view(game), error)
                return await self._play_human(session, game, board, user, cell)
        except (StaleDataError, IntegrityError):
            return await self._conflict(None)

    async def resign(self, game_id: int, chat_id: int | None, user: PlayerInfo) -> MoveResult:
        """The user gives up a game they play in; the opponent wins."""
        try:
            async with self._sessions.begin() as session:
                game = await session.get(Game, game_id)
                if game is None or (chat_id is not None and game.chat_id != chat_id):
                    return MoveResult(MoveStatus.NO_GAME)
                return self._resign(game, user)
        except StaleDataError:
            return await self._conflict(game_id)

    async def stop_current(self, chat_id: int, user: PlayerInfo) -> MoveResult:
        """`/stop`: end the chat's current game; a running game counts as resigned."""
        try:
            async with self._sessions.begin() as session:
                games = await _active_games_in_chat(session, chat_id)
                if not games:
                    return MoveResult(MoveStatus.NO_GAME)
                game = games[0]
                if game.x_kind != USER and game.o_kind != USER:
                    # Nobody to resign for in an AI match: it is simply stopped.
                    game.status, game.end_reason = ABANDONED, ABANDONED
                    await session.flush()
                    return MoveResult(MoveStatus.PLAYED, _view(game))
                return self._resign(game, user)
        except StaleDataError:
            return await self._conflict(None)

    async def ai_step(self, game_id: int) -> GameView | None:
        """One AI move of an AI-vs-AI game; None when there is nothing to do."""
        try:
            async with self._sessions.begin() as session:
                game = await session.get(Game, game_id)
                if game is None or game.status != ACTIVE:
                    return None
                board = Board.from_cells(game.board)
                mark = turn(board)
                level = game.x_kind if mark == "X" else game.o_kind
                if level == USER:
                    return None
                self._play_cell(session, game, board, choose_move(level, board, self._rng), None)
                await session.flush()
                return _view(game)
        except (StaleDataError, IntegrityError):
            return None

    async def get_game(self, game_id: int) -> GameView | None:
        async with self._sessions() as session:
            game = await session.get(Game, game_id)
            return None if game is None else _view(game)

    async def running_ai_matches(self) -> list[GameView]:
        """AI-vs-AI games still in progress with a board message, to resume after a restart."""
        async with self._sessions() as session:
            rows = await session.scalars(
                select(Game).where(
                    Game.status == ACTIVE,
                    Game.x_kind != USER,
                    Game.o_kind != USER,
                    Game.message_id.is_not(None),
                )
            )
            return [_view(g) for g in rows.unique()]

    async def stats(self, user_id: int) -> Stats:
        """Wins, losses and draws of a user against each AI level."""
        async with self._sessions() as session:
            rows = await session.scalars(
                select(Game).where(
                    Game.status == FINISHED,
                    or_(Game.x_player_id == user_id, Game.o_player_id == user_id),
                )
            )
            by_opponent: dict[str, Record] = {}
            for game in rows.unique():
                if game.x_player_id == user_id and game.o_kind != USER:
                    mine, opponent = "X", game.o_kind
                elif game.o_player_id == user_id and game.x_kind != USER:
                    mine, opponent = "O", game.x_kind
                else:
                    continue  # two players on one phone: not a record against anybody
                record = by_opponent.setdefault(opponent, Record())
                if game.result == DRAW:
                    record.draws += 1
                elif game.result == mine:
                    record.wins += 1
                else:
                    record.losses += 1
            return Stats(by_opponent)

    # Internals: each runs inside the caller's transaction.

    async def _play_human(
        self, session: AsyncSession, game: Game, board: Board, user: PlayerInfo, cell: int
    ) -> MoveResult:
        refusal = _refuse_player(game, board, user)
        if refusal is not None:
            return MoveResult(refusal, _view(game))
        if board[cell] != EMPTY:
            return MoveResult(MoveStatus.OCCUPIED, _view(game))
        await _upsert_player(session, user)
        self._play_cell(session, game, board, cell, user.id)
        self._play_ai_replies(session, game)
        await session.flush()
        return MoveResult(MoveStatus.PLAYED, _view(game))

    def _play_ai_replies(self, session: AsyncSession, game: Game) -> None:
        """Let the AI answer until it is a human's turn or the game is over."""
        while game.status == ACTIVE:
            board = Board.from_cells(game.board)
            level = game.x_kind if turn(board) == "X" else game.o_kind
            if level == USER:
                return
            self._play_cell(session, game, board, choose_move(level, board, self._rng), None)

    def _play_cell(
        self, session: AsyncSession, game: Game, board: Board, cell: int, player_id: int | None
    ) -> None:
        mark = turn(board)
        ply = _ply(board)
        after = play(board, cell)
        session.add(Move(game_id=game.id, ply=ply + 1, cell=cell, mark=mark, player_id=player_id))
        game.board = after.to_cells()
        if is_over(after):
            game.status = FINISHED
            game.result = winner(after) or DRAW
            game.end_reason = "line" if winner(after) else "full"

    def _resign(self, game: Game, user: PlayerInfo) -> MoveResult:
        if game.status != ACTIVE:
            return MoveResult(MoveStatus.GAME_OVER, _view(game))
        board = Board.from_cells(game.board)
        marks = [m for m in ("X", "O") if _is_player(game, m, user.id)]
        if not marks:
            return MoveResult(MoveStatus.NOT_A_PLAYER, _view(game))
        # On one phone both sides belong to the user: the side to move gives up.
        loser = turn(board) if len(marks) == 2 else marks[0]
        game.status = FINISHED
        game.result = "O" if loser == "X" else "X"
        game.end_reason = "resigned"
        return MoveResult(MoveStatus.PLAYED, _view(game))

    async def _conflict(self, game_id: int | None) -> MoveResult:
        game = await self.get_game(game_id) if game_id is not None else None
        return MoveResult(MoveStatus.CONFLICT, game)


def _ply(board: Board) -> int:
    return sum(1 for c in board.cells if c != EMPTY)


def _is_player(game: Game, mark: str, user_id: int) -> bool:
    kind = game.x_kind if mark == "X" else game.o_kind
    player_id = game.x_player_id if mark == "X" else game.o_player_id
    return kind == USER and player_id == user_id


def _refuse_player(game: Game, board: Board, user: PlayerInfo) -> MoveStatus | None:
    """Why this user may not move now, or None if they may."""
    if game.status != ACTIVE:
        return MoveStatus.GAME_OVER
    if not (_is_player(game, "X", user.id) or _is_player(game, "O", user.id)):
        return MoveStatus.NOT_A_PLAYER
    if not _is_player(game, turn(board), user.id):
        return MoveStatus.NOT_YOUR_TURN
    return None


async def _active_games_in_chat(session: AsyncSession, chat_id: int) -> Sequence[Game]:
    """The chat's running games, newest first."""
    rows = await session.scalars(
        select(Game).where(Game.chat_id == chat_id, Game.status == ACTIVE).order_by(Game.id.desc())
    )
    return rows.unique().all()


async def _upsert_player(session: AsyncSession, user: PlayerInfo) -> Player:
    """Insert or refresh the player's name and language, safe against concurrent inserts."""
    insert = sqlite_insert if session.bind.dialect.name == "sqlite" else postgresql_insert
    now = utcnow()
    name = user.name[:128] or str(user.id)
    language = (user.language_code or None) and user.language_code[:16]
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
        board=Board.from_cells(game.board),
        x_kind=game.x_kind,
        o_kind=game.o_kind,
        x_player_id=game.x_player_id,
        o_player_id=game.o_player_id,
        x_name=game.x_player.name if game.x_player is not None else None,
        o_name=game.o_player.name if game.o_player is not None else None,
        status=game.status,
        result=game.result,
        end_reason=game.end_reason,
    )
