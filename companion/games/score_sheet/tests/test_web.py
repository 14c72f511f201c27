"""Score sheet through the pages and the API: the library's API, starting a table with a sheet,
phones filling rows (plain POST and htmx), refusals in the row's words, the table view, ending
early, undo, exports. Rules SS-n: rules.md."""
from __future__ import annotations

import csv
import io

from tests.helpers import bearer, csrf_from, join_seat, log, new_table, post_entry

HTMX = {"HX-Request": "true"}
GAME = "score_sheet"

MY_SHEET = {"name": "Garden night", "players": [2, 4], "wins": "highest", "tie_break": "flowers", "rows": [
    {"id": "flowers", "label": "Flowers", "kind": "count", "points_each": 2, "max": 20},
    {"id": "paths", "label": "Paths", "kind": "table", "table": [0, 1, 3, 6], "max": 10},
    {"id": "bees", "label": "Bees", "kind": "formula", "inputs": [{"name": "hives", "min": 0, "max": 5},
                                                                   {"name": "fields", "min": 0, "max": 5}],
     "expression": "hives * fields"},
    {"id": "fountain", "label": "Fountain", "kind": "check", "points": 4},
    {"id": "bonus", "label": "Bonus", "kind": "points", "min": -3, "max": 9},
]}


def fill(row, value=None, **inputs):
    return {"kind": "fill", "row": row, **({"inputs": inputs} if inputs else {"value": value})}


# --- the library's API (SS-16, SS-14) ---------------------------------------------------------------


def test_the_api_lists_the_sheets_and_gives_each_ones_data(client):  # SS-16 SS-13
    listed = client.get("/api/sheets").get_json()
    assert {"7-wonders", "agricola", "qwixx"} <= {s["id"] for s in listed}
    assert all(s["builtin"] for s in listed if s["id"] == "qwixx")
    data = client.get("/api/sheets/7-wonders").get_json()
    assert set(data) == {"name", "players", "wins", "tie_break", "rows", "source"}
    science = next(r for r in data["rows"] if r["id"] == "science")
    assert science == {"id": "science", "label": "Science", "kind": "formula",
                       "inputs": [{"name": "t", "min": 0, "max": 9}, {"name": "c", "min": 0, "max": 9},
                                  {"name": "g", "min": 0, "max": 9}],
                       "expression": "t*t + c*c + g*g + 7*min(t, c, g)"}
    missing = client.get("/api/sheets/chess")
    assert missing.status_code == 404 and "chess" in missing.get_json()["error"]


def test_a_sheet_is_saved_through_the_api_and_read_back_as_sent(client):  # SS-16 SS-2
    resp = client.post("/api/sheets", json=MY_SHEET)
    assert resp.status_code == 201
    saved = resp.get_json()
    assert saved["name"] == "Garden night" and not saved["builtin"]
    assert client.get(f"/api/sheets/{saved['id']}").get_json() == MY_SHEET
    assert saved["id"] in {s["id"] for s in client.get("/api/sheets").get_json()}


def test_a_bad_sheet_is_refused_naming_what_is_wrong_and_nothing_is_saved(client):  # SS-2 SS-6
    before = client.get("/api/sheets").get_json()
    bad = {**MY_SHEET, "rows": [{**MY_SHEET["rows"][2], "expression": "hives // fields"}]}
    resp = client.post("/api/sheets", json={**bad, "tie_break": None})
    assert resp.status_code == 422
    assert resp.get_json() == {"error": "The formula of Bees divides by zero when hives = 0, fields = 0."}
    assert client.post("/api/sheets", data="[1, 2]", content_type="application/json").status_code == 400
    assert client.post("/api/sheets", json={**MY_SHEET, "players": [2]}).status_code == 422
    assert client.get("/api/sheets").get_json() == before


