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
