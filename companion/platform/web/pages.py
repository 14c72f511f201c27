"""HTML pages: start a table, join it, play on a phone, watch the table, history and export.

Every route with a `<code>` finds `g.table`, `g.seat`, `g.host` and `g.replay` loaded (context.py).
A game's pages are drawn from a PlayContext by the game's own GameWeb; this module names no game.
"""
from __future__ import annotations

import csv
import hashlib
import io
import json
import secrets

from flask import Blueprint, Response, abort, current_app, g, make_response, redirect, render_template, request, url_for
from htmx_flask import make_response as htmx_response

from . import auth
from .address import loopback_warning
from .context import (PlayContext, absolute_url, check_seat_number, game_replay, host_required, invite_url,
                      players_summary, play_context, reload_replay, screen_viewer, seat_required, sheet_viewer,
                      store, valid_code)
from ..core.contract import N_, RuleError, Text, Viewer
from ..live.updates import Live, NoStream, format_marker, parse_marker, stream
from ..core.play import TableError, last_entry, new_table, record, undo_refusal, visible_log
from ..core.records import HANDOVER_MINUTES
from .i18n import localize
from .qr import qr_svg, terminal_qr
from ..core.registry import GAMES
from .results import finale
from .share import bgstats_link, bgstats_play
from .rules_page import cite_rules

pages = Blueprint("pages", __name__)


def _playable_games():
    return [game for game in GAMES.values() if game.web is not None]


def _most_seats() -> int:
    """Name fields on the start form: as many as the largest game seats."""
    return max(game.max_players for game in _playable_games())


@pages.get("/sw.js")
def service_worker():
    """static/sw.js at the top of the site, so its scope covers every sheet; always asked afresh,
    so a changed worker reaches phones at their next visit."""
    resp = current_app.extensions["static_files"].serve("sw.js")
    resp.headers["Cache-Control"] = "no-cache"
    return resp


# ---- starting a table -------------------------------------------------------
@pages.get("/")
def home():
    return render_template("home.html", games=_playable_games(), seats=_most_seats(), error=None, form={})


@pages.post("/tables")
def create_table():
    form = request.form
    game_id = form.get("game", "")
    names = [n for n in (form.get(f"player{i}", "") for i in range(_most_seats())) if n.strip()]
    try:
        if game_id not in GAMES or GAMES[game_id].web is None:
            raise TableError(400, "Choose a game.")
        options = GAMES[game_id].web.create_options(form, len(names))
        table = new_table(store(), game_id, names, options, bool(form.get("pass_and_play")))
    except (TableError, RuleError) as exc:
        status = 422 if isinstance(exc, RuleError) else exc.status
        return render_template("home.html", games=_playable_games(), seats=_most_seats(), error=exc.reason,
                               form=form), status
    if current_app.config.get("ANNOUNCE_TABLES"):
        announce_table(table.code, GAMES[table.game].title, invite_url(table))
    resp = redirect(url_for("pages.host", code=table.code), code=303)
    auth.set_cookie(resp, auth.host_cookie(table.code), table.host_token)
    return resp


def announce_table(code: str, title: str, url: str) -> None:
    """Print a new table's join address and QR code where the server runs (the host's laptop)."""
    print(f"\n{title} table {code}: players join at {url}\n{terminal_qr(url)}", flush=True)


# ---- the host's table screen ------------------------------------------------
@pages.get("/t/<code>/host")
def host(code):
    if not g.host:
        abort(403, "Only the phone that started this table can open the host screen.")
    ctx = play_context(screen_viewer())
    join_url = invite_url(g.table)
    return render_template("table/host.html", join_url=join_url, join_warning=loopback_warning(join_url),
                           game_on=_game_on(g.table, g.replay),
                           my_seat=g.seat, **ctx.game.web.host_context(ctx), **_screen_vars(ctx))


def _game_on(table, rep) -> bool:
    """Once the first entry is in (or nobody is left to join), the host screen puts the game first
    and the join code second."""
    return bool(rep.entries) or table.pass_and_play or all(s.claimed for s in table.seats)


