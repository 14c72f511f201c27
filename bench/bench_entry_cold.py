"""An API entry in process, with the processor's caches warm and with them flushed before each entry.

    python bench/bench_entry_cold.py [--samples 3000] [--flush-mb N]

bench/bench_hot_paths.py times one request at a time against the real server: between two requests
the server waits for the client, and on this virtual machine its core's cache is then largely gone
(the host runs other work there). This script shows what that costs an entry: the same DiceZ entry
through the whole WSGI app (the seat's token, the rules, the SQLite append and commit) timed back to
back, then with a buffer larger than the core's L2 cache written over before each one. For scale it
times the same two ways a bare hello-world WSGI app (its server's own work is not in it), the driver's
own INSERT and COMMIT of an entry's row (the floor of any entry written to SQLite), and the least an
entry can be: its JSON read, DiceZ's `apply` and that INSERT and COMMIT, with no platform around them
(what the platform adds is the difference). Prints medians. Asserts nothing about time.
"""
from __future__ import annotations

import argparse
import io
import itertools
import json
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion import create_app  # noqa: E402
from companion.games.dicez import rules as dicez  # noqa: E402
from floor_wsgi import make_floor, write_row  # noqa: E402  (bench/: the floor bench_hot_paths.py serves)
from hello_wsgi import hello  # noqa: E402  (bench/, this script's folder: the hot paths' baseline app)

L2 = Path("/sys/devices/system/cpu/cpu0/cache/index2/size")


def l2_bytes() -> int | None:
    try:
        text = L2.read_text().strip().upper()
    except OSError:
        return None
    scale = {"K": 1024, "M": 1024 * 1024}.get(text[-1:], 1)
    return int(text.rstrip("KM")) * scale


def entry_body(box: str) -> bytes:
    return json.dumps({"kind": "score", "dice": [2, 3, 4, 5, 6], "category": box}).encode()


def entry_environ(code: str, token: str, box: str) -> dict:
    raw = entry_body(box)
    return {"REQUEST_METHOD": "POST", "PATH_INFO": f"/api/tables/{code}/entries", "QUERY_STRING": "",
            "CONTENT_TYPE": "application/json", "CONTENT_LENGTH": str(len(raw)),
            "HTTP_AUTHORIZATION": f"Bearer {token}", "wsgi.input": io.BytesIO(raw), "wsgi.url_scheme": "http",
            "REMOTE_ADDR": "127.0.0.1", "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "80",
            "SERVER_PROTOCOL": "HTTP/1.1", "HTTP_HOST": "127.0.0.1"}


def entries(app):
    """Each seat of a 5-player DiceZ table scoring in turn; a new table (not timed) before the last round."""
    client = app.test_client()
    while True:
        table = client.post("/api/tables", json={"game": "dicez", "players": [f"P{i}" for i in range(5)]}).get_json()
        for box in dicez.BOXES[:-1]:
            for seat in table["seats"]:
                yield entry_environ(table["code"], seat["token"], box)


def bare_turns():
    """(seat, body, game) of 5-player games played box by box, as the app's entries are; `game[0]` is
    the state before the turn, and the turn's timed work puts the state after it there."""
    while True:
        game = [dicez.new_state(5, dicez.normalize_options({}))]
        for box in dicez.BOXES[:-1]:
            for seat in range(5):
                yield seat, entry_body(box), game


def timed(call, samples: int, flush: bytearray | None) -> float:
    """Median seconds of `call()` (which returns a callable to time), flushing the caches before each if asked."""
    out = []
    for _ in range(samples):
        work = call()
        if flush is not None:
            flush[::64] = b"\1" * (len(flush) // 64)  # one write per cache line
        t0 = time.perf_counter()
        work()
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=3000)
    parser.add_argument("--flush-mb", type=float, default=None, help="default: twice this core's L2 cache")
    args = parser.parse_args()
    l2 = l2_bytes()
    flush_size = int(args.flush_mb * 2**20) if args.flush_mb else 2 * (l2 or 4 * 2**20)
    tmp = Path(tempfile.mkdtemp())
    db = tmp / "bench.sqlite"
    app = create_app({"DATABASE_URL": f"sqlite:///{db}", "SECRET_KEY": "bench",
                      "TABLES_PER_CLIENT": "100000 per minute"})  # a new table every few rounds, one client
    source, statuses = entries(app), []

    def entry():
        environ = next(source)
        return lambda: b"".join(app.wsgi_app(environ, lambda status, headers: statuses.append(status)))

    def hello_call():
        environ = {**entry_environ("CODE00", "x" * 43, "ones"), "PATH_INFO": "/entries"}
        return lambda: b"".join(hello(environ, lambda status, headers: None))

    floor = sqlite3.connect(db, isolation_level="")  # the driver alone, on the same file
    floor.execute("PRAGMA synchronous=NORMAL")
    make_floor(floor)
    rows = itertools.count()

    def floor_call():
        seq = next(rows)
        return lambda: write_row(floor, 1, seq, seq % 5, "score", '{"dice":[2,3,4,5,6],"category":"ones"}', f"k{seq}")

    turns = bare_turns()

    def bare_call():
        seat, body, game = next(turns)
        seq = next(rows)

        def work():
            entry = json.loads(body)
            game[0] = dicez.apply(game[0], seat, entry)
            write_row(floor, 1, seq, seat, entry["kind"], json.dumps({k: v for k, v in entry.items() if k != "kind"},
                                                                     separators=(",", ":")))
        return work

    flush = bytearray(flush_size)
    timed(entry, 300, None)  # warm up: the first tables, the replay cache, the statements
    print(f"{args.samples} samples each; caches flushed by writing {flush_size / 2**20:.1f} MiB "
          f"(this core's L2: {f'{l2 / 2**20:.1f} MiB' if l2 else 'unknown'})")
    print(f"{'':52s} {'warm':>9s} {'flushed':>9s}  flushed / warm")
    for label, call in (("bare hello world (WSGI app alone, in process)", hello_call),
                        ("SQLite alone: INSERT and COMMIT of an entry's row", floor_call),
                        ("the least an entry is: JSON, DiceZ's apply, SQLite", bare_call),
                        ("API entry through the app (rules, append, commit)", entry)):
        warm, cold = timed(call, args.samples, None), timed(call, args.samples, flush)
        print(f"{label:52s} {warm * 1e6:7.1f}us {cold * 1e6:7.1f}us  {cold / warm:5.2f}")
    refused = [status for status in statuses if not status.startswith("201")]
    if refused:
        raise SystemExit(f"{len(refused)} entries were not recorded: {refused[:3]}")


if __name__ == "__main__":
    main()
