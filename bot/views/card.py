"""The result card: a PNG picture of a finished game, made to be saved or shared.

`render_card` is a pure function of a `Card` of plain strings and numbers: the bot chooses the
words (in the reader's language), this module draws them. Top to bottom: the title, the players
with their marks, the board on a rounded panel, the result, the footer. Marks are vector shapes,
never emoji: X two strokes, O a ring, T a triangle, S a square. Pillow draws without antialiasing,
so the picture is drawn SUPERSAMPLE times larger and reduced by averaging; all coordinates here,
and in the geometry helpers the tests use (`cell_box`, `mark_point`…), are final pixels.

Fonts and fitting text to a width: `bot.views.card_fonts`.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass
from functools import partial
from itertools import pairwise

from PIL import Image, ImageDraw

from bot.views.card_fonts import drawable, fit_text, font, text_width

Box = tuple[int, int, int, int]
Point = tuple[int, int]
RGB = tuple[int, int, int]
Ink = RGB | int  # a colour, or a coverage level when drawing into a mask

WIDTH = 900
SUPERSAMPLE = 2
MARGIN = 48
PANEL_PADDING = 28
PANEL_RADIUS = 28
TITLE_SIZE, LEGEND_SIZE, RESULT_SIZE, FOOTER_SIZE = 36, 24, 34, 20
LEGEND_ROW, LEGEND_ICON, LEGEND_GAP = 40, 28, 36

BACKGROUND: RGB = (241, 244, 249)
PANEL: RGB = (255, 255, 255)
SHADOW: RGB = (224, 229, 238)
TILE: RGB = (236, 240, 246)
GRID_LINE: RGB = (208, 214, 224)
BLOCK_LINE: RGB = (71, 85, 105)
INK: RGB = (17, 24, 39)
MUTED: RGB = (100, 116, 139)
DRAWN_BLOCK: RGB = (203, 209, 219)
MARK_COLOURS = {"X": (229, 62, 62), "O": (37, 99, 235), "T": (22, 163, 74), "S": (240, 150, 5)}
UNKNOWN_WINNER: RGB = (234, 179, 8)  # gold, for a winning line whose owner is unclear

# Mark geometry as fractions of the cell's side, chosen by eye: bold enough to read on an 8×8
# board shrunk into a chat preview. X_REACH: from the centre to a stroke's end along each axis;
# RING: the O's middle radius; STRIKE: the strike-through's width.
STROKE, X_REACH, RING, STRIKE = 0.12, 0.27, 0.28, 0.08
# T and S are closed strokes: (circumradius, how far the centre drops, the corners' angles). The
# triangle drops a quarter so that its bounding box, not its centroid, is centred: it looks so.
POLYGONS = {"T": (0.33, 0.33 / 4, (-90, 30, 150)), "S": (0.25 * 2**0.5, 0, (-135, -45, 45, 135))}
LAST_DOT = 0.06  # the last move's dot: its radius, as a fraction of the cell's side
SHADE = 0.8  # the strike-through and the result: the winner's colour, darker
FAINT = 140  # the opacity (of 255) of a won small board's big mark


@dataclass(frozen=True)
class Card:
    """A finished game as the card shows it; see the module docstring for the picture."""

    cells: tuple[str, ...]  # row by row: "X", "O", "T", "S" or " "
    size: int  # cells per row: 3..8, or 9 for ultimate tic-tac-toe
    block: int | None = None  # 3 for ultimate: thick lines between the small boards
    winning_cells: frozenset[int] = frozenset()
    won_blocks: tuple[tuple[int, str], ...] = ()  # (small board, "X"/"O"/"draw")
    winning_blocks: frozenset[int] = frozenset()
    title: str = ""
    result: str = ""
    footer: str = ""
    players: tuple[tuple[str, str], ...] = ()  # (mark letter, name)
    last_cell: int | None = None  # the last move, marked with a dot

    def __post_init__(self) -> None:
        if not 3 <= self.size <= 9 or len(self.cells) != self.size**2 or self.size % self.side:
            raise ValueError("3 to 9 cells a row, size² cells, small boards that tile the board")
        outside = {*dict(self.won_blocks), *self.winning_blocks}
        outside -= set(range((self.size // self.side) ** 2))
        cells = set(range(self.size**2))
        if outside or self.winning_cells - cells or self.last_cell not in {None, *cells}:
            raise ValueError("a winning or last cell, or a small board, outside the board")

    @property
    def side(self) -> int:
        """Cells per row of a small board: the whole board's when there are none."""
        return self.block if self.block and self.block > 1 else self.size