@pages.post("/t/<code>/host/pass-and-play")
@host_required
def toggle_pass_and_play(code):
    store().set_pass_and_play(g.table.code, request.form.get("on") == "1")
    return redirect(url_for("pages.host", code=g.table.code), code=303)


@pages.post("/t/<code>/host/new-pin")
@host_required
def renew_invitation(code):
    """A new PIN and join link: when wrong PIN tries have used up the table's allowance (which is
    the old PIN's: the new one starts afresh), or a link reached someone it should not have."""
    store().renew_invitation(g.table.code)
    return redirect(url_for("pages.host", code=g.table.code, renewed=1), code=303)


@pages.get("/t/<code>/seats/<int:seat>/move")
@host_required
def confirm_move(code, seat):
    check_seat_number(seat)
    return render_template("table/move_seat.html", table=g.table, seat=g.table.seats[seat],
                           minutes=HANDOVER_MINUTES)


@pages.post("/t/<code>/seats/<int:seat>/handover")
@host_required
def handover(code, seat):
    """A single-use link, valid for a few minutes, that moves the seat to the phone that opens it."""
    check_seat_number(seat)
    token, expires = store().create_handover(g.table.code, seat, HANDOVER_MINUTES)
    link = absolute_url(url_for("pages.take_over_page", code=g.table.code, token=token))
    return render_template("table/handover.html", table=g.table, seat=g.table.seats[seat], link=link,
                           svg=qr_svg(link), minutes=HANDOVER_MINUTES, expires=expires)


def _spent_handover(token):
    found = store().handover(g.table.code, token)
    if found is None:
        abort(404, "This hand-over link is not one of this table's. Ask the host for a new one.")
    return render_template("table/handover_spent.html", table=g.table, seat=g.table.seats[found.seat],
                           used=found.used), 410


@pages.get("/t/<code>/handover/<token>")
def take_over_page(code, token):
    """Opening the link only asks: a link preview or a prefetch must not spend it."""
    found = store().handover(g.table.code, token)
    if found is None or found.used or found.expired:
        return _spent_handover(token)
    return render_template("table/take_over.html", table=g.table, seat=g.table.seats[found.seat], token=token)


@pages.post("/t/<code>/handover/<token>")
def take_over(code, token):
    moved = store().use_handover(g.table.code, token)
    if moved is None:
        return _spent_handover(token)
    seat, seat_token = moved
    resp = redirect(url_for("pages.sheet", code=g.table.code, seat=seat), code=303)
    auth.set_cookie(resp, auth.seat_cookie(g.table.code), seat_token)
    auth.set_cookie(resp, auth.invite_cookie(g.table.code), g.table.join_secret)
    return resp


@pages.get("/t/<code>/qr.svg")
def join_qr(code):
    if not g.invited:
        abort(403, "Only the table's own devices show its join code.")
    # A table's join link never changes: the device may keep its picture for a day, and only that device
    # (private), since the picture holds the join secret.
    url = invite_url(g.table)
    etag = hashlib.sha256(url.encode()).hexdigest()[:16]
    headers = {"Cache-Control": "private, max-age=86400", "ETag": f'W/"{etag}"'}
    if request.if_none_match.contains_weak(etag):
        return "", 304, headers
    return Response(qr_svg(url), mimetype="image/svg+xml", headers=headers)


@pages.post("/t/<code>/rematch")
@host_required
def rematch(code):
    if not g.replay.finished:
        abort(409, "Finish this game before starting a rematch.")
    store().start_next_game(g.table.code, g.table.current_game)
    return redirect(path_on_this_site(request.form.get("next")) or url_for("pages.host", code=g.table.code), code=303)


def path_on_this_site(path) -> str | None:
    """`path` if it can only lead to a page of this site, else None. A browser drops tabs and line
    breaks from an address and reads a backslash as a slash, so "/<tab>/evil.example" and
    "/\\evil.example" would lead to another site: nothing but printable ASCII, no backslash."""
    if not isinstance(path, str) or not (path.isascii() and path.isprintable()) or "\\" in path or " " in path:
        return None
    return path if path.startswith("/") and not path.startswith("//") else None


