"""HTML pages: start a table, join it, play on a phone, watch the table, history and export."""
from __future__ import annotations

import csv
import io
import json
import secrets

from flask import (Blueprint, Response, abort, current_app, make_response, redirect, render_template,
                   request, url_for)
from htmx_flask import make_response as htmx_response

from ..rules import GAMES, RuleError
from ..tables import TableError, load_replay, new_table, record, visible_log
from . import auth
from .common import absolute_url, get_table, join_url, players_summary, store, valid_code
from .qr import qr_svg, terminal_qr
from .ui import UIS, ui_for

pages = Blueprint("pages", __name__)

# Each game's phone pages register their GameUI on import.
from . import dice_and_slice, dicez, pizza_theory  # noqa: E402,F401


# ---- starting a table -------------------------------------------------------
@pages.get("/")
def home():
    return render_template("home.html", games=[g for g in GAMES.values() if g.id in UIS], uis=UIS,
                           error=None, form={})


@pages.post("/tables")
def create_table():
    form = request.form
    game_id = form.get("game", "")
    names = [n for n in (form.get(f"player{i}", "") for i in range(12)) if n.strip()]
    try:
        if game_id not in GAMES or game_id not in UIS:
            raise TableError(400, "Choose a game.")
        options = ui_for(game_id).create_options(form)
        table = new_table(store(), game_id, names, options, bool(form.get("pass_and_play")))
    except (TableError, RuleError) as exc:
        return render_template("home.html", games=[g for g in GAMES.values() if g.id in UIS], uis=UIS,
                               error=exc.reason, form=form), 422 if isinstance(exc, RuleError) else exc.status
    if current_app.config.get("ANNOUNCE_TABLES"):
        announce_table(table.code, GAMES[table.game].title, join_url(table.code))
    resp = redirect(url_for("pages.host", code=table.code), code=303)
    auth.set_cookie(resp, auth.host_cookie(table.code), table.host_token)
    return resp


def announce_table(code: str, title: str, url: str) -> None:
    """Print a new table's join address and QR code where the server runs (the host's laptop)."""
    print(f"\n{title} table {code}: players join at {url}\n{terminal_qr(url)}", flush=True)


# ---- the host's table screen ------------------------------------------------
@pages.get("/t/<code>/host")
def host(code):
    table = get_table(code)
    if not auth.is_host(table):
        abort(403, "Only the phone that started this table can open the host screen.")
    rep = load_replay(store(), table)
    return render_template("table/host.html", table=table, rep=rep, join_url=join_url(table.code),
                           poll_url=poll_url(table, rep), ui=ui_for(rep.game.id))


@pages.post("/t/<code>/host/pass-and-play")
def toggle_pass_and_play(code):
    table = get_table(code)
    _require_host(table)
    store().set_pass_and_play(table.code, request.form.get("on") == "1")
    return redirect(url_for("pages.host", code=table.code), code=303)


@pages.post("/t/<code>/seats/<int:seat>/handover")
def handover(code, seat):
    table = get_table(code)
    _require_host(table)
    _check_seat(table, seat)
    token = store().reissue_seat_token(table.code, seat)
    link = absolute_url(url_for("pages.claim", code=table.code, seat=seat, token=token))
    return render_template("table/handover.html", table=table, seat=table.seats[seat], link=link,
                           svg=qr_svg(link))


@pages.get("/t/<code>/claim/<int:seat>/<token>")
def claim(code, seat, token):
    table = get_table(code)
    _check_seat(table, seat)
    if auth.seat_for_token(table, token) != seat:
        abort(403, "This seat link is no longer valid. Ask the host for a new one.")
    resp = redirect(url_for("pages.sheet", code=table.code, seat=seat), code=303)
    auth.set_cookie(resp, auth.seat_cookie(table.code), token)
    return resp


@pages.get("/t/<code>/qr.svg")
def join_qr(code):
    table = get_table(code)
    return Response(qr_svg(join_url(table.code)), mimetype="image/svg+xml")


@pages.post("/t/<code>/rematch")
def rematch(code):
    table = get_table(code)
    _require_host(table)
    rep = load_replay(store(), table)
    if not rep.finished:
        abort(409, "Finish this game before starting a rematch.")
    store().start_next_game(table.code, table.current_game)
    back = request.form.get("next") or ""
    if not back.startswith("/") or back.startswith("//"):  # only back into this app
        back = url_for("pages.host", code=table.code)
    return redirect(back, code=303)


# ---- joining ---------------------------------------------------------------
@pages.get("/t/<code>")
def join(code):
    table = get_table(code)
    if code != table.code:
        return redirect(url_for("pages.join", code=table.code))
    return render_template("table/join.html", table=table, mine=auth.my_seat(table),
                           host=auth.is_host(table), error=None)


