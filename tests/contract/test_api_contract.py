"""Every registered game played through the JSON API the same way: what the server answers must be
what the game's own rules say, refusals save nothing, secrets stay hidden in the log, undo restores."""
from __future__ import annotations

import random

import pytest

from companion.platform.core.contract import Game, RuleError, Viewer
from companion.platform.core.registry import GAMES
from tests.contract.playout import legal_choice
from tests.helpers import bearer, csrf_from, new_table

GAME_IDS = list(GAMES)


def _tokens(table) -> dict:
    """Who reads: each seat's own client, the host, and anyone without a token."""
    out = {Viewer.own(s["seat"]): s["token"] for s in table["seats"]}
    out[Viewer.host()] = table["host_token"]
    out[Viewer.table()] = None
    return out


def _get(client, url, token):
    resp = client.get(url, headers=bearer(token) if token else {})
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()


def _post(client, table, seat, entry):
    return client.post(f"/api/tables/{table['code']}/entries", json=entry,
                       headers=bearer(table["seats"][seat]["token"]))


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_a_random_game_through_the_api_matches_the_rules(client, game_id):
    game = GAMES[game_id]
    rng = random.Random(f"api-{game_id}")
    players = min(game.max_players, max(game.min_players, 3))
    names = [f"P{i}" for i in range(players)]
    table = new_table(client, names, game=game_id)
    code = table["code"]
    state = game.new_state(players, game.normalize_options({}))
    history = []  # (seat, entry, state before)
    for _ in range(40):
        if game.finished(state):
            break
        seat, legal = legal_choice(game, state, rng)
        entry = rng.choice(legal)
        # the same entry from a seat that may not make it is refused and saves nothing
        wrong = next((s for s in range(players) if game.check(state, s, entry)), None)
        if wrong is not None:
            version = _get(client, f"/api/tables/{code}", None)["version"]
            resp = _post(client, table, wrong, entry)
            assert resp.status_code in (400, 422) and resp.get_json()["error"] == _refusal(game, state, wrong, entry, names)
            assert _get(client, f"/api/tables/{code}", None)["version"] == version
        resp = _post(client, table, seat, entry)
        assert resp.status_code == 201, resp.get_json()
        history.append((seat, entry, state))
        state = game.apply(state, seat, entry)
        _assert_server_shows(client, table, game, state, history)
    _assert_undo_restores(client, table, game, history)


def _assert_server_shows(client, table, game, state, history):
    code = table["code"]
    for viewer, token in _tokens(table).items():
        answer = _get(client, f"/api/tables/{code}", token)
        assert answer["view"] == game.view(state, viewer)
        assert answer["finished"] == game.finished(state)
        assert answer["waiting_for"] == game.waiting_for(state)
        assert [p["total"] for p in answer["players"]] == game.totals(state)
        log = _get(client, f"/api/tables/{code}/entries", token)["entries"]
        for item, (seat, entry, before) in zip(log, history):
            hidden = game.secret(seat, entry, before, state, viewer)
            assert item.get("hidden", False) == hidden
            if hidden:
                assert set(item) <= {"seq", "seat", "kind", "time", "hidden"}


def _assert_undo_restores(client, table, game, history):
    """Undo of the last entry gives back the view from before it (or says why it cannot)."""
    if not history or game.finished(game.apply(history[-1][2], history[-1][0], history[-1][1])):
        return
    seat, entry, before = history[-1]
    now = game.apply(before, seat, entry)
    refusal = game.undo_refusal(seat, entry, before, now)
    resp = client.post(f"/api/tables/{table['code']}/undo", json={},
                       headers=bearer(table["seats"][seat]["token"]))
    if refusal:
        assert resp.status_code == 422 and resp.get_json()["error"] == refusal
        return
    assert resp.status_code == 201, resp.get_json()
    answer = _get(client, f"/api/tables/{table['code']}", None)
    assert answer["view"] == game.view(before, Viewer.table())


def _move_seat_to_a_new_device(client, table, seat) -> str:
    """The host hands `seat` over; a new device takes it. Returns that device's own token."""
    made = client.post(f"/api/tables/{table['code']}/seats/{seat}/handover", headers=bearer(table["host_token"]))
    assert made.status_code == 201, made.get_json()
    phone = client.application.test_client()
    path = "/" + made.get_json()["link"].split("/", 3)[3]
    page = phone.get(path).get_data(as_text=True)
    assert phone.post(path, data={"csrf_token": csrf_from(page)}).status_code == 303
    return phone.get_cookie(f"seat_{table['code']}").value


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_a_device_that_takes_a_seat_over_mid_game_sees_no_secret_chosen_before(client, game_id):
    """A secret is shown only to the device that chose it: a seat's new device reads what a shared
    device would until the reveal; where nothing is secret it reads the seat's whole own view."""
    game = GAMES[game_id]
    rng = random.Random(f"takeover-{game_id}")
    players = min(game.max_players, max(game.min_players, 3))
    table = new_table(client, [f"P{i}" for i in range(players)], game=game_id)
    code, state, secret = table["code"], game.new_state(players, game.normalize_options({})), False
    for _ in range(200):
        seat, legal = legal_choice(game, state, rng)
        entry = rng.choice(legal)
        assert _post(client, table, seat, entry).status_code == 201
        before, state = state, game.apply(state, seat, entry)
        secret = game.secret(seat, entry, before, state, Viewer.table())
        if secret or game.finished(state):
            break
    old_token = table["seats"][seat]["token"]
    assert _get(client, f"/api/tables/{code}", old_token)["view"] == game.view(state, Viewer.own(seat))
    new_token = _move_seat_to_a_new_device(client, table, seat)
    seen = _get(client, f"/api/tables/{code}", new_token)["view"]
    last = _get(client, f"/api/tables/{code}/entries", new_token)["entries"][-1]
    if secret:
        assert seen == game.view(state, Viewer.shared(seat)) != game.view(state, Viewer.own(seat))
        assert last["hidden"] is True
    else:
        assert seen == game.view(state, Viewer.own(seat)) and "hidden" not in last
    # the device that held the seat no longer writes for it
    assert _post(client, table, seat, entry).status_code == 403


