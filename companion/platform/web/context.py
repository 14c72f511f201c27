"""What a request at a table is about, loaded once: `g.table`, `g.seat`, `g.host`, `g.invited`,
`g.device` and `g.replay`.

As flaskr loads `g.user` before every request, every route with a `<code>` in its URL (the
platform's and the games' own) gets the table, the seat this browser holds and whether it is the
host's, and the current game's replay; decorators guard the seat and host routes. A game's web
part gets one PlayContext instead of querying anything itself.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from functools import cached_property

from flask import abort, current_app, g, make_response, render_template, request, url_for

from . import auth
from .address import base_for_phones
from ..core.contract import Game, Text, Viewer, named_texts
from ..core.play import Replay, TableError, load_replay, seat_viewer
from ..core.registry import get_game
from ..store.schema import CODE_ALPHABET, CODE_LENGTH
from ..core.records import Document, TableInfo
from ..store.storage import Store

# endpoints that answer from a cheaper query than a replay (every open page holds a stream)
LIGHT_ENDPOINTS = {"pages.poll", "pages.live"}



def store() -> Store:
    return current_app.extensions["store"]


class Collection:
    """One named document collection a game declared (`Game.collections`), in this app's store."""

    def __init__(self, st: Store, game: str, name: str):
        self.store, self.game, self.name = st, game, name

    def all(self) -> list[Document]:
        return self.store.documents(self.game, self.name)

    def get(self, key: str) -> Document | None:
        return self.store.document(self.game, self.name, key)

    def save(self, key: str, data: dict, owner: str | None = None) -> None:
        self.store.save_document(self.game, self.name, key, data, owner)

    def create(self, key: str, data: dict, owner: str | None) -> bool:
        """Add a document under a name nobody uses yet; False if the name is taken."""
        return self.store.create_document(self.game, self.name, key, data, owner)

    def delete(self, key: str) -> None:
        self.store.delete_document(self.game, self.name, key)


def collection(game_id: str, name: str) -> Collection:
    """A game's own documents; only the collections the game declares exist."""
    if name not in get_game(game_id).collections:
        raise LookupError(f"{game_id} declares no document collection {name!r}")
    return Collection(store(), game_id, name)


_CODE_LETTERS = frozenset(CODE_ALPHABET)


def valid_code(code: str) -> str | None:
    """The table code in canonical form, or None if it cannot be one (checked before any query)."""
    code = code.strip().upper() if isinstance(code, str) else ""
    if len(code) == CODE_LENGTH and _CODE_LETTERS.issuperset(code):
        return code
    return None


def get_table(code: str) -> TableInfo:
    canonical = valid_code(code)
    table = store().table(canonical) if canonical else None
    if table is None:
        abort(404, Text("There is no table {code}.", code=code[:12]) if code.isprintable() else Text("There is no such table."))
    return table


def load_table_context() -> None:
    """before_request: fill g for any route whose URL names a table."""
    code = (request.view_args or {}).get("code")
    if code is None or request.endpoint in LIGHT_ENDPOINTS:
        return
    g.table = get_table(code)
    g.seat = auth.my_seat(g.table)
    g.host = auth.is_host(g.table)
    g.invited = g.host or g.seat is not None or auth.has_invitation(g.table)
    g.device = auth.this_device(g.table, g.seat, g.host)
    g.replay = load_replay(store(), g.table, version=g.table.version_when_read)


def game_replay(game_no: int | None) -> Replay:
    """The replay of this table's game number `game_no` (None: the current one, already loaded)."""
    if game_no is None or game_no == g.table.current_game:
        return g.replay
    if not 1 <= game_no <= g.table.current_game:
        abort(404, Text("Table {code} has no game {game_no}.", code=g.table.code, game_no=game_no))
    try:
        return load_replay(store(), g.table, game_no)
    except TableError as exc:
        abort(exc.status, exc.reason)


def reload_replay() -> Replay:
    g.replay = load_replay(store(), g.table)
    return g.replay


def sheet_viewer(table: TableInfo, seat: int) -> Viewer:
    """Who looks at seat `seat`'s page: its own phone, or the device passed round the table."""
    if g.seat == seat and not table.pass_and_play:
        return seat_viewer(g.replay, seat, g.device)
    return Viewer.shared(seat)


