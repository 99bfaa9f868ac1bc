"""Game-tree search for `hard` on every board beyond the solved 3×3 game (4×4 up to 8×8).

`search_move(board, rng, time_budget=..., clock=...)` returns one cell. In order:

1. a move that wins at once (never missed);
2. else a block of the opponent's win in one (never missed);
3. on the empty board, the centre (a random one of the four central cells on even sizes);
4. else an iterative-deepening negamax with alpha-beta and a transposition table, within the
   time budget; the answer is a random choice among the equally best moves of the last
   completed depth. Depth 1 always completes (it is cheap): it already sees every move after
   which the opponent could make two winning cells at once, so an open k−2 run, such as
   `_OO__` for k=4 or `_OOO__` for k=5, is answered before it becomes an open k−1 line.

The search, per node, for the player to move:

- it has a line of k−1 open → a win next ply (exact);
- the opponent has two or more distinct winning cells → a loss (exact);
- the opponent has exactly one → the block is the only move, searched without using up depth
  (forced replies are free, so sequences of k−1 threats are read to their end);
- it can make two distinct winning cells with one move (an open k−1 line or a fork of two
  lines) → a win in three plies (exact: the opponent has no threat of its own to answer with);
- at the depth limit → a static score: over every line still open for one side, a weight
  growing eightfold with each mark in it, own lines minus the opponent's. A run with free
  room on both sides lies in more open lines, so open-ended runs count more;
- else moves are cells within distance 2 of a mark, ordered by the transposition table's
  best move first, then by threat: lines they extend (a k−1 line first) and opponent lines
  they block, weighted by their marks; the best `BEAM` of them are searched.

Scores are from the point of view of the player to move; a win scores more the sooner it comes.
The board is held as mutable arrays with per-line counts of each player's marks, updated
incrementally together with the static score and the position key (the key is the base-3
number of the cells, so it never collides). The module is pure: no I/O, no global random
state; the clock is a parameter (time.perf_counter by default) so tests can drive it.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from core.board import EMPTY, Board, GameOverError, X
from core.rules import is_over, turn
from core.search_geometry import geometry

Clock = Callable[[], float]

DEFAULT_BUDGET = 0.5  # seconds per move
BEAM = 12  # moves searched at an inner node, the best by the ordering score
WIN = 1_000_000_000  # a win now; a win n plies later scores WIN - n
MATE = WIN - 10_000  # scores beyond ±MATE are proven wins or losses
INF = 2 * WIN

_EXACT, _LOWER, _UPPER = 0, 1, 2


class _Timeout(Exception):
    """The time budget ran out in the middle of a depth."""


class _Engine:
    """A mutable copy of one position, with incremental line counts, and the search on it.

    Players are 1 (X) and 2 (O); a cell holds 0 when empty.
    """

    def __init__(self, board: Board, clock: Clock) -> None:
        geo = geometry(board.size, board.k)
        self.geo = geo
        self.k = board.k
        self.lines = geo.lines
        self.cell_lines = geo.cell_lines
        self.neighbours = geo.neighbours
        self.clock = clock
        self.deadline: float | None = None
        n = board.size * board.size
        self.all_cells = range(n)
        self.cells = [0] * n
        self.near = [0] * n
        self.free = n
        self.count = [[], [0] * len(geo.lines), [0] * len(geo.lines)]
        # Lines open for a player (no opposing mark) holding k−1 / k−2 of its marks.
        self.hot: list[set[int]] = [set(), set(), set()]
        self.warm: list[set[int]] = [set(), set(), set()]
        self.score = 0  # the static score from X's point of view
        self.key = 0
        self.powers = [3**i for i in range(n)]
        self.trail: list[int] = []  # static score changes, for undo
        self.table: dict[int, tuple[int, int, int, int]] = {}
        self.nodes = 0
        self.depth = 0  # the deepest completed depth
        for cell, mark in enumerate(board.cells):
            if mark != EMPTY:
                self.make(cell, 1 if mark == X else 2)

    # --- making and unmaking moves -----------------------------------------------------------

    def make(self, cell: int, p: int) -> None:
        q = 3 - p
        k = self.k
        mine, theirs = self.count[p], self.count[q]
        hot_p, warm_p = self.hot[p], self.warm[p]
        gain, weight = self.geo.gain, self.geo.weight
        delta = 0
        for li in self.cell_lines[cell]:
            a = mine[li]
            b = theirs[li]
            mine[li] = a + 1
            if b == 0:
                delta += gain[a]
                if a == k - 3:
                    warm_p.add(li)
                elif a == k - 2:
                    warm_p.discard(li)
                    hot_p.add(li)
                elif a == k - 1:
                    hot_p.discard(li)
            elif a == 0:
                delta += weight[b]  # the opponent's line is dead now
                if b == k - 1:
                    self.hot[q].discard(li)
                elif b == k - 2:
                    self.warm[q].discard(li)
        self.score += delta if p == 1 else -delta
        self.trail.append(delta)
        self.cells[cell] = p
        self.free -= 1
        self.key += p * self.powers[cell]
        near = self.near
        for other in self.neighbours[cell]:
            near[other] += 1

    def unmake(self, cell: int, p: int) -> None:
        q = 3 - p
        k = self.k
        mine, theirs = self.count[p], self.count[q]
        hot_p, warm_p = self.hot[p], self.warm[p]
        for li in self.cell_lines[cell]:
            a = mine[li] - 1
            mine[li] = a
            b = theirs[li]
            if b == 0:
                if a == k - 3:
                    warm_p.discard(li)
                elif a == k - 2:
                    hot_p.discard(li)
                    warm_p.add(li)
                elif a == k - 1:
                    hot_p.add(li)
            elif a == 0:
                if b == k - 1:
                    self.hot[q].add(li)
                elif b == k - 2:
                    self.warm[q].add(li)
        delta = self.trail.pop()
        self.score -= delta if p == 1 else -delta
        self.cells[cell] = 0
        self.free += 1
        self.key -= p * self.powers[cell]
        near = self.near
        for other in self.neighbours[cell]:
            near[other] -= 1

    # --- threats --------------------------------------------------------------------------------

    def win_cells(self, p: int) -> set[int]:
        """The free cells where `p` completes a line at once."""
        cells, all_lines = self.cells, self.lines
        found = set()
        for li in self.hot[p]:
            for cell in all_lines[li]:
                if not cells[cell]:
                    found.add(cell)
                    break
        return found

    def double_threat_cells(self, p: int, stop_at_first: bool = False) -> set[int]:
        """Cells where `p` would make two distinct winning cells at once."""
        cells, all_lines = self.cells, self.lines
        partner: dict[int, int] = {}
        found: set[int] = set()
        for li in self.warm[p]:
            a, b = (cell for cell in all_lines[li] if not cells[cell])
            for here, there in ((a, b), (b, a)):
                seen = partner.get(here)
                if seen is None:
                    partner[here] = there
                elif seen != there:
                    found.add(here)
                    if stop_at_first:
                        return found
        return found

    # --- move generation ----------------------------------------------------------------------

    def candidates(self) -> list[int]:
        cells, near = self.cells, self.near
        found = [c for c in self.all_cells if not cells[c] and near[c]]
        return found or [c for c in self.all_cells if not cells[c]]

    def ordered(self, p: int, moves: list[int]) -> list[int]:
        """`moves` best first by the ordering score (ties by cell, so deterministic)."""
        attack, defend = self.geo.attack, self.geo.defend
        value = [
            attack[a] if not b else (defend[b] if not a else 0)
            for a, b in zip(self.count[p], self.count[3 - p], strict=True)
        ]
        get = value.__getitem__
        cell_lines = self.cell_lines
        scored = sorted(((sum(map(get, cell_lines[c])), -c) for c in moves), reverse=True)
        return [-c for _, c in scored]

    # --- the search ---------------------------------------------------------------------------

    def negamax(self, p: int, depth: int, alpha: int, beta: int, ply: int) -> int:
        self.nodes += 1
        if self.deadline is not None and self.clock() > self.deadline:
            raise _Timeout
        q = 3 - p
        if self.hot[p]:
            return WIN - ply - 1
        if not self.free:
            return 0
        threats = self.win_cells(q)
        if threats:
            if len(threats) > 1:
                return -(WIN - ply - 2)
            (cell,) = threats
            self.make(cell, p)
            score = -self.negamax(q, depth, -beta, -alpha, ply + 1)
            self.unmake(cell, p)
            return score
        if self.double_threat_cells(p, stop_at_first=True):
            return WIN - ply - 3
        if depth <= 0:
            return self.score if p == 1 else -self.score
        key = self.key
        entry = self.table.get(key)
        best_move = -1
        if entry is not None:
            e_depth, flag, e_score, best_move = entry
            if e_depth >= depth:
                if flag == _EXACT:
                    return e_score
                if flag == _LOWER and e_score >= beta:
                    return e_score
                if flag == _UPPER and e_score <= alpha:
                    return e_score
        moves = self.ordered(p, self.candidates())[:BEAM]
        if best_move >= 0:
            if best_move in moves:
                moves.remove(best_move)
            moves.insert(0, best_move)
        start_alpha = alpha
        best = -INF
        for cell in moves:
            self.make(cell, p)
            score = -self.negamax(q, depth - 1, -beta, -alpha, ply + 1)
            self.unmake(cell, p)
            if score > best:
                best, best_move = score, cell
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        flag = _UPPER if best <= start_alpha else _LOWER if best >= beta else _EXACT
        self.table[key] = (depth, flag, best, best_move)
        return best

    def root(self, p: int, moves: list[int], depth: int) -> list[tuple[int, int]]:
        """(score, move) for every root move, in order; a move scoring below the best holds
        only an upper bound, the best ones (all ties) hold exact scores."""
        best = -INF
        scored = []
        for cell in moves:
            self.make(cell, p)
            score = -self.negamax(3 - p, depth - 1, -INF, 1 - best, 1)
            self.unmake(cell, p)
            scored.append((score, cell))
            best = max(best, score)
        return scored

    def best_moves(self, p: int, moves: list[int], budget: float, start: float) -> list[int]:
        """The equally best moves of the deepest depth completed within the budget."""
        moves = self.ordered(p, moves)
        if len(moves) == 1:
            return moves
        deadline = start + budget
        best_moves = moves
        depth = 1
        while True:
            # Depth 1 always completes: it is cheap, and it carries the tactical guarantees.
            self.deadline = None if depth == 1 else deadline
            try:
                scored = self.root(p, moves, depth)
            except _Timeout:
                break
            best = max(score for score, _ in scored)
            best_moves = [cell for score, cell in scored if score == best]
            self.depth = depth
            moves = [cell for _, cell in sorted(scored, key=lambda sc: -sc[0])]
            if abs(best) >= MATE or depth >= self.free:
                break
            if self.clock() - start >= budget / 2:
                break  # the next depth would not finish in time
            depth += 1
        self.deadline = None
        return best_moves


@dataclass(frozen=True, slots=True)
class SearchInfo:
    """What one search did, for benchmarks and tests."""

    move: int
    depth: int  # the depth reached (0 when no search was needed)
    nodes: int


def search(
    board: Board,
    rng: random.Random,
    *,
    time_budget: float = DEFAULT_BUDGET,
    clock: Clock = time.perf_counter,
) -> SearchInfo:
    """The hard move on any board, with the depth searched and the nodes visited."""
    if is_over(board):
        raise GameOverError()
    start = clock()
    engine = _Engine(board, clock)
    me = 1 if turn(board) == X else 2
    wins = engine.win_cells(me)
    if wins:
        return SearchInfo(rng.choice(sorted(wins)), 0, 0)
    blocks = engine.win_cells(3 - me)
    if blocks:
        return SearchInfo(rng.choice(sorted(blocks)), 0, 0)
    if engine.free == len(engine.cells):
        return SearchInfo(rng.choice(engine.geo.centre), 0, 0)
    moves = engine.best_moves(me, engine.candidates(), time_budget, start)
    return SearchInfo(rng.choice(sorted(moves)), engine.depth, engine.nodes)


def search_move(
    board: Board,
    rng: random.Random,
    *,
    time_budget: float = DEFAULT_BUDGET,
    clock: Clock = time.perf_counter,
) -> int:
    """The hard move on any board (see the module docstring)."""
    return search(board, rng, time_budget=time_budget, clock=clock).move