def test_a_saved_sheet_belongs_to_the_browser_that_saved_it(app, client):  # SS-14
    sheet_id = client.post("/api/sheets", json=MY_SHEET).get_json()["id"]
    mine = {s["id"]: s["mine"] for s in client.get("/api/sheets").get_json()}
    assert mine[sheet_id] is True
    other = app.test_client()
    theirs = {s["id"]: s["mine"] for s in other.get("/api/sheets").get_json()}
    assert theirs[sheet_id] is False
    assert other.get(f"/api/sheets/{sheet_id}").get_json() == MY_SHEET  # anyone may look and copy
    page = other.get("/score-sheet/sheets").get_data(as_text=True)
    assert "Garden night" in page and "7 Wonders" in page


# --- a table ---------------------------------------------------------------------------------------


def test_a_table_plays_a_saved_sheet_and_keeps_its_copy(app, client):  # SS-1 SS-16
    sheet_id = client.post("/api/sheets", json=MY_SHEET).get_json()["id"]
    table = new_table(client, ["Ann", "Ben"], game=GAME, options={"sheet": sheet_id})
    assert post_entry(client, table, 0, **fill("bees", hives=3, fields=2)).status_code == 201
    assert post_entry(client, table, 0, **fill("flowers", 5)).status_code == 201
    shown = client.get(f"/api/tables/{table['code']}").get_json()
    ann = shown["view"]["players"][0]
    assert (ann["rows"], ann["total"], ann["rank"]) == ({"flowers": 10, "bees": 6}, 16, 1)
    assert shown["view"]["sheet"]["name"] == "Garden night"


def test_an_unknown_sheet_or_too_many_players_starts_no_table(client):  # SS-1
    resp = client.post("/api/tables", json={"game": GAME, "players": ["Ann"], "options": {"sheet": "7-wonders"}})
    assert resp.status_code == 422 and resp.get_json()["error"] == "7 Wonders is for 3 to 7 players; got 1."
    resp = client.post("/api/tables", json={"game": GAME, "players": ["Ann"], "options": {"sheet": "chess"}})
    assert resp.status_code == 422 and "There is no sheet 'chess'" in resp.get_json()["error"]


def test_a_value_out_of_range_is_refused_in_the_rows_words_and_logs_nothing(client):  # SS-4
    table = new_table(client, ["Ann", "Bo", "Cy"], game=GAME, options={"sheet": "7-wonders"})
    resp = post_entry(client, table, 0, **fill("military", 19))
    assert resp.status_code == 422 and resp.get_json()["error"] == "Military is between -6 and 18."
    assert post_entry(client, table, 0, **fill("military", "12")).status_code == 400
    assert post_entry(client, table, 0, kind="fill", row="military", value=3, colour="red").status_code == 400
    assert log(client, table["code"]) == []


def test_a_row_filled_again_keeps_the_later_value_and_the_log_keeps_both(client):  # SS-7 SS-15
    table = new_table(client, ["Ann", "Ben"], game=GAME, options={"sheet": "qwixx"})
    for crosses in (4, 5):
        assert post_entry(client, table, 0, **fill("red", crosses)).status_code == 201
    assert client.get(f"/api/tables/{table['code']}").get_json()["view"]["players"][0]["rows"] == {"red": 15}
    assert [e["value"] for e in log(client, table["code"])] == [4, 5]
    undo = client.post(f"/api/tables/{table['code']}/undo", headers=bearer(table["seats"][0]["token"]))
    assert undo.status_code in (200, 201)
    assert client.get(f"/api/tables/{table['code']}").get_json()["view"]["players"][0]["rows"] == {"red": 10}


def test_the_host_ends_the_game_and_empty_rows_count_zero(client):  # SS-10
    table = new_table(client, ["Ann", "Ben"], game=GAME, options={"sheet": "splendor"})
    host = bearer(table["host_token"])
    early = client.post(f"/api/tables/{table['code']}/entries", json={"kind": "end", "seat": 0}, headers=host)
    assert early.status_code == 422 and "Fill at least one row" in early.get_json()["error"]
    assert post_entry(client, table, 1, **fill("cards", 9)).status_code == 201
    ended = client.post(f"/api/tables/{table['code']}/entries", json={"kind": "end", "seat": 0}, headers=host)
    assert ended.status_code == 201, ended.get_json()
    shown = client.get(f"/api/tables/{table['code']}").get_json()
    assert shown["finished"] and shown["winners"] == [1]
    assert shown["view"]["empty_count_zero"] is True


