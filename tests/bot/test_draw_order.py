"""A game's drawings in this process: one at a time, and under a chat's pace only the newest
version waiting goes out. Stand-in drawings record what they would draw; every assertion is
on order, never on timings."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, cast

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.chat.draw_order import DrawOrder
from bot.games.model import GameView
from bot.telegram.flood_gate import running_slot


@dataclass(frozen=True)
class Version:
    """What the draw order reads of a game: its id and version."""

    id: int
    version: int


def game(version: int) -> GameView:
    return cast(GameView, Version(7, version))


class Drawings:
    """Drawings of game 7 that take their turn, then (the first) wait for the test."""

    def __init__(self, order: DrawOrder) -> None:
        self.order = order
        self.drawn: list[int] = []
        self.skipped: list[int] = []
        self.paced = asyncio.Event()

    async def draw(self, version: int) -> None:
        async with self.order.in_order(7, version):
            if self.order.is_superseded(game(version)):
                self.skipped.append(version)
                return
            self.drawn.append(version)
            if version == 1:
                await self.paced.wait()  # the chat's pace holds the first edit


async def let_run() -> None:
    for _ in range(10):
        await asyncio.sleep(0)


async def test_only_the_newest_version_waiting_is_drawn() -> None:
    drawings = Drawings(DrawOrder())
    tasks = [asyncio.create_task(drawings.draw(1))]
    await let_run()
    tasks += [asyncio.create_task(drawings.draw(v)) for v in (2, 3, 4)]
    await let_run()
    assert drawings.drawn == [1]
    drawings.paced.set()
    await asyncio.gather(*tasks)
    assert drawings.drawn == [1, 4] and drawings.skipped == [2, 3]


async def test_a_newer_drawing_cancelled_while_it_waits_supersedes_nothing() -> None:
    drawings = Drawings(DrawOrder())
    first = asyncio.create_task(drawings.draw(1))
    await let_run()
    second = asyncio.create_task(drawings.draw(2))
    third = asyncio.create_task(drawings.draw(3))
    await let_run()
    third.cancel()
    drawings.paced.set()
    await asyncio.gather(first, second, third, return_exceptions=True)
    assert drawings.drawn == [1, 2]
    assert not drawings.order.is_drawing(7)


class StandInSlot:
    def __init__(self) -> None:
        self.steps: list[str] = []

    def step_out(self) -> bool:
        self.steps.append("out")
        return True

    async def step_in(self) -> None:
        self.steps.append("in")


async def test_waiting_for_another_drawing_gives_the_updates_slot_back() -> None:
    drawings = Drawings(DrawOrder())
    first = asyncio.create_task(drawings.draw(1))
    await let_run()
    slot = StandInSlot()

    async def second() -> None:
        running_slot.set(cast(Any, slot))  # this task's own context
        await drawings.draw(2)

    waiting = asyncio.create_task(second())
    await let_run()
    assert slot.steps == ["out"]
    drawings.paced.set()
    await asyncio.gather(first, waiting)
    assert slot.steps == ["out", "in"] and drawings.drawn == [1, 2]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(min_value=1, max_value=6), st.booleans(), st.booleans()),
        min_size=1,
        max_size=8,
    )
)
def test_drawings_end_on_the_newest_version_asked_for_in_order(
    asked: list[tuple[int, bool, bool]],
) -> None:
    """Drawings of versions in any order, some paced (they wait for the test), some
    cancelled while they wait: the drawn versions never go back, and the last drawn is the
    newest that was not cancelled before its turn."""

    async def run() -> None:
        order = DrawOrder()
        drawn: list[int] = []
        release = asyncio.Event()

        async def draw(version: int, paced: bool) -> None:
            async with order.in_order(7, version):
                if order.is_older(game(version)) or order.is_superseded(game(version)):
                    return
                order.showing(game(version))
                drawn.append(version)
                if paced:
                    await release.wait()

        tasks = []
        for version, paced, cancelled in asked:
            task = asyncio.create_task(draw(version, paced))
            await let_run()
            tasks.append((version, task, cancelled and not task.done()))
        for _, task, cancelled in tasks:
            if cancelled:
                task.cancel()
        release.set()
        await asyncio.gather(*(task for _, task, _ in tasks), return_exceptions=True)
        # The newest version that was drawn or never cancelled is the last one drawn.
        survivors = [v for v, _, cancelled in tasks if not cancelled] + drawn
        assert drawn == sorted(drawn)
        assert not survivors or drawn[-1] == max(survivors)
        assert not order.is_drawing(7)

    asyncio.run(run())