# ---- joining ---------------------------------------------------------------
def _join_page(table=None, error=None, status=200):
    table = table or g.table
    return render_template("table/join.html", table=table, mine=g.get("seat"), host=g.get("host"),
                           invited=g.get("invited"), error=error), status


@pages.get("/t/<code>")
def join(code):
    if code != g.table.code:
        return redirect(url_for("pages.join", code=g.table.code))
    return _join_page()


@pages.get("/t/<code>/j/<secret>")
def invite(code, secret):
    """The QR code's link: it invites this device, then shows the seats (the secret leaves the URL)."""
    if not auth.same_secret(secret, g.table.join_secret):
        abort(404, "This join link is not this table's. Scan the QR code on the host's screen again.")
    resp = redirect(url_for("pages.join", code=g.table.code), code=303)
    auth.set_cookie(resp, auth.invite_cookie(g.table.code), g.table.join_secret)
    return resp


@pages.post("/join")
def join_with_pin():
    """A person typing the table in: its code and the PIN on the host's screen."""
    code = valid_code(request.form.get("code", ""))
    table = store().table(code) if code else None
    if table is None:
        abort(404, "There is no table with that code. Check it on the host's screen.")
    if not auth.same_secret(request.form.get("pin", "").strip(), table.pin):
        return _join_page(table, Text("That PIN is not right. It is on the host's screen, under the QR code."), 403)
    resp = redirect(url_for("pages.join", code=table.code), code=303)
    auth.set_cookie(resp, auth.invite_cookie(table.code), table.join_secret)
    return resp


@pages.post("/t/<code>/join")
def take_seat(code):
    table = g.table
    if not g.invited:
        return _join_page(error=Text("Scan the table's QR code or type its PIN first."), status=403)
    try:
        seat = int(request.form.get("seat", ""))
    except ValueError:
        seat = -1
    if not 0 <= seat < len(table.seats):
        return _join_page(error=Text("Choose one of the seats."), status=400)
    if g.seat == seat:
        return redirect(url_for("pages.sheet", code=table.code, seat=seat), code=303)
    token = store().claim_seat(table.code, seat)
    if token is None:
        return _join_page(error=Text("{name}'s seat is already taken. If that is you on a new phone, ask the host to move the seat to it.", name=table.seats[seat].name), status=409)
    if g.seat is not None:  # tapped the wrong name before: that seat is free again
        store().release_seat(table.code, g.seat)
    resp = redirect(url_for("pages.sheet", code=table.code, seat=seat), code=303)
    auth.set_cookie(resp, auth.seat_cookie(table.code), token)
    return resp


# ---- a player's sheet ----------------------------------------------------------
@pages.get("/t/<code>/s/<int:seat>")
@seat_required
def sheet(code, seat):
    return _sheet_page(seat, request.args)


@pages.get("/t/<code>/s/<int:seat>/sheet")
@seat_required
def sheet_fragment(code, seat):
    return _render_sheet(seat, request.args)


@pages.post("/t/<code>/s/<int:seat>/preview")
@seat_required
def preview(code, seat):
    """What the taps so far would do: htmx gets only the part a draft changes, a plain POST the page."""
    if not request.htmx:
        return _sheet_page(seat, request.form)
    ctx = play_context(sheet_viewer(g.table, seat))
    web = ctx.game.web
    return render_template(web.preview_template or web.sheet_template, **_sheet_vars(ctx, request.form))


@pages.post("/t/<code>/s/<int:seat>/entries")
@seat_required
def add_entry(code, seat):
    return _record_from_form(seat, lambda ctx: ctx.game.web.entry_from_form(request.form, ctx))


@pages.post("/t/<code>/s/<int:seat>/undo")
@seat_required
def undo(code, seat):
    return _record_from_form(seat, lambda ctx: {"kind": "undo"}, after={"undone": 1})


