"""bot.views.card: the result card is a valid PNG that shows the position, on every board size.

The pictures are real (Pillow draws them); the tests read pixels where the module's own
geometry (`cell_box`, `mark_point`, `bare_point`) says a mark, a tile or a line is.
"""

from __future__ import annotations

import io
import random
from dataclasses import replace

import pytest
from PIL import Image, ImageDraw, ImageFont

from bot.views.card import (
    BACKGROUND,
    BLOCK_LINE,
    DRAWN_BLOCK,
    GRID_LINE,
    MARK_COLOURS,
    PANEL,
    PANEL_PADDING,
    SHADE,
    TILE,
    WIDTH,
    Card,
    bare_point,
    cell_box,
    last_point,
    mark_point,
    render_card,
    tint,
)
from bot.views.card_fonts import drawable, font, text_width

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
RGB = tuple[int, int, int]
X, O = MARK_COLOURS["X"], MARK_COLOURS["O"]


def picture(card: Card) -> Image.Image:
    data = render_card(card)
    assert data.startswith(PNG_SIGNATURE)
    Image.open(io.BytesIO(data)).verify()
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG"
    return image.convert("RGB")


def near(pixel: object, colour: RGB, tolerance: int = 10) -> bool:
    assert isinstance(pixel, tuple)
    return max(abs(a - b) for a, b in zip(pixel, colour, strict=True)) <= tolerance


def centre(card: Card, index: int) -> tuple[int, int]:
    x0, y0, x1, y1 = cell_box(card, index)
    return (x0 + x1) // 2, (y0 + y1) // 2


def has_colour(region: Image.Image, colour: RGB) -> bool:
    colours = region.getcolors(maxcolors=region.width * region.height) or []
    return any(near(found, colour, 6) for _, found in colours)


# X wins on the main diagonal; a non-winning X at 2, O's at 1, 3, 5, empty cells at 6 and 7.
CLASSIC = Card(
    cells=("X", "O", "X", "O", "X", "O", " ", " ", "X"),
    size=3,
    winning_cells=frozenset({0, 4, 8}),
    title="Alice vs Hard AI",
    result="Alice wins",
    footer="2026-11-23 · assisted",
    players=(("X", "Alice"), ("O", "Hard AI")),
)


def ultimate() -> Card:
    """X has won small boards 0, 4 and 8 (the winning diagonal), O board 2; board 6 is drawn."""
    cells = [" "] * 81
    for block in (0, 4, 8):  # a diagonal of X in each, leaving each board's top-right empty
        row, col = divmod(block, 3)
        for i in range(3):
            cells[(row * 3 + i) * 9 + col * 3 + i] = "X"
    for i in range(3):  # O's middle column of board 2
        cells[i * 9 + 7] = "O"
    cells[1 * 9 + 4] = "O"  # board 1 (not won): one O, in its centre cell
    cells[6 * 9 + 0] = "X"  # board 6 (drawn): an X in its top-left cell
    return Card(
        cells=tuple(cells),
        size=9,
        block=3,
        won_blocks=((0, "X"), (4, "X"), (8, "X"), (2, "O"), (6, "draw")),
        winning_blocks=frozenset({0, 4, 8}),
        title="Борис vs علی",
        result="Борис выиграл",
        footer="2026-11-23",
        players=(("X", "Борис"), ("O", "علی")),
    )


# --- the file -----------------------------------------------------------------------------


def test_the_card_is_a_png_of_a_shareable_size() -> None:
    image = picture(CLASSIC)
    assert image.width == WIDTH
    assert 800 <= image.height <= 1400
    assert near(image.getpixel((2, 2)), BACKGROUND)


