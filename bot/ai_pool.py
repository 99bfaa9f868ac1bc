"""A worker process for the AI's searches, so the bot's event loop never waits on the CPU."""

from __future__ import annotations

import asyncio
import multiprocessing
import random
from concurrent.futures import ProcessPoolExecutor

from core.ai import Level
from core.board import Board, Variant
from core.notation import format_cells
from core.positions import board_from_text, choose_move


def _search(
    cells: str,
    size: int,
    k: int,
    variant: Variant,
    last_cell: int | None,
    level: Level,
    seed: int,
    time_budget: float,
) -> int:
    # Runs in the worker: plain values in, a cell index out.
    board = board_from_text(cells, size, k, variant=variant)
    return choose_move(level, board, last_cell, random.Random(seed), time_budget=time_budget)


class AiPool:
    """Searches in separate processes (a search holds the GIL for its whole time budget)."""

    def __init__(self, time_budget: float, workers: int = 1) -> None:
        self._time_budget = time_budget
        # spawn, not fork: the bot's process has threads and an event loop a fork would copy.
        context = multiprocessing.get_context("spawn")
        self._executor = ProcessPoolExecutor(max_workers=workers, mp_context=context)

    async def think(self, level: Level, board: Board, last_cell: int | None, seed: int) -> int:
        """The AI's move; the use-cases' thinker."""
        loop = asyncio.get_running_loop()
        cells = format_cells(board)
        return await loop.run_in_executor(
            self._executor,
            _search,
            *(cells, board.size, board.k, board.variant, last_cell, level, seed, self._time_budget),
        )

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
