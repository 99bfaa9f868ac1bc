"""The page on a par with lichess's board (issue 52), in Chromium at 320 and 390 px: an AI's
name keeps its level in every language; two players on one phone have a name each, Undo and a
buzz at the end; a replay's status follows its step, in the chat's notation, with a list of
moves to tap, in play too, and coordinates on the board's edges; ultimate points to no chat
board and rings the last move in a won small board; the your-turn frame keeps clear of the
screen's edges; axe-core finds nothing on any game page; a tournament's game says its round
and shows its standings; a rated game's end its rating change; and sounds (a move, low time)
with a switch that turns them off and stays off."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from PIL import Image

from bot.locales import en
from bot.locales.texts import LANGUAGE_NAMES, texts_for
from tests.e2e.test_matchmaking import pair
from tests.e2e.test_tournaments import GROUP, PEOPLE, new_boards
from tests.support.chat import board_cells, current, press, send, tap_cell
from tests.support.fake_telegram import FakeTelegram
from tests.webapp.browser import (
    PHONE,
    open_new_game,
    open_page,
    page_url,
    press_back,
    screenshot,
    wait_ply,
)
from tests.webapp.support import bot_with_mini_app, public_id_on
from tests.webapp.test_browser_look import AXE

# Every test here drives the page in Chromium.
pytestmark = pytest.mark.browser

ALICE = FakeTelegram.user(1001, "Alice", language_code="en")
CAROL = FakeTelegram.user(1003, "Carol", language_code="en")
DAN = FakeTelegram.user(1004, "Dan", language_code="en")
WIDTHS = [320, 390]
#: Whether the page is wider than the screen (it would scroll sideways).
SIDEWAYS = "document.documentElement.scrollWidth > document.documentElement.clientWidth"
#: Every violation axe-core finds, whatever its impact.
RUN_AXE = """axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations
  .map(v => v.id + " (" + v.impact + "): " + v.nodes.map(n => n.target.join(" ")).join(", ")))"""
#: What a cut text looks like: wider or taller than its box.
CUT = "e => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1"


async def narrow(page: Any, width: int) -> None:
    await page.set_viewport_size({"width": width, "height": PHONE["height"]})


async def violations(page: Any) -> list[str]:
    """Whatever axe-core finds on the page as it is now, of any impact."""
    if not await page.evaluate("typeof axe !== 'undefined'"):
        await page.evaluate(AXE)  # evaluated: the page's content policy refuses a <script>
    found: list[str] = await page.evaluate(RUN_AXE)
    return found


def ai_name(code: str) -> tuple[str, str]:
    """The level whose AI name is longest in a language, and that name."""
    tr = texts_for(code)
    names = {level: tr.AI_NAME.format(level=tr.LEVEL_NAMES[level]) for level in tr.LEVEL_NAMES}
    level = max(names, key=lambda level: len(names[level]))
    return level, names[level]


#: Each edge's words, and how far (px) each is from the middle of its row or column of cells,
#: and whether it lies outside the board.
EDGES = """(() => {
  const board = document.getElementById('board');
  const n = board.classList.contains('ultimate') ? 9 : Math.round(Math.sqrt(
    board.querySelectorAll('.cell').length));
  // The cell at (row, column), as the server numbers it (ultimate: small board by small board).
  const index = (r, c) => n === 9 ? (Math.floor(r / 3) * 3 + Math.floor(c / 3)) * 9
    + (r % 3) * 3 + (c % 3) : r * n + c;
  const centre = (e) => { const b = e.getBoundingClientRect();
    return [b.left + b.width / 2, b.top + b.height / 2]; };
  const cell = (r, c) => centre(board.querySelector(`.cell[data-cell='${index(r, c)}']`));
  const columns = [...document.querySelectorAll('#columns span:not(.group)')];
  const rows = [...document.querySelectorAll('#rows span:not(.group)')];
  const edge = board.getBoundingClientRect();
  return {
    columns: columns.map(e => e.textContent), rows: rows.map(e => e.textContent),
    off: Math.max(...columns.map((e, i) => Math.abs(centre(e)[0] - cell(0, i)[0])),
      ...rows.map((e, i) => Math.abs(centre(e)[1] - cell(i, 0)[1]))),
    outside: columns.every(e => e.getBoundingClientRect().bottom <= edge.top)
      && rows.every(e => e.getBoundingClientRect().right <= edge.left),
  };
})()"""


async def edges(page: Any) -> tuple[list[str], list[str]]:
    """The words on the board's edges (rows, columns), once checked to line up with the
    cells (within 1.5 px) outside the board."""
    found = await page.evaluate(EDGES)
    assert found["off"] <= 1.5 and found["outside"], found
    return found["rows"], found["columns"]


async def moves_listed(page: Any) -> list[list[Any]]:
    """The list of moves: each one's words and whether it is the one shown."""
    return await page.eval_on_selector_all(
        "#moves button",
        "bs => bs.map(b => [b.textContent, b.getAttribute('aria-current') === 'step'])",
    )


