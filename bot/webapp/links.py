"""Where the Mini App lives (pure): the page's address under WEBAPP_URL, and the t.me link
that opens it in a group, where Telegram allows no web_app button."""

from __future__ import annotations

import re
from dataclasses import dataclass

#: The page's path on the bot's web server; the API and the events live under it.
PAGE_PATH = "/app/"
#: A game's start parameter (`startapp=g42`): Telegram allows A-Z a-z 0-9 _ - only.
START_PARAM_RE = re.compile(r"g([0-9]{1,18})")


@dataclass(frozen=True)
class WebAppLinks:
    """WEBAPP_URL (the web server's public base address), WEBAPP_SHORT_NAME (None: no
    Mini App registered with @BotFather, so no links in groups) and the bot's username."""

    base_url: str
    short_name: str | None
    bot_username: str

    def page_url(self, game_id: int | None = None) -> str:
        """The page itself: a game's board, or the start page."""
        page = self.base_url.rstrip("/") + PAGE_PATH
        return page if game_id is None else f"{page}?game={game_id}"

    def direct_link(self, game_id: int) -> str | None:
        """t.me/<bot>/<app>?startapp=g<id>: opens the Mini App on the game from any chat."""
        if self.short_name is None:
            return None
        return f"https://t.me/{self.bot_username}/{self.short_name}?startapp={start_param(game_id)}"


def start_param(game_id: int) -> str:
    return f"g{game_id}"


def game_of_start_param(value: str | None) -> int | None:
    """The game id of a start parameter, or None for anything else."""
    found = START_PARAM_RE.fullmatch(value or "")
    return int(found.group(1)) if found else None
