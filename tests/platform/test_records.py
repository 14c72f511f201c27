"""A player's record across games (issue 13 item 4): the same name at different tables, case and
spacing aside; per game played, won, average and best; each game's own figures (Game.record)."""
from __future__ import annotations

import pytest
from sqlalchemy import delete, update

from companion.platform.store.schema import create_schema, games_t, player_games_t
from tests.helpers import new_table, post_entry

# DiceZ dice for each box, in sheet order: GOOD fills the upper section to 63 (bonus), BAD scores 18
GOOD = [([1, 1, 1, 2, 3], "ones"), ([2, 2, 2, 1, 3], "twos"), ([3, 3, 3, 1, 2], "threes"),
        ([4, 4, 4, 1, 2], "fours"), ([5, 5, 5, 1, 2], "fives"), ([6, 6, 6, 1, 2], "sixes"),
        ([6, 6, 6, 1, 2], "three_of_a_kind"), ([6, 6, 6, 6, 1], "four_of_a_kind"),
        ([2, 2, 3, 3, 3], "full_house"), ([1, 2, 3, 4, 6], "small_straight"),
        ([1, 2, 3, 4, 5], "large_straight"), ([4, 4, 4, 4, 4], "dicez"), ([6, 6, 6, 6, 6], "chance")]
GOOD_TOTAL = 63 + 35 + 21 + 25 + 25 + 30 + 40 + 50 + 30  # 319
BAD = [([1, 1, 2, 2, 3], box) for _, box in GOOD]
BAD_TOTAL = 2 + 4 + 3 + 9  # ones, twos, threes and chance score; nothing else fits


def play_dicez(client, names, plans):
    """A DiceZ table whose seats fill their sheets with `plans` (one list of (dice, box) per seat)."""
    table = new_table(client, players=names)
    for turn in range(13):
        for seat, plan in enumerate(plans):
            dice, box = plan[turn]
            assert post_entry(client, table, seat, kind="score", dice=dice, category=box).status_code == 201
    return table


def play_score_pad(client, names, rounds, wins="highest"):
    table = new_table(client, players=names, game="score_pad", options={"wins": wins, "rounds": len(rounds)})
    for points in rounds:
        for seat, p in enumerate(points):
            assert post_entry(client, table, seat, kind="score", points=p).status_code == 201
    return table


def test_a_name_collects_its_games_at_every_table_case_and_spacing_aside(client):
    play_dicez(client, ["Ann Lee", "Ben"], [GOOD, BAD])          # Ann wins with 319
    play_dicez(client, ["Cy", "  ann   LEE "], [GOOD, BAD])      # Ann loses with 18
    play_dicez(client, ["ANN lee"], [GOOD])                       # alone: a win with 319
    body = client.get("/api/players/ann%20lee").get_json()
    assert body["name"] == "ANN lee"  # the latest spelling
    assert body["games"] == {"dicez": {"played": 3, "won": 2, "average": round((2 * GOOD_TOTAL + BAD_TOTAL) / 3, 2),
                                       "best": GOOD_TOTAL}}
    assert client.get("/api/players/  Ann  LEE").get_json() == body
    ben = client.get("/api/players/ben").get_json()
    assert ben["games"]["dicez"] == {"played": 1, "won": 0, "average": BAD_TOTAL, "best": BAD_TOTAL}


def test_a_name_never_seen_is_404_on_the_api_and_the_page(client):
    play_dicez(client, ["Ann"], [BAD])
    resp = client.get("/api/players/Zed")
    assert resp.status_code == 404 and "error" in resp.get_json()
    assert client.get("/players/Zed").status_code == 404
    new_table(client, players=["Dee", "Eve"])  # seated, but no game finished yet
    assert client.get("/api/players/Dee").status_code == 404


def test_the_page_charts_dicez_boxes_and_the_upper_bonus_rate(client):
    play_dicez(client, ["Ann"], [GOOD])
    play_dicez(client, ["ann"], [BAD])
    page = client.get("/players/ann")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert 'data-testid="record-dicez"' in html
    # box averages over the two games: sixes (18 + 0) / 2, chance (30 + 9) / 2; the bonus came once in two
    assert 'data-testid="chart-dicez-2"' in html and "Box averages" in html
    assert 'data-value="9.0"' in html and 'data-value="19.5"' in html
    assert "Upper bonus rate (%)" in html and 'data-value="50.0"' in html
    assert "<script" not in html.split("<main", 1)[-1].split("</main>")[0]


def test_best_follows_who_wins_in_a_lowest_wins_score_pad(client):
    play_score_pad(client, ["Ann", "Ben"], [(10, 3), (5, 4)], wins="lowest")  # Ann 15, Ben 7 wins
    play_score_pad(client, ["Ann", "Ben"], [(1, 30)], wins="lowest")          # Ann 1 wins
    ann = client.get("/api/players/ann").get_json()["games"]["score_pad"]
    assert ann == {"played": 2, "won": 1, "average": 8.0, "best": 1}


def test_records_of_games_finished_before_records_were_kept(client, store):
    """Older results have no "records" and the index was empty: both come back from the log."""
    play_dicez(client, ["Ann"], [GOOD])
    before = client.get("/players/ann").get_data(as_text=True)
    with store.engine.begin() as conn:
        conn.execute(delete(player_games_t))
        row = conn.execute(games_t.select()).mappings().one()
        old = {k: v for k, v in row["result"].items() if k != "records"}
        conn.execute(update(games_t).values(result=old))
    assert client.get("/api/players/ann").status_code == 404  # nothing indexed
    create_schema(store.engine)  # what the next start does
    assert client.get("/api/players/ann").get_json()["games"]["dicez"]["played"] == 1
    after = client.get("/players/ann").get_data(as_text=True)
    assert 'data-value="18.0"' in after and 'data-value="18.0"' in before  # sixes, from the replay too


def test_history_and_the_final_screens_link_each_player(client):
    table = play_dicez(client, ["Ann", "Ben"], [GOOD, BAD])
    client.set_cookie(f"host_{table['code']}", table["host_token"])  # /history lists this browser's tables
    history = client.get("/history").get_data(as_text=True)
    assert 'href="/players/Ann"' in history and 'href="/players/Ben"' in history
    view = client.get(f"/t/{table['code']}/view").get_data(as_text=True)
    assert 'data-testid="finale"' in view and 'href="/players/Ann"' in view


@pytest.mark.parametrize("game_id", ["dice_and_slice", "pizza_theory"])
def test_each_game_fills_its_own_charts(game_id):
    """DS slices by size and PT wins by start position come from the game's record, per finished seat."""
    import random

    from companion.platform.core.registry import GAMES
    from tests.contract.playout import playout

    game = GAMES[game_id]
    state, _ = playout(game, 2 if game_id == "pizza_theory" else 3, random.Random(7))
    assert game.finished(state)
    for seat in range(len(game.totals(state))):
        rec = game.record(state, seat)
        if game_id == "dice_and_slice":
            from companion.games.dice_and_slice.rules import breakdown
            counts = {str(r["size"]): r["count"] for r in breakdown(state, seat)["slices"]}
            bars = rec["Slices per game, by size"]
            assert {k: v for k, v in bars.items() if v} == counts
            assert "2" not in bars and "1" in bars and "15" in bars  # a 1 x 2 strip never scores
        else:
            (label, value), = rec["Wins by start position (%)"].items()
            assert label == ("1st", "2nd")[seat]  # first_seat 0: seat 0 starts
            assert value == (100 if seat in game.winners(state) else 0)
