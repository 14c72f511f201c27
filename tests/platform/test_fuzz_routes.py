"""Every route of the app, fuzzed: whatever a browser or a client sends, the answer is never a 5xx.

The routes come from the app's own url_map, so a route added later is fuzzed without touching this
file. Before fuzzing, a table of every game is started from the start form (a browser holds its host
screen, another one a seat) and through the API (seat and host tokens), and one game is finished.
Every GET route is then opened as those browsers: the links, form fields and values on those pages
are what plausible requests are made of. Half of the requests are plausible (a real table, the
caller's own seat, its token, a valid CSRF token, the page's own fields); the other half are anything
at all: lone surrogates, NUL, huge and negative numbers, NaN and Infinity, long and non-Latin text.
"""
from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote, unquote, urlencode, urlsplit

from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from werkzeug.exceptions import HTTPException

from companion.games.dice_and_slice.rules.edition import default_edition_data
from companion.platform.core.registry import GAMES
from tests.helpers import bearer, csrf_from, join_seat, new_table, start_table_page

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES_PER_ROUTE = int(os.environ.get("FUZZ_EXAMPLES", 16))
FUZZ = settings(max_examples=EXAMPLES_PER_ROUTE, derandomize=True, deadline=None, database=None,
                suppress_health_check=list(HealthCheck))

WEIRD = ["", " ", "0", "-1", "1", "2", "99999999999999999999", "1e309", "NaN", "-Infinity", "\x00", "a\x00b",
         "\ud800", "x\udfff", "é", "🍕", "../../etc/passwd", "%00", "<b>x</b>", "A" * 300, "true", "null", "[]",
         "{}", "default", "A", "B"]
NASTY = ["\ud800", "x\udfff", "a\x00b", "", " ", "A" * 300, "🍕", "<b>x</b>"]
weird_text = st.one_of(st.sampled_from(WEIRD), st.text(max_size=12))
numbers = st.one_of(st.integers(-3, 20), st.sampled_from([2**53, -(2**53), 10**30, 2**63]),
                    st.floats(allow_nan=True, allow_infinity=True))
json_scalars = st.one_of(st.none(), st.booleans(), numbers, weird_text)
LINK = re.compile(r'\b(?:href|action|hx-get|hx-post|src)="(?:https?://[^/"]+)?(/[^"]*)"')


def json_values(keys):
    return st.recursive(json_scalars, lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.dictionaries(st.one_of(st.sampled_from(keys), weird_text), inner, max_size=5)), max_leaves=10)


class Forms(HTMLParser):
    """The forms of a page: their action paths and, per field, the values the page offers."""

    def __init__(self):
        super().__init__()
        self.forms: list[tuple[str, dict[str, set[str]]]] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self.forms.append((a.get("hx-post") or a.get("action") or "", {}))
        elif tag in ("input", "button", "select", "textarea", "option") and self.forms:
            fields = self.forms[-1][1]
            if a.get("name"):
                self._last = a["name"]
                fields.setdefault(a["name"], set()).add(a.get("value") or "")
            elif tag == "option" and getattr(self, "_last", None):
                fields[self._last].add(a.get("value") or "")


@dataclass(frozen=True)
class Who:
    """Someone who may plausibly ask things of a table: a browser with cookies or an API client."""

    client: FlaskClient
    code: str
    game: str
    seat: int
    token: str | None = None


def _query_names() -> list[str]:
    """Every query argument the app's code reads."""
    names = set()
    for path in (ROOT / "companion").rglob("*.py"):
        names |= set(re.findall(r'args\.get\(\s*"([^"]+)"', path.read_text()))
    return sorted(names)


