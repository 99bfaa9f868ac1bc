"""A write transaction's deferred writes (`Later`) and the batches they are sent in: what each
statement is and what came back. The drivers run them (`sqlite_driver`, `asyncpg_batch`);
`writes` builds them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class BatchItem:
    """One statement of a batch: SQL in the driver's own style (`?` for SQLite, `$1` for
    asyncpg) with its parameters (a list of parameter tuples for `many`), and what must hold
    for the batch to go on."""

    sql: str
    parameters: Any
    many: bool = False
    #: It returns rows (a SELECT, or RETURNING).
    returns_rows: bool = False
    #: It must return a row (an INSERT … RETURNING that a conflict made do nothing).
    needs_row: bool = False
    #: It must change exactly one row (a versioned UPDATE).
    needs_one_change: bool = False


@dataclass(frozen=True)
class BatchOutcome:
    #: The first row each statement returned (None: none), for those that ran.
    rows: list[Any]
    #: The statement whose condition failed (the ones after it did not run), or None.
    failed_at: int | None = None


class GuardFailed(Exception):
    """A statement that the rest of the transaction depends on returned no row (an update
    claimed already): nothing of the transaction happened."""


@dataclass
class Later:
    """A write sent with the transaction's next statement or at its commit, all in one go."""

    statement: Any
    parameters: Any  # a dict, or a list of dicts for an executemany
    #: Must return a row, else `GuardFailed` and nothing of the transaction happens.
    guard: bool = False
    #: Must change exactly one row (a versioned UPDATE), else `StaleDataError`.
    one_change: bool = False
    #: The row it returned, once sent (RETURNING).
    row: Any = None
