"""The JSON API for other clients (documented in docs/api.md).

Writes need `Authorization: Bearer <token>`: a seat token writes for its seat; the
host token writes host actions, and for any seat when the table is pass-and-play.
"""
from __future__ import annotations

from flask import Blueprint, g, jsonify, request, url_for

from . import auth
from .context import absolute_url, check_seat_number, game_replay, invite_url, players_summary, store
from ..core.contract import MalformedEntry, RuleError, Viewer
from ..core.registry import GAMES
from ..core.play import Replay, TableError, new_table, record, seat_viewer, visible_log
from ..store.players import player_record
from ..core.records import HANDOVER_MINUTES, fingerprint
from .i18n import current_language, localize

api = Blueprint("api", __name__, url_prefix="/api")


@api.errorhandler(TableError)
def _table_error(exc: TableError):
    return jsonify(error=localize(exc.reason)), exc.status


@api.errorhandler(RuleError)
def _rule_error(exc: RuleError):
    cited = {"rule": exc.rule} if exc.rule else {}
    return jsonify(error=localize(exc.reason), **cited), 400 if isinstance(exc, MalformedEntry) else 422


def _body(optional: bool = False, fields: tuple[str, ...] | None = None) -> dict:
    """The request's JSON object; with `fields`, any other top-level field is refused."""
    if optional and not request.get_data():
        return {}
    if b"\\u0000" in request.get_data():
        raise TableError(400, "Text in a request may not contain the NUL character.")
    try:
        data = request.get_json(silent=True)
    except RecursionError:  # absurdly deep nesting: nothing a client means
        data = None
    if not isinstance(data, dict):
        raise TableError(400, "Send a JSON object with Content-Type: application/json.")
    unknown = sorted(set(data) - set(fields)) if fields is not None else []
    if unknown:
        takes = ", ".join(f'"{f}"' for f in fields) or "no fields"
        raise TableError(400, 'This request has no field "{unknown}" (it takes: {takes}).', unknown=unknown[0], takes=takes)
    return data


def _bearer() -> str | None:
    header = request.headers.get("Authorization", "")
    if header.startswith("Bearer "):
        return header[len("Bearer "):].strip() or None
    return None


def _writer(table, body: dict) -> tuple[int, bool]:
    """(the seat this request writes for, whether the host writes it for them), from the token."""
    token = _bearer()
    if token is None:
        raise TableError(401, "Send the seat token as 'Authorization: Bearer <token>'.")
    g.device = fingerprint(token)
    seat = auth.seat_for_token(table, token)
    if seat is not None:
        if "seat" in body and body["seat"] != seat:
            raise TableError(403, "A seat token writes only for its own seat.")
        return seat, False
    if auth.same_secret(token, table.host_token):
        if not table.pass_and_play and body.get("kind") not in g.replay.game.host_kinds:
            raise TableError(403, "The host writes for players only at a pass-and-play table.")
        seat = body.get("seat")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(table.seats):
            raise TableError(400, 'Say which seat this is for: "seat" from 0 to {number}.', number=len(table.seats) - 1)
        return seat, not table.pass_and_play
    if store().moved_seat(table.code, token) is not None:
        raise TableError(403, "The host moved this seat to another device: this token no longer writes for it.")
    raise TableError(403, "That token does not belong to this table.")


def _viewer(table, rep: Replay) -> Viewer:
    """Who reads: a seat's own client, the host (the shared device at pass-and-play) or anyone."""
    token = _bearer()
    seat = auth.seat_for_token(table, token)
    if seat is not None:
        return seat_viewer(rep, seat, fingerprint(token))
    if token and auth.same_secret(token, table.host_token):
        return Viewer.shared() if table.pass_and_play else Viewer.host()
    return Viewer.table()


@api.post("/tables")
def create_table():
    body = _body(fields=("game", "players", "options", "pass_and_play", "seat_tokens"))
    game = body.get("game")
    if not isinstance(game, str):
        raise TableError(400, '"game" must name a game, one of: {games}.', games=", ".join(GAMES))
    pass_and_play, seat_tokens = body.get("pass_and_play", False), body.get("seat_tokens", True)
    if not isinstance(pass_and_play, bool) or not isinstance(seat_tokens, bool):
        raise TableError(400, '"pass_and_play" and "seat_tokens" must be true or false.')
    table = new_table(store(), game, body.get("players"), body.get("options"), pass_and_play,
                      seats_taken=seat_tokens)
    seats = [{"seat": s.seat, "name": s.name, **({"token": s.token} if seat_tokens else {})} for s in table.seats]
    return jsonify(code=table.code, join_url=invite_url(table), pin=table.pin, host_token=table.host_token,
                   game_no=table.current_game, seats=seats), 201


