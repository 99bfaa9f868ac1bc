"""The result card draws every language: a card in each of the eight, with players' names in
their scripts (Latin with its accents, Cyrillic, Persian), has a glyph for every character it
draws, and Persian is shaped right to left.

A character the font lacks is drawn as the font's .notdef glyph (DejaVu's box): the tests
record every text the card draws, with the font it draws it in, and compare each character's
rendering with that of a character no font has. The font is the one the image installs
(Debian's fonts-dejavu-core, with libfribidi0 for Pillow's Raqm layout): where it is missing
these tests skip, except in CI (`CI` set), whose .ci/run installs both, where they fail."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from typing import Any

import pytest
from PIL import ImageDraw, ImageFont

from bot.games.model import USER, EndReason, GameStatus, GameView, Result
from bot.locales.texts import available_languages, texts_for
from bot.views.card import render_card
from bot.views.card_fonts import drawable, font
from bot.views.game_card import card_of
from core.board import Board, BoardSize
from core.positions import ULTIMATE, is_full, move_error, play, winner

#: A player's name in each language's script (Persian: letters Arabic has not, پ چ ژ گ).
NAMES = {
    "en": "Alice Smith",
    "de": "Jürgen Größe",
    "es": "Íñigo Begoña",
    "pt_BR": "João Conceição",
    "ru": "Борис Жуков",
    "uk": "Євген Ґудзь-Її",
    "id": "Siti Nurhaliza",
    "fa": "پژمان گلچین",
}
#: A character no font has (the last private-use code point): drawn as .notdef.
NO_SUCH_GLYPH = "\U0010fffd"
FACE = font(24)


def the_image_font_or_skip() -> None:
    """DejaVu Sans drawn with Raqm, as in the image; skip without them, but fail in CI."""
    problems = []
    if not isinstance(FACE, ImageFont.FreeTypeFont) or FACE.getname()[0] != "DejaVu Sans":
        problems.append("no DejaVu Sans (Debian: apt-get install fonts-dejavu-core)")
    elif FACE.layout_engine != ImageFont.Layout.RAQM:
        problems.append("no Raqm layout in Pillow (Debian: apt-get install libfribidi0)")
    if problems and os.environ.get("CI"):
        pytest.fail(f"{problems[0]}: CI installs it (.ci/run)")
    if problems:
        pytest.skip(problems[0])


def rendering(text: str, face: ImageFont.FreeTypeFont) -> tuple[tuple[int, int], bytes]:
    mask = face.getmask(text)
    return mask.size, bytes(mask)


def missing_glyphs(text: str, face: ImageFont.FreeTypeFont) -> set[str]:
    """The characters of `text` the face draws as its .notdef glyph."""
    notdef = rendering(NO_SUCH_GLYPH, face)
    assert notdef[0] != (0, 0), "the font's .notdef draws nothing: this check cannot see it"
    return {ch for ch in set(text) if not ch.isspace() and rendering(ch, face) == notdef}


def position(shape: BoardSize, moves: int, seed: int) -> tuple[Board, int | None]:
    """A position `moves` random legal moves deep (fewer if the game ends first)."""
    rng = random.Random(seed)
    board, last = shape.empty_board(), None
    for _ in range(moves):
        if winner(board, last) or is_full(board, last):
            break
        legal = [cell for cell in board.free_cells() if move_error(board, last, cell) is None]
        board, last = play(board, last, cell := rng.choice(legal)), cell
    return board, last


#: The card's endings, each on a board that adds its own words to the footer.
ENDINGS = {
    "won on 3×3, assisted": (BoardSize(3), Result.X, EndReason.LINE),
    "resigned on 5×5": (BoardSize(5, 4), Result.O, EndReason.RESIGNED),
    "timed out at ultimate": (ULTIMATE, Result.X, EndReason.TIMEOUT),
    "drawn against the AI": (BoardSize(3), Result.DRAW, EndReason.FULL),
}


def finished_game(language: str, ending: str) -> GameView:
    """A finished game between the language's name and the next language's (another script),
    or against hard for the draw."""
    shape, result, reason = ENDINGS[ending]
    board, last = position(shape, 12, seed=len(ending))
    codes = list(NAMES)
    other = NAMES[codes[(codes.index(language) + 1) % len(codes)]]
    against_ai = result == Result.DRAW
    return GameView(
        id=1,
        chat_id=1001,
        message_id=7,
        inline_message_id=None,
        board=board,
        x_kind=USER,
        o_kind="hard" if against_ai else USER,
        x_player_id=1001,
        o_player_id=None if against_ai else 1002,
        x_name=NAMES[language],
        o_name=None if against_ai else other,
        status=GameStatus.FINISHED,
        result=result,
        end_reason=reason,
        language=language,
        last_cell=last,
        assisted=ending.endswith("assisted"),
    )


@pytest.fixture
def drawn_texts(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, Any]]]:
    """Every text the card draws, with its font."""
    drawn: list[tuple[str, Any]] = []
    draw_text = ImageDraw.ImageDraw.text

    def recording(self: ImageDraw.ImageDraw, xy: Any, text: Any, *args: Any, **kw: Any) -> None:
        drawn.append((text, args[1] if len(args) > 1 else kw.get("font")))
        draw_text(self, xy, text, *args, **kw)

    monkeypatch.setattr(ImageDraw.ImageDraw, "text", recording)
    yield drawn


def test_the_eight_languages_are_the_ones_named_here() -> None:
    assert set(available_languages()) == set(NAMES)


@pytest.mark.parametrize("ending", list(ENDINGS))
@pytest.mark.parametrize("language", list(NAMES))
def test_a_card_in_every_language_draws_every_character(
    language: str, ending: str, drawn_texts: list[tuple[str, Any]]
) -> None:
    the_image_font_or_skip()
    game = finished_game(language, ending)
    render_card(card_of(game, texts_for(language)))
    words = {text for text, _ in drawn_texts}
    assert len(drawn_texts) >= 4, words  # the title, the legend's names, the result, the footer
    everything = "".join(words)
    assert NAMES[language] in everything, words
    for text, face in drawn_texts:
        assert isinstance(face, ImageFont.FreeTypeFont)
        assert missing_glyphs(text, face) == set(), (text, face.getname())


def test_persian_is_shaped_right_to_left() -> None:
    """Raqm joins Persian letters (a word is narrower than its letters drawn apart) and lays
    them right to left by itself, as the card draws them (no direction given): in "اب" the
    alef, the tall stroke, is at the right."""
    the_image_font_or_skip()
    word = "گلچین"
    assert FACE.getlength(word) < sum(FACE.getlength(letter) for letter in word)
    mask = FACE.getmask("اب")
    width, height = mask.size
    top = next(y for y in range(height) if any(mask.getpixel((x, y)) for x in range(width)))
    inked = [x for x in range(width) if mask.getpixel((x, top))]
    assert min(inked) > width / 2, (inked, width)


def test_without_raqm_the_bidi_controls_are_left_out_rather_than_drawn_as_boxes() -> None:
    the_image_font_or_skip()
    basic = ImageFont.truetype(FACE.path, 24, layout_engine=ImageFont.Layout.BASIC)
    name = "\u2068پژمان\u2069 vs Борис"
    assert missing_glyphs(name, basic) == {"\u2068", "\u2069"}
    assert drawable(name, basic) == "پژمان vs Борис"
    assert missing_glyphs(drawable(name, basic), basic) == set()
    assert drawable(name, FACE) == name  # Raqm reads them: they keep "vs" between the names
