"""Game-tree search for `hard` on every board beyond the solved 3×3 game (4×4 up to 8×8).

`search_move(board, rng, time_budget=..., clock=...)` returns one cell. In order:

1. a move that wins at once (never missed);
2. else a block of the opponent's win in one (never missed);
3. on the empty board, the centre (a random one of the four central cells on even sizes);
4. else a move that makes two winning cells at once, else the first move of a victory by
   continuous fours (core.search.threats): a forced win is played as soon as it is seen;
5. else an iterative-deepening negamax with alpha-beta and a transposition table, within the
   time budget, over the root moves after which the opponent has no VCF (all of them when
   every move allows one); the answer is a random choice among the equally best moves of the
   last completed depth. Depth 1 always completes: it already sees every move after which
   the opponent could make two winning cells at once.

The search, per node, for the player to move:

- it has a line of k−1 open → a win next ply (exact);
- the opponent has two or more distinct winning cells → a loss (exact);
- the opponent has exactly one → the block is the only move, searched without using up depth
  (forced replies are free, so sequences of k−1 threats are read to their end);
- it can make two distinct winning cells with one move (an open k−1 line or a fork of two
  lines) → a win in three plies (exact: the opponent has no threat of its own to answer with);
- the opponent could (a *three*) → only the moves that take every such cell away, and its own
  fours, are searched, all of them; none → a loss (exact). This is where a shallow search
  used to lose: a beam cut by a static ordering can drop the one defence;
- at the depth limit → a quiescence of threats: the player may stand on the static score or
  play a four or a three (then the opponent only defends), for up to QUIESCENCE plies, so a
  victory by threats just past the horizon is seen. The static score sums, over every line
  still open for one side, a weight growing eightfold with each mark in it, own lines minus
  the opponent's;
- else moves are cells within distance 2 of a mark, ordered by the transposition table's
  best move first, then by threat: lines they extend (a k−1 line first) and opponent lines
  they block, weighted by their marks; the best `BEAM` of them are searched.

On a board the first player wins by force (core.mnk_results), the first player's budget is
WON_BOARD_READINGS readings of a counting clock (about one a node) instead of the caller's
seconds, and ties go to the lowest cell instead of a random one: a fixed strategy, which
tests/core/test_won_boards.py proves wins against every defence by walking every reply. Once
a VCF is seen its moves are instant, so the extra time is spent on a few opening moves.

Scores are from the point of view of the player to move; a win scores more the sooner it comes.
The board is core.search.board's. The budget is CPU time: the default clock is
time.thread_time, so a loaded host makes the answer later, never weaker. The module is pure:
no I/O, no global random state; the clock is a parameter so tests can drive it.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from core.board import Board, GameOverError, X
from core.mnk_results import is_forced_win
from core.rules import is_over, turn
from core.search.board import SearchBoard
from core.search.threats import VcfSearch, vcf

Clock = Callable[[], float]

DEFAULT_BUDGET = 0.05  # CPU seconds per move, the 10 % margin below included
# On a board the first player wins by force, that player's budget in clock readings (about one
# a node) instead of seconds: the same strategy on any machine, so tests can prove it wins
# against every defence. About 0.15 s of CPU here, spent only until a win is proven (then
# the VCF answers at once): a few moves a game.
WON_BOARD_READINGS = 6000
MARGIN = 0.1  # of the budget, kept for the work after the last clock reading
ATTACK_LIMIT = 1500  # VCF nodes for hard's own forced win (a few milliseconds at most)
SAFETY_LIMIT = 3000  # VCF nodes for checking every root move against the opponent's
QUIESCENCE = 6  # plies of threats (fours, threes and their defences) past the horizon
DEFENCE = 2  # the weight of the opponent's lines against one's own in the static score
THREAT_BEAM = 12  # threat moves searched at a node past the horizon
BEAM = 12  # moves searched at an inner node, the best by the ordering score
WIN = 1_000_000_000  # a win now; a win n plies later scores WIN - n
MATE = WIN - 10_000  # scores beyond ±MATE are proven wins or losses
INF = 2 * WIN

_EXACT, _LOWER, _UPPER = 0, 1, 2


class _Timeout(Exception):
    """The time budget ran out in the middle of a depth."""


class _Engine(SearchBoard):
    """The search on a SearchBoard."""

    quiescence = QUIESCENCE  # plies of threats searched past the horizon in this pass
    best: int | None = None  # the best root score of the deepest completed pass
    root_player = 1

    # --- the search ---------------------------------------------------------------------------

    def static(self, p: int) -> int:
        """The static score for `p`: the root player's open lines minus DEFENCE times the
        opponent's, negated for the opponent (so the game stays zero-sum)."""
        r = self.root_player
        value = self.sums[r] - DEFENCE * self.sums[3 - r]
        return value if p == r else -value

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
        stand = -INF
        moves: list[int] | None = None  # None: every candidate, cut to the beam
        if self.warm[q] and self.double_threat_cells(q, stop_at_first=True):
            moves = self.defences(p)  # only the moves that stop the threat, all of them
            if not moves:
                return -(WIN - ply - 4)  # the double threat comes next, whatever p does
            if depth <= -self.quiescence:
                return self.static(p)
        elif depth <= 0:
            # Past the horizon only threats are searched; p may also stand on the static score.
            stand = self.static(p)
            if depth <= -self.quiescence or stand >= beta:
                return stand
            moves = self.threat_moves(p)[:THREAT_BEAM]
            if not moves:
                return stand
        return self.expand(p, depth, alpha, beta, ply, moves, stand)

    def expand(
        self,
        p: int,
        depth: int,
        alpha: int,
        beta: int,
        ply: int,
        moves: list[int] | None,
        stand: int,
    ) -> int:
        """The moves' best score, with the transposition table (`moves` None: the beam)."""
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
        if moves is None:
            moves = self.ordered(p, self.candidates())[:BEAM]
            allowed = True
        else:
            allowed = best_move in moves
            moves = self.ordered(p, moves)
        if best_move >= 0 and allowed:
            if best_move in moves:
                moves.remove(best_move)
            moves.insert(0, best_move)
        start_alpha = alpha
        best = stand
        alpha = max(alpha, stand)
        q = 3 - p
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
        deadline = start + budget * (1 - MARGIN)
        best_moves = moves
        self.root_player = p
        # The first pass, depth 1 without quiescence, is cheap and always completes: it carries
        # the tactical guarantees. Then depth 1, 2, ... with quiescence, while time lasts.
        for depth in range(self.free + 1):
            self.deadline = None if depth == 0 else deadline
            self.quiescence = 0 if depth == 0 else QUIESCENCE
            try:
                scored = self.root(p, moves, max(depth, 1))
            except _Timeout:
                break
            best = max(score for score, _ in scored)
            best_moves = [cell for score, cell in scored if score == best]
            self.depth, self.best = max(depth, 1), best
            moves = [cell for _, cell in sorted(scored, key=lambda sc: -sc[0])]
            if abs(best) >= MATE or depth >= self.free:
                break
            if self.clock() - start >= budget / 2:
                break  # the next depth would not finish in time
        self.deadline = None
        return best_moves


