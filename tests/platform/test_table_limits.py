"""Nobody can make tables without bound: each client may start only so many a minute and an hour,
and a table at which nothing was ever entered goes after a day (issue 35 item 8)."""
from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import update

from companion import create_app

from companion.platform.web.limits import TABLES_PER_CLIENT
from companion.platform.store.schema import tables_t
from companion.platform.core.records import now
from companion.platform.store.storage import UNUSED_TABLE_KEPT, Store
from companion.platform.core.play import record
from tests.helpers import csrf_from, new_table

PER_MINUTE = int(TABLES_PER_CLIENT.split(";")[0].split()[0])


def _start(client, **form):
    csrf = csrf_from(client.get("/").get_data(as_text=True))
    return client.post("/tables", data={"game": "dicez", "csrf_token": csrf, **form})


@pytest.fixture
def limited_app(db_url):
    """The app as a server runs it: the start limit it would have (the shared test app's is lifted)."""
    app = create_app({"DATABASE_URL": db_url, "TESTING": True, "SECRET_KEY": "test-secret"})
    yield app
    app.extensions["store"].dispose()


def test_a_client_may_start_only_so_many_tables_a_minute(limited_app):
    app = limited_app
    host = app.test_client()
    host.environ_base["REMOTE_ADDR"] = "10.4.4.4"
    # a form sent back with a mistake costs nothing
    for _ in range(3):
        assert _start(host, player0="").status_code == 400
    made = [_start(host, player0="Ann", player1="Ben") for _ in range(PER_MINUTE)]
    assert {r.status_code for r in made} == {303}
    refused = _start(host, player0="Ann", player1="Ben")
    assert refused.status_code == 429 and 1 <= int(refused.headers["Retry-After"]) <= 61
    assert "started a lot of tables just now. Wait a minute" in refused.get_data(as_text=True)
    refused = host.post("/api/tables", json={"game": "dicez", "players": ["Ann", "Ben"]})
    assert refused.status_code == 429 and "started a lot of tables just now" in refused.get_json()["error"]
    # another device starts its table as ever
    other = app.test_client()
    other.environ_base["REMOTE_ADDR"] = "10.4.4.5"
    assert _start(other, player0="Cy", player1="Dan").status_code == 303


def _made_days_ago(store: Store, code: str, days: float) -> None:
    with store.engine.begin() as conn:
        conn.execute(update(tables_t).where(tables_t.c.code == code).values(created_at=now() - timedelta(days=days)))


def test_a_table_never_played_goes_after_a_day_and_a_played_one_stays(db_url, app, client):
    # made earlier, by another server process on the same database
    earlier = Store(db_url)
    left = [earlier.create_table("dicez", {}, ["Ann", "Ben"], False).code for _ in range(3)]
    played = earlier.create_table("dicez", {}, ["Ann", "Ben"], False)
    record(earlier, played, 0, {"kind": "score", "dice": [1, 1, 1, 1, 1], "category": "ones"})
    fresh = earlier.create_table("dicez", {}, ["Cy", "Dan"], False).code
    for code in [*left, played.code]:
        _made_days_ago(earlier, code, UNUSED_TABLE_KEPT.days + 0.1)
    earlier.claim_seat(left[0], 0)  # a seat taken, yet nothing ever entered
    earlier.create_handover(left[1], 1, 10)
    earlier.dispose()

    # this process has not looked for unused tables yet: the next table made here does
    assert new_table(client)["code"]
    assert [client.get(f"/t/{code}").status_code for code in left] == [404, 404, 404]
    assert client.get(f"/t/{played.code}").status_code == 200
    assert client.get(f"/t/{fresh}").status_code == 200
    assert [e["category"] for e in client.get(f"/api/tables/{played.code}/entries").get_json()["entries"]] == ["ones"]
