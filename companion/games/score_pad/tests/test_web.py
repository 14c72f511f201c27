"""Score pad through the pages and the API: the start form, phones entering scores (plain POST and
htmx), the table view, undo, finish, rematch, history and exports. Rules SP-n: rules.md."""
from __future__ import annotations

import csv
import io
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import bearer, csrf_from, join_seat, log, new_table, post_entry

HTMX = {"HX-Request": "true"}
GAME = "score_pad"


def start_from_the_form(client, names=("Ann", "Ben"), **fields):
    """The host fills in the start page; returns the response to the form."""
    csrf = csrf_from(client.get("/").get_data(as_text=True))
    data = {"game": GAME, "csrf_token": csrf, **{f"player{i}": n for i, n in enumerate(names)}}
    data.update({f"score_pad_{k}": v for k, v in fields.items()})
    return client.post("/tables", data=data)


def phones(app, code, seats):
    """A phone per seat, each having joined its seat: [(client, csrf token)]."""
    out = []
    for seat in range(seats):
        phone = app.test_client()
        out.append((phone, join_seat(phone, code, seat)))
    return out


def enter(phone, code, seat, points, htmx=False, **extra):
    phone_client, csrf = phone
    return phone_client.post(f"/t/{code}/s/{seat}/entries", data={"points": points, "csrf_token": csrf, **extra},
                             headers=HTMX if htmx else {})


def api_state(client, code):
    return client.get(f"/api/tables/{code}").get_json()


def html(resp):
    return resp.get_data(as_text=True)


def said(resp):
    """The page with its white space squeezed, to find a sentence that wraps in the template."""
    return " ".join(html(resp).split())


def error_of(resp):
    found = re.search(r'data-testid="error">([^<]*)<', html(resp))
    return found.group(1) if found else None


def pad_table(client, app, players=("Ann", "Ben"), **options):
    table = new_table(client, list(players), game=GAME, options=options)
    return table, phones(app, table["code"], len(players))


# --- starting a table ------------------------------------------------------------------------


def test_the_start_page_offers_score_pad_and_its_options(client):  # SP-2
    page = html(client.get("/"))
    assert 'value="score_pad"' in page and "Score pad" in page and "1–12 players" in page
    for field in ("score_pad_wins", "score_pad_rounds", "score_pad_target"):
        assert f'name="{field}"' in page


def test_host_starts_a_score_pad_with_options_from_the_start_page(client):  # SP-2
    resp = start_from_the_form(client, ["Ann", "Ben", "Cleo"], wins="lowest", rounds="3", target="100")
    assert resp.status_code == 303
    code = resp.headers["Location"].split("/")[2]
    state = api_state(client, code)
    assert state["game"] == GAME and [p["name"] for p in state["players"]] == ["Ann", "Ben", "Cleo"]
    assert (state["view"]["wins"], state["view"]["rounds"], state["view"]["target"]) == ("lowest", 3, 100)
    host_page = html(client.get(resp.headers["Location"]))
    assert "Score pad" in host_page


def test_blank_fields_start_an_open_game_where_the_highest_total_wins(client):  # SP-2
    resp = start_from_the_form(client, wins="highest", rounds="", target=" ")
    code = resp.headers["Location"].split("/")[2]
    view = api_state(client, code)["view"]
    assert (view["wins"], view["rounds"], view["target"]) == ("highest", None, None)


def test_the_start_page_refuses_bad_options_and_keeps_what_was_typed(client):  # SP-2
    for fields, message in [
        ({"rounds": "ten"}, "The number of rounds must be a whole number from 1 to 50, or left out; got &#39;ten&#39;."),
        ({"rounds": "0"}, "The number of rounds must be a whole number from 1 to 50, or left out; got 0."),
        ({"rounds": "2.5"}, "The number of rounds must be a whole number from 1 to 50"),
        ({"target": "-5"}, "The target score must be a whole number from 1 to 1000000, or left out; got -5."),
        ({"target": "99999999999999999999"}, "The target score must be a whole number from 1 to 1000000"),
        ({"wins": "most"}, "Who wins must be &#34;highest&#34; or &#34;lowest&#34;"),
    ]:
        resp = start_from_the_form(client, **fields)
        assert resp.status_code == 422, fields
        assert message in html(resp) and "Location" not in resp.headers
        assert "host_" not in resp.headers.get("Set-Cookie", "")
        name, value = next(iter(fields.items()))
        if name != "wins":
            assert f'name="score_pad_{name}"' in html(resp) and f'value="{value}"' in html(resp)


