"""DS-2: editions saved by an older version of the app (in its own `ds_editions` table) are still
there after the upgrade: the store moves them into the document store when it opens."""
from __future__ import annotations

import json
import sqlite3

import pytest

from companion import create_app
from companion.games.dice_and_slice.rules.edition import default_edition_data
from tests.helpers import csrf_from


def old_database(path, rows):
    """A SQLite file as the older app left it: its editions in `ds_editions(name, data, updated_at)`."""
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE ds_editions (name VARCHAR(60) PRIMARY KEY, data JSON NOT NULL, "
                     "updated_at DATETIME NOT NULL)")
        conn.executemany("INSERT INTO ds_editions VALUES (?, ?, '2025-03-01 10:00:00')",
                         [(name, json.dumps(data)) for name, data in rows])


def edition(label, points15):
    data = default_edition_data()
    data.update(label=label, note="")
    data["slice_points"][14] = points15
    return data


@pytest.fixture
def upgraded(tmp_path):
    path = tmp_path / "old.sqlite"
    old_database(path, [("Blue box", edition("Our blue box", 40)), ("Travel", edition("Travel tin", 33))])
    app = create_app({"DATABASE_URL": f"sqlite:///{path}", "TESTING": True, "SECRET_KEY": "test-secret"})
    yield app, path
    app.extensions["store"].dispose()


def test_old_editions_are_listed_and_can_start_a_table_after_the_upgrade(upgraded):
    app, path = upgraded
    client, store = app.test_client(), app.extensions["store"]
    html = client.get("/dice-and-slice/editions").get_data(as_text=True)
    assert "Blue box" in html and "Our blue box" in html and "Travel tin" in html
    assert [d.name for d in store.documents("dice_and_slice", "editions")] == ["Blue box", "Travel"]
    assert store.document("dice_and_slice", "editions", "Travel").data == edition("Travel tin", 33)
    # listed again (the start form lists them too): nothing is copied twice
    home = client.get("/").get_data(as_text=True)
    assert '<option value="Blue box"' in home
    assert len(store.documents("dice_and_slice", "editions")) == 2
    resp = client.post("/tables", data={"game": "dice_and_slice", "player0": "Ann", "csrf_token": csrf_from(home),
                                        "dice_and_slice_edition": "Blue box", "dice_and_slice_side": "A"})
    code = resp.headers["Location"].split("/")[2]
    assert client.get(f"/api/tables/{code}").get_json()["view"]["slice_points"]["15"] == 40
    # nobody can show they made an edition from before owners: read-only to everyone, copy it to change it
    page = client.get("/dice-and-slice/editions/e/Blue box").get_data(as_text=True)
    assert "saved before editions had owners" in page and 'data-testid="save-edition"' not in page
    assert store.document("dice_and_slice", "editions", "Blue box").owner is None
    # the old table is left as it was
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM ds_editions").fetchone() == (2,)


def test_old_editions_are_not_copied_over_editions_already_in_the_store(tmp_path):
    path = tmp_path / "old.sqlite"
    config = {"DATABASE_URL": f"sqlite:///{path}", "TESTING": True, "SECRET_KEY": "test-secret"}
    first = create_app(config)  # a database that has editions in the store already...
    first.extensions["store"].save_document("dice_and_slice", "editions", "Mine", edition("My own", 20))
    first.extensions["store"].dispose()
    old_database(path, [("Blue box", edition("Our blue box", 40))])  # ...and the old table as well
    app = create_app(config)
    try:
        store = app.extensions["store"]
        html = app.test_client().get("/dice-and-slice/editions").get_data(as_text=True)
        assert "Mine" in html and "Blue box" not in html
        assert [d.name for d in store.documents("dice_and_slice", "editions")] == ["Mine"]
    finally:
        app.extensions["store"].dispose()


def test_a_database_without_the_old_table_lists_no_editions(client, store):
    html = client.get("/dice-and-slice/editions").get_data(as_text=True)
    assert 'data-testid="edition-default"' in html
    assert store.documents("dice_and_slice", "editions") == []
