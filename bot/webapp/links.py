"""Where the Mini App lives (pure): the page's address under WEBAPP_URL, and the t.me link
that opens it in a group, where Telegram allows no web_app button.

A link names its game by the game's public id (`GameView.public_id`), never by its row id:
row ids are sequential, so one link would tell the way to every other game."""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.games.public_ids import is_public_id

#: The page's path on the bot's web server; the API and the events live under it.
PAGE_PATH = "/app/"
#: A game's start parameter (`startapp=g<public id>`): Telegram allows A-Z a-z 0-9 _ - only,
#: up to 64 characters.
START_PARAM_RE = re.compile(r"g(.*)")


@dataclass(frozen=True)
class WebAppLinks:
    """WEBAPP_URL (the web server's public base address), WEBAPP_SHORT_NAME (None: no
    Mini App registered with @BotFather, so no links in groups) and the bot's username."""

    base_url: str
    short_name: str | None
    bot_username: str

    def page_url(self, public_id: str | None = None) -> str:
        """The page itself: a game's board (by its public id), or the start page."""
        page = self.base_url.rstrip("/") + PAGE_PATH
        return page if public_id is None else f"{page}?game={public_id}"

    def direct_link(self, public_id: str) -> str | None:
        """t.me/<bot>/<app>?startapp=g<public id>: opens the Mini App on the game from any
        chat."""
        if self.short_name is None:
            return None
        start = start_param(public_id)
        return f"https://t.me/{self.bot_username}/{self.short_name}?startapp={start}"


def start_param(public_id: str) -> str:
    return f"g{public_id}"


def game_of_start_param(value: str | None) -> str | None:
    """The public id of a game's start parameter, or None for anything else."""
    found = START_PARAM_RE.fullmatch(value or "")
    return found.group(1) if found and is_public_id(found.group(1)) else None
