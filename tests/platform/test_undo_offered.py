"""Undo is offered only where it would be taken (issue 34, item 4): a sheet shows its Undo button
exactly when the rules would let the seat take its last entry back (DiceZ after the next player has
played, or a Pizza Theory cut after the reveal, do not), and a refusal names players, never seats."""
from __future__ import annotations

import random
import re

import pytest

from companion.platform.core.registry import GAMES
from tests.contract.playout import playout
from tests.helpers import bearer, new_table, post_entry

UNDO_BUTTON = 'data-testid="undo"'
NAMES = ["Ann", "Ben", "Cat"]


def _sheet(client, table, seat) -> str:
    client.set_cookie(f"seat_{table['code']}", table["seats"][seat]["token"])
    resp = client.get(f"/t/{table['code']}/s/{seat}")
    assert resp.status_code == 200
    return resp.get_data(as_text=True)


def _undo(client, table, seat):
    return client.post(f"/api/tables/{table['code']}/undo", headers=bearer(table["seats"][seat]["token"]))


def _table_after(client, game_id, players, steps):
    table = new_table(client, NAMES[:players], game=game_id)
    for step in steps:
        assert post_entry(client, table, step.seat, **step.entry).status_code == 201
    return table


@pytest.mark.parametrize("game_id", ["dicez", "dice_and_slice", "pizza_theory", "score_pad"])
def test_the_undo_button_shows_exactly_where_undo_is_taken(client, game_id):
    """At points of a random game, each seat's sheet offers Undo, and Undo is then taken, or the sheet
    offers none, and Undo is then refused, saying why in names."""
    game = GAMES[game_id]
    players = min(game.max_players, 3)
    _, steps = playout(game, players, random.Random(f"undo-{game_id}"), max_steps=40)
    shown = refused = 0
    for cut in sorted(random.Random(game_id).sample(range(1, len(steps) + 1), min(5, len(steps)))):
        for seat in range(players):
            table = _table_after(client, game_id, players, steps[:cut])
            offered = UNDO_BUTTON in _sheet(client, table, seat)
            answer = _undo(client, table, seat)
            assert answer.status_code == (201 if offered else 422), (cut, seat, answer.get_json())
            if not offered:
                assert not re.search(r"\bseat \d", answer.get_json()["error"]), answer.get_json()
            shown, refused = shown + offered, refused + (not offered)
    assert shown and refused  # both cases met: the check compared something


def test_dicez_offers_undo_until_the_next_player_has_played(client):  # DZ-20
    table = new_table(client, NAMES)
    assert UNDO_BUTTON not in _sheet(client, table, 0)  # nothing to take back yet
    assert post_entry(client, table, 0, kind="score", dice=[1, 1, 1, 1, 1], category="ones").status_code == 201
    assert UNDO_BUTTON in _sheet(client, table, 0)
    assert post_entry(client, table, 1, kind="score", dice=[2, 2, 2, 2, 2], category="twos").status_code == 201
    assert UNDO_BUTTON not in _sheet(client, table, 0)
    assert UNDO_BUTTON in _sheet(client, table, 1)
    refusal = _undo(client, table, 0).get_json()["error"]
    assert refusal == "That entry can't be undone any more: Ben played after it, and that play depends on it."


def test_pizza_theory_offers_no_undo_of_a_cut_once_the_cuts_are_revealed(client):  # PT-8
    game = GAMES["pizza_theory"]
    _, steps = playout(game, 3, random.Random("undo-cut"))
    at = next(i for i, s in enumerate(steps) if s.before.phase == "cut" and s.after.phase != "cut")
    before_reveal = _table_after(client, "pizza_theory", 3, steps[:at])
    cutter = steps[at - 1].seat  # chose a line; the round waits for the last cut
    assert UNDO_BUTTON in _sheet(client, before_reveal, cutter)
    revealed = _table_after(client, "pizza_theory", 3, steps[:at + 1])
    assert UNDO_BUTTON not in _sheet(client, revealed, cutter)
    assert _undo(client, revealed, cutter).get_json()["error"] == (
        "The cuts have been revealed; a cut can no longer be taken back.")
