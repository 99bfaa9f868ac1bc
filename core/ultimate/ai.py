"""AI levels for ultimate tic-tac-toe: each is a function of (board, random.Random) -> index.

easy   a uniformly random legal move
medium a one-move lookahead, as a cascade of filters over the legal moves (each filter is
       skipped when it would leave no move): win the game at once; else keep only the moves
       after which the opponent cannot win the game at once; among those, win a small board;
       else take a cell where the opponent would win its small board; else avoid sending the
       opponent to a small board it could win at once, or to a free choice; else random
hard   Monte Carlo tree search (UCT) within a time budget, guided by a learned evaluation
       (core.ultimate.evaluation), behind two exact rules: a move that wins the game at once is
       taken, and when the opponent threatens to win the game with its next move, only the
       moves that leave it no such win are searched

The search, `search(board, rng, time_budget=..., clock=..., max_iterations=...)`, returns a
game-winning move at once; otherwise its root's moves are the safe ones (above), and a single
one is returned without search. It then runs iterations of core.ultimate.mcts (whose docstring
says what one does) until the deadline (budget minus SLACK, checked before every iteration,
which takes well under a millisecond), `max_iterations`, a root move proven to win (or every
one proven lost), or as soon as no other root move could overtake the most visited one in the
iterations left. It plays a move proven to win, else the most visited move not proven lost.

The module is pure: no I/O, no global random state (all chance comes from the passed
`random.Random`); the clock is a parameter (time.perf_counter by default) so tests can drive it.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from core.ai import LEVELS, Level, move_at_level
from core.board import GameOverError
from core.search.engine import Clock
from core.ultimate.mcts import Tree, iterate, ranked_children, settled
from core.ultimate.rules import Position, UltimateBoard, legal_moves
from core.ultimate.tactics import block_wins, game_wins, safe_moves

UltimateStrategy = Callable[[UltimateBoard, random.Random], int]

DEFAULT_BUDGET = 0.5  # seconds per move: a tree search grows stronger with every iteration
SLACK = 0.003  # seconds kept back from the budget for the last iteration and the answer
STOP_CHECK = 64  # iterations between checks whether the most visited move is settled


def _start(board: UltimateBoard) -> Position:
    position = Position(board)
    if position.result:
        raise GameOverError()
    return position


# --- easy and medium -----------------------------------------------------------------------


def easy_move(board: UltimateBoard, rng: random.Random) -> int:
    """A uniformly random legal move."""
    moves = legal_moves(board)
    if not moves:
        raise GameOverError()
    return rng.choice(moves)


def _sends_into_danger(position: Position, move: int) -> bool:
    """Would `move` give the opponent a free choice or a small board to win at once?"""
    after = position.after(move)
    if after.result:
        return False  # the game ends here; there is no opponent move to fear
    return after.target < 0 or bool(block_wins(after, after.player))


def medium_move(board: UltimateBoard, rng: random.Random) -> int:
    """One move of lookahead: the cascade in the module docstring."""
    position = _start(board)
    wins = game_wins(position)
    if wins:
        return rng.choice(wins)
    moves = safe_moves(position, position.moves())
    allowed = set(moves)
    me = position.player
    small_wins = [m for m in block_wins(position, me) if m in allowed]
    if small_wins:
        return rng.choice(small_wins)
    blocks = [m for m in block_wins(position, 3 - me) if m in allowed]
    if blocks:
        return rng.choice(blocks)
    calm = [m for m in moves if not _sends_into_danger(position, m)]
    return rng.choice(calm or moves)


@dataclass(frozen=True, slots=True)
class SearchInfo:
    """What one hard move did, for benchmarks and tests."""

    move: int
    iterations: int  # 0 when the move needed no search
    value: float  # expected reward: 1 won (at once or proven), 0 all proven lost, ½ unsearched


def search(
    board: UltimateBoard,
    rng: random.Random,
    *,
    time_budget: float = DEFAULT_BUDGET,
    clock: Clock = time.perf_counter,
    max_iterations: int | None = None,
) -> SearchInfo:
    """The hard move with what the search did (see the module docstring)."""
    start = clock()
    position = _start(board)
    wins = game_wins(position)
    if wins:
        return SearchInfo(rng.choice(wins), 0, 1.0)
    moves = safe_moves(position, position.moves())
    if len(moves) == 1:
        return SearchInfo(moves[0], 0, 0.5)
    deadline = start + max(0.0, time_budget - min(SLACK, time_budget / 4))
    limit = math.inf if max_iterations is None else max_iterations
    rand = rng.random
    tree = Tree()
    tree.expand(0, *ranked_children(position, moves, rand))
    iterations = 0
    while iterations < limit and not tree.proven[0]:
        now = clock()
        if now >= deadline:
            break
        if iterations and iterations % STOP_CHECK == 0:
            rate = iterations / max(now - start, 1e-9)
            if settled(tree, min(limit - iterations, rate * (deadline - now))):
                break
        iterate(tree, position, rand)
        iterations += 1
    if not iterations:  # not even one iteration fitted: any safe move
        return SearchInfo(rng.choice(moves), 0, 0.5)
    best = max(tree.root_children(), key=lambda c: (tree.proven[c], tree.visits[c], tree.score[c]))
    proven = tree.proven[best]  # a move proven lost is played only when every one is
    value = (proven + 1) / 2 if proven else tree.score[best] / (2 * tree.visits[best])
    return SearchInfo(tree.move[best], iterations, value)


def hard_move(
    board: UltimateBoard,
    rng: random.Random,
    *,
    time_budget: float = DEFAULT_BUDGET,
    clock: Clock = time.perf_counter,
    max_iterations: int | None = None,
) -> int:
    """The strongest level: Monte Carlo tree search within `time_budget` seconds by `clock`
    (and at most `max_iterations` iterations), never missing a game win or a block of one."""
    info = search(board, rng, time_budget=time_budget, clock=clock, max_iterations=max_iterations)
    return info.move


# The same levels as on the classic boards (core.ai.LEVELS), in the same order.
STRATEGIES: dict[Level, UltimateStrategy] = dict(
    zip(LEVELS, (easy_move, medium_move, hard_move), strict=True)
)


def choose_move(
    level: Level, board: UltimateBoard, rng: random.Random, *, time_budget: float = DEFAULT_BUDGET
) -> int:
    """The move of the AI at `level` (one of LEVELS); `hard` thinks up to `time_budget` s."""
    return move_at_level(STRATEGIES, level, board, rng, time_budget)
