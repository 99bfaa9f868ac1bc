"""PostgreSQL: a pooled connection the server dropped (a restart, an idle timeout,
`pg_terminate_backend`) is replaced before use, as `pool_pre_ping` would, without its cost.

SQLAlchemy's pre-ping for asyncpg is three round trips per checkout (BEGIN, a query, ROLLBACK),
a wait on the bot's busiest path. A connection resting in the pool is still read by the event
loop: when the server says goodbye (its "terminating connection" message, then the end of the
stream), asyncpg marks the connection closed. So a checkout asks asyncpg's public
`Connection.is_closed()`, with no round trip, and replaces a closed connection. One that the
server drops in the instant between the loop's last read and the checkout fails its first
statement instead; SQLAlchemy sees a disconnect there and replaces it too (the pool's
other connections with it).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import event, exc
from sqlalchemy.ext.asyncio import AsyncEngine


def replace_on_checkout(engine: AsyncEngine) -> None:
    """Check every pooled connection of this (asyncpg) engine as it is checked out, and
    replace a closed one; as after a failed pre-ping, the whole pool is replaced then
    (connections older than this one are suspect too)."""

    @event.listens_for(engine.sync_engine, "checkout")
    def _check(_dbapi_connection: Any, _record: Any, proxy: Any) -> None:
        if proxy.driver_connection.is_closed():
            raise exc.InvalidatePoolError("the server closed the connection")
