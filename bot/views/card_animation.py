"""The animated card: a GIF of a game, one frame a position (the empty board, then each
move), each drawn as the result card draws a board (`bot.views.card`) and laid out as the
last, so that the words stay put and only the board changes."""

from __future__ import annotations

import io
from collections.abc import Sequence

from PIL import Image

from bot.views.card import Card, draw

#: Each move shown this long (ms), the final position longer; the picture at half the card's
#: width (a chat shows it smaller still, and a GIF's bytes grow with it).
STEP_MS, HOLD_MS, ANIMATION_SCALE = 700, 3000, 2


def render_animation(frames: Sequence[Card]) -> bytes:
    """An animated, looping GIF of the frames, the last held longest."""
    if not frames:
        raise ValueError("an animation needs a frame")
    images = [draw(frame, frames[-1]).reduce(ANIMATION_SCALE) for frame in frames]
    # One palette for every frame (the last has every colour the game uses): no flicker.
    palette = images[-1].quantize(colors=128)
    still = [image.quantize(palette=palette, dither=Image.Dither.NONE) for image in images]
    output = io.BytesIO()
    durations = [STEP_MS] * (len(still) - 1) + [HOLD_MS]
    still[0].save(
        output,
        "GIF",
        save_all=True,
        append_images=still[1:],
        duration=durations,
        loop=0,
        optimize=False,
    )
    return output.getvalue()
