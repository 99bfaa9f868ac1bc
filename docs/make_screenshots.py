"""Phone-size screenshots of the Mini App for README: light, dark, Persian and ultimate.

The browser tests drive the page in real headless Chromium at 390×844 (tests/webapp) and save
what they see in bench/screenshots/latest/; this script runs those tests, then copies their
pictures here at 1× scale in 256 colours, small enough for a README (each well under 100 KB).

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
PICTURES = ("miniapp-light.png", "miniapp-dark.png", "miniapp-persian.png", "miniapp-ultimate.png")
TESTS = (
    "tests/webapp/test_browser.py::test_playing_on_the_page_in_chromium",
    "tests/webapp/test_browser.py::test_an_8x8_game_in_persian_right_to_left_in_the_dark_theme",
    "tests/webapp/test_browser_games.py::test_ultimate_on_the_page_as_nine_small_boards",
)
WIDTH = 390  # CSS pixels of the phone the tests use


def shrink(source: Path, target: Path) -> int:
    """The picture at 1× scale in a 256-colour palette; returns its size in bytes."""
    with Image.open(source) as image:
        height = round(image.height * WIDTH / image.width)
        small = image.convert("RGB").resize((WIDTH, height), Image.Resampling.LANCZOS)
        small.quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(target, optimize=True)
    return target.stat().st_size


def main() -> None:
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *TESTS],
        cwd=ROOT,
        check=True,
    )
    for name in PICTURES:
        size = shrink(LATEST / name, DOCS / name)
        print(f"docs/{name}: {size // 1024} KB")


if __name__ == "__main__":
    main()