@dataclass(frozen=True, slots=True)
class SearchInfo:
    """What one search did, for benchmarks and tests."""

    move: int
    depth: int  # the depth reached (0 when no search was needed)
    nodes: int
    score: int | None = None  # the move's score at that depth (beyond ±MATE: proven)


def search(
    board: Board,
    rng: random.Random,
    *,
    time_budget: float = DEFAULT_BUDGET,
    clock: Clock = time.thread_time,
) -> SearchInfo:
    """The hard move on any board, with the depth searched and the nodes visited."""
    if is_over(board):
        raise GameOverError()
    me = 1 if turn(board) == X else 2
    pick: Callable[[list[int]], int] = rng.choice
    if me == 1 and is_forced_win(board):
        # The first player on a won board: a fixed strategy (the budget in readings of a
        # counting clock, the lowest of equally good moves), see WON_BOARD_READINGS.
        clock, time_budget, pick = _Readings(), WON_BOARD_READINGS, min
    start = clock()
    engine = _Engine(board, clock)
    wins = engine.win_cells(me)
    if wins:
        return SearchInfo(pick(sorted(wins)), 0, 0)
    blocks = engine.win_cells(3 - me)
    if blocks:
        return SearchInfo(pick(sorted(blocks)), 0, 0)
    if engine.free == len(engine.cells):
        return SearchInfo(rng.choice(engine.geo.centre), 0, 0)
    forks = engine.double_threat_cells(me)
    if forks:
        return SearchInfo(pick(sorted(forks)), 0, 0)
    attack = vcf(engine, me, ATTACK_LIMIT)
    if attack is not None:
        return SearchInfo(attack, 0, 0)
    moves = safe_moves(engine, me)
    moves = engine.best_moves(me, moves, time_budget, start)
    return SearchInfo(pick(sorted(moves)), engine.depth, engine.nodes, engine.best)


class _Readings:
    """A clock that counts its readings: a budget in nodes rather than seconds."""

    def __init__(self) -> None:
        self.readings = 0

    def __call__(self) -> float:
        self.readings += 1
        return float(self.readings)


def safe_moves(engine: _Engine, p: int, limit: int = SAFETY_LIMIT) -> list[int]:
    """The candidate moves after which the opponent has no VCF (all of them if none is).
    The checks share `limit` VCF nodes; moves left unchecked when it is spent count as safe."""
    moves = engine.ordered(p, engine.candidates())
    safe = []
    for index, cell in enumerate(moves):
        if limit <= 0:
            safe.extend(moves[index:])
            break
        engine.make(cell, p)
        check = VcfSearch(engine, 3 - p, limit)
        if check.attack() is None:
            safe.append(cell)
        limit = check.nodes
        engine.unmake(cell, p)
    return safe or moves


def search_move(
    board: Board,
    rng: random.Random,
    *,
    time_budget: float = DEFAULT_BUDGET,
    clock: Clock = time.thread_time,
) -> int:
    """The hard move on any board (see the module docstring)."""
    return search(board, rng, time_budget=time_budget, clock=clock).move
