"""Backups: `export-all` and `import-all` move every table and game between databases (SQLite and
PostgreSQL, both ways), and a finished game of every registered game replays the same afterwards."""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from datetime import timezone

import pytest

from companion.games.dice_and_slice.rules.edition import default_edition_data
from companion.platform import backup
from companion.platform.contract import Viewer
from companion.platform.play import load_replay, new_table, record
from companion.platform.registry import GAMES
from companion.platform.schema import metadata
from companion.platform.storage import Store
from tests.browser_fixtures import ROOT
from tests.contract.playout import playout


def play_every_game(store: Store) -> list[str]:
    """A finished game of every registered game (a random legal playout), then for one table a
    rematch with one entry, and a document of every collection a game keeps. The table codes."""
    codes = []
    for game_id, game in GAMES.items():
        players = min(game.max_players, max(game.min_players, 3))
        table = new_table(store, game_id, [f"P{i} {game_id}" for i in range(players)], {})
        _, steps = playout(game, players, random.Random(f"backup-{game_id}"))
        for n, step in enumerate(steps):
            record(store, table, step.seat, step.entry, key=f"k{n}" if n % 2 else None)
        assert load_replay(store, table).finished, f"{game_id}: the playout did not finish"
        codes.append(table.code)
        for collection in game.collections:
            store.save_document(game_id, collection, f"saved by {game_id}", a_document(game_id, collection),
                                owner="me")
    first = store.table(codes[0])
    store.start_next_game(first.code, 1)
    again = store.table(first.code)
    _, steps = playout(GAMES[again.game], len(again.seats), random.Random("rematch"), max_steps=1)
    record(store, again, steps[0].seat, steps[0].entry)
    return codes


def a_document(game_id: str, collection: str) -> dict:
    """A document the game's own pages would save in that collection (an import checks them as they do)."""
    if (game_id, collection) == ("dice_and_slice", "editions"):
        return {**default_edition_data(), "label": "Our box é ✓", "note": "é ✓"}
    raise AssertionError(f"give the backup test a {game_id} {collection} document")


def utc(stamp):
    return stamp.replace(tzinfo=timezone.utc) if stamp.tzinfo is None else stamp.astimezone(timezone.utc)


def what_players_see(store: Store, code: str) -> list:
    """Every game of the table as replayed: log, totals, winners, views, and what history keeps."""
    table = store.table(code)
    seen = [(table.game, table.options, table.pass_and_play, table.current_game, utc(table.created_at),
             [(s.seat, s.name, s.token, s.claimed) for s in table.seats], table.host_token)]
    for info in store.games(code):
        rep = load_replay(store, table, info.game_no)
        seen.append((
            info.game_no, rep.version, rep.finished, list(rep.game.totals(rep.state)), list(rep.game.winners(rep.state)),
            [(e.seq, e.seat, e.kind, e.payload, e.key, utc(e.created_at)) for e in rep.entries],
            rep.game.view(rep.state, Viewer.table()), info.result,
            utc(info.finished_at) if info.finished_at else None, utc(info.started_at)))
    return seen


def rows(store: Store) -> dict:
    """Every row of every table (in one order, whatever the database's collation)."""
    return {name: sorted(part["rows"], key=json.dumps) for name, part in backup.dump(store.engine)["tables"].items()}


