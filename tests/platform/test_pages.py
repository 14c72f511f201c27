"""Phones and the table view through the HTML pages (forms work as plain POSTs)."""
from __future__ import annotations

import pytest

from companion.platform.web.pages import path_on_this_site
from tests.helpers import csrf_from, invite, join_seat, log, new_table, post_entry, start_table_page

HTMX = {"HX-Request": "true"}


def score_form(csrf, dice, box):
    form = {f"d{i}": v for i, v in enumerate(dice)}
    form.update(category=box, csrf_token=csrf)
    return form


def test_host_starts_a_table_from_the_home_page(client):
    csrf = csrf_from(client.get("/").get_data(as_text=True))
    resp = client.post("/tables", data={"game": "dicez", "player0": "Ann", "player1": "Ben", "csrf_token": csrf})
    assert resp.status_code == 303
    host_url = resp.headers["Location"]
    page = client.get(host_url)
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    code = host_url.split("/")[2]
    assert f"/t/{code}" in html and "qr.svg" in html
    qr = client.get(f"/t/{code}/qr.svg")
    assert qr.mimetype == "image/svg+xml" and qr.get_data(as_text=True).startswith("<svg")
    assert "HttpOnly" in resp.headers["Set-Cookie"]


def test_create_form_refuses_a_table_without_players(client):
    csrf = csrf_from(client.get("/").get_data(as_text=True))
    resp = client.post("/tables", data={"game": "dicez", "csrf_token": csrf})
    assert resp.status_code == 400
    assert "players" in resp.get_data(as_text=True)


def test_join_picks_a_free_seat_and_sets_an_httponly_cookie(client, app):
    table = new_table(client, seat_tokens=False)
    invite(client, table)
    page = client.get(f"/t/{table['code']}")
    csrf = csrf_from(page.get_data(as_text=True))
    resp = client.post(f"/t/{table['code']}/join", data={"seat": 1, "csrf_token": csrf})
    assert resp.status_code == 303 and resp.headers["Location"].endswith(f"/t/{table['code']}/s/1")
    cookie = resp.headers["Set-Cookie"]
    assert f"seat_{table['code']}=" in cookie and "HttpOnly" in cookie
    assert client.get(f"/t/{table['code']}/s/1").status_code == 200
    # another phone cannot take the same seat nor open its sheet
    other = app.test_client()
    invite(other, table)
    csrf2 = csrf_from(other.get(f"/t/{table['code']}").get_data(as_text=True))
    assert other.post(f"/t/{table['code']}/join", data={"seat": 1, "csrf_token": csrf2}).status_code == 409
    assert other.get(f"/t/{table['code']}/s/1").status_code == 403


def test_plain_post_scores_without_javascript(client):
    table = new_table(client)
    csrf = join_seat(client, table["code"], 0)
    resp = client.post(f"/t/{table['code']}/s/0/entries", data=score_form(csrf, [4, 4, 6, 5, 4], "fours"))
    assert resp.status_code == 303
    page = client.get(resp.headers["Location"]).get_data(as_text=True)
    assert 'data-testid="box-fours">12<' in page
    assert log(client, table["code"])[0]["category"] == "fours"


def test_rejected_entry_shows_the_reason_and_saves_nothing(client):
    table = new_table(client)
    csrf = join_seat(client, table["code"], 0)
    client.post(f"/t/{table['code']}/s/0/entries", data=score_form(csrf, [4, 4, 6, 5, 4], "fours"))
    before = log(client, table["code"])
    resp = client.post(f"/t/{table['code']}/s/0/entries", data=score_form(csrf, [4, 4, 4, 5, 4], "fours"),
                       headers=HTMX)
    assert resp.status_code == 422
    html = resp.get_data(as_text=True)
    assert 'role="alert"' in html and "Fours" in html and 'id="sheet"' in html
    assert log(client, table["code"]) == before
    # missing dice in a plain POST: the whole page comes back with the reason
    resp = client.post(f"/t/{table['code']}/s/0/entries", data={"category": "chance", "csrf_token": csrf})
    assert resp.status_code == 422 and "<html" in resp.get_data(as_text=True)
    assert log(client, table["code"]) == before


