"""Stand-ins for the AI's two inputs from outside: a clock that ticks per reading (so a time
budget is a number of readings, the same on any machine) and a random generator that records
the choices it is offered (so a test sees every move a strategy could make)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

#: Fake seconds per clock reading: a budget of 0.1 is about 100 readings.
STEP = 0.001


class NodeClock:
    """A fake clock: every reading advances it by `step` (0 keeps it still)."""

    def __init__(self, step: float = STEP) -> None:
        self.step = step
        self.now = 0.0
        self.readings = 0

    def __call__(self) -> float:
        self.now += self.step
        self.readings += 1
        return self.now


class SpyRandom(random.Random):
    """Records what `choice` is offered and returns element `pick`; any other draw fails."""

    def __init__(self, pick: int = 0) -> None:
        super().__init__(0)
        self.pick = pick
        self.offered: list[list[Any]] = []

    def choice(self, seq: Sequence[Any]) -> Any:
        self.offered.append(list(seq))
        return seq[self.pick % len(seq)]

    def random(self) -> float:
        raise AssertionError("strategies draw with choice() only")

    def getrandbits(self, k: int) -> int:
        raise AssertionError("strategies draw with choice() only")


def possible_moves(strategy: Callable[[Any, random.Random], int], board: Any) -> list[int]:
    """Every move `strategy` can return on `board`: the options it hands to rng.choice, each
    of which it returns when that option is picked."""
    spy = SpyRandom()
    strategy(board, spy)
    assert len(spy.offered) == 1, "one random choice per move"
    options = spy.offered[0]
    assert len(set(options)) == len(options), "no option is weighted twice"
    for pick, option in enumerate(options):
        assert strategy(board, SpyRandom(pick)) == option
    return options
