"""Named editions have owners: only the browser that saved one may change, rename or delete it;
anyone may copy it; editions from before owners existed are read-only to everyone. Editions move
between companions as files (Export / Import). Two browsers are two test clients, each with its
own cookie jar."""
from __future__ import annotations

import html
import io
import json
import re

import pytest

from companion.games.dice_and_slice.tests.test_web import edition_data, edition_names, editor_form
from tests.helpers import csrf_from, join_seat, start_table_page

EDITIONS = "/dice-and-slice/editions"


def csrf(client) -> str:
    return csrf_from(client.get(EDITIONS + "/new").get_data(as_text=True))


def save(client, name, **changes):
    return client.post(EDITIONS, data=editor_form(client, name=name, **changes))


def delete(client, name):
    return client.post(EDITIONS + "/delete", data={"name": name, "csrf_token": csrf(client)})


def listing(client) -> dict:
    """{edition name: 'yes'/'no' (is it this browser's)} from the edition list."""
    page = client.get(EDITIONS).get_data(as_text=True)
    return {html.unescape(name): mine for name, mine in
            re.findall(r'data-testid="edition-item" data-name="([^"]+)" data-mine="(yes|no)"', page)}


def page_error(resp) -> str:
    m = re.search(r'role="alert"[^>]*>(.*?)</p>', resp.get_data(as_text=True), re.S)
    assert m, "no error shown on the page"
    return html.unescape(m.group(1))


@pytest.fixture
def ann(app):
    return app.test_client()


@pytest.fixture
def ben(app):
    return app.test_client()


def test_the_browser_that_saved_an_edition_changes_renames_and_deletes_it(ann, ben, store):
    resp = save(ann, "Blue box", label="Our blue box")
    assert resp.status_code == 303
    cookie = ann.get_cookie("browser")
    assert cookie is not None and cookie.http_only and cookie.max_age >= 365 * 24 * 3600
    owner = store.document("dice_and_slice", "editions", "Blue box").owner
    assert owner and cookie.value not in owner  # the database keeps a mark, not the cookie itself
    assert listing(ann) == {"Blue box": "yes"} and listing(ben) == {"Blue box": "no"}
    page = ann.get(EDITIONS + "/e/Blue box").get_data(as_text=True)
    assert 'data-testid="save-edition"' in page and 'data-testid="delete-edition"' in page

    assert save(ann, "Blue box", original="Blue box", label="Blue box, 2nd printing").status_code == 303
    assert edition_data(store, "Blue box")["label"] == "Blue box, 2nd printing"
    assert save(ann, "Navy box", original="Blue box", label="Navy now").status_code == 303
    assert edition_names(store) == ["Navy box"] and listing(ann) == {"Navy box": "yes"}
    assert save(ann, "Navy box", original="Navy box", label="Still mine after the rename").status_code == 303
    resp = delete(ann, "Navy box")
    assert resp.status_code == 303 and edition_names(store) == []
    assert "Deleted the edition" in ann.get(resp.headers["Location"]).get_data(as_text=True)


def test_another_browser_may_not_change_rename_or_delete_it_but_its_copy_is_its_own(ann, ben, app, store):
    assert save(ann, "Blue box", label="Our blue box").status_code == 303
    before = store.document("dice_and_slice", "editions", "Blue box")
    page = ben.get(EDITIONS + "/e/Blue box").get_data(as_text=True)
    assert 'data-testid="not-yours"' in page and 'data-testid="save-edition"' not in page
    assert 'data-testid="delete-edition"' not in page and 'data-testid="copy-edition"' in page

    for stranger in (ben, app.test_client()):  # a browser with a browser cookie of its own, and one without
        resp = save(stranger, "Blue box", original="Blue box", label="Overwritten")
        assert resp.status_code == 403 and "only that browser can change or delete it" in page_error(resp)
        assert 'value="Overwritten"' in resp.get_data(as_text=True)  # the typed changes are still there
        resp = save(stranger, "Stolen", original="Blue box", label="Renamed")
        assert resp.status_code == 403 and "Nothing was changed" in page_error(resp)
        resp = delete(stranger, "Blue box")
        assert resp.status_code == 403 and "only that browser can change or delete it" in page_error(resp)
    assert store.documents("dice_and_slice", "editions") == [before]

    # Copy: the editor starts from Ann's edition under a new name; saved, it is Ben's
    copy_page = ben.get(EDITIONS + "/new?from=Blue box").get_data(as_text=True)
    assert 'value="Blue box (copy)"' in copy_page
    assert save(ben, "Blue box (copy)", label="Ben's blue box").status_code == 303
    assert listing(ben) == {"Blue box": "no", "Blue box (copy)": "yes"}
    assert listing(ann) == {"Blue box": "yes", "Blue box (copy)": "no"}
    assert save(ben, "Ben's box", original="Blue box (copy)", label="Ben's, renamed").status_code == 303
    assert save(ann, "Ben's box", original="Ben's box", label="Ann was here").status_code == 403
    assert delete(ann, "Ben's box").status_code == 403
    assert edition_data(store, "Ben's box")["label"] == "Ben's, renamed"
    assert delete(ben, "Ben's box").status_code == 303
    assert edition_names(store) == ["Blue box"] and edition_data(store, "Blue box") == before.data