def test_preview_shows_what_every_open_box_would_score(client):
    table = new_table(client)
    csrf = join_seat(client, table["code"], 0)
    form = {f"d{i}": v for i, v in enumerate([3, 2, 3, 4, 5])}
    form["csrf_token"] = csrf
    html = client.post(f"/t/{table['code']}/s/0/preview", data=form, headers=HTMX).get_data(as_text=True)
    assert 'data-testid="score-small_straight"' in html and ">30</button>" in html
    assert 'aria-label="Score 40 in Large Straight"' not in html  # 3-2-3-4-5 is not a large straight
    assert 'aria-label="Score 0 in Large Straight"' in html
    assert 'aria-label="Score 17 in Chance"' in html


def test_state_changing_requests_need_the_csrf_token(client):
    table = new_table(client)
    join_seat(client, table["code"], 0)
    resp = client.post(f"/t/{table['code']}/s/0/entries", data=score_form("forged", [1, 1, 1, 1, 1], "dicez"))
    assert resp.status_code == 400
    assert log(client, table["code"]) == []


def test_poll_is_empty_until_something_changes(client):
    table = new_table(client)
    code = table["code"]
    assert client.get(f"/t/{code}/poll?v=1.0.0").status_code == 204
    assert client.get(f"/t/{code}/poll?v=1.0.0").get_data() == b""
    post_entry(client, table, 0, kind="score", dice=[2, 2, 2, 2, 2], category="dicez")
    resp = client.get(f"/t/{code}/poll?v=1.0.0")
    assert resp.status_code == 200 and resp.headers["HX-Trigger"] == "table-changed"
    assert resp.get_data(as_text=True) == "1.1.0"
    assert client.get(f"/t/{code}/poll?v=1.1.0").status_code == 204
    # a player taking a seat is news too (the host screen shows who has joined)
    join_seat(client, code, 0)
    assert client.get(f"/t/{code}/poll?v=1.1.0").status_code == 200
    assert client.get(f"/t/{code}/poll?v=1.1.1").status_code == 204


def test_a_rematch_reloads_every_page(client):
    table = new_table(client)
    from tests.platform.test_api import play_whole_game
    play_whole_game(client, table)
    client.post(f"/api/tables/{table['code']}/rematch", headers={"Authorization": f"Bearer {table['host_token']}"})
    resp = client.get(f"/t/{table['code']}/poll?v=1.26.0")
    assert resp.headers.get("HX-Refresh") == "true"


def test_table_view_shows_every_sheet(client):
    table = new_table(client, ["Ann", "Ben", "Cy"], options={"turn_order": False})  # free play: Cy goes first
    post_entry(client, table, 2, kind="score", dice=[6, 6, 6, 6, 6], category="dicez")
    html = client.get(f"/t/{table['code']}/view").get_data(as_text=True)
    assert "Cy" in html and 'data-testid="view-total-2">50<' in html


def test_seat_handover_moves_the_seat_to_a_new_phone(client, app):
    code = start_table_page(client, player0="Ann", player1="Ben")
    old_phone = app.test_client()
    join_seat(old_phone, code, 0)
    assert old_phone.get(f"/t/{code}/s/0").status_code == 200
    csrf = csrf_from(client.get(f"/t/{code}/seats/0/move").get_data(as_text=True))
    page = client.post(f"/t/{code}/seats/0/handover", data={"csrf_token": csrf}).get_data(as_text=True)
    link = page.split(f"/t/{code}/handover/")[1].split('"')[0]
    new_phone = app.test_client()
    csrf_new = csrf_from(new_phone.get(f"/t/{code}/handover/{link}").get_data(as_text=True))
    assert new_phone.post(f"/t/{code}/handover/{link}", data={"csrf_token": csrf_new}).status_code == 303
    assert new_phone.get(f"/t/{code}/s/0").status_code == 200
    moved = old_phone.get(f"/t/{code}/s/0")
    assert moved.status_code == 410 and "seat moved to another phone" in moved.get_data(as_text=True)
    # only the host may hand seats over
    assert old_phone.post(f"/t/{code}/seats/1/handover", data={"csrf_token": csrf}).status_code in (400, 403)


