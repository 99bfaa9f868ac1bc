"""What the browser tests share: a real headless Chromium (Debian's `chromium`, driven by
Playwright) at phone size, a stub of `window.Telegram.WebApp` with valid initData for any
user, Telegram's light and dark themes, and reading the page's board."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from tests.webapp.support import telegram_init_data

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# Not the committed pictures (docs/): a test run must not change tracked files.
SCREENSHOTS = Path(__file__).resolve().parents[2] / "bench" / "screenshots" / "latest"
PHONE = {"width": 390, "height": 844}
# themeParams as Telegram's clients send them, light and dark.
LIGHT = {
    "bg_color": "#ffffff",
    "text_color": "#000000",
    "hint_color": "#999999",
    "link_color": "#2481cc",
    "button_color": "#2481cc",
    "button_text_color": "#ffffff",
    "secondary_bg_color": "#efeff3",
}
DARK = {
    "bg_color": "#17212b",
    "text_color": "#f5f5f5",
    "hint_color": "#708499",
    "link_color": "#6ab3f3",
    "button_color": "#5288c1",
    "button_text_color": "#ffffff",
    "secondary_bg_color": "#232e3c",
}
THEMES = {"light": LIGHT, "dark": DARK}


def playwright_api() -> Any:
    """Playwright's async API; a skip without it, except in CI, where it must be there."""
    if os.environ.get("CI"):
        import playwright.async_api as api

        return api
    return pytest.importorskip("playwright.async_api")


@pytest_asyncio.fixture(scope="session")
async def _shared_browser() -> AsyncIterator[Any]:
    """One Chromium, and one Playwright driver, per test process: starting them costs about
    1.4 s of CPU (the driver's Node.js most of it), more than most browser tests use. Every
    test runs on the one event loop of its process (`asyncio_default_test_loop_scope` in
    pyproject.toml), so the browser outlives a test's loop; each test has contexts of its own
    (`browser`)."""
    if CHROMIUM is None:
        if os.environ.get("CI"):
            raise RuntimeError("CI must run the browser tests: install Debian's chromium package")
        pytest.skip("no chromium here (apt-get install chromium)")
    async with playwright_api().async_playwright() as playwright:
        launched = _Launched(playwright)
        try:
            yield launched
        finally:
            await launched.close()


class _Launched:
    """The process's Chromium, launched again if a test crashed or closed it."""

    def __init__(self, playwright: Any) -> None:
        self._playwright = playwright
        self._browser: Any = None

    async def get(self) -> Any:
        if self._browser is None or not self._browser.is_connected():
            self._browser = await self._playwright.chromium.launch(executable_path=CHROMIUM)
        return self._browser

    async def close(self) -> None:
        if self._browser is not None and self._browser.is_connected():
            await self._browser.close()


@pytest.fixture
async def browser(_shared_browser: _Launched) -> AsyncIterator[Any]:
    """The process's Chromium for one test: what the test opened (contexts, pages) is closed
    after it, so that no page of one test lives on into the next."""
    shared = await _shared_browser.get()
    try:
        yield shared
    finally:
        for context in list(shared.contexts):
            await context.close()


def telegram_stub(
    init_data: str, user: dict[str, Any], scheme: str, *, back_button: bool = True
) -> str:
    """A script standing in for telegram-web-app.js: what the page uses of Telegram.WebApp.
    Haptic calls are recorded in window.hapticCalls; the Back button's and the inline
    share's in window.telegramCalls (`press_back` taps the Back button). Without
    `back_button`, a client too old to have one (Bot API 6.1)."""
    unsafe = {"user": {k: user[k] for k in ("id", "first_name", "language_code") if k in user}}
    return f"""
      window.hapticCalls = [];
      window.telegramCalls = [];
      window.backCallbacks = [];
      window.Telegram = {{ WebApp: {{
        BackButton: {{
          isVisible: false,
          show() {{ this.isVisible = true; window.telegramCalls.push(["BackButton.show"]); }},
          hide() {{ this.isVisible = false; window.telegramCalls.push(["BackButton.hide"]); }},
          onClick(callback) {{ window.backCallbacks.push(callback); }},
        }},
        switchInlineQuery(query, types) {{
          window.telegramCalls.push(["switchInlineQuery", query, types]);
        }},
        initData: {json.dumps(init_data)},
        initDataUnsafe: {json.dumps(unsafe)},
        themeParams: {json.dumps(THEMES[scheme])},
        colorScheme: {json.dumps(scheme)},
        version: "7.0", platform: "android",
        ready() {{}}, expand() {{}}, onEvent() {{}}, offEvent() {{}},
        isVersionAtLeast() {{ return true; }},
        HapticFeedback: {{
          impactOccurred(style) {{ window.hapticCalls.push("impact:" + style); }},
          notificationOccurred(kind) {{ window.hapticCalls.push("notification:" + kind); }},
          selectionChanged() {{}},
        }},
      }} }};
      if (!{json.dumps(back_button)}) delete window.Telegram.WebApp.BackButton;
    """


