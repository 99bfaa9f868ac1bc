"""Opening the Mini App with the bot (WEBAPP_URL): its links, the pages' live notifier, group
membership checks, the boards' "Open board" button and the private chats' menu button. Imported
only when WEBAPP_URL is set: a bot without it starts without any of the Mini App."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from functools import partial

from bot.chat.boards import BoardHooks
from bot.config import Settings
from bot.context import BotApplication
from bot.games.events import GameEnded, GameStarted, SeatsTaken
from bot.games.model import GameView
from bot.resources import MiniApp, Resources
from bot.webapp.buttons import publish_menu_button, with_open_board
from bot.webapp.links import WebAppLinks
from bot.webapp.live import GameNotifier
from bot.webapp.members import GroupMembers
from bot.webapp.pace import NewGamePace


def open_mini_app(application: BotApplication, settings: Settings, hooks: BoardHooks) -> BoardHooks:
    """The Mini App (WEBAPP_URL): every board gets its "Open board" button and tells the
    pages showing it; private chats' menu button opens it (set meanwhile, like the profile).
    Returns `hooks` with the Mini App's."""
    bot = application.bot
    assert settings.webapp_url is not None
    links = WebAppLinks(settings.webapp_url, settings.webapp_short_name, bot.username)
    notifier = GameNotifier()
    resources: Resources = application.bot_data
    pace = NewGamePace(settings.webapp_new_games_per_minute)
    resources.mini_app = MiniApp(links, notifier, GroupMembers(bot), pace)
    # A game that ends reaches its pages at once, even where no board of it can be edited
    # (its chat blocked the bot): the ending's event (`bot.games.events`).
    events = resources.running.games.store.events
    events.subscribe(GameEnded, notifier.heard)
    # A stranger found: the page that looks for one goes to the game.
    events.subscribe(GameStarted, notifier.heard_seated)
    events.subscribe(SeatsTaken, notifier.heard_seated)
    resources.tasks["menu_button"] = asyncio.create_task(publish_menu_button(bot, links))
    drawing = hooks.shown

    def shown(game: GameView) -> None:
        notifier.notify(game)
        drawing(game)

    return replace(hooks, keyboard=partial(with_open_board, links=links), shown=shown)
