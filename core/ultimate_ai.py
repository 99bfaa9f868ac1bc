"""AI levels for ultimate tic-tac-toe: each is a function of (board, random.Random) -> index.

easy   a uniformly random legal move
medium a one-move lookahead, as a cascade of filters over the legal moves (each filter is
       skipped when it would leave no move): win the game at once; else keep only the moves
       after which the opponent cannot win the game at once; among those, win a small board;
       else take a cell where the opponent would win its small board; else avoid sending the
       opponent to a small board it could win at once, or to a free choice; else random
hard   Monte Carlo tree search (UCT) within a time budget, behind two exact rules: a move that
       wins the game at once is taken, and when the opponent threatens to win the game with
       its next move, only the moves that leave it no such win are searched

The search, `search(board, rng, time_budget=..., clock=..., max_iterations=...)`:

1. a game-winning move is returned at once; the root's moves are the safe ones (above), and a
   single one is returned without search;
2. each iteration walks down the tree from the root: at a node with untried moves it takes the
   next of them (in a random order fixed when the node's children were made, the first time
   an iteration passed through it), else the child with the best UCT value (mean reward +
   EXPLORATION * sqrt(ln N / n)); it stops at the first node it has never visited;
3. from there a playout plays the game to its end: a player who can win a small board in the
   block it is sent to does so (which wins the game when that block completes a line), with a
   free choice it wins the game at once if it can, else it plays a random cell of a random open
   block. Such games end sooner than uniform random ones, so more of them fit in the budget:
   at 0.1 s a move this search beat the same one with uniform playouts 19-11 (10 draws);
4. the result (1 for a win, ½ for a draw, 0 for a loss) is added to every node on the path,
   each from the point of view of the player who made the node's move;
5. the loop stops at the deadline (budget minus SLACK, checked before every iteration, which
   takes well under a millisecond), after `max_iterations`, or as soon as no other root move
   could overtake the most visited one in the iterations left; the most visited move is played.

Positions are held in a mutable `Position`: per player a 9-bit mask of its marks in each block,
masks of the blocks each player has won and of the closed blocks, and the block the next move
must go to; the tables of core.ultimate (lines, completing cells) answer every rule question in
a lookup. The module is pure: no I/O, no global random state (all chance comes from the passed
`random.Random`); the clock is a parameter (time.perf_counter by default) so tests can drive it.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from core.ai import LEVELS, move_at_level
from core.board import GameOverError
from core.search import Clock
from core.ultimate import (
    COMPLETING,
    FULL,
    HAS_LINE,
    MASK_CELLS,
    MOVES,
    Position,
    UltimateBoard,
    legal_moves,
)

UltimateStrategy = Callable[[UltimateBoard, random.Random], int]

# The UCT constant, for rewards in [0, 1]. Measured at 0.1 s a move, 40 games each: 0.6 tied
# with 1.0 (15-15), the textbook √2 lost to it 10-21.
EXPLORATION = 1.0
DEFAULT_BUDGET = 0.5  # seconds per move: a tree search grows stronger with every iteration
SLACK = 0.003  # seconds kept back from the budget for the last iteration and the answer
STOP_CHECK = 64  # iterations between checks whether the most visited move is settled


def _start(board: UltimateBoard) -> Position:
    position = Position(board)
    if position.result:
        raise GameOverError()
    return position


def block_wins(position: Position, p: int) -> list[int]:
    """Moves in the playable blocks where player `p` (either one) would win a small board."""
    mine = position.marks[p]
    return [m for b in position.blocks() for m in MOVES[b][COMPLETING[mine[b]] & position.free(b)]]


def game_wins(position: Position) -> list[int]:
    """Moves with which the player to move wins the game at once."""
    p = position.player
    deciding = COMPLETING[position.won[p]]  # blocks that would complete a line of blocks
    mine = position.marks[p]
    return [
        m
        for b in position.blocks()
        if deciding >> b & 1
        for m in MOVES[b][COMPLETING[mine[b]] & position.free(b)]
    ]


def _safe_moves(position: Position, moves: list[int]) -> list[int]:
    """The moves after which the opponent cannot win the game at once (all if none is)."""
    safe = [m for m in moves if not game_wins(position.after(m))]
    return safe or moves


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
    moves = _safe_moves(position, position.moves())
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


# --- hard: Monte Carlo tree search ---------------------------------------------------------


def _playout(position: Position, rand: Callable[[], float]) -> int:
    """Play `position` (a throwaway copy: its masks change) to the end with the playout policy
    of the module docstring; the result.

    The hot loop of the search: everything is a local variable or a table lookup."""
    marks, won, closed = position.marks, position.won, position.closed
    t, p, result = position.target, position.player, position.result
    while not result:
        mine, theirs = marks[p], marks[3 - p]
        if t < 0:
            open_blocks = MASK_CELLS[FULL & ~closed]
            b = -1
            for d in MASK_CELLS[COMPLETING[won[p]] & ~closed]:
                if COMPLETING[mine[d]] & ~theirs[d]:
                    b = d  # the game-winning block; its winning cell is taken below
                    break
            if b < 0:
                b = open_blocks[int(rand() * len(open_blocks))]
        else:
            b = t
        m = mine[b]
        free = FULL & ~(m | theirs[b])
        wins = COMPLETING[m] & free
        cells = MASK_CELLS[wins or free]
        c = cells[int(rand() * len(cells))]
        m |= 1 << c
        mine[b] = m
        bit = 1 << b
        if HAS_LINE[m]:
            won[p] |= bit
            closed |= bit
            if HAS_LINE[won[p]]:
                return p
        elif m | theirs[b] == FULL:
            closed |= bit
        if closed == FULL:
            return 3
        t = -1 if closed >> c & 1 else c
        p = 3 - p
    return result


@dataclass(frozen=True, slots=True)
class SearchInfo:
    """What one hard move did, for benchmarks and tests."""

    move: int
    iterations: int  # 0 when the move needed no search
    value: float  # hard's expected reward: 1 for a game won at once, ½ for an unsearched move


class _Tree:
    """The search tree as flat lists indexed by node number (0 is the root).

    Lists of numbers, not node objects: a tree of tens of thousands of nodes is then a
    handful of objects, so the cyclic garbage collector never walks it (a full collection
    over old trees of node objects took over 100 ms, in the middle of a move) and it is freed
    the moment the search returns.

    A node's children are numbered `first[n]` to `first[n] + count[n] - 1`, created together
    (in random order) the first time an iteration passes through it; `tried[n]` of them have
    been visited, in that order. `score` counts half points (2 a win, 1 a draw) for the player
    who made the node's move.
    """

    __slots__ = ("count", "first", "move", "score", "tried", "visits")

    def __init__(self) -> None:
        self.move = [-1]
        self.first = [-1]
        self.count = [0]
        self.tried = [0]
        self.visits = [0]
        self.score = [0]

    def expand(self, node: int, moves: list[int], rand: Callable[[], float]) -> None:
        for i in range(len(moves) - 1, 0, -1):  # Fisher-Yates, so untried moves come at random
            j = int(rand() * (i + 1))
            moves[i], moves[j] = moves[j], moves[i]
        n = len(moves)
        self.first[node] = len(self.move)
        self.count[node] = n
        self.move += moves
        self.first += [-1] * n
        self.count += [0] * n
        self.tried += [0] * n
        self.visits += [0] * n
        self.score += [0] * n

    def select(self, node: int) -> int:
        """The next untried child, else the child with the best UCT value."""
        tried = self.tried[node]
        first = self.first[node]
        if tried < self.count[node]:
            self.tried[node] = tried + 1
            return first + tried
        visits, score = self.visits, self.score
        scale = EXPLORATION * math.sqrt(math.log(visits[node]))
        sqrt = math.sqrt
        best, best_value = first, -1.0
        for child in range(first, first + tried):
            n = visits[child]
            value = score[child] / (2 * n) + scale / sqrt(n)
            if value > best_value:
                best, best_value = child, value
        return best

    def root_children(self) -> range:
        return range(self.first[0], self.first[0] + self.tried[0])


def _iterate(tree: _Tree, position: Position, rand: Callable[[], float]) -> None:
    """One iteration: select down to a new node, play out from it, back the result up."""
    position = position.copy()
    me = position.player  # the root's player: it makes the moves into odd depths
    path = [0]
    node = 0
    while not position.result:
        if tree.first[node] < 0:
            if tree.visits[node] == 0 and node:
                break  # a new node: play out from here
            tree.expand(node, position.moves(), rand)
        node = tree.select(node)
        position.play(tree.move[node])
        path.append(node)
    result = position.result or _playout(position, rand)
    mine = 2 if result == me else 1 if result == 3 else 0  # half points for the root's player
    visits, score = tree.visits, tree.score
    for depth, n in enumerate(path):
        visits[n] += 1
        score[n] += mine if depth & 1 else 2 - mine


def _settled(tree: _Tree, left: float) -> bool:
    """No root move can overtake the most visited one in `left` more iterations."""
    first = second = 0
    for child in tree.root_children():
        n = tree.visits[child]
        if n > first:
            first, second = n, first
        elif n > second:
            second = n
    return first - second > left


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
    moves = _safe_moves(position, position.moves())
    if len(moves) == 1:
        return SearchInfo(moves[0], 0, 0.5)
    deadline = start + max(0.0, time_budget - min(SLACK, time_budget / 4))
    limit = math.inf if max_iterations is None else max_iterations
    rand = rng.random
    tree = _Tree()
    tree.expand(0, moves, rand)
    iterations = 0
    while iterations < limit:
        now = clock()
        if now >= deadline:
            break
        if iterations and iterations % STOP_CHECK == 0:
            rate = iterations / max(now - start, 1e-9)
            if _settled(tree, min(limit - iterations, rate * (deadline - now))):
                break
        _iterate(tree, position, rand)
        iterations += 1
    if not iterations:  # not even one iteration fitted: any safe move
        return SearchInfo(rng.choice(moves), 0, 0.5)
    best = max(tree.root_children(), key=lambda c: (tree.visits[c], tree.score[c]))
    return SearchInfo(tree.move[best], iterations, tree.score[best] / (2 * tree.visits[best]))


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
STRATEGIES: dict[str, UltimateStrategy] = dict(
    zip(LEVELS, (easy_move, medium_move, hard_move), strict=True)
)


def choose_move(
    level: str, board: UltimateBoard, rng: random.Random, *, time_budget: float = DEFAULT_BUDGET
) -> int:
    """The move of the AI at `level` (one of LEVELS); `hard` thinks up to `time_budget` s."""
    return move_at_level(STRATEGIES, level, board, rng, time_budget)
