"""Won boards are won (issue 39): hard as ❌ against every defence, on every board the first player
wins by force (core.mnk_results), from each of hard's possible first moves.

Run from the repository root (one process; minutes for 7×7 and 8×8 with k = 4):

    .venv/bin/python bench/won_boards.py [--boards 4x4k3,...,8x8k4] [--opening 2,23,17,21]

For each board and each central first move, it walks every ⭕ reply at every ⭕ turn to the end
of the game (a position reached twice is walked once) and prints whether ❌ won every game, the
number of ❌ positions, and hard's CPU time a move over them (median, p99, max). Hard's strategy
there does not depend on the clock or the random generator (core.search.engine,
WON_BOARD_READINGS), so the walk is a proof for that strategy. --opening walks from the given
moves instead (❌ to move). tests/core/test_won_boards.py runs the smaller of these walks.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from core.ai import hard_move
from core.board import Board, X
from core.mnk_results import first_player_wins
from core.rules import is_over, play, winner

WON = [(n, 3) for n in range(4, 9)] + [(n, 4) for n in range(6, 9)]


class Walk:
    def __init__(self) -> None:
        self.known: dict[tuple[str, ...], bool] = {}
        self.cpu: list[float] = []
        self.failure: list[int] | None = None

    def wins(self, board: Board, line: list[int]) -> bool:
        """Whether hard, ❌ to move, wins against every sequence of ⭕ replies."""
        seen = self.known.get(board.cells)
        if seen is not None:
            return seen
        start = time.process_time()
        move = hard_move(board, random.Random(0))
        self.cpu.append(time.process_time() - start)
        after = play(board, move)
        won = winner(after) == X if is_over(after) else True
        if not is_over(after):
            for cell in after.free_cells():
                reply = play(after, cell)
                if is_over(reply) or not self.wins(reply, [*line, move, cell]):
                    won = False
                    self.failure = self.failure or [*line, move, cell]
                    break
        self.known[board.cells] = won
        return won

    def report(self, label: str, won: bool, started: float) -> None:
        cpu = sorted(self.cpu)
        p99 = cpu[min(len(cpu) - 1, int(0.99 * len(cpu)))]
        print(
            f"{label}: won against every defence: {won}; {len(self.known)} X positions; hard "
            f"ms p50 {cpu[len(cpu) // 2] * 1e3:.1f} p99 {p99 * 1e3:.1f} max {cpu[-1] * 1e3:.0f}; "
            f"{time.time() - started:.0f} s",
            flush=True,
        )
        if self.failure:
            print(f"  failed: {' '.join(map(str, self.failure))}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", default=",".join(f"{n}x{n}k{k}" for n, k in WON))
    parser.add_argument("--opening", default="")
    args = parser.parse_args()
    for text in args.boards.split(","):
        size, _, k_text = text.partition("x")[2].partition("k")
        n, k = int(size), int(k_text)
        if not first_player_wins(n, n, k):
            print(f"{text}: not a first-player win", file=sys.stderr)
            continue
        started = time.time()
        if args.opening:
            board = Board.empty(n, k)
            moves = [int(m) for m in args.opening.split(",")]
            for cell in moves:
                board = play(board, cell)
            walk = Walk()
            walk.report(f"{text} from {args.opening}", walk.wins(board, moves), started)
            continue
        empty = Board.empty(n, k)
        for first in sorted({hard_move(empty, random.Random(seed)) for seed in range(40)}):
            opened = play(empty, first)
            walk = Walk()
            won = all(walk.wins(play(opened, c), [first, c]) for c in opened.free_cells())
            walk.report(f"{text} first {first}", won, started)


if __name__ == "__main__":
    main()
