"""The change check a page starts with is the one the server compares: a page whose table did not
change is not refreshed, also after a seat moved to another phone."""
from __future__ import annotations

import html
import re

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
