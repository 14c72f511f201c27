"""The sheet designer and sheet files through the pages (SS-2, SS-14, SS-16): a copy of a built-in
sheet, rows added, moved and removed, the preview's sample total, a refusal that keeps the form, and
a sheet file downloaded and imported on another browser."""
from __future__ import annotations

import io
import json
import re

from tests.helpers import csrf_from

HTMX = {"HX-Request": "true"}


def _fields(html: str) -> dict:
    """The designer form's fields as a browser would post them (inputs and the chosen options)."""
    form = html[html.index('<form method="post" action="/score-sheet/designer"'):]
    form = form[:form.index("</form>")]
    fields = {m[0]: m[1] for m in re.findall(r'<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"', form)}
    for name, body in re.findall(r'<select name="([^"]+)"[^>]*>(.*?)</select>', form, flags=re.S):
        chosen = re.search(r'<option value="([^"]*)" selected', body)
        fields[name] = chosen[1] if chosen else re.search(r'<option value="([^"]*)"', body)[1]
    return {k: v.replace("&amp;", "&").replace("&#39;", "'") for k, v in fields.items()}


def _post(client, fields, action, headers=None):
    return client.post("/score-sheet/designer", data={**fields, "action": action}, headers=headers or {})


def test_a_copy_of_a_built_in_sheet_is_changed_row_by_row_and_saved(client):  # SS-2 SS-14
    page = client.get("/score-sheet/designer?from=splendor").get_data(as_text=True)
    fields = _fields(page)
    assert fields["name"] == "Splendor (copy)" and fields["rows"] == "2"
    assert 'data-testid="sample-total">36<' in page  # cards 30 (middle of 0..60) + 2 nobles of 3
    page = _post(client, fields, "add", HTMX).get_data(as_text=True)
    fields = _fields(page)
    assert fields["rows"] == "3" and fields["r2_label"] == "Row 3"
    fields.update({"r2_label": "Gold tokens", "r2_id": "gold", "r2_kind": "count", "r2_points_each": "1", "r2_max": "5"})
    fields = _fields(_post(client, fields, "preview", HTMX).get_data(as_text=True))
    fields = _fields(_post(client, fields, "up-2").get_data(as_text=True))
    assert [fields[f"r{n}_id"] for n in range(3)] == ["cards", "gold", "nobles"]
    fields = _fields(_post(client, fields, "remove-2").get_data(as_text=True))
    assert fields["rows"] == "2"
    saved = _post(client, {**fields, "name": "Splendor with gold"}, "save")
    assert saved.status_code == 303
    sheet_id = saved.headers["Location"].rsplit("/", 1)[1]
    data = client.get(f"/api/sheets/{sheet_id}").get_json()
    assert data["name"] == "Splendor with gold"
    assert data["rows"][1] == {"id": "gold", "label": "Gold tokens", "kind": "count", "points_each": 1, "max": 5}
    assert {s["id"]: s["mine"] for s in client.get("/api/sheets").get_json()}[sheet_id] is True


def test_a_sheet_the_rules_refuse_is_not_saved_and_the_form_keeps_what_was_typed(client):  # SS-2 SS-6
    fields = _fields(client.get("/score-sheet/designer").get_data(as_text=True))
    fields.update({"name": "Broken", "r0_kind": "formula", "r0_inputs": "x 0 4", "r0_expression": "12 // x"})
    before = client.get("/api/sheets").get_json()
    resp = _post(client, fields, "save")
    assert resp.status_code == 422
    html = resp.get_data(as_text=True)
    assert "The formula of Row 1 divides by zero when x = 0." in html
    assert 'value="12 // x"' in html
    assert client.get("/api/sheets").get_json() == before