class World:
    """Tables of every game, the clients that hold them, and the links, fields and values of their pages."""

    def __init__(self, app):
        self.app = app
        self.anon, self.host, self.player = app.test_client(), app.test_client(), app.test_client()
        self.csrf = {c: csrf_from(c.get("/").get_data(as_text=True)) for c in (self.anon, self.host, self.player)}
        self.sent: dict[str, list] = {}  # JSON bodies the app took, by endpoint
        self.browsers: list[Who] = []
        self.api: list[Who] = []
        self.tokens: list[str] = []
        for game_id, game in GAMES.items():
            self._seed_game(game_id, game)
        self._finish_a_game()
        # a named Dice and Slice edition, so its pages have something to show
        app.extensions["store"].save_document("dice_and_slice", "editions", "Fuzz box", default_edition_data())
        self.codes = sorted({w.code for w in self.browsers + self.api})
        self.query_names = _query_names()
        self.links: set[str] = set()
        self.fields: dict[str, set[str]] = {}  # per game ("" for pages of no table)
        self.forms: dict[str, list[dict[str, set[str]]]] = {}  # by the path they are sent to
        self.values: set[str] = set()
        self._harvest()

    def _seed_game(self, game_id, game):
        players = ["Ann", "Ben"] if game.max_players >= 2 else ["Ann"]
        code = start_table_page(self.host, game=game_id, **{f"player{i}": n for i, n in enumerate(players)})
        join_seat(self.player, code, 0)
        self.browsers += [Who(self.host, code, game_id, len(players) - 1), Who(self.player, code, game_id, 0)]
        # every option spelled out (a Dice and Slice table carries its whole edition): more to garble
        table = self.sent_json("api.create_table", "/api/tables", {
            "game": game_id, "players": players, "options": game.normalize_options({}),
            "pass_and_play": game_id == "dicez"})
        self.tokens += [table["host_token"], *(s["token"] for s in table["seats"])]
        self.api += [Who(self.anon, table["code"], game_id, s["seat"], s["token"]) for s in table["seats"]]
        self.api.append(Who(self.anon, table["code"], game_id, 0, table["host_token"]))

    def sent_json(self, endpoint: str, path: str, body: dict, token: str | None = None) -> dict:
        resp = self.anon.post(path, json=body, headers=bearer(token) if token else {})
        assert resp.status_code == 201, resp.get_json()
        self.sent.setdefault(endpoint, []).append(body)
        return resp.get_json()

    def _finish_a_game(self):
        table = new_table(self.anon, ["Ann"], game="score_pad")
        token = table["seats"][0]["token"]
        for entry in ({"kind": "score", "points": 3}, {"kind": "finish"}):
            self.sent_json("api.add_entry", f"/api/tables/{table['code']}/entries", entry, token)
        self.tokens += [table["host_token"], token]
        self.api += [Who(self.anon, table["code"], "score_pad", 0, token),
                     Who(self.anon, table["code"], "score_pad", 0, table["host_token"])]

    def _harvest(self):
        """Open every GET route as each browser at its own table: collect links, field names and values."""
        for rule in self.app.url_map.iter_rules():
            if "GET" not in rule.methods or rule.endpoint == "static":
                continue
            for who in self.browsers if rule.arguments else [Who(self.host, "", "", 0)]:
                if set(rule.arguments) - {"code", "seat"}:
                    continue
                resp = who.client.get(_build_path(rule, {"code": who.code, "seat": str(who.seat)}))
                if resp.status_code == 200 and resp.mimetype == "text/html":
                    self.read_page(who.game, resp.get_data(as_text=True))

    def read_page(self, game: str, html: str):
        self.links |= {unquote(link.replace("&amp;", "&")) for link in LINK.findall(html)}
        parser = Forms()
        parser.feed(html)
        for action, fields in parser.forms:
            self.forms.setdefault(urlsplit(action).path, []).append(fields)
        self.fields.setdefault(game, set()).update(re.findall(r'\bname="([^"]+)"', html))
        self.values |= set(re.findall(r'\bvalue="([^"]{1,40})"', html)) - set(self.csrf.values())

    def fields_for(self, game: str) -> list[str]:
        entry_fields = {f for g in GAMES.values() for fields in g.entry_fields.values() for f in fields}
        return sorted(self.fields.get(game, set()) | self.fields.get("", set()) | entry_fields
                      | {"kind", "key", "seat", "game", "players", "options", "pass_and_play"})

    def links_to(self, rule) -> list[str]:
        """The paths of harvested links that lead to `rule`."""
        adapter = self.app.url_map.bind("localhost")
        out = []
        for link in sorted(self.links):
            path = urlsplit(link).path
            try:
                endpoint, _ = adapter.match(path, method=sorted(rule.methods - {"OPTIONS"})[0])
            except HTTPException:
                continue
            if endpoint == rule.endpoint:
                out.append(path)
        return out


def _build_path(rule, values: dict) -> str:
    def fill(match):
        name = match.group(1)
        safe = "/" if type(rule._converters[name]).__name__ == "PathConverter" else ""
        return quote(values[name], safe=safe, errors="surrogatepass")
    return re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", fill, rule.rule)


def _encode(pairs: dict) -> str:
    # a lone surrogate goes out as the bytes a careless client would send
    return urlencode([(k, str(v)) for k, v in pairs.items()], encoding="utf-8", errors="surrogatepass")


