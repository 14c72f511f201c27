"""The contract every registered game keeps, checked the same way for each (a new game gets these
tests by being listed in companion/games/__init__.py)."""
from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.platform.core.contract import Game, RuleError, Viewer
from companion.platform.web.gameweb import GameWeb
from companion.platform.core.registry import GAMES
from tests.contract.playout import legal_choice, player_counts, playout, viewers

GAME_IDS = list(GAMES)
SETTINGS = settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _seeded(game_id: str, seed: int):
    """The game, a player count it allows and a random source, all from the seed."""
    game = GAMES[game_id]
    rng = random.Random(seed)
    return game, rng.choice(player_counts(game)), rng


@pytest.fixture(params=GAME_IDS)
def game(request) -> Game:
    return GAMES[request.param]


def test_a_game_declares_itself_completely(game):
    assert isinstance(game, Game)
    assert game.id in GAMES and game.title
    assert 1 <= game.min_players <= game.max_players
    assert game.entry_kinds and "undo" not in game.entry_kinds  # undo is the platform's
    assert set(game.host_kinds) <= set(game.entry_kinds)
    # every kind says which fields it has, so the platform can refuse any other
    assert set(game.entry_fields) == set(game.entry_kinds)
    assert all(isinstance(f, str) and f not in ("kind", "key") for fields in game.entry_fields.values() for f in fields)
    assert isinstance(game.web, GameWeb)
    for n in (game.min_players, game.max_players):
        state = game.new_state(n, game.normalize_options({}))
        assert len(game.totals(state)) == n
        assert not game.finished(state) and game.winners(state) == []
        assert set(game.waiting_for(state)) <= set(range(n)) and game.waiting_for(state)


def test_bad_options_are_refused_with_a_reason(game):
    with pytest.raises(RuleError) as caught:
        game.normalize_options({"no such option, surely": True})
    assert "no such option, surely" in caught.value.reason  # the message names the unknown option


def test_an_entry_with_a_field_its_kind_lacks_is_refused(game):
    """The platform refuses an unknown field, naming it and the fields the kind has."""
    from companion.platform.core.contract import MalformedEntry
    from companion.platform.core.play import check_fields
    for kind, fields in game.entry_fields.items():
        check_fields(game, {"kind": kind, "key": "k", **{f: None for f in fields}})
        with pytest.raises(MalformedEntry) as caught:
            check_fields(game, {"kind": kind, "colour": "red"})
        assert f'A "{kind}" entry has no field "colour"' in caught.value.reason
        assert all(f'"{f}"' in caught.value.reason for f in fields)


@pytest.mark.parametrize("game_id", GAME_IDS)
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), pick=st.integers(0, 2))
def test_random_playouts_driven_by_hints_reach_the_end(game_id, seed, pick):
    game = GAMES[game_id]
    players = player_counts(game)[pick % len(player_counts(game))]
    state, steps = playout(game, players, random.Random(seed))
    assert game.finished(state), f"{len(steps)} entries and still playing"
    assert game.waiting_for(state) == []
    assert set(game.winners(state)) <= set(range(players))
    assert len(game.totals(state)) == players
    # once over, nothing more is taken: every seat's attempt is refused with a reason
    for seat in range(players):
        for entry in steps[-1].alternatives[:3] + [steps[-1].entry]:
            assert game.check(state, seat, entry)


@pytest.mark.parametrize("game_id", GAME_IDS)
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1))
def test_check_agrees_with_apply_and_a_refusal_changes_nothing(game_id, seed):
    game, players, rng = _seeded(game_id, seed)
    _, steps = playout(game, players, rng, max_steps=80)
    for step in steps:
        assert game.check(step.before, step.seat, step.entry) is None
        for other in range(players):  # the same entry from every other seat: refused or taken, never both
            refusal = game.check(step.before, other, step.entry)
            views_before = game.view(step.before, Viewer.table())
            try:
                game.apply(step.before, other, step.entry)
            except RuleError as exc:
                assert refusal == exc.reason, "check and apply must give the same refusal"
                assert game.view(step.before, Viewer.table()) == views_before
            else:
                assert refusal is None