@api.get("/tables/<code>")
def table_state(code):
    table, rep = g.table, g.replay
    viewer = _viewer(table, rep)
    # the viewer is part of the tag: two viewers may be shown different things of one version.
    # Weak: the same state gzipped or not is the same answer, and Flask-Compress keeps weak tags as they are.
    etag = f'W/"{table.code}-{table.current_game}-{rep.version}-{viewer.kind}-{viewer.seat}-{current_language()}"'
    if request.if_none_match.contains_weak(etag[3:-1]):
        return "", 304, {"ETag": etag}
    view = rep.game.view(rep.state, viewer)
    resp = jsonify(
        code=table.code,
        game=rep.game.id,
        game_no=table.current_game,
        version=rep.version,
        finished=rep.finished,
        winners=list(rep.game.winners(rep.state)),
        waiting_for=list(rep.game.waiting_for(rep.state)),
        pass_and_play=table.pass_and_play,
        players=players_summary(rep, table, view),
        view=view,
    )
    resp.headers["ETag"] = etag
    resp.headers["Cache-Control"] = "no-cache"
    return resp


@api.post("/tables/<code>/entries")
def add_entry(code):
    table = g.table
    body = _body()
    seat, by_host = _writer(table, body)
    entry = {k: v for k, v in body.items() if k not in ("key", "seat")}
    if entry.get("kind") == "undo":
        raise TableError(400, "Undo has its own endpoint: POST /api/tables/<code>/undo.")
    saved, _, created = record(store(), table, seat, entry, body.get("key"), replay=g.replay, by_host=by_host,
                               device=g.device)
    return _answer(jsonify(seq=saved.seq, version=saved.seq), created)


@api.post("/tables/<code>/undo")
def undo(code):
    table = g.table
    body = _body(optional=True, fields=("key", "seat"))
    seat, by_host = _writer(table, body)
    if by_host:
        raise TableError(403, "Only a player (or the host at a pass-and-play table) can undo their entry.")
    saved, _, created = record(store(), table, seat, {"kind": "undo"}, body.get("key"), device=g.device)
    return _answer(jsonify(seq=saved.seq, undone=saved.payload["target"], version=saved.seq), created)


def _answer(resp, created: bool):
    """A repeated idempotency key gets the first answer again, marked as a replay."""
    if not created:
        resp.headers["Idempotent-Replayed"] = "true"
    return resp, 201


@api.get("/tables/<code>/entries")
def entries(code):
    table = g.table
    rep = game_replay(request.args.get("game", type=int))
    token = _bearer()
    return jsonify(code=table.code, game=rep.game.id, game_no=rep.info.game_no, version=rep.version,
                   entries=visible_log(rep, _viewer(table, rep), fingerprint(token) if token else None))


def _require_host(table, what: str) -> None:
    token = _bearer()
    if not token or not auth.same_secret(token, table.host_token):
        raise TableError(403, "Only the host can {what}.", what=what)


@api.post("/tables/<code>/seats/<int:seat>/handover")
def handover(code, seat):
    """A single-use link that moves `seat` to the device that opens it (see the host screen)."""
    _require_host(g.table, "move a seat")
    check_seat_number(seat)
    token, expires = store().create_handover(g.table.code, seat, HANDOVER_MINUTES)
    link = absolute_url(url_for("pages.take_over_page", code=g.table.code, token=token))
    return jsonify(seat=seat, link=link, expires_at=expires.isoformat()), 201


@api.post("/tables/<code>/rematch")
def rematch(code):
    table = g.table
    _body(optional=True, fields=())
    _require_host(table, "start a rematch")
    if not g.replay.finished:
        raise TableError(409, "The game is still being played.")
    game_no = store().start_next_game(table.code, table.current_game)
    return jsonify(code=table.code, game_no=game_no), 201


@api.get("/players/<path:name>")
def player(name):
    """A player's record across games (the same name, case and spacing aside, at any table)."""
    rec = player_record(store(), name)
    if rec is None:
        raise TableError(404, "Nobody of that name has finished a game on this server yet.")
    return jsonify(rec.as_json())