def test_twelve_players_fit_on_one_pad_and_thirteen_do_not(client):  # SP-1
    table = new_table(client, [f"P{i}" for i in range(12)], game=GAME)
    assert len(api_state(client, table["code"])["players"]) == 12
    resp = client.post("/api/tables", json={"game": GAME, "players": [f"P{i}" for i in range(13)]})
    assert resp.status_code == 400 and "1 to 12 players" in resp.get_json()["error"]
    # the start form takes up to twelve names too
    resp = start_from_the_form(client, [f"P{i}" for i in range(12)])
    assert resp.status_code == 303


def test_bad_options_through_the_api_are_refused(client):  # SP-2
    for options in ({"rounds": 0}, {"rounds": "5"}, {"target": 2.5}, {"wins": "most"}, {"extra": 1}, [1]):
        resp = client.post("/api/tables", json={"game": GAME, "players": ["Ann"], "options": options})
        assert 400 <= resp.status_code < 500 and resp.get_json()["error"], options


# --- entering scores ------------------------------------------------------------------------


def test_players_enter_scores_as_plain_posts(client, app):  # SP-1 SP-4
    table, (ann, ben) = pad_table(client, app)
    code = table["code"]
    resp = enter(ann, code, 0, "12")
    assert resp.status_code == 303 and resp.headers["Location"].endswith(f"/t/{code}/s/0")
    page = html(ann[0].get(resp.headers["Location"]))
    assert 'data-testid="my-total">12<' in page and 'data-testid="cell-1-0">12<' in page
    assert 'data-testid="entered"' in page and "Waiting for Ben." in page
    assert enter(ben, code, 1, " -3 ").status_code == 303
    page = html(ben[0].get(f"/t/{code}/s/1"))
    assert 'data-testid="total-0">12<' in page and 'data-testid="total-1">-3<' in page
    assert "Round 2: your score" in page and "Leading after round 1: Ann." in page
    assert [(e["seat"], e["points"]) for e in log(client, code)] == [(0, 12), (1, -3)]


def test_a_typographic_minus_and_a_plus_sign_read_as_numbers(client, app):  # SP-3
    table, (ann, ben) = pad_table(client, app)
    assert enter(ann, table["code"], 0, "\u22127").status_code == 303
    assert enter(ben, table["code"], 1, "+4").status_code == 303
    assert [e["points"] for e in log(client, table["code"])] == [-7, 4]


def test_an_htmx_entry_answers_the_new_sheet_and_the_version_it_shows(client, app):  # SP-4
    table, (ann, _ben) = pad_table(client, app)
    resp = enter(ann, table["code"], 0, "8", htmx=True)
    assert resp.status_code == 200
    body = html(resp)
    assert body.lstrip().startswith('<section id="sheet"')
    assert 'data-testid="my-total">8<' in body and '<div id="live-seen" data-version="1.1.2" hidden hx-swap-oob="true">' in body
    assert "<html" not in body


def test_the_next_round_waits_until_the_round_is_complete(client, app):  # SP-5
    table, (ann, _ben) = pad_table(client, app)
    code = table["code"]
    enter(ann, code, 0, "5")
    for htmx in (False, True):
        resp = enter(ann, code, 0, "6", htmx=htmx)
        assert resp.status_code == 422
        assert "Round 1 is still open: a score for round 2 waits until every player has entered round 1." in html(resp)
    assert len(log(client, code)) == 1


def test_bad_numbers_are_refused_with_the_reason_and_save_nothing(client, app):  # SP-3
    table, (ann, _ben) = pad_table(client, app)
    code = table["code"]
    cases = {
        "abc": "A round score is a whole number from -100000 to 100000, such as 12, 0 or -5; got &#39;abc&#39;.",
        "2.5": "A round score is a whole number from -100000 to 100000, such as 12, 0 or -5; got &#39;2.5&#39;.",
        "1e3": "got &#39;1e3&#39;",
        "": "Enter your score for this round (a whole number, 0 if you scored nothing).",
        "100001": "A round score must be from -100000 to 100000; got 100001.",
        "-100001": "A round score must be from -100000 to 100000; got -100001.",
        "12345678901234567890": "A round score is a whole number from -100000 to 100000",
        "1_000": "got &#39;1_000&#39;",
        "٣": "A round score is a whole number",
    }
    for typed, message in cases.items():
        for htmx in (False, True):
            resp = enter(ann, code, 0, typed, htmx=htmx)
            assert resp.status_code == 422, (typed, htmx)
            assert message in (error_of(resp) or ""), (typed, htmx)
    assert log(client, code) == []


