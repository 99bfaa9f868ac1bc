"""The headers of every answer under /app/ (the page, its files, the API, errors too): the
content policy, and no guessing of content types. (The page and its files say how long they
may be kept themselves: bot.webapp.serving.assets.)"""

from __future__ import annotations

from aiohttp import web

from bot.webapp.links import PAGE_PATH

#: What the page may load and run: its own files (static/), and of the rest only Telegram's
#: web-app script (index.html loads it); it talks to its own server only. Inline styles: the
#: page sets its theme's colours through `element.style`, and Telegram's script may add a
#: style element (Telegram Web's custom style); no inline script at all.
CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self' https://telegram.org/js/telegram-web-app.js",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
    )
)


async def protect(request: web.Request, response: web.StreamResponse) -> None:
    """Every answer under /app/ (the page, its files, the API, errors too): the content
    policy, and no guessing of content types (a JSON answer is never run as a script)."""
    if not request.path.startswith(PAGE_PATH):
        return  # the webhook and the health check are not pages
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    response.headers["X-Content-Type-Options"] = "nosniff"
