"""How fast an entry on one phone shows on another phone and on the table view (target: within 2 s).

Run: python bench/bench_live.py [--samples N]. Starts two real server processes on one SQLite file,
drives three headless Chromium contexts (Debian's /usr/bin/chromium) and, for each sample, times from
Ann's tap on a box to the moment Ben's phone (other process) and the table view show her new total.
Pages hold a live stream (server-sent events); across two processes on one SQLite file a change is
noticed by the other process's check of the file's version ten times a second, so expect about
50 ms plus the fragment's request (PostgreSQL or Redis: at once).
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# a function, not an expression string: the pages' Content-Security-Policy allows no eval
SHOWS = "([testid, text]) => document.querySelector(`[data-testid=\"${testid}\"]`).textContent === text"

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser_fixtures import (CHROMIUM, CHROMIUM_ARGS, PHONE, _free_port, _wait_for, join_as,  # noqa: E402
                                    start_dicez_table, table_code)

BOXES = ["ones", "twos", "threes", "fours", "fives", "sixes", "chance"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=len(BOXES))
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp())
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp / 'live.sqlite'}", "SECRET_KEY": "bench",
           "PYTHONPATH": str(ROOT)}
    procs, bases = [], []
    for _ in range(2):
        port = _free_port()
        proc = subprocess.Popen([sys.executable, "-m", "companion", "--host", "127.0.0.1", "--port", str(port)],
                                cwd=ROOT, env=env, stdout=open(tmp / f"{port}.log", "w"), stderr=subprocess.STDOUT)
        _wait_for(port, proc)
        procs.append(proc)
        bases.append(f"http://127.0.0.1:{port}")
    from playwright.sync_api import sync_playwright

    phone_delays, view_delays = [], []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            pages = [browser.new_context(**PHONE).new_page() for _ in range(3)]
            host, ann, ben = pages
            join = start_dicez_table(host, bases[0], ["Ann", "Ben"], turn_order=False)  # Ann fills her sheet alone
            code = table_code(join)
            join_as(ann, join, "Ann")
            join_as(ben, join.replace(bases[0], bases[1]), "Ben")
            view = browser.new_context(viewport={"width": 1024, "height": 768}).new_page()
            view.goto(f"{bases[1]}/t/{code}/view")
            total = 0
            for box in BOXES[: args.samples]:
                face = BOXES.index(box) + 1 if box != "chance" else 6  # five ones in Ones, ... : never 0
                ann.locator('[data-testid="clear-dice"]').click()
                for _ in range(5):
                    ann.locator(f'[data-testid="face-{face}"]').click()
                ann.locator(f'[data-testid="score-{box}"]:not(.pending)').wait_for()
                upper_before = sum(5 * (BOXES.index(b) + 1) for b in BOXES[:BOXES.index(box)] if b != "chance")
                expected = total + 5 * face
                if box != "chance" and upper_before < 63 <= upper_before + 5 * face:
                    expected += 35  # the upper bonus arrives with this box
                t0 = time.perf_counter()
                ann.locator(f'[data-testid="score-{box}"]').click()
                ben.wait_for_function(SHOWS, arg=["total-0", str(expected)], polling=20, timeout=15000)
                phone_delays.append(time.perf_counter() - t0)
                view.wait_for_function(SHOWS, arg=["view-total-0", str(expected)], polling=20, timeout=15000)
                view_delays.append(time.perf_counter() - t0)
                total = expected
                time.sleep(0.3)
            browser.close()
    finally:
        for proc in procs:
            proc.terminate()
    fmt = lambda xs: f"median {statistics.median(xs):.2f} s, max {max(xs):.2f} s (n={len(xs)})"  # noqa: E731
    print("tap on Ann's phone -> Ben's phone (other server process):", fmt(phone_delays))
    print("tap on Ann's phone -> table view (other server process): ", fmt(view_delays))


if __name__ == "__main__":
    main()
