"""Benchmark: the time from a tap to the AI's reply on screen, against hard in a private chat.

Run from the repository root:

    .venv/bin/python bench/reply.py [--taps 30] [--sizes 3,6,8] [--pauses 1.5,0.3]
                                    [--tree PATH]

A person plays ❌ against hard (`/start hard N`, the board's default k) by taps, against the
real bot (`tests/support/bot_runner.py`, a SQLite file, the flood limits it keeps in
production) and the fake Bot API server of the tests under Telegram's flood limits (a private
chat: one message a second, bursts of 3; the fake answers 429 past them). The person taps a
random free cell of the board as shown, once the board shows it is their turn and no sooner
than --pause seconds after their previous tap; a finished game is followed by a new `/start`.
The figure is the time from queuing a tap to the fake's receiving the edit that shows the AI's
reply (one more ⭕ on the board); taps that end the game themselves are not counted. It
prints p50 and p95 per size and pause over --taps replies.

--tree runs another checkout's bot and fake (a worktree of an older commit, say) with this
bench: that directory goes first on sys.path.
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

ALICE_ID = 2001


async def replies(size: int, pause: float, taps: int, seed: int) -> list[float]:
    """The tap → reply times of `taps` replies of hard on a `size` board."""
    from bot.telegram.flood_gate import TELEGRAM_FLOOD_LIMITS
    from tests.support.bot_runner import BotRunner, settle
    from tests.support.chat import RESULTS, board_cells, cell_data, current
    from tests.support.fake_telegram import FakeTelegram

    rng = random.Random(seed)
    alice = FakeTelegram.user(ALICE_ID, "Alice")
    waits: list[float] = []
    with tempfile.TemporaryDirectory() as workdir:
        async with FakeTelegram() as telegram:
            telegram.enforce_flood_limits(private=(1, 1.0, 3))
            url = f"sqlite+aiosqlite:///{Path(workdir) / 'bot.sqlite3'}"
            runner = BotRunner(telegram, url, flood_limits=TELEGRAM_FLOOD_LIMITS)
            await runner.start()
            try:
                board = None
                last_tap = -float("inf")

                def shown() -> str:
                    assert board is not None
                    return board_cells(telegram, current(telegram, board), size)

                def over() -> bool:
                    assert board is not None
                    lines = current(telegram, board).text.splitlines()
                    return any(word in lines for word in RESULTS)

                while len(waits) < taps:
                    await asyncio.sleep(max(0.0, last_tap + pause - time.perf_counter()))
                    if board is None or over():
                        telegram.send_text(alice, f"/start hard {size}")
                        await settle(telegram)
                        board = telegram.last_bot_message(ALICE_ID)
                        await telegram.wait_until(
                            lambda: shown().count("X") == shown().count("O"), timeout=60
                        )
                    cells = shown()
                    replied_at = cells.count("O") + 1
                    cell = rng.choice([i for i, mark in enumerate(cells) if mark == "_"])
                    last_tap = time.perf_counter()
                    message = current(telegram, board)
                    telegram.tap(alice, message, cell_data(telegram, message, cell))
                    await telegram.wait_until(
                        lambda o=replied_at: shown().count("O") >= o or over(), timeout=60
                    )
                    if shown().count("O") >= replied_at:
                        waits.append(time.perf_counter() - last_tap)
            finally:
                await runner.stop()
    return waits


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--taps", type=int, default=30, help="replies measured per row")
    parser.add_argument("--sizes", default="3,6,8")
    parser.add_argument("--pauses", default="1.5,0.3")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tree", help="another checkout to run (first on sys.path)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(Path(args.tree or Path(__file__).parent.parent).resolve()))
    import logging

    logging.disable(logging.WARNING)  # the bench's own figures only; 429s are expected
    sizes = [int(part) for part in args.sizes.split(",")]
    pauses = [float(part) for part in args.pauses.split(",")]
    print(f"tree: {args.tree or 'this checkout'}; {args.taps} replies a row")
    print("| board | a tap every | p50 | p95 | max | replies |")
    print("| --- | --- | --- | --- | --- | --- |")
    for size in sizes:
        for pause in pauses:
            waits = asyncio.run(replies(size, pause, args.taps, args.seed))
            print(
                f"| {size}×{size} | {pause:g} s | {statistics.median(waits):.2f} s "
                f"| {percentile(waits, 0.95):.2f} s | {max(waits):.2f} s | {len(waits)} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
