"""Who plays whom from the matchmaking queue: pure rules on plain values.

Two players waiting for the same board, time control and match length are paired when their
ratings are within the window of the one who has waited longer: ±100 at once, widening by 10
points a second, so that after a minute and a half anyone waiting on that board will do. The longest
waiting are served first, each with the nearest rating in reach. Nobody is paired with
themselves or with someone either of them blocked. After AI_OFFER_AFTER with no one, the bot
offers the AI level nearest the player's rating; they may keep waiting.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from core.board import ULTIMATE, Board, BoardSize, board_size
from core.positions import is_ultimate

WINDOW_AT_ONCE = 100.0  # rating points either way, as soon as one joins
WINDOW_PER_SECOND = 10.0  # the window's growth per second waited
AI_OFFER_AFTER = timedelta(seconds=45)
ULTIMATE_KEY = "ultimate"


@dataclass(frozen=True)
class Waiting:
    """A player in the queue."""

    player_id: int
    name: str
    board: str  # `board_key`
    rating: float
    chat_id: int
    message_id: int | None
    language: str | None
    joined_at: datetime
    shown_at: datetime | None = None
    offered_ai: bool = False
    clock: str | None = None  # `clock_rules.clock_key`; None: the bot's default
    best_of: int = 1  # a match of so many games (`match_rules`); 1: a single game

    def waited(self, now: datetime) -> timedelta:
        return max(timedelta(0), now - self.joined_at)


def window(waited: timedelta) -> float:
    """How far apart two ratings may be once the longer waiter has waited this long."""
    return WINDOW_AT_ONCE + WINDOW_PER_SECOND * waited.total_seconds()


def pairs(
    waiting: Iterable[Waiting], blocked: set[frozenset[int]], now: datetime
) -> list[tuple[Waiting, Waiting]]:
    """The pairs to make now: the longest waiting first, each with the nearest rating in its
    window on the same board and clock. In each pair the one who waited longer comes first
    (plays ❌)."""
    queue = sorted(waiting, key=lambda w: (w.joined_at, w.player_id))
    taken: set[int] = set()
    made = []
    for first in queue:
        if first.player_id in taken:
            continue
        reach = window(first.waited(now))
        candidates = [
            other
            for other in queue
            if other.player_id not in taken
            and other.player_id != first.player_id
            and other.board == first.board
            and other.clock == first.clock
            and other.best_of == first.best_of
            and abs(other.rating - first.rating) <= reach
            and frozenset((first.player_id, other.player_id)) not in blocked
        ]
        if not candidates:
            continue
        second = min(candidates, key=lambda w: (abs(w.rating - first.rating), w.joined_at))
        taken.update((first.player_id, second.player_id))
        made.append((first, second))
    return made


def board_key(board: Board | BoardSize) -> str:
    """The queue's name for a board: `3x3`, `6x6k5`, `ultimate`."""
    if is_ultimate(board):
        return ULTIMATE_KEY
    if board.is_classic:
        return "3x3"
    return f"{board.size}x{board.size}k{board.k}"


def board_of_key(key: str) -> Board:
    """The empty board a queue key names (the inverse of `board_key`)."""
    if key == ULTIMATE_KEY:
        return ULTIMATE.empty_board()
    size, _, k = key.partition("k")
    side = int(size.split("x")[0])
    shape = board_size(side, int(k) if k else None)
    assert shape is not None, key
    return shape.empty_board()
