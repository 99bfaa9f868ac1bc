"""What the records use-cases answer: a player's wins, losses and draws (/stats), a group's
leaderboard (/top), a game's review and replay, what /forget deleted, and the ratings (/rating,
the ladder). Plain values, as
`model`'s."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum

from bot.games.model import GameStatus, GameView, Outcome
from core import glicko2
from core.board import Board


@dataclass
class Record:
    wins: int = 0
    losses: int = 0
    draws: int = 0

    @property
    def played(self) -> int:
        return self.wins + self.losses + self.draws

    def add(self, outcome: Outcome) -> None:
        if outcome == Outcome.WIN:
            self.wins += 1
        elif outcome == Outcome.LOSS:
            self.losses += 1
        else:
            self.draws += 1


@dataclass(frozen=True)
class Stats:
    """A player's record per opponent kind (each AI level, `human`) and win streaks."""

    by_opponent: dict[str, Record] = field(default_factory=dict)
    current_streak: int = 0
    best_streak: int = 0
    #: Games won, lost and drawn with a hint or an undo: apart from the rest, out of streaks.
    assisted: Record = field(default_factory=Record)
    #: Games against the AI on boards the first player wins by force: unrated, apart too.
    unrated: Record = field(default_factory=Record)

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


@dataclass(frozen=True)
class Replay:
    """A finished game (`game`, as it ended) and its moves: (cell, mark) in order.
    `at(ply)` is the game as it stood after that many moves, a `GameView` the views draw
    like any other (its board, its last move)."""

    game: GameView
    moves: tuple[tuple[int, str], ...]

    @property
    def length(self) -> int:
        return len(self.moves)

    def clamp(self, ply: int) -> int:
        """`ply` within the game: 0 (the empty board) to its last move."""
        return max(0, min(ply, self.length))

    def at(self, ply: int) -> GameView:
        """The game after `ply` moves (the final game itself at the last); earlier, still
        running, with no result yet and the move's mark placed last."""
        ply = self.clamp(ply)
        if ply == self.length:
            return self.game
        shape = self.game.board
        board = Board.empty(shape.size, shape.k, shape.variant)
        for cell, mark in self.moves[:ply]:
            board = board.with_mark(cell, mark)
        last = self.moves[ply - 1][0] if ply else None
        return replace(
            self.game,
            board=board,
            last_cell=last,
            status=GameStatus.ACTIVE,
            result=None,
            end_reason=None,
            turn_mark=None,
        )

    def move(self, ply: int) -> tuple[int, str] | None:
        """The move that made position `ply` (None for the empty board)."""
        ply = self.clamp(ply)
        return self.moves[ply - 1] if ply else None


@dataclass(frozen=True)
class PoolRating:
    """A player's rating in one pool, as /rating shows it."""

    pool: str
    rating: float
    deviation: float
    games: int
    last_change: int

    @property
    def is_provisional(self) -> bool:
        return self.deviation > glicko2.PROVISIONAL_DEVIATION


@dataclass(frozen=True)
class LadderRow:
    player_id: int
    name: str
    rating: float
    deviation: float
    games: int


@dataclass(frozen=True)
class MoveRow:
    """One played move, as the page lists it."""

    ply: int
    cell: int
    mark: str
