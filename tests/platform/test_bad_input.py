"""Whatever a client sends, the answer is a 4xx with a reason or a success, never a 500,
and a refused request leaves the log exactly as it was."""
from __future__ import annotations

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
