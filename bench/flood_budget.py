"""Benchmark: what one token of the shared flood budget costs (`bot.flood_budget`).

Run from the repository root:

    .venv/bin/python bench/flood_budget.py [--takes 300] [--postgres postgresql+asyncpg://…]

Takes `--takes` tokens one after another for a message to a group (its chat's bucket and the
whole bot's: one transaction, an upsert and an update) on a fresh, migrated SQLite file, and on
PostgreSQL when given a database (migrated to the head first, as the bot would).
The buckets are never short (limits far above the takes), so each figure is one round of the
database alone. Prints the median and the 90th percentile in milliseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


async def cost(database_url: str, takes: int) -> list[float]:
    from bot.flood_budget import SharedBudget
    from bot.games.db.engine import create_engine
    from bot.games.db.migrate import upgrade_database
    from bot.telegram.flood_limits import FloodLimits, Pace, Rate

    await asyncio.to_thread(upgrade_database, database_url)
    engine = create_engine(database_url)
    limits = FloodLimits(overall=Rate(10**9, 1.0), group=Rate(10**9, 1.0), reserve=0)
    budget = SharedBudget(engine, limits)
    times = []
    try:
        for i in range(takes + 10):
            started = time.perf_counter()
            assert await budget.take(-100_000 - i % 50, Pace.PERSON) is None
            if i >= 10:  # the first ones open connections
                times.append((time.perf_counter() - started) * 1000)
    finally:
        await engine.dispose()
    return times


def report(name: str, times: list[float]) -> None:
    p90 = statistics.quantiles(times, n=10)[-1]
    print(f"| {name} | {statistics.median(times):.2f} ms | {p90:.2f} ms |")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--takes", type=int, default=300)
    parser.add_argument("--postgres", help="a PostgreSQL URL (postgresql+asyncpg://…)")
    args = parser.parse_args()
    print(f"One shared token, {args.takes} takes one after another:\n")
    print("| database | median | 90th percentile |\n| --- | --- | --- |")
    with tempfile.TemporaryDirectory() as workdir:
        url = f"sqlite+aiosqlite:///{Path(workdir) / 'bench.sqlite3'}"
        report("SQLite file", asyncio.run(cost(url, args.takes)))
    if args.postgres:
        report("PostgreSQL", asyncio.run(cost(args.postgres, args.takes)))


if __name__ == "__main__":
    main()
