"""Whatever a client sends, the answer is a 4xx with a reason or a success, never a 500,
and a refused request leaves the log exactly as it was."""
from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import bearer, log, new_table

json_scalars = st.one_of(st.none(), st.booleans(), st.integers(-10, 200), st.floats(allow_nan=False),
                         st.text(max_size=8))
json_values = st.recursive(json_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=6), st.dictionaries(st.text(max_size=6), inner, max_size=4)), max_leaves=12)

KINDS = {
    "dicez": ["score", "roll", "undo", "nonsense"],
    "dice_and_slice": ["roll", "choose", "place", "bonus_dot", "skip_bonus", "pass"],
    "pizza_theory": ["place", "cut", "neutral"],
}
FIELDS = ["dice", "category", "held", "faces", "die", "dots", "dot", "space", "line", "seat", "key", "topping"]


def entry_bodies(game):
    return st.one_of(
        json_values,
        st.fixed_dictionaries({"kind": st.sampled_from(KINDS[game])},
                              optional={f: json_values for f in FIELDS}),
    )


def check_answer(client, table, resp):
    assert resp.status_code < 500
    if resp.status_code >= 400:
        assert isinstance(resp.get_json()["error"], str) and resp.get_json()["error"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=entry_bodies("dicez"))
def test_dicez_entries_never_crash_the_server(client, body):
    table = new_table(client)
    before = log(client, table["code"])
    resp = client.post(f"/api/tables/{table['code']}/entries", json=body, headers=bearer(table["seats"][0]["token"]))
    check_answer(client, table, resp)
    if resp.status_code >= 400:
        assert log(client, table["code"]) == before


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(game=st.sampled_from(["dice_and_slice", "pizza_theory"]), data=st.data())
def test_other_games_entries_never_crash_the_server(client, game, data):
    table = new_table(client, ["Ann", "Ben", "Cy"], game=game)
    seat = data.draw(st.integers(0, 2))
    body = data.draw(entry_bodies(game))
    before = log(client, table["code"])
    resp = client.post(f"/api/tables/{table['code']}/entries", json=body,
                       headers=bearer(table["seats"][seat]["token"]))
    check_answer(client, table, resp)
    if resp.status_code >= 400:
        assert log(client, table["code"]) == before


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=json_values, game=st.sampled_from(["dicez", "dice_and_slice", "pizza_theory", "chess"]))
def test_create_table_never_crashes(client, body, game):
    payload = {"game": game, "players": body} if not isinstance(body, dict) else {"game": game, **body}
    resp = client.post("/api/tables", json=payload)
    assert resp.status_code < 500
    payload = {"game": game, "players": ["Ann", "Ben"], "options": body}
    assert client.post("/api/tables", json=payload).status_code < 500


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(form=st.dictionaries(st.sampled_from(["d0", "d1", "d2", "d3", "d4", "category", "action", "hold0", "key"]),
                            st.text(max_size=5), max_size=9))
def test_phone_forms_never_crash(client, form):
    from tests.helpers import join_seat
    table = new_table(client)
    csrf = join_seat(client, table["code"], 0)
    resp = client.post(f"/t/{table['code']}/s/0/entries", data={**form, "csrf_token": csrf})
    assert resp.status_code < 500
    if resp.status_code >= 400:
        assert log(client, table["code"]) == []


def _raw(client, url, text, headers=None):
    """POST `text` as a JSON body exactly as written (lone surrogates, NaN, huge numbers and all)."""
    return client.post(url, data=text, content_type="application/json", headers=headers or {})


def test_an_edition_label_with_a_lone_surrogate_is_refused_and_no_table_is_made(client, store):
    from companion.games.dice_and_slice.rules.edition import default_edition_data
    edition = json.dumps(default_edition_data()).replace('"label": "', '"label": "x\\ud800', 1)
    body = f'{{"game": "dice_and_slice", "players": ["Ann"], "options": {{"edition": {edition}}}}}'
    resp = _raw(client, "/api/tables", body)
    assert resp.status_code == 400 and "lone UTF-16 surrogate" in resp.get_json()["error"]
    from sqlalchemy import func, select
    from companion.platform.store.schema import tables_t
    with store.engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(tables_t)).scalar() == 0


