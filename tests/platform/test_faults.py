"""When the database fails, every route says so (503), nothing is half-written, and writes resume
by themselves once it is back: on a PostgreSQL server the test stops and starts, and on SQLite
files that fill up or go missing."""
from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from html import unescape

import pytest
from playwright.sync_api import expect
from sqlalchemy import event

from companion import create_app
from tests.browser_fixtures import ROOT, _free_port, _wait_for, join_as, start_dicez_table, table_code, tap_dice
from tests.helpers import join_seat, log, new_table, post_entry
from tests.private_postgres import private_postgres  # noqa: F401  (fixture)

UNREACHABLE = "The database cannot be reached right now"
ROUNDS = [([1, 1, 1, 2, 3], "ones"), ([2, 2, 4, 5, 6], "twos"), ([3, 3, 3, 3, 1], "threes")]


def page_error(resp) -> str:
    """The message an error page shows (what the htmx notice reads from `.error`)."""
    found = re.search(r'<p class="error"[^>]*>(.*?)</p>', resp.get_data(as_text=True), re.S)
    assert found, resp.get_data(as_text=True)
    return unescape(found.group(1)).strip()


def htmx_tap(client, code, seat, csrf, dice, box):
    form = {"csrf_token": csrf, "category": box, **{f"d{i}": v for i, v in enumerate(dice)}}
    return client.post(f"/t/{code}/s/{seat}/entries", data=form,
                       headers={"HX-Request": "true", "X-CSRF-Token": csrf})


def check_every_route_kind_says_unreachable(client, table, csrf, what=UNREACHABLE):
    code = table["code"]
    resp = post_entry(client, table, 1, kind="score", dice=[6, 6, 6, 6, 6], category="sixes")
    assert resp.status_code == 503
    assert resp.get_json() == {"error": f"{what}, so nothing was saved. Send it again in a moment."}
    assert resp.headers["Retry-After"]
    resp = client.get(f"/api/tables/{code}")
    assert resp.status_code == 503 and resp.get_json()["error"] == f"{what}. Try again in a moment."
    resp = client.post("/api/tables", json={"game": "dicez", "players": ["Cy", "Di"]})
    assert resp.status_code == 503 and "nothing was saved" in resp.get_json()["error"]
    resp = client.get(f"/t/{code}/s/0")
    assert resp.status_code == 503 and page_error(resp) == f"{what}. Reload this page in a moment."
    resp = htmx_tap(client, code, 0, csrf, [6, 6, 6, 6, 6], "sixes")
    assert resp.status_code == 503
    assert page_error(resp) == f"{what}, so your entry was not saved. Tap again in a moment."
    assert "<h1>Not saved</h1>" in resp.get_data(as_text=True)
    resp = client.get(f"/t/{code}/poll?v=1.0.0")  # a page polling: not "nothing changed"
    assert resp.status_code == 503 and resp.headers["Retry-After"]


def test_a_stopped_postgresql_answers_503_on_every_route_and_the_next_write_after_it_is_back_saves(
        private_postgres):
    app = create_app({"DATABASE_URL": private_postgres.url, "TESTING": True, "SECRET_KEY": "t"})
    client = app.test_client()
    table = new_table(client)
    csrf = join_seat(client, table["code"], 0)
    for dice, box in ROUNDS[:2]:
        assert htmx_tap(client, table["code"], 0, csrf, dice, box).status_code == 200
        assert post_entry(client, table, 1, kind="score", dice=dice, category=box).status_code == 201

    for mode in ("fast", "immediate"):  # a clean shutdown, then a crash
        private_postgres.stop(mode)
        check_every_route_kind_says_unreachable(client, table, csrf)
        private_postgres.start()
        assert client.get(f"/api/tables/{table['code']}").status_code == 200

    # the same app, never restarted: the next tap is saved, and only what was acknowledged is in the log
    assert htmx_tap(client, table["code"], 0, csrf, *ROUNDS[2]).status_code == 200
    assert post_entry(client, table, 1, kind="score", dice=ROUNDS[2][0], category="threes").status_code == 201
    assert [(e["seat"], e["category"]) for e in log(client, table["code"])] == [
        (s, box) for _, box in ROUNDS for s in (0, 1)]
    assert len(client.get("/history").get_data(as_text=True)) > 0
    app.extensions["store"].dispose()