def test_pass_and_play_lets_the_host_device_fill_every_seat(client):
    csrf = csrf_from(client.get("/").get_data(as_text=True))
    resp = client.post("/tables", data={"game": "dicez", "player0": "Ann", "player1": "Ben",
                                        "pass_and_play": "1", "csrf_token": csrf})
    code = resp.headers["Location"].split("/")[2]
    for seat, dice in ((0, [1, 1, 1, 1, 2]), (1, [2, 2, 2, 3, 3])):
        resp = client.post(f"/t/{code}/s/{seat}/entries", data=score_form(csrf, dice, "chance"))
        assert resp.status_code == 303
    totals = [p["total"] for p in client.get(f"/api/tables/{code}").get_json()["players"]]
    assert totals == [6, 12]


def test_undo_button_takes_back_my_last_entry(client):
    table = new_table(client)
    csrf = join_seat(client, table["code"], 0)
    client.post(f"/t/{table['code']}/s/0/entries", data=score_form(csrf, [5, 5, 5, 5, 1], "fives"))
    resp = client.post(f"/t/{table['code']}/s/0/undo", data={"csrf_token": csrf}, headers=HTMX)
    assert resp.status_code == 200 and 'data-testid="box-fives"' not in resp.get_data(as_text=True)
    assert [e["kind"] for e in log(client, table["code"])] == ["score", "undo"]


def test_unknown_pages_say_what_is_wrong(client):
    assert client.get("/t/ZZZZZZ").status_code == 404
    assert "no table" in client.get("/t/ZZZZZZ").get_data(as_text=True)
    table = new_table(client)
    assert client.get(f"/t/{table['code']}/s/7").status_code == 404
    assert client.get(f"/t/{table['code']}/games/5/export.json").status_code == 404


def test_roll_by_roll_sheet_records_rolls_and_held_dice(client):  # DZ roll-by-roll option
    table = new_table(client, options={"roll_by_roll": True})
    code = table["code"]
    csrf = join_seat(client, code, 0)
    url = f"/t/{code}/s/0/entries"

    def roll(dice, held=()):
        form = {f"d{i}": v for i, v in enumerate(dice)}
        form.update({f"hold{i}": "1" for i in held}, action="roll", csrf_token=csrf)
        return client.post(url, data=form, headers=HTMX)

    assert roll([6, 6, 2, 3, 1]).status_code == 200
    page = client.get(f"/t/{code}/s/0").get_data(as_text=True)
    assert "Roll 1 of 3" in page
    assert 'aria-label="Die 1: 6"' in page  # the last roll is on the slots for the next one
    # a held die must keep its value
    resp = roll([5, 6, 2, 3, 1], held=(0, 1))
    assert resp.status_code == 422 and "held" in resp.get_data(as_text=True)
    assert roll([6, 6, 6, 4, 2], held=(0, 1)).status_code == 200
    assert roll([6, 6, 6, 6, 5], held=(0, 1, 2)).status_code == 200
    resp = roll([6, 6, 6, 6, 6], held=(0, 1, 2, 3))
    assert resp.status_code == 422 and "3 times" in resp.get_data(as_text=True)
    # scoring takes the last roll
    resp = client.post(url, data={"category": "sixes", "csrf_token": csrf}, headers=HTMX)
    assert resp.status_code == 200 and 'data-testid="box-sixes">24<' in resp.get_data(as_text=True)
    assert [e["kind"] for e in log(client, code)] == ["roll", "roll", "roll", "score"]


