"""Backups: `export-all` and `import-all` move every table and game between databases (SQLite and
PostgreSQL, both ways), and a finished game of every registered game replays the same afterwards."""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from companion.games.dice_and_slice.rules.edition import default_edition_data
from companion.games.score_sheet.rules.builtin import BUILTIN as BUILTIN_SHEETS
from companion.platform.store import backup
from companion.platform.web.auth import seat_for_token
from companion.platform.core.contract import Viewer
from companion.platform.core.play import load_replay, new_table, record
from companion.platform.core.registry import GAMES
from companion.platform.store.schema import ADDED_COLUMNS, metadata
from companion.platform.core.records import fingerprint
from companion.platform.store.storage import Store
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
    if (game_id, collection) == ("score_sheet", "sheets"):
        return {**BUILTIN_SHEETS["7-wonders"], "name": "Our 7 Wonders é ✓"}
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


def cli(command: str, path, url: str, *options: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "DATABASE_URL": url, "PYTHONPATH": str(ROOT), "SECRET_KEY": "backup-test"}
    return subprocess.run([sys.executable, "-m", "companion", command, *options, str(path)], cwd=ROOT, env=env,
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
    ("[" * 100_000 + "]" * 100_000, "nested deeper than any backup"),
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


# ---- an import checks every row as the routes would ----------------------------------------------
def part_rows(data: dict, name: str) -> tuple[list, list[str]]:
    part = data["tables"][name]
    return part["rows"], part["columns"]


def finished_table_rows(data: dict) -> tuple[str, list[list], list[str]]:
    """The code of the first table and its first game's entries (rows, columns)."""
    rows, columns = part_rows(data, "entries")
    code = data["tables"]["tables"]["rows"][0][0]
    mine = [r for r in rows if r[columns.index("table_code")] == code and r[columns.index("game_no")] == 1]
    return code, mine, columns


def an_entry_after_the_end(data):
    """The finished game's last entry again: the rules refuse any entry once a game is over."""
    code, mine, columns = finished_table_rows(data)
    extra = list(max(mine, key=lambda r: r[columns.index("seq")]))
    extra[columns.index("seq")] += 1
    extra[columns.index("key")] = None
    data["tables"]["entries"]["rows"].append(extra)


def a_gap_in_the_log(data):
    code, mine, columns = finished_table_rows(data)
    max(mine, key=lambda r: r[columns.index("seq")])[columns.index("seq")] += 1


def a_payload_nested_past_reading(data):
    code, mine, columns = finished_table_rows(data)
    mine[0][columns.index("payload")] = "[" * 100_000 + "]" * 100_000


def a_nul_in_a_name(data):
    rows, columns = part_rows(data, "seats")
    rows[0][columns.index("name")] = "Ann\x00"


def a_direction_override_in_a_name(data):
    rows, columns = part_rows(data, "seats")
    rows[0][columns.index("name")] = "Ann \u202egnp.exe"


def a_hand_over(data, seat: int, made: str, ends: str):
    rows, columns = part_rows(data, "handovers")
    code = data["tables"]["tables"]["rows"][0][0]
    row = {"token_hash": "ab" * 16, "table_code": code, "seat": seat, "created_at": made, "expires_at": ends,
           "used_at": None}
    rows.append([row[c] for c in columns])


def a_planted_hand_over(data):
    """A link to the first table's first seat that lives a year (the host screen's live ten minutes)."""
    a_hand_over(data, 0, "2026-01-01T00:00:00+00:00", "2027-12-31T00:00:00+00:00")


def a_hand_over_still_open(data):
    made = datetime.now(timezone.utc) - timedelta(minutes=1)
    a_hand_over(data, 0, made.isoformat(), (made + timedelta(minutes=10)).isoformat())


def a_hand_over_to_a_seat_the_table_lacks(data):
    a_hand_over(data, 9, "2026-01-01T00:00:00+00:00", "2026-01-01T00:05:00+00:00")


def a_forged_result(data):
    rows, columns = part_rows(data, "games")
    finished = next(r for r in rows if r[columns.index("result")])
    finished[columns.index("result")]["totals"][0] += 100


def a_forged_category(data):
    """A result card's category (Game.categories) that its entries do not add up to."""
    rows, columns = part_rows(data, "games")
    finished = next(r for r in rows if (r[columns.index("result")] or {}).get("categories"))
    finished[columns.index("result")]["categories"][0]["points"][0] += 100


def a_player_index_row_without_a_game(data):
    rows, columns = part_rows(data, "player_games")
    row = list(rows[0])
    row[columns.index("name_key")] = "somebody else"
    rows.append(row)


def seats_of_a_table_not_in_the_file(data):
    rows, columns = part_rows(data, "seats")
    row = list(rows[0])
    row[columns.index("table_code")] = "CCCCCC"
    rows.append(row)


def an_edition_named_like_a_folder(data):
    rows, columns = part_rows(data, "documents")
    rows[0][columns.index("name")] = "../../boxes"


def an_edition_the_editor_refuses(data):
    rows, columns = part_rows(data, "documents")
    rows[0][columns.index("data")] = {"label": "Our box"}


def a_pin_of_letters(data):
    rows, columns = part_rows(data, "tables")
    rows[0][columns.index("pin")] = "ABCDEF"


def an_option_the_game_does_not_have(data):
    rows, columns = part_rows(data, "tables")
    rows[0][columns.index("options")]["colour"] = "blue"


def a_seat_number_as_text(data):
    rows, columns = part_rows(data, "seats")
    rows[0][columns.index("seat")] = "0"


def test_a_backup_made_before_columns_were_added_still_imports_and_passes_the_checks(store, every_game_backup):
    data = json.loads(json.dumps(every_game_backup))
    for table, column in ADDED_COLUMNS:
        part = data["tables"][table]
        at = part["columns"].index(column)
        part["columns"].pop(at)
        for row in part["rows"]:
            row.pop(at)
    done = backup.load(store.engine, data)
    assert done["entries"][0] == len(data["tables"]["entries"]["rows"]) > 0
    code = data["tables"]["tables"]["rows"][0][0]
    assert load_replay(store, store.table(code), 1).finished


def test_a_result_kept_before_results_had_categories_still_imports(store, every_game_backup):
    data = json.loads(json.dumps(every_game_backup))
    games, columns = part_rows(data, "games")
    results = [r[columns.index("result")] for r in games if r[columns.index("result")]]
    assert any("categories" in result for result in results)  # a game with categories was played
    for result in results:
        result.pop("categories", None)
    assert backup.load(store.engine, data)["entries"][0] > 0


@pytest.fixture(scope="module")
def every_game_backup(tmp_path_factory) -> dict:
    """A backup of every game played out, which imports as it is."""
    folder = tmp_path_factory.mktemp("every-game")
    source = Store(f"sqlite:///{folder / 'source.sqlite'}")
    play_every_game(source)
    data = backup.dump(source.engine)
    source.dispose()
    check = Store(f"sqlite:///{folder / 'check.sqlite'}")
    assert backup.load(check.engine, json.loads(json.dumps(data)))["entries"][0] > 0
    check.dispose()
    return data


@pytest.mark.parametrize("spoil, said", [
    (an_entry_after_the_end, r"Table \w+, game 1: entry \d+ is one the rules refuse: The game is over"),
    (a_gap_in_the_log, r"Table \w+, game 1: entry \d+ follows entry \d+: the numbers have a gap"),
    (a_payload_nested_past_reading, r"Table \w+, game 1: entry 1 is not a JSON object"),
    (a_nul_in_a_name, r"seats row 1: name holds a NUL character"),
    (a_direction_override_in_a_name, r"seat 1's name is not one the start page takes. A player name can only "
                                     r"hold printable characters"),
    (a_planted_hand_over, r"a hand-over link lives from 2026-01-01 00:00 to 2027-12-31 00:00; the host screen "
                          r"makes them for 10 minutes"),
    (a_hand_over_still_open, r"a hand-over link in it still works until \d\d:\d\d UTC; an import brings none"),
    (a_hand_over_to_a_seat_the_table_lacks, r"a row of handovers names a seat the table does not have"),
    (a_forged_result, r"the result it records is not what its entries add up to"),
    (a_forged_category, r"the result it records is not what its entries add up to"),
    (a_player_index_row_without_a_game, r"player_games: its row for table \w+, game 1 does not match"),
    (seats_of_a_table_not_in_the_file, r"a row names table 'CCCCCC', which the backup does not hold"),
    (an_edition_named_like_a_folder, r"cannot hold \"/\""),
    (an_edition_the_editor_refuses, r"document 'saved by dice_and_slice': Edition problem"),
    (a_pin_of_letters, r"its PIN is not six digits"),
    (an_option_the_game_does_not_have, r"its options are refused: .*colour"),
    (a_seat_number_as_text, r"seats row 1: seat is not a whole number"),
])
def test_an_import_refuses_a_file_the_routes_would_never_have_written_and_writes_nothing(
        store, every_game_backup, spoil, said):
    data = json.loads(json.dumps(every_game_backup))
    spoil(data)
    with pytest.raises(backup.BackupError, match=said + r".* Nothing was imported\.$"):
        backup.load(store.engine, json.loads(json.dumps(data)))
    assert all(not r for r in rows(store).values())


def test_a_broken_character_in_a_name_is_a_clear_refusal_not_a_traceback(tmp_path):
    source_url = f"sqlite:///{tmp_path / 'source.sqlite'}"
    source = Store(source_url)
    table = new_table(source, "score_pad", ["Ann", "Ben"], {})
    source.dispose()
    assert cli("export-all", tmp_path / "backup.json", source_url).returncode == 0
    text = (tmp_path / "backup.json").read_text(encoding="utf-8")
    assert '"Ann"' in text
    (tmp_path / "backup.json").write_text(text.replace('"Ann"', '"An\\ud800n"'), encoding="utf-8")

    target_url = f"sqlite:///{tmp_path / 'target.sqlite'}"
    done = cli("import-all", tmp_path / "backup.json", target_url)
    assert done.returncode == 1
    assert done.stderr.strip() == ("import-all: The backup's seats row 1: name holds a broken character (half of a "
                                   "surrogate pair). Nothing was imported.")
    assert Store(target_url).table(table.code) is None


def test_a_backup_without_secrets_gives_nobody_a_seat_or_the_host_screen_and_keeps_every_game(tmp_path):
    source_url = f"sqlite:///{tmp_path / 'source.sqlite'}"
    source = Store(source_url)
    codes = play_every_game(source)
    first = source.table(codes[0])
    source.claim_seat(first.code, 0)
    link, _ = source.create_handover(first.code, 1, 10)
    tables = [source.table(code) for code in codes]
    before = {code: what_players_see(source, code)[1:] for code in codes}  # every game, not who holds what
    source.dispose()

    done = cli("export-all", tmp_path / "shared.json", source_url, "--without-secrets")
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "shared.json").read_text(encoding="utf-8")
    secrets_kept = [t.host_token for t in tables] + [t.join_secret for t in tables] + [f'"{t.pin}"' for t in tables]
    secrets_kept += [s.token for t in tables for s in t.seats] + [fingerprint(link), link]
    assert [found for found in secrets_kept if found in text] == []

    target_url = f"sqlite:///{tmp_path / 'target.sqlite'}"
    done = cli("import-all", tmp_path / "shared.json", target_url)
    assert done.returncode == 0, done.stderr
    target = Store(target_url)
    assert {code: what_players_see(target, code)[1:] for code in codes} == before
    for old in tables:
        new = target.table(old.code)
        assert [s.name for s in new.seats] == [s.name for s in old.seats] and not any(s.claimed for s in new.seats)
        assert seat_for_token(new, old.seats[0].token) is None and new.host_token != old.host_token
        assert new.join_secret != old.join_secret
    assert target.use_handover(first.code, link) is None
    target.dispose()


