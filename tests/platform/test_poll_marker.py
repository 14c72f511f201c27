"""The change check a page starts with is the one the server compares: a page whose table did not
change is not refreshed, also after a seat moved to another phone."""
from __future__ import annotations

import html
import re

from companion import create_app
from tests.helpers import join_seat, new_table

HTMX = {"HX-Request": "true"}


def poll_url(page: str) -> str:
    """The check a page (or the answer to its own entry) would make: the version it shows."""
    version = re.search(r'id="live-seen" data-version="([^"]+)"', page).group(1)
    return html.unescape(f"/t/{CODE[0]}/poll?v={version}")


CODE = [""]


def test_pages_poll_for_what_the_server_compares_after_a_seat_moved(client, app):
    table = new_table(client, ["Ann", "Ben", "Cy"])
    code = CODE[0] = table["code"]
    csrf = join_seat(client, code, 0)  # the API client held the seat: the host hands it over
    other = app.test_client()
    join_seat(other, code, 1)
    join_seat(other, code, 1)  # and the same seat once more, to a second tab of that phone

    for path in (f"/t/{code}/s/0", f"/t/{code}/view"):
        assert client.get(poll_url(client.get(path).get_data(as_text=True))).status_code == 204

    # the version that comes back with a phone's own entry: its next check finds nothing new
    answer = client.post(f"/t/{code}/s/0/entries", headers=HTMX, data={
        "csrf_token": csrf, "d0": 1, "d1": 1, "d2": 1, "d3": 1, "d4": 1, "category": "ones"})
    assert answer.status_code == 200
    assert client.get(poll_url(answer.get_data(as_text=True))).status_code == 204
    assert other.get(poll_url(answer.get_data(as_text=True))).status_code == 204


def _marker(client, code: str) -> str:
    return client.get(f"/t/{code}/poll?v=0.0.0").get_data(as_text=True)


def test_an_unchanged_poll_is_refused_to_a_client_that_spent_its_allowance_guessing(client, app):
    code = new_table(client)["code"]
    marker = _marker(client, code)
    guesser = app.test_client()
    guesser.environ_base["REMOTE_ADDR"] = "10.4.4.4"
    assert guesser.get(f"/t/{code}/poll?v={marker}").status_code == 204
    answers = [guesser.get(f"/t/{guess}/poll?v={marker}").status_code for guess in ("ZZZZZZ", "YYYYYY") * 20]
    assert 404 in answers and answers[-1] == 429
    refused = guesser.get(f"/t/{code}/poll?v={marker}")
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
    assert client.get(f"/t/{code}/poll?v={marker}").status_code == 204  # the table's own phones poll on


def test_a_poll_after_an_entry_names_the_new_version_and_a_head_request_is_answered(client):
    table = new_table(client, ["Ann", "Ben"])
    code = table["code"]
    marker = _marker(client, code)
    client.post(f"/api/tables/{code}/entries", json={"kind": "score", "dice": [1, 1, 1, 1, 1], "category": "ones"},
                headers={"Authorization": f"Bearer {table['seats'][0]['token']}"})
    changed = client.get(f"/t/{code}/poll?v={marker}")
    assert changed.status_code == 200 and changed.headers["HX-Trigger"] == "table-changed"
    assert changed.get_data(as_text=True) != marker
    assert client.head(f"/t/{code}/poll?v={changed.get_data(as_text=True)}").status_code == 204


def test_behind_a_proxy_an_unchanged_poll_counts_the_client_the_proxy_names(db_url):
    app = create_app({"DATABASE_URL": db_url, "TESTING": True, "SECRET_KEY": "test-secret", "TRUST_PROXY": 1})
    client = app.test_client()
    code = new_table(client)["code"]
    marker = _marker(client, code)
    guesser, player = app.test_client(), app.test_client()
    guesser.environ_base["HTTP_X_FORWARDED_FOR"] = "10.9.9.9"
    player.environ_base["HTTP_X_FORWARDED_FOR"] = "10.9.9.10"  # through the same proxy, another phone
    assert [guesser.get(f"/t/{guess}/poll?v={marker}").status_code for guess in ("ZZZZZZ", "YYYYYY") * 20][-1] == 429
    assert guesser.get(f"/t/{code}/poll?v={marker}").status_code == 429
    assert player.get(f"/t/{code}/poll?v={marker}").status_code == 204
    app.extensions["store"].dispose()