def test_a_double_tap_scores_once(client):
    table = new_table(client)
    csrf = join_seat(client, table["code"], 0)
    page = client.get(f"/t/{table['code']}/s/0").get_data(as_text=True)
    key = page.split('name="key" value="')[1].split('"')[0]
    form = {**score_form(csrf, [2, 2, 2, 2, 5], "twos"), "key": key}
    first = client.post(f"/t/{table['code']}/s/0/entries", data=form, headers=HTMX)
    again = client.post(f"/t/{table['code']}/s/0/entries", data=form, headers=HTMX)
    assert first.status_code == again.status_code == 200
    assert 'data-testid="box-twos">8<' in again.get_data(as_text=True)
    assert len(log(client, table["code"])) == 1


def test_host_starts_the_rematch_from_a_finished_sheet(client, app):
    from tests.platform.test_api import play_whole_game
    table = new_table(client)
    code = table["code"]
    client.set_cookie(f"host_{code}", table["host_token"])
    csrf = join_seat(client, code, 0)
    play_whole_game(client, table)
    page = client.get(f"/t/{code}/s/0").get_data(as_text=True)
    assert 'data-testid="game-over"' in page and 'data-testid="rematch"' in page
    player = app.test_client()
    join_seat(player, code, 1)
    assert 'data-testid="rematch"' not in player.get(f"/t/{code}/s/1").get_data(as_text=True)
    resp = client.post(f"/t/{code}/rematch", data={"csrf_token": csrf, "next": f"/t/{code}/s/0"})
    assert resp.status_code == 303 and resp.headers["Location"] == f"/t/{code}/s/0"
    state = client.get(f"/api/tables/{code}").get_json()
    assert state["game_no"] == 2 and state["finished"] is False


def test_after_a_rematch_only_a_page_of_this_site_is_followed(client):
    from tests.platform.test_api import play_whole_game
    table = new_table(client)
    code = table["code"]
    client.set_cookie(f"host_{code}", table["host_token"])
    csrf = join_seat(client, code, 0)
    play_whole_game(client, table)
    # a browser drops the tab, so "/<tab>/evil.example" would send the host to another site
    resp = client.post(f"/t/{code}/rematch", data={"csrf_token": csrf, "next": "/\t/evil.example"})
    assert resp.status_code == 303 and resp.headers["Location"] == f"/t/{code}/host"


@pytest.mark.parametrize("elsewhere", ["//evil.example", "/\t/evil.example", "/\n/evil.example", "/\\evil.example",
                                       "\\/evil.example", "https://evil.example/", " //evil.example", "/\u3000/evil",
                                       "evil.example", "", None])
def test_a_rematch_next_that_could_lead_to_another_site_is_not_followed(elsewhere):
    assert path_on_this_site(elsewhere) is None


def test_a_rematch_next_on_this_site_is_followed():
    assert path_on_this_site("/t/ACDEFG/s/0?undone=1") == "/t/ACDEFG/s/0?undone=1"


def test_a_tap_kept_offline_from_an_earlier_game_is_not_saved_in_the_rematch(client):
    from tests.platform.test_api import play_whole_game
    table = new_table(client)
    code = table["code"]
    client.set_cookie(f"host_{code}", table["host_token"])
    csrf = join_seat(client, code, 0)
    # a phone that kept taps offline names the game they were made in (static/app.js adds game_no)
    kept = {**score_form(csrf, [3, 3, 3, 1, 2], "threes"), "game_no": "1"}
    play_whole_game(client, table)
    client.post(f"/t/{code}/rematch", data={"csrf_token": csrf})
    resp = client.post(f"/t/{code}/s/0/entries", data=kept, headers=HTMX)
    assert resp.status_code == 409 and "earlier game" in resp.get_data(as_text=True)
    assert log(client, code) == []
    resp = client.post(f"/t/{code}/s/0/entries", data={**kept, "game_no": "2"}, headers=HTMX)
    assert resp.status_code == 200 and [e["category"] for e in log(client, code)] == ["threes"]
