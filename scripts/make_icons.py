"""Draw the web app's home-screen icons (static/icons/icon-192.png, icon-512.png) from icon.svg.

Run once after changing the SVG, and commit the PNGs: `.venv/bin/python scripts/make_icons.py`.
Uses the test suite's Chromium, so no image library is needed. The picture fills the whole square
with the important part inside the middle 80 %, so phones may crop it to a circle ("maskable").
"""
from __future__ import annotations

from pathlib import Path

from playwright.sync_api import sync_playwright

ICONS = Path(__file__).resolve().parents[1] / "static" / "icons"
CHROMIUM = "/usr/bin/chromium"


def main() -> None:
    svg = (ICONS / "icon.svg").read_text()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        for size in (192, 512):
            page = browser.new_page(viewport={"width": size, "height": size})
            sized = svg.replace("<svg ", f'<svg width="{size}" height="{size}" ', 1)
            page.set_content(f'<body style="margin:0">{sized}</body>')
            page.screenshot(path=str(ICONS / f"icon-{size}.png"), omit_background=True)
            page.close()
        browser.close()


if __name__ == "__main__":
    main()