# --- phones and the table view ----------------------------------------------------------------------


def _phone(app, code, seat):
    phone = app.test_client()
    return phone, join_seat(phone, code, seat)


def test_phones_fill_their_rows_and_the_table_view_shows_the_grid(app, client):  # SS-7 SS-12 SS-5
    table = new_table(client, ["Ann", "Ben"], game=GAME, options={"sheet": "sample"})
    code = table["code"]
    ann, csrf = _phone(app, code, 0)
    page = ann.get(f"/t/{code}/s/0").get_data(as_text=True)
    for row in ("bonus", "coins", "sets", "pairs", "first"):
        assert f'data-testid="row-{row}"' in page
    plain = ann.post(f"/t/{code}/s/0/entries", data={"csrf_token": csrf, "row": "coins", "value": "7"})
    assert plain.status_code == 303
    htmx = ann.post(f"/t/{code}/s/0/entries", data={"csrf_token": csrf, "row": "pairs", "in_a": "4", "in_b": "2"},
                    headers=HTMX)
    assert htmx.status_code == 200
    html = htmx.get_data(as_text=True)
    assert 'data-testid="my-total">13<' in html and 'data-testid="points-pairs">6<' in html
    check = ann.post(f"/t/{code}/s/0/entries", data={"csrf_token": csrf, "row": "first", "value": "1"}, headers=HTMX)
    assert 'data-testid="points-first">5<' in check.get_data(as_text=True)
    board = client.get(f"/t/{code}/view").get_data(as_text=True)
    assert 'data-testid="cell-pairs-0">6<' in board and 'data-testid="total-0">18<' in board
    assert "Ann: First out yes \u2192 5" in board


def test_a_phone_refusal_names_the_row_and_changes_nothing(app, client):  # SS-4
    table = new_table(client, ["Ann", "Ben"], game=GAME, options={"sheet": "sample"})
    code = table["code"]
    ann, csrf = _phone(app, code, 0)
    for value in ("51", "abc", "2.5", ""):
        resp = ann.post(f"/t/{code}/s/0/entries", data={"csrf_token": csrf, "row": "bonus", "value": value}, headers=HTMX)
        assert resp.status_code in (400, 422), value
        assert "Bonus" in resp.get_data(as_text=True)
    assert "Bonus is between -10 and 50." in ann.post(
        f"/t/{code}/s/0/entries", data={"csrf_token": csrf, "row": "bonus", "value": "51"}, headers=HTMX).get_data(as_text=True)
    assert log(client, code) == []


def test_the_start_form_offers_the_library_and_starts_a_table(client):  # SS-1 SS-13
    home = client.get("/").get_data(as_text=True)
    assert 'name="score_sheet_sheet"' in home and ">Agricola · 1–4 players<" in home
    csrf = csrf_from(home)
    resp = client.post("/tables", data={"game": GAME, "csrf_token": csrf, "player0": "Ann", "player1": "Ben",
                                        "score_sheet_sheet": "azul"})
    assert resp.status_code == 303
    code = resp.headers["Location"].split("/")[2]
    assert client.get(f"/api/tables/{code}").get_json()["view"]["sheet"]["name"] == "Azul"


def test_exports_keep_every_row(client):  # SS-9 SS-16
    table = new_table(client, ["Ann", "Ben"], game=GAME, options={"sheet": "splendor"})
    for seat, cards, nobles in ((0, 15, 1), (1, 16, 0)):
        post_entry(client, table, seat, **fill("cards", cards))
        post_entry(client, table, seat, **fill("nobles", nobles))
    code = table["code"]
    data = client.get(f"/t/{code}/games/1/export.json").get_json()
    assert data["finished"] and data["winners"] == [1]  # exports number seats from 1, as the start page
    assert data["players"][0]["sheet"] == {"cards": 15, "nobles": 3}
    rows = list(csv.reader(io.StringIO(client.get(f"/t/{code}/games/1/export.csv").get_data(as_text=True))))
    assert rows[0] == ["seat", "name", "cards", "nobles", "total", "winner"]
    assert rows[1] == ["1", "Ann", "15", "3", "18", "yes"] and rows[2] == ["2", "Ben", "16", "0", "16", ""]


