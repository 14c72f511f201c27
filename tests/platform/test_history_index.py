"""/history reads the latest finished games through an index, on a new database and on one made
before the index existed, even when several server processes start on it at once."""
from __future__ import annotations

import multiprocessing
from datetime import datetime, timedelta, timezone

from sqlalchemy import inspect, text, update

from companion.platform.store.schema import games_t
from companion.platform.store.storage import Store

INDEX = "ix_games_finished_at"


def _indexes(store: Store) -> set[str]:
    return {i["name"] for i in inspect(store.engine).get_indexes("games")}


def _finish(store: Store, code: str, minutes: int) -> None:
    """Mark game 1 of `code` finished `minutes` after a fixed evening's start."""
    stamp = datetime(2025, 3, 1, 19, 0, tzinfo=timezone.utc) + timedelta(minutes=minutes)
    with store.engine.begin() as conn:
        conn.execute(update(games_t).where(games_t.c.table_code == code).values(
            finished_at=stamp, result={"totals": [minutes, 0], "winners": [0], "names": ["Ann", "Ben"]}))


def _open_store(url: str) -> None:
    Store(url).dispose()


def test_a_new_database_has_the_history_index(store):
    assert INDEX in _indexes(store)


def test_an_older_database_gets_the_index_when_several_processes_start_at_once(db_url):
    old = Store(db_url)
    table = old.create_table("dicez", {}, ["Ann", "Ben"], False)
    _finish(old, table.code, 5)
    with old.engine.begin() as conn:
        conn.execute(text(f"DROP INDEX {INDEX}"))
    assert INDEX not in _indexes(old)
    old.dispose()

    ctx = multiprocessing.get_context("spawn")
    starting = [ctx.Process(target=_open_store, args=(db_url,)) for _ in range(3)]
    for p in starting:
        p.start()
    for p in starting:
        p.join(60)
    assert [p.exitcode for p in starting] == [0, 0, 0]
    upgraded = Store(db_url)
    assert INDEX in _indexes(upgraded)
    assert [g.table_code for g in upgraded.finished_games()] == [table.code]
    upgraded.dispose()


def test_history_lists_the_latest_finished_games_newest_first(client, store):
    finished = []
    for minutes in (30, 10, 50, 20):
        table = store.create_table("dicez", {}, ["Ann", "Ben"], False)
        _finish(store, table.code, minutes)
        finished.append((minutes, table.code))
        client.set_cookie(f"host_{table.code}", table.host_token)  # this browser hosted them all
    unfinished = store.create_table("dicez", {}, ["Cat", "Dan"], False)

    newest_first = [code for _, code in sorted(finished, reverse=True)]
    assert [g.table_code for g in store.finished_games()] == newest_first
    assert [g.table_code for g in store.finished_games(limit=2)] == newest_first[:2]
    page = client.get("/history").get_data(as_text=True)
    assert [page.index(f"table {code}") for code in newest_first] == sorted(
        page.index(f"table {code}") for code in newest_first)
    assert unfinished.code not in page


def test_history_reads_the_index_instead_of_every_game(tmp_path):
    """SQLite's plan for the history query: a walk down the index, no scan of the games table."""
    store = Store(f"sqlite:///{tmp_path / 'plan.sqlite'}")
    from companion.platform.store.schema import FINISHED_GAMES
    sql = str(FINISHED_GAMES.compile(store.engine, compile_kwargs={"literal_binds": True}))
    with store.engine.connect() as conn:
        plan = " ".join(row[-1] for row in conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}"))
    store.dispose()
    assert INDEX in plan and "TEMP B-TREE" not in plan


def _finished_table(client) -> dict:
    from tests.helpers import new_table
    from tests.platform.test_api import play_whole_game
    table = new_table(client)
    play_whole_game(client, table)
    return table


def _listed(client, codes) -> list[str]:
    page = client.get("/history").get_data(as_text=True)
    return [code for code in codes if f"table {code}" in page]


def test_history_lists_only_the_tables_this_browser_hosted_or_sat_at(app, client):
    hosted, sat_at = _finished_table(client), _finished_table(client)
    codes = [hosted["code"], sat_at["code"]]
    host, player, stranger, forger = (app.test_client() for _ in range(4))
    host.set_cookie(f"host_{hosted['code']}", hosted["host_token"])
    player.set_cookie(f"seat_{sat_at['code']}", sat_at["seats"][1]["token"])
    forger.set_cookie(f"host_{hosted['code']}", "not-the-host-token")
    forger.set_cookie(f"seat_{sat_at['code']}", sat_at["seats"][1]["token"][:-1] + "?")
    assert _listed(host, codes) == [hosted["code"]]
    assert _listed(player, codes) == [sat_at["code"]]
    assert _listed(stranger, codes) == [] and _listed(forger, codes) == []
    assert "No finished games yet." in stranger.get("/history").get_data(as_text=True)


def test_a_server_started_to_list_every_table_lists_them_all_on_history(db_url):
    from companion import create_app
    app = create_app({"DATABASE_URL": db_url, "TESTING": True, "SECRET_KEY": "test-secret", "HISTORY_LISTS_ALL": True})
    try:
        client = app.test_client()
        codes = [_finished_table(client)["code"] for _ in range(2)]
        assert set(_listed(app.test_client(), codes)) == set(codes)  # a browser that never sat at them
    finally:
        app.extensions["store"].dispose()


def test_the_setting_to_list_every_table_is_read_from_the_environment(monkeypatch, db_url):
    from companion import create_app
    for value, lists_all in (("1", True), ("0", False), ("", False)):
        monkeypatch.setenv("HISTORY_LISTS_ALL", value)
        app = create_app({"DATABASE_URL": db_url, "SECRET_KEY": "test-secret"})
        assert app.config["HISTORY_LISTS_ALL"] is lists_all
        app.extensions["store"].dispose()
