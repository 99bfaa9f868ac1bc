"""Benchmark: how fast the Mini App paints its first board, and what a move redraws.

Run from the repository root:

    .venv/bin/python bench/page_open.py [--opens 7] [--latency 150] [--tree PATH]

The real bot and its web server (`tests.webapp.support.bot_with_mini_app`, a SQLite file) serve
the page to Debian's Chromium, driven by Playwright, with `--latency` ms added to every request
(Chrome's own throttling, `Network.emulateNetworkConditions`, which leaves the browser's cache
as it is; Playwright's routes would switch the cache off). Telegram's script is refused at once
(`Network.setBlockedURLs`), as in the tests: no request leaves the machine.

For each open of a 3×3 game's page, in a fresh browser context (a first open) and then again
in the same context (a second open):

- first board: the time from the navigation's start (`performance.timeOrigin`) to the first
  animation frame after the board's cells are in the page (what a player sees first);
- requests: how many went to the network (not served from the browser's cache), and the
  longest chain of them each started only after the one before it ended (round trips one after
  another, up to the first board);
- bytes: what crossed the network for them (headers and bodies, as Chrome counts them).

Then, in a game of two players on one phone (every tap one move, no AI reply in between), the
DOM nodes a move changes once the page has settled, on 3×3, 8×8 and ultimate: every node
added or removed (with everything inside it), and every node whose attributes or text changed,
counted once, as a MutationObserver sees them, on the board alone (with the fieldset that
locks it, where there is one) and on the whole page; and
beside them the board's changes (each node added or removed, and each attribute or text change,
however often the same node changes).

It prints the medians. --tree runs another checkout's bot and page (a worktree of an older
commit, say) with this bench: that directory goes first on sys.path.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ALICE_ID = 2001
PHONE = {"width": 390, "height": 844}
# Before the page's own scripts: the time of the first frame painted with the board's cells in
# it, and a count of the DOM nodes changed since `window.startCounting()`.
WATCH = """
window.firstBoard = null;
new MutationObserver((records, observer) => {
  if (window.firstBoard === null && document.querySelector("#board .cell")) {
    observer.disconnect();
    window.firstBoard = -1;
    requestAnimationFrame(() => {
      window.firstBoard = performance.now();
      document.documentElement.dataset.firstBoard = "";
    });
  }
}).observe(document, { childList: true, subtree: true });
window.startCounting = () => {
  const note = (seen, records) => {
    for (const record of records) {
      if (record.type !== "childList") {
        seen.nodes.add(record.target);
        seen.changes += 1;
        continue;
      }
      for (const node of [...record.addedNodes, ...record.removedNodes]) {
        const walker = document.createTreeWalker(node);
        for (let n = node; n; n = walker.nextNode()) { seen.nodes.add(n); seen.changes += 1; }
      }
    }
  };
  for (const observer of window.observers || []) observer.disconnect();
  const page = { nodes: new Set(), changes: 0 }, drawn = { nodes: new Set(), changes: 0 };
  window.changed = { page, board: drawn };
  const options = { childList: true, subtree: true, attributes: true, characterData: true };
  window.observers = [
    new MutationObserver((r) => note(page, r)), new MutationObserver((r) => note(drawn, r))];
  window.observers[0].observe(document.body, options);
  const board = document.getElementById("board");
  window.observers[1].observe(board, options);
  // The fieldset that locks the board, where there is one: the board's too.
  const lock = board.closest("fieldset");
  if (lock) window.observers[1].observe(lock, { attributes: true });
};
"""


@dataclass
class Request:
    url: str
    start: float
    wall: float  # when it started, in ms since the epoch (as the page's clock reads)
    end: float | None = None
    cached: bool = False
    failed: bool = False
    size: int = 0
    encoding: str = ""
    stream: bool = False  # server-sent events: open for as long as the page is


@dataclass
class Network:
    """The page's requests as Chrome's DevTools protocol reports them."""

    requests: dict[str, Request] = field(default_factory=dict)

    def attach(self, cdp: Any) -> None:
        cdp.on("Network.requestWillBeSent", self.sent)
        cdp.on("Network.requestServedFromCache", self.from_cache)
        cdp.on("Network.responseReceived", self.received)
        cdp.on("Network.loadingFinished", self.finished)
        cdp.on("Network.loadingFailed", self.failed)

    def sent(self, event: dict[str, Any]) -> None:
        url, start = event["request"]["url"], event["timestamp"]
        self.requests[event["requestId"]] = Request(url, start, event["wallTime"] * 1000)

    def from_cache(self, event: dict[str, Any]) -> None:
        if event["requestId"] in self.requests:
            self.requests[event["requestId"]].cached = True

    def received(self, event: dict[str, Any]) -> None:
        request = self.requests.get(event["requestId"])
        response = event["response"]
        if request is None:
            return
        if response.get("fromDiskCache") or response.get("fromPrefetchCache"):
            request.cached = True
        headers = {key.lower(): value for key, value in response.get("headers", {}).items()}
        request.encoding = headers.get("content-encoding", "")
        request.stream = response.get("mimeType") == "text/event-stream"
        request.end = event["timestamp"]  # a stream's headers: the round trip is over

    def finished(self, event: dict[str, Any]) -> None:
        request = self.requests.get(event["requestId"])
        if request is not None:
            request.end = event["timestamp"]
            request.size = int(event.get("encodedDataLength", 0))

    def failed(self, event: dict[str, Any]) -> None:
        request = self.requests.get(event["requestId"])
        if request is not None:
            request.failed = True
            request.end = event["timestamp"]

    def fetched(self) -> list[Request]:
        """The requests that went to the server (not the cache, not refused)."""
        return [r for r in self.requests.values() if not r.cached and not r.failed]


def chain(requests: list[Request]) -> int:
    """The longest run of requests each started after the one before it ended: round trips
    one after another."""
    depth: dict[int, int] = {}
    ordered = sorted(requests, key=lambda r: r.start)
    for i, request in enumerate(ordered):
        before = [
            depth[j] for j, other in enumerate(ordered[:i]) if (other.end or 1e18) <= request.start
        ]
        depth[i] = 1 + max(before, default=0)
    return max(depth.values(), default=0)


@dataclass
class Open:
    first_board: float
    fetched: int
    chain: int
    bytes: int
    names: list[str]


async def open_once(context: Any, url: str, stub: str, latency: float) -> Open:
    page = await context.new_page()
    await page.add_init_script(stub)
    await page.add_init_script(WATCH)
    cdp = await context.new_cdp_session(page)
    network = Network()
    network.attach(cdp)
    await cdp.send("Network.enable")
    await cdp.send("Network.setBlockedURLs", {"urls": ["*telegram.org*"]})
    conditions = {"offline": False, "latency": latency, "downloadThroughput": -1}
    await cdp.send("Network.emulateNetworkConditions", {**conditions, "uploadThroughput": -1})
    await page.goto(url)
    # Not wait_for_function: the page's content policy refuses its eval.
    await page.wait_for_selector("html[data-first-board]", state="attached")
    first = await page.evaluate("window.firstBoard")
    origin = await page.evaluate("performance.timeOrigin")
    await page.wait_for_timeout(300)  # the live stream's answer, anything late
    # The live stream, opened once the board is drawn, is no round trip before it.
    before_paint = [r for r in network.fetched() if r.wall <= origin + first and not r.stream]
    opened = Open(
        first_board=first / 1000,
        fetched=len(before_paint),
        chain=chain(before_paint),
        bytes=sum(r.size for r in network.fetched()),
        names=[r.url.split("/app/")[-1].split("?")[0] for r in network.fetched()],
    )
    await page.close()
    return opened


async def start_game(telegram: Any, page_url: str, body: dict[str, Any]) -> str:
    """A new game by the page's API, as its start page starts one: its public id."""
    import aiohttp

    from tests.webapp.support import auth

    alice = telegram.user(ALICE_ID, "Alice", language_code="en")
    async with (
        aiohttp.ClientSession() as http,
        http.post(page_url + "api/games", json=body, headers=auth(telegram, alice)) as answer,
    ):
        assert answer.status == 201, await answer.text()
        return str((await answer.json())["game"]["id"])