def test_a_sheet_file_goes_to_another_browser(app, client):  # SS-16 SS-14
    page = client.get("/score-sheet/sheets/cascadia").get_data(as_text=True)
    assert 'download="cascadia.json"' in page and "Source: Cascadia rulebook" in page
    file = client.get("/api/sheets/cascadia").get_data()
    other = app.test_client()
    csrf = csrf_from(other.get("/score-sheet/sheets").get_data(as_text=True))
    resp = other.post("/score-sheet/sheets/import", data={"csrf_token": csrf, "file": (io.BytesIO(file), "cascadia.json")},
                      content_type="multipart/form-data")
    assert resp.status_code == 303
    sheet_id = resp.headers["Location"].rsplit("/", 1)[1]
    assert other.get(f"/api/sheets/{sheet_id}").get_json() == json.loads(file)
    bad = other.post("/score-sheet/sheets/import", data={"csrf_token": csrf, "file": (io.BytesIO(b"\xff{"), "x.json")},
                     content_type="multipart/form-data")
    assert bad.status_code == 422 and "That file is not a sheet" in bad.get_data(as_text=True)


def test_a_sheet_link_hands_the_sheet_to_another_companion(app, client, tmp_path):  # SS-14 SS-16
    from companion import create_app
    page = client.get("/score-sheet/sheets/agricola/share").get_data(as_text=True)
    link = re.search(r'href="([^"]+)" class="share-link"', page)[1]
    assert "<svg" in page  # the QR code of the link
    other_app = create_app({"DATABASE_URL": f"sqlite:///{tmp_path / 'other.sqlite'}", "TESTING": True,
                            "SECRET_KEY": "another-companion"})
    other = other_app.test_client()
    shown = other.get("/score-sheet/receive", query_string={"link": link})
    assert shown.status_code == 303
    received = other.get(shown.headers["Location"]).get_data(as_text=True)
    assert "Agricola" in received and "Begging cards" in received
    csrf = csrf_from(received)
    code = link.rsplit("/", 1)[1]
    saved = other.post("/score-sheet/receive", data={"csrf_token": csrf, "code": code})
    assert saved.status_code == 303
    sheet_id = saved.headers["Location"].rsplit("/", 1)[1]
    assert other.get(f"/api/sheets/{sheet_id}").get_json() == client.get("/api/sheets/agricola").get_json()
    damaged = other.post("/score-sheet/receive", data={"csrf_token": csrf, "code": code[:-9]})
    assert damaged.status_code == 422 and "incomplete or damaged" in damaged.get_data(as_text=True)


# --- a saved sheet is changed and deleted only by the browser that saved it (SS-14) ------------------

HARBOUR = {"name": "Harbour", "players": [2, 4], "wins": "highest", "tie_break": None, "rows": [
    {"id": "ships", "label": "Ships", "kind": "count", "points_each": 3, "max": 10},
    {"id": "bonus", "label": "Bonus", "kind": "points", "min": 0, "max": 20}]}


def _saved(client, data=HARBOUR) -> str:
    return client.post("/api/sheets", json=data).get_json()["id"]


def test_the_owner_changes_a_saved_sheet_in_place_and_a_started_table_keeps_its_copy(client):  # SS-14 SS-1
    from tests.helpers import new_table
    sheet_id = _saved(client)
    table = new_table(client, ["Ann", "Ben"], game="score_sheet", options={"sheet": sheet_id})
    page = client.get(f"/score-sheet/sheets/{sheet_id}").get_data(as_text=True)
    assert 'data-testid="edit"' in page and 'data-testid="delete"' in page
    page = client.get(f"/score-sheet/sheets/{sheet_id}/edit").get_data(as_text=True)
    fields = _fields(page)
    assert fields["editing"] == sheet_id and fields["name"] == "Harbour" and fields["r0_label"] == "Ships"
    fields = _fields(_post(client, fields, "add", HTMX).get_data(as_text=True))
    assert fields["editing"] == sheet_id  # adding a row keeps the form on the same saved sheet
    fields.update({"name": "Harbour at dusk", "r2_label": "Lighthouse", "r2_id": "light", "r2_kind": "check",
                   "r2_points": "7"})
    fields = _fields(_post(client, fields, "up-2").get_data(as_text=True))
    saved = _post(client, fields, "save")
    assert saved.status_code == 303 and saved.headers["Location"].endswith(f"/score-sheet/sheets/{sheet_id}")
    data = client.get(f"/api/sheets/{sheet_id}").get_json()
    assert data["name"] == "Harbour at dusk"
    assert [r["id"] for r in data["rows"]] == ["ships", "light", "bonus"]
    assert sum(1 for s in client.get("/api/sheets").get_json() if not s["builtin"]) == 1  # no second sheet
    played = client.get(f"/api/tables/{table['code']}").get_json()["view"]["sheet"]
    assert played["name"] == "Harbour" and [r["id"] for r in played["rows"]] == ["ships", "bonus"]


