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
says what one does) until its deadline (CHECK_SHARE of the budget before the end, checked
before every iteration, which takes well under a millisecond), `max_iterations`, a root move
proven to win (or every one proven lost), or as soon as no other root move could overtake the
most visited one in the iterations left. It plays a move proven to win, else the most visited
move not proven lost, once that move passes a check: a search of its own from the position
after it (a fresh tree, the opponent to move; at most CHECK_ITERATIONS iterations, and within
the budget less SLACK) that does not prove the opponent a forced win. A move so refuted
counts as proven lost and the next is checked, while time is left. The check is there because
a tree spread over every root move can miss a short forced loss under the one it likes best:
in a game hard lost as ❌ against bench/opponent_mcts.py, its move at ply 44 was lost by force
(⭕ won seven plies later), which the 6,000 iterations of its tree never proved and a search
from the position after it proves in a few hundred to a few thousand.

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
from core.ultimate.mcts import Tree, iterate, ranked_children, settled, tree_moves
from core.ultimate.rules import Position, UltimateBoard, legal_moves
from core.ultimate.tactics import block_wins, game_wins, safe_moves

UltimateStrategy = Callable[[UltimateBoard, random.Random], int]

DEFAULT_BUDGET = 0.5  # seconds per move: a tree search grows stronger with every iteration
SLACK = 0.003  # seconds kept back from the budget for the last iteration and the answer
STOP_CHECK = 64  # iterations between checks whether the most visited move is settled
# The share of the budget kept for checking the chosen move (module docstring), and a check's
# iterations at most (some 35 ms). The position after the move lost at ply 44 in that game is
# proven lost in 11 of 20 seeded checks of 1,000 iterations and 19 of 20 of 4,000, but against
# the C search 4,000 lost more games than 1,000, not fewer (bench/README.md), and made hard's
# median move 476 ms instead of 315.
CHECK_SHARE = 0.2
CHECK_ITERATIONS = 1_000


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
    final = start + max(0.0, time_budget - min(SLACK, time_budget / 4))
    deadline = start + (final - start) * (1 - CHECK_SHARE)
    limit = math.inf if max_iterations is None else max_iterations
    rand = rng.random
    # Drawn first, so a check's chance does not depend on how long the search ran.
    check_rand = random.Random(rng.getrandbits(64)).random
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
    best = checked_best(tree, position, check_rand, clock, final)
    proven = tree.proven[best]  # a move proven lost is played only when every one is
    value = (proven + 1) / 2 if proven else tree.score[best] / (2 * tree.visits[best])
    return SearchInfo(tree.move[best], iterations, value)


def checked_best(
    tree: Tree, position: Position, rand: Callable[[], float], clock: Clock, deadline: float
) -> int:
    """The root child to play: one proven to win, else the most visited not proven lost once
    `refuted` finds no forced win for the opponent after it (until `deadline`); a refuted move
    is marked proven lost and the next one checked."""
    while True:
        best = max(
            tree.root_children(), key=lambda c: (tree.proven[c], tree.visits[c], tree.score[c])
        )
        if tree.proven[best] or clock() >= deadline:
            return best
        if not refuted(position.after(tree.move[best]), rand, clock, deadline):
            return best
        tree.proven[best] = -1


def refuted(after: Position, rand: Callable[[], float], clock: Clock, deadline: float) -> bool:
    """Whether a search from `after` (the opponent to move) proves that the opponent wins, in
    at most CHECK_ITERATIONS iterations and before `deadline`."""
    if after.result:
        return False
    tree = Tree()  # its root's children follow every node's rule: a game win alone, if any
    tree.expand(0, *ranked_children(after, tree_moves(after), rand))
    iterations = 0
    while iterations < CHECK_ITERATIONS and not tree.proven[0] and clock() < deadline:
        iterate(tree, after, rand)
        iterations += 1
    return tree.proven[0] < 0  # the root's move, the one checked, is proven lost


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
