"""The result card's fonts, and text fitted to a width.

DejaVu Sans when the system has it, else Pillow's own FreeType font, else its bitmap font
(Latin-1 only: other characters become "?"); a missing font never stops a card.
"""

from __future__ import annotations

import re
from functools import cache
from itertools import chain
from pathlib import Path

from PIL import ImageFont

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont

FONTS = Path("/usr/share/fonts")
SMALLEST_TEXT = 18
# DejaVu and Pillow's font have no emoji: drawn, each would be an empty box.
_NO_GLYPHS = re.compile("[\U0001f000-\U0001faff\ufe0f\u200d]")


@cache
def _font_file(bold: bool) -> Path | None:
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    # Debian's place first; other distributions keep DejaVu elsewhere under /usr/share/fonts.
    places = chain([FONTS / "truetype" / "dejavu" / name], FONTS.rglob(name))
    return next((place for place in places if place.is_file()), None)


@cache
def font(size: int, bold: bool = False) -> Font:
    """The card's font at a pixel size: DejaVu Sans, else Pillow's fonts (see the docstring)."""
    path = _font_file(bold)
    if path:
        try:
            return ImageFont.truetype(str(path), size)
        except (OSError, ImportError):  # an unreadable file, or a Pillow without FreeType
            pass
    try:
        return ImageFont.load_default(size=size)
    except (ImportError, TypeError):  # a Pillow without FreeType, or older than 10.1
        return ImageFont.load_default()  # the bitmap font


def drawable(text: str, face: Font) -> str:
    # The bitmap font encodes text as Latin-1 and raises on anything else.
    latin = isinstance(face, ImageFont.ImageFont)
    return text.encode("latin-1", "replace").decode("latin-1") if latin else text


def text_width(text: str, face: Font) -> float:
    return face.getlength(drawable(text, face))


def fit_text(text: str, size: int, bold: bool, width: int) -> tuple[str, int]:
    """The text and the largest font size, down to two thirds of `size`, at which it fits
    `width`; cut short with an ellipsis at the smallest size when none does."""
    text, smallest = " ".join(_NO_GLYPHS.sub("", text).split()), max(SMALLEST_TEXT, size * 2 // 3)
    for candidate in range(size, smallest - 1, -2):
        if text_width(text, font(candidate, bold)) <= width:
            return text, candidate
    text = text[: width // 4]  # no narrower glyphs than that: the loop below stays short
    while text and text_width(text + "…", font(smallest, bold)) > width:
        text = text[:-1].rstrip()
    return text + "…", smallest
