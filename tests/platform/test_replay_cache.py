"""A process replays a game on from the newest replay it has when other processes wrote entries
meanwhile (play.load_replay): the result is the replay from the start, for every game, and an undo
among the new entries replays the game from the start."""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.platform.core import play
from companion.platform.core.registry import GAMES
from companion.platform.store.storage import Store
from tests.contract.playout import player_counts, playout

SETTINGS = settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                           HealthCheck.function_scoped_fixture])


def _same(a: play.Replay, b: play.Replay) -> None:
    assert a.version == b.version and a.state == b.state and a.info == b.info
    assert [e.seq for e in a.entries] == [e.seq for e in b.entries]
    assert [e.seq for e in a.effective] == [e.seq for e in b.effective]
    assert a.before == b.before


def _another_process_appends(store: Store, table, seq: int, seat: int, entry: dict) -> None:
    payload = {k: v for k, v in entry.items() if k != "kind"}
    store.append(table.code, table.current_game, seq, seat, entry["kind"], payload, None)


@pytest.mark.parametrize("game_id", list(GAMES))
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1))
def test_a_replay_made_on_from_a_cached_one_is_the_replay_from_the_start(store, game_id, seed):
    game, rng = GAMES[game_id], random.Random(seed)
    players = rng.choice(player_counts(game))
    _, steps = playout(game, players, rng, max_steps=40)
    table = store.create_table(game_id, game.normalize_options({}), [f"P{i}" for i in range(players)], False)
    seq, cached = 0, None
    while seq < len(steps):
        for step in steps[seq:seq + rng.randint(1, 6)]:  # what other processes wrote meanwhile
            seq += 1
            _another_process_appends(store, table, seq, step.seat, step.entry)
        rep = play.load_replay(store, table)
        _same(rep, play._replayed(store, table, table.current_game))
        if cached is not None and cached.before:
            assert rep.before[0] is cached.before[0]  # made on from the one this process had
        cached = rep
    if steps:
        assert cached.finished == game.finished(steps[-1].after)


def test_an_undo_among_the_new_entries_replays_the_game_from_the_start(store):
    table = store.create_table("dicez", GAMES["dicez"].normalize_options({}), ["Ann", "Ben"], False)
    ones, twos = {"kind": "score", "dice": [1, 1, 1, 2, 3], "category": "ones"}, \
        {"kind": "score", "dice": [2, 2, 4, 5, 6], "category": "twos"}
    _another_process_appends(store, table, 1, 0, ones)
    _another_process_appends(store, table, 2, 1, ones)
    first = play.load_replay(store, table)
    assert [e.seq for e in first.effective] == [1, 2]
    store.append(table.code, 1, 3, 1, "undo", {"target": 2}, None)  # Ben takes his back...
    _another_process_appends(store, table, 4, 1, twos)  # ...and scores twos instead
    rep = play.load_replay(store, table)
    _same(rep, play._replayed(store, table, 1))
    assert [e.seq for e in rep.effective] == [1, 4] and rep.undone == frozenset({2})
    assert GAMES["dicez"].totals(rep.state) == [3, 4]