def test_the_api_tells_a_malformed_score_from_one_out_of_bounds(client):  # SP-3
    table = new_table(client, ["Ann", "Ben"], game=GAME)
    for points in (2.5, True, "7", None, [7]):
        resp = post_entry(client, table, 0, kind="score", points=points)
        assert resp.status_code == 400 and "A round score is a whole number" in resp.get_json()["error"]
    resp = post_entry(client, table, 0, kind="score", points=10**9)
    assert resp.status_code == 422 and "must be from -100000 to 100000" in resp.get_json()["error"]
    resp = post_entry(client, table, 0, kind="score")
    assert resp.status_code == 400 and "Enter your score" in resp.get_json()["error"]
    resp = post_entry(client, table, 0, kind="bid", points=3)
    assert resp.status_code == 422 and "no entry of kind 'bid'" in resp.get_json()["error"]
    assert log(client, table["code"]) == []
    assert post_entry(client, table, 0, kind="score", points=-100000).status_code == 201


def test_quick_buttons_change_the_number_without_saving_it(client, app):  # SP-3
    table, (ann, _ben) = pad_table(client, app)
    code = table["code"]
    phone, csrf = ann
    url = f"/t/{code}/s/0/preview"
    page = html(phone.post(url, data={"points": "7", "adjust": "+10", "csrf_token": csrf}))  # no JavaScript
    assert 'id="points" name="points" value="17"' in page and 'data-testid="total-after">17<' in page
    assert "<html" in page
    part = html(phone.post(url, data={"points": "7", "adjust": "neg", "csrf_token": csrf}, headers=HTMX))
    assert part.lstrip().startswith('<div id="entry-input"') and 'value="-7"' in part
    assert 'value="-10"' in html(phone.post(url, data={"points": "", "adjust": "-10", "csrf_token": csrf},
                                            headers=HTMX))
    assert 'value="1"' in html(phone.post(url, data={"adjust": "+1", "csrf_token": csrf}, headers=HTMX))
    assert log(client, code) == []


def test_the_preview_of_a_typed_number_is_the_rules_verdict(client, app):  # SP-3 SP-5
    table, (ann, _ben) = pad_table(client, app)
    code = table["code"]
    phone, csrf = ann
    url = f"/t/{code}/s/0/preview"
    part = html(phone.post(url, data={"points": "2.5", "csrf_token": csrf}, headers=HTMX))
    assert 'data-testid="refusal">A round score is a whole number' in part
    part = html(phone.post(url, data={"points": "100001", "csrf_token": csrf}, headers=HTMX))
    assert "A round score must be from -100000 to 100000; got 100001." in part
    post_entry(client, table, 1, kind="score", points=4)
    part = html(phone.post(url, data={"points": "30", "csrf_token": csrf}, headers=HTMX))
    assert 'data-testid="total-after">30<' in part


# --- undo -------------------------------------------------------------------------------------


def test_undo_takes_back_my_latest_score(client, app):  # SP-6
    table, (ann, _ben) = pad_table(client, app)
    code = table["code"]
    phone, csrf = ann
    enter(ann, code, 0, "40")
    resp = phone.post(f"/t/{code}/s/0/undo", data={"csrf_token": csrf})
    assert resp.status_code == 303
    page = html(phone.get(f"/t/{code}/s/0"))
    assert 'data-testid="my-total">0<' in page and "Round 1: your score" in page
    assert [e.get("undone", False) for e in log(client, code) if e["kind"] == "score"] == [True]
    enter(ann, code, 0, "4", htmx=True)
    assert api_state(client, code)["players"][0]["total"] == 4


def test_undo_is_refused_once_someone_entered_a_later_round(client, app):  # SP-6
    table, (ann, ben) = pad_table(client, app)
    code = table["code"]
    enter(ann, code, 0, "1")
    enter(ben, code, 1, "2")
    enter(ann, code, 0, "3")  # Ann is on round 2 already
    phone, csrf = ben
    resp = phone.post(f"/t/{code}/s/1/undo", data={"csrf_token": csrf}, headers=HTMX)
    assert resp.status_code == 422
    assert "Round 1 can&#39;t be changed any more: another player has already entered a score for round 2." in html(resp)
    assert len(log(client, code)) == 3


# --- the table view -----------------------------------------------------------------------------


