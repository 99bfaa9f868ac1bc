"""Threat search on the search's board (`core.search.board`): victory by continuous fours (VCF).

A *four* is a move that leaves its player one move from a line of k (a line open for it, k−1
of its marks): the opponent must answer it at its one empty cell or lose. A VCF is a sequence
of fours, each answered by its only reply, that ends in two distinct winning cells at once,
which no single reply stops. Only fours are tried, so each node has few moves and every
opponent move is forced: the search is narrow and reads far ahead in little time, which is
what both attacking (play the first four of a VCF) and defending (never play a move after
which the opponent has one) need.

`vcf(engine, p)` is sound: a cell it returns wins by force. It is incomplete on purpose: a
sequence in which the defender's forced block makes a four of its own is abandoned unless the
attacker's block of that four is itself a four. The work is bounded by a node count, not a
clock, so the answer depends only on the position.
"""

from __future__ import annotations

from typing import Protocol

NODE_LIMIT = 4000  # VCF nodes per call: a few milliseconds on the boards the bot offers


class Board(Protocol):
    """What the threat search needs of core.search.engine's engine."""

    cells: list[int]
    lines: tuple[tuple[int, ...], ...]
    hot: list[set[int]]
    warm: list[set[int]]
    key: int

    def make(self, cell: int, p: int) -> None: ...
    def unmake(self, cell: int, p: int) -> None: ...
    def win_cells(self, p: int) -> set[int]: ...


def four_cells(engine: Board, p: int) -> list[int]:
    """Free cells where `p` makes a four (sorted, so the search is deterministic)."""
    cells, all_lines = engine.cells, engine.lines
    found = {cell for li in engine.warm[p] for cell in all_lines[li] if not cells[cell]}
    return sorted(found)


class VcfSearch:
    """One VCF search; `nodes` is what is left of its node limit afterwards."""

    def __init__(self, engine: Board, p: int, limit: int) -> None:
        self.engine = engine
        self.p = p
        self.nodes = limit
        self.failed: set[int] = set()

    def attack(self) -> int | None:
        """The first move of a VCF for `p` (to move), or None."""
        engine, p = self.engine, self.p
        q = 3 - p
        if engine.hot[p]:
            return min(engine.win_cells(p))
        if engine.key in self.failed or self.nodes <= 0:
            return None
        self.nodes -= 1
        threats = engine.win_cells(q)
        if len(threats) > 1:
            return None
        moves = four_cells(engine, p)
        if threats:  # the opponent's four must be blocked: go on only if the block is a four
            moves = [cell for cell in threats if cell in moves]
        for cell in moves:
            if self._wins_after(cell):
                return cell
        self.failed.add(engine.key)
        return None

    def _wins_after(self, cell: int) -> bool:
        engine, p = self.engine, self.p
        engine.make(cell, p)
        wins = engine.win_cells(p)
        won = len(wins) > 1
        if not won:
            (block,) = wins
            engine.make(block, 3 - p)
            won = self.attack() is not None
            engine.unmake(block, 3 - p)
        engine.unmake(cell, p)
        return won


def vcf(engine: Board, p: int, limit: int = NODE_LIMIT) -> int | None:
    """The first move of a victory by continuous fours for `p`, who is to move, or None
    (none exists, or none was found within `limit` nodes)."""
    return VcfSearch(engine, p, limit).attack()