def test_editions_from_before_owners_are_read_only_to_everyone_and_copy_to_edit(ann, ben, store):
    """Owner NULL (saved by an older version, or moved over from its `ds_editions` table): nobody
    can prove they made it, so nobody changes it; anyone copies it."""
    from companion.games.dice_and_slice.editions import form_to_edition

    old = form_to_edition(editor_form(ann, label="From before owners"))
    store.save_document("dice_and_slice", "editions", "Old box", old)  # no owner
    for browser in (ann, ben):
        assert listing(browser) == {"Old box": "no"}
        page = browser.get(EDITIONS + "/e/Old box").get_data(as_text=True)
        assert "saved before editions had owners" in page and 'data-testid="save-edition"' not in page
        resp = save(browser, "Old box", original="Old box", label="Changed")
        assert resp.status_code == 403 and "saved before editions had owners" in page_error(resp)
        assert delete(browser, "Old box").status_code == 403
    assert edition_data(store, "Old box")["label"] == "From before owners"
    assert save(ben, "Old box (copy)", label="Ben's copy").status_code == 303
    assert listing(ben) == {"Old box": "no", "Old box (copy)": "yes"}


def test_a_refusal_for_a_missing_edition_is_a_clear_404_not_a_crash(ann):
    resp = delete(ann, "Nobody's")
    assert resp.status_code == 404 and "no saved edition called" in page_error(resp)
    assert ann.post(EDITIONS + "/delete", data={"csrf_token": csrf(ann)}).status_code == 404
    assert ann.get(EDITIONS + "/export/Nobody's").status_code == 404


# ---- export and import --------------------------------------------------------------------------
def distinctive(client, name):
    """An edition a table can tell from the default: die A face 1 has four dots, mushrooms are truffles."""
    form = editor_form(client, name=name, label="Truffle box")
    for dot in ("0_0", "2_2", "0_2"):
        form[f"dieA_1_{dot}"] = "1"
    for key in [k for k in form if k.startswith("top") and k.endswith("_name")]:
        form[key] = form[key].replace("mushroom", "truffle")
    form["points15"] = "44"
    return form


def import_file(client, content: bytes, name: str = "", filename="edition.json"):
    return client.post(EDITIONS + "/import", content_type="multipart/form-data",
                       data={"csrf_token": csrf(client), "name": name, "file": (io.BytesIO(content), filename)})


def test_an_exported_edition_imports_exactly_and_plays(ann, ben, store):
    assert ann.post(EDITIONS, data=distinctive(ann, "Truffles")).status_code == 303
    stored = edition_data(store, "Truffles")
    resp = ben.get(EDITIONS + "/export/Truffles")  # anyone may export
    assert resp.status_code == 200 and resp.mimetype == "application/json"
    assert resp.headers["Content-Disposition"] == 'attachment; filename=Truffles.edition.json'
    doc = json.loads(resp.data)
    assert doc == {"format": "companion-edition", "version": 1, "game": "dice_and_slice", "name": "Truffles",
                   "edition": stored}

    resp = import_file(ben, resp.data)  # the name is taken: it comes in as "Truffles (2)", Ben's
    assert resp.status_code == 303
    page = ben.get(resp.headers["Location"]).get_data(as_text=True)
    assert "Imported" in page and "Truffles (2)" in page and 'data-testid="save-edition"' in page
    assert edition_data(store, "Truffles (2)") == stored
    assert listing(ben) == {"Truffles": "no", "Truffles (2)": "yes"}
    assert import_file(ben, ben.get(EDITIONS + "/export/Truffles").data, name="Ben's truffles").status_code == 303
    assert edition_data(store, "Ben's truffles") == stored
    assert ben.get(EDITIONS + "/export/Truffles (2)").data == ann.get(EDITIONS + "/export/Truffles").data.replace(
        b'"name": "Truffles"', b'"name": "Truffles (2)"')

    # the imported edition plays: a table started with it shows its faces and toppings
    home = ben.get("/").get_data(as_text=True)
    assert '<option value="Truffles (2)"' in home
    code = start_table_page(ben, game="dice_and_slice", player0="Ben", dice_and_slice_edition="Truffles (2)",
                            dice_and_slice_side="A")
    join_seat(ben, code, 0)
    sheet = ben.get(f"/t/{code}/s/0").get_data(as_text=True)
    assert 'aria-label="die A face 1: 4 dots"' in sheet and "<title>truffle</title>" in sheet
    assert "mushroom" not in sheet and "Truffle box" in sheet
    view = ben.get(f"/api/tables/{code}").get_json()["view"]
    assert view["slice_points"]["15"] == 44


