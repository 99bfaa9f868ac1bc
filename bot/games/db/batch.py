"""A write transaction's deferred writes (`Later`): what each is, what it must do, and what came
back. `writes.CoreTransaction` sends them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class GuardFailed(Exception):
    """A statement that the rest of the transaction depends on returned no row (an update
    claimed already): nothing of the transaction happened."""


@dataclass
class Later:
    """A write sent before the transaction's next statement or at its commit."""

    statement: Any
    parameters: Any  # a dict, or a list of dicts for an executemany
    #: Must return a row, else `GuardFailed` and nothing of the transaction happens.
    guard: bool = False
    #: Must change exactly one row (a versioned UPDATE), else `StaleDataError`.
    one_change: bool = False
    #: The first row it returned, once sent (RETURNING).
    row: Any = None
