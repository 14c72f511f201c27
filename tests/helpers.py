"""Small helpers the web tests share: start tables, sign forms, read the log."""
from __future__ import annotations

import re


def new_table(client, players=("Ann", "Ben"), game="dicez", options=None, **extra):
    resp = client.post("/api/tables", json={"game": game, "players": list(players), "options": options or {}, **extra})
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def post_entry(client, table, seat, **entry):
    return client.post(f"/api/tables/{table['code']}/entries", json=entry,
                       headers=bearer(table["seats"][seat]["token"]))


def log(client, code):
    return client.get(f"/api/tables/{code}/entries").get_json()["entries"]


def csrf_from(html: str) -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert match, "page has no CSRF token"
    return match.group(1)


def join_seat(client, code, seat):
    """Open the join page and take a seat like a phone would; return the CSRF token."""
    page = client.get(f"/t/{code}")
    token = csrf_from(page.get_data(as_text=True))
    resp = client.post(f"/t/{code}/join", data={"seat": seat, "csrf_token": token})
    assert resp.status_code == 303, resp.get_data(as_text=True)
    return token
