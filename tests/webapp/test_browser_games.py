"""The Mini App in Chromium at phone size: ultimate tic-tac-toe as nine small boards in the
chat's cell order, and a group game played on two pages while a member watches on a third."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.e2e.test_matchmaking import boards_of
from tests.support.chat import press, send, tap_cell
from tests.support.fake_telegram import FakeTelegram
from tests.webapp.browser import open_new_game, open_page, page_cells, play_on, screenshot, wait_ply
from tests.webapp.support import bot_with_mini_app, public_id_on

# Every test here drives the page in Chromium.
pytestmark = pytest.mark.browser

ALICE = FakeTelegram.user(1001, "Alice", language_code="en")
BOB = FakeTelegram.user(1002, "Bartholomew Montgomery-Smythe", language_code="en")
CAROL = FakeTelegram.user(1003, "Carol", language_code="en")
GROUP = FakeTelegram.group_chat(-100500, "Friends")


async def test_ultimate_on_the_page_as_nine_small_boards(
    telegram: FakeTelegram, database_url: str, browser: Any
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, _page_url):
        await send(telegram, ALICE, "/start ultimate easy")
        board = telegram.last_bot_message(ALICE["id"])
        # Ultimate's chat board opens the page like any other board.
        url = board.reply_markup["inline_keyboard"][-1][0]["web_app"]["url"]
        page, _ = await open_page(browser, url, telegram.token, ALICE)
        await wait_ply(page, 0)
        assert await page.locator("#board .block").count() == 9
        assert await page.locator("#board .block.lit").count() == 9
        # Row 1, column 4 is small board 2's first cell (core's cell 9), top row, 4th column.
        cell = "#board .cell[data-cell='9']"
        assert await page.get_attribute(cell, "aria-label") == "Row 1, column 4: empty"
        box, left = await _boxes(page, cell, "#board .cell[data-cell='2']")
        assert box["y"] == left["y"] and box["x"] > left["x"]
        await page.click(cell)
        await wait_ply(page, 2)
        position = [line for line in telegram.last_bot_message(ALICE["id"]).text.splitlines()]
        rows = [line.split(" ") for line in position if len(line.split(" ")) == 3]
        assert rows[0][1][0] == "❌"  # the chat shows it at row 1, column 4 too
        # Only the free cells of the small boards in play are clickable.
        state = await page.evaluate(
            "fetch('api/games/' + new URLSearchParams(location.search)"
            ".get('game'), {headers: {Authorization: 'tma ' +"
            " Telegram.WebApp.initData}}).then(r => r.json())"
        )
        legal = state["game"]["legal"]
        enabled = await page.eval_on_selector_all(
            "#board .cell:enabled", "c => c.map(e => +e.dataset.cell)"
        )
        assert sorted(enabled) == sorted(legal) and len(enabled) < 81 - 2
        lit = await page.eval_on_selector_all(
            "#board .block.lit", "b => b.map(e => +e.dataset.block)"
        )
        assert all(cell // 9 in lit for cell in enabled)
        for _ in range(6):
            ply = int(await page.get_attribute("#board", "data-ply"))
            await page.click("#board .cell:enabled")
            await page.wait_for_selector(f"#board:not([data-ply='{ply}'])")
        await screenshot(page, "miniapp-ultimate.png")
        await play_on(page)
        assert await page.get_attribute("#board", "data-status") == "finished"
        cells = await page_cells(page)
        assert len(cells) == 81
        if "wins" in await page.text_content("#status"):
            assert await page.locator("#board .block.win").count() >= 3
            assert await page.locator("#board svg.lines line").count() >= 1


async def test_a_group_game_on_two_pages_and_a_spectator(
    telegram: FakeTelegram, database_url: str, browser: Any
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page_url):
        group = telegram.add_chat(GROUP)
        telegram.set_member(group, CAROL)  # in the group, not in the game
        await send(telegram, ALICE, "/challenge", chat=group)
        board = telegram.last_bot_message(group["id"])
        await press(telegram, BOB, board, "✋ Join")
        url = f"{page_url}?game={public_id_on(telegram, board)}"
        pages = {}
        for user in (ALICE, BOB, CAROL):
            pages[user["id"]], _ = await open_page(browser, url, telegram.token, user)
        for page in pages.values():
            await wait_ply(page, 0)
        alice, bob, carol = pages[ALICE["id"]], pages[BOB["id"]], pages[CAROL["id"]]
        # Carol watches: the whole game, live, nothing clickable, no buttons, said in words.
        assert await carol.text_content("#where") == "You are watching: only the players can move."
        assert await carol.locator("#actions button").count() == 0
        assert await bob.locator("#board .cell:enabled").count() == 0
        # Bob's long name is shortened with an ellipsis; "(you)" stays whole.
        chip = "#players .player[data-mark='O']"
        assert await bob.text_content(chip + " .you") == "\u00a0(you)"
        assert await bob.eval_on_selector(chip + " .name", "e => e.scrollWidth > e.clientWidth")
        right = await bob.eval_on_selector(chip, "e => e.getBoundingClientRect().right")
        assert right <= 390
        ply = 0
        while await carol.get_attribute("#board", "data-status") == "active":
            mover = alice if ply % 2 == 0 else bob
            await mover.click("#board .cell:enabled")
            ply += 1
            for page in pages.values():
                await wait_ply(page, ply)
            assert await carol.locator("#board .cell:enabled").count() == 0
        assert await page_cells(carol) == await page_cells(alice) == await page_cells(bob)
        status = await carol.text_content("#status")
        assert status in ("Alice wins! 🎉", "Nobody loses 🤝")
        assert await alice.text_content("#status") in (
            "You won! 🎉 Nicely played.",
            "Nobody loses 🤝",
        )
        # Of the finished game's buttons, a spectator has only the replay.
        assert await carol.eval_on_selector_all(
            "#actions button", "b => b.map(e => e.dataset.action)"
        ) == ["replay"]
        assert await bob.locator("#actions [data-action='rematch']").count() == 1
        await bob.click("#actions [data-action='rematch']")
        await bob.wait_for_selector("#board[data-status='open']")
        # Bob's offer, in the chat board's words, and his Cancel.
        offer = "Bartholomew Montgomery-Smythe offers Alice a rematch with sides swapped. Accept?"
        assert await bob.text_content("#status") == offer
        assert await bob.locator("#actions [data-action='cancel']").count() == 1
        # Alice sees it under the game that ended, and accepts it there: both play it.
        await alice.wait_for_selector("#actions [data-action='accept']")
        assert await alice.text_content("#actions .ask") == offer
        await alice.click("#actions [data-action='accept']")
        await alice.wait_for_selector("#board[data-status='active']")
        await bob.wait_for_selector("#board[data-status='active']")
        assert await alice.get_attribute("#board", "data-your-turn") == "false"  # Bob is ❌
        assert await bob.get_attribute("#board", "data-your-turn") == "true"


async def _boxes(page: Any, *selectors: str) -> list[dict[str, float]]:
    """The cells' boxes, once the page has drawn them all (a redraw replaces the board's
    elements: one caught between two drawings has no box)."""
    for _ in range(50):
        boxes = [await page.locator(selector).bounding_box() for selector in selectors]
        if all(box is not None for box in boxes):
            return boxes
        await asyncio.sleep(0.05)
    raise AssertionError(f"no boxes for {selectors}")


@pytest.mark.parametrize(("width", "scheme"), [(320, "dark"), (390, "light")])
async def test_a_finished_game_replays_move_by_move_on_the_page(
    telegram: FakeTelegram, database_url: str, browser: Any, width: int, scheme: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, _page_url):
        page, _board = await open_new_game(
            telegram, browser, ALICE, "/start hard", scheme=scheme, width=width
        )
        await page.click("#board .cell[data-cell='4']")
        await wait_ply(page, 2)
        final_cells = await page_cells(page)
        await send(telegram, ALICE, "/stop")  # resigned, two moves in
        await page.wait_for_selector("#board[data-status='finished']")
        await page.click("[data-action='replay']")
        # The empty board first, nothing to tap; ⏮ and ◀ lead nowhere yet.
        await wait_ply(page, 0)
        assert await page_cells(page) == "_" * 9
        assert await page.is_disabled("[data-replay='back']")
        assert await page.locator("#board .cell:enabled").count() == 0
        await page.click("[data-replay='next']")
        await wait_ply(page, 1)
        assert await page_cells(page) == "____X____"
        assert (await page.text_content("#status") or "").startswith("Move 1 of 2: ❌ 2 2")
        # The arrow keys step too; End goes to the last move.
        await page.keyboard.press("End")
        await wait_ply(page, 2)
        assert await page_cells(page) == final_cells
        await page.keyboard.press("ArrowLeft")
        await wait_ply(page, 1)
        await screenshot(page, f"replay-{width}-{scheme}.png")
        # Close: the game as it ended, with its buttons again.
        await page.click("[data-replay='close']")
        await page.wait_for_selector("#board[data-status='finished'][data-ply='2']")
        assert await page.locator("[data-action='replay']").count() == 1


async def test_a_match_game_shows_its_score_on_the_page(
    telegram: FakeTelegram, database_url: str, browser: Any
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, _page_url):
        await send(telegram, ALICE, "/play bo3")
        await send(telegram, CAROL, "/play bo3")
        board = boards_of(telegram, ALICE)[0]
        url = board.reply_markup["inline_keyboard"][-1][0]["web_app"]["url"]
        page, _ = await open_page(browser, url, telegram.token, ALICE, width=320)
        await wait_ply(page, 0)
        assert await page.text_content("#match") == "🏆 Best of 3 · Alice 0 – 0 Carol · game 1"
        assert await page.is_visible("#match")
        # Alice wins game 1 on the page, Carol playing in chat.
        carols = boards_of(telegram, CAROL)[0]
        for ply, (alices, carol) in enumerate(((0, 3), (1, 4))):
            await page.click(f"#board .cell[data-cell='{alices}']")
            await wait_ply(page, 2 * ply + 1)
            await tap_cell(telegram, CAROL, carols, carol)
            await wait_ply(page, 2 * ply + 2)
        await page.click("#board .cell[data-cell='2']")
        await page.wait_for_selector("#board[data-status='finished']")
        # The match goes on: no Rematch, a way to game 2, where the page soon goes by itself.
        actions = await page.eval_on_selector_all(
            "#actions button", "b => b.map(e => e.dataset.action)"
        )
        assert "rematch" not in actions and actions[0] == "next"
        await page.wait_for_selector("#board[data-status='active'][data-ply='0']")
        assert await page.text_content("#match") == "🏆 Best of 3 · Alice 1 – 0 Carol · game 2"
        await screenshot(page, "miniapp-match-game-2-320.png")
