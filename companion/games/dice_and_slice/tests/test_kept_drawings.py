"""The table view keeps each sheet's drawing as it stands (rules/view.py `_drawn`, web.py
the kept drawings, companion/platform/web/kept.py): every table still shows its own sheets, a changed sheet is drawn anew, and what is
kept is never changed by the pages that read it."""
from __future__ import annotations

import random
import re

from companion.games.dice_and_slice import GAME
from companion.games.dice_and_slice.rules.view import _drawn, view
from companion.platform.core.contract import Viewer
from tests.contract.playout import playout
from tests.helpers import new_table, post_entry


def sheet_marks(board: str, seat: int) -> int:
    """Marked dots on seat `seat`'s sheet of the table view."""
    sheet = re.search(rf'<svg id="view-sheet-{seat}".*?</svg>', board, re.S).group(0)
    marked = re.search(r'<path d="([^"]*)" class="ds-mark"', sheet)  # one zero-length stroke per dot
    return marked.group(1).count("h0") if marked else 0


def play(client, table, steps) -> None:
    for step in steps:
        resp = post_entry(client, table, step.seat, **step.entry)
        assert resp.status_code == 201, resp.get_json()


def test_each_table_view_shows_its_own_sheets_as_they_change(client):
    _, steps = playout(GAME, 3, random.Random(5))
    first = new_table(client, ["Ann", "Ben", "Cy"], game="dice_and_slice")
    second = new_table(client, ["Dee", "Eve", "Fay"], game="dice_and_slice")
    play(client, first, steps[:40])
    play(client, second, steps[:10])

    def marks(table):
        board = client.get(f"/t/{table['code']}/board").get_data(as_text=True)
        return [sheet_marks(board, s) for s in range(3)]

    def dots(table):
        players = client.get(f"/api/tables/{table['code']}").get_json()["view"]["players"]
        return [len(p["dots"]) for p in players]

    assert marks(first) == dots(first) and marks(second) == dots(second)
    assert marks(first) != marks(second)
    before = marks(second)
    play(client, second, steps[10:40])  # the second table catches up with the first
    assert marks(second) == dots(second) == marks(first) and marks(second) != before


def test_what_the_pages_read_stays_as_the_rules_drew_it(client):
    """Drawing the pages and answering the API many times leaves the kept view parts unchanged:
    the view afterwards equals one drawn from scratch."""
    table = new_table(client, [f"P{i}" for i in range(6)], game="dice_and_slice")
    state, steps = playout(GAME, 6, random.Random(11))
    code = table["code"]
    third = len(steps) // 3
    for part in (steps[:third], steps[third:]):
        play(client, table, part)
        for path in (f"/t/{code}/view", f"/t/{code}/board", f"/t/{code}/view", f"/api/tables/{code}"):
            assert client.get(path).status_code == 200
    kept = view(state, None)
    _drawn.cache_clear()
    assert kept == view(state, None)
    assert client.get(f"/api/tables/{code}").get_json()["view"] == GAME.view(state, Viewer.table())


def test_the_table_view_draws_each_sheet_as_one_drawn_from_scratch_would(client):
    """Its sheets' paths are kept by the lists the rules' view shares (web.py `_kept_paths`): at
    every point of a game the board is the one drawn with nothing kept."""
    from companion.games.dice_and_slice import web

    table = new_table(client, ["Ann", "Ben", "Cy", "Dee"], game="dice_and_slice")
    _, steps = playout(GAME, 4, random.Random(3))
    board = f"/t/{table['code']}/board"
    done = 0
    for upto in (1, 40, len(steps) // 2, len(steps)):
        play(client, table, steps[done:upto])
        done = upto
        client.get(board)  # the sheets as they stand are kept now
        kept = client.get(board).get_data(as_text=True)
        web._kept_paths.kept.clear()
        web._sheets.kept.clear()
        _drawn.cache_clear()
        assert client.get(board).get_data(as_text=True) == kept