def _refusal(game, state, seat, entry, names) -> str:
    """The rules' own refusal text as a player at this table reads it: seats by their names."""
    try:
        game.apply(state, seat, entry)
    except RuleError as exc:
        assert game.check(state, seat, entry) == exc.reason
        return exc.named(names).reason
    raise AssertionError("the rules took an entry check refused")


SECRET_GAMES = [g for g in GAME_IDS if type(GAMES[g]).secret is not Game.secret]


def _play_to_a_secret(client, table, game, write_token, rng):
    """Random play through the API until an entry is secret; (seat, entry, state before, state after)."""
    players = len(table["seats"])
    state = game.new_state(players, game.normalize_options({}))
    for _ in range(200):
        assert not game.finished(state), f"{game.id}: the game ended before any secret entry"
        seat, legal = legal_choice(game, state, rng)
        entry = rng.choice(legal)
        token, extra = write_token(seat)
        resp = client.post(f"/api/tables/{table['code']}/entries", json={**entry, **extra}, headers=bearer(token))
        assert resp.status_code == 201, resp.get_json()
        before, state = state, game.apply(state, seat, entry)
        if game.secret(seat, entry, before, state, Viewer.table()):
            return seat, entry, before, state
    raise AssertionError(f"{game.id}: no secret entry in 200 entries")


def _hidden_from(client, table, readers: dict) -> dict:
    """Who reads the log's last undone entry as hidden: reader name -> bool."""
    seen = {}
    for name, token in readers.items():
        log = _get(client, f"/api/tables/{table['code']}/entries", token)["entries"]
        undone = [item for item in log if item.get("undone")]
        assert len(undone) == 1, log
        seen[name] = undone[0].get("hidden", False)
        if seen[name]:
            assert set(undone[0]) <= {"seq", "seat", "kind", "time", "hidden", "undone"}
    return seen


@pytest.mark.parametrize("second_device", ["took the seat over", "joined a pass-and-play seat"])
@pytest.mark.parametrize("game_id", SECRET_GAMES)
def test_an_undone_secret_stays_hidden_from_everyone_it_was_hidden_from(client, game_id, second_device):
    """A second device of a seat undoes the seat's pending secret choice (made on another device): the
    choice it took back is never shown, not to that device, not to the table, not after the reveal."""
    game = GAMES[game_id]
    rng = random.Random(f"undone-secret-{game_id}")
    players = min(game.max_players, max(game.min_players, 3))
    pass_and_play = second_device != "took the seat over"
    table = new_table(client, [f"P{i}" for i in range(players)], game=game_id, pass_and_play=pass_and_play)
    tokens = {s["seat"]: s["token"] for s in table["seats"]}
    if pass_and_play:  # the host's device enters everything; the seat's own token is the second phone
        seat, entry, before, now = _play_to_a_secret(client, table, game, lambda s: (table["host_token"], {"seat": s}), rng)
    else:
        seat, entry, before, now = _play_to_a_secret(client, table, game, lambda s: (tokens[s], {}), rng)
        tokens[seat] = _move_seat_to_a_new_device(client, table, seat)
    undo = client.post(f"/api/tables/{table['code']}/undo", json={}, headers=bearer(tokens[seat]))
    refusal = game.undo_refusal(seat, entry, before, now)
    if refusal:  # a game that never takes a pending secret back has nothing to hide here
        assert undo.status_code == 422 and undo.get_json()["error"] == refusal
        return
    assert undo.status_code == 201, undo.get_json()
    readers = {"second device": tokens[seat], "table": None, "host": table["host_token"],
               **{f"seat {s}": t for s, t in tokens.items() if s != seat}}
    assert _hidden_from(client, table, readers) == {name: True for name in readers}
    # play on (the undo took back the last entry) until the choice would no longer be secret had it
    # stood: its round revealed, or the game over
    state = before
    for _ in range(200):
        if game.finished(state) or not game.secret(seat, entry, before, state, Viewer.table()):
            break
        s, legal = legal_choice(game, state, rng)
        choice = rng.choice(legal)
        token, extra = (table["host_token"], {"seat": s}) if pass_and_play else (tokens[s], {})
        assert client.post(f"/api/tables/{table['code']}/entries", json={**choice, **extra},
                           headers=bearer(token)).status_code == 201
        state = game.apply(state, s, choice)
    assert not game.secret(seat, entry, before, state, Viewer.table()), "the round never moved on"
    assert _hidden_from(client, table, readers) == {name: True for name in readers}
