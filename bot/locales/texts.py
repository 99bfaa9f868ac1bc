"""Every user-facing string, per language, from the gettext catalogs in `bot/locales/`.

`messages.pot` is the English source: each message's `msgctxt` is its name in the code
(`WELCOME`, `LEVEL_NAMES.hard`, `COMMANDS.start`), its `msgid` the English text. Each
`<language>.po` translates every message; placeholders are named (`{name}`), and messages about
a number have plural forms by the language's own rule (`tr.count("COUNT_GAMES", 5)`).
The catalogs are read once, at first use: no compile step.

    tr = texts_for("ru")        # a Telegram language_code; English when not spoken here
    tr.WELCOME, tr.LEVEL_NAMES["hard"], tr.COMMANDS, tr.count("COUNT_MOVES", 3)
"""

from __future__ import annotations

import gettext
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from bot.locales.message_names import Messages, PluralName

DEFAULT_LANGUAGE = "en"
LOCALES = Path(__file__).parent.parent / "locales"
TEMPLATE = LOCALES / "messages.pot"
#: Each language in its own name, as the /language keyboard shows it.
LANGUAGE_NAMES = {
    "en": "English",
    "ru": "Русский",
    "uk": "Українська",
    "es": "Español",
    "pt_BR": "Português (Brasil)",
    "de": "Deutsch",
    "fa": "فارسی",
    "id": "Bahasa Indonesia",
}
#: Languages written right to left: names inside their texts are isolated (see `isolate`).
RIGHT_TO_LEFT = frozenset({"fa"})
#: Language-neutral symbols, the same in every language.
SYMBOLS = {
    "X_SYMBOL": "❌",
    "O_SYMBOL": "⭕",
    "EMPTY_SYMBOL": "·",
    # The winning line is shown with these instead of the plain marks.
    "X_WIN_SYMBOL": "❎",
    "O_WIN_SYMBOL": "🅾️",
    # The third and fourth marks of games of more players, plain and on the winning line.
    "T_SYMBOL": "🔺",
    "S_SYMBOL": "🟦",
    "T_WIN_SYMBOL": "🔻",
    "S_WIN_SYMBOL": "🔷",
    # The cell a hint suggests.
    "HINT_SYMBOL": "💡",
    # The last move's mark, framed.
    "LAST_MOVE_FRAME": "({mark})",
}


class Texts(Messages):
    """One language's strings as attributes (`tr.WELCOME`); grouped messages (`LEVEL_NAMES.hard`)
    as a dict (`tr.LEVEL_NAMES["hard"]`), the command menu as `(command, description)` pairs.
    Every name is declared, with its type, in `bot.locales.message_names`."""

    code: str
    rtl: bool

    def __init__(
        self,
        code: str,
        messages: dict[str, str],
        plurals: dict[str, tuple[str, ...]],
        plural_index: Callable[[int], int],
    ) -> None:
        self.code = code
        self.rtl = code in RIGHT_TO_LEFT
        self._plurals = plurals
        self._plural_index = plural_index
        values: dict[str, Any] = dict(SYMBOLS)
        for key, text in messages.items():
            group, _, item = key.partition(".")
            if item:
                values.setdefault(group, {})[item] = text
            else:
                values[key] = text
        values["COMMANDS"] = tuple(values.get("COMMANDS", {}).items())
        self.__dict__.update(values)

    def count(self, key: PluralName, n: int) -> str:
        """The plural message `key` for the number `n`, with `{count}` filled in."""
        forms = self._plurals[key]
        index = self._plural_index(n)
        return forms[index if 0 <= index < len(forms) else -1].format(count=n)

    def text(self, name: str) -> str:
        """The message or symbol called `name` where the name is data (a refusal's pop-up, a
        mark's symbol): `tr.text("POPUP_ERROR")` is `tr.POPUP_ERROR`, typed as a `str`."""
        value = getattr(self, name)
        if not isinstance(value, str):
            raise TypeError(f"{name!r} is no single message but a {type(value).__name__}")
        return value

    def __repr__(self) -> str:
        return f"<Texts {self.code}>"


def read_catalog(path: Path) -> Catalog:
    with path.open("rb") as file:
        return read_po(file)


def catalog_path(code: str) -> Path:
    return TEMPLATE if code == DEFAULT_LANGUAGE else LOCALES / f"{code}.po"


@cache
def available_languages() -> tuple[str, ...]:
    """English, then every language with a catalog in `bot/locales`, in LANGUAGE_NAMES order."""
    found = {path.stem for path in LOCALES.glob("*.po")}
    return (DEFAULT_LANGUAGE, *(code for code in LANGUAGE_NAMES if code in found))


@cache
def _template() -> Catalog:
    return read_catalog(TEMPLATE)


@cache
def _load(code: str) -> Texts:
    english = _template()
    catalog = english if code == DEFAULT_LANGUAGE else read_catalog(catalog_path(code))
    messages: dict[str, str] = {}
    plurals: dict[str, tuple[str, ...]] = {}
    for source in english:
        if not source.id:
            continue  # the header
        key = str(source.context)
        translated = catalog.get(source.id, context=source.context)
        if isinstance(source.id, tuple | list):  # a message with plural forms
            forms = translated.string if translated is not None else ()
            # English (the template) and a gap fall back to English.
            plurals[key] = tuple(forms) if forms and all(forms) else tuple(source.id)
        else:
            text = translated.string if translated is not None else ""
            messages[key] = text if isinstance(text, str) and text else source.id
    rule = "(n != 1)" if code == DEFAULT_LANGUAGE else catalog.plural_expr
    return Texts(code, messages, plurals, gettext.c2py(rule))


def language_of(language_code: str | None) -> str:
    """The catalog for a Telegram `language_code` (`ru`, `pt-br`, `de-AT`); English otherwise.
    Portuguese of any country reads Brazilian Portuguese."""
    code = (language_code or "").strip().lower().replace("_", "-")
    base = code.split("-")[0]
    candidates = ("pt_BR",) if base == "pt" else (base,)
    return next((c for c in candidates if c in available_languages()), DEFAULT_LANGUAGE)


@cache
def texts_for(language_code: str | None) -> Texts:
    """The strings for a Telegram `language_code`, or a catalog code such as `pt_BR`."""
    return _load(language_of(language_code))


def telegram_language_code(code: str) -> str | None:
    """The two-letter code Telegram's profile methods take for a catalog (None: the default)."""
    return None if code == DEFAULT_LANGUAGE else code.split("_")[0]


def isolate(name: str, tr: Texts) -> str:
    """A user's name inside a message: isolated from the text around it (Unicode FSI…PDI) when
    either is written right to left, so that "علی vs Bob" keeps its order and punctuation."""
    if tr.rtl or any(_is_rtl(ch) for ch in name):
        return f"\u2068{name}\u2069"
    return name


def _is_rtl(ch: str) -> bool:
    # Hebrew, Arabic (Persian, Urdu …), Syriac, Thaana, N'Ko and their presentation forms.
    return "\u0590" <= ch <= "\u08ff" or "\ufb1d" <= ch <= "\ufefc"
