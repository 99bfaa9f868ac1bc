"""A worker process for the AI's searches, so the bot's event loop never waits on the CPU."""

from __future__ import annotations

import asyncio
import multiprocessing
import random
import sys
from concurrent.futures import ProcessPoolExecutor
from typing import TYPE_CHECKING

from core.ai import Level
from core.board import Board, Variant
from core.notation import format_cells
from core.positions import board_from_text, choose_move

if TYPE_CHECKING:  # the workers import this module: they need no metrics
    from bot.telemetry.metrics import Metrics


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


#: The warning Python's resource tracker gives for a pool whose process was killed.
LEAKED_WARNING = "ignore:resource_tracker:UserWarning"


def quiet_resource_tracker() -> None:
    """A `kill -9` of the bot leaves the pool's semaphores to Python's resource tracker (a
    process of its own), which removes them, and warns that they "leaked": no news after a
    kill, and a stopped bot (SIGTERM) closes its pool and leaks nothing. The tracker takes
    the bot's warning options (`sys.warnoptions`) as it starts, with the pool's first lock."""
    if LEAKED_WARNING not in sys.warnoptions:
        sys.warnoptions.append(LEAKED_WARNING)


def board_name(board: Board) -> str:
    """A board as the metrics name it: `3x3` … `8x8`, or `ultimate`."""
    if board.variant is Variant.ULTIMATE:
        return Variant.ULTIMATE.value
    return f"{board.size}x{board.size}"


class AiPool:
    """Searches in separate processes (a search holds the GIL for its whole time budget)."""

    def __init__(
        self, time_budget: float, workers: int = 1, metrics: Metrics | None = None
    ) -> None:
        self._time_budget = time_budget
        #: Times each search, by level and board (None: not).
        self._metrics = metrics
        # spawn, not fork: the bot's process has threads and an event loop a fork would copy.
        context = multiprocessing.get_context("spawn")
        quiet_resource_tracker()
        self._executor = ProcessPoolExecutor(max_workers=workers, mp_context=context)

    async def think(self, level: Level, board: Board, last_cell: int | None, seed: int) -> int:
        """The AI's move; the use-cases' thinker."""
        loop = asyncio.get_running_loop()
        cells = format_cells(board)
        started = loop.time()
        cell = await loop.run_in_executor(
            self._executor,
            _search,
            *(cells, board.size, board.k, board.variant, last_cell, level, seed, self._time_budget),
        )
        if self._metrics is not None:
            self._metrics.ai_think.labels(level.value, board_name(board)).observe(
                loop.time() - started
            )
        return cell

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
