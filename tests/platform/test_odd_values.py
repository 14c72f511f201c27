"""Every route, every method, and odd bytes or numbers in each place a request carries them: never a 5xx.

A deterministic product (no sampling, so a failure names its request and comes back on every run):
each route of the app's url_map (a route added later is in it with no change here), asked with each
odd value in turn in its path parts, its query, the Authorization header, the CSRF header, the
table's host, invitation and seat cookies, the browser and session cookies, and a form or JSON body,
and once with every method the route does not take. The requests are otherwise plausible (a real
table of the route's game, a browser holding its host, invitation and seat cookies and a valid CSRF
token), so the odd value is read where the route reads it, not refused before.

What a careless or hostile client sends arrives as bytes: non-ASCII text goes out as UTF-8 (percent
encoded in the URL, raw in headers and cookies, which a WSGI server hands over as Latin-1), a lone
surrogate as the bytes a careless encoder makes of it.
"""
from __future__ import annotations

import json
from urllib.parse import quote, urlencode

from companion.platform.core.registry import GAMES
from tests.helpers import bearer, join_seat, start_table_page
from tests.platform.test_fuzz_routes import _query_names as query_names

# beyond 64 bits, beyond 32 bits (PostgreSQL's integer), far beyond both
ODD = ["é", "🍕", "\x00", "\ud800", "9223372036854775808", "2147483648", "1" + "0" * 30, "-1", "NaN", "A" * 300,
       "%ZZ", "x y;z"]
METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
# the fields the pages' forms and the API's bodies carry (a route reads the ones it knows)
FIELDS = ("seat", "points", "code", "pin", "name", "key", "game_no", "next", "on", "action", "game", "player0",
          "player1", "line0", "category", "d0", "kind", "players", "options", "link", "round")
# every query argument the app's code reads by name, and the form's fields (a sheet reads its draft from either)
QUERY_NAMES = sorted(set(query_names()) | set(FIELDS))
PLAUSIBLE = {"seat": "0", "game_no": "1", "token": "x", "secret": "x", "name": "Ann", "filename": "app.js",
             "game_id": "dicez", "packed": "x"}


def _wire(text: str) -> str:
    """`text` as a header or cookie value arrives at the app: its UTF-8 bytes read as Latin-1."""
    return text.encode("utf-8", "surrogatepass").decode("latin-1")


def _path_part(text: str) -> str:
    return quote(text, safe="", errors="surrogatepass")


class World:
    """A table of every game and a finished one, and one browser holding every table's cookies."""

    def __init__(self, app):
        self.browser = app.test_client()
        self.tables = {}
        for game_id, game in GAMES.items():
            players = {"player0": "Ann", "player1": "Ben"} if game.max_players >= 2 else {"player0": "Ann"}
            self.tables[game_id] = start_table_page(self.browser, game=game_id, **players)
            self.csrf = join_seat(self.browser, self.tables[game_id], 0)
        self.finished = start_table_page(self.browser, game="score_pad", player0="Ann")
        join_seat(self.browser, self.finished, 0)
        seat_token = self.cookie(f"seat_{self.finished}")
        for entry in ({"kind": "score", "points": 3}, {"kind": "finish"}):
            resp = self.browser.post(f"/api/tables/{self.finished}/entries", json=entry, headers=bearer(seat_token))
            assert resp.status_code == 201, resp.get_json()
        codes = [*self.tables.values(), self.finished]
        self.table_cookies = [f"{kind}_{code}" for code in codes for kind in ("host", "invite", "seat")]
        self.cookies = {name: self.cookie(name) for name in [*self.table_cookies, "session"]}
        self.cookies["browser"] = "b" * 43  # what the app sets once a browser makes something of its own
        self.raw = app.test_client(use_cookies=False)  # sends exactly the Cookie header it is given

    def cookie(self, name: str) -> str:
        found = self.browser.get_cookie(name)
        assert found is not None, name
        return found.value

    def code_for(self, rule) -> str:
        """A table the route means: its game's for a game's own route, else the one that finished."""
        return self.tables.get(rule.endpoint.partition(".")[0], self.finished)