@pytest.mark.parametrize("game_id", GAME_IDS)
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1))
def test_replaying_the_log_reproduces_the_state_and_views_are_json(game_id, seed):
    game, players, rng = _seeded(game_id, seed)
    options = game.normalize_options({})
    final, steps = playout(game, players, rng, max_steps=200)
    state = game.new_state(players, options)
    for step in steps:
        state = game.apply(state, step.seat, step.entry)
    assert state == final
    for viewer in viewers(players):
        assert game.view(state, viewer) == game.view(final, viewer)
    for step in steps[:: max(1, len(steps) // 15)]:
        for viewer in viewers(players):
            json.dumps(game.view(step.after, viewer))
        seat, _ = legal_choice(game, step.before, rng)
        json.dumps(game.hints(step.before, seat, game.sample_draft(step.before, seat, rng)))


@pytest.mark.parametrize("game_id", GAME_IDS)
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1))
def test_a_secret_entry_is_invisible_to_every_viewer_it_is_kept_from(game_id, seed):
    """Whatever the secret choice was, a viewer it is hidden from sees exactly the same view."""
    game, players, rng = _seeded(game_id, seed)
    _, steps = playout(game, players, rng, max_steps=200)
    for step in steps:
        for viewer in viewers(players):
            if not game.secret(step.seat, step.entry, step.before, step.after, viewer):
                continue
            assert viewer.private_seat != step.seat, "an entry is never secret from its own device"
            seen = game.view(step.after, viewer)
            for other in step.alternatives:
                after = game.apply(step.before, step.seat, other)
                if game.secret(step.seat, other, step.before, after, viewer):
                    assert game.view(after, viewer) == seen


def test_every_game_is_reachable_from_the_start_page(client):
    page = client.get("/").get_data(as_text=True)
    for game in GAMES.values():
        assert f'value="{game.id}"' in page and game.title in page


def test_the_start_page_seats_as_many_players_as_the_largest_game(client):
    from tests.helpers import csrf_from

    page = client.get("/").get_data(as_text=True)
    most = max(g.max_players for g in GAMES.values())
    assert f'name="player{most - 1}"' in page and f'name="player{most}"' not in page
    biggest = max(GAMES.values(), key=lambda g: g.max_players)
    form = {"game": biggest.id, "csrf_token": csrf_from(page), **{f"player{i}": f"P{i}" for i in range(most)}}
    resp = client.post("/tables", data=form)
    assert resp.status_code == 303, resp.get_data(as_text=True)
    code = resp.headers["Location"].split("/")[2]
    assert client.get(f"/api/tables/{code}").get_json()["players"][-1]["name"] == f"P{most - 1}"


def test_a_game_keeps_documents_only_in_the_collections_it_declares(app):
    from companion.platform.web.context import collection

    with app.test_request_context():
        for game in GAMES.values():
            with pytest.raises(LookupError):
                collection(game.id, "no such collection")
            for name in game.collections:
                docs = collection(game.id, name)
                docs.save("Contract test", {"n": 1}, owner="someone")
                assert [(d.name, d.data, d.owner) for d in docs.all()] == [("Contract test", {"n": 1}, "someone")]
                docs.delete("Contract test")
                assert docs.get("Contract test") is None


@pytest.mark.parametrize("game_id", GAME_IDS)
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_a_finished_games_categories_give_every_seat_a_whole_number(game_id, seed):
    """Game.categories, drawn on the result card: labelled rows of one whole number per seat."""
    game, players, rng = _seeded(game_id, seed)
    state, _ = playout(game, players, rng)
    categories = game.categories(state)
    assert isinstance(categories, list)
    for label, points in categories:
        assert isinstance(label, str) and label and len(points) == players
        assert all(isinstance(p, int) and not isinstance(p, bool) for p in points)


@pytest.mark.parametrize("game_id", GAME_IDS)
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_a_finished_game_gives_each_seat_a_record_of_numbers(game_id, seed):
    """Game.record: chart title -> {label: number}, JSON as it is, the same charts for every seat."""
    game, players, rng = _seeded(game_id, seed)
    options = game.normalize_options({})
    state, _ = playout(game, players, rng)
    records = [game.record(state, seat) for seat in range(players)]
    assert json.loads(json.dumps(records)) == records
    for rec in records:
        assert isinstance(rec, dict)
        for title, bars in rec.items():
            assert isinstance(title, str) and title and isinstance(bars, dict) and bars
            assert all(isinstance(label, str) and isinstance(v, (int, float)) and not isinstance(v, bool)
                       for label, v in bars.items())
    assert len({tuple(rec) for rec in records}) == 1
    assert isinstance(game.highest_wins(options), bool)
    assert game.starting_seat(options, players) in range(players)


@pytest.mark.parametrize("game_id", GAME_IDS)
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1))
def test_every_game_has_its_rules_text_and_refusals_cite_rules_it_numbers(game_id, seed):
    from companion.platform.web.rules_page import rules_document

    document = rules_document(game_id)
    assert document is not None, f"{GAMES[game_id].rules_path} is missing"
    game, players, rng = _seeded(game_id, seed)
    _, steps = playout(game, players, rng, max_steps=60)
    for step in steps:
        for other in range(players):
            try:
                game.apply(step.before, other, step.entry)
            except RuleError as exc:
                if exc.rule is not None:
                    assert exc.rule in document[1], f"{exc.reason!r} cites {exc.rule}, which the rules text lacks"
