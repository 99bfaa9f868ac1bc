"""A move changes only what it changed on the board (board.js): the cells are made once, and
a MutationObserver counts what each move then changes (bench/page_open.py prints the same
figures): every node added or removed, with what is in it, and every change of an attribute
or a text, on the board and the fieldset that locks it, and on the board's edges (its rows'
and columns' words, drawn once for the board's shape)."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest

from tests.support.fake_telegram import FakeTelegram
from tests.webapp.browser import open_page
from tests.webapp.support import auth, bot_with_mini_app, call

pytestmark = pytest.mark.browser

ALICE = FakeTelegram.user(1001, "Alice", language_code="en")
# From the page's settling on: each change on the board, its lock and its edges, in
# window.changes.
COUNT_CHANGES = """() => {
  if (window.counting) window.counting.disconnect();
  window.changes = 0;
  window.counting = new MutationObserver((records) => {
    for (const record of records) {
      if (record.type !== "childList") { window.changes += 1; continue; }
      for (const node of [...record.addedNodes, ...record.removedNodes]) {
        const walker = document.createTreeWalker(node);
        for (let n = node; n; n = walker.nextNode()) window.changes += 1;
      }
    }
  });
  const board = document.getElementById("board");
  const everything = { childList: true, subtree: true, attributes: true, characterData: true };
  window.counting.observe(board, everything);
  window.counting.observe(board.closest("fieldset"), { attributes: true });
  window.counting.observe(document.getElementById("board-frame"), { attributes: true });
  for (const id of ["columns", "rows"]) {
    window.counting.observe(document.getElementById(id), everything);
  }
  window.firstCell = board.querySelector(".cell");
}"""


async def changes_per_move(page: Any, moves: int) -> list[int]:
    """What each of `moves` taps (two players on one phone: a move each) changes."""
    counts = []
    for _ in range(moves):
        ply = int(await page.get_attribute("#board", "data-ply") or 0)
        await page.wait_for_selector("#board .cell:enabled")
        await page.wait_for_timeout(300)  # settled: the last mark grown, the stream's state
        await page.evaluate(COUNT_CHANGES)
        cells = page.locator("#board .cell:enabled")
        await cells.nth(await cells.count() // 2).click()
        await page.wait_for_selector(f"#board[data-ply='{ply + 1}'] .cell:enabled")
        await page.wait_for_timeout(300)  # the move's answer and the live stream's, both in
        counts.append(await page.evaluate("window.changes"))
        # The same cells, changed, never made again.
        assert await page.evaluate("document.querySelector('#board .cell') === window.firstCell")
    return counts


@pytest.mark.parametrize("width", [320, 390])
async def test_a_move_changes_a_few_nodes_of_the_board_whatever_its_size(
    telegram: FakeTelegram, database_url: str, browser: Any, width: int
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, base):
        telegram.add_chat(FakeTelegram.private_chat(ALICE))
        counts = {}
        for name, board in (
            ("8×8", {"size": 8}),
            ("3×3", {"size": 3}),
            ("ultimate", {"ultimate": True}),
        ):
            async with aiohttp.ClientSession() as http:
                status, started = await call(
                    http,
                    "POST",
                    base + "api/games",
                    auth(telegram, ALICE),
                    {"level": "user", **board},
                )
            assert status == 201
            url = base + "?game=" + started["game"]["id"]
            page, _ = await open_page(browser, url, telegram.token, ALICE, width=width)
            counts[name] = await changes_per_move(page, 4)
            await page.context.close()
    # A mark (its cell's class, name and drawing, and the last move's ring moved), the turn's
    # lock, the move number and the cell in the tab order: the same on 8×8 as on 3×3, where
    # the whole board was drawn again (600 changes a move on 8×8).
    assert max(counts["8×8"]) <= 20, counts
    assert max(counts["3×3"]) <= 20, counts
    # Ultimate: the small boards in and out of play too.
    assert max(counts["ultimate"]) <= 32, counts