# Item 6: the AI's name cut to "هوش مصنوعی متو…" in Persian at 320 px.
@pytest.mark.parametrize("width", WIDTHS)
async def test_an_ai_name_keeps_its_level_in_every_language(
    telegram: FakeTelegram, database_url: str, browser: Any, width: int
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, _url):
        for n, code in enumerate(LANGUAGE_NAMES):
            user = FakeTelegram.user(3000 + n, "Мария-Хосефина", language_code=code)
            level, name = ai_name(code)
            page, _ = await open_new_game(telegram, browser, user, f"/start {level}", width=width)
            chip = "#players .player.ai .name"
            assert await page.text_content(chip) == name, code
            assert not await page.eval_on_selector(chip, CUT), (code, name)
            right = await page.eval_on_selector(chip, "e => e.getBoundingClientRect().right")
            assert right <= width, code
            assert not await page.evaluate(SIDEWAYS), code
            if code == "fa":
                await screenshot(page, f"par-ai-name-fa-{width}.png")
                # A few moves in (docs/: the page at 320 px in Persian).
                for ply in (2, 4):
                    await page.click("#board .cell:enabled")
                    await wait_ply(page, ply)
                await screenshot(page, f"miniapp-persian-{width}.png")
            # The start page's line of the game names the AI whole too.
            await press_back(page)
            line = "#open-games .name"
            await page.wait_for_selector(line)
            assert name in (await page.text_content(line) or ""), code
            assert not await page.eval_on_selector(line, CUT), (code, name)
            assert not await page.evaluate(SIDEWAYS), code
            await page.context.close()


# Item 8: both chips said "Carol", no Undo, no buzz at the end.
@pytest.mark.parametrize("width", WIDTHS)
async def test_two_players_on_one_phone_have_a_name_each_undo_and_a_buzz(
    telegram: FakeTelegram, database_url: str, browser: Any, width: int
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, _url):
        page, board = await open_new_game(telegram, browser, CAROL, "/start user user", width=width)
        names = await page.eval_on_selector_all(
            "#players .name", "ns => ns.map(n => n.textContent)"
        )
        assert names == ["Player 1", "Player 2"]
        assert await page.text_content("#status") == "Player 1's turn ❌"
        assert await page.locator("[data-action='undo']").count() == 0  # nothing to undo
        for ply, cell in enumerate((4, 0), start=1):
            await page.click(f"#board .cell[data-cell='{cell}']")
            await wait_ply(page, ply)
        assert await page.text_content("#status") == "Player 1's turn ❌"
        # Undo, as the chat's ↩️: the last move (⭕'s) goes, here and on the chat's board.
        await page.click("[data-action='undo']")
        await wait_ply(page, 1)
        assert await page.text_content("#status") == "Player 2's turn ⭕"
        assert await page.text_content("#notice") == en.UNDONE_LAST
        assert board_cells(telegram, current(telegram, board)) == "____X____"
        await screenshot(page, f"par-one-phone-{width}.png")
        # ⭕ 0, ❌ 1, ⭕ 2, ❌ 7: ❌'s middle column; the phone buzzes once, for a win.
        for ply, cell in enumerate((0, 1, 2, 7), start=2):
            await page.click(f"#board .cell[data-cell='{cell}']")
            await wait_ply(page, ply)
        await page.wait_for_selector("#board[data-status='finished']")
        assert await page.text_content("#status") == en.RESULT_MARK_WON.format(mark="❌")
        buzzes = [c for c in await page.evaluate("window.hapticCalls") if "notification" in c]
        assert buzzes == ["notification:success"]