def test_after_postgresql_restarts_while_the_app_is_idle_the_first_tap_is_saved(private_postgres, monkeypatch):
    """No request met the outage, so nothing told the pool its connections died: those that sat
    idle are pinged before use and replaced, and the first tap after the restart goes through."""
    from companion.platform.store import engines

    monkeypatch.setattr(engines, "PG_PING_AFTER_IDLE", 0.2)
    app = create_app({"DATABASE_URL": private_postgres.url, "TESTING": True, "SECRET_KEY": "t"})
    client = app.test_client()
    table = new_table(client)
    csrf = join_seat(client, table["code"], 0)
    assert htmx_tap(client, table["code"], 0, csrf, *ROUNDS[0]).status_code == 200
    private_postgres.stop("fast")
    private_postgres.start()
    time.sleep(0.3)
    assert post_entry(client, table, 1, kind="score", dice=ROUNDS[0][0], category=ROUNDS[0][1]).status_code == 201
    assert htmx_tap(client, table["code"], 0, csrf, *ROUNDS[1]).status_code == 200
    assert [(e["seat"], e["category"]) for e in log(client, table["code"])] == [
        (0, ROUNDS[0][1]), (1, ROUNDS[0][1]), (0, ROUNDS[1][1])]
    app.extensions["store"].dispose()


def test_after_postgresql_restarts_the_first_tap_that_meets_a_dead_connection_replaces_them_all(private_postgres):
    """A pool holding several connections when the server restarts: the first request that meets one
    of them dead is a 503, and it has the pool replace every one of them, so the next tap is saved."""
    app = create_app({"DATABASE_URL": private_postgres.url, "TESTING": True, "SECRET_KEY": "t"})
    client, store = app.test_client(), app.extensions["store"]
    table = new_table(client, options={"turn_order": False})
    held = [store.engine.connect() for _ in range(4)]  # a busy moment: four connections at once
    for conn in held:
        conn.close()  # back to the pool, which keeps them
    assert post_entry(client, table, 0, kind="score", dice=ROUNDS[0][0], category=ROUNDS[0][1]).status_code == 201
    private_postgres.stop("fast")
    private_postgres.start()
    met = post_entry(client, table, 0, kind="score", dice=ROUNDS[1][0], category=ROUNDS[1][1])
    assert met.status_code in (201, 503)
    for dice, box in ROUNDS[1 if met.status_code == 503 else 2:]:
        assert post_entry(client, table, 0, kind="score", dice=dice, category=box).status_code == 201
    assert [e["category"] for e in log(client, table["code"])] == [box for _, box in ROUNDS]
    store.dispose()


def sqlite_app(path):
    app = create_app({"DATABASE_URL": f"sqlite:///{path}", "TESTING": True, "SECRET_KEY": "t"})
    return app, app.extensions["store"]


def cap_pages(store, pages: int) -> None:
    """Let the SQLite file grow to `pages` pages at most, on every connection from now on."""
    event.listen(store.engine, "connect", lambda conn, _rec: conn.execute(f"PRAGMA max_page_count={pages}"))
    store.engine.dispose()


def until_refused(attempts):
    """Send requests until the first one that is not saved: (how many were saved, that answer)."""
    for saved, send in enumerate(attempts):
        resp = send()
        if resp.status_code != 201:
            return saved, resp
    raise AssertionError("the capped file never filled up")


def test_a_full_sqlite_file_answers_503_saying_so_and_writes_resume_when_there_is_room(tmp_path):
    app, store = sqlite_app(tmp_path / "companion.sqlite")
    client = app.test_client()
    pad = new_table(client, players=["Ann"], game="score_pad")
    assert post_entry(client, pad, 0, kind="score", points=1, key="first").status_code == 201
    with store.engine.connect() as conn:
        pages = conn.exec_driver_sql("PRAGMA page_count").scalar_one()
    cap_pages(store, pages)

    # a table is created whole or not at all: never a table without its seats and first game
    tables, refused = until_refused(
        lambda: client.post("/api/tables", json={"game": "dicez", "players": ["Cy", "Di", "Ed"]})
        for _ in range(500))
    assert refused.status_code == 503
    assert refused.get_json() == {"error": "The database is full right now, so nothing was saved. "
                                           "Send it again in a moment."}
    with sqlite3.connect(tmp_path / "companion.sqlite") as raw:
        assert raw.execute("SELECT count(*) FROM tables").fetchone() == (1 + tables,)
        assert raw.execute("SELECT count(*) FROM seats").fetchone() == (1 + 3 * tables,)
        assert raw.execute("SELECT count(*) FROM games").fetchone() == (1 + tables,)

    entries, refused = until_refused(
        lambda n=n: post_entry(client, pad, 0, kind="score", points=n, key="k" * 90 + str(n))
        for n in range(2, 500))
    assert refused.status_code == 503 and refused.get_json()["error"].startswith("The database is full")
    assert client.get(f"/api/tables/{pad['code']}").status_code == 200  # reading still works

    cap_pages(store, 1_000_000)  # room again (on a real disk: files deleted)
    assert post_entry(client, pad, 0, kind="score", points=7, key="after").status_code == 201
    assert [e["points"] for e in log(client, pad["code"])] == [1, *range(2, 2 + entries), 7]
    store.dispose()


