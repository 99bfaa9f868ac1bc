"""A write transaction's statements straight on asyncpg, on the connection SQLAlchemy lent.

Through SQLAlchemy's adapter every statement costs more CPU than asyncpg's own round trip (a
greenlet switch, a cursor, a result object), and a transaction's BEGIN and COMMIT are two more
such calls. A transaction's deferred writes, which need nothing back until the commit, go here:
BEGIN, the statements and COMMIT on asyncpg, or a lone statement on its own (one statement is
a transaction by itself; a move's writes are made one: `fused_writes`). Their compiled SQL
comes from SQLAlchemy (`writes`).
"""

from __future__ import annotations

import contextlib
from typing import Any

import asyncpg
from sqlalchemy.exc import IntegrityError

from bot.games.db.batch import BatchItem, BatchOutcome


async def run_batch(connection: asyncpg.Connection, items: list[BatchItem]) -> BatchOutcome:
    """Run `items` in order and stop at the first whose condition fails; commit them unless
    the connection is in a transaction already (SQLAlchemy's, which it commits itself): then
    they are part of it. A batch that stops has changed nothing it leaves behind."""
    if connection.is_in_transaction() or len(items) == 1:
        # A lone statement whose condition fails changed nothing: no row inserted, none updated.
        return await _run(connection, items)
    transaction = connection.transaction()
    await transaction.start()
    try:
        outcome = await _run(connection, items)
    except BaseException:
        with contextlib.suppress(Exception):  # a lost connection cannot roll back; the server did
            await transaction.rollback()
        raise
    if outcome.failed_at is None:
        await transaction.commit()
    else:
        await transaction.rollback()
    return outcome


async def _run(connection: asyncpg.Connection, items: list[BatchItem]) -> BatchOutcome:
    rows: list[Any] = []
    for index, item in enumerate(items):
        try:
            returned, changed = await _execute(connection, item)
        except asyncpg.IntegrityConstraintViolationError as error:
            # What SQLAlchemy would raise: the store answers it as a lost race.
            raise IntegrityError(item.sql, item.parameters, error) from error
        rows.append(returned)
        if (item.needs_row and returned is None) or (item.needs_one_change and changed != 1):
            return BatchOutcome(rows, index)
    return BatchOutcome(rows)


async def _execute(connection: asyncpg.Connection, item: BatchItem) -> tuple[Any, int]:
    """The statement's first row (None: none) and how many rows it changed."""
    if item.many:
        await connection.executemany(item.sql, item.parameters)
        return None, len(item.parameters)
    if item.returns_rows:
        found = await connection.fetch(item.sql, *item.parameters)
        return (found[0] if found else None), len(found)
    status = await connection.execute(item.sql, *item.parameters)
    # "UPDATE 1", "DELETE 0", "INSERT 0 1": the count is the last word.
    return None, int(status.rsplit(" ", 1)[-1])