_Entry = tuple[str, str, int, int]  # a legend entry: the mark, the name, its font size, its width
_Text = tuple[int, str, int]  # a line of text: its top, the text, its font size


@dataclass(frozen=True)
class _Layout:
    height: int
    title: _Text | None
    legend: tuple[tuple[int, tuple[_Entry, ...]], ...]  # rows: their top, their entries
    panel: Box
    origin: Point  # the board's top-left corner
    cell: int
    result: _Text | None
    footer: _Text | None


def _legend(card: Card, top: int, width: int) -> tuple[tuple[int, tuple[_Entry, ...]], ...]:
    """The players' entries (a mark, then the name), flowed into rows that fit `width`."""
    rows: list[list[_Entry]] = [[]]
    for mark, name in card.players:
        text, size = fit_text(name, LEGEND_SIZE, False, width - LEGEND_ICON - 12)
        entry = (mark, text, size, LEGEND_ICON + 12 + round(text_width(text, font(size))))
        if sum(LEGEND_GAP + taken[3] for taken in rows[-1]) + entry[3] > width:
            rows.append([])
        rows[-1].append(entry)
    rows = [row for row in rows if row]
    return tuple((top + n * LEGEND_ROW, tuple(row)) for n, row in enumerate(rows))


def _layout(card: Card) -> _Layout:
    content, y = WIDTH - 2 * MARGIN, MARGIN
    title = (y, *fit_text(card.title, TITLE_SIZE, True, content)) if card.title else None
    y += TITLE_SIZE + 22 if title else 0
    legend = _legend(card, y, content)
    y += len(legend) * LEGEND_ROW + (12 if legend else 0)
    # The cell size adapts so that every board fills the same panel.
    cell = (content - 2 * PANEL_PADDING) // card.size
    panel = (MARGIN, y, WIDTH - MARGIN, y + cell * card.size + 2 * PANEL_PADDING)
    origin = ((WIDTH - cell * card.size) // 2, y + PANEL_PADDING)
    y = panel[3] + 30
    result = (y, *fit_text(card.result, RESULT_SIZE, True, content)) if card.result else None
    y += RESULT_SIZE + 16 if result else 0
    footer = (y, *fit_text(card.footer, FOOTER_SIZE, False, content)) if card.footer else None
    y += FOOTER_SIZE + 10 if footer else 0
    return _Layout(y + MARGIN - 10, title, legend, panel, origin, cell, result, footer)


def _square(layout: _Layout, per_row: int, index: int, span: int = 1) -> Box:
    """A square of the board cut in `per_row` squares a row, each `span` cells wide."""
    (row, col), side = divmod(index, per_row), span * layout.cell
    x, y = layout.origin[0] + col * side, layout.origin[1] + row * side
    return x, y, x + side, y + side


def cell_box(card: Card, index: int) -> Box:
    """The square (x0, y0, x1, y1) of a cell (row-major index) in the picture."""
    return _square(_layout(card), card.size, index)


def _centre(box: Box) -> Point:
    return (box[0] + box[2]) // 2, (box[1] + box[3]) // 2


def _corners(mark: str, box: Box) -> list[tuple[float, float]]:
    reach, drop, angles = POLYGONS[mark]
    (x, y), side = _centre(box), box[2] - box[0]
    r, centre_y = reach * side, y + drop * side
    return [(x + r * math.cos(a), centre_y + r * math.sin(a)) for a in map(math.radians, angles)]


def mark_point(card: Card, index: int) -> Point:
    """A point of the cell on its mark's stroke: where the mark's colour shows."""
    box, mark = cell_box(card, index), card.cells[index]
    (x, y), side = _centre(box), box[2] - box[0]
    if mark in POLYGONS:  # the middle of the first side
        (x0, y0), (x1, y1) = _corners(mark, box)[:2]
        return round((x0 + x1) / 2), round((y0 + y1) / 2)
    return x + round(RING * side if mark == "O" else 0), y  # X: the strokes cross at the centre


def bare_point(card: Card, index: int) -> Point:
    """A point of the cell that no mark and no strike-through covers: the cell's own colour."""
    x0, y0, x1, _ = cell_box(card, index)
    return x0 + round(0.2 * (x1 - x0)), y0 + round(0.1 * (x1 - x0))


def tint(colour: RGB, amount: float = 0.16, base: int = 255) -> RGB:
    """`amount` of a colour over white (winning cells, won boards), or over black (base 0)."""
    r, g, b = (round(base + (c - base) * amount) for c in colour)
    return r, g, b


def _line_ends(indexes: frozenset[int], size: int) -> tuple[int, int] | None:
    """The end cells of `indexes` if they form a straight row, column or diagonal."""
    cells = sorted(indexes)
    steps = {(b[0] - a[0], b[1] - a[1]) for a, b in pairwise(divmod(c, size) for c in cells)}
    if len(steps) != 1 or steps.pop() not in ((0, 1), (1, 0), (1, 1), (1, -1)):
        return None
    return cells[0], cells[-1]


def _winner_colour(card: Card) -> RGB | None:
    """The colour of the winning line's mark; gold when the card does not make it clear."""
    marks = {card.cells[i] for i in card.winning_cells}
    marks = marks or {dict(card.won_blocks).get(block, "") for block in card.winning_blocks}
    if len(marks) != 1:
        return UNKNOWN_WINNER if marks else None
    return MARK_COLOURS.get(marks.pop(), UNKNOWN_WINNER)


class _Pen:
    """Draws in final-picture pixels, from `origin`, on an image SUPERSAMPLE times larger."""

    def __init__(self, image: Image.Image, origin: Point = (0, 0)) -> None:
        self.draw = ImageDraw.Draw(image)
        self.origin = origin

    def _xy(self, x: float, y: float) -> tuple[float, float]:
        return (x - self.origin[0]) * SUPERSAMPLE, (y - self.origin[1]) * SUPERSAMPLE

    def box(self, box: tuple[float, float, float, float], ink: Ink, radius: float = 0) -> None:
        (x0, y0), (x1, y1) = self._xy(*box[:2]), self._xy(*box[2:])
        self.draw.rounded_rectangle((x0, y0, x1 - 1, y1 - 1), radius * SUPERSAMPLE, ink)

    def stroke(self, points: list[tuple[float, float]], ink: Ink, width: float) -> None:
        """A polyline with round joints and round caps."""
        scaled = [self._xy(*point) for point in points]
        pixels = round(width * SUPERSAMPLE)
        self.draw.line(scaled, ink, pixels, joint="curve")
        for x, y in scaled:
            self.draw.ellipse((x - pixels / 2, y - pixels / 2, x + pixels / 2, y + pixels / 2), ink)

    def ring(self, centre: Point, radius: float, ink: Ink, width: float) -> None:
        (x, y), outer = self._xy(*centre), (radius + width / 2) * SUPERSAMPLE
        box = (x - outer, y - outer, x + outer, y + outer)
        self.draw.ellipse(box, outline=ink, width=round(width * SUPERSAMPLE))

    def disc(self, centre: Point, radius: float, ink: Ink) -> None:
        (x, y), r = self._xy(*centre), radius * SUPERSAMPLE
        self.draw.ellipse((x - r, y - r, x + r, y + r), ink)

    def text(self, line: _Text | None, bold: bool, ink: Ink, x: float | None = None) -> None:
        """A line of text from `x`, or centred across the card when x is None."""
        if line:
            y, text, size = line
            face = font(size * SUPERSAMPLE, bold)
            if x is None:
                x = (WIDTH - text_width(text, face) / SUPERSAMPLE) / 2
            self.draw.text(self._xy(x, y), drawable(text, face), ink, face)


def _draw_mark(pen: _Pen, mark: str, box: Box, ink: Ink | None = None) -> None:
    """A mark's shape, in its colour unless `ink` is given, filling `box` as it fills a cell."""
    (x, y), side = _centre(box), box[2] - box[0]
    ink = MARK_COLOURS.get(mark, MUTED) if ink is None else ink
    width = STROKE * side
    if mark == "X":
        r = X_REACH * side
        pen.stroke([(x - r, y - r), (x + r, y + r)], ink, width)
        pen.stroke([(x + r, y - r), (x - r, y + r)], ink, width)
    elif mark == "O":
        pen.ring((x, y), RING * side, ink, width)
    elif mark in POLYGONS:
        corners = _corners(mark, box)
        pen.stroke([*corners, corners[0]], ink, width)


def _strike(pen: _Pen, first: Box, last: Box, winner: RGB, width: float) -> None:
    """A stroke through the end cells' centres and a little past, on a halo apart from marks."""
    (x0, y0), (x1, y1) = _centre(first), _centre(last)
    reach = 0.3 * (first[2] - first[0]) / math.hypot(x1 - x0, y1 - y0)
    dx, dy = (x1 - x0) * reach, (y1 - y0) * reach
    pen.stroke([(x0 - dx, y0 - dy), (x1 + dx, y1 + dy)], PANEL, width * 1.6)
    pen.stroke([(x0 - dx, y0 - dy), (x1 + dx, y1 + dy)], tint(winner, SHADE, 0), width)


def last_point(card: Card) -> Point | None:
    """The centre of the dot that marks the last move: at the top of its cell, above any mark."""
    if card.last_cell is None:
        return None
    x0, y0, x1, _ = cell_box(card, card.last_cell)
    return (x0 + x1) // 2, round(y0 + 0.09 * (x1 - x0))


def _draw_last(pen: _Pen, card: Card) -> None:
    """The last move: a dot in its cell's corner, in the darker colour of its mark."""
    point = last_point(card)
    if point is not None and card.last_cell is not None:
        x0, _, x1, _ = cell_box(card, card.last_cell)
        radius, colour = (
            max(LAST_DOT * (x1 - x0), 7),
            MARK_COLOURS.get(card.cells[card.last_cell], MUTED),
        )
        pen.disc(point, radius, tint(colour, SHADE, 0))


def _draw_board(pen: _Pen, card: Card, layout: _Layout, winner: RGB | None) -> None:
    """A board of 3×3 to 8×8 as rounded tiles, the winning ones tinted and struck through."""
    inset, radius = layout.cell * 0.03, layout.cell * 0.14
    for index, mark in enumerate(card.cells):
        x0, y0, x1, y1 = _square(layout, card.size, index)
        tile = tint(winner) if winner and index in card.winning_cells else TILE
        pen.box((x0 + inset, y0 + inset, x1 - inset, y1 - inset), tile, radius)
        _draw_mark(pen, mark, (x0, y0, x1, y1))
    ends = _line_ends(card.winning_cells, card.size)
    if winner and ends:
        first, last = _square(layout, card.size, ends[0]), _square(layout, card.size, ends[1])
        _strike(pen, first, last, winner, STRIKE * layout.cell)


def _draw_ultimate(pen: _Pen, image: Image.Image, card: Card, layout: _Layout) -> None:
    """Thin lines between cells, thick ones between the small boards, a big faint mark over
    each won small board (drawn ones greyed), the winning boards tinted and struck through."""
    winner, per_row = _winner_colour(card), card.size // card.side
    block_box = partial(_square, layout, per_row, span=card.side)
    for block, owner in card.won_blocks:
        strength = 0.26 if block in card.winning_blocks else 0.1
        pen.box(block_box(block), tint(MARK_COLOURS.get(owner, MUTED), strength))
    for index in card.winning_cells:
        pen.box(_square(layout, card.size, index), tint(winner or UNKNOWN_WINNER))
    (left, top), length = layout.origin, layout.cell * card.size
    for n in range(1, card.size):
        ink, width = (BLOCK_LINE, 5) if n % card.side == 0 else (GRID_LINE, 2)
        at = n * layout.cell - width / 2
        pen.box((left + at, top, left + at + width, top + length), ink)
        pen.box((left, top + at, left + length, top + at + width), ink)
    for index, mark in enumerate(card.cells):
        _draw_mark(pen, mark, _square(layout, card.size, index))
    for block, owner in card.won_blocks:
        _draw_faint(image, owner, block_box(block))
    ends = _line_ends(card.winning_blocks, per_row)
    if winner and ends:
        _strike(pen, block_box(ends[0]), block_box(ends[1]), winner, STRIKE * layout.cell * 1.5)


def _draw_faint(image: Image.Image, owner: str, box: Box) -> None:
    """A won board's big mark, or a grey veil on a drawn board, laid over its small marks."""
    left, top, right, bottom = (v * SUPERSAMPLE for v in box)
    scaled = (left, top, right, bottom)
    if owner not in MARK_COLOURS:  # a drawn board: its marks turn grey, on grey
        region = image.crop(scaled).convert("L").convert("RGB")
        image.paste(Image.blend(region, Image.new("RGB", region.size, DRAWN_BLOCK), 0.5), scaled)
        return
    # Drawn as coverage into a mask, the mark's overlapping strokes stay one shade.
    mask = Image.new("L", (scaled[2] - scaled[0],) * 2, 0)
    _draw_mark(_Pen(mask, box[:2]), owner, box, FAINT)
    image.paste(MARK_COLOURS[owner], scaled, mask)


def _draw_texts(pen: _Pen, layout: _Layout, winner: RGB | None) -> None:
    pen.text(layout.title, True, INK)
    for y, row in layout.legend:
        x = (WIDTH - sum(entry[3] for entry in row) - LEGEND_GAP * (len(row) - 1)) / 2
        for mark, name, size, width in row:
            icon = round(LEGEND_ICON / 0.7)  # a mark fills about 70% of its box
            top, left = round(y + (LEGEND_ROW - icon) / 2), round(x - (icon - LEGEND_ICON) / 2)
            _draw_mark(pen, mark, (left, top, left + icon, top + icon))
            text_y = round(y + (LEGEND_ROW - size * 1.16) / 2)  # 1.16: DejaVu's line height
            pen.text((text_y, name, size), False, INK, x + LEGEND_ICON + 12)
            x += width + LEGEND_GAP
    pen.text(layout.result, True, tint(winner, SHADE, 0) if winner else INK)
    pen.text(layout.footer, False, MUTED)


def draw(card: Card, laid_out_as: Card | None = None) -> Image.Image:
    """The card at final size (drawn SUPERSAMPLE times larger, then reduced), laid out as
    `laid_out_as` is (the frames of an animation share the last frame's layout)."""
    layout = _layout(laid_out_as or card)
    image = Image.new("RGB", (WIDTH * SUPERSAMPLE, layout.height * SUPERSAMPLE), BACKGROUND)
    pen = _Pen(image)
    _draw_texts(pen, layout, _winner_colour(card))
    x0, y0, x1, y1 = layout.panel
    pen.box((x0, y0 + 4, x1, y1 + 6), SHADOW, PANEL_RADIUS)  # a soft drop shadow
    pen.box(layout.panel, PANEL, PANEL_RADIUS)
    if card.side < card.size:
        _draw_ultimate(pen, image, card, layout)
    else:
        _draw_board(pen, card, layout, _winner_colour(card))
    _draw_last(pen, card)
    return image.reduce(SUPERSAMPLE)


def render_card(card: Card) -> bytes:
    """A PNG image of the card."""
    output = io.BytesIO()
    draw(card).save(output, "PNG")
    return output.getvalue()