def cli(command: str, path, url: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "DATABASE_URL": url, "PYTHONPATH": str(ROOT), "SECRET_KEY": "backup-test"}
    return subprocess.run([sys.executable, "-m", "companion", command, str(path)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def test_every_game_survives_a_round_trip_through_a_backup_and_back(db_url, tmp_path):
    source_url = f"sqlite:///{tmp_path / 'source.sqlite'}"
    source = Store(source_url)
    codes = play_every_game(source)
    before = {code: what_players_see(source, code) for code in codes}
    source.dispose()

    # as real processes: out of SQLite, into the database under test (PostgreSQL when there is one)
    done = cli("export-all", tmp_path / "backup.json", source_url)
    assert done.returncode == 0, done.stderr
    assert f"tables {len(codes)}," in done.stderr
    done = cli("import-all", tmp_path / "backup.json", db_url)
    assert done.returncode == 0, done.stderr
    target = Store(db_url)
    assert {code: what_players_see(target, code) for code in codes} == before
    assert [(g.table_code, g.game_no, g.result) for g in target.finished_games()] == [
        (g.table_code, g.game_no, g.result) for g in Store(source_url).finished_games()]
    kept = [(game_id, name) for game_id, game in GAMES.items() for name in game.collections]
    assert kept and all(target.documents(*where)[0].data == a_document(*where) for where in kept)

    # and back out of it into a fresh SQLite file: the same rows all the way round
    backup.export_all(target.engine, str(tmp_path / "again.json"))
    last = Store(f"sqlite:///{tmp_path / 'last.sqlite'}")
    backup.import_all(last.engine, str(tmp_path / "again.json"))
    assert rows(last) == rows(target) == rows(Store(source_url))
    assert {code: what_players_see(last, code) for code in codes} == before
    last.dispose()
    target.dispose()


def test_an_import_skips_identical_rows_and_refuses_different_ones_writing_nothing(store, tmp_path):
    codes = play_every_game(store)
    data = backup.dump(store.engine)
    counts = {name: len(part["rows"]) for name, part in data["tables"].items()}
    assert all(skipped == counts[name] and added == 0 for name, (added, skipped) in backup.load(store.engine, data).items())

    altered = json.loads(json.dumps(data))
    entries = altered["tables"]["entries"]
    entries["rows"][0][entries["columns"].index("created_at")] = "2020-01-01T00:00:00+00:00"  # legal, but not ours
    documents = altered["tables"]["documents"]
    newcomer = list(documents["rows"][0])
    newcomer[documents["columns"].index("name")] = "A newcomer"
    documents["rows"].append(newcomer)
    with pytest.raises(backup.BackupError, match=r"already has a different row in entries .*nothing was imported"):
        backup.load(store.engine, altered)
    assert all(d.name != "A newcomer" for d in store.documents(*documents["rows"][0][:2]))
    assert rows(store) == {name: sorted(part["rows"], key=json.dumps) for name, part in data["tables"].items()}
    assert all(what_players_see(store, code) for code in codes)


@pytest.mark.parametrize("content, said", [
    ("not json at all", "not a backup file"),
    ('{"format": "something else"}', "not a companion backup"),
    ('{"format": "companion-backup", "version": 99, "tables": {}}', "format version 99"),
    ('{"format": "companion-backup", "version": 1, "tables": {"players": {"columns": [], "rows": []}}}',
     "table 'players' this version of the companion does not know"),
    ('{"format": "companion-backup", "version": 1, "tables": {"seats": {"columns": ["colour"], "rows": []}}}',
     "columns this version does not know: colour"),
    ('{"format": "companion-backup", "version": 1, "tables": {"seats": {"columns": ["seat"], "rows": [[1, 2]]}}}',
     "damaged row"),
])
def test_a_file_that_is_not_a_backup_is_refused_with_a_clear_message(store, tmp_path, content, said):
    path = tmp_path / "file.json"
    path.write_text(content)
    with pytest.raises(backup.BackupError, match=said):
        backup.import_all(store.engine, str(path))
    assert all(not r for r in rows(store).values())


def test_the_cli_says_why_an_import_is_refused_and_fails(tmp_path):
    done = cli("import-all", tmp_path / "missing.json", f"sqlite:///{tmp_path / 'db.sqlite'}")
    assert done.returncode == 1
    assert done.stderr.strip() == f"import-all: There is no file {tmp_path / 'missing.json'}."


def test_a_backup_names_every_table_of_the_schema():
    # the dump is generic: a table schema.py adds is in the next backup with no change to backup.py
    store = Store("sqlite://")
    assert list(backup.dump(store.engine)["tables"]) == [t.name for t in metadata.sorted_tables]