def test_an_empty_field_is_asked_for_in_plain_words(app, client):  # SS-4
    table = new_table(client, ["Ann", "Ben"], game=GAME, options={"sheet": "sample"})
    ann, csrf = _phone(app, table["code"], 0)
    resp = ann.post(f"/t/{table['code']}/s/0/entries", data={"csrf_token": csrf, "row": "pairs", "in_a": "3", "in_b": ""},
                    headers=HTMX)
    assert resp.status_code == 422
    assert "Fill in Pairs&#39;s b: a whole number from 0 to 9." in resp.get_data(as_text=True)
    assert "None" not in resp.get_data(as_text=True)


# --- hand-offs (the platform asks these through the contract) ---------------------------------------


def test_the_game_is_named_after_its_sheet_and_the_record_keeps_every_row(client):  # SS-13 SS-9
    from companion.platform.core.registry import GAMES
    game = GAMES[GAME]
    options = game.normalize_options({"sheet": "azul"})
    assert game.play_title(options) == "Azul"
    assert game.highest_wins(game.normalize_options({"sheet": {**MY_SHEET, "wins": "lowest"}})) is False
    state = game.new_state(2, options)
    state = game.apply(state, 0, fill("rounds", 40))
    state = game.apply(state, 1, {"kind": "end"})
    assert game.record(state, 0) == {"Azul: points per row": {"Points from the rounds": 40, "Complete rows": 0,
                                                              "Complete columns": 0, "Colours all five placed": 0}}


def test_a_stored_sheet_is_judged_as_when_it_was_saved(client):  # SS-2
    from companion.platform.core.registry import GAMES
    game = GAMES[GAME]
    assert game.document_refusal("sheets", "s1", MY_SHEET) is None
    assert game.document_refusal("sheets", "s1", {**MY_SHEET, "rows": []}) == "A sheet has 1 to 30 rows."


def test_the_host_ends_the_game_from_the_host_screen(app, client):  # SS-10
    from tests.helpers import start_table_page
    host = app.test_client()
    code = start_table_page(host, game=GAME, player0="Ann", player1="Ben", score_sheet_sheet="splendor")
    page = host.get(f"/t/{code}/host").get_data(as_text=True)
    assert 'data-testid="host-end"' in page
    csrf = csrf_from(page)
    early = host.post(f"/t/{code}/score-sheet/end", data={"csrf_token": csrf})
    assert early.status_code == 422 and "Fill at least one row before ending the game." in early.get_data(as_text=True)
    ben, ben_csrf = _phone(app, code, 1)
    ben.post(f"/t/{code}/s/1/entries", data={"csrf_token": ben_csrf, "row": "cards", "value": "9"})
    assert app.test_client().post(f"/t/{code}/score-sheet/end", data={"csrf_token": csrf}).status_code in (400, 403)
    assert host.post(f"/t/{code}/score-sheet/end", data={"csrf_token": csrf}).status_code == 303
    shown = client.get(f"/api/tables/{code}").get_json()
    assert shown["finished"] and shown["winners"] == [1] and shown["view"]["empty_count_zero"]
    assert 'data-testid="host-end"' not in host.get(f"/t/{code}/host").get_data(as_text=True)


