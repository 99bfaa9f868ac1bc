"""Benchmark: how many matchmaking queue operations one instance holds, on the use-cases over a
real database (a SQLite file, or --database-url postgresql+asyncpg://…).

Run from the repository root:

    .venv/bin/python bench/matchmaking.py [--players 400] [--concurrency 16] [--runs 3]
                                    [--database-url URL]

Three figures, each the median of --runs runs on a fresh database:
- join and pair: --players people join the 3×3 queue, --concurrency at a time, all with the
  newcomer's rating, so every second join pairs (one game started for two joins);
- join and cancel: as many people join and then cancel, with ratings 1,000 apart so that
  nobody pairs (each join also tries to pair, and reads the whole queue to do so);
- a round: the time of one pairing round (`pair_waiting`, what every instance runs every
  2 s) over a queue of --players people nobody can be paired with.
An operation is one use-case call (a join, a cancel); a pairing is inside its join.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import delete

from bot.games.db.engine import create_engine, create_session_factory
from bot.games.db.migrate import upgrade_database
from bot.games.db.models import Game, Move, Player, QueueEntry, Rating, utcnow
from bot.games.model import PlayerInfo
from bot.games.use_cases import Games, open_games


async def bounded(work: list, concurrency: int) -> None:
    gate = asyncio.Semaphore(concurrency)

    async def one(job: object) -> None:
        async with gate:
            await job  # type: ignore[misc]

    await asyncio.gather(*(one(job) for job in work))


async def join_and_pair(games: Games, players: int, concurrency: int) -> tuple[float, int]:
    """Joins a second, and the games the joins themselves started (the rest: the round's)."""
    people = [PlayerInfo(10_000 + i, f"P{i}", "en") for i in range(players)]
    started = time.perf_counter()
    await bounded([games.matchmaking.join(p, p.id, "3x3", "en") for p in people], concurrency)
    took = time.perf_counter() - started
    # Joins that raced each other's pairing stay queued for the next round (every 2 s).
    leftover = len(await games.matchmaking.pair_waiting())
    made = len({(await games.matchmaking.stranger_game_of(p.id)) for p in people} - {None})
    return players / took, made - leftover


async def join_and_cancel(games: Games, players: int, concurrency: int) -> float:
    people = [PlayerInfo(20_000 + i, f"Q{i}", "en") for i in range(players)]
    now = utcnow()
    async with games.store.transaction() as session:
        for i, person in enumerate(people):  # rated 1,000 apart on big boards: nobody pairs
            await session.execute(Player.__table__.insert().values(id=person.id, name="Q"))
            await session.execute(
                Rating.__table__.insert().values(
                    player_id=person.id,
                    pool="big",
                    rating=1000.0 * i,
                    deviation=100.0,
                    volatility=0.06,
                    games=1,
                    last_change=0,
                    updated_at=now,
                )
            )

    async def join_then_cancel(person: PlayerInfo) -> None:
        await games.matchmaking.join(person, person.id, "5x5k4", None)
        assert await games.matchmaking.cancel(person.id) is not None

    started = time.perf_counter()
    await bounded([join_then_cancel(p) for p in people], concurrency)
    return 2 * players / (time.perf_counter() - started)


async def one_round(games: Games, players: int) -> float:
    people = [PlayerInfo(20_000 + i, f"Q{i}", "en") for i in range(players)]
    for person in people:  # rated 1,000 apart (`join_and_cancel`): nobody pairs
        await games.matchmaking.join(person, person.id, "5x5k4", None)
    started = time.perf_counter()
    made = await games.matchmaking.pair_waiting()
    assert made == [], "nobody should be pairable"
    return time.perf_counter() - started


async def one_run(url: str, players: int, concurrency: int) -> tuple[float, int, float, float]:
    await asyncio.to_thread(upgrade_database, url)
    engine = create_engine(url)
    try:
        games = open_games(create_session_factory(engine), random.Random(1))
        paired_rate, made = await join_and_pair(games, players, concurrency)
        cancel_rate = await join_and_cancel(games, players, concurrency)
        round_seconds = await one_round(games, players)
        async with games.store.transaction() as session:  # a clean slate for the next run
            for table in (QueueEntry, Rating, Move, Game, Player):
                await session.execute(delete(table))
        return paired_rate, made, cancel_rate, round_seconds
    finally:
        await engine.dispose()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=400)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--database-url", help="default: a SQLite file in a temporary folder")
    args = parser.parse_args(argv)
    results = []
    with tempfile.TemporaryDirectory() as folder:
        for run in range(args.runs):
            url = args.database_url or f"sqlite+aiosqlite:///{Path(folder) / f'q{run}.sqlite3'}"
            results.append(asyncio.run(one_run(url, args.players, args.concurrency)))
    paired, made, cancels, rounds = zip(*results, strict=True)
    where = "PostgreSQL" if args.database_url else "SQLite"
    print(f"{where}, {args.players} players, {args.concurrency} at a time, median of {args.runs}:")
    print("| operation | per second (median) | runs |")
    print("| --- | --- | --- |")
    print(
        f"| join and pair (every 2nd join starts a game: {made[0]} of {args.players // 2} "
        "at once, the rest in the next round) "
        f"| {statistics.median(paired):,.0f} | {', '.join(f'{r:,.0f}' for r in paired)} |"
    )
    print(
        f"| join and cancel | {statistics.median(cancels):,.0f} "
        f"| {', '.join(f'{r:,.0f}' for r in cancels)} |"
    )
    print(
        f"| a pairing round over {args.players} waiting (ms) "
        f"| {statistics.median(rounds) * 1e3:.1f} | {', '.join(f'{r * 1e3:.1f}' for r in rounds)} |"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
