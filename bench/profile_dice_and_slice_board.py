"""How much work one Dice and Slice board fragment is, at the start, middle and end of a 6-player
random game: function calls counted by cProfile (the same on any machine, unlike times) and the
median time of a repeat, in process through the Flask test client.

    python bench/profile_dice_and_slice_board.py [CHECKOUT]

CHECKOUT (default: this one) is the source tree to measure, e.g. a worktree of an older commit.
"first" is the first draw after an entry (one sheet changed), "again" a repeat of the same version.
"""
from __future__ import annotations

import cProfile
import pstats
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[1])
sys.path.insert(0, str(ROOT))

from companion import create_app  # noqa: E402
from companion.games.dice_and_slice import GAME  # noqa: E402
from tests.contract.playout import playout  # noqa: E402


def calls(client, path: str) -> tuple[int, int]:
    prof = cProfile.Profile()
    prof.enable()
    body = client.get(path).get_data()
    prof.disable()
    return pstats.Stats(prof).total_calls, len(body)


def main() -> None:
    app = create_app({"DATABASE_URL": f"sqlite:///{Path(tempfile.mkdtemp()) / 'b.sqlite'}", "SECRET_KEY": "bench"})
    c = app.test_client()
    table = c.post("/api/tables", json={"game": "dice_and_slice", "players": [f"P{i}" for i in range(6)]}).get_json()
    code, tokens = table["code"], [s["token"] for s in table["seats"]]
    _, steps = playout(GAME, 6, random.Random(7))
    board = f"/t/{code}/board"

    def write(step):
        resp = c.post(f"/api/tables/{code}/entries", json=step.entry, headers={"Authorization": f"Bearer {tokens[step.seat]}"})
        assert resp.status_code == 201, resp.get_json()

    print(f"source: {ROOT}")
    done = 0
    n = len(steps)
    for label, upto in (("start", 16), ("middle", n // 2), ("three quarters", 3 * n // 4), ("last turn", n - 1),
                        ("finished", n)):
        for step in steps[done:upto - 1]:
            write(step)
        c.get(board)
        write(steps[upto - 1])
        done = upto
        first, size = calls(c, board)
        again, _ = calls(c, board)
        times = []
        for _ in range(15):
            t0 = time.perf_counter()
            c.get(board)
            times.append(time.perf_counter() - t0)
        print(f"{label:>15} (entry {upto:3} of {n}): {size // 1024:3} KB, calls first {first:6}, again {again:6}, "
              f"median again {statistics.median(times) * 1000:5.1f} ms")


if __name__ == "__main__":
    main()