def _seven_wonders_game(client) -> dict:
    """Ann, Ben and Cy finish a 7 Wonders sheet (Cy leaves Guilds empty and ends the game)."""
    table = new_table(client, ["Ann", "Ben", "Cy"], game=GAME, options={"sheet": "7-wonders"})
    sheets = {0: {"military": 9, "wonder": 10, "civilian": 20, "commercial": 5, "guilds": 8},
              1: {"military": -3, "wonder": 15, "civilian": 12, "commercial": 0, "guilds": 4},
              2: {"military": 1, "wonder": 7, "civilian": 9, "commercial": 2}}
    science = {0: (2, 2, 1), 1: (3, 3, 3), 2: (1, 0, 0)}
    for seat, rows in sheets.items():
        post_entry(client, table, seat, **fill("treasury", coins=10 - 3 * seat))
        t, c, g = science[seat]
        post_entry(client, table, seat, **fill("science", t=t, c=c, g=g))
        for row, value in rows.items():
            assert post_entry(client, table, seat, **fill(row, value)).status_code == 201
    assert post_entry(client, table, 2, kind="end").status_code == 201
    return table


def test_the_result_card_shows_every_row_for_every_player(client):  # SS-9 SS-16
    import xml.etree.ElementTree as ET
    code = _seven_wonders_game(client)["code"]
    resp = client.get(f"/t/{code}/games/1/card.svg")
    assert resp.status_code == 200
    ns = {"s": "http://www.w3.org/2000/svg"}
    root = ET.fromstring(resp.get_data())
    assert root.find("s:text", ns).text == "7 Wonders"
    # Ben: 7 coins → 2, science 3*9 + 7*3 = 48, -3 + 15 + 12 + 0 + 4 = 28 → 78; Ann: 10 coins → 3,
    # science 4 + 4 + 1 + 7 = 16, 9 + 10 + 20 + 5 + 8 = 52 → 71; Cy: 4 coins → 1, science 1, 1 + 7 + 9 + 2 → 21
    # (Guilds left empty: 0)
    players = [[t.text for t in g.findall("s:text", ns)] for g in root.findall("s:g[@class='row']", ns)]
    assert players == [["★", "Ben", "78"], ["Ann", "71"], ["Cy", "21"]]
    grid = root.find("s:g[@class='categories']", ns)
    assert [t.text for t in grid.find("s:g[@class='names']", ns)] == ["Ben", "Ann", "Cy"]
    categories = [[t.text for t in g.findall("s:text", ns)] for g in grid.findall("s:g[@class='category']", ns)]
    assert categories == [["Military", "-3", "9", "1"], ["Treasury", "2", "3", "1"], ["Wonder", "15", "10", "7"],
                          ["Civilian", "12", "20", "9"], ["Commercial", "0", "5", "2"], ["Guilds", "4", "8", "0"],
                          ["Science", "48", "16", "1"]]
    assert int(root.get("height")) == 250 + 3 * 72 + 24 + 44 + 7 * 38
    png = client.get(f"/t/{code}/games/1/card.png").get_data()
    import struct
    assert struct.unpack(">II", png[16:24]) == (800, 190 + 3 * 72 + 24 + 44 + 7 * 38 + 60)


def test_bgstats_the_exports_and_the_record_name_the_sheets_game_and_keep_every_row(client):  # SS-9 SS-16
    code = _seven_wonders_game(client)["code"]
    export = client.get(f"/t/{code}/games/1/export.json").get_json()
    assert export["title"] == "7 Wonders"
    assert export["bgstats"]["game"]["name"] == "7 Wonders" and export["bgstats"]["game"]["highestWins"] is True
    assert [(p["name"], p["score"], p["winner"]) for p in export["bgstats"]["players"]] == [
        ("Ann", 71, False), ("Ben", 78, True), ("Cy", 21, False)]
    assert export["players"][2]["sheet"] == {"military": 1, "treasury": 1, "wonder": 7, "civilian": 9,
                                             "commercial": 2, "guilds": 0, "science": 1}
    rows = list(csv.reader(io.StringIO(client.get(f"/t/{code}/games/1/export.csv").get_data(as_text=True))))
    assert rows[0] == ["seat", "name", "military", "treasury", "wonder", "civilian", "commercial", "guilds",
                       "science", "total", "winner"]
    assert rows[2] == ["2", "Ben", "-3", "2", "15", "12", "0", "4", "48", "78", "yes"]
    record = client.get("/players/Ben").get_data(as_text=True)
    assert "7 Wonders: points per row" in record
    assert all(label in record for label in ("Military", "Treasury", "Science", "Guilds"))