def _nonsense_path(world: World, rule, data) -> str:
    values = {}
    for name, conv in rule._converters.items():
        if type(conv).__name__ == "IntegerConverter":
            values[name] = str(data.draw(st.integers(0, 10**25), label=name))
        else:
            real = world.codes + [c.lower() for c in world.codes] + world.tokens
            values[name] = data.draw(st.one_of(st.sampled_from(real), weird_text.filter(bool)), label=name)
    return _build_path(rule, values)


def _plausible_path(world: World, rule, who: Who, data) -> str:
    links = world.links_to(rule)
    if links and (not rule.arguments or data.draw(st.booleans(), label="harvested link")):
        return data.draw(st.sampled_from(links), label="link")
    values = {"code": who.code}
    for name, conv in rule._converters.items():
        if type(conv).__name__ == "IntegerConverter":
            values[name] = str(data.draw(st.sampled_from([who.seat, 1]), label=name))
        elif name != "code":
            values[name] = data.draw(st.sampled_from([who.token or "x", *world.tokens]), label=name)
    return _build_path(rule, values)


def _who(world: World, rule, data) -> Who:
    """A plausible caller; a game's own routes are asked of that game's tables."""
    blueprint = rule.endpoint.partition(".")[0]
    people = world.api if rule.rule.startswith("/api/") else world.browsers
    if blueprint in GAMES:
        people = [w for w in people if w.game == blueprint] or people
    return data.draw(st.sampled_from(people), label="who")


def _entry_like(world: World, game: str):
    """A JSON object shaped like an entry of the table's game, with any values (and now and then a
    field no entry has)."""
    kinds = sorted(GAMES[game].entry_kinds) + ["undo", "nonsense"]
    fields = sorted({f for fs in GAMES[game].entry_fields.values() for f in fs} | {"key", "seat", "colour"})
    small = st.one_of(st.integers(-1, 12), _typed(world), st.sampled_from(["A", "B"]),
                      st.lists(st.integers(0, 6), max_size=5),
                      st.dictionaries(st.sampled_from(["A", "B"]), st.integers(0, 7)),
                      st.lists(st.lists(st.integers(0, 11), min_size=2, max_size=2), max_size=4))
    return st.fixed_dictionaries({"kind": st.sampled_from(kinds)}, optional={f: small for f in fields})


def _typed(world: World):
    """What a person types or taps: a name, a small number, or a value some page offers."""
    return st.one_of(st.sampled_from(["Ann", "Bea", "0", "1", "3", "-5", "12"]), st.sampled_from(sorted(world.values)))


def _leaves(value, path=()):
    """The paths to every leaf of a JSON value."""
    if isinstance(value, dict) and value:
        return [p for k, v in value.items() for p in _leaves(v, path + (k,))]
    if isinstance(value, list) and value:
        return [p for i, v in enumerate(value) for p in _leaves(v, path + (i,))]
    return [path]


def _replaced(value, path, new):
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _replaced(value[head], rest, new)}
    return [_replaced(v, rest, new) if i == head else v for i, v in enumerate(value)]


def _garbled(bodies: list):
    """A body the app once took, with one leaf replaced: a text (a name, an edition's label) by odd
    text, or any leaf by any value."""
    @st.composite
    def garble(draw):
        body = draw(st.sampled_from(bodies))
        leaves = _leaves(body)
        texts = [p for p in leaves if isinstance(_at(body, p), str)]
        if texts and draw(st.booleans()):
            return _replaced(body, draw(st.sampled_from(texts)), draw(st.sampled_from(NASTY)))
        return _replaced(body, draw(st.sampled_from(leaves)), draw(json_scalars))
    return garble()


def _at(value, path):
    for step in path:
        value = value[step]
    return value


def _table_like():
    names = st.lists(st.sampled_from(["Ann", "Bea", "Cy", " ", "A" * 41]), max_size=4)
    return st.fixed_dictionaries({"game": st.sampled_from(list(GAMES)), "players": names},
                                 optional={"options": st.one_of(st.just({}), st.dictionaries(st.text(max_size=6), json_scalars, max_size=2)),
                                           "pass_and_play": st.booleans()})


def _filled_in(world: World, fields: dict[str, set[str]]):
    """A page's form as a person might send it: each field one of the values the page offers, a
    name or a value from another page, or left out."""
    typed = _typed(world)
    return st.fixed_dictionaries({}, optional={
        name: st.one_of(st.sampled_from(sorted(offered)), typed) for name, offered in fields.items()
        if name != "csrf_token"})


