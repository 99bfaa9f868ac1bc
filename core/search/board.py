"""The search's board: a mutable copy of one position for core.search.engine, with per-line counts
of each player's marks, updated incrementally together with the static score and the position key
(the base-3 number of the cells, so it never collides), and the threats read from them.

Players are 1 (X) and 2 (O); a cell holds 0 when empty. A line *open* for a player holds none
of the opponent's marks. A *four* is an open line one mark short of k (`hot`), a line two
short is `warm`: one more mark makes it a four. Pure: no I/O, no global state.
"""

from __future__ import annotations

from collections.abc import Callable

from core.board import EMPTY, Board, X
from core.search.geometry import geometry


class SearchBoard:
    """A mutable copy of one position, with incremental line counts and threats.

    Players are 1 (X) and 2 (O); a cell holds 0 when empty.
    """

    def __init__(self, board: Board, clock: Callable[[], float]) -> None:
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
        self.all_lines = range(len(geo.lines))
        self.cells = [0] * n
        self.near = [0] * n
        self.free = n
        self.count = [[], [0] * len(geo.lines), [0] * len(geo.lines)]
        # Lines open for a player (no opposing mark) holding k−1 / k−2 of its marks.
        self.hot: list[set[int]] = [set(), set(), set()]
        self.warm: list[set[int]] = [set(), set(), set()]
        self.sums = [0, 0, 0]  # per player, the static weights of its open lines
        self.key = 0
        self.powers = [3**i for i in range(n)]
        self.trail: list[int] = []  # static weight changes (own, killed) of each move, for undo
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
        delta = killed = 0
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
                killed += weight[b]  # the opponent's line is dead now
                if b == k - 1:
                    self.hot[q].discard(li)
                elif b == k - 2:
                    self.warm[q].discard(li)
        sums = self.sums
        sums[p] += delta
        sums[q] -= killed
        self.trail.append(delta)
        self.trail.append(killed)
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
        killed = self.trail.pop()
        delta = self.trail.pop()
        self.sums[p] -= delta
        self.sums[q] += killed
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

    def threat_moves(self, p: int) -> list[int]:
        """The moves of `p` that make a four or a three (after which `p` could make two
        winning cells at once), fours first."""
        q, k = 3 - p, self.k
        cells, all_lines = self.cells, self.lines
        fours = sorted({c for li in self.warm[p] for c in all_lines[li] if not cells[c]})
        if k < 4:
            return fours
        mine, theirs = self.count[p], self.count[q]
        tried = {
            c
            for li in self.all_lines
            if mine[li] == k - 3 and not theirs[li]
            for c in all_lines[li]
            if not cells[c]
        }
        threes = []
        for cell in sorted(tried.difference(fours)):
            self.make(cell, p)
            if self.double_threat_cells(p, stop_at_first=True):
                threes.append(cell)
            self.unmake(cell, p)
        return fours + threes

    def defences(self, p: int) -> list[int]:
        """The moves of `p` after which the opponent cannot make two winning cells at once, and
        `p`'s fours (they must be answered first). Only a mark on a free cell of one of the
        opponent's k−2 lines can take such a threat away, so only those cells are tried."""
        q = 3 - p
        cells, all_lines = self.cells, self.lines
        tried = {c for li in self.warm[q] for c in all_lines[li] if not cells[c]}
        tried.update(c for li in self.warm[p] for c in all_lines[li] if not cells[c])
        found = []
        for cell in sorted(tried):
            self.make(cell, p)
            if self.hot[p] or not self.double_threat_cells(q, stop_at_first=True):
                found.append(cell)
            self.unmake(cell, p)
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
