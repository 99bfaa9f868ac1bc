"""The bot's profile: descriptions and command menus per language and scope, set at start-up
without delaying the first update; /help's buttons to play with people."""

from __future__ import annotations

import json

from bot.locales import de, en, ru
from bot.locales.texts import available_languages, telegram_language_code, texts_for
from bot.views.render import render_welcome
from tests.support.bot_runner import BotRunner
from tests.support.chat import send
from tests.support.fake_telegram import FakeTelegram

ALICE = FakeTelegram.user(1001, "Alice")
IVAN = FakeTelegram.user(1002, "Иван", language_code="ru")
GROUP = FakeTelegram.group_chat(-100321, "Friends")
LANGUAGES = available_languages()

EVERYTHING = [
    "start",
    "challenge",
    "tournament",
    "stop",
    "hint",
    "undo",
    "card",
    "replay",
    "stats",
    "top",
    "play",
    "rating",
    "help",
    "language",
    "forget",
]
PRIVATE = [c for c in EVERYTHING if c not in ("challenge", "tournament")]  # a group's
DEFAULT = json.dumps({"type": "default"})
PRIVATE_CHATS = json.dumps({"type": "all_private_chats"})
GROUP_CHATS = json.dumps({"type": "all_group_chats"})


async def test_descriptions_and_command_menus_in_every_language(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    languages = {telegram_language_code(code) or "": texts_for(code) for code in LANGUAGES}
    assert set(languages) == {"", "ru", "uk", "es", "pt", "de", "fa", "id"}
    # Set in the background: the first update need not wait for them.
    calls = 3 * len(languages)
    await telegram.wait_until(lambda: len(telegram.calls_of("setMyCommands")) == calls)
    await telegram.wait_until(lambda: len(telegram.descriptions) == 2 * len(languages))
    assert telegram.descriptions == {
        (kind, language): getattr(texts, kind.upper())
        for language, texts in languages.items()
        for kind in ("description", "short_description")
    }
    menus = {key: [c["command"] for c in value] for key, value in telegram.commands.items()}
    assert menus == {
        (scope, language): commands
        for language in languages
        for scope, commands in (
            (DEFAULT, EVERYTHING),
            (PRIVATE_CHATS, PRIVATE),
            (GROUP_CHATS, EVERYTHING),
        )
    }
    russian = dict(telegram.commands[(PRIVATE_CHATS, "ru")][0].items())
    assert russian == {"command": "start", "description": dict(ru.COMMANDS)["start"]}
    german = dict(telegram.commands[(GROUP_CHATS, "de")][1].items())
    assert german == {"command": "challenge", "description": dict(de.COMMANDS)["challenge"]}


async def test_help_offers_a_group_and_a_friend_in_any_chat(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    await send(telegram, ALICE, "/help")
    help_message = telegram.last_bot_message(ALICE["id"])
    assert help_message.text.startswith("How to play")
    add, challenge = (row[0] for row in help_message.reply_markup["inline_keyboard"])
    assert add == {
        "text": en.BUTTON_ADD_TO_GROUP,
        "url": f"https://t.me/{telegram.bot_username}?startgroup=menu",
    }
    assert challenge == {
        "text": en.BUTTON_CHALLENGE_FRIEND,
        "switch_inline_query_chosen_chat": {
            "query": "",
            "allow_user_chats": True,
            "allow_group_chats": True,
        },
    }
    # In a group, /help offers the friend in any chat (the bot is in the group already).
    await send(telegram, IVAN, "/help", chat=GROUP)
    group_help = telegram.last_bot_message(GROUP["id"])
    assert group_help.text.startswith("Как играть")
    [[challenge]] = group_help.reply_markup["inline_keyboard"]
    assert challenge["text"] == ru.BUTTON_CHALLENGE_FRIEND


async def test_the_add_to_group_link_opens_the_group_menu(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    # Telegram sends the link's parameter as `/start@bot menu` in the group.
    await send(telegram, ALICE, f"/start@{telegram.bot_username} menu", chat=GROUP)
    menu = telegram.last_bot_message(GROUP["id"])
    assert menu.text == render_welcome(en, group=True)
    assert en.MENU_CHALLENGE in [
        b["text"] for row in menu.reply_markup["inline_keyboard"] for b in row
    ]
