"""The coach at a table: its API, the sheet's panel, the host screen and the after-game review,
each saying only what the table's coach option allows."""
from __future__ import annotations

import re

import pytest

from companion import create_app
from companion.games.dicez import coach_tables
from tests.helpers import bearer, join_seat, new_table, post_entry, start_table_page

# a whole solitaire game: (dice, box); the last turn throws away five 6s in Chance
GAME = [([1, 1, 1, 2, 3], "ones"), ([2, 2, 2, 1, 3], "twos"), ([3, 3, 3, 1, 2], "threes"),
        ([4, 4, 4, 1, 2], "fours"), ([5, 5, 5, 1, 2], "fives"), ([6, 6, 6, 1, 2], "sixes"),
        ([6, 6, 6, 5, 5], "three_of_a_kind"), ([6, 6, 6, 6, 5], "four_of_a_kind"),
        ([2, 2, 3, 3, 3], "full_house"), ([1, 2, 3, 4, 6], "small_straight"),
        ([2, 3, 4, 5, 6], "large_straight"), ([6, 6, 6, 6, 6], "chance"), ([1, 1, 2, 2, 4], "dicez")]


@pytest.fixture
def app(tmp_path, coach_dir):
    app = create_app({"DATABASE_URL": f"sqlite:///{tmp_path / 'coach.sqlite'}", "TESTING": True,
                      "SECRET_KEY": "test-secret", "RATELIMIT_ENABLED": False, "DICEZ_COACH_DIR": str(coach_dir)})
    yield app
    app.extensions["store"].dispose()


@pytest.fixture
def client(app):
    return app.test_client()


def ask(client, code, query):
    resp = client.get(f"/api/tables/{code}/coach?{query}")
    return resp.status_code, resp.get_json()


def play(client, table, seat=0, turns=GAME):
    for dice, box in turns:
        resp = post_entry(client, table, seat, kind="score", dice=dice, category=box)
        assert resp.status_code == 201, resp.get_json()


def test_api_gives_the_expected_total_every_open_box_the_best_and_the_hold(client):
    table = new_table(client, players=["Ann"], options={"coach": "live"})
    status, answer = ask(client, table["code"], "seat=0")
    assert status == 200 and answer["expected_total"] == pytest.approx(245.87, abs=0.01)
    assert "boxes" not in answer
    play(client, table, turns=GAME[:1])
    status, answer = ask(client, table["code"], "seat=0&dice=6,6,6,6,6")
    assert status == 200 and answer["best"] == "dicez"
    assert {b["category"] for b in answer["boxes"]} == set(rules_boxes()) - {"ones"}
    assert all(set(b) == {"category", "score", "expected_final"} for b in answer["boxes"])
    status, answer = ask(client, table["code"], "seat=0&dice=1,2,3,4,6&roll=1")
    assert answer["hold"] == [0, 1, 2, 3]


def rules_boxes():
    from companion.games.dicez.rules import BOXES
    return BOXES


@pytest.mark.parametrize("query, status, says", [
    ("seat=0&dice=1,2,3", 400, "exactly 5 dice"),
    ("seat=0&dice=1,2,3,4,7", 422, "1 to 6"),
    ("seat=0&dice=one,2,3,4,5", 400, "whole numbers"),
    ("seat=0&dice=1,2,3,4,5&roll=3", 400, '"roll"'),
    ("seat=0&roll=1", 400, "dice of that roll"),
    ("seat=9", 400, '"seat"'),
    ("", 400, "seat"),
])
def test_bad_questions_get_a_reason_and_no_answer(client, query, status, says):
    table = new_table(client, players=["Ann", "Ben"], options={"coach": "live"})
    got, answer = ask(client, table["code"], query)
    assert got == status and says in answer["error"] and "expected_total" not in answer


def test_a_table_whose_coach_is_off_gets_409_with_the_reason(client):
    table = new_table(client)
    status, answer = ask(client, table["code"], "seat=0&dice=6,6,6,6,6")
    assert status == 409 and "off" in answer["error"] and "boxes" not in answer


def test_after_the_game_mode_says_nothing_during_play_then_reviews_every_turn(client):
    table = new_table(client, players=["Ann"], options={"coach": "after_game"})
    play(client, table, turns=GAME[:-1])
    status, answer = ask(client, table["code"], "seat=0&dice=6,6,6,6,6")
    assert status == 409 and "after the game" in answer["error"]
    assert client.get(f"/t/{table['code']}/coach").status_code == 409
    play(client, table, turns=GAME[-1:])
    status, answer = ask(client, table["code"], "seat=0")
    assert status == 200 and answer["expected_total"] == client.get(
        f"/api/tables/{table['code']}").get_json()["players"][0]["total"]
    page = client.get(f"/t/{table['code']}/coach").get_data(as_text=True)
    lost = float(re.search(r'data-testid="coach-lost-0">([\d.]+)<', page).group(1))
    assert lost > 10  # five 6s in Chance instead of DiceZ costs far more than rounding
    assert re.search(r"/13</td>", page)  # thirteen box choices reviewed


