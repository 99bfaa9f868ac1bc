"""The result card's fonts, and text fitted to a width.

DejaVu Sans when the system has it (Latin, Greek, Cyrillic and Arabic script: Debian's
`fonts-dejavu-core`, which the image installs), else Pillow's own FreeType font (Latin only),
else its bitmap font (Latin-1 only: other characters become "?"); a missing font never stops a
card. Persian is shaped and laid right to left by Pillow's Raqm layout, which needs FriBiDi on
the system (Debian's `libfribidi0`, in the image too); without it Pillow's basic layout draws
each letter apart, left to right, and the bidi controls that isolate a name would be boxes,
so they are left out. `tests/bot/test_card_scripts.py` checks every language's card.
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
# DejaVu and Pillow's font have no emoji: drawn, each would be an empty box. Those above the
# Basic Multilingual Plane, and those in it that Unicode shows as emoji by default
# (Emoji_Presentation: the texts' ⌛ ⏰ ⏱ ✅ ❌ ⭕ …); text symbols such as ✓ or ♟ stay.
_NO_GLYPHS = re.compile(
    "[\U0001f000-\U0001faff\ufe0f\u200d"
    "\u231a\u231b\u23e9-\u23f3\u23f8-\u23fa\u25fd\u25fe\u2614\u2615\u2648-\u2653"
    "\u267f\u2693\u26a1\u26aa\u26ab\u26bd\u26be\u26c4\u26c5\u26ce\u26d4\u26ea"
    "\u26f2\u26f3\u26f5\u26fa\u26fd\u2705\u270a\u270b\u2728\u274c\u274e"
    "\u2753-\u2755\u2757\u2795-\u2797\u27b0\u27bf\u2b1b\u2b1c\u2b50\u2b55]"
)
#: Marks and isolates of the Unicode bidirectional algorithm (`bot.locales.texts.isolate`).
_BIDI_CONTROLS = re.compile("[\u200e\u200f\u202a-\u202e\u2066-\u2069]")


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
    if isinstance(face, ImageFont.ImageFont):
        return text.encode("latin-1", "replace").decode("latin-1")
    # Only the Raqm layout knows the bidi controls; the basic layout draws them as boxes.
    return text if face.layout_engine == ImageFont.Layout.RAQM else _BIDI_CONTROLS.sub("", text)


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