def test_the_table_view_shows_the_grid_totals_leader_and_who_is_missing(client, app):  # SP-5 SP-12 SP-14
    table, (ann, ben, cleo) = pad_table(client, app, ["Ann", "Ben", "Cleo"], rounds=5)
    code = table["code"]
    for phone, seat, points in ((ann, 0, 10), (ben, 1, 25), (cleo, 2, -5), (ann, 0, 30)):
        enter(phone, code, seat, str(points))
    page = html(client.get(f"/t/{code}/view"))
    assert '<section id="board"' in page and 'hx-trigger="table-changed from:body"' in page
    for cell, value in (("1-0", 10), ("1-1", 25), ("1-2", -5), ("2-0", 30)):
        assert f'data-testid="view-cell-{cell}">{value}<' in page
    assert 'data-testid="view-cell-2-1"><span class="missing"' in page
    for seat, total in enumerate((40, 25, -5)):
        assert f'data-testid="view-total-{seat}">{total}<' in page
    assert "Round 2 of 5" in page and "Waiting for Ben and Cleo." in page
    assert "Leading after round 1: Ben." in page and "4 rounds to go" in page
    assert client.get(f"/t/{code}/board").get_data(as_text=True).lstrip().startswith("<section id=\"board\"")


def test_a_live_refresh_keeps_the_typed_number_and_asks_for_the_whole_sheet_when_its_stage_changed(client, app):  # SP-5
    table, (ann, ben) = pad_table(client, app)
    code = table["code"]
    phone, _csrf = ann
    url = f"/t/{code}/s/0/sheet"
    # Ann is typing 15 while Ben enters: her refresh previews her number and needs no reload
    post_entry(client, table, 1, kind="score", points=3)
    part = html(phone.get(url, query_string={"points": "15", "mode": "enter"}))
    assert 'data-testid="total-after">15<' in part and 'hx-trigger="load"' not in part
    # Ann had entered and waited; now the round is complete: her sheet asks for itself once
    enter(ann, code, 0, "15")
    enter(ben, code, 1, "1")
    part = html(phone.get(url, query_string={"mode": "wait"}))
    assert 'hx-trigger="load"' in part
    assert 'hx-trigger="load"' not in html(phone.get(url))


def test_pass_and_play_fills_every_seat_from_one_device(client):  # SP-4
    table = new_table(client, ["Ann", "Ben"], game=GAME, pass_and_play=True)
    code = table["code"]
    client.set_cookie(f"host_{code}", table["host_token"])
    csrf = csrf_from(html(client.get(f"/t/{code}/s/0")))
    for seat, points in ((0, "9"), (1, "11")):
        assert client.post(f"/t/{code}/s/{seat}/entries", data={"points": points, "csrf_token": csrf}).status_code == 303
    assert [p["total"] for p in api_state(client, code)["players"]] == [9, 11]


# --- the end, rematch, history, exports -------------------------------------------------------------


def test_finish_ends_an_open_game_between_rounds(client, app):  # SP-10 SP-11
    table, (ann, ben) = pad_table(client, app)
    code = table["code"]
    phone, csrf = ben
    enter(ann, code, 0, "5")
    assert 'data-testid="finish"' not in html(phone.get(f"/t/{code}/s/1"))  # mid-round: no finish
    resp = phone.post(f"/t/{code}/s/1/entries", data={"action": "finish", "csrf_token": csrf})
    assert resp.status_code == 422 and "Finish between rounds: round 1 still waits for 1 score." in html(resp)
    enter(ben, code, 1, "9")
    page = html(phone.get(f"/t/{code}/s/1"))
    assert 'data-testid="finish"' in page and "the highest total wins: Ben." in " ".join(page.split())
    resp = phone.post(f"/t/{code}/s/1/entries", data={"action": "finish", "csrf_token": csrf}, headers=HTMX)
    assert resp.status_code == 200
    body = html(resp)
    assert 'data-testid="game-over">Game over. Ben wins with 9.' in body and 'id="score-form"' not in body
    assert "Ben finished the game after round 1." in body
    state = api_state(client, code)
    assert state["finished"] and state["winners"] == [1] and state["waiting_for"] == []
    board = html(client.get(f"/t/{code}/board"))
    assert 'data-testid="winners">Final. Ben wins with 9.' in board