#: Every load or inline style or script the page's Content-Security-Policy refused, as
#: "<directive> <what>", in `window.policyViolations` (`policy_violations`).
RECORD_POLICY_VIOLATIONS = """
window.policyViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.policyViolations.push(e.violatedDirective + " " + e.blockedURI);
});
"""


async def policy_violations(page: Any) -> list[str]:
    """What the page's Content-Security-Policy refused so far."""
    return await page.evaluate("window.policyViolations")


async def open_page(
    browser: Any,
    url: str,
    token: str,
    user: dict[str, Any],
    scheme: str = "light",
    *,
    width: int = PHONE["width"],
    back_button: bool = True,
) -> tuple[Any, list[str]]:
    """The page at `url` on a phone-sized screen (`width` px wide), as Telegram would open it
    for `user`. Nothing leaves 127.0.0.1: the request for telegram.org's script is refused
    (and listed)."""
    viewport = {**PHONE, "width": width}
    context = await browser.new_context(viewport=viewport, device_scale_factor=2)
    outside: list[str] = []

    async def only_local(route: Any) -> None:
        if route.request.url.startswith("http://127.0.0.1:"):
            await route.continue_()
        else:
            outside.append(route.request.url)
            await route.abort()

    await context.route("**/*", only_local)
    page = await context.new_page()
    stub = telegram_stub(telegram_init_data(token, user), user, scheme, back_button=back_button)
    await page.add_init_script(stub)
    await page.add_init_script(RECORD_POLICY_VIOLATIONS)
    await page.goto(url)
    return page, outside


async def press_back(page: Any) -> None:
    """The user taps Telegram's Back button (shown by the page)."""
    assert await page.evaluate("Telegram.WebApp.BackButton.isVisible")
    await page.evaluate("window.backCallbacks.forEach((callback) => callback())")


async def telegram_calls(page: Any) -> list[list[Any]]:
    """What the page asked of Telegram's Back button and inline share, in order."""
    return await page.evaluate("window.telegramCalls")


async def page_cells(page: Any) -> str:
    """The page's cells in the server's order (data-cell), as X, O and _."""
    return await page.eval_on_selector_all(
        "#board .cell",
        "cells => cells.sort((a, b) => a.dataset.cell - b.dataset.cell).map(c =>"
        " c.classList.contains('X') ? 'X' : c.classList.contains('O') ? 'O' : '_').join('')",
    )


async def wait_ply(page: Any, ply: int) -> None:
    await page.wait_for_selector(f"#board[data-ply='{ply}']")


async def play_on(page: Any, pick: str = "#board .cell:enabled") -> None:
    """The player moves on the page (the first cell `pick` finds) until the game is over."""
    while await page.get_attribute("#board", "data-status") == "active":
        ply = int(await page.get_attribute("#board", "data-ply"))
        if await page.get_attribute("#board", "data-your-turn") == "true":
            # The cells are disabled while the last move's answer is on its way (the live
            # stream may show the AI's reply before it): the click waits for them.
            await page.click(pick)
        await page.wait_for_selector(f"#board:not([data-ply='{ply}'])")


async def screenshot(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SCREENSHOTS / name))


def page_url(board: Any) -> str:
    """The Mini App's address on a board's "Open board" button (its last row)."""
    return board.reply_markup["inline_keyboard"][-1][0]["web_app"]["url"]