ANY_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-2 ** 40, max_value=2 ** 40)
    | st.text(st.characters(blacklist_categories=()), max_size=12),  # surrogates and NULs included
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_one_value_changed_in_a_backup_imports_whole_or_is_refused_with_a_message(
        every_game_backup, tmp_path_factory, data):
    spoiled = json.loads(json.dumps(every_game_backup))
    name = data.draw(st.sampled_from(sorted(n for n, part in spoiled["tables"].items() if part["rows"])))
    part = spoiled["tables"][name]
    row = data.draw(st.sampled_from(part["rows"]))
    at = data.draw(st.integers(0, len(part["columns"]) - 1))
    row[at] = data.draw(ANY_JSON)
    store = Store(f"sqlite:///{tmp_path_factory.mktemp('spoiled') / 'db.sqlite'}")
    try:
        backup.load(store.engine, spoiled)
    except backup.BackupError as exc:
        assert str(exc).endswith(".") and "Traceback" not in str(exc)
        assert all(not r for r in rows(store).values())  # nothing written
    else:  # a change the routes could have made too: every table still replays
        for code in {r[0] for r in spoiled["tables"]["tables"]["rows"]}:
            table = store.table(code)
            assert all(load_replay(store, table, info.game_no) for info in store.games(code))
    finally:
        store.dispose()
