"""What a phone moves over the wire: a sheet's first load and what it fetches after a change.

Shared by tests/platform/test_wire.py (the byte budgets) and bench/bench_wire.py (the figures in
docs/performance.md). Sizes are measured on the bodies the app really sends for an Accept-Encoding.
"""
from __future__ import annotations

import gzip
import random
import re
from dataclasses import dataclass

import brotli

from companion.platform.core.registry import GAMES
from tests.contract.playout import playout
from tests.helpers import bearer, join_seat, new_table

ENCODINGS = ("identity", "gzip", "br")
DECODE = {"identity": bytes, "gzip": gzip.decompress, "br": brotli.decompress}
ASSET = re.compile(r'<(?:link rel="stylesheet" href|script src|img src)="(/[^"]+)"')


@dataclass
class Sizes:
    """Bytes of one load (a page and its files, or one fragment) per encoding."""
    identity: int = 0
    gzip: int = 0
    br: int = 0

    def add(self, other: "Sizes") -> None:
        self.identity += other.identity
        self.gzip += other.gzip
        self.br += other.br


def fetch(client, path: str, htmx: bool = True) -> Sizes:
    """One GET as a phone's browser makes it (`htmx`: a fragment htmx asks for, else a load of the
    page or a file), measured as sent in each encoding."""
    sizes = Sizes()
    for encoding in ENCODINGS:
        headers = {"Accept-Encoding": encoding, **({"HX-Request": "true"} if htmx else {})}
        resp = client.get(path, headers=headers)
        assert resp.status_code == 200, (path, resp.status_code)
        body = resp.get_data()
        sent = resp.headers.get("Content-Encoding", "identity")
        assert sent in (encoding, "identity"), (path, encoding, sent)
        DECODE[sent](body)  # a body that says it is compressed really is
        setattr(sizes, encoding, len(body))
    return sizes


def first_load(client, code: str, seat: int) -> tuple[Sizes, list[str]]:
    """A sheet's page and every file it loads (style sheets, scripts, images)."""
    page = f"/t/{code}/s/{seat}"
    html = client.get(page).get_data(as_text=True)
    total, files = Sizes(), ASSET.findall(html)
    for path in [page, *files]:
        total.add(fetch(client, path.replace("&amp;", "&"), htmx=False))
    return total, files


def change_fragments(code: str, seat: int) -> dict[str, str]:
    """What a page fetches after `table-changed`: the sheet, the table view's board, the host's seats."""
    return {"sheet": f"/t/{code}/s/{seat}/sheet", "board": f"/t/{code}/board", "host": f"/t/{code}/host"}


def played_table(client, game_id: str, players: int, share: float, seed: int = 11) -> dict:
    """A table of `players` whose game went `share` of the way to its end (1.0: finished), played
    through the API from a random legal playout; the host's cookie is on `client`."""
    game = GAMES[game_id]
    _, steps = playout(game, players, random.Random(seed))
    table = new_table(client, [f"Player {i + 1}" for i in range(players)], game=game_id)
    keep = len(steps) if share >= 1 else int(len(steps) * share)
    for step in steps[:keep]:
        resp = client.post(f"/api/tables/{table['code']}/entries", json=step.entry,
                           headers=bearer(table["seats"][step.seat]["token"]))
        assert resp.status_code in (200, 201), resp.get_json()
    client.set_cookie(f"host_{table['code']}", table["host_token"])
    join_seat(client, table["code"], 0)
    return table
