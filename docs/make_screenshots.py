"""Phone-size screenshots of the Mini App for README: 3×3 light and dark, 8×8 in Persian,
ultimate, a game on the clock, a match's game 2, a replay with its list of moves, and the page
at 320 px in Persian.

The browser tests drive the page in real headless Chromium at 390×844 and 320×844
(tests/webapp) and save what they see in bench/screenshots/latest/; this script runs those
tests, then copies their pictures here at 1× scale in 256 colours, small enough for a README
(each well under 100 KB).

    .venv/bin/python docs/make_screenshots.py

Needs Debian's `chromium` and, for the buttons' emoji, `fonts-noto-color-emoji`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
LATEST = ROOT / "bench" / "screenshots" / "latest"
DOCS = ROOT / "docs"
#: Each picture a test saves (bench/screenshots/latest/), and its name in docs/.
PICTURES = {
    "miniapp-light.png": "miniapp-light.png",
    "miniapp-dark.png": "miniapp-dark.png",
    "miniapp-persian.png": "miniapp-persian.png",
    "miniapp-ultimate.png": "miniapp-ultimate.png",
    "miniapp-clocks.png": "miniapp-clocks.png",
    "miniapp-match-game-2-320.png": "miniapp-match-game-2.png",
    "replay-390-light.png": "miniapp-replay.png",
    "miniapp-persian-320.png": "miniapp-persian-320.png",
}
TESTS = (
    "tests/webapp/test_browser.py::test_playing_on_the_page_in_chromium",
    "tests/webapp/test_browser.py::test_an_8x8_game_in_persian_right_to_left_in_the_dark_theme",
    "tests/webapp/test_browser_games.py::test_ultimate_on_the_page_as_nine_small_boards",
    "tests/webapp/test_browser_games.py::test_a_match_game_shows_its_score_on_the_page",
    "tests/webapp/test_browser_games.py::test_a_finished_game_replays_move_by_move_on_the_page",
    "tests/webapp/test_browser_live.py::test_both_clocks_count_down_on_the_page_and_a_loss_on_time_is_said",
    "tests/webapp/test_browser_par.py::test_an_ai_name_keeps_its_level_in_every_language",
)
#: The tests' screens are drawn at twice their CSS pixels (device_scale_factor=2).
SCALE = 2


def shrink(source: Path, target: Path) -> int:
    """The picture at 1× scale in a 256-colour palette; returns its size in bytes."""
    with Image.open(source) as image:
        size = (image.width // SCALE, image.height // SCALE)
        small = image.convert("RGB").resize(size, Image.Resampling.LANCZOS)
        small.quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(target, optimize=True)
    return target.stat().st_size


def main() -> None:
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *TESTS],
        cwd=ROOT,
        check=True,
    )
    for source, name in PICTURES.items():
        size = shrink(LATEST / source, DOCS / name)
        print(f"docs/{name}: {size // 1024} KB")


if __name__ == "__main__":
    main()
