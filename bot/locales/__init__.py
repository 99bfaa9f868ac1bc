"""The message catalogs: `messages.pot` (English, the source) and one `<language>.po` each.

`from bot.locales import en, ru` gives those languages' `bot.views.texts.Texts` (for tests and
tools that compare with the exact strings)."""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    from bot.views.texts import available_languages, texts_for

    if name in available_languages():
        return texts_for(name)
    raise AttributeError(name)