@pages.post("/t/<code>/join")
def take_seat(code):
    table = get_table(code)
    try:
        seat = int(request.form.get("seat", ""))
    except ValueError:
        seat = -1
    if not 0 <= seat < len(table.seats):
        return render_template("table/join.html", table=table, mine=auth.my_seat(table),
                               host=auth.is_host(table), error="Choose one of the seats."), 400
    mine = auth.my_seat(table)
    if mine == seat:
        return redirect(url_for("pages.sheet", code=table.code, seat=seat), code=303)
    if not store().claim_seat(table.code, seat):
        return render_template("table/join.html", table=table, mine=auth.my_seat(table), host=auth.is_host(table),
                               error=f"{table.seats[seat].name}'s seat is already taken. "
                                     "If that is you on a new phone, ask the host to hand the seat over."), 409
    if mine is not None:  # tapped the wrong name before: that seat is free again
        store().release_seat(table.code, mine)
    resp = redirect(url_for("pages.sheet", code=table.code, seat=seat), code=303)
    auth.set_cookie(resp, auth.seat_cookie(table.code), table.seats[seat].token)
    return resp


# ---- a player's sheet ----------------------------------------------------------
@pages.get("/t/<code>/s/<int:seat>")
def sheet(code, seat):
    table = get_table(code)
    _check_player(table, seat)
    return _sheet_page(table, seat, request.args)


@pages.get("/t/<code>/s/<int:seat>/sheet")
def sheet_fragment(code, seat):
    table = get_table(code)
    _check_player(table, seat)
    rep = load_replay(store(), table)
    return _render_sheet(table, rep, seat, request.args)


@pages.post("/t/<code>/s/<int:seat>/preview")
def preview(code, seat):
    table = get_table(code)
    _check_player(table, seat)
    if not request.htmx:  # the no-JavaScript "show what each box scores" button: a whole page
        return _sheet_page(table, seat, request.form)
    rep = load_replay(store(), table)
    return _render_sheet(table, rep, seat, request.form)


@pages.post("/t/<code>/s/<int:seat>/entries")
def add_entry(code, seat):
    return _record_from_form(code, seat, lambda rep: ui_for(rep.game.id).entry_from_form(request.form, rep, seat))


@pages.post("/t/<code>/s/<int:seat>/undo")
def undo(code, seat):
    return _record_from_form(code, seat, lambda rep: {"kind": "undo"})


def _record_from_form(code, seat, make_entry):
    """Record what a phone's form says; answer the new sheet (htmx) or redirect (plain POST)."""
    table = get_table(code)
    _check_player(table, seat)
    rep = load_replay(store(), table)
    try:
        _, rep, _ = record(store(), table, seat, make_entry(rep), request.form.get("key"), replay=rep)
    except (RuleError, TableError) as exc:
        return _refused(table, seat, exc)
    if request.htmx:
        # The poller learns the new version with the answer, so this phone's own entry does not
        # come back as a "table changed" refresh racing the player's next taps.
        poller = render_template("table/poller.html", poll_url=poll_url(table, rep), oob=True)
        return _render_sheet(table, rep, seat, {}) + poller
    return redirect(url_for("pages.sheet", code=table.code, seat=seat), code=303)


def _refused(table, seat, exc):
    status = 422 if isinstance(exc, RuleError) else exc.status
    rep = load_replay(store(), table)
    if request.htmx:
        return _render_sheet(table, rep, seat, request.form, error=exc.reason), status
    return _sheet_page(table, seat, request.form, error=exc.reason), status


def _sheet_page(table, seat, form, error=None):
    rep = load_replay(store(), table)
    return render_template("table/sheet_page.html", **_sheet_vars(table, rep, seat, form, error))


def _render_sheet(table, rep, seat, form, error=None):
    return render_template(ui_for(rep.game.id).sheet_template, **_sheet_vars(table, rep, seat, form, error))


def _sheet_vars(table, rep, seat, form, error):
    """What a seat's sheet is drawn from: the game's own context plus what every sheet shows."""
    ui = ui_for(rep.game.id)
    return {"table": table, "rep": rep, "seat": seat, "ui": ui, "error": error,
            **ui.sheet_context(rep, seat, form), **_common(table, rep, seat)}


def _common(table, rep, seat):
    return {
        "names": [s.name for s in table.seats],
        "totals": rep.game.totals(rep.state),
        "winners": rep.game.winners(rep.state),
        "waiting_for": rep.game.waiting_for(rep.state),
        "finished": rep.finished,
        "can_undo": (not rep.finished) and seat is not None and any(e.seat == seat for e in rep.effective),
        "poll_url": poll_url(table, rep),
        "is_host": auth.is_host(table),
        # a fresh idempotency key per rendered form: a double tap or a resent request applies once
        "form_key": secrets.token_urlsafe(12),
    }


