"""A seat's API entry, in its plain case and in every other: checked, logged and announced, and
everything that is not a plain entry (refusals, other tokens, odd bodies, a spent allowance) gets its
reason."""
from __future__ import annotations

from tests.fixtures import served_app
from tests.helpers import bearer, csrf_from, log, new_table, post_entry

CHANCE = {"kind": "score", "dice": [2, 3, 4, 5, 6], "category": "chance"}


def test_a_plain_entry_is_logged_as_sent(client):
    table = new_table(client, ["Ann", "Ben"], options={"turn_order": False})
    first = post_entry(client, table, 0, **CHANCE)
    # a charset in the type is the same request
    second = client.post(f"/api/tables/{table['code']}/entries", data='{"kind": "score", "dice": [1, 1, 1, 1, 1],'
                         ' "category": "ones"}', headers={**bearer(table["seats"][1]["token"]),
                                                          "Content-Type": "application/json; charset=utf-8"})
    assert first.status_code == second.status_code == 201
    assert first.get_json() == {"seq": 1, "version": 1} and second.get_json() == {"seq": 2, "version": 2}
    # logged as sent: who, what, from which device
    logged = log(client, table["code"])[0]
    assert (logged["seat"], logged["kind"], logged["category"], logged["dice"]) == (0, "score", "chance", [2, 3, 4, 5, 6])


def test_the_table_hears_of_an_api_entry(client):
    table = new_table(client, ["Ann", "Ben"])
    before = client.get(f"/t/{table['code']}/poll?v=0.0.0").get_data(as_text=True)
    assert post_entry(client, table, 0, **CHANCE).status_code == 201
    changed = client.get(f"/t/{table['code']}/poll?v={before}")
    assert changed.status_code == 200 and changed.headers["HX-Trigger"] == "table-changed"
    state = client.get(f"/api/tables/{table['code']}").get_json()
    assert state["version"] == 1 and state["players"][0]["total"] == 20


def test_an_entry_the_rules_refuse_gets_the_reason_and_changes_nothing(client):
    table = new_table(client, ["Ann", "Ben"])  # turn order: Ann first (DZ-20)
    refused = post_entry(client, table, 1, **CHANCE)
    assert refused.status_code == 422
    assert refused.get_json() == {"error": "It is Ann's turn: turns go in seat order, so wait for Ann.",
                                  "rule": "DZ-20"}
    assert post_entry(client, table, 0, **CHANCE).status_code == 201
    again = post_entry(client, table, 1, kind="score", dice=[2, 3, 4, 5, 6], category="yahtzee")
    assert again.status_code == 400 and "yahtzee" in again.get_json()["error"]  # no such box: malformed
    assert [e["seat"] for e in log(client, table["code"])] == [0]


def test_a_repeated_idempotency_key_gets_the_first_answer_marked_as_a_replay(client):
    table = new_table(client, ["Ann", "Ben"])
    first = post_entry(client, table, 0, key="tap-1", **CHANCE)
    again = post_entry(client, table, 0, key="tap-1", **CHANCE)
    assert first.status_code == again.status_code == 201
    assert first.get_json() == again.get_json() == {"seq": 1, "version": 1}
    assert "Idempotent-Replayed" not in first.headers and again.headers["Idempotent-Replayed"] == "true"
    other = post_entry(client, table, 0, key="tap-1", kind="score", dice=[1, 1, 1, 1, 1], category="ones")
    assert other.status_code == 409
    assert len(log(client, table["code"])) == 1


def test_what_is_not_a_plain_entry_gets_the_route_s_own_answer(client):
    table = new_table(client, ["Ann", "Ben"], pass_and_play=True)
    url = f"/api/tables/{table['code']}/entries"
    ann = bearer(table["seats"][0]["token"])
    cases = [
        (client.post(url, data="{not json", headers={**ann, "Content-Type": "application/json"}), 400,
         "Send a JSON object with Content-Type: application/json."),
        (client.post(url, json=["score"], headers=ann), 400, "Send a JSON object with Content-Type: application/json."),
        (client.post(url, json={**CHANCE, "seat": 1}, headers=ann), 403, "A seat token writes only for its own seat."),
        (client.post(url, json={"kind": "undo"}, headers=ann), 400,
         "Undo has its own endpoint: POST /api/tables/<code>/undo."),
        (client.post(url, json={**CHANCE, "note": "caf\u00e9\u0000"}, headers=ann), 400,
         "Text in a request may not contain the NUL character."),
        (client.post(url, json={**CHANCE, "dice": [2, 3, 4, 5, 2 ** 60]}, headers=ann), 400,
         f"Whole numbers in a request must be from {-(2 ** 53 - 1)} to {2 ** 53 - 1}."),
        (client.post(url, json=CHANCE, headers=bearer("not-a-token-of-this-table")), 403,
         "That token does not belong to this table."),
        (client.post(url, json=CHANCE), 401, "Send the seat token as 'Authorization: Bearer <token>'."),
        (client.post("/api/tables/ZZZZZZ/entries", json=CHANCE, headers=ann), 404, "There is no table ZZZZZZ."),
    ]
    for resp, status, error in cases:
        assert (resp.status_code, resp.get_json()["error"]) == (status, error)
    assert log(client, table["code"]) == []
    # the host enters for a seat at a pass-and-play table: the route's case, and it is recorded
    host = client.post(url, json={**CHANCE, "seat": 0}, headers=bearer(table["host_token"]))
    assert host.status_code == 201 and [e["seat"] for e in log(client, table["code"])] == [0]


