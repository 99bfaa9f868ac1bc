"""The bot's profile on Telegram, in every language it speaks: the description people see
before pressing Start, the short description of its profile page and shared links, and the
command menu of private chats and of groups."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable

from telegram import Bot, BotCommand, BotCommandScopeAllGroupChats, BotCommandScopeAllPrivateChats
from telegram.error import TelegramError

from bot.locales.texts import available_languages, telegram_language_code, texts_for

log = logging.getLogger(__name__)

#: Commands that mean something in a private chat (challenges are for groups).
PRIVATE_COMMANDS = frozenset(
    {
        "start",
        "play",
        "stop",
        "hint",
        "undo",
        "card",
        "replay",
        "stats",
        "rating",
        "top",
        "help",
        "language",
        "forget",
    }
)


def command_menus(code: str) -> tuple[list[BotCommand], list[BotCommand]]:
    """The command menus of private chats and of groups, in language `code`."""
    everything = [BotCommand(name, text) for name, text in texts_for(code).COMMANDS]
    return [c for c in everything if c.command in PRIVATE_COMMANDS], everything


async def publish_profile(bot: Bot) -> None:
    """Set the descriptions and command menus for every language (English is the default for
    the others). A failure is logged: the bot plays without a profile just as well."""
    calls: list[Awaitable[bool]] = []
    for code in available_languages():
        tr = texts_for(code)
        language = telegram_language_code(code)
        private, group = command_menus(code)
        calls += [
            bot.set_my_description(tr.DESCRIPTION, language_code=language),
            bot.set_my_short_description(tr.SHORT_DESCRIPTION, language_code=language),
            # The default scope answers wherever no other applies.
            bot.set_my_commands(group, language_code=language),
            bot.set_my_commands(private, BotCommandScopeAllPrivateChats(), language),
            bot.set_my_commands(group, BotCommandScopeAllGroupChats(), language),
        ]
    results = await asyncio.gather(*calls, return_exceptions=True)
    failures = [r for r in results if isinstance(r, BaseException)]
    for failure in failures:
        if not isinstance(failure, TelegramError):
            raise failure
    if failures:
        log.warning(
            "could not set the bot's profile (%d of %d calls failed): %s",
            len(failures),
            len(calls),
            failures[0],
        )