@pytest.mark.parametrize("size", [3, 4, 5, 6, 7, 8, 9])
def test_every_size_renders_and_its_board_fills_the_same_panel(size: int) -> None:
    cells = tuple(random.Random(size).choice("XO ") for _ in range(size * size))
    card = Card(cells, size, block=3 if size == 9 else None, title="Size", result="Draw")
    image = picture(card)
    assert image.width == WIDTH
    left, top, _, _ = cell_box(card, 0)
    _, _, right, bottom = cell_box(card, size * size - 1)
    assert right - left == bottom - top  # square
    assert WIDTH - 200 < right - left <= WIDTH - 2 * PANEL_PADDING  # adapts to the size
    assert bottom < image.height
    assert near(image.getpixel((left - PANEL_PADDING // 2, top)), PANEL)


def test_the_picture_is_the_same_for_the_same_card() -> None:
    assert render_card(CLASSIC) == render_card(CLASSIC)


# --- the position -------------------------------------------------------------------------


def test_an_x_is_drawn_in_its_colour_where_its_strokes_cross() -> None:
    image = picture(CLASSIC)
    assert mark_point(CLASSIC, 2) == centre(CLASSIC, 2)
    assert near(image.getpixel(centre(CLASSIC, 2)), X)


def test_an_o_is_a_ring_round_an_empty_centre() -> None:
    image = picture(CLASSIC)
    for cell in (1, 3, 5):
        assert near(image.getpixel(centre(CLASSIC, cell)), TILE)
        assert near(image.getpixel(mark_point(CLASSIC, cell)), O)


def test_an_empty_cell_shows_no_mark_colour_anywhere() -> None:
    image = picture(CLASSIC)
    for cell in (6, 7):
        x0, y0, x1, y1 = cell_box(CLASSIC, cell)
        for x in range(x0 + 4, x1 - 4, 6):
            for y in range(y0 + 4, y1 - 4, 6):
                pixel = image.getpixel((x, y))
                assert not any(near(pixel, colour, 40) for colour in MARK_COLOURS.values())
        assert near(image.getpixel(centre(CLASSIC, cell)), TILE)


@pytest.mark.parametrize("card", [CLASSIC, ultimate()], ids=["3x3", "ultimate"])
def test_the_last_move_carries_a_dot_in_its_marks_colour(card: Card) -> None:
    assert last_point(card) is None
    for cell in (i for i, mark in enumerate(card.cells) if mark != " "):
        marked = replace(card, last_cell=cell)
        point = last_point(marked)
        assert point is not None
        assert not near(
            picture(card).getpixel(point), tint(MARK_COLOURS[card.cells[cell]], SHADE, 0), 30
        )
        assert near(picture(marked).getpixel(point), tint(MARK_COLOURS[card.cells[cell]], SHADE, 0))
        break  # one cell of each mark is enough for the picture; geometry below for all
    for cell in range(card.size**2):
        x0, y0, x1, y1 = cell_box(card, cell)
        x, y = last_point(replace(card, last_cell=cell)) or (-1, -1)
        assert x0 < x < x1 and y0 < y < y1
        assert (x, y) != mark_point(card, cell)


def test_winning_cells_are_tinted_and_struck_through_their_centres() -> None:
    image = picture(CLASSIC)
    winning = image.getpixel(bare_point(CLASSIC, 0))
    assert near(winning, tint(X))
    assert not near(winning, TILE)
    assert near(image.getpixel(bare_point(CLASSIC, 2)), TILE)  # an X, not in the line
    for cell in (0, 4, 8):  # the strike, darker than the X under it
        assert near(image.getpixel(centre(CLASSIC, cell)), tint(X, SHADE, 0))


def test_cells_that_are_not_a_straight_line_are_tinted_but_not_struck() -> None:
    card = Card(CLASSIC.cells, 3, winning_cells=frozenset({0, 2, 4}))
    image = picture(card)
    assert near(image.getpixel(bare_point(card, 2)), tint(X))
    assert near(image.getpixel(centre(card, 4)), X)


def test_triangles_and_squares_are_outlines_in_their_own_colours() -> None:
    card = Card(("T", "S", " ", " ", "T", "S", "X", "O", " "), 3)
    image = picture(card)
    for cell, mark in ((0, "T"), (1, "S"), (4, "T"), (5, "S")):
        assert near(image.getpixel(mark_point(card, cell)), MARK_COLOURS[mark])
        assert near(image.getpixel(centre(card, cell)), TILE)


@pytest.mark.parametrize("size", [3, 4, 5, 6, 7, 8])
def test_every_cell_of_every_size_shows_its_mark(size: int) -> None:
    cells = tuple(random.Random(size).choice("XOTS  ") for _ in range(size * size))
    card = Card(cells, size)
    image = picture(card)
    for cell, mark in enumerate(cells):
        if mark == " ":
            assert near(image.getpixel(centre(card, cell)), TILE), cell
        else:
            assert near(image.getpixel(mark_point(card, cell)), MARK_COLOURS[mark]), cell


def test_the_legend_shows_each_players_mark_and_the_result_the_winners_colour() -> None:
    card = Card(
        (" ",) * 16,
        4,
        players=(("X", "Ann"), ("O", "Bob"), ("T", "Tim"), ("S", "Sam")),
        result="Tim wins",
    )
    image = picture(card)
    panel_top = cell_box(card, 0)[1] - PANEL_PADDING
    above = image.crop((0, 0, WIDTH, panel_top))
    for colour in MARK_COLOURS.values():
        assert has_colour(above, colour)
    winner = Card(CLASSIC.cells, 3, winning_cells=CLASSIC.winning_cells, result="Alice wins")
    image = picture(winner)
    below = image.crop((0, cell_box(winner, 8)[3] + PANEL_PADDING, WIDTH, image.height))
    assert has_colour(below, tint(X, SHADE, 0))


# --- ultimate -----------------------------------------------------------------------------


def test_ultimate_draws_thin_lines_between_cells_and_thick_ones_between_boards() -> None:
    card = ultimate()
    image = picture(card)
    y = centre(card, 3 * 9 + 1)[1]  # row 3, through boards 3, 4 and 5
    thin_x = cell_box(card, 3 * 9 + 1)[0]  # between columns 0 and 1 of board 3
    thick_x = cell_box(card, 3 * 9 + 3)[0]  # between boards 3 and 4
    assert near(image.getpixel((thin_x, y)), GRID_LINE)
    assert near(image.getpixel((thick_x, y)), BLOCK_LINE)
    assert near(image.getpixel((thin_x + 8, y)), PANEL)


def test_ultimate_small_marks_show_in_boards_not_won() -> None:
    card = ultimate()
    image = picture(card)
    assert near(image.getpixel(mark_point(card, 1 * 9 + 4)), O)
    assert near(image.getpixel(centre(card, 1 * 9 + 4)), PANEL)


def test_a_won_board_carries_a_big_faint_mark_and_a_drawn_one_is_greyed() -> None:
    card = ultimate()
    image = picture(card)
    # Board 2 is O's: its centre cell (1, 7) holds an O, and the big ring passes over the
    # centre of the cell right of it, (1, 8), which is empty: blue there, but fainter than O.
    faint = image.getpixel(centre(card, 1 * 9 + 8))
    assert isinstance(faint, tuple)
    assert faint[2] > faint[0] + 40 and not near(faint, O)
    # Board 6 is drawn: the X in it turns grey, and so does the board.
    veiled = image.getpixel(mark_point(card, 6 * 9 + 0))
    assert isinstance(veiled, tuple)
    assert max(veiled) - min(veiled) < 16
    assert not near(veiled, DRAWN_BLOCK, 20)  # still seen
    assert near(image.getpixel(bare_point(card, 6 * 9 + 1)), DRAWN_BLOCK, 30)


def test_the_winning_boards_stand_out_from_other_won_boards_and_the_rest() -> None:
    card = ultimate()
    image = picture(card)
    winning = image.getpixel(bare_point(card, 0 * 9 + 2))  # board 0, top-right cell
    won = image.getpixel(bare_point(card, 0 * 9 + 6))  # board 2 (O's), top-left cell
    plain = image.getpixel(bare_point(card, 0 * 9 + 3))  # board 1, top-left cell
    assert near(plain, PANEL)
    assert not near(winning, PANEL) and not near(won, PANEL)
    assert not near(winning, won)
    assert isinstance(winning, tuple) and winning[0] > winning[2] + 30  # X's red, tinted


# --- text ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "title",
    [
        "Алиса vs Сложный ИИ",
        "علی در برابر هوش مصنوعی",
        "🎉🔥 Party 👨‍👩‍👧 time 🇮🇷",
        "\u2068علی\u2069 vs Bob",
        "W" * 300,
        "",
    ],
)
def test_any_title_and_names_render(title: str) -> None:
    card = Card(
        CLASSIC.cells,
        3,
        winning_cells=CLASSIC.winning_cells,
        title=title,
        result=title or "Draw",
        footer=title,
        players=(("X", title), ("O", "🤖")),
    )
    assert picture(card).width == WIDTH


def test_the_bitmap_font_fallback_survives_any_text() -> None:
    bitmap = ImageFont.load_default_imagefont()
    text = "Привет علی 🎉"
    assert text_width(text, bitmap) > 0
    ImageDraw.Draw(Image.new("RGB", (200, 40))).text((0, 0), drawable(text, bitmap), font=bitmap)


def test_fonts_are_loaded_once_per_size() -> None:
    assert font(24) is font(24)
    assert font(24, bold=True) is not font(24)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"cells": (" ",) * 8, "size": 3},
        {"cells": (" ",) * 100, "size": 10},
        {"cells": (" ",) * 9, "size": 3, "winning_cells": frozenset({9})},
        {"cells": (" ",) * 81, "size": 9, "block": 3, "won_blocks": ((9, "X"),)},
        {"cells": (" ",) * 64, "size": 8, "block": 3},
    ],
)
def test_a_card_that_no_board_could_be_is_refused(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        Card(**kwargs)
