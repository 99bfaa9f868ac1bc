"""Which games are rated, in which pool, for what score: pure rules on a `GameView`.

Pools: each board class has its own rating (`3x3`; `big`, 4×4 to 8×8 with any k; `ultimate`),
and games against the AI move a separate rating per class (`ai:3x3` …) against the AI
levels' fixed ratings, so a player sees how far they are from beating Hard.

Rated: a game between strangers (paired through the queue) always; another game between two
people (a group challenge, an inline one) when both are rated in its pool already; a person
against the AI, unless a hint or an undo helped or the board is one the first player wins by
force (`core.mnk_results`: 4×4 with k = 3, 6×6 with k = 4 …), which Hard cannot hold, so a
win there says nothing of the player (kept in /stats apart, marked unrated). Never: one
phone, AI matches, games of three or four, a game nobody moved in. Giving a game up counts
as a loss (it is finished, with the opponent as winner: `model.FORFEITS`): a resignation,
/stop, a new game over it, a block.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from bot.games.model import USER, GameStatus, GameView, Result
from core.ai import Level
from core.board import Board, O, X, other
from core.glicko2 import Rating
from core.mnk_results import is_forced_win
from core.positions import is_ultimate

CLASSIC_POOL, BIG_POOL, ULTIMATE_POOL = "3x3", "big", "ultimate"
POOLS = (CLASSIC_POOL, BIG_POOL, ULTIMATE_POOL)
AI_PREFIX = "ai:"

#: The AI levels' ratings per class, fixed (they do not learn): fitted by bench/ratings.py to
#: games of each level against the others, Easy anchored at 1000 (see bench/README.md). Where
#: a level never dropped a point (big boards, ultimate) the gap is the fit's prior, a floor.
AI_RATINGS: dict[str, dict[Level, float]] = {
    CLASSIC_POOL: {Level.EASY: 1000.0, Level.MEDIUM: 1280.0, Level.HARD: 1430.0},
    BIG_POOL: {Level.EASY: 1000.0, Level.MEDIUM: 1650.0, Level.HARD: 2290.0},
    ULTIMATE_POOL: {Level.EASY: 1000.0, Level.MEDIUM: 1380.0, Level.HARD: 1770.0},
}
#: How sure the AI levels' ratings are: measured over hundreds of games.
AI_DEVIATION = 50.0


def pool_of(board: Board) -> str:
    """The board class of a game: its pool between people."""
    if is_ultimate(board):
        return ULTIMATE_POOL
    return CLASSIC_POOL if board.is_classic else BIG_POOL


def ai_pool(pool: str) -> str:
    """The pool of games against the AI on the same class of board."""
    return AI_PREFIX + pool


def ai_rating(pool: str, level: Level) -> Rating:
    return Rating(AI_RATINGS[pool][level], AI_DEVIATION)


def nearest_level(pool: str, rating: float) -> Level:
    """The AI level whose rating is nearest `rating` (offered to a player nobody came for)."""
    levels = AI_RATINGS[pool]
    return min(levels, key=lambda level: abs(levels[level] - rating))


@dataclass(frozen=True)
class RatedGame:
    """What rating a finished game means: each person's side and score, in which pool; the
    AI's level when one side is the AI."""

    pool: str
    scores: dict[str, float]  # mark → score (1, ½, 0), people's sides only
    ai_level: Level | None = None


def rated_game(game: GameView) -> RatedGame | None:
    """How `game` is rated (once it has ended), or None if it is not. Between people who are
    not strangers the caller also checks that both are rated in the pool."""
    if game.is_rated or game.is_many or game.is_one_phone or game.is_ai_match:
        return None
    if game.assisted or game.ply == 0:
        return None
    pool = pool_of(game.board)
    if game.is_against_ai:
        person = X if game.x_kind == USER else O
        level = game.kind_of(other(person)).level
        if game.status != GameStatus.FINISHED or is_forced_win(game.board):
            return None
        return RatedGame(ai_pool(pool), {person: score(game.result, person)}, level)
    if game.status != GameStatus.FINISHED or not game.is_between_people:
        return None
    if game.x_player_id is None or game.o_player_id is None:
        return None  # one of them deleted their data (/forget)
    return RatedGame(pool, {X: score(game.result, X), O: score(game.result, O)})


def score(result: Result | None, mark: str) -> float:
    if result == Result.DRAW:
        return 0.5
    return 1.0 if result == mark else 0.0


def repeat_weight(earlier_games: int) -> float:
    """How much a game between two people counts when they played `earlier_games` rated games
    together in the last day: 1, ½, ⅓ … so farming one friend gains little."""
    return 1.0 / (1 + earlier_games)


#: How far above the strongest rating it has scored against (won or drawn) a provisional
#: rating may go, in its own deviations: 2, the top of its 95% interval.
BOUND_DEVIATIONS = 2.0


def bounded(old: Rating, new: Rating, strongest: float | None) -> Rating:
    """`new`, bounded while the player is new: a provisional rating (`old.is_provisional`)
    moves a lot per game, but not above `strongest + 2·RD′` — the strongest opponent rating
    it has won or drawn against in the pool (this game's included), plus twice its new
    deviation — unless it stood higher already (the bound never takes rating away). So a
    few wins over weak or uncertain opponents cannot lift a newcomer far above anyone they
    have actually beaten; once the deviation is settled, Glicko-2 alone decides."""
    if strongest is None or not old.is_provisional:
        return new
    cap = max(old.rating, strongest + BOUND_DEVIATIONS * new.deviation)
    return new if new.rating <= cap else replace(new, rating=cap)


def strongest_scored(stored: float | None, opponent: Rating, score: float) -> float | None:
    """The strongest rating a player has won or drawn against, after a game scoring `score`
    against `opponent`."""
    if score <= 0.0:
        return stored
    return opponent.rating if stored is None else max(stored, opponent.rating)
