"""Platform and DiceZ timings: a scoring entry's round trip, an unchanged poll, a replay.

Run: python bench/bench_platform.py [--rounds N]. Prints medians (and p90) in milliseconds.
Everything goes through the real app and a real SQLite file (in-process test client: the
network is left out, the database, rules engine and template rendering are all in).
"""
from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion import create_app  # noqa: E402
from companion.games.dicez import GAME as DICEZ  # noqa: E402
from companion.platform.play import _cache, load_replay, replay_entries  # noqa: E402

BOXES = ["ones", "twos", "threes", "fours", "fives", "sixes", "three_of_a_kind", "four_of_a_kind",
         "full_house", "small_straight", "large_straight", "dicez", "chance"]


def ms(samples):
    s = sorted(samples)
    return f"median {statistics.median(s) * 1000:.2f} ms, p90 {s[int(len(s) * 0.9)] * 1000:.2f} ms (n={len(s)})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--players", type=int, default=10)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp())
    app = create_app({"DATABASE_URL": f"sqlite:///{tmp / 'bench.sqlite'}", "SECRET_KEY": "bench"})
    store = app.extensions["store"]

    host = app.test_client()
    table = host.post("/api/tables", json={"game": "dicez", "players": [f"P{i}" for i in range(args.players)],
                                           "pass_and_play": True}).get_json()
    code = table["code"]
    # the host device plays every seat through the phone pages (pass and play)
    host.set_cookie(f"host_{code}", table["host_token"])
    page = host.get(f"/t/{code}/s/0").get_data(as_text=True)
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)

    entry_times, poll_times = [], []
    for box in BOXES:
        for seat in range(args.players):
            form = {"d0": 2, "d1": 3, "d2": 4, "d3": 5, "d4": 6, "category": box, "csrf_token": csrf}
            t0 = time.perf_counter()
            resp = host.post(f"/t/{code}/s/{seat}/entries", data=form, headers={"HX-Request": "true"})
            entry_times.append(time.perf_counter() - t0)
            assert resp.status_code == 200 and 'id="sheet"' in resp.get_data(as_text=True), resp.status_code
    version = store.version(code, 1)
    for _ in range(500):
        t0 = time.perf_counter()
        resp = host.get(f"/t/{code}/poll?v=1.{version}.0")
        poll_times.append(time.perf_counter() - t0)
        assert resp.status_code == 204

    tinfo = store.table(code)
    entries = store.entries(code, 1)
    game = DICEZ
    replay_times, load_times = [], []
    for _ in range(50):
        t0 = time.perf_counter()
        _, state = replay_entries(game, args.players, {}, entries)
        replay_times.append(time.perf_counter() - t0)
        assert game.finished(state)
        _cache.clear()
        t0 = time.perf_counter()
        load_replay(store, tinfo)
        load_times.append(time.perf_counter() - t0)

    print(f"DiceZ, {args.players} players, SQLite at {tmp}")
    print(f"scoring entry round trip (POST -> sheet rendered): {ms(entry_times)}")
    print(f"unchanged poll (204):                              {ms(poll_times)}")
    print(f"replay of the finished game, engine only ({len(entries)} entries): {ms(replay_times)}")
    print(f"replay of the finished game, read from SQLite + engine: {ms(load_times)}")


if __name__ == "__main__":
    main()