def _path(world: World, rule, odd_part: str | None = None, odd: str = "") -> str:
    values = {name: PLAUSIBLE.get(name, "x") for name in rule.arguments}
    if "code" in values:
        values["code"] = world.code_for(rule)
    parts = {name: _path_part(odd if name == odd_part else value) for name, value in values.items()}
    return _fill(rule.rule, parts)


def _fill(pattern: str, parts: dict) -> str:
    for name, part in parts.items():
        for converter in ("", "int:", "path:"):
            pattern = pattern.replace(f"<{converter}{name}>", part)
    return pattern


def _requests(world: World, rule):
    """(method, path, what varies, test client arguments) for one route."""
    plain = _path(world, rule)
    for method in METHODS:
        if method not in rule.methods:
            yield method, plain, "method", {}
    for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):  # HEAD is GET without the body
        for odd in ODD:
            for part in rule.arguments:
                yield method, _path(world, rule, part, odd), f"path part {part}", {}
            yield method, plain, "query", {"query_string": urlencode(
                {name: odd for name in QUERY_NAMES}, encoding="utf-8", errors="surrogatepass")}
            for place, headers in _odd_headers(world, odd):
                yield method, plain, place, {"headers": headers}
            if method in ("POST", "PUT", "PATCH", "DELETE"):
                yield method, plain, "body", _odd_body(world, plain, odd)


def _cookie_header(cookies: dict) -> str:
    return "; ".join(f"{name}={value}" for name, value in cookies.items())


def _odd_headers(world: World, odd: str):
    """(what varies, headers): the odd value in each header and cookie the app reads."""
    csrf = {"X-CSRF-Token": world.csrf}
    usual = _cookie_header(world.cookies)
    yield "Authorization", {"Authorization": "Bearer " + _wire(odd), "Cookie": usual, **csrf}
    yield "CSRF header", {"X-CSRF-Token": _wire(odd), "Cookie": usual}
    tables = {**world.cookies, **{name: _wire(odd) for name in world.table_cookies}}
    yield "host, invitation and seat cookies", {"Cookie": _cookie_header(tables), **csrf}
    for name in ("browser", "session"):
        yield f"{name} cookie", {"Cookie": _cookie_header({**world.cookies, name: _wire(odd)}), **csrf}


def _odd_body(world: World, path: str, odd: str) -> dict:
    headers = {"Cookie": _cookie_header(world.cookies), "X-CSRF-Token": world.csrf}
    if path.startswith("/api/"):
        body = {"kind": odd, "key": odd, "points": odd, "seat": odd, "game": odd, "players": [odd]}
        return {"headers": headers, "data": json.dumps(body), "content_type": "application/json"}
    form = urlencode({**{name: odd for name in FIELDS}, "csrf_token": world.csrf}, encoding="utf-8",
                     errors="surrogatepass")
    return {"headers": headers, "data": form, "content_type": "application/x-www-form-urlencoded"}


def test_odd_bytes_and_numbers_anywhere_in_a_request_never_get_a_5xx(app):
    world = World(app)
    failures, asked, reached = [], 0, set()
    for rule in app.url_map.iter_rules():
        for method, path, place, kwargs in _requests(world, rule):
            asked += 1
            try:
                resp = world.raw.open(path, method=method, **kwargs)
                status = resp.status_code
                resp.close()  # a live stream is never read
            except Exception as exc:  # noqa: BLE001 - a server would answer it with a 500
                status = f"{type(exc).__name__}: {exc}"
            if not isinstance(status, int) or status >= 500:
                failures.append((rule.rule, method, place, path, kwargs.get("headers", {}).get("Authorization"), status))
            elif status not in (404, 405):
                reached.add(rule.rule)
    assert failures == [], failures[:20]
    # the requests were plausible enough to reach the routes themselves, not only "no such page"
    missed = {r.rule for r in app.url_map.iter_rules()} - reached
    assert not missed, missed
    print(f"\n{asked} requests, none a 5xx")
