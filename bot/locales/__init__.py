"""Every user-facing text: the message catalogs, `messages.pot` (English, the source) and one
`<language>.po` each, read by `texts` and named, typed, by `message_names`.

`from bot.locales import en, ru` gives those languages' `bot.locales.texts.Texts` (for tests and
tools that compare with the exact strings)."""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    from bot.locales.texts import available_languages, texts_for

    if name in available_languages():
        return texts_for(name)
    raise AttributeError(name)
