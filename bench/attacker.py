"""A test opponent for `hard`, as strong as this bench can make it: threat-space search on top of
core.search.engine's alpha-beta, with more time than hard gets.

A move, in order:

1. a win in one, else a block of the opponent's win in one;
2. a victory by continuous fours (core.search.threats.vcf, with a large node limit);
3. a victory by continuous threats (VCT): sequences of fours and *threes* (moves after which
   the attacker could make two winning cells at once), where every defence is tried against a
   three (each candidate cell, and counter-fours), iteratively deepened in threes;
4. else core.search.engine's alpha-beta with the whole budget, among the moves after which the
   opponent has no VCF (when there are any).

Time is CPU time (time.process_time) unless a clock is given. Not part of the bot: it lives in
bench/ and may be as slow as it likes.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from core.board import Board, X
from core.rules import is_over, turn
from core.search.engine import _Engine, search
from core.search.threats import four_cells, vcf

VCF_LIMIT = 200_000
MAX_THREES = 4  # the deepest VCT tried, in attacker moves that are threes


class _OutOfTime(Exception):
    pass


class Vct:
    """Victory by continuous threats for `p` on a core.search.engine engine."""

    def __init__(self, engine: _Engine, p: int, deadline: float, clock: Callable[[], float]):
        self.e, self.p, self.q = engine, p, 3 - p
        self.deadline, self.clock = deadline, clock
        self.memo: dict[tuple[int, int], int | None] = {}

    def attack(self, depth: int) -> int | None:
        """The first move of a VCT of at most `depth` threes, or None."""
        e, p, q = self.e, self.p, self.q
        if e.hot[p]:
            return min(e.win_cells(p))
        memo_key = (e.key, depth)
        if memo_key in self.memo:
            return self.memo[memo_key]
        if self.clock() > self.deadline:
            raise _OutOfTime
        threats = e.win_cells(q)
        found = None
        if len(threats) <= 1:
            found = vcf(e, p, 2000)
            if found is None and depth > 0:
                moves = sorted(threats) if threats else self.threat_moves()
                for cell in moves:
                    e.make(cell, p)
                    won = self.refutes_all(depth)
                    e.unmake(cell, p)
                    if won:
                        found = cell
                        break
        self.memo[memo_key] = found
        return found

    def threat_moves(self) -> list[int]:
        """Cells where the attacker makes a four or a three, fours first."""
        e, p = self.e, self.p
        fours = four_cells(e, p)
        threes = []
        for cell in e.ordered(p, e.candidates()):
            if cell in fours:
                continue
            e.make(cell, p)
            if e.double_threat_cells(p, stop_at_first=True):
                threes.append(cell)
            e.unmake(cell, p)
        return fours + threes

    def refutes_all(self, depth: int) -> bool:
        """The attacker has just moved: does it win against every reply?"""
        e, p, q = self.e, self.p, self.q
        if e.hot[q]:
            return False
        wins = e.win_cells(p)
        if len(wins) > 1:
            return True
        if wins:
            replies, spent = sorted(wins), 0
        elif e.double_threat_cells(p, stop_at_first=True):
            replies, spent = [c for c in e.all_cells if not e.cells[c]], 1
        else:
            return False
        for reply in replies:
            e.make(reply, q)
            # A reply that leaves the three in place and makes no four loses at once.
            trivial = spent and not e.hot[q] and e.double_threat_cells(p, stop_at_first=True)
            won = bool(trivial) or self.attack(depth - spent) is not None
            e.unmake(reply, q)
            if not won:
                return False
        return True


def attacker_move(
    board: Board,
    rng: random.Random,
    *,
    time_budget: float = 0.5,
    clock: Callable[[], float] = time.process_time,
) -> int:
    """The attacker's move (see the module docstring)."""
    start = clock()
    engine = _Engine(board, clock)
    p = 1 if turn(board) == X else 2
    for who in (p, 3 - p):
        wins = engine.win_cells(who)
        if wins:
            return min(wins)
    found = vcf(engine, p, VCF_LIMIT)
    if found is not None:
        return found
    deadline = start + time_budget / 2
    threat = Vct(engine, p, deadline, clock)
    try:
        for depth in range(1, MAX_THREES + 1):
            found = threat.attack(depth)
            if found is not None:
                return found
    except _OutOfTime:
        pass
    left = max(0.0, time_budget - (clock() - start))
    move = search(board, rng, time_budget=left, clock=clock).move
    return move if _safe(board, move) else _first_safe(board, move)


def _safe(board: Board, move: int) -> bool:
    engine = _Engine(board, time.process_time)
    p = 1 if turn(board) == X else 2
    engine.make(move, p)
    return vcf(engine, 3 - p, 20_000) is None


def _first_safe(board: Board, fallback: int) -> int:
    engine = _Engine(board, time.process_time)
    p = 1 if turn(board) == X else 2
    for cell in engine.ordered(p, engine.candidates()):
        if _safe(board, cell):
            return cell
    return fallback


def game_is_dead(board: Board) -> bool:
    """No line can still be completed by anyone: the game is a draw whatever is played."""
    if is_over(board):
        return True
    engine = _Engine(board, time.process_time)
    return not any(
        engine.count[1][li] == 0 or engine.count[2][li] == 0 for li in range(len(engine.lines))
    )