def test_an_sqlite_file_whose_folder_is_gone_answers_503_and_writes_nowhere_until_it_is_back(tmp_path):
    folder = tmp_path / "data"
    folder.mkdir()
    app, store = sqlite_app(folder / "companion.sqlite")
    client = app.test_client()
    table = new_table(client, options={"turn_order": False})  # free play: Ann scores twice running
    csrf = join_seat(client, table["code"], 0)
    assert htmx_tap(client, table["code"], 0, csrf, *ROUNDS[0]).status_code == 200

    away = folder.rename(tmp_path / "unplugged")  # the disk is unplugged / the folder moved away
    check_every_route_kind_says_unreachable(client, table, csrf)
    with sqlite3.connect(away / "companion.sqlite") as raw:  # the open connections wrote nothing there
        assert raw.execute("SELECT count(*) FROM entries").fetchone() == (1,)
        assert raw.execute("SELECT count(*) FROM tables").fetchone() == (1,)

    away.rename(folder)
    assert htmx_tap(client, table["code"], 0, csrf, *ROUNDS[1]).status_code == 200
    assert [e["category"] for e in log(client, table["code"])] == ["ones", "twos"]
    store.dispose()


@pytest.mark.browser
def test_a_phone_on_a_real_server_is_told_its_tap_was_not_saved_and_the_next_tap_saves(
        private_postgres, phone, tmp_path):
    env = {**os.environ, "DATABASE_URL": private_postgres.url, "SECRET_KEY": "faults-test",
           "PYTHONPATH": str(ROOT)}
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    log_path = tmp_path / "server.log"
    with open(log_path, "w") as out:
        server = subprocess.Popen([sys.executable, "-m", "companion", "--host", "127.0.0.1", "--port", str(port)],
                                  cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, text=True)
    server.log_path = log_path
    try:
        _wait_for(port, server)
        host = phone()
        join_url = start_dicez_table(host, base, ["Ann"])  # Ann plays turn after turn
        ann = phone()
        join_as(ann, join_url, "Ann")
        score(ann, [6, 6, 6, 1, 2], "sixes")
        expect(ann.locator('[data-testid="box-sixes"]')).to_have_text("18")

        choose(ann, [5, 5, 5, 5, 5])
        expect(ann.locator('[data-testid="score-dicez"]')).to_have_text("50")  # the preview

        private_postgres.stop("immediate")
        ann.locator('[data-testid="score-dicez"]').click()
        expect(ann.locator("#notice")).to_have_text(
            "Not saved: The database cannot be reached right now, so your entry was not saved. Tap again in a moment.")
        expect(ann.locator('[data-testid="box-dicez"]')).to_have_count(0)
        code = table_code(join_url)
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"{base}/api/tables/{code}")
        assert refused.value.code == 503

        private_postgres.start()  # the same server process carries on
        ann.locator('[data-testid="score-dicez"]').click()  # the dice are still chosen: tap again
        expect(ann.locator('[data-testid="box-dicez"]')).to_have_text("50")
        with urllib.request.urlopen(f"{base}/api/tables/{code}/entries") as resp:
            saved = json.loads(resp.read())["entries"]
        assert [e["category"] for e in saved] == ["sixes", "dicez"]
    finally:
        server.terminate()
        server.wait(timeout=10)


def choose(page, dice):
    tap_dice(page, dice)


def score(page, dice, box):
    choose(page, dice)
    page.locator(f'[data-testid="score-{box}"]').click()


def test_a_server_started_while_the_database_is_down_says_so_instead_of_a_traceback(tmp_path):
    env = {**os.environ, "DATABASE_URL": f"postgresql://postgres@127.0.0.1:{_free_port()}/none",
           "SECRET_KEY": "t", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "companion", "--host", "127.0.0.1", "--port", str(_free_port())],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.startswith("The database cannot be reached, so the server did not start: ")
    assert "Traceback" not in done.stderr


def test_a_database_another_process_holds_locked_is_called_busy(tmp_path):
    from sqlalchemy import create_engine, text
    from sqlalchemy.exc import OperationalError

    from companion.platform.web.faults import what_failed

    path = tmp_path / "held.sqlite"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (name TEXT)")
    holder.execute("BEGIN EXCLUSIVE")  # another process holds the file
    engine = create_engine(f"sqlite:///{path}", connect_args={"timeout": 0})
    with pytest.raises(OperationalError) as locked, engine.connect() as conn:
        conn.execute(text("SELECT * FROM t"))
    assert what_failed(locked.value) == "The database is busy"
    holder.execute("ROLLBACK")
    engine.dispose()