def _request(world: World, rule, data):
    """(client, method, path, test client arguments)."""
    plausible = data.draw(st.sampled_from([True, True, False]), label="plausible")
    method = data.draw(st.sampled_from(sorted(rule.methods - {"HEAD", "OPTIONS"})), label="method")
    if plausible:
        who = _who(world, rule, data)
        client, token, path = who.client, who.token, _plausible_path(world, rule, who, data)
        value = _typed(world)
        names = st.sampled_from(world.fields_for(who.game))
    else:
        client = data.draw(st.sampled_from([world.anon, world.host, world.player]), label="client")
        token = data.draw(st.sampled_from([None, "junk", *world.tokens]), label="bearer")
        path = _nonsense_path(world, rule, data)
        value = st.one_of(weird_text, numbers.map(str), st.sampled_from(sorted(world.values)))
        names = st.one_of(st.sampled_from(world.fields_for("")), weird_text)
    headers = bearer(token) if token else {}
    if data.draw(st.booleans(), label="htmx"):
        headers["HX-Request"] = "true"
    query = data.draw(st.dictionaries(st.one_of(st.sampled_from(world.query_names), weird_text), value, max_size=4),
                      label="query")
    kwargs = {"headers": headers, "query_string": _encode(query)}
    if method == "GET":
        return client, method, path, kwargs
    csrf = world.csrf[client] if plausible else data.draw(st.sampled_from([world.csrf[client], None, "junk"]),
                                                          label="csrf")
    if csrf:
        headers["X-CSRF-Token"] = csrf
    if plausible:  # what the app's own pages send, or an API client
        kind = "json" if path.startswith("/api/") else "form"
    else:
        kind = data.draw(st.sampled_from(["none", "form", "json"]), label="body")
    if kind == "form":
        forms = world.forms.get(path, []) if plausible else []
        if forms:
            form = data.draw(_filled_in(world, data.draw(st.sampled_from(forms), label="page form")), label="form")
        else:
            form = data.draw(st.dictionaries(names, value, max_size=8), label="form")
        kwargs.update(data=_encode({**form, **({"csrf_token": csrf} if csrf else {})}),
                      content_type="application/x-www-form-urlencoded")
    elif kind == "json":
        if plausible:
            shaped = _table_like() if "code" not in rule.arguments else _entry_like(world, who.game)
            if rule.endpoint in world.sent:
                shaped = st.one_of(shaped, _garbled(world.sent[rule.endpoint]))
        else:
            shaped = json_values(world.fields_for(""))
        body = data.draw(shaped, label="json")
        kwargs.update(data=json.dumps(body), content_type="application/json")
    return client, method, path, kwargs


def _what_follows(resp) -> list[str]:
    """The pages a browser or client opens next: a redirect's target; a new table's pages."""
    if resp.status_code in (301, 302, 303, 307, 308) and resp.headers["Location"].startswith("/"):
        return [resp.headers["Location"]]
    if resp.status_code == 201 and resp.is_json and "join_url" in resp.get_json():
        code = resp.get_json()["code"]
        return [f"/t/{code}/view", f"/api/tables/{code}", f"/t/{code}/games/1/export.json"]
    return []


def test_no_route_answers_a_5xx_whatever_it_is_sent(app):
    world = World(app)
    rules = list(app.url_map.iter_rules())
    seen: dict[str, set[int]] = {}
    started = time.monotonic()

    for rule in rules:
        @FUZZ
        @given(data=st.data())
        def fuzz(data):
            client, method, path, kwargs = _request(world, rule, data)
            resp = client.open(path, method=method, **kwargs)
            assert resp.status_code < 500, (method, path, kwargs, resp.get_data(as_text=True)[:300])
            if resp.status_code == 200 and resp.mimetype == "text/html":
                pages.append(resp.get_data(as_text=True))  # e.g. a hand-over link to claim
            for then in _what_follows(resp):  # a bad table shows itself only on the next page
                after = client.get(then)
                assert after.status_code < 500, (method, path, kwargs, "then GET", then)
            if path.startswith("/api/") and resp.status_code >= 400:
                assert resp.get_json()["error"], (method, path)
            seen.setdefault(rule.rule, set()).add(resp.status_code)
        pages: list[str] = []
        fuzz()
        for html in pages:  # what this route answered feeds the next routes' requests, not its own
            world.read_page("", html)

    assert set(seen) == {r.rule for r in rules}
    # every route was reached past its URL and its guards: some answer other than 400, 403 or 404
    # every route was reached past "no such page", and most of them past their guards too
    assert not [r for r, statuses in seen.items() if not statuses - {404}], seen
    guarded = [r for r, statuses in seen.items() if not statuses - {400, 403, 404}]
    assert len(guarded) <= len(rules) // 4, guarded
    print(f"\nfuzzed {len(rules)} routes x {EXAMPLES_PER_ROUTE} requests in {time.monotonic() - started:.1f} s; "
          f"never past the guards: {guarded}")