# Item 9: "You won!" at move 3; "X 1 1" and "1·1"; a list neither highlighted nor tappable.
@pytest.mark.parametrize("width", WIDTHS)
async def test_the_replay_and_the_move_list_in_play_speak_the_chats_moves(
    telegram: FakeTelegram, database_url: str, browser: Any, width: int
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, _url):
        page, _board = await open_new_game(telegram, browser, ALICE, "/start hard", width=width)
        # The edges name the rows and columns as a typed move does, in line with the cells.
        assert await edges(page) == (["1", "2", "3"], ["1", "2", "3"])
        await page.click("#board .cell[data-cell='5']")
        await wait_ply(page, 2)
        listed = await moves_listed(page)
        assert listed[0] == ["❌ 2 3", False] and listed[1][0].startswith("⭕ ")
        assert listed[1][1]  # the position shown: the last move's
        reply = listed[1][0].removeprefix("⭕ ")
        assert len(reply.split()) == 2  # "row column", as typed in the chat
        # A move tapped in play: its position, nothing to tap, until back to the game.
        await page.click("#moves button[data-ply='1']")
        await wait_ply(page, 1)
        assert await page.locator("#board .cell:enabled").count() == 0
        assert await page.text_content("#where") == "Move 1 of 2: ❌ 2 3"
        assert await page.text_content("#status") == "Your turn as ❌"  # the game's own
        assert [current for _, current in await moves_listed(page)] == [True, False]
        await screenshot(page, f"par-looking-back-{width}.png")
        await page.click("[data-replay='close']")
        await wait_ply(page, 2)
        assert await page.locator("#board .cell:enabled").count() == 7
        # The last move of the list is the game as it is: tapping it goes back there too.
        await page.click("#moves button[data-ply='1']")
        await wait_ply(page, 1)
        await page.click("#moves button[data-ply='2']")
        await wait_ply(page, 2)
        assert await page.get_attribute("#board", "data-your-turn") == "true"
        assert await page.locator("#board .cell:enabled").count() == 7
        await send(telegram, ALICE, "/stop")  # resigned, two moves in
        await page.wait_for_selector("#board[data-status='finished']")
        ended = await page.text_content("#status")
        # A rated game's end says what it did to the rating, as the chat board does.
        rating = await page.text_content("#rating")
        assert rating is not None and rating.startswith("Rating against the AI: −")
        # The replay: the status follows the step, in the chat's words and notation.
        await page.click("[data-action='replay']")
        await wait_ply(page, 0)
        assert await page.text_content("#status") == en.REPLAY_START.format(total=2)
        await page.click("[data-replay='next']")
        await wait_ply(page, 1)
        assert await page.text_content("#status") == "Move 1 of 2: ❌ 2 3"
        assert [current for _, current in await moves_listed(page)] == [True, False]
        assert await page.is_hidden("#rating")  # the end's, said at the last step
        await page.click("#moves button[data-ply='2']")
        await wait_ply(page, 2)
        assert await page.text_content("#status") == ended
        assert await page.text_content("#rating") == rating
        assert await page.text_content("#where") == f"Move 2 of 2: ⭕ {reply}"
        assert [current for _, current in await moves_listed(page)] == [False, True]
        await page.click("#moves button[data-ply='1']")
        await wait_ply(page, 1)
        assert await page.text_content("#status") == "Move 1 of 2: ❌ 2 3"
        await screenshot(page, f"par-replay-{width}.png")