# ---- the table view and live updates --------------------------------------
def poll_url(table, rep) -> str:
    taken = sum(1 for s in table.seats if s.claimed)
    return url_for("pages.poll", code=table.code, g=table.current_game, v=rep.version, s=taken)


@pages.get("/t/<code>/view")
def table_view(code):
    table = get_table(code)
    rep = load_replay(store(), table)
    ui = ui_for(rep.game.id)
    return render_template("table/view.html", table=table, rep=rep, ui=ui, join_url=join_url(table.code),
                           **ui.table_context(rep), **_common(table, rep, None))


@pages.get("/t/<code>/board")
def board_fragment(code):
    table = get_table(code)
    rep = load_replay(store(), table)
    ui = ui_for(rep.game.id)
    return render_template(ui.table_template, table=table, rep=rep, **ui.table_context(rep),
                           **_common(table, rep, None))


@pages.get("/t/<code>/poll")
def poll(code):
    """204 with no body while nothing changed; otherwise a new poller and a change event."""
    canonical = valid_code(code)
    marker = store().poll_marker(canonical) if canonical else None
    if marker is None:
        abort(404)
    game_no, version, taken = marker
    seen_game = request.args.get("g", type=int)
    seen = (seen_game, request.args.get("v", type=int), request.args.get("s", type=int))
    if marker == seen:
        return "", 204
    new_url = url_for("pages.poll", code=canonical, g=game_no, v=version, s=taken)
    body = render_template("table/poller.html", poll_url=new_url)
    if seen_game is not None and game_no != seen_game:
        return htmx_response(body, refresh=True)  # a rematch began: load the new game's page
    return htmx_response(body, trigger="table-changed")


# ---- history and export -----------------------------------------------------
@pages.get("/history")
def history():
    return render_template("history.html", games=store().finished_games(), table=None)


@pages.get("/t/<code>/history")
def table_history(code):
    table = get_table(code)
    return render_template("history.html", games=[g for g in store().games(table.code) if g.finished_at],
                           table=table)


@pages.get("/t/<code>/games/<int:game_no>/export.json")
def export_json(code, game_no):
    table = get_table(code)
    rep = _game_replay(table, game_no)
    view = rep.game.view(rep.state, None)
    data = {
        "code": table.code, "game": rep.game.id, "game_no": game_no, "options": rep.info.options,
        "started_at": rep.info.started_at.isoformat(),
        "finished_at": rep.info.finished_at.isoformat() if rep.info.finished_at else None,
        "finished": rep.finished, "winners": rep.game.winners(rep.state),
        "players": players_summary(rep, table, view),
        "entries": visible_log(rep, None),
    }
    resp = make_response(json.dumps(data, indent=2))
    resp.mimetype = "application/json"
    resp.headers["Content-Disposition"] = f'attachment; filename="{table.code}-{game_no}.json"'
    return resp


@pages.get("/t/<code>/games/<int:game_no>/export.csv")
def export_csv(code, game_no):
    table = get_table(code)
    rep = _game_replay(table, game_no)
    view = rep.game.view(rep.state, None)
    players = players_summary(rep, table, view)
    keys = []
    for p in players:
        for k in (p.get("sheet") or {}):
            if k not in keys and not isinstance(p["sheet"][k], (dict, list)):
                keys.append(k)
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(["seat", "name", *keys, "total", "winner"])
    winners = set(rep.game.winners(rep.state))
    for p in players:
        sheet = p.get("sheet") or {}
        w.writerow([p["seat"], _csv_text(p["name"]), *[("" if sheet.get(k) is None else sheet.get(k)) for k in keys],
                    p["total"], "yes" if p["seat"] in winners else ""])
    resp = make_response(out.getvalue())
    resp.mimetype = "text/csv"
    resp.headers["Content-Disposition"] = f'attachment; filename="{table.code}-{game_no}.csv"'
    return resp


def _csv_text(text: str) -> str:
    """Keep a spreadsheet from reading a player's name as a formula."""
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def _game_replay(table, game_no):
    if not 1 <= game_no <= table.current_game:
        abort(404, f"Table {table.code} has no game {game_no}.")
    try:
        return load_replay(store(), table, game_no)
    except TableError as exc:
        abort(exc.status, exc.reason)


# ---- guards ----------------------------------------------------------------
def _require_host(table):
    if not auth.is_host(table):
        abort(403, "Only the host can do that.")


def _check_seat(table, seat):
    if not 0 <= seat < len(table.seats):
        abort(404, f"Table {table.code} has no seat {seat}.")


def _check_player(table, seat):
    _check_seat(table, seat)
    if not auth.may_play(table, seat):
        abort(403, f"This phone does not hold {table.seats[seat].name}'s seat. Join the table first.")