def wrapped(edition=None, **changes) -> bytes:
    from companion.games.dice_and_slice.rules.edition import default_edition_data
    data = edition or {**default_edition_data(), "label": "Imported box", "note": ""}
    doc = {"format": "companion-edition", "version": 1, "game": "dice_and_slice", "name": "Box", "edition": data}
    doc.update(changes)
    return json.dumps(doc).encode()


def bad_edition() -> dict:
    from companion.games.dice_and_slice.rules.edition import default_edition_data
    data = {**default_edition_data(), "label": "Broken box"}
    data["dice"]["A"][2] = [[3, 1]]
    return data


BAD_FILES = [
    (b"this is not json", 400, "not valid JSON"),
    (b"\xff\xfe\x00\x00garbage", 400, "not text in UTF-8"),
    (wrapped().replace(b'"Imported box"', b'"Imported \\ud800 box"'), 400, "lone UTF-16 surrogate"),
    (wrapped(name="Box \ud83d"), 400, "lone UTF-16 surrogate"),
    (wrapped().replace(b'"Imported box"', b'"Imported \\u0000 box"'), 400, "NUL character"),
    (b'{"format": "companion-edition", "version": NaN}', 400, "not valid JSON"),
    (b"[" * 60000 + b"]" * 60000, 413, "too large"),
    (b"[" * 30000 + b"]" * 30000, 400, "not valid JSON"),
    (b"[1, 2, 3]", 422, "not an edition file"),
    (wrapped(format="something-else"), 422, "not an edition file"),
    (wrapped(game="pizza_theory"), 422, "for another game ('pizza_theory')"),
    (wrapped(version=2), 422, "version 2"),
    (wrapped(version=True), 422, "version True"),
    (wrapped(extra=1), 422, "unknown key(s) extra"),
    (wrapped(name=5), 422, 'needs a "name"'),
    (wrapped(name="default"), 422, "project's own edition"),
    (wrapped(edition=bad_edition()), 422, "Edition problem: die A face 3 has a dot outside the face's 3 × 3 grid of dots."),
    (wrapped(edition={**bad_edition(), "label": None}), 422, "the edition needs a label"),
    (b"x" * (64 * 1024 + 1), 413, "limit is 64 KiB"),
]


@pytest.mark.parametrize("content,status,says", BAD_FILES)
def test_a_bad_edition_file_is_refused_with_a_reason_and_nothing_is_imported(ann, store, content, status, says):
    resp = import_file(ann, content)
    assert resp.status_code == status
    assert says in page_error(resp)
    assert edition_names(store) == []


def test_an_edition_file_with_the_default_label_or_no_file_at_all_is_refused(ann, store):
    from companion.games.dice_and_slice.rules.edition import default_edition_data
    resp = import_file(ann, wrapped(edition=default_edition_data()))
    assert resp.status_code == 422 and "belongs to the project's default edition" in page_error(resp)
    resp = ann.post(EDITIONS + "/import", content_type="multipart/form-data", data={"csrf_token": csrf(ann)})
    assert resp.status_code == 400 and "Choose an edition file" in page_error(resp)
    # larger than any request the app takes at all: the platform's own clear refusal
    resp = import_file(ann, b" " * (300 * 1024))
    assert resp.status_code == 413 and "too large" in page_error(resp)
    # without the page's CSRF token nothing is imported either
    resp = ann.post(EDITIONS + "/import", content_type="multipart/form-data",
                    data={"file": (io.BytesIO(wrapped()), "edition.json")})
    assert resp.status_code == 400
    assert edition_names(store) == []