async def changes_per_move(
    browser: Any, telegram: Any, page_url: str, stub: str, body: dict[str, Any], moves: int
) -> tuple[list[int], list[int], list[int]]:
    """The nodes changed per move (board, page), and the board's changes, in a new game of
    two on one phone."""
    game = await start_game(telegram, page_url, {"level": "user", **body})
    context = await browser.new_context(viewport=PHONE, device_scale_factor=2)
    page = await context.new_page()
    await page.add_init_script(stub)
    await page.add_init_script(WATCH)
    await page.route("https://telegram.org/**", lambda route: route.abort())
    await page.goto(page_url + "?game=" + game)
    board: list[int] = []
    whole: list[int] = []
    changes: list[int] = []
    for _ in range(moves):
        ply = int(await page.get_attribute("#board", "data-ply") or 0)
        await page.wait_for_timeout(400)  # settled: the last mark's animation over
        await page.evaluate("window.startCounting()")
        cells = page.locator("#board .cell:enabled")
        count = await cells.count()
        await cells.nth(count // 2).click()
        await page.wait_for_selector(f"#board[data-ply='{ply + 1}']")
        await page.wait_for_timeout(400)  # the move's answer and the stream's, both drawn
        board.append(await page.evaluate("window.changed.board.nodes.size"))
        whole.append(await page.evaluate("window.changed.page.nodes.size"))
        changes.append(await page.evaluate("window.changed.board.changes"))
    await context.close()
    return board, whole, changes


def spread(values: list[int]) -> str:
    return f"{statistics.median(values):g} ({min(values)}–{max(values)})"


async def measure(opens: int, latency: float, moves: int) -> None:
    from tests.support.fake_telegram import FakeTelegram
    from tests.webapp.browser import telegram_stub
    from tests.webapp.support import bot_with_mini_app, telegram_init_data

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    assert chromium, "no chromium here (apt-get install chromium)"
    from playwright.async_api import async_playwright

    alice = FakeTelegram.user(ALICE_ID, "Alice", language_code="en")
    with tempfile.TemporaryDirectory() as workdir:
        url = f"sqlite+aiosqlite:///{Path(workdir) / 'bot.sqlite3'}"
        async with (
            FakeTelegram() as telegram,
            bot_with_mini_app(telegram, url) as (_runner, page_url),
            async_playwright() as playwright,
        ):
            telegram.add_chat(FakeTelegram.private_chat(alice))
            stub = telegram_stub(telegram_init_data(telegram.token, alice), alice, "light")
            browser = await playwright.chromium.launch(executable_path=chromium)
            game = await start_game(telegram, page_url, {"level": "easy", "size": 3})
            first: list[Open] = []
            second: list[Open] = []
            for _ in range(opens):
                context = await browser.new_context(viewport=PHONE, device_scale_factor=2)
                first.append(await open_once(context, page_url + "?game=" + game, stub, latency))
                second.append(await open_once(context, page_url + "?game=" + game, stub, latency))
                await context.close()
            print(f"{opens} opens of a 3×3 game's page, {latency:g} ms added to every request:")
            print(
                "| open | first board (median, min–max) | requests before it | in a chain "
                "| bytes, all |"
            )
            print("| --- | --- | --- | --- | --- |")
            for name, runs in (("first", first), ("second", second)):
                times = [run.first_board for run in runs]
                print(
                    f"| {name} | {statistics.median(times):.3f} s "
                    f"({min(times):.3f}–{max(times):.3f}) "
                    f"| {statistics.median(run.fetched for run in runs):g} "
                    f"| {statistics.median(run.chain for run in runs):g} "
                    f"| {statistics.median(run.bytes for run in runs):,.0f} |"
                )
            for name, runs in (("first", first), ("second", second)):
                print(f"{name} open's requests: {', '.join(runs[-1].names)}")
            print(f"\nDOM nodes a move changes (two on one phone, median of {moves} moves):")
            print("| board | nodes on the board | nodes on the page | the board's changes |")
            print("| --- | --- | --- | --- |")
            for label, body in (
                ("3×3", {"size": 3}),
                ("8×8", {"size": 8}),
                ("ultimate", {"ultimate": True}),
            ):
                counts = await changes_per_move(browser, telegram, page_url, stub, body, moves)
                print(f"| {label} | " + " | ".join(spread(values) for values in counts) + " |")
            await browser.close()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opens", type=int, default=7, help="opens measured (each twice)")
    parser.add_argument("--latency", type=float, default=150, help="ms added to each request")
    parser.add_argument("--moves", type=int, default=4, help="moves counted per board")
    parser.add_argument("--tree", help="another checkout to run (first on sys.path)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(Path(args.tree or Path(__file__).parent.parent).resolve()))
    import logging

    logging.disable(logging.WARNING)
    print(f"tree: {args.tree or 'this checkout'}")
    asyncio.run(measure(args.opens, args.latency, args.moves))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
