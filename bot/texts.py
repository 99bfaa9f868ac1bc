"""The strings for a user's language: `texts_for(update.effective_user.language_code)`."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from types import ModuleType

import bot.locales
from bot.locales import en

DEFAULT_LANGUAGE = "en"


@cache
def available_languages() -> tuple[str, ...]:
    """Every language with a file in `bot/locales`."""
    return tuple(sorted(m.name for m in pkgutil.iter_modules(bot.locales.__path__)))


@cache
def texts_for(language_code: str | None) -> ModuleType:
    """The strings for a Telegram `language_code` such as `ru` or `pt-br`; English otherwise."""
    code = (language_code or "").lower().replace("_", "-").split("-")[0]
    if code and code != DEFAULT_LANGUAGE and code in available_languages():
        return importlib.import_module(f"bot.locales.{code}")
    return en