def test_the_review_finds_the_worst_turn(app, client):
    from companion.games.dicez import coach_web
    from companion.platform.web.context import play_context, screen_viewer
    from flask import g

    table = new_table(client, players=["Ann"], options={"coach": "after_game"})
    play(client, table)
    with app.test_request_context(f"/t/{table['code']}/coach"):
        app.preprocess_request()
        ctx = play_context(screen_viewer())
        decisions, summary = coach_web.review_of(ctx, coach_web.table_status(ctx).table)
    worst = max(decisions, key=lambda d: d.lost)
    assert (worst.chosen, worst.best, worst.dice) == ("chance", "dicez", (6, 6, 6, 6, 6))
    assert summary[0]["decisions"] == 13 and summary[0]["lost"] == pytest.approx(sum(d.lost for d in decisions), abs=0.01)


def test_roll_by_roll_review_weighs_the_held_dice_too(client):
    table = new_table(client, players=["Ann"], options={"coach": "live", "roll_by_roll": True})
    post_entry(client, table, 0, kind="roll", dice=[6, 6, 6, 1, 2], held=[])
    post_entry(client, table, 0, kind="roll", dice=[3, 4, 6, 1, 2], held=[3, 4])  # kept 1 and 2
    post_entry(client, table, 0, kind="score", category="chance")
    page = client.get(f"/t/{table['code']}/coach").get_data(as_text=True)
    assert "1 2 / 6 6 6" in page  # kept 1 and 2 where the three 6s were best


def test_live_sheet_panel_marks_the_best_box(app):
    host = app.test_client()
    code = start_table_page(host, player0="Ann", player1="Ben", dicez_coach="live")
    phone = app.test_client()
    join_seat(phone, code, 0)
    page = phone.get(f"/t/{code}/s/0?d0=6&d1=6&d2=6&d3=6&d4=6").get_data(as_text=True)
    assert 'data-testid="coach"' in page
    best = re.search(r'data-testid="coach-dicez">\s*<th scope="row">([^<]*)<', page).group(1)
    assert best.startswith("★")
    fragment = phone.get(f"/t/{code}/s/0/coach?d0=1&d1=2&d2=3&d3=4&d4=5").get_data(as_text=True)
    assert re.search(r'data-testid="coach-large_straight">\s*<th scope="row">★', fragment)


def test_after_game_sheet_shows_no_advice_during_play(app):
    host = app.test_client()
    code = start_table_page(host, player0="Ann", dicez_coach="after_game")
    phone = app.test_client()
    join_seat(phone, code, 0)
    for url in (f"/t/{code}/s/0?d0=6&d1=6&d2=6&d3=6&d4=6", f"/t/{code}/s/0/coach?d0=6&d1=6&d2=6&d3=6&d4=6"):
        page = phone.get(url).get_data(as_text=True)
        assert "coach-expected" not in page and "coach-dicez" not in page and "Expected" not in page


def test_coach_off_draws_no_panel(app):
    host = app.test_client()
    code = start_table_page(host, player0="Ann")
    phone = app.test_client()
    join_seat(phone, code, 0)
    assert 'data-testid="coach"' not in phone.get(f"/t/{code}/s/0").get_data(as_text=True)
    assert 'data-testid="coach-host"' not in host.get(f"/t/{code}/host").get_data(as_text=True)


def test_the_host_screen_shows_the_build_progress_until_the_table_is_ready(tmp_path, coach_dir):
    empty = tmp_path / "unbuilt"
    app = create_app({"DATABASE_URL": f"sqlite:///{tmp_path / 'p.sqlite'}", "TESTING": True,
                      "SECRET_KEY": "test-secret", "RATELIMIT_ENABLED": False, "DICEZ_COACH_DIR": str(empty)})
    # a build under way (another process writes this file as it goes): no second build starts
    marker = coach_tables.path_for(empty, {}).with_suffix(".progress")
    empty.mkdir()
    marker.write_text("0.42")
    host = app.test_client()
    code = start_table_page(host, player0="Ann", dicez_coach="live")
    page = host.get(f"/t/{code}/host").get_data(as_text=True)
    assert 'data-testid="coach-progress"' in page and "42%" in page
    fragment = host.get(f"/t/{code}/coach/progress").get_data(as_text=True)
    assert "42%" in fragment and 'hx-trigger="every 1s"' in fragment
    status, answer = ask(app.test_client(), code, "seat=0&dice=1,2,3,4,5")
    assert status == 503 and answer["progress"] == pytest.approx(0.42)
    # the built table arrives: the host screen says it is ready and stops asking
    coach_tables.path_for(empty, {}).write_bytes(coach_tables.path_for(coach_dir, {}).read_bytes())
    marker.unlink()
    fragment = host.get(f"/t/{code}/coach/progress").get_data(as_text=True)
    assert 'data-testid="coach-ready"' in fragment and "every 1s" not in fragment
    assert app.test_client().get(f"/t/{code}/coach/progress").status_code == 403
    app.extensions["store"].dispose()


def test_other_games_have_no_coach(client):
    table = new_table(client, game="score_pad", players=["Ann"])
    status, answer = ask(client, table["code"], "seat=0")
    assert status == 404 and "DiceZ" in answer["error"]
