"""A finished game as History and the exports show it (issue 12, item 5): the game's own title, and
the moment it finished, for every game."""
from __future__ import annotations

import csv
import io
import random
import re
from datetime import datetime

import pytest

from companion.platform.core.registry import GAMES
from tests.contract.playout import playout
from tests.helpers import new_table, post_entry


def _finished_table(client, game_id):
    game = GAMES[game_id]
    players = max(2, game.min_players)
    table = new_table(client, [f"P{i}" for i in range(players)], game=game_id)
    _, steps = playout(game, players, random.Random(f"finished-{game_id}"))
    for step in steps:
        assert post_entry(client, table, step.seat, **step.entry).status_code == 201
    return table


@pytest.mark.parametrize("game_id", list(GAMES))
def test_the_export_says_when_a_finished_game_ended(client, game_id):
    table = _finished_table(client, game_id)
    data = client.get(f"/t/{table['code']}/games/1/export.json").get_json()
    assert data["finished"] is True
    ended = datetime.fromisoformat(data["finished_at"])
    assert ended >= datetime.fromisoformat(data["started_at"])
    assert ended.utcoffset() is not None, "a moment another program can read: with its zone (UTC)"
    # the same moment History shows
    history = client.get(f"/t/{table['code']}/history").get_data(as_text=True)
    assert ended.strftime("%Y-%m-%d %H:%M") in history


def test_history_names_every_game_by_its_title(client):
    titles = []
    for game_id in GAMES:
        table = _finished_table(client, game_id)
        client.set_cookie(f"host_{table['code']}", table["host_token"])  # /history lists this browser's tables
        # the game's title, or the game it stands for (a Score sheet's sheet, a named Score pad)
        export = client.get(f"/t/{table['code']}/games/1/export.json").get_json()
        titles.append(GAMES[game_id].play_title(export["options"]))
    page = client.get("/history").get_data(as_text=True)
    shown = re.findall(r"<strong>([^<]+)</strong> · table", page)
    assert sorted(shown) == sorted(titles) and all(title for title in titles)
    assert "Dicez" not in page


def _csv_rows(client, code) -> list[dict]:
    text = client.get(f"/t/{code}/games/1/export.csv").get_data(as_text=True)
    return list(csv.DictReader(io.StringIO(text)))


def test_a_dice_and_slice_csv_carries_the_sheet_not_only_the_total(client):
    """Slices counted by size and the topping bonuses made, as the final sheets show them."""
    table = _finished_table(client, "dice_and_slice")
    view = client.get(f"/api/tables/{table['code']}").get_json()["view"]  # what the final sheets show
    rows = _csv_rows(client, table["code"])
    assert [row["seat"] for row in rows] == ["1", "2"]  # as on the start page
    for row, player in zip(rows, view["players"]):
        score = player["score"]
        sizes = {int(k.split("-")[0]): int(v) for k, v in row.items() if k.endswith("-square slices")}
        assert {n: c for n, c in sizes.items() if c} == {s["size"]: s["count"] for s in score["slices"]}
        assert 1 in sizes and 15 in sizes and 3 not in sizes  # every size that can score, no other
        assert int(row["slice points"]) == score["slice_total"]
        assert int(row["bonus points"]) == score["bonus_total"]
        assert row["topping bonuses"] == "; ".join(f"{' + '.join(b['toppings'])} ({b['points']} points)"
                                                  for b in score["topping_bonuses"])
        assert int(row["total"]) == player["total"]
    assert any(int(row["slice points"]) for row in rows), "the playout scored no slice: pick another seed"


def test_a_pizza_theory_csv_carries_every_round(client):
    """Each seat's colour and its toppings on the pizza after each round (the replay's rounds)."""
    table = _finished_table(client, "pizza_theory")
    code = table["code"]
    rows = _csv_rows(client, code)
    rounds = [k for k in rows[0] if k.startswith("round ")]
    assert rounds == [f"round {n}" for n in range(1, len(rounds) + 1)] and len(rounds) >= 2
    for row in rows:
        assert row["colour"] in ("red", "white", "green")
        assert row[rounds[-1]] == row["total"]  # the score is the toppings left after the last round
    assert [row["seat"] for row in rows] == ["1", "2"]
