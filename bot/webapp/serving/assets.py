"""The page and its files as the browser gets them: few, compressed, and cached for good.

Read once at start-up (`read_assets`), then answered from memory:

- The modules are sent as one file: the module the page loads (app.js) and every module it
  imports, however deep, each in a function of its own (its own scope, as a module has), in the
  order of their imports, its imports read from what the ones before it return (`bundle`).
  One request, at once, instead of one per module found level by level as the imports are
  read (and over HTTP/1.1 a browser fetches at most 6 files of a server at a time). A module
  keeps to what the bundle reads: `import { a, b as c } from "./x.js"`, `import "./x.js"`, and
  `export` before a function, a class or a const; anything else (`export default`, `export
  let`, `import *`, modules that import each other in a cycle) is refused at start-up.
- Every file the page names gets its content's hash in its name (`app.js` →
  `app.1a2b3c4d5e6f.js`, the bundle's hash for app.js) and is cached for good (a year,
  `immutable`): a release's file has a name of its own, so a browser never runs an old script
  with a new page, and a second open fetches nothing but the page and the game. The page itself
  is never cached without asking (`no-cache`); its ETag answers 304 while it is unchanged.
  Another release's name for a file (while a new release is rolled out over several
  instances) gets this release's file, never kept (`no-store`).
- Text is gzip-compressed here, once, and sent so to a browser that accepts gzip (every one
  Telegram opens a Mini App in does), with `Vary: Accept-Encoding` for the caches between.
  (`compressed` gzips the few dynamic answers too large to send as they are, as they go.)
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
import re
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web

PAGE = "index.html"
#: A versioned file: the same name in every release with the same content.
FOREVER = "public, max-age=31536000, immutable"
#: The page: asked for each time, and answered 304 while unchanged.
ALWAYS_ASK = "no-cache"
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
}
#: A versioned name: `app.1a2b3c4d5e6f.js`.
VERSIONED = re.compile(r"(?P<stem>[\w-]+)\.[0-9a-f]{12}(?P<suffix>\.\w+)")
#: `src="static/app.js"`, `href="static/app.css"` in the page.
REFERENCE = re.compile(r"""\b(src|href)="static/([\w.-]+)\"""")
#: `<script type="module" src="static/app.js">`: a module the page runs, with its imports.
MODULE_SCRIPT = re.compile(r"""<script type="module" src="static/([\w.-]+)">""")
#: `import { a, b as c } from "./x.js";` and `import "./x.js";`, a line of their own.
IMPORT = re.compile(
    r"^import\s*(?:\{(?P<names>[^}]*)\}\s*from\s*)?"
    r"""(?P<q>["'])\./(?P<file>[\w.-]+\.js)(?P=q);?[ \t]*$""",
    re.MULTILINE,
)
#: `export function f`, `export async function f`, `export class C`, `export const c`.
EXPORT = re.compile(
    r"^export\s+(?P<kind>(?:async\s+)?function\*?|class|const)\s+(?P<name>[A-Za-z_$][\w$]*)",
    re.MULTILINE,
)
#: `url(font.woff2)`, `@import "more.css"` in a style sheet: a file of its own (not `data:`).
STYLE_FILE = re.compile(r"""url\(\s*["']?(?!data:)|@import\b""")
#: What is left of `import` and `export` once the bundle has read what it reads: refused.
UNREAD = re.compile(r"^[ \t]*(?:import|export)\b|\bimport\s*[(.]", re.MULTILINE)


@dataclass(frozen=True)
class Asset:
    """One file as it is sent: its bytes, and gzipped when that is smaller."""

    body: bytes
    content_type: str
    etag: str
    gzipped: bytes | None = None

    @classmethod
    def of(cls, body: bytes, name: str) -> Asset:
        suffix = Path(name).suffix
        content_type = CONTENT_TYPES.get(suffix) or (
            mimetypes.guess_type(name)[0] or "application/octet-stream"
        )
        gzipped = None
        if content_type.startswith("text/") or suffix in (".svg", ".json"):
            # mtime 0: the same bytes on every start-up and every instance.
            packed = gzip.compress(body, compresslevel=9, mtime=0)
            gzipped = packed if len(packed) < len(body) else None
        return cls(body, content_type, f'"{digest(body)}"', gzipped)