def _record_from_form(seat, make_entry, after: dict | None = None):
    """Record what a phone's form says; answer the new sheet (htmx) or redirect (plain POST, with
    `after` as the sheet's query: what it confirms)."""
    table = g.table
    was = g.replay.game.totals(g.replay.state)[seat]
    try:
        _check_game_no(table)
        entry = make_entry(play_context(sheet_viewer(table, seat)))
        _, g.replay, _ = record(store(), table, seat, entry, request.form.get("key"), replay=g.replay,
                                device=g.device)
    except (RuleError, TableError) as exc:
        return _refused(seat, exc)
    if request.htmx:
        # The page learns the new version with the answer, so this phone's own entry does not
        # come back as a "table changed" refresh racing the player's next taps (static/app.js).
        seen = render_template("table/_live_seen.html", live_version=live_version(table, g.replay), oob=True)
        # after Undo, what it took back; after any other entry, that note is gone
        undone = {"was": was, "now": g.replay.game.totals(g.replay.state)[seat]} if entry["kind"] == "undo" else None
        return _render_sheet(seat, {}) + seen + render_template("table/_undo_done.html", undone=undone, oob=True)
    return redirect(url_for("pages.sheet", code=table.code, seat=seat, **(after or {})), code=303)


def _check_game_no(table):
    """A tap kept on a phone while it was offline names the game it was made in (static/app.js);
    sent after a rematch began, it must not land in the new game."""
    sent = request.form.get("game_no", "")
    if sent and sent != str(table.current_game):
        raise TableError(409, "This tap was made in an earlier game of this table, so it was not saved.")


def _refused(seat, exc):
    status = 422 if isinstance(exc, RuleError) else exc.status
    reload_replay()
    # the rule numbers a refusal cites link to the game's rules page
    error = cite_rules(exc.reason, g.table.game, getattr(exc, "rule", None))
    if request.htmx:
        return _render_sheet(seat, request.form, error=error), status
    return _sheet_page(seat, request.form, error=error), status


def _sheet_page(seat, form, error=None):
    ctx = play_context(sheet_viewer(g.table, seat))
    return render_template("table/sheet_page.html", **_sheet_vars(ctx, form, error))


def _render_sheet(seat, form, error=None):
    ctx = play_context(sheet_viewer(g.table, seat))
    variables = _sheet_vars(ctx, form, error)
    return render_template(ctx.game.web.sheet_template, **variables) + _finale_oob(variables)


def _finale_oob(variables) -> str:
    """A fragment that shows a finished game also brings the page's finale links (table/_finale.html)."""
    if not variables["finale"]:
        return ""
    return render_template("table/_finale.html", finale=variables["finale"], oob=True)


def _sheet_vars(ctx: PlayContext, form, error=None) -> dict:
    """What a seat's sheet is drawn from: the game's own context plus what every sheet shows."""
    return {"error": error, **ctx.game.web.sheet_context(ctx, form), **_page_vars(ctx)}


def _page_vars(ctx: PlayContext) -> dict:
    """What every page of a table gets, whichever game it plays."""
    rep, seat = ctx.replay, ctx.seat
    return {
        "ctx": ctx, "table": ctx.table, "game": ctx.game, "web": ctx.game.web, "seat": seat,
        "view": ctx.view,
        "names": ctx.names,
        "totals": rep.game.totals(rep.state),
        "winners": rep.game.winners(rep.state),
        "waiting_for": rep.game.waiting_for(rep.state),
        "finished": rep.finished,
        # what a finished game's screens link to (templates/table/_finale.html)
        "finale": finale(ctx.table, rep.info) if rep.finished else None,
        # Undo is offered only where it would be taken: the same check as recording it
        "can_undo": seat is not None and undo_refusal(rep, ctx.table, seat) is None,
        # the one device of a pass-and-play table, once this seat has nothing to do: whom to hand it to
        "pass_to": _pass_to(ctx),
        **live_vars(ctx.table, rep),
        "is_host": g.host,
        # a fresh idempotency key per rendered form: a double tap or a resent request applies once
        "form_key": secrets.token_urlsafe(12),
    }