def test_the_editions_refuse_such_text_themselves():
    """Defence in depth: an edition reaching the rules by another way (a file, the store) is checked too."""
    import pytest
    from companion.games.dice_and_slice.rules.edition import default_edition_data, load_edition
    from companion.platform.core.contract import RuleError
    for where in ("label", "note"):
        data = default_edition_data()
        data[where] = "x\ud800"
        with pytest.raises(RuleError, match="cannot be stored"):
            load_edition(data)
    data = default_edition_data()
    data["sides"]["A"]["legend"]["\udfff"] = "ham"
    with pytest.raises(RuleError, match="cannot be stored"):
        load_edition(data)


def test_player_names_with_a_lone_surrogate_are_refused(client, store):
    import pytest
    from companion.platform.core.play import TableError, new_table as make_table
    resp = _raw(client, "/api/tables", '{"game": "dicez", "players": ["Ann\\ud83d"]}')
    assert resp.status_code == 400 and "surrogate" in resp.get_json()["error"]
    with pytest.raises(TableError, match="printable"):  # the platform's own check, past the request
        make_table(store, "dicez", ["Ann\ud83d"], {})


def test_numbers_no_game_uses_are_refused_with_the_reason(client):
    table = new_table(client, game="score_pad")
    url = f"/api/tables/{table['code']}/entries"
    token = bearer(table["seats"][0]["token"])
    for number in ("100000000000000000000000000000", "-9007199254740992", "1e309", "-1e400", "NaN", "Infinity"):
        resp = _raw(client, url, f'{{"kind": "score", "points": {number}}}', token)
        assert resp.status_code == 400, number
        assert resp.get_json()["error"].startswith(("Whole numbers in a request", "Numbers in a request")), number
        resp = _raw(client, "/api/tables", f'{{"game": "score_pad", "players": ["Ann"], "options": {{"rounds": {number}}}}}')
        assert resp.status_code == 400, number
    # the largest number a client counts exactly reaches the rules, which say what they allow
    resp = _raw(client, url, '{"kind": "score", "points": 9007199254740991}', token)
    assert resp.status_code == 422 and "from -100000 to 100000" in resp.get_json()["error"]
    assert log(client, table["code"]) == []


def test_the_api_refuses_fields_it_does_not_take_naming_them(client):
    resp = client.post("/api/tables", json={"game": "dicez", "players": ["Ann"], "colour": "red"})
    assert resp.status_code == 400
    assert resp.get_json()["error"] == ('This request has no field "colour" (it takes: "game", "players", '
                                        '"options", "pass_and_play", "seat_tokens").')
    table = new_table(client, ["Ann", "Ben"], game="dice_and_slice")
    code, token = table["code"], bearer(table["seats"][0]["token"])
    resp = client.post(f"/api/tables/{code}/entries", json={"kind": "roll", "faces": {"A": 1, "B": 2}, "foo": 1},
                       headers=token)
    assert resp.status_code == 400
    assert resp.get_json()["error"] == 'A "roll" entry has no field "foo" (it has: "faces").'
    resp = client.post(f"/api/tables/{code}/entries", json={"kind": "pass", "dots": []}, headers=token)
    assert resp.get_json()["error"] == 'A "pass" entry has no field "dots" (it has: no fields besides its kind).'
    resp = client.post(f"/api/tables/{code}/undo", json={"key": "k", "why": "oops"}, headers=token)
    assert resp.status_code == 400 and 'no field "why"' in resp.get_json()["error"]
    resp = client.post(f"/api/tables/{code}/rematch", json={"now": True}, headers=bearer(table["host_token"]))
    assert resp.status_code == 400 and 'no field "now" (it takes: no fields)' in resp.get_json()["error"]
    assert log(client, code) == []
    # what the fields are for still works: the key and, for the host at pass-and-play, the seat
    ok = client.post(f"/api/tables/{code}/entries", json={"kind": "roll", "faces": {"A": 1, "B": 2}, "key": "r1",
                                                          "seat": 0}, headers=token)
    assert ok.status_code == 201


def test_options_a_game_does_not_have_are_refused_naming_them(client):
    for game in ("dicez", "dice_and_slice", "pizza_theory", "score_pad"):
        resp = client.post("/api/tables", json={"game": game, "players": ["Ann", "Ben"], "options": {"turbo": True}})
        assert resp.status_code == 422 and "turbo" in resp.get_json()["error"], game
