"""What the search knows of a (size, k) board before any mark is on it: its lines, the lines
through each cell, each cell's neighbourhood, the static weights of open lines and the
centre. Computed once per board shape."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from core.rules import lines

NEAR = 2  # candidate moves lie within this (king-move) distance of a mark
BASE = 8  # each extra mark in an open line weighs this many times more


@dataclass(frozen=True, slots=True)
class Geometry:
    """Everything about a (size, k) board that does not depend on the marks."""

    size: int
    k: int
    lines: tuple[tuple[int, ...], ...]
    cell_lines: tuple[tuple[int, ...], ...]  # line indexes through each cell
    neighbours: tuple[tuple[int, ...], ...]  # cells within NEAR of each cell
    weight: tuple[int, ...]  # static value of an open line with n own marks
    gain: tuple[int, ...]  # static gain of adding a mark to an open line with n marks
    attack: tuple[int, ...]  # ordering value of extending an own open line with n marks
    defend: tuple[int, ...]  # ordering value of blocking an opponent line with n marks
    centre: tuple[int, ...]  # the central cell(s)


@cache
def geometry(size: int, k: int) -> Geometry:
    all_lines = lines(size, k)
    through: list[list[int]] = [[] for _ in range(size * size)]
    for index, line in enumerate(all_lines):
        for cell in line:
            through[cell].append(index)
    neighbours = []
    for cell in range(size * size):
        row, col = divmod(cell, size)
        neighbours.append(
            tuple(
                r * size + c
                for r in range(max(0, row - NEAR), min(size, row + NEAR + 1))
                for c in range(max(0, col - NEAR), min(size, col + NEAR + 1))
                if (r, c) != (row, col)
            )
        )
    weight = tuple(0 if n == 0 else BASE ** (n - 1) for n in range(k + 1))
    gain = tuple(weight[n + 1] - weight[n] if n < k else 0 for n in range(k + 1))
    # Ordering: making a k−1 line (a threat that must be answered) outranks everything else
    # the generator can see (a win or a forced block never reaches it); blocking an
    # opponent's k−2 line comes next.
    attack = tuple(
        BASE ** (k + 2) if n == k - 2 else (BASE**n if n < k - 2 else 0) for n in range(k + 1)
    )
    defend = tuple(
        0 if n == 0 else (BASE ** (k + 1) if n == k - 2 else BASE ** (n - 1) * 3)
        for n in range(k + 1)
    )
    half = (size - 1) / 2
    centre = tuple(
        cell
        for cell in range(size * size)
        if abs(cell // size - half) < 1 and abs(cell % size - half) < 1
    )
    return Geometry(
        size=size,
        k=k,
        lines=all_lines,
        cell_lines=tuple(tuple(t) for t in through),
        neighbours=tuple(neighbours),
        weight=weight,
        gain=gain,
        attack=attack,
        defend=defend,
        centre=centre,
    )
