"""Bytes on the wire per game: a phone sheet's first load (the page and every file it loads) and what a
page fetches after a change (the sheet fragment, the table view's board, the host's seats), raw, gzip
and brotli as the app sends them, at each game's largest player count, at the start and late (90 % of a
random legal playout). Sizes, not times: the same on every run.

Run: python bench/bench_wire.py   (prints a Markdown table: gzip is what a plain-http LAN phone gets, brotli an https one)
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion import create_app  # noqa: E402
from companion.games import every_game  # noqa: E402
from tests.wire import change_fragments, fetch, first_load, played_table  # noqa: E402

GAMES = every_game()


def kb(n: int) -> str:
    return f"{n / 1024:.1f}"


def main() -> None:
    folder = Path(tempfile.mkdtemp())
    app = create_app({"DATABASE_URL": f"sqlite:///{folder / 'wire.sqlite'}", "TESTING": True,
                      "SECRET_KEY": "bench"})
    print("| game | players | when | first load KB raw / gzip / br | " +
          " | ".join(f"{name} KB raw / gzip / br" for name in change_fragments("X", 0)) + " |")
    print("|---|---|---|---|---|---|---|")
    for game_id, game in GAMES.items():
        for share, when in ((0.0, "start"), (0.9, "late")):
            client = app.test_client()
            table = played_table(client, game_id, game.max_players, share)
            load, _ = first_load(client, table["code"], 0)
            cells = [f"{kb(load.identity)} / {kb(load.gzip)} / **{kb(load.br)}**"]
            for path in change_fragments(table["code"], 0).values():
                s = fetch(client, path)
                cells.append(f"{kb(s.identity)} / {kb(s.gzip)} / **{kb(s.br)}**")
            print(f"| {game.title} | {game.max_players} | {when} | " + " | ".join(cells) + " |")
    app.extensions["store"].dispose()


if __name__ == "__main__":
    main()
