"""How the Mini App's board reads, in Chromium at 320 and 390 px, light and dark: every cell,
mark, line and ring at least 3:1 against what lies behind it, for the player to move, the one
who waits and a spectator; whose turn it is said by more than colour; the cells' accessible
names (content and position, in the user's language), the toggles' pressed state, focus
kept on the board, the arrow keys; the rules line and the AI's name whole; 8×8 cells as large
as a 320 px screen leaves them; a day-old page that says what to do; the page in its theme
before telegram.org's script arrives."""

from __future__ import annotations

import asyncio
import json
import re
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from tests.support.chat import press, send, tap_cell
from tests.support.fake_telegram import FakeTelegram
from tests.webapp.browser import (
    CHROMIUM,
    DARK,
    PHONE,
    open_new_game,
    open_page,
    page_cells,
    page_url,
    screenshot,
    telegram_stub,
    wait_ply,
)
from tests.webapp.support import bot_with_mini_app, public_id_on, telegram_init_data

# Every test here drives the page in Chromium.
pytestmark = pytest.mark.browser

CONTRAST = (Path(__file__).parent / "contrast.js").read_text()
#: axe-core, vendored (tests/webapp/vendor/axe-core): the accessibility check runs offline.
AXE = (Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js").read_text()
RUN_AXE = """axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations
  .filter(v => v.impact === "serious" || v.impact === "critical")
  .map(v => v.id + ": " + v.nodes.map(n => n.target.join(" ")).join(", ")))"""
#: WCAG 2.1, 1.4.11: what identifies a part of the board against what lies next to it.
LEAST = 3.0
ALICE = FakeTelegram.user(1001, "Alice", language_code="en")
BOB = FakeTelegram.user(1002, "Bob", language_code="en")
CAROL = FakeTelegram.user(1003, "Carol", language_code="en")
OLGA = FakeTelegram.user(1005, "Ольга Константиновна Длиннофамильная", language_code="ru")
GROUP = FakeTelegram.group_chat(-100500, "Friends")


async def contrast(page: Any) -> list[dict[str, Any]]:
    """Every pair of the board's colours that must differ, with its contrast ratio, once the
    new mark has grown into place (a hint's glow, which never ends, is measured as it is)."""
    await page.evaluate(
        "Promise.all(document.getAnimations()"
        ".filter(a => a.effect.getTiming().iterations !== Infinity).map(a => a.finished))"
    )
    pairs: list[dict[str, Any]] = await page.evaluate(CONTRAST)
    assert pairs, "nothing measured"
    return pairs


async def too_faint(page: Any) -> list[dict[str, Any]]:
    return [p for p in await contrast(page) if p["ratio"] < LEAST]


async def serious_violations(page: Any) -> list[str]:
    """What axe-core finds serious or critical on the page as it is now."""
    if not await page.evaluate("typeof axe !== 'undefined'"):
        # Evaluated, not added as a <script>: the page's content policy rightly refuses those.
        await page.evaluate(AXE)
    found: list[str] = await page.evaluate(RUN_AXE)
    return found


async def narrow(page: Any, width: int) -> None:
    await page.set_viewport_size({"width": width, "height": PHONE["height"]})


@pytest.mark.parametrize("width", [320, 390])
@pytest.mark.parametrize("scheme", ["light", "dark"])
async def test_every_cell_mark_and_line_stands_out_for_each_seat(
    telegram: FakeTelegram, database_url: str, browser: Any, scheme: str, width: int
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page_url):
        group = telegram.add_chat(GROUP)
        telegram.set_member(group, CAROL)
        await send(telegram, ALICE, "/challenge", chat=group)
        board = telegram.last_bot_message(group["id"])
        await press(telegram, BOB, board, "✋ Join")
        url = f"{page_url}?game={public_id_on(telegram, board)}"
        seats = {}
        for user in (ALICE, BOB, CAROL):
            seats[user["first_name"]], _ = await open_page(
                browser, url, telegram.token, user, scheme
            )
        alice, bob, carol = seats["Alice"], seats["Bob"], seats["Carol"]
        for page in seats.values():
            await narrow(page, width)
            await wait_ply(page, 0)
        # To move, waiting, watching: each reads.
        for page in seats.values():
            assert await too_faint(page) == []
            assert await serious_violations(page) == []
        # Alice's turn is said without colour: her board is framed and its empty cells have
        # a solid edge; Bob's and Carol's are not framed and their empty cells are dashed.
        styles = "c => [getComputedStyle(c).borderTopStyle, getComputedStyle(c.parentElement)"
        styles += ".outlineStyle]"
        assert await alice.eval_on_selector("#board .cell", styles) == ["solid", "solid"]
        for page in (bob, carol):
            assert await page.eval_on_selector("#board .cell", styles) == ["dashed", "none"]
        # Alice takes the top row, Bob the middle: a line through X's, and the last O ringed.
        for ply, (page, cell) in enumerate(
            [(alice, 0), (bob, 3), (alice, 1), (bob, 4), (alice, 2)], start=1
        ):
            await page.click(f"#board .cell[data-cell='{cell}']")
            for each in seats.values():
                await wait_ply(each, ply)
            if ply == 4:  # Alice to move, her last cells said by name
                assert await too_faint(alice) == [] and await too_faint(bob) == []
        for page in seats.values():
            await page.wait_for_selector("#board svg.lines line", state="attached")
            faint = await too_faint(page)
            assert faint == [], faint
            assert await serious_violations(page) == []
            measured = {p["what"] for p in await contrast(page)}
            assert {"cell", "mark", "winning line", "last move"} <= measured
        # The line is drawn under the marks, so each ❌ on it keeps both arms.
        under = await alice.evaluate(
            "(() => { const l = document.querySelector('#board svg.lines');"
            " const m = document.querySelector('#board .cell.win svg.mark');"
            " return +getComputedStyle(l).zIndex < +getComputedStyle(m).zIndex; })()"
        )
        assert under
        await screenshot(alice, f"miniapp-look-{scheme}-{width}.png")


async def test_the_board_speaks_and_keeps_the_focus(
    telegram: FakeTelegram, database_url: str, browser: Any
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page_url):
        telegram.add_chat(FakeTelegram.private_chat(ALICE))
        page, _ = await open_page(browser, page_url, telegram.token, ALICE)
        await page.wait_for_selector("#home:not([hidden])")
        # The toggles say which is chosen.
        pressed = "b => b.map(e => e.getAttribute('aria-pressed'))"
        # Easy, medium, hard; two on one phone, an AI match, someone.
        off = ["false"] * 3
        assert await page.eval_on_selector_all("#levels button", pressed) == [
            "false",
            "false",
            "true",
            *off,
        ]
        await page.click("#levels [data-level='easy']")
        assert await page.eval_on_selector_all("#levels button", pressed) == [
            "true",
            "false",
            "false",
            *off,
        ]
        assert await page.eval_on_selector_all("#marks button", pressed) == ["true", "false"]
        assert await serious_violations(page) == []
        await page.click("#start")
        await wait_ply(page, 0)
        # Chromium's accessibility tree: a group named by the rules, a button per cell named
        # by its row, column and content.
        tree = await page.locator("#board").aria_snapshot()
        assert '- group "3×3, 3 in a row"' in tree
        assert 'button "Row 1, column 1: empty"' in tree
        assert 'button "Row 3, column 3: empty"' in tree
        # The keyboard: Tab reaches one cell, the arrows move between cells, Enter plays.
        await page.focus("#board .cell[data-cell='4']")
        await page.keyboard.press("ArrowRight")
        assert await page.evaluate("document.activeElement.dataset.cell") == "5"
        await page.keyboard.press("ArrowUp")
        assert await page.evaluate("document.activeElement.dataset.cell") == "2"
        await page.keyboard.press("ArrowLeft")
        await page.keyboard.press("ArrowDown")
        assert await page.evaluate("document.activeElement.dataset.cell") == "4"
        tabbable = "c => c.filter(e => e.tabIndex === 0).length"
        assert await page.eval_on_selector_all("#board .cell", tabbable) == 1
        await page.keyboard.press("Enter")
        await wait_ply(page, 2)
        # After the move and the AI's reply the focus is still on the board, on a free cell
        # next to the one played (not on the page's body).
        focused = await page.evaluate(
            "(() => { const e = document.activeElement;"
            " return [e.closest('#board') !== null, e.dataset.cell ?? null, e.disabled]; })()"
        )
        assert focused[0] and focused[1] is not None and focused[1] != "4" and not focused[2]
        assert await page.eval_on_selector_all("#board .cell", tabbable) == 1
        tree = await page.locator("#board").aria_snapshot()
        # The marks named as the chat names them, never by their letters.
        assert 'button "Row 2, column 2: ❌" [disabled]' in tree
        cells = await page_cells(page)
        ai = next(i for i, mark in enumerate(cells) if mark == "O")
        row, col = ai // 3 + 1, ai % 3 + 1
        assert f'button "Row {row}, column {col}: ⭕, last move" [disabled]' in tree
        assert await serious_violations(page) == []


async def test_one_drawing_per_change_and_the_ai_after_a_beat(
    telegram: FakeTelegram, database_url: str, browser: Any
) -> None:
    # The AI's beat as the bot's default (1 s), not the tests' 0.05 s: on a host loaded far
    # past its cores, the move's answer came after the AI's move, and "thinking" was never
    # said.
    async with bot_with_mini_app(telegram, database_url, ai_pause=1.0) as (_runner, _page_url):
        page, _board = await open_new_game(telegram, browser, ALICE)
        # Each drawing of the board (its move number, whenever the board changed), and each
        # thing the status said.
        await page.evaluate(
            "window.drawings = []; window.said = []; window.marks = 0;"
            " new MutationObserver((records) => { window.drawings.push("
            "document.getElementById('board').dataset.ply); for (const r of records)"
            " window.marks += [...r.addedNodes].filter(n => n.matches('svg.mark')).length;"
            " }).observe(document.getElementById('board'), {childList: true, subtree: true,"
            " attributes: true});"
            " new MutationObserver(() => window.said.push("
            "[document.getElementById('board').dataset.ply,"
            " document.getElementById('status').textContent])).observe("
            "document.getElementById('status'), {childList: true, characterData: true,"
            " subtree: true})"
        )
        await page.click("#board .cell[data-cell='4']")
        # The own mark shows at once, growing into place, before any answer.
        assert await page.eval_on_selector(
            "#board .cell[data-cell='4']", "c => c.classList.contains('X')"
        )
        assert await page.eval_on_selector(
            "#board .cell[data-cell='4'] svg.mark", "m => getComputedStyle(m).animationName"
        ) in ("pop", "none")
        await wait_ply(page, 2)
        drawings = await page.evaluate("window.drawings")
        # Never an older state after a newer one: the move's answer and the live stream
        # bring the same states, and none is drawn back over a newer one.
        assert drawings == sorted(drawings) and drawings[-1] == "2", drawings
        # Each mark drawn once: Alice's, and the AI's.
        assert await page.evaluate("window.marks") == 2
        # The AI's mark grows in too, and while the board still showed Alice's move alone
        # the page said the AI was thinking.
        assert await page.locator("#board .cell.O.new").count() == 1
        said = await page.evaluate("window.said")
        assert any(ply in "01" and "thinking" in text for ply, text in said), said
        assert said[-1] == ["2", "Your turn as ❌"]


async def test_words_that_belong_to_a_position_go_with_it(
    telegram: FakeTelegram, database_url: str, browser: Any
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, _page_url):
        page, board = await open_new_game(telegram, browser, ALICE, "/start easy")
        await page.click("#actions [data-action='hint']")
        await page.wait_for_selector("#notice:has-text('Best move: the lit cell.')")
        lit = await page.get_attribute("#board .cell.hint", "data-cell")
        assert lit is not None
        label = await page.get_attribute("#board .cell.hint", "aria-label")
        assert label is not None and label.endswith("empty, best move")
        # The lit cell glows, unless the reader asked for less motion.
        glow = "#board .cell.hint"
        assert await page.eval_on_selector(glow, "c => getComputedStyle(c).animationName") == "glow"
        await page.emulate_media(reduced_motion="reduce")
        assert await page.eval_on_selector(glow, "c => getComputedStyle(c).animationName") == "none"
        # A move made in the chat: the hint and its words go.
        await tap_cell(telegram, ALICE, board, 8 if lit != "8" else 0)
        await wait_ply(page, 2)
        await page.wait_for_selector("#notice", state="hidden")
        assert await page.locator("#board .cell.hint").count() == 0
        # Undo: said, then gone with the next move.
        await page.click("#actions [data-action='undo']")
        await page.wait_for_selector("#notice:not([hidden])")
        await wait_ply(page, 0)
        await page.click("#board .cell:enabled")
        await wait_ply(page, 2)
        await page.wait_for_selector("#notice", state="hidden")


async def test_a_day_old_page_says_to_open_the_game_again(
    telegram: FakeTelegram, database_url: str, browser: Any
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, _page_url):
        page, board = await open_new_game(telegram, browser, ALICE)
        url = page_url(board)
        # The page has been open a day: its initData is what Telegram signed then.
        old = telegram_init_data(telegram.token, ALICE, auth_date=time.time() - 25 * 3600)

        async def a_day_later(route: Any) -> None:
            await route.continue_(headers={**route.request.headers, "authorization": "tma " + old})

        await page.route("**/api/**", a_day_later)
        await page.click("#board .cell[data-cell='4']")
        reopen = "This page has been open too long: close it and open the game again from the chat."
        await page.wait_for_selector(f"#notice:has-text('{reopen}')")
        assert await page_cells(page) == "_" * 9  # the move shown meanwhile is taken back
        # Opened again with that initData (a reload keeps it): the same words, in Russian too.
        for user, words in ((ALICE, reopen), (OLGA, "Эта страница открыта слишком долго")):
            stale = telegram_init_data(telegram.token, user, auth_date=time.time() - 25 * 3600)
            context = await browser.new_context(viewport=PHONE)
            await context.route(
                "**/*",
                lambda route: (
                    route.continue_()
                    if route.request.url.startswith("http://127.0.0.1:")
                    else route.abort()
                ),
            )
            again = await context.new_page()
            await again.add_init_script(telegram_stub(stale, user, "light"))
            await again.goto(url)
            await again.wait_for_selector(f"#message:has-text('{words}')")
            await context.close()


async def test_names_rules_and_cells_at_320_px(
    telegram: FakeTelegram, database_url: str, browser: Any
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page_url):
        for user, command in ((OLGA, "/start easy"), (ALICE, "/start ultimate easy")):
            await send(telegram, user, command)
        for user in (OLGA, ALICE):
            board = telegram.last_bot_message(user["id"])
            url = board.reply_markup["inline_keyboard"][-1][0]["web_app"]["url"]
            page, _ = await open_page(browser, url, telegram.token, user)
            await narrow(page, 320)
            await wait_ply(page, 0)
            # The rules line is whole, not cut.
            assert await page.eval_on_selector("#rules", "e => e.scrollWidth <= e.clientWidth")
            assert await serious_violations(page) == []
            if user is OLGA:
                # The AI's name keeps its level; Olga's own long name gives way.
                ai = await page.eval_on_selector(
                    "#players .player.ai .name",
                    "e => [e.textContent, e.scrollWidth > e.clientWidth]",
                )
                assert ai == ["Лёгкий ИИ", False]
                assert await page.eval_on_selector(
                    "#players .player.mine .name", "e => e.scrollWidth > e.clientWidth"
                )
                cell = await page.locator("#board .cell").first.bounding_box()
                assert cell is not None and cell["width"] >= 40
                assert await page.get_attribute("#board .cell >> nth=0", "aria-label") == (
                    "Строка 1, столбец 1: пусто"
                )
        # 8×8: 40 px cells at 390 px, 33 at 320 px beside the rows' words; nothing sends the
        # player to the chat, whose board is smaller still.
        telegram.add_chat(FakeTelegram.private_chat(BOB))
        page, _ = await open_page(browser, page_url, telegram.token, BOB)
        await page.wait_for_selector("#home:not([hidden])")
        await page.click("#sizes [data-size='8']")
        await page.click("#start")
        await wait_ply(page, 0)
        cell = await page.locator("#board .cell").first.bounding_box()
        assert cell is not None and cell["width"] >= 40
        await narrow(page, 320)
        cell = await page.locator("#board .cell").first.bounding_box()
        assert cell is not None and cell["width"] >= 32
        # Resign's question, with its red button, reads too.
        await page.click("#actions [data-action='resign']")
        await page.wait_for_selector("#actions [data-action='resign-yes']")
        assert await serious_violations(page) == []
        await page.click("#actions [data-action='resign-no']")


async def test_the_page_is_in_its_theme_before_telegrams_script_arrives(
    telegram: FakeTelegram, database_url: str, browser: Any
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, _page_url):
        await send(telegram, ALICE, "/start hard")
        board = telegram.last_bot_message(ALICE["id"])
        url = board.reply_markup["inline_keyboard"][-1][0]["web_app"]["url"]
        # As Telegram opens it: the theme in the address's fragment, the script from afar.
        url += "#tgWebAppThemeParams=" + quote(json.dumps(DARK))
        arrived = asyncio.Event()
        script = telegram_stub(telegram_init_data(telegram.token, ALICE), ALICE, "dark")

        async def slow_telegram(route: Any) -> None:
            if route.request.url.startswith("http://127.0.0.1:"):
                await route.continue_()
                return
            await arrived.wait()
            await route.fulfill(body=script, content_type="application/javascript")

        for system in ("light", "dark"):
            context = await browser.new_context(viewport=PHONE, color_scheme=system)
            await context.route("**/*", slow_telegram)
            page = await context.new_page()
            await page.goto(url if system == "light" else url.split("#")[0], wait_until="commit")
            await page.wait_for_selector("#app", state="attached")
            await page.wait_for_function("document.readyState !== 'loading'")
            # Dark from the address (on a light system), or from the system without one.
            background = await page.evaluate("getComputedStyle(document.body).backgroundColor")
            assert background == "rgb(23, 33, 43)", system
            await context.close()
        arrived.set()
        context = await browser.new_context(viewport=PHONE)
        await context.route("**/*", slow_telegram)
        page = await context.new_page()
        await page.goto(url)
        await wait_ply(page, 0)
        assert CHROMIUM is not None
        await context.close()


async def test_ultimate_shows_drawn_small_boards_and_the_last_move_in_a_won_one(
    telegram: FakeTelegram, database_url: str, browser: Any
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, _page_url):
        page, _board = await open_new_game(telegram, browser, ALICE, "/start ultimate easy")
        state = await page.evaluate(
            "fetch('api/games/' + new URLSearchParams(location.search).get('game'),"
            " {headers: {Authorization: 'tma ' + Telegram.WebApp.initData}}).then(r => r.json())"
        )
        game = state["game"]
        game_id = game["id"]
        # A position as the server would send it: small board 1 won by X, its last cell the
        # last move; small board 2 full and drawn; O to move anywhere else.
        won, drawn = "XXXOO____", "XOXXOOOXX"
        game["cells"] = won + drawn + "_" * 63
        game["ply"], game["last_cell"], game["stored"] = 14, 2, game["stored"] + 1
        game["blocks"] = {"results": ["X", "draw"] + [None] * 7, "playable": list(range(2, 9))}
        game["your_turn"], game["legal"] = False, []
        game["to_move"] = "O"

        async def position(route: Any) -> None:
            answer = await route.fetch()  # the words too, for the page's first call
            await route.fulfill(response=answer, json={**await answer.json(), "game": game})

        await page.route(re.compile(rf"/api/games/{game_id}(\?words=1)?$"), position)
        await page.route("**/events", lambda route: None)  # no live stream
        await page.reload()
        await wait_ply(page, 14)
        block = "#board .block[data-block='%s']"
        assert await page.get_attribute(block % 0, "aria-label") == "Small board 1: won by ❌"
        assert await page.get_attribute(block % 1, "aria-label") == "Small board 2: a draw"
        assert await page.locator(f"{block % 1} > svg.big.draw").count() == 1
        # The last move stays marked inside the won small board, above its big ❌.
        last = f"{block % 0} .cell.last[data-cell='2']"
        dot = await page.eval_on_selector(
            last,
            "c => { const s = getComputedStyle(c, '::after'); return [s.display, +s.zIndex,"
            " +getComputedStyle(c.closest('.block').querySelector('svg.big')).zIndex]; }",
        )
        assert dot[0] != "none" and dot[1] > dot[2]
        assert "❌, last move" in (await page.get_attribute(last, "aria-label") or "")
        pairs = await contrast(page)
        assert [p for p in pairs if p["ratio"] < LEAST] == []
        assert {"big mark", "last move"} <= {p["what"] for p in pairs}
        await screenshot(page, "miniapp-look-ultimate-decided.png")
