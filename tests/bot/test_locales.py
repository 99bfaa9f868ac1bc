"""Every locale defines every string of English, with the same placeholders."""

from __future__ import annotations

import importlib
import string
from types import ModuleType

import pytest

from bot.locales import en
from bot.texts import available_languages, texts_for

# Language-neutral symbols: a locale may inherit them from English.
SYMBOLS = {"X_SYMBOL", "O_SYMBOL", "EMPTY_SYMBOL", "X_WIN_SYMBOL", "O_WIN_SYMBOL"}
TEXT_NAMES = sorted(
    name for name in vars(en) if name.isupper() and not name.startswith("_") and name not in SYMBOLS
)
LANGUAGES = available_languages()
OTHER_LANGUAGES = [code for code in LANGUAGES if code != "en"]


def _module(code: str) -> ModuleType:
    return importlib.import_module(f"bot.locales.{code}")


def _placeholders(text: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(text) if field is not None}


def _strings(value: object) -> list[str]:
    """Every string inside a text value (a string, or a dict / tuple of them)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, tuple | list):
        return [s for item in value for s in _strings(item)]
    return []


def test_russian_is_available() -> None:
    assert "en" in LANGUAGES
    assert "ru" in LANGUAGES


@pytest.mark.parametrize("code", LANGUAGES)
def test_defines_every_text_itself(code: str) -> None:
    missing = [name for name in TEXT_NAMES if name not in vars(_module(code))]
    assert missing == []


@pytest.mark.parametrize("code", LANGUAGES)
@pytest.mark.parametrize("name", TEXT_NAMES)
def test_same_placeholders(code: str, name: str) -> None:
    english, translated = getattr(en, name), getattr(_module(code), name)
    assert type(translated) is type(english)
    if isinstance(english, str):
        assert _placeholders(translated) == _placeholders(english)


@pytest.mark.parametrize("code", LANGUAGES)
def test_level_names(code: str) -> None:
    levels = _module(code).LEVEL_NAMES
    assert levels.keys() == en.LEVEL_NAMES.keys()
    assert all(isinstance(name, str) and name for name in levels.values())


@pytest.mark.parametrize("code", LANGUAGES)
def test_commands(code: str) -> None:
    commands = _module(code).COMMANDS
    assert [command for command, _ in commands] == [command for command, _ in en.COMMANDS]
    for _, description in commands:
        assert 3 <= len(description) <= 256


@pytest.mark.parametrize("code", LANGUAGES)
def test_bad_parameters_keeps_the_protocol_words(code: str) -> None:
    assert _module(code).BAD_PARAMETERS.startswith("Bad parameters!")


@pytest.mark.parametrize("code", OTHER_LANGUAGES)
def test_actually_translated(code: str) -> None:
    module = _module(code)
    same = [name for name in TEXT_NAMES if getattr(module, name) == getattr(en, name)]
    assert len(same) < 0.1 * len(TEXT_NAMES), same


@pytest.mark.parametrize("code", ["ru", "ru-RU", "RU", "ru_ru"])
def test_texts_for_russian(code: str) -> None:
    assert texts_for(code) is _module("ru")


@pytest.mark.parametrize("code", [None, "", "en", "en-US", "de", "xx-yy"])
def test_texts_for_falls_back_to_english(code: str | None) -> None:
    assert texts_for(code) is en


def test_symbols_are_shared() -> None:
    ru = _module("ru")
    for name in SYMBOLS:
        assert getattr(ru, name) == getattr(en, name)