def _pass_to(ctx: PlayContext) -> list[int]:
    waiting = ctx.replay.game.waiting_for(ctx.replay.state)
    if ctx.viewer.kind != "shared" or ctx.seat is None or ctx.seat in waiting:
        return []
    return waiting


# ---- the table view and live updates --------------------------------------
def live_version(table, rep) -> str:
    """The marker a page is drawn at, as the live stream and the poll name it."""
    return format_marker((table.current_game, rep.version, sum(s.generation for s in table.seats)))


def live_vars(table, rep) -> dict:
    version = live_version(table, rep)
    return {"live_version": version,
            "live_url": url_for("pages.live", code=table.code, v=version),
            "poll_url": url_for("pages.poll", code=table.code)}


def _screen_vars(ctx: PlayContext) -> dict:
    """What the pages of the whole table (the table view, the host screen) get: the page's own, and
    the latest entry in words, as this screen may be told it."""
    return {**_page_vars(ctx), "last_entry": last_entry(ctx.replay, ctx.viewer, ctx.names)}


def _table_vars() -> dict:
    ctx = play_context(screen_viewer())
    return {**ctx.game.web.table_context(ctx), **_screen_vars(ctx)}


@pages.get("/t/<code>/view")
def table_view(code):
    # the join code is shown while someone may still need it (a free seat at a table of phones), and only
    # on the host's own device: a player's phone or a TV opened from the link never passes the table on
    table = g.table
    joining = g.host and not table.pass_and_play and any(not s.claimed for s in table.seats)
    return render_template("table/view.html", join_url=invite_url(table) if joining else None, **_table_vars())


@pages.get("/t/<code>/board")
def board_fragment(code):
    variables = _table_vars()
    return render_template(variables["web"].table_template, **variables) + _finale_oob(variables)


def _seen_marker():
    """The version a page says it shows (`v=`); None when it names none."""
    text = request.args.get("v")
    if text is None:
        return None
    seen = parse_marker(text)
    if seen is None:
        abort(400, "v must be the version the page shows (game.entry.seats, as in 1.12.4).")
    return seen