async def ring_shown(page: Any, cell: str) -> float:
    """How much of the last move's ring around `cell` shows, as drawn on the screen: the
    share of the points just inside its edge (its corners' curve left out) in the ring's
    colour."""
    box = await page.locator(cell).bounding_box()
    ink = await page.eval_on_selector(
        cell,
        """c => { const canvas = document.createElement('canvas'); canvas.width = 1;
          canvas.height = 1; const ctx = canvas.getContext('2d');
          ctx.fillStyle = getComputedStyle(c, '::after').backgroundColor;
          ctx.fillRect(0, 0, 1, 1); return [...ctx.getImageData(0, 0, 1, 1).data].slice(0, 3); }""",
    )
    # A little more than the cell, on whole pixels: the points below land where they are.
    clip = {"x": int(box["x"]) - 2, "y": int(box["y"]) - 2}
    clip["width"] = int(box["x"] + box["width"]) + 3 - clip["x"]
    clip["height"] = int(box["y"] + box["height"]) + 3 - clip["y"]
    shot = Image.open(io.BytesIO(await page.screenshot(clip=clip))).convert("RGB")
    scale = shot.width / clip["width"]
    left, top = box["x"], box["y"]
    right, bottom = left + box["width"], top + box["height"]
    inset, corner = 2.0, 5.0  # the ring's middle; the corners' curve left out
    across = [left + corner + i * 0.5 for i in range(int((box["width"] - 2 * corner) * 2))]
    down = [top + corner + i * 0.5 for i in range(int((box["height"] - 2 * corner) * 2))]
    points = [(x, top + inset) for x in across] + [(x, bottom - inset) for x in across]
    points += [(left + inset, y) for y in down] + [(right - inset, y) for y in down]
    near = 0
    for x, y in points:
        pixel = shot.getpixel((int((x - clip["x"]) * scale), int((y - clip["y"]) * scale)))
        assert isinstance(pixel, tuple)
        near += sum(abs(a - b) for a, b in zip(pixel, ink, strict=False)) <= 60
    return near / len(points)


# Item 10: a note pointing to the chat's board, smaller still; the ring under the big mark.
@pytest.mark.parametrize("width", WIDTHS)
async def test_ultimate_points_to_no_chat_board_and_rings_the_last_move(
    telegram: FakeTelegram, database_url: str, browser: Any, width: int
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, _url):
        page, _board = await open_new_game(
            telegram, browser, ALICE, "/start ultimate easy", width=width
        )
        nine = [f"{n}" for n in range(1, 10)]
        assert await edges(page) == (["r" + n for n in nine], ["c" + n for n in nine])
        # Nothing points to the chat's board (3×3 buttons under a text of the 9×9).
        assert await page.get_by_text("the chat's board").count() == 0
        assert await page.locator("#small-note, #to-chat").count() == 0
        state = await page.evaluate(
            "fetch('api/games/' + new URLSearchParams(location.search).get('game'),"
            " {headers: {Authorization: 'tma ' + Telegram.WebApp.initData}}).then(r => r.json())"
        )
        game = state["game"]
        # Small board 1 won by ❌ on its top row, its last cell (2) the last move; ⭕ to move.
        game["cells"] = "XXXOO____" + "_" * 72
        game["ply"], game["last_cell"], game["stored"] = 5, 2, game["stored"] + 1
        game["blocks"] = {"results": ["X"] + [None] * 8, "playable": list(range(1, 9))}
        game["your_turn"], game["legal"], game["to_move"] = False, [], "O"

        async def position(route: Any) -> None:
            answer = await route.fetch()  # the words too, for the page's first call
            await route.fulfill(response=answer, json={**await answer.json(), "game": game})

        await page.route(re.compile(rf"/api/games/{game['id']}(\?words=1)?$"), position)
        await page.route("**/events", lambda route: None)  # no live stream
        await page.reload()
        await wait_ply(page, 5)
        # Above the big ❌ and its halo, the ring shows whole.
        shown = await ring_shown(page, "#board .block[data-block='0'] .cell.last")
        assert shown >= 0.9, shown
        await screenshot(page, f"par-ultimate-ring-{width}.png")


