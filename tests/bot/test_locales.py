"""The message catalogs: every language translates every message of the English template,
nothing fuzzy or empty, the same named placeholders, plural forms by the language's rule; and
every message of every language renders with sample values; and the code declares every
message by name (`bot/locales/message_names.py`), and nothing else."""

from __future__ import annotations

import re
import string
from typing import get_args, get_type_hints

import pytest
from babel.messages.catalog import Catalog, Message

from bot.locales.message_names import Messages, PluralName
from bot.locales.texts import (
    DEFAULT_LANGUAGE,
    LANGUAGE_NAMES,
    SYMBOLS,
    TEMPLATE,
    available_languages,
    catalog_path,
    isolate,
    read_catalog,
    texts_for,
)

LANGUAGES = available_languages()
TRANSLATED = [code for code in LANGUAGES if code != DEFAULT_LANGUAGE]
TEMPLATE_CATALOG = read_catalog(TEMPLATE)
SOURCES = [m for m in TEMPLATE_CATALOG if m.id]
#: Messages that may read the same in a language as in English (symbols and numbers only).
NEUTRAL = {"MENU_PLAY_X", "MENU_PLAY_O", "MENU_SIZE", "MENU_SIZE_CHOSEN", "NOBODY_YET"}
NEUTRAL |= {"STATS_LINE", "TOP_LINE", "LADDER_LINE", "TOURNAMENT_LINE", "POOL_NAMES.classic"}
NEUTRAL |= {"BUTTON_REPLAY_FIRST", "BUTTON_REPLAY_BACK", "BUTTON_REPLAY_NEXT", "BUTTON_REPLAY_LAST"}


def _placeholders(text: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(text) if field}


def _forms(message: Message) -> list[str]:
    value = message.string if message.id and message.string else ()
    return list(value) if isinstance(value, tuple | list) else [value]


def _catalog(code: str) -> Catalog:
    return read_catalog(catalog_path(code))


def test_every_language_the_issue_asks_for_has_a_catalog() -> None:
    assert set(LANGUAGES) == set(LANGUAGE_NAMES)


def test_the_template_names_every_message_once_with_its_placeholders_flagged() -> None:
    keys = [str(m.context) for m in SOURCES]
    assert len(keys) == len(set(keys)) and all(
        re.fullmatch(r"[A-Z_]+(\.[a-z_]+)?", k) for k in keys
    )
    for message in SOURCES:
        texts = message.id if isinstance(message.id, tuple) else (message.id,)
        if any(_placeholders(t) for t in texts):
            assert "python-brace-format" in message.flags, message.context


@pytest.mark.parametrize("code", TRANSLATED)
def test_a_catalog_translates_every_message_and_nothing_else(code: str) -> None:
    catalog = _catalog(code)
    wanted = {(m.id, m.context) for m in SOURCES}
    have = {(m.id, m.context) for m in catalog if m.id}
    assert sorted(map(str, wanted - have)) == [], "missing"
    assert sorted(map(str, have - wanted)) == [], "obsolete"
    fuzzy = [str(m.context) for m in catalog if m.id and m.fuzzy]
    empty = [str(m.context) for m in catalog if m.id and not all(_forms(m))]
    assert fuzzy == [] and empty == []


@pytest.mark.parametrize("code", TRANSLATED)
def test_translations_keep_the_placeholders_of_english(code: str) -> None:
    catalog = _catalog(code)
    for source in SOURCES:
        translated = catalog.get(source.id, context=source.context)
        assert translated is not None
        english = source.id if isinstance(source.id, tuple) else (source.id,)
        wanted = set().union(*map(_placeholders, english))
        for form in _forms(translated):
            assert _placeholders(form) == wanted, (source.context, form)


@pytest.mark.parametrize("code", TRANSLATED)
def test_plural_messages_have_every_form_of_the_language(code: str) -> None:
    catalog = _catalog(code)
    for source in SOURCES:
        if isinstance(source.id, tuple):
            translated = catalog.get(source.id, context=source.context)
            assert len(_forms(translated)) == catalog.num_plurals, source.context


@pytest.mark.parametrize("code", TRANSLATED)
def test_actually_translated(code: str) -> None:
    english, texts = texts_for("en"), texts_for(code)
    same = [
        str(m.context)
        for m in SOURCES
        if isinstance(m.id, str) and str(m.context) not in NEUTRAL and "." not in str(m.context)
        if getattr(texts, str(m.context)) == getattr(english, str(m.context))
    ]
    assert same == []


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_message_renders_with_sample_values(code: str) -> None:
    tr = texts_for(code)
    samples = {
        "name": "Alice",
        "x_name": "Alice",
        "o_name": "علی",
        "mark": "❌",
        "x": "❌",
        "o": "⭕",
        "other": "⭕",
        "level": tr.LEVEL_NAMES["hard"],
        "size": 5,
        "k": 4,
        "bot": "tictactoe_bot",
    }
    rendered = 0
    for source in SOURCES:
        key = str(source.context)
        if isinstance(source.id, tuple):
            for n in (0, 1, 2, 3, 5, 11, 21, 22, 101):
                text = tr.count(key, n)
                assert str(n) in text and "{" not in text, (key, n, text)
            continue
        group, _, item = key.partition(".")
        value = getattr(tr, group)
        text = dict(value)[item] if item else value
        values = {p: samples.get(p, 7) for p in _placeholders(text)}
        assert "{" not in text.format(**values), key
        rendered += 1
    assert rendered == len([m for m in SOURCES if isinstance(m.id, str)])


