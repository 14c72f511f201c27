"""Small helpers the web tests share: start tables, sign forms, read the log."""
from __future__ import annotations

import re


# the tables new_table made, by code: join_seat moves a seat from the API client to a phone
_TABLES: dict[str, dict] = {}


def new_table(client, players=("Ann", "Ben"), game="dicez", options=None, **extra):
    resp = client.post("/api/tables", json={"game": game, "players": list(players), "options": options or {}, **extra})
    assert resp.status_code == 201, resp.get_json()
    table = resp.get_json()
    _TABLES[table["code"]] = table
    return table


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


def start_table_page(client, **form) -> str:
    """Start a table from the start page as the host's browser does; return its code."""
    csrf = csrf_from(client.get("/").get_data(as_text=True))
    resp = client.post("/tables", data={"game": "dicez", **form, "csrf_token": csrf})
    assert resp.status_code == 303, resp.get_data(as_text=True)
    code = resp.headers["Location"].split("/")[2]
    host = client.get(f"/t/{code}/host").get_data(as_text=True)
    join_url = re.search(r'href="([^"]+)" class="join-url"', host).group(1)
    pin = re.search(r'class="pin">(\d+)<', host).group(1)
    seats = client.get(f"/api/tables/{code}").get_json()["players"]
    _TABLES[code] = {"code": code, "join_url": join_url, "pin": pin, "host_token": client.get_cookie(f"host_{code}").value,
                     "seats": [{"seat": p["seat"]} for p in seats]}
    return code


def invite(client, table):
    """Open the table's join link (its QR code) on this client, as a phone scanning it."""
    path = "/" + table["join_url"].split("/", 3)[3]
    assert client.get(path).status_code == 303


def join_seat(client, code, seat):
    """Put seat `seat` on this client as a phone: scan the QR code and tap the name, or, for a seat
    another device holds (the API client, another phone), have the host hand it over. A seat token
    the test holds becomes the phone's (the same device, so the test can keep writing for it through
    the API). Returns the CSRF token."""
    table = _TABLES[code]
    invite(client, table)
    token = csrf_from(client.get("/").get_data(as_text=True))  # the start page always has a form
    resp = client.post(f"/t/{code}/join", data={"seat": seat, "csrf_token": token})
    if resp.status_code == 409:
        link = client.post(f"/api/tables/{code}/seats/{seat}/handover", headers=bearer(table["host_token"]))
        path = "/" + link.get_json()["link"].split("/", 3)[3]
        resp = client.post(path, data={"csrf_token": token})
    assert resp.status_code == 303, resp.get_data(as_text=True)
    if "token" in table["seats"][seat]:
        table["seats"][seat]["token"] = client.get_cookie(f"seat_{code}").value
    return token