@pages.get("/t/<code>/live")
def live(code):
    """Server-sent events: one `table-changed` (or `refresh`, after a rematch) each time the table's
    marker moves past the one the page has seen; its id is the marker, so a reconnect resumes."""
    canonical = valid_code(code)
    seen = parse_marker(request.headers.get("Last-Event-ID")) or _seen_marker()
    hub: Live = current_app.extensions["live"]
    client = request.remote_addr or ""
    try:
        channel = hub.open(canonical, client) if canonical else None
    except NoStream as refused:  # the page asks every 20 s instead (live/updates.py)
        return Response(refused.text, refused.status, mimetype="text/plain", headers={"Retry-After": "20"})
    if channel is None:
        abort(404)
    resp = Response(stream(hub, channel, seen, current_app.config.get("LIVE_HEARTBEAT_SECONDS", 25)),
                    mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
    resp.call_on_close(lambda: hub.close(canonical, channel, client))
    return resp


@pages.get("/t/<code>/poll")
def poll(code):
    """Where a stream cannot be held: 204 while nothing changed; otherwise the new version and a
    change event (a reload after a rematch)."""
    canonical = valid_code(code)
    marker = store().poll_marker(canonical) if canonical else None
    if marker is None:
        abort(404)
    seen = _seen_marker()
    if marker == seen:
        return "", 204
    body = format_marker(marker)
    if seen is not None and marker[0] != seen[0]:
        return htmx_response(body, refresh=True)  # a rematch began: load the new game's page
    return htmx_response(body, trigger="table-changed")


# ---- history and export -----------------------------------------------------
@pages.get("/history")
def history():
    """The latest finished games: of the tables this browser hosted or sat at, or every table's where
    the server was started to list them all (HISTORY_LISTS_ALL, for a home server)."""
    codes = None
    if not current_app.config.get("HISTORY_LISTS_ALL"):
        codes = store().tables_held(*auth.tables_of_this_browser())
    return render_template("history.html", games=store().finished_games(codes=codes), table=None,
                           mine_only=codes is not None, title_of=_played_title, bgstats=bgstats_link)


@pages.get("/t/<code>/history")
def table_history(code):
    return render_template("history.html", games=[x for x in store().games(g.table.code) if x.finished_at],
                           table=g.table, title_of=_played_title, bgstats=bgstats_link)


def _played_title(info) -> str:
    """The name of the game a finished game row was (a pad may carry the name of the game played)."""
    game = GAMES.get(info.game)
    return game.play_title(info.options) if game else info.game


def export_data(table, rep, viewer: Viewer) -> tuple[dict, list[dict]]:
    """A game as exported: its facts and, per player, the sheet the viewer may see and the game's
    own columns. Seats are numbered from 1, as on the start page."""
    players = players_summary(rep, table, rep.game.view(rep.state, viewer))
    states = [*rep.before, rep.state]
    for p in players:
        columns = rep.game.export_columns(states, p["seat"])
        if columns is not None:
            p["columns"] = columns
        p["seat"] += 1
    info = rep.info  # the replay's game row: its end time came with the entry that ended it
    data = {
        "code": table.code, "game": rep.game.id, "title": rep.game.play_title(info.options),
        "game_no": info.game_no, "options": info.options,
        "started_at": info.started_at.isoformat(),
        "finished_at": info.finished_at.isoformat() if info.finished_at else None,
        "finished": rep.finished, "winners": [seat + 1 for seat in rep.game.winners(rep.state)],
        "players": players,
        "entries": [_seat_from_one(item) for item in visible_log(rep, viewer)],
        # the play as BG Stats takes it ("Send to BG Stats" on the final screens)
        "bgstats": bgstats_play(info) if rep.finished else None,
    }
    return data, players


def _seat_from_one(item: dict) -> dict:
    seat = item.get("seat")
    return {**item, "seat": seat + 1} if isinstance(seat, int) else item


@pages.get("/t/<code>/games/<int:game_no>/export.json")
def export_json(code, game_no):
    data, _ = export_data(g.table, game_replay(game_no), Viewer.table())
    resp = make_response(json.dumps(data, indent=2))
    resp.mimetype = "application/json"
    resp.headers["Content-Disposition"] = f'attachment; filename="{g.table.code}-{game_no}.json"'
    return resp


@pages.get("/t/<code>/games/<int:game_no>/export.csv")
def export_csv(code, game_no):
    data, players = export_data(g.table, game_replay(game_no), Viewer.table())
    keys = _sheet_columns(players)
    out = io.StringIO()
    w = csv.writer(out)
    # the header in the reader's language, as the pages are
    w.writerow([localize(N_("seat")), localize(N_("name")), *map(localize, keys), localize(N_("total")),
                localize(N_("winner"))])
    for p in players:
        row = _player_columns(p)
        w.writerow([p["seat"], _csv_text(p["name"]), *[_csv_value(_shown(row.get(k))) for k in keys],
                    p["total"], localize(N_("yes")) if p["seat"] in data["winners"] else ""])
    resp = make_response(out.getvalue())
    resp.mimetype = "text/csv"
    resp.headers["Content-Disposition"] = f'attachment; filename="{g.table.code}-{game_no}.csv"'
    return resp


def _shown(value):
    return localize(value) if isinstance(value, Text) else value  # a word of the rules (a colour), translated


def _player_columns(player: dict) -> dict:
    """A player's row: the game's own export columns, or else the plain fields of the sheet."""
    if "columns" in player:
        return player["columns"]
    return {k: v for k, v in (player.get("sheet") or {}).items() if not isinstance(v, (dict, list))}


def _sheet_columns(players) -> list[str]:
    """Every player's columns, in first-seen order."""
    keys = []
    for p in players:
        keys.extend(k for k in _player_columns(p) if k not in keys)
    return keys


def _csv_value(value):
    if value is None:
        return ""
    return _csv_text(value) if isinstance(value, str) else value


def _csv_text(text: str) -> str:
    """Keep a spreadsheet from reading a player's name as a formula."""
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text