@dataclass(frozen=True)
class Assets:
    """The page, and the files it names by their versioned names."""

    page: Asset
    files: dict[str, Asset]
    #: A file's versioned name, by the page's name for it in static/.
    names: dict[str, str]


def digest(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()[:12]


def versioned(name: str, body: bytes) -> str:
    """`app.js` sent as `body` → `app.<hash>.js`."""
    path = Path(name)
    return f"{path.stem}.{digest(body)}{path.suffix}"


def read_assets(folder: Path) -> Assets:
    """static/ (`folder`) read and made ready to serve: see the module's docstring."""
    sources = {path.name: path.read_bytes() for path in folder.iterdir() if path.is_file()}
    if PAGE not in sources:
        raise ValueError(f"no {PAGE} in {folder}")
    page = sources[PAGE].decode()
    named = list(dict.fromkeys(match[2] for match in REFERENCE.finditer(page)))
    missing = [name for name in named if name not in sources or name == PAGE]
    if missing:
        raise ValueError(f"{PAGE} names files static/ does not have: {missing}")
    modules = {match[1] for match in MODULE_SCRIPT.finditer(page)}
    scripts = {name: body.decode() for name, body in sources.items() if name.endswith(".js")}
    bodies = {
        name: bundle(name, scripts).encode() if name in modules else sources[name] for name in named
    }
    for name, body in bodies.items():
        if name.endswith(".css") and STYLE_FILE.search(body.decode()):
            # Served by its name in static/, it would be 404: only the page's names are.
            raise ValueError(f"{name} names a file; only the page's own references are served")
    names = {name: versioned(name, body) for name, body in bodies.items()}
    page = REFERENCE.sub(lambda m: f'{m[1]}="static/{names[m[2]]}"', page)
    return Assets(
        page=Asset.of(page.encode(), PAGE),
        files={names[name]: Asset.of(body, name) for name, body in bodies.items()},
        names=names,
    )


def bundle(entry: str, sources: dict[str, str]) -> str:
    """The module `entry` of `sources` (by name) and every module it imports, however deep,
    as one script: each module in a function of its own, after the modules it imports, its
    imports read from what they return. Refuses (ValueError) what it cannot read so."""
    order: list[str] = []

    def visit(name: str, importers: tuple[str, ...]) -> None:
        if name in order:
            return
        if name in importers:
            cycle = (*importers[importers.index(name) :], name)
            raise ValueError(f"modules import each other in a cycle: {' → '.join(cycle)}")
        if name not in sources or not name.endswith(".js"):
            raise ValueError(f"{importers[-1]} imports {name}, which static/ does not have")
        for match in IMPORT.finditer(sources[name]):
            visit(match["file"], (*importers, name))
        order.append(name)

    visit(entry, ())
    return "".join(wrapped(name, sources[name]) for name in order)


def wrapped(name: str, source: str) -> str:
    """The module `name` as a function of its own, run once: its imports read from the
    modules before it, its exports returned (`const board_js = (() => {…})();`)."""

    def imported(match: re.Match[str]) -> str:
        if match["names"] is None:  # imported for what it does: it ran before
            return ""
        names = [part.split() for part in match["names"].split(",") if part.strip()]
        if any(
            len(words) not in (1, 3) or (len(words) == 3 and words[1] != "as") for words in names
        ):
            raise ValueError(f"{name}: an import the bundle cannot read: {match[0]}")
        taken = ", ".join(
            words[0] if len(words) == 1 else f"{words[0]}: {words[2]}" for words in names
        )
        return f"const {{ {taken} }} = {identifier(match['file'])};"

    body = IMPORT.sub(imported, source)
    exported = [match["name"] for match in EXPORT.finditer(body)]
    body = EXPORT.sub(lambda match: f"{match['kind']} {match['name']}", body)
    unread = UNREAD.search(body)
    if unread:
        line = body[: unread.start()].count("\n") + 1
        raise ValueError(f"{name}, line {line}: an import or export the bundle cannot read")
    returned = f"{{ {', '.join(exported)} }}" if exported else "{}"
    return (
        f"// {name}\nconst {identifier(name)} = (() => {{\n{body.rstrip()}\n"
        f"return {returned};\n}})();\n"
    )


def identifier(name: str) -> str:
    """A module's name in the bundle: `board.js` → `board_js`."""
    return re.sub(r"\W", "_", name)


def accepts_gzip(accept_encoding: str) -> bool:
    """Whether an `Accept-Encoding` header takes gzip: named (or `*`), and not with `q=0`."""
    for part in accept_encoding.split(","):
        coding, _, params = part.partition(";")
        if coding.strip().lower() not in ("gzip", "*"):
            continue
        quality = params.strip().lower()
        if not quality:
            return True
        try:
            return float(quality.removeprefix("q=")) > 0
        except ValueError:
            return False
    return False


def send(request: web.Request, asset: Asset, cache_control: str) -> web.Response:
    """`asset` as the answer to `request`: gzipped if the browser takes it, 304 if the
    browser's copy is this one."""
    accepted = accepts_gzip(request.headers.get("Accept-Encoding", ""))
    packed = asset.gzipped if accepted else None
    # Each encoding is a representation of its own, with an ETag of its own.
    etag = asset.etag if packed is None else asset.etag[:-1] + '-gzip"'
    headers = {"Cache-Control": cache_control, "ETag": etag, "Vary": "Accept-Encoding"}
    if etag in if_none_match(request.headers.get("If-None-Match", "")):
        return web.Response(status=304, headers=headers)
    if packed is not None:
        headers["Content-Encoding"] = "gzip"
    headers["Content-Type"] = asset.content_type
    return web.Response(body=asset.body if packed is None else packed, headers=headers)


def compressed(request: web.Request, response: web.Response) -> web.Response:
    """A dynamic answer (`response`, not sent yet) gzipped as it is sent, when the browser
    takes gzip: for the few answers too large to send as they are."""
    response.headers["Vary"] = "Accept-Encoding"
    if accepts_gzip(request.headers.get("Accept-Encoding", "")):
        response.enable_compression(web.ContentCoding.gzip)
    return response


def if_none_match(header: str) -> set[str]:
    """The ETags an `If-None-Match` header names (weak ones as strong: a GET compares them
    weakly)."""
    return {tag.strip().removeprefix("W/") for tag in header.split(",") if tag.strip()}


class AssetRoutes:
    """The page and its files, answered from memory."""

    def __init__(self, assets: Assets) -> None:
        self.assets = assets

    async def page(self, request: web.Request) -> web.Response:
        """The page: the same for everyone (its data comes from the API)."""
        return send(request, self.assets.page, ALWAYS_ASK)

    async def file(self, request: web.Request) -> web.Response:
        """A file by its versioned name. Another release's name for one of the page's files
        (instances of two releases behind one address, while a new one is rolled out: the
        page from one, its file asked of the other) gets this release's file, kept nowhere,
        rather than a page without its script; any other name is 404."""
        name = request.match_info["name"]
        asset = self.assets.files.get(name)
        if asset is not None:
            return send(request, asset, FOREVER)
        release = VERSIONED.fullmatch(name)
        ours = self.assets.names.get(release["stem"] + release["suffix"]) if release else None
        if ours is None:
            raise web.HTTPNotFound()
        return send(request, self.assets.files[ours], "no-store")