# Item 11: at 320 px the your-turn frame touched both edges of the screen.
@pytest.mark.parametrize("width", WIDTHS)
async def test_the_your_turn_frame_keeps_clear_of_the_screens_edges(
    telegram: FakeTelegram, database_url: str, browser: Any, width: int
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, _url):
        for command in ("/start hard", "/start hard 8", "/start ultimate easy"):
            page, _ = await open_new_game(telegram, browser, ALICE, command, width=width)
            frame = await page.eval_on_selector(
                "#board.yours",
                """b => { const s = getComputedStyle(b), r = b.getBoundingClientRect();
                  const out = parseFloat(s.outlineWidth) + parseFloat(s.outlineOffset);
                  const rows = document.getElementById('rows');
                  const words = rows ? rows.getBoundingClientRect().right : 0;
                  return [r.left - out, r.right + out, words]; }""",
            )
            left, right, labels = frame
            assert left >= 4 and right <= width - 4, (command, frame)
            assert labels <= left, (command, frame)  # the rows' words stay clear of it too
            if command == "/start hard 8":
                assert await edges(page) == ([str(n) for n in range(1, 9)],) * 2
            if command == "/start hard":
                await screenshot(page, f"par-frame-{width}.png")
            await page.context.close()


# Item 13: every game page lacked an <h1>.
@pytest.mark.parametrize("scheme", ["light", "dark"])
async def test_axe_finds_nothing_on_any_page(
    telegram: FakeTelegram, database_url: str, browser: Any, scheme: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, url):
        telegram.add_chat(FakeTelegram.private_chat(ALICE))
        pages = []
        home, _ = await open_page(browser, url, telegram.token, ALICE, scheme)
        await home.wait_for_selector("#home:not([hidden])")
        pages.append(("start", home))
        # Each game a player's own: a new one would replace the last (which asks first).
        commands = ("/start hard", "/start hard 8", "/start ultimate easy", "/start hard")
        players = [FakeTelegram.user(1200 + n, f"P{n}") for n in range(len(commands))]
        for player, command in zip(players, commands, strict=True):
            page, _ = await open_new_game(telegram, browser, player, command, scheme=scheme)
            await page.click("#board .cell:enabled")
            await wait_ply(page, 2)
            pages.append((command, page))
        # A look back during the game, and a finished game's replay.
        looking = pages[1][1]
        await looking.click("#moves button[data-ply='1']")
        await wait_ply(looking, 1)
        page = pages.pop()[1]
        await send(telegram, players[-1], "/stop")
        await page.wait_for_selector("#board[data-status='finished']")
        await page.click("[data-action='replay']")
        await page.click("[data-replay='next']")
        await wait_ply(page, 1)
        pages.append(("replay", page))
        for width in WIDTHS:
            for what, each in pages:
                await narrow(each, width)
                assert await violations(each) == [], (what, width)