@pytest.mark.parametrize("code", LANGUAGES)
def test_command_menus_keep_the_commands(code: str) -> None:
    commands = texts_for(code).COMMANDS
    assert [c for c, _ in commands] == [c for c, _ in texts_for("en").COMMANDS]
    assert all(3 <= len(description) <= 256 for _, description in commands)


@pytest.mark.parametrize("code", LANGUAGES)
def test_profile_texts_fit_telegrams_limits(code: str) -> None:
    tr = texts_for(code)
    assert len(tr.DESCRIPTION) <= 512 and len(tr.SHORT_DESCRIPTION) <= 120


@pytest.mark.parametrize("code", LANGUAGES)
def test_bad_parameters_keeps_the_protocol_words(code: str) -> None:
    assert texts_for(code).BAD_PARAMETERS.startswith("Bad parameters!")


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("ru", "ru"),
        ("ru-RU", "ru"),
        ("RU", "ru"),
        ("pt-br", "pt_BR"),
        ("pt", "pt_BR"),
        ("pt_BR", "pt_BR"),
        ("de-AT", "de"),
        (None, "en"),
        ("", "en"),
        ("en-US", "en"),
        ("xx-yy", "en"),
    ],
)
def test_a_telegram_language_code_finds_its_catalog(given: str | None, expected: str) -> None:
    if expected not in LANGUAGES:
        pytest.skip(f"no {expected} catalog")
    assert texts_for(given) is texts_for(expected)


def test_plurals_follow_each_languages_rule() -> None:
    ru = texts_for("ru")
    assert [ru.count("COUNT_GAMES", n) for n in (1, 2, 5, 11, 21, 22)] == [
        "1 партия",
        "2 партии",
        "5 партий",
        "11 партий",
        "21 партия",
        "22 партии",
    ]
    en = texts_for("en")
    assert [en.count("COUNT_GAMES", n) for n in (0, 1, 2)] == ["0 games", "1 game", "2 games"]


def test_symbols_are_shared() -> None:
    for code in LANGUAGES:
        for name, symbol in SYMBOLS.items():
            assert getattr(texts_for(code), name) == symbol


def test_every_message_is_declared_and_every_declaration_is_a_message() -> None:
    # mypy checks each `tr.NAME` against bot/locales/message_names.py: it must name exactly the
    # template's messages (and the symbols), each with the type Texts gives it.
    keys = [str(m.context) for m in SOURCES]
    plural = {str(m.context) for m in SOURCES if isinstance(m.id, tuple)}
    wanted: dict[str, object] = dict.fromkeys(SYMBOLS, str)
    wanted.update((k, str) for k in keys if "." not in k and k not in plural)
    wanted.update((k.partition(".")[0], dict[str, str]) for k in keys if "." in k)
    wanted["COMMANDS"] = tuple[tuple[str, str], ...]
    declared = get_type_hints(Messages)
    assert sorted(wanted.keys() - declared.keys()) == [], "messages with no declaration"
    assert sorted(declared.keys() - wanted.keys()) == [], "declarations with no message"
    assert {k: t for k, t in declared.items() if t != wanted[k]} == {}, "declared as another type"
    assert set(get_args(PluralName)) == plural


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_declaration_is_filled_in(code: str) -> None:
    tr = texts_for(code)
    for name, kind in get_type_hints(Messages).items():
        assert isinstance(getattr(tr, name), getattr(kind, "__origin__", kind)), name


def test_a_name_no_catalog_has_is_an_attribute_error() -> None:
    tr = texts_for(DEFAULT_LANGUAGE)
    with pytest.raises(AttributeError):
        _ = tr.WELCOM  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        tr.text("WELCOM")
    assert tr.text("WELCOME") == tr.WELCOME and tr.text("X_SYMBOL") == SYMBOLS["X_SYMBOL"]
    with pytest.raises(TypeError):
        tr.text("LEVEL_NAMES")


def test_names_are_isolated_where_directions_mix() -> None:
    en = texts_for("en")
    assert isolate("Alice", en) == "Alice"
    assert isolate("علی", en) == "\u2068علی\u2069"
    if "fa" in LANGUAGES:
        fa = texts_for("fa")
        assert isolate("Alice", fa) == "\u2068Alice\u2069"