async def open_new_game(
    telegram: Any, browser: Any, user: dict[str, Any], command: str = "/start hard", **options: Any
) -> tuple[Any, Any]:
    """`user` starts a game with `command` in their private chat and opens its board's page
    (`open_page`'s `options`), shown at its first position: the page and the chat board."""
    from tests.support.chat import send  # the chat's helpers need the bot's modules

    await send(telegram, user, command)
    board = telegram.last_bot_message(user["id"])
    page, _ = await open_page(browser, page_url(board), telegram.token, user, **options)
    await wait_ply(page, 0)
    return page, board


class Requests:
    """The requests of a page as Chrome's DevTools protocol reports them (`recorded_page`):
    which went to the network and which the browser's cache answered, when each started and
    ended (the response's headers, for a stream), the response's headers, and its status as
    the server sent it (`sent`: 304 where Chrome then reports the 200 it had)."""

    def __init__(self) -> None:
        self.seen: dict[str, dict[str, Any]] = {}

    def attach(self, cdp: Any) -> None:
        def sent(event: dict[str, Any]) -> None:
            request = {"url": event["request"]["url"], "start": event["timestamp"], "end": None}
            self.seen[event["requestId"]] = {**request, "cached": False, "failed": False}

        def update(**values: Any) -> Any:
            def handle(event: dict[str, Any]) -> None:
                if event["requestId"] in self.seen:
                    found = {key: value(event) for key, value in values.items()}
                    self.seen[event["requestId"]].update(found)

            return handle

        def answered(event: dict[str, Any]) -> dict[str, Any]:
            return {k.lower(): v for k, v in event["response"]["headers"].items()}

        cdp.on("Network.requestWillBeSent", sent)
        cdp.on("Network.requestServedFromCache", update(cached=lambda _: True))
        cdp.on(
            "Network.responseReceived",
            update(
                headers=answered,
                stream=lambda e: e["response"]["mimeType"] == "text/event-stream",
                end=lambda e: e["timestamp"],
                cached=lambda e: bool(e["response"].get("fromDiskCache")),
            ),
        )
        cdp.on("Network.responseReceivedExtraInfo", update(sent=lambda e: e["statusCode"]))
        cdp.on("Network.loadingFinished", update(end=lambda e: e["timestamp"]))
        cdp.on("Network.loadingFailed", update(failed=lambda _: True))

    def fetched(self) -> list[dict[str, Any]]:
        """What went to the server: not answered by the cache, not refused, not the browser's
        own favicon; by the time each started."""
        return sorted(
            (
                r
                for r in self.seen.values()
                if not r["cached"] and not r["failed"] and not r["url"].endswith("/favicon.ico")
            ),
            key=lambda r: r["start"],
        )

    def paths(self, base: str) -> list[str]:
        """What went to the server, as paths under `base` (the page's address)."""
        return [r["url"].removeprefix(base.split("?")[0]) for r in self.fetched()]

    async def wait_for(self, page: Any, ending: str) -> None:
        """Until a request whose address ends with `ending` has gone out (5 s at most)."""
        for _ in range(100):
            if any(r["url"].endswith(ending) for r in self.seen.values()):
                return
            await page.wait_for_timeout(50)
        raise AssertionError(f"no request for …{ending}")

    def round_trips(self) -> int:
        """The longest run of requests each started only once the one before it had ended:
        round trips one after another. Live streams are left out, and requests not answered
        yet (what the page shows now did not wait for them)."""
        requests = [r for r in self.fetched() if not r.get("stream") and r["end"] is not None]
        depth: list[int] = []
        for i, request in enumerate(requests):
            before = [
                depth[j] for j, other in enumerate(requests[:i]) if other["end"] <= request["start"]
            ]
            depth.append(1 + max(before, default=0))
        return max(depth, default=0)


async def recorded_page(
    context: Any, url: str, token: str, user: dict[str, Any]
) -> tuple[Any, Requests]:
    """The page at `url` in a new tab of `context`, as `open_page` opens it, with its requests
    recorded. No Playwright route (a route switches the browser's cache off): Telegram's script
    is refused by Chrome itself, at once."""
    page = await context.new_page()
    cdp = await context.new_cdp_session(page)
    requests = Requests()
    requests.attach(cdp)
    await cdp.send("Network.enable")
    await cdp.send("Network.setBlockedURLs", {"urls": ["https://telegram.org/*"]})
    stub = telegram_stub(telegram_init_data(token, user), user, "light")
    await page.add_init_script(stub)
    await page.add_init_script(RECORD_POLICY_VIOLATIONS)
    await page.goto(url)
    return page, requests
