"""The page opens in few round trips (bot.webapp.serving.assets): its modules sent as one file,
each file named by its content, gzip-compressed and kept for good; the page itself asked for
each time (304 while unchanged); its first call brings the words with the game, or the games."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import aiohttp
import pytest

from bot.locales.texts import texts_for
from bot.webapp.api import STATIC
from bot.webapp.serving.assets import accepts_gzip, bundle, read_assets
from bot.webapp.words import page_texts
from tests.support.chat import press, send
from tests.support.fake_telegram import FakeTelegram
from tests.webapp.support import auth, bot_with_mini_app, call, public_id_on, versioned_names

ALICE = FakeTelegram.user(1001, "Alice")
MARYAM = FakeTelegram.user(1004, "مریم", language_code="fa")
FOREVER = "public, max-age=31536000, immutable"
PAGE = """<!doctype html><html><head>
<link rel="stylesheet" href="static/look.css">
<script src="static/first.js"></script>
</head><body><script type="module" src="static/app.js"></script></body></html>"""
MODULES = {
    "app.js": '"use strict";\nimport { b, d as e } from "./middle.js";\nimport "./leaf.js";\nb(e);',
    "middle.js": (
        "import {\n  c,\n} from './leaf.js';\n"
        "export const b = (x) => c + x;\nexport async function d() {}\nexport class F {}"
    ),
    "leaf.js": "export function c() {}\n// export import",
}


def static(tmp_path: Path, files: dict[str, str]) -> Path:
    """A static/ folder of `files` by name, PAGE as its index.html."""
    for name, text in {
        "index.html": PAGE,
        "look.css": "body {}",
        "first.js": "1;",
        **files,
    }.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def test_the_modules_go_as_one_file_each_after_those_it_imports() -> None:
    sent = bundle("app.js", MODULES)
    assert (
        sent.index("const leaf_js =")
        < sent.index("const middle_js =")
        < sent.index("const app_js =")
    )
    assert "const { c } = leaf_js;" in sent and "const { b, d: e } = middle_js;" in sent
    assert "return { b, d, F };" in sent and "return { c };" in sent and "return {};" in sent
    assert "async function d() {}" in sent and "export" not in sent.replace("// export", "")
    assert sent.count("function c()") == 1  # imported twice, sent once
    assert '(() => {\n"use strict";' in sent  # still its first statement


def test_a_change_in_any_module_renames_the_bundle_and_nothing_else(tmp_path: Path) -> None:
    folder = static(tmp_path, MODULES)
    before = read_assets(folder)
    (folder / "leaf.js").write_text("export function c() { return 1; }")
    after = read_assets(folder)
    assert set(after.names) == {"look.css", "first.js", "app.js"}
    assert before.names["app.js"] != after.names["app.js"]
    assert before.names["look.css"] == after.names["look.css"]
    assert before.names["first.js"] == after.names["first.js"]
    page = after.page.body.decode()
    assert f'<link rel="stylesheet" href="static/{after.names["look.css"]}">' in page
    assert f'<script src="static/{after.names["first.js"]}">' in page
    assert f'<script type="module" src="static/{after.names["app.js"]}">' in page
    assert after.files[after.names["app.js"]].body.decode() == bundle(
        "app.js",
        {
            **MODULES,
            "leaf.js": "export function c() { return 1; }",
        },
    )


@pytest.mark.parametrize(
    ("app", "refusal"),
    [
        ('import "./a.js";', "a cycle: app.js → a.js → app.js"),
        ('import "./gone.js";', "app.js imports gone.js, which static/ does not have"),
        ("export default 1;", "app.js, line 1: an import or export the bundle cannot read"),
        ("\nexport let a = 1;", "app.js, line 2: an import or export"),
        ("export { a };", "line 1: an import or export"),
        ('import * as a from "./a.js";', "line 1: an import or export"),
        ('import a from "./a.js";', "line 1: an import or export"),
        ('const a = await import("./a.js");', "line 1: an import or export"),
        ('import { a as } from "./a.js";', "an import the bundle cannot read"),
    ],
)
def test_modules_the_bundle_cannot_read_are_refused_at_start_up(
    tmp_path: Path, app: str, refusal: str
) -> None:
    files = {"app.js": app, "a.js": 'import "./app.js";' if "cycle" in refusal else "1;"}
    with pytest.raises(ValueError, match=refusal):
        read_assets(static(tmp_path, files))


def test_a_page_naming_a_file_static_does_not_have_is_refused_at_start_up(
    tmp_path: Path,
) -> None:
    (tmp_path / "index.html").write_text(PAGE)
    with pytest.raises(ValueError, match=r"\['look.css', 'first.js', 'app.js'\]"):
        read_assets(tmp_path)


@pytest.mark.parametrize(
    "style", ["@font-face { src: url(face.woff2); }", "a { b: url('x.png') }", '@import "x.css";']
)
def test_a_style_sheet_naming_a_file_is_refused_at_start_up(tmp_path: Path, style: str) -> None:
    folder = static(tmp_path, {"app.js": "1;", "look.css": style})
    with pytest.raises(ValueError, match=r"look\.css names a file"):
        read_assets(folder)


def test_files_that_are_not_text_are_sent_as_they_are(tmp_path: Path) -> None:
    icon = bytes(range(256)) * 4  # no UTF-8, and nothing gzip would shrink much
    folder = static(tmp_path, {"app.js": "1;", "look.css": "a { b: url(data:,x) }"})
    (folder / "index.html").write_text(
        PAGE.replace("</head>", '<link rel="icon" href="static/i.png"></head>')
    )
    (folder / "i.png").write_bytes(icon)
    assets = read_assets(folder)
    sent = assets.files[assets.names["i.png"]]
    assert sent.body == icon and sent.content_type == "image/png" and sent.gzipped is None


def test_the_pages_own_files_are_versioned_and_compressed() -> None:
    assets = read_assets(STATIC)
    page = assets.page.body.decode()
    assert versioned_names(page) == assets.names
    assert set(assets.names) == {"app.css", "shell.js", "app.js"}
    sent = assets.files[assets.names["app.js"]].body.decode()
    # Every module of static/ is in it (the page uses them all).
    for module in STATIC.glob("*.js"):
        if module.name != "shell.js":
            assert f"// {module.name}\nconst " in sent, module.name
    # Compressed once, at start-up: a third of the bytes or less.
    files = [assets.page, *assets.files.values()]
    assert sum(len(a.gzipped or a.body) for a in files) < sum(len(a.body) for a in files) / 3


@pytest.mark.parametrize(
    ("header", "takes"),
    [
        ("gzip, deflate, br", True),
        ("br;q=1.0, gzip;q=0.8, *;q=0.1", True),
        ("GZIP", True),
        ("*", True),
        ("gzip;q=0", False),
        ("gzip;q=0.0, deflate", False),
        ("deflate, br", False),
        ("", False),
        ("identity", False),
        ("gzip;q=x", False),
    ],
)
def test_gzip_goes_only_to_a_browser_that_takes_it(header: str, takes: bool) -> None:
    assert accepts_gzip(header) is takes


async def test_the_page_and_its_files_are_compressed_and_the_files_kept_for_good(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with (
        bot_with_mini_app(telegram, database_url) as (_runner, page),
        aiohttp.ClientSession(auto_decompress=False) as http,
    ):
        gzip_please = {"Accept-Encoding": "gzip, deflate"}
        async with http.get(page, headers=gzip_please) as answer:
            html = gzip.decompress(await answer.read()).decode()
            headers = answer.headers
        assert headers["Content-Encoding"] == "gzip" and headers["Vary"] == "Accept-Encoding"
        assert headers["Content-Type"] == "text/html; charset=utf-8"
        # The page: asked for each time, and 304 while unchanged.
        assert headers["Cache-Control"] == "no-cache"
        again = {**gzip_please, "If-None-Match": headers["ETag"]}
        async with http.get(page, headers=again) as answer:
            assert answer.status == 304 and not await answer.read()
        names = versioned_names(html)
        assert set(names) == {"app.js", "app.css", "shell.js"}
        for name, versioned in names.items():
            url = page + "static/" + versioned
            async with http.get(url, headers=gzip_please) as answer:
                assert answer.status == 200, name
                assert answer.headers["Cache-Control"] == FOREVER
                assert answer.headers["Content-Encoding"] == "gzip"
                assert answer.headers["Vary"] == "Accept-Encoding"
                assert answer.headers["X-Content-Type-Options"] == "nosniff"
                packed = await answer.read()
            if name == "app.js":
                packed_script = packed
            # A browser that takes no gzip gets the file as it is.
            async with http.get(url, headers={"Accept-Encoding": "identity"}) as answer:
                assert "Content-Encoding" not in answer.headers
                assert gzip.decompress(packed) == await answer.read()
                kind = "text/javascript" if name.endswith(".js") else "text/css"
                assert answer.headers["Content-Type"] == kind + "; charset=utf-8"
        # Only the versioned names: a name without its version is no file of any release.
        for unknown in ("app.js", "app.css", "board.0123456789ab.js", "app.0123456789a.js"):
            async with http.get(page + "static/" + unknown) as answer:
                assert answer.status == 404, unknown
        # Another release's name for the page's script (a page from an instance of the next
        # release, say): this release's script, kept nowhere.
        other = page + "static/app.0123456789ab.js"
        async with http.get(other, headers={"Accept-Encoding": "identity"}) as answer:
            assert answer.status == 200 and answer.headers["Cache-Control"] == "no-store"
            assert await answer.read() == gzip.decompress(packed_script)


async def test_the_pages_first_call_brings_its_words_with_the_game_or_the_games(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        await send(telegram, MARYAM, "/start easy")
        game = public_id_on(telegram, telegram.last_bot_message(MARYAM["id"]))
        await send(telegram, ALICE, "/language")
        await press(telegram, ALICE, telegram.last_bot_message(ALICE["id"]), "Deutsch")
        async with aiohttp.ClientSession() as http:
            maryam = auth(telegram, MARYAM)
            _, opened = await call(http, "GET", page + f"api/games/{game}?words=1", maryam)
            _, plain = await call(http, "GET", page + f"api/games/{game}", maryam)
            _, home = await call(http, "GET", page + "api/games?words=1", auth(telegram, ALICE))
            _, listed = await call(http, "GET", page + "api/games", auth(telegram, ALICE))
            _, apart = await call(http, "GET", page + "api/texts", auth(telegram, ALICE))
            # The answer with the words, 20 KB of them in Persian, is gzipped on its way.
            url = page + f"api/games/{game}?words=1"
            async with http.get(url, headers=maryam, auto_decompress=False) as answer:
                assert answer.headers["Content-Encoding"] == "gzip"
                assert answer.headers["Vary"] == "Accept-Encoding"
                assert json.loads(gzip.decompress(await answer.read())) == opened
            async with http.get(url, headers={**maryam, "Accept-Encoding": "gzip;q=0"}) as answer:
                assert "Content-Encoding" not in answer.headers
    # Her app's language; and Alice's, the one she chose in chat: as api/texts says them.
    assert opened["words"] == page_texts("fa") and opened["words"]["rtl"] is True
    assert opened["game"] == plain["game"] and "words" not in plain
    assert home["words"] == apart == page_texts("de")
    assert home["words"]["texts"]["PAGE.title"] == texts_for("de").PAGE["title"]
    assert {**home, "words": None} == {**listed, "words": None} and "words" not in listed
