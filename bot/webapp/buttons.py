"""The Mini App's buttons in chat: "Open board" under a board message, and the private
chats' menu button."""

from __future__ import annotations

import logging

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, MenuButtonWebApp, WebAppInfo
from telegram.error import TelegramError

from bot.games.model import GameView
from bot.locales.texts import texts_for
from bot.webapp.links import WebAppLinks
from core.positions import is_ultimate

log = logging.getLogger(__name__)


def with_open_board(
    keyboard: InlineKeyboardMarkup | None, game: GameView, links: WebAppLinks
) -> InlineKeyboardMarkup | None:
    """The board's keyboard with an "Open board" row for the Mini App under it: a web_app
    button in a private chat (the only place Telegram allows one), a t.me link to the Mini App
    elsewhere (groups, inline messages; none without WEBAPP_SHORT_NAME). A board without a
    keyboard, or a challenge nobody joined yet, gets none. Every seat of a game of three or four
    plays from the page too. Ultimate's board gets one even while it has no keyboard of its own
    (the other side's turn): the page shows the whole position, live."""
    running_ultimate = is_ultimate(game.board) and game.is_active
    if (keyboard is None and not running_ultimate) or game.is_open:
        return keyboard
    # A link names the game by its public id, never by its (sequential) row id.
    assert game.public_id, "a board's game is stored, with its public id"
    text = texts_for(game.language).BUTTON_OPEN_BOARD
    # Private chats have the user's (positive) id; groups' ids are negative.
    private = game.inline_message_id is None and game.chat_id is not None and game.chat_id > 0
    if private:
        button = InlineKeyboardButton(text, web_app=WebAppInfo(links.page_url(game.public_id)))
    else:
        link = links.direct_link(game.public_id)
        if link is None:
            return keyboard
        button = InlineKeyboardButton(text, url=link)
    rows = keyboard.inline_keyboard if keyboard is not None else ()
    return InlineKeyboardMarkup([*rows, [button]])


async def publish_menu_button(bot: Bot, links: WebAppLinks) -> None:
    """Make the private chats' menu button open the Mini App's start page. A failure is
    logged: the boards' buttons open it just as well."""
    menu = MenuButtonWebApp(texts_for(None).MENU_BUTTON_WEBAPP, WebAppInfo(links.page_url()))
    try:
        await bot.set_chat_menu_button(menu_button=menu)
    except TelegramError as error:
        log.warning("could not set the chat menu button: %s", error)
