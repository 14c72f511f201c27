"""A finished game as History and the exports show it (issue 12, item 5): the game's own title, and
the moment it finished, for every game."""
from __future__ import annotations

import random
import re
from datetime import datetime

import pytest

from companion.platform.registry import GAMES
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
    for game_id in GAMES:
        table = _finished_table(client, game_id)
        client.set_cookie(f"host_{table['code']}", table["host_token"])  # /history lists this browser's tables
    page = client.get("/history").get_data(as_text=True)
    shown = re.findall(r"<strong>([^<]+)</strong> · table", page)
    assert sorted(shown) == sorted(game.title for game in GAMES.values())
    assert "Dicez" not in page
