"""PostgreSQL: a pooled connection the server dropped (a restart, an idle timeout,
`pg_terminate_backend`) is replaced before use, as `pool_pre_ping` would, without its cost.

SQLAlchemy's pre-ping for asyncpg is three round trips per checkout (BEGIN, a query, ROLLBACK),
and even one is a wait the bot's busiest path does not need: a connection resting in the pool
has nothing to read unless the server said goodbye (its "terminating connection" message, or
the end of the stream). So a checkout asks the kernel whether the socket is readable (one
`poll`, no round trip) and pings only a connection that is, or whose socket it cannot see.
"""

from __future__ import annotations

import select
from typing import Any

from sqlalchemy import event, exc
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.util import await_

_POLLER = "poller"


def replace_on_checkout(engine: AsyncEngine) -> None:
    """Check every pooled connection of this (asyncpg) engine as it is checked out, and
    replace a dropped one; a failed check invalidates the whole pool, as pre-ping does."""
    import asyncpg  # only a PostgreSQL bot needs it

    # A connection the server dropped fails in any of these ways (the last when asyncpg read the
    # server's goodbye but not yet the end of the stream).
    lost = (asyncpg.PostgresError, asyncpg.InterfaceError, OSError, asyncpg.InternalClientError)

    @event.listens_for(engine.sync_engine, "connect")
    def _watch(dbapi_connection: Any, record: Any) -> None:
        record.info[_POLLER] = _poller_of(dbapi_connection.driver_connection)
        record.info["fresh"] = True

    @event.listens_for(engine.sync_engine, "checkout")
    def _check(_dbapi_connection: Any, record: Any, proxy: Any) -> None:
        if record.info.pop("fresh", False):
            return  # opened for this very checkout
        driver = proxy.driver_connection
        closed = driver.is_closed()
        poller = record.info.get(_POLLER)
        if not closed and poller is not None and not poller.poll(0):
            return  # nothing came from the server since the connection was last used
        try:
            if closed:
                raise ConnectionError("closed by the server")
            await_(driver.execute("SELECT 1"))
        except lost as error:
            # As after a failed pre-ping: connections older than this one are suspect too.
            raise exc.InvalidatePoolError(str(error)) from error


def _poller_of(connection: Any) -> select.poll | None:
    """A poll object on the connection's socket, or None if asyncpg does not show it (then
    every checkout pings)."""
    transport = getattr(connection, "_transport", None)
    sock = transport.get_extra_info("socket") if transport is not None else None
    if sock is None:
        return None
    poller = select.poll()
    poller.register(sock.fileno(), select.POLLIN)
    return poller