# What to build: a tournament's game shows the round and a link to the standings.
async def test_a_tournament_game_says_its_round_and_shows_the_standings(
    telegram: FakeTelegram, database_url: str, browser: Any
) -> None:
    ann, ben, cat = PEOPLE[:3]
    async with bot_with_mini_app(telegram, database_url) as (_runner, url):
        telegram.add_chat(GROUP)
        await send(telegram, ann, "/tournament", chat=GROUP)
        message = telegram.last_bot_message(GROUP["id"])
        for person in (ben, cat):
            await press(telegram, person, message, en.TOURNAMENT_JOIN)
        await press(telegram, ann, message, en.TOURNAMENT_START)
        await telegram.wait_until(
            lambda: len(new_boards(telegram, set())) == 1, timeout=15, what="round 1's board"
        )
        board = new_boards(telegram, set())[0]
        game = f"{url}?game={public_id_on(telegram, board)}"
        mover = next(p for p in (ann, ben, cat) if p["first_name"] in board.text.split("\n")[0])
        for width in WIDTHS:
            page, _ = await open_page(browser, game, telegram.token, mover, width=width)
            await wait_ply(page, 0)
            assert await page.text_content("#round") == "🏆 Tournament · round 1 of 3"
            await page.click("#standings-link")
            await page.wait_for_selector("#standings:not([hidden])")
            text = await page.text_content("#standings") or ""
            assert text == current(telegram, message).text
            assert await page.get_attribute("#standings-link", "aria-expanded") == "true"
            assert not await page.evaluate(SIDEWAYS)
            await screenshot(page, f"par-tournament-{width}.png")
            await page.click("#standings-link")
            assert await page.is_hidden("#standings")
            await page.context.close()


#: Instead of the speakers: each note the page plays, as its frequency, in window.notes.
RECORD_NOTES = """
window.notes = [];
window.AudioContext = class {
  constructor() { this.state = "running"; this.currentTime = 0; this.destination = {}; }
  resume() { return Promise.resolve(); }
  createGain() {
    const param = { setValueAtTime() {}, linearRampToValueAtTime() {} };
    return { gain: param, connect: (next) => next };
  }
  createOscillator() {
    const oscillator = { frequency: { value: 0 }, connect: (next) => next, stop() {},
      start() { window.notes.push(oscillator.frequency.value); } };
    return oscillator;
  }
};
"""


# What to build: a low-time warning with a sound and a buzz, and sounds the player can mute.
async def test_low_time_beeps_and_buzzes_and_the_switch_keeps_it_quiet(
    telegram: FakeTelegram, database_url: str, browser: Any
) -> None:
    settings = {"stranger_clock_seconds": 14.0, "stranger_clock_delay_seconds": 0.0}
    async with bot_with_mini_app(telegram, database_url, **settings) as (_runner, _url):
        for user in (DAN, ALICE):
            telegram.add_chat(FakeTelegram.private_chat(user))
        x_board, o_board = await pair(telegram, DAN, ALICE)
        page, _ = await open_page(browser, page_url(o_board), telegram.token, ALICE, width=320)
        await page.add_init_script(RECORD_NOTES)
        await page.reload()
        await wait_ply(page, 0)
        await page.click("#status")  # a tap: the browser lets the page sound from now on
        assert await page.get_attribute("#sound", "aria-pressed") == "true"
        assert await page.get_attribute("#sound", "aria-label") == "Sound"
        await tap_cell(telegram, DAN, x_board, 4)
        await wait_ply(page, 1)
        await page.wait_for_function("window.notes.includes(660)")  # Dan's move
        # Alice's clock runs under 10 s: three high beeps and a warning buzz, once.
        await page.wait_for_selector("#players .clock.low[data-mark='O']", timeout=8000)
        await page.wait_for_function("window.notes.filter(n => n === 880).length === 3")
        assert (await page.evaluate("window.hapticCalls")).count("notification:warning") == 1
        await screenshot(page, "par-low-time-320.png")
        # Off: no sound from now on, and off it stays on this phone.
        await page.click("#sound")
        assert await page.get_attribute("#sound", "aria-pressed") == "false"
        await page.reload()
        await wait_ply(page, 1)
        assert await page.get_attribute("#sound", "aria-pressed") == "false"
        await page.click("#status")
        await page.click("#board .cell[data-cell='0']")
        await wait_ply(page, 2)
        await tap_cell(telegram, DAN, x_board, 8)
        await wait_ply(page, 3)
        await page.wait_for_selector("#players .clock.low[data-mark='O']", timeout=8000)
        await page.wait_for_timeout(300)
        assert await page.evaluate("window.notes") == []
        assert "notification:warning" not in await page.evaluate("window.hapticCalls")