def screen_viewer() -> Viewer:
    """Who looks at a page of the whole table (the table view, the host screen)."""
    if g.get("host") and g.table.pass_and_play:
        return Viewer.shared()
    return Viewer.host() if g.get("host") else Viewer.table()


def check_seat_number(seat: int) -> None:
    if not 0 <= seat < len(g.table.seats):
        abort(404, Text("Table {code} has no seat {seat}.", code=g.table.code, seat=seat))


def may_play(seat: int) -> bool:
    """A phone may write for a seat it holds, and the host for every seat in pass-and-play."""
    return g.seat == seat or (g.table.pass_and_play and g.host)


def seat_required(view):
    """The route's `seat` must be held by this browser (or it is the pass-and-play device)."""
    @functools.wraps(view)
    def wrapped(*args, seat, **kwargs):
        check_seat_number(seat)
        if not may_play(seat):
            token = auth.seat_cookie_token(g.table)
            if token and store().moved_seat(g.table.code, token) == seat:
                return seat_moved(seat)
            abort(403, Text("This phone does not hold {name}'s seat. Join the table first.", name=g.table.seats[seat].name))
        return view(*args, seat=seat, **kwargs)
    return wrapped


def seat_moved(seat: int):
    """Tell a phone whose seat the host moved to another phone, on its own screen."""
    if request.headers.get("HX-Request"):
        # a live refresh of the sheet: have the page itself load, which then says so
        resp = make_response("", 200)
        resp.headers["HX-Redirect"] = url_for("pages.sheet", code=g.table.code, seat=seat)
        return resp
    return render_template("table/seat_moved.html", table=g.table, seat=g.table.seats[seat]), 410


def host_required(view):
    @functools.wraps(view)
    def wrapped(*args, **kwargs):
        if not g.host:
            abort(403, "Only the host can do that.")
        return view(*args, **kwargs)
    return wrapped


@dataclass
class PlayContext:
    """Everything a game's web part draws from: the table, the replay and who is looking."""

    table: TableInfo
    replay: Replay
    viewer: Viewer

    @property
    def game(self) -> Game:
        return self.replay.game

    @property
    def seat(self) -> int | None:
        """The seat whose sheet this is (None on the table view)."""
        return self.viewer.plays_for

    @property
    def options(self) -> dict:
        return self.replay.info.options

    @property
    def names(self) -> list[str]:
        return self.table.names

    @property
    def finished(self) -> bool:
        return self.replay.finished

    @cached_property
    def view(self) -> dict:
        return self.game.view(self.replay.state, self.viewer)

    def hints(self, draft) -> dict:
        """The rules' hints for this seat's draft, any refusal in them naming players, not seats."""
        return named_texts(self.game.hints(self.replay.state, self.seat, draft), self.names)

    def sheet_url(self, **args) -> str:
        return url_for("pages.sheet", code=self.table.code, seat=self.seat, **args)


def play_context(viewer: Viewer) -> PlayContext:
    return PlayContext(g.table, g.replay, viewer)


def absolute_url(path: str) -> str:
    """A full address for `path` that phones can open: PUBLIC_URL if set, else how this request came in."""
    base = current_app.config.get("PUBLIC_URL") or base_for_phones(request.host_url)
    return base.rstrip("/") + path


def invite_url(table: TableInfo) -> str:
    """The join link of the QR code: it carries the table's join secret."""
    return absolute_url(url_for("pages.invite", code=table.code, secret=table.join_secret))


def players_summary(rep: Replay, table: TableInfo, view: dict) -> list[dict]:
    """Seat, name and total of every player, with the sheet the view gives each (for the API and exports)."""
    totals = rep.game.totals(rep.state)
    vplayers = view.get("players")
    if not isinstance(vplayers, list):
        vplayers = []
    out = []
    for s in table.seats:
        item = {"seat": s.seat, "name": s.name, "total": totals[s.seat]}
        if s.seat < len(vplayers) and isinstance(vplayers[s.seat], dict) and "sheet" in vplayers[s.seat]:
            item["sheet"] = vplayers[s.seat]["sheet"]
        out.append(item)
    return out