def test_another_browser_may_copy_a_sheet_but_not_change_or_delete_it(app, client):  # SS-14
    sheet_id = _saved(client)
    other = app.test_client()
    page = other.get(f"/score-sheet/sheets/{sheet_id}").get_data(as_text=True)
    assert 'data-testid="copy"' in page and 'data-testid="edit"' not in page and 'data-testid="delete"' not in page
    refused = other.get(f"/score-sheet/sheets/{sheet_id}/edit")
    assert refused.status_code == 403 and "only that browser can change or delete it" in refused.get_data(as_text=True)
    csrf = csrf_from(other.get("/score-sheet/sheets").get_data(as_text=True))
    assert other.post(f"/score-sheet/sheets/{sheet_id}/delete", data={"csrf_token": csrf}).status_code == 403
    # a form posted as an edit of someone else's sheet changes nothing; the changes stay, to be saved as new
    fields = {**_fields(client.get(f"/score-sheet/sheets/{sheet_id}/edit").get_data(as_text=True)),
              "csrf_token": csrf, "name": "Harbour, my way"}
    resp = _post(other, fields, "save", HTMX)
    assert resp.status_code == 409 and "only that browser can change or delete it" in resp.get_data(as_text=True)
    kept = _fields(resp.get_data(as_text=True))
    assert kept["name"] == "Harbour, my way" and "editing" not in kept
    assert client.get(f"/api/sheets/{sheet_id}").get_json() == HARBOUR
    copy = _post(other, {**kept, "csrf_token": csrf}, "save")
    assert copy.status_code == 303 and not copy.headers["Location"].endswith(sheet_id)
    assert other.get(copy.headers["Location"] + "/edit").status_code == 200  # the copy is the copier's own


def test_a_built_in_sheet_is_nobodys_to_change_or_delete(client):  # SS-13 SS-14
    assert client.get("/score-sheet/sheets/qwixx/edit").status_code == 403
    csrf = csrf_from(client.get("/score-sheet/sheets").get_data(as_text=True))
    resp = client.post("/score-sheet/sheets/qwixx/delete", data={"csrf_token": csrf})
    assert resp.status_code == 403 and "Copy it to make a sheet of your own" in resp.get_data(as_text=True)
    assert client.get("/api/sheets/qwixx").status_code == 200
    assert client.get("/score-sheet/sheets/nothing-here/edit").status_code == 404


def test_the_owner_deletes_a_sheet_and_a_started_table_plays_on(client):  # SS-14 SS-1
    from tests.helpers import new_table, post_entry
    sheet_id = _saved(client)
    table = new_table(client, ["Ann", "Ben"], game="score_sheet", options={"sheet": sheet_id})
    csrf = csrf_from(client.get(f"/score-sheet/sheets/{sheet_id}").get_data(as_text=True))
    resp = client.post(f"/score-sheet/sheets/{sheet_id}/delete", data={"csrf_token": csrf})
    assert resp.status_code == 303
    library = client.get(resp.headers["Location"]).get_data(as_text=True)
    assert "“Harbour” was deleted" in library and f'data-id="{sheet_id}"' not in library
    assert client.get(f"/api/sheets/{sheet_id}").status_code == 404
    assert client.post(f"/score-sheet/sheets/{sheet_id}/delete", data={"csrf_token": csrf}).status_code == 404
    assert post_entry(client, table, 0, kind="fill", row="ships", value=4).status_code == 201
    assert client.get(f"/api/tables/{table['code']}").get_json()["view"]["players"][0]["total"] == 12
    # an edit posted after the sheet was deleted keeps the form and saves it as a new sheet
    fields = {"csrf_token": csrf, "editing": sheet_id, "rows": "1", "name": "Harbour again", "fewest": "2",
              "most": "4", "wins": "highest", "r0_id": "ships", "r0_label": "Ships", "r0_kind": "count",
              "r0_points_each": "3", "r0_max": "10"}
    resp = _post(client, fields, "save")
    assert resp.status_code == 409 and _fields(resp.get_data(as_text=True))["name"] == "Harbour again"