def test_a_fixed_game_ends_with_its_last_round_and_a_rematch_starts_a_fresh_pad(client, app):  # SP-7 SP-13
    table, (ann, ben) = pad_table(client, app, rounds=2, wins="lowest")
    code = table["code"]
    for phone, seat, points in ((ann, 0, 3), (ben, 1, 7), (ben, 1, 1), (ann, 0, 2)):
        assert enter(phone, code, seat, str(points)).status_code == 303
    page = html(ann[0].get(f"/t/{code}/s/0"))
    assert "All 2 rounds are played. The lowest total wins." in page and "Ann wins with 5." in page
    resp = enter(ann, code, 0, "1")
    assert resp.status_code == 422 and "The game is over" in html(resp)
    client.set_cookie(f"host_{code}", table["host_token"])
    host_csrf = csrf_from(html(client.get(f"/t/{code}/host")))
    resp = client.post(f"/t/{code}/rematch", data={"csrf_token": host_csrf})
    assert resp.status_code == 303
    state = api_state(client, code)
    assert state["game_no"] == 2 and not state["finished"] and (state["view"]["rounds"], state["view"]["wins"]) == (2, "lowest")
    assert [p["total"] for p in state["players"]] == [0, 0]
    assert enter(ann, code, 0, "4").status_code == 303


def test_a_one_round_game_ends_with_that_round(client):  # SP-7
    table = new_table(client, ["Cy"], game=GAME, options={"rounds": 1})
    assert post_entry(client, table, 0, kind="score", points=12).status_code == 201
    board = said(client.get(f"/t/{table['code']}/board"))
    assert "The round is played. The highest total wins." in board and "Final. Cy wins with 12." in board


def test_the_target_ends_the_game_after_the_round_that_reached_it(client, app):  # SP-8
    table, (ann, ben) = pad_table(client, app, target=50)
    code = table["code"]
    enter(ann, code, 0, "60")
    assert not api_state(client, code)["finished"]
    enter(ben, code, 1, "20")
    page = html(ben[0].get(f"/t/{code}/s/1"))
    assert "A total reached the target of 50 in round 1." in page and "Ann wins with 60." in page


def test_history_and_exports_list_every_round(client, app):  # SP-1 SP-14
    table, (ann, ben) = pad_table(client, app, rounds=2)
    code = table["code"]
    for phone, seat, points in ((ann, 0, 10), (ben, 1, 4), (ann, 0, -2), (ben, 1, 6)):
        enter(phone, code, seat, str(points))
    history = html(client.get(f"/t/{code}/history"))
    assert "Score pad" in history and "★ Ben: 10" in history and "Ann: 8" in history
    client.set_cookie(f"host_{code}", table["host_token"])  # /history lists this browser's tables
    assert "Score pad" in html(client.get("/history"))
    data = client.get(f"/t/{code}/games/1/export.json").get_json()
    assert data["game"] == GAME and data["finished"] and data["winners"] == [2]  # seats from 1
    assert data["options"] == {"wins": "highest", "rounds": 2, "target": None, "name": None}
    assert data["players"][0]["sheet"] == {"round_1": 10, "round_2": -2} and data["players"][0]["total"] == 8
    assert [e["points"] for e in data["entries"]] == [10, 4, -2, 6]
    rows = list(csv.reader(io.StringIO(client.get(f"/t/{code}/games/1/export.csv").get_data(as_text=True))))
    assert rows == [["seat", "name", "round_1", "round_2", "total", "winner"],
                    ["1", "Ann", "10", "-2", "8", ""], ["2", "Ben", "4", "6", "10", "yes"]]


# --- whatever a client sends ------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=st.one_of(json_values, st.fixed_dictionaries(
    {"kind": st.sampled_from(["score", "finish", "undo", "nonsense"])},
    optional={"points": json_values, "round": json_values, "seat": json_values, "key": json_values})))
def test_any_api_entry_is_answered_without_a_crash_and_a_refusal_saves_nothing(client, body):  # SP-3
    table = new_table(client, ["Ann", "Ben"], game=GAME)
    resp = client.post(f"/api/tables/{table['code']}/entries", json=body, headers=bearer(table["seats"][0]["token"]))
    assert resp.status_code < 500
    if resp.status_code >= 400:
        assert resp.get_json()["error"]
        assert log(client, table["code"]) == []


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(form=st.dictionaries(st.sampled_from(["points", "adjust", "action", "mode", "key"]), st.text(max_size=12),
                            max_size=5),
       path=st.sampled_from(["entries", "preview", "sheet"]))
def test_any_phone_form_is_answered_without_a_crash(client, form, path):  # SP-3
    table = new_table(client, ["Ann", "Ben"], game=GAME)
    csrf = join_seat(client, table["code"], 0)
    url = f"/t/{table['code']}/s/0/{path}"
    if path == "sheet":
        resp = client.get(url, query_string=form)
    else:
        resp = client.post(url, data={**form, "csrf_token": csrf}, headers=HTMX)
    assert resp.status_code < 500
    if resp.status_code >= 400:
        assert re.search(r'class="error"[^>]*>[^<]+', html(resp))