def test_a_body_with_space_around_it_or_text_after_it_is_answered_with_its_reason(client):
    table = new_table(client, ["Ann", "Ben"], options={"turn_order": False})
    url = f"/api/tables/{table['code']}/entries"
    as_json = {"Content-Type": "application/json"}
    chance = '{"kind": "score", "dice": [2, 3, 4, 5, 6], "category": "chance"}'
    ones = '{"kind": "score", "dice": [1, 1, 1, 1, 1], "category": "ones"}'
    # JSON's own spacing around the object is taken
    spaced = client.post(url, data=chance + " \r\n\t", headers={**bearer(table["seats"][0]["token"]), **as_json})
    assert (spaced.status_code, spaced.get_json()) == (201, {"seq": 1, "version": 1})
    leading = client.post(url, data="\n " + ones, headers={**bearer(table["seats"][1]["token"]), **as_json})
    assert (leading.status_code, leading.get_json()) == (201, {"seq": 2, "version": 2})
    ann = {**bearer(table["seats"][0]["token"]), **as_json}
    refused = [
        client.post(url, data=chance + " 7", headers=ann),  # a second document after the first
        client.post(url, data=chance + "\u3000", headers=ann),  # a space that JSON does not count as one
        client.post(url, data=chance.encode()[:-1] + b"\xff}", headers=ann),  # not UTF-8 at all
    ]
    for resp in refused:
        assert (resp.status_code, resp.get_json()["error"]) == (
            400, "Send a JSON object with Content-Type: application/json."), resp.get_data(as_text=True)
    # UTF-16 (with its byte order mark) is JSON too, and it is taken
    twos = client.post(url, data=ones.replace("1", "2").replace("ones", "twos").encode("utf-16"), headers=ann)
    assert (twos.status_code, twos.get_json()) == (201, {"seq": 3, "version": 3})
    assert [(e["seat"], e["category"]) for e in log(client, table["code"])] == [(0, "chance"), (1, "ones"), (0, "twos")]


def test_a_client_that_spent_its_allowance_guessing_is_refused_an_entry_too(client, app):
    table = new_table(client, ["Ann", "Ben"])
    guesser = app.test_client()
    guesser.environ_base["REMOTE_ADDR"] = "10.5.5.5"
    answers = [guesser.get(f"/t/{guess}").status_code for guess in ("ZZZZZZ", "YYYYYY") * 20]
    assert answers[-1] == 429
    refused = post_entry(guesser, table, 0, **CHANCE)
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
    assert post_entry(client, table, 0, **CHANCE).status_code == 201  # the table's own phones play on
    assert len(log(client, table["code"])) == 1


def test_a_seat_token_the_host_moved_to_another_phone_no_longer_writes(client, app):
    table = new_table(client, ["Ann", "Ben"], options={"turn_order": False})
    code = table["code"]
    assert post_entry(client, table, 0, **CHANCE).status_code == 201
    link = client.post(f"/api/tables/{code}/seats/0/handover", headers=bearer(table["host_token"])).get_json()["link"]
    path = "/" + link.split("://", 1)[1].split("/", 1)[1]
    new_phone = app.test_client()
    asked = new_phone.get(path)
    assert new_phone.post(path, data={"csrf_token": csrf_from(asked.get_data(as_text=True))}).status_code == 303
    moved = post_entry(client, table, 0, **CHANCE)  # the API client still sends the seat's old token
    assert moved.status_code == 403
    assert moved.get_json()["error"] == ("The host moved this seat to another device: "
                                         "this token no longer writes for it.")
    assert len(log(client, code)) == 1
    # Ben's token still writes, and the entry counts in the game as it now is
    assert post_entry(client, table, 1, **CHANCE).status_code == 201
    assert [e["seat"] for e in log(client, code)] == [0, 1]


def test_entries_another_process_wrote_meanwhile_are_counted_before_the_next_one(db_url):
    """Two servers on one database: each judges an entry against the log as it now is, whatever the
    table was when it last wrote there (DZ-20: turns go in seat order)."""
    first = served_app({"DATABASE_URL": db_url, "TESTING": True, "SECRET_KEY": "test-secret"})
    second = served_app({"DATABASE_URL": db_url, "TESTING": True, "SECRET_KEY": "test-secret"})
    one, two = first.test_client(), second.test_client()
    table = new_table(one, ["Ann", "Ben"])
    assert post_entry(one, table, 0, **CHANCE).status_code == 201
    refused = post_entry(one, table, 0, kind="score", dice=[1, 1, 1, 1, 1], category="ones")
    assert refused.status_code == 422 and refused.get_json()["rule"] == "DZ-20"  # Ben's turn
    assert post_entry(two, table, 1, **CHANCE).status_code == 201  # Ben, through the other server
    taken = post_entry(one, table, 0, kind="score", dice=[1, 1, 1, 1, 1], category="ones")
    assert taken.status_code == 201 and taken.get_json() == {"seq": 3, "version": 3}
    assert post_entry(one, table, 0, **CHANCE).status_code == 422  # and Ben's turn again
    assert [(e["seq"], e["seat"]) for e in log(two, table["code"])] == [(1, 0), (2, 1), (3, 0)]
    first.extensions["store"].dispose()
    second.extensions["store"].dispose()
