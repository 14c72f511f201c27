"""The least an entry can cost on the server `python -m companion` runs: bench/bench_hot_paths.py's floor.

    python bench/floor_wsgi.py --port 8002 [--database file|memory] [--rules]

A WSGI app on the same server as bench/hello_wsgi.py that does for each POST only what any entry
written to SQLite must: read the JSON body, INSERT one row into a table keyed as the entries table is
(its sequence number and its idempotency key both unique), COMMIT, and answer with the 201 and the
headers the real entry route gives. No token, no checks, no replay cache, no live notice. With
`--rules` it also runs DiceZ's `apply` on a five-seat game before the insert (the rules' share).
`--database memory` keeps the table in memory: SQLite's own work without any file or lock.
The difference between the real entry and this is what the platform adds; between this and the POST
hello world, what a write to SQLite costs one request at a time.
"""
from __future__ import annotations

import argparse
import itertools
import json
import sqlite3
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.games.dicez import rules as dicez  # noqa: E402
from companion.platform.quick_entry import CREATED_HEADERS  # noqa: E402  (the route's own headers)
from hello_wsgi import serve  # noqa: E402  (bench/, this script's folder)

SEATS = 5
ENTRIES_PER_GAME = SEATS * len(dicez.BOXES)
STAMP = "2026-12-03 12:00:00.000000"  # as SQLAlchemy writes a DateTime to SQLite


def make_floor(db: sqlite3.Connection) -> None:
    """The floor's table, keyed as `entries` is (bench/bench_entry_cold.py times the same writes in process)."""
    db.execute("CREATE TABLE floor (table_code, game_no, seq, seat, kind, payload, key, created_at, device, "
               "PRIMARY KEY (table_code, game_no, seq), UNIQUE (table_code, game_no, seat, key))")


def write_row(db: sqlite3.Connection, game_no: int, seq: int, seat: int, kind: str, payload: str,
              key: str | None = None) -> None:
    """One entry's row, INSERTed and COMMITted as the app's append does."""
    db.execute("INSERT INTO floor VALUES (?,?,?,?,?,?,?,?,?)",
               ("FLOOR0", game_no, seq, seat, kind, payload, key, STAMP, "0" * 32))
    db.commit()


def connect(database: str) -> sqlite3.Connection:
    where = ":memory:" if database == "memory" else str(Path(tempfile.mkdtemp(prefix="bench-floor-")) / "floor.sqlite")
    db = sqlite3.connect(where, isolation_level="", check_same_thread=False)
    if database == "file":  # as the app's engine sets up its connections
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
    make_floor(db)
    return db


def floor_app(db: sqlite3.Connection, with_rules: bool):
    count = itertools.count()
    game = {"state": None}

    def app(environ, start_response):
        raw = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        if environ.get("REQUEST_METHOD") != "POST":
            start_response("405 Method Not Allowed", [("Content-Length", "0")])
            return [b""]
        entry = json.loads(raw)
        n = next(count)
        game_no, seq = divmod(n, ENTRIES_PER_GAME)
        seat = seq % SEATS
        if with_rules:
            if seq == 0:
                game["state"] = dicez.new_state(SEATS, {"turn_order": True})
            played = {**entry, "category": dicez.BOXES[seq // SEATS]}  # every seat fills its boxes in turn
            game["state"] = dicez.apply(game["state"], seat, played)
        write_row(db, game_no, seq, seat, entry["kind"], json.dumps(entry))
        answer = b'{"seq":%d,"version":%d}\n' % (seq + 1, seq + 1)
        start_response("201 CREATED", [*CREATED_HEADERS, ("Content-Length", str(len(answer)))])
        return [answer]
    return app


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8002)
    parser.add_argument("--database", choices=("file", "memory"), default="file")
    parser.add_argument("--rules", action="store_true", help="run DiceZ's apply before the insert")
    args = parser.parse_args()
    print(f"floor ({args.database}{', DiceZ rules' if args.rules else ''}) at http://{args.host}:{args.port}/",
          flush=True)
    serve(floor_app(connect(args.database), args.rules), "gevent", args.host, args.port, threads=0)


if __name__ == "__main__":
    main()
