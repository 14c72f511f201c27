"""Pizza Theory at the table: the phone mirrors the physical board.

Every page draws the board from one corner (the viewer's, or the first player's for the table
view) so that "line 3" on the screen is line 3 on the real board in front of that player.
Secrecy (PT-8): a seat's page is built from `view(state, seat)` only, the table view and the host
pages from `view(state, None)`; another seat's pending cut is never read here.
"""
from __future__ import annotations

import math
import secrets

from flask import Blueprint, abort, redirect, render_template, request, url_for

from flask import g

from companion.platform.context import may_play, reload_replay, store
from companion.platform.contract import RuleError, Viewer
from companion.platform.gameweb import GameWeb, int_field
from companion.platform.play import TableError, load_replay, record

from .rules import BOARD, COLOURS
from .rules.board import LABELS, planar

GAME_ID = "pizza_theory"
LETTERS = {"red": "R", "white": "W", "green": "G"}
COLOUR_NAMES = {"red": "Red", "white": "White", "green": "Green"}
S = 100.0  # distance between neighbouring space centres, in SVG units
R = S / math.sqrt(3)  # hexagon circumradius
ORDINAL = {1: "1st", 2: "2nd", 3: "3rd"}


def ordinal(n: int) -> str:
    return ORDINAL.get(n, f"{n}th")


# ---------------------------------------------------------------- geometry

def _rotation(ci: int) -> tuple[float, float]:
    """cos, sin of the rotation that puts corner `ci` at the bottom of the drawing."""
    cx, cy = planar(BOARD.corners[ci].corner)
    phi = -math.pi / 2 - math.atan2(cy, cx)
    return math.cos(phi), math.sin(phi)


def _project(p, rot) -> tuple[float, float]:
    """Cube (possibly fractional) coordinates -> SVG coordinates (y down) for the rotation."""
    px, py = planar(p)
    c, s = rot
    rx, ry = px * c - py * s, px * s + py * c
    return round(rx * S, 2), round(-ry * S, 2)


def _line_point(family: int, v: float) -> list[float]:
    p = [-v / 2] * 3
    p[family] = v
    return p


def _line_direction(family: int) -> list[int]:
    d = [0, 0, 0]
    d[(family + 1) % 3] = 1
    d[(family + 2) % 3] = -1
    return d


def _line_ends(family: int, k: int, rot):
    """The segment of line k of `family` across the board, in SVG coordinates."""
    p0 = _line_point(family, k + 0.5)
    d = _line_direction(family)
    ts = [sum((s[i] - p0[i]) * d[i] for i in range(3)) / 2 for s in BOARD.spaces if s[family] in (k, k + 1)]
    lo, hi = min(ts) - 0.55, max(ts) + 0.55
    a = [p0[i] + lo * d[i] for i in range(3)]
    b = [p0[i] + hi * d[i] for i in range(3)]
    return _project(a, rot), _project(b, rot)


def _corner_of_family(family: int) -> int:
    return next(i for i, c in enumerate(BOARD.corners) if c.family == family)


def _line_number(ci: int, k: int) -> int:
    return BOARD.corners[ci].numbering.index(k) + 1


def _hex_points(x: float, y: float) -> str:
    pts = []
    for j in range(6):  # flat-top after every corner rotation (the rotation is 30 degrees mod 60)
        a = math.pi / 3 * j
        pts.append(f"{x + R * math.cos(a):.1f},{y + R * math.sin(a):.1f}")
    return " ".join(pts)


def _places(rot):
    """Per space: (x, y, column from the left 1..7, place in that column counted from the bottom)."""
    xy = [_project(s, rot) for s in BOARD.spaces]
    cols = sorted({round(x) for x, _ in xy})
    out = []
    for x, y in xy:
        col = [yy for xx, yy in xy if round(xx) == round(x)]
        from_bottom = sorted(col, reverse=True).index(y) + 1
        out.append((x, y, cols.index(round(x)) + 1, from_bottom))
    return out


def where(place, viewer_word: str = "you") -> str:
    _, _, col, from_bottom = place
    if viewer_word == "you":
        return f"column {col} from your left, {ordinal(from_bottom)} from you"
    return f"column {col} from the left, {ordinal(from_bottom)} from the bottom"


def space_index(value) -> int:
    """'x,y,z' from a form -> space index (RuleError with a readable reason)."""
    try:
        parts = tuple(int(p) for p in str(value or "").split(","))
    except ValueError:
        parts = ()
    if parts not in BOARD.index:
        raise RuleError("Tap a space on the pizza.")
    return BOARD.index[parts]


def space_value(i: int) -> str:
    return ",".join(str(v) for v in BOARD.spaces[i])


def draw_board(occupants, ci: int, *, corner_seats, legal=(), my_family=None, my_line=None,
               cuts=(), slices=(), changes=(), neutral_line=None, buttons=(), you=True,
               caption="") -> dict:
    """Everything the board template needs, drawn with corner `ci` at the bottom.

    occupants: per space index a colour name or None. corner_seats: per corner (label, name, colour).
    cuts: (family, k, colour) revealed cut lines. slices: masks. changes: (space index, marker).
    buttons: space indices that get a button (the form around the board decides what it posts).
    """
    rot = _rotation(ci)
    places = _places(rot)
    slice_of = {}
    for n, m in enumerate(slices, 1):
        for i in range(len(BOARD.spaces)):
            if m >> i & 1:
                slice_of[i] = n
    legal = set(legal)
    xs = {i for c in BOARD.corners for i in c.x_spaces}
    marker = {i: n for i, n in changes}
    hexes = []
    for i, (x, y, col, fb) in enumerate(places):
        occ = occupants[i]
        desc = f"{COLOUR_NAMES[occ]} topping" if occ else "Empty space"
        if i in xs:
            desc += " (X start space)"
        if i in legal:
            desc += ", you may add here"
        hexes.append({
            "i": i, "x": x, "y": y, "points": _hex_points(x, y), "occ": occ,
            "letter": LETTERS.get(occ, ""), "x_space": i in xs, "legal": i in legal,
            "slice": slice_of.get(i), "marker": marker.get(i), "value": space_value(i),
            "label": f"{desc}: {where(places[i], 'you' if you else 'table')}",
        })
    # one small slice number per slice, on the space nearest the slice's middle
    slice_labels = []
    for n, m in enumerate(slices, 1):
        members = [i for i in range(len(BOARD.spaces)) if m >> i & 1]
        mx = sum(places[i][0] for i in members) / len(members)
        my = sum(places[i][1] for i in members) / len(members)
        best = min(members, key=lambda i: (places[i][0] - mx) ** 2 + (places[i][1] - my) ** 2)
        slice_labels.append({"n": n, "x": places[best][0], "y": round(places[best][1] - S * 0.36, 1)})
    lines = []
    for cj, corner in enumerate(BOARD.corners):
        f = corner.family
        cseat = corner_seats[cj]
        for k in BOARD.lines[f]:
            a, b = _line_ends(f, k, rot)
            near = _project(corner.corner, rot)
            # the end nearest the owning corner carries the number as that player reads it
            if (a[0] - near[0]) ** 2 + (a[1] - near[1]) ** 2 > (b[0] - near[0]) ** 2 + (b[1] - near[1]) ** 2:
                a, b = b, a
            dx, dy = a[0] - b[0], a[1] - b[1]
            ln = math.hypot(dx, dy)
            lx, ly = a[0] + dx / ln * S * 0.28, a[1] + dy / ln * S * 0.28
            n = _line_number(cj, k)
            mine = f == my_family
            lines.append({
                "x1": a[0], "y1": a[1], "x2": b[0], "y2": b[1], "n": n, "lx": round(lx, 1),
                "ly": round(ly, 1), "mine": mine, "chosen": mine and my_line == n,
                "colour": cseat[2], "family": f,
            })
    cut_lines = []
    for f, k, colour in cuts:
        a, b = _line_ends(f, k, rot)
        cut_lines.append({"x1": a[0], "y1": a[1], "x2": b[0], "y2": b[1], "colour": colour,
                          "n": _line_number(_corner_of_family(f), k)})
    neutral = None
    if neutral_line is not None:
        f, k = neutral_line
        a, b = _line_ends(f, k, rot)
        neutral = {"x1": a[0], "y1": a[1], "x2": b[0], "y2": b[1]}
    corners = []
    for cj, corner in enumerate(BOARD.corners):
        x, y = _project(corner.corner, rot)
        d = math.hypot(x, y)
        label, name, colour = corner_seats[cj]
        # a corner marker (the seat's colour and letter) beyond the line numbers, its label beside it
        if cj == ci:  # below the viewer's numbers 3 and 4
            mx, my = x / d * S * 4.2, y / d * S * 4.2
            tx, ty, anchor = mx + S * 0.35, my, "start"
        else:  # beyond the side corner, its label above it, clear of that corner's numbers
            mx, my = x / d * S * 4.05, y / d * S * 4.05
            tx, ty, anchor = mx, my - S * 0.48, "middle"
        corners.append({"x": round(mx, 1), "y": round(my, 1), "tx": round(tx, 1), "ty": round(ty, 1),
                        "label": label, "name": name, "colour": colour, "letter": LETTERS.get(colour, ""),
                        "anchor": anchor, "bottom": cj == ci})
    # the drawing's box: the hexes, the line numbers and the corner markers with their labels, measured
    # by their own extents and kept tight across the width, so that on a 360 px phone every space is a
    # tap target of 44 px or more
    xs_all = ([x for h in hexes for x in (h["x"] - R, h["x"] + R)]
              + [x for ln in lines for x in (ln["lx"] - 14, ln["lx"] + 14)]
              + [x for c in corners for x in (c["x"] - 27, c["x"] + 27)]
              + [x for c in corners if c["anchor"] == "middle"
                 for x in (c["tx"] - 9 * len(c["label"]), c["tx"] + 9 * len(c["label"]))])
    ys_all = ([h["y"] for h in hexes] + [ln["ly"] for ln in lines] + [c["y"] for c in corners]
              + [c["ty"] for c in corners])
    pad = S * 0.62
    minx, maxx = min(xs_all) - S * 0.06, max(xs_all) + S * 0.06
    miny, maxy = min(ys_all) - pad * 0.75, max(ys_all) + pad * 0.75
    w, h = maxx - minx, maxy - miny
    btns = []
    # in the order the viewer reads the drawing (top row first, then left to right), so that Tab walks
    # the spaces as they appear from this corner, not in the board data's order
    for i in sorted(buttons, key=lambda i: (round(places[i][1]), places[i][0])):
        x, y = places[i][0], places[i][1]
        btns.append({**hexes[i], "left": round((x - S / 2 - minx) / w * 100, 3),
                     "top": round((y - S / 2 - miny) / h * 100, 3),
                     "w": round(S / w * 100, 3), "h": round(S / h * 100, 3)})
    return {
        "viewbox": f"{minx:.1f} {miny:.1f} {w:.1f} {h:.1f}", "w": round(w, 1), "h": round(h, 1),
        "hexes": hexes, "lines": lines, "cuts": cut_lines, "neutral": neutral, "corners": corners,
        "slice_labels": slice_labels, "buttons": btns, "r_top": round(S * 0.3, 1), "caption": caption,
        "places": places,
    }


# ---------------------------------------------------------------- reading the game

def _occupants(view) -> list:
    return [sp["occupant"] for sp in view["spaces"]]


def _occupants_of(masks) -> list:
    occ = [None] * len(BOARD.spaces)
    for c, m in enumerate(masks):
        for i in range(len(BOARD.spaces)):
            if m >> i & 1:
                occ[i] = COLOURS[c]
    return occ


def _corner_seats(view, names) -> list:
    """Per corner (1st, 2nd, 3rd): (label, who sits there, colour) this round."""
    out = [None, None, None]
    for s in view["seats"]:
        ci = LABELS.index(s["board_label"])
        out[ci] = (LABELS[ci], names[s["seat"]], s["colour"])
    if view.get("neutral"):
        ci = LABELS.index(view["neutral"]["board_label"])
        out[ci] = (LABELS[ci], "neutral", "green")
    for ci in range(3):
        if out[ci] is None:
            out[ci] = (LABELS[ci], "", None)
    return out


def _first_corner(view) -> int:
    """The corner of this round's first player (the table view is drawn from it)."""
    first = view["turn_order"][0]
    return LABELS.index(view["seats"][first]["board_label"])


def _reveal(res, state_last, names, ci: int, you: bool) -> dict:
    """The last resolved round: board before the changes, the cuts, slices and the checklist."""
    cutters = state_last.cutters
    corner_seats = [(LABELS[c], "", None) for c in range(3)]
    for who, col, cj, _fam, _line in cutters:
        corner_seats[cj] = (LABELS[cj], "neutral" if who < 0 else names[who], COLOURS[col])
    cuts = [(fam, state_last.ks[fam], COLOURS[col]) for _who, col, _cj, fam, _line in cutters]
    slices = list(BOARD.cut_slices[state_last.cut_id])
    changes = [(BOARD.index[tuple(ch["space"])], n) for n, ch in enumerate(res["changes"], 1)]
    board = draw_board(_occupants_of(state_last.before), ci, corner_seats=corner_seats, cuts=cuts,
                       slices=slices, changes=changes, you=you)
    checklist = []
    for n, ch in enumerate(res["changes"], 1):
        i = BOARD.index[tuple(ch["space"])]
        frm, to = ch["from"], ch["to"]
        if to:
            action = f"Swap the {frm} topping for a {to} one"
        else:
            action = f"Take the {frm} topping off and leave the space empty"
        verdict = state_last.outcome.verdicts[ch["slice"] - 1]
        if ch["why"] == "replaced":
            why = f"{to} has the most in slice {ch['slice']}"
        elif ch["why"] == "supply_out":  # PT-12: the leader's replacements ran out
            lead = COLOURS[verdict[1]]
            why = (f"slice {ch['slice']}: {lead} ({LETTERS[lead]}) has the most here "
                   f"but no {lead} topping left")
        else:
            why = f"slice {ch['slice']} is a tie"
        checklist.append({"n": n, "space": ch["space"], "value": space_value(i), "from": frm, "to": to,
                          "from_letter": LETTERS[frm], "to_letter": LETTERS.get(to, "–"), "action": action,
                          "why": why, "where": where(board["places"][i], "you" if you else "table"),
                          "slice": ch["slice"], "kind": ch["why"]})
    cut_rows = []
    for c in res["cuts"]:
        who = "Neutral die" if c["neutral"] else names[c["seat"]]
        cut_rows.append({"who": who, "colour": c["colour"], "letter": LETTERS[c["colour"]], "line": c["line"],
                         "corner": c["board_label"]})
    return {"round": res["round"], "board": board, "checklist": checklist, "cuts": cut_rows,
            "slices": res["slices"], "safe": res["safe"], "would_be": res["would_be"],
            "after": res["on_board_after"]}


def _scoreboard(view, names):
    rows = []
    for s in view["seats"]:
        rows.append({"seat": s["seat"], "name": names[s["seat"]], "colour": s["colour"],
                     "letter": LETTERS[s["colour"]], "label": s["label"], "supply": s["supply"],
                     "on_board": s["on_board"], "has_chosen": s["has_chosen"], "to_place": s["to_place"]})
    if view.get("neutral"):
        nv = view["neutral"]
        rows.append({"seat": None, "name": "Neutral", "colour": "green", "letter": "G", "label": "",
                     "supply": nv["supply"], "on_board": nv["on_board"], "has_chosen": False,
                     "to_place": False})
    return rows


def _names(rep):
    table = store().table(rep.info.table_code)
    return [s.name for s in table.seats], table


def game_context(rep, seat, form, viewer=None) -> dict:
    """Shared by the seat sheet (seat = a seat) and the table view (seat = None)."""
    view = rep.game.view(rep.state, viewer or Viewer.table())  # PT-8: only this viewer's own view
    names, table = _names(rep)
    phase = view["phase"]
    me = view["seats"][seat] if seat is not None else None
    ci = LABELS.index(me["board_label"]) if me else _first_corner(view)
    you = seat is not None
    corner_seats = _corner_seats(view, names)
    legal, buttons, neutral_line, neutral_choice, neutral_room = [], [], None, None, None
    if me and phase == "add" and me["to_place"]:
        legal = [BOARD.index[tuple(s)] for s in view["legal_spaces"]]
        buttons = list(range(len(view["spaces"])))  # an illegal tap is refused with its reason
    nv = view.get("neutral")
    if me and phase == "neutral" and nv and nv["roller"] == seat:
        raw = (form.get("nline") or "").strip()
        if raw:
            try:
                neutral_choice = int_field(form, "nline", "the neutral line", 1, 6)
            except RuleError:
                neutral_choice = None
        if neutral_choice:
            f = nv["family"]
            neutral_line = (f, BOARD.corners[2].numbering[neutral_choice - 1])
            from .rules import neutral_spaces
            spaces = neutral_spaces(rep.state, neutral_choice)
            neutral_room = [BOARD.index[tuple(s)] for s in spaces] if nv["supply"] else []
            legal = neutral_room
            buttons = neutral_room
    if table.pass_and_play and view.get("my_cut") is not None:
        # PT-8 on a shared device: whoever picks it up next may open this seat's page, so the pending
        # line is dropped here, before any template can draw it (board, legend, buttons, labels)
        view = {**view, "my_cut": None}
    my_line = view["my_cut"] if me else None
    board = draw_board(_occupants(view), ci, corner_seats=corner_seats, legal=legal,
                       my_family=me["family"] if me and phase == "cut" else None, my_line=my_line,
                       neutral_line=neutral_line, buttons=buttons, you=you)
    reveal = None
    last = rep.state.last  # a resolved round: its cuts were all revealed (PT-7)
    if view["last_resolution"] and last is not None:
        if me:
            rci = next(cj for who, _c, cj, _f, _l in last.cutters if who == seat)
        else:
            rci = _resolved_first_corner(rep, last)
        reveal = _reveal(view["last_resolution"], last, names, rci, you)
        # the last reveal stays open (at the top of a phone) while the next round's toppings go down, as
        # people may still be copying its changes onto the real board; it folds away once the round
        # reaches its cuts (a phone also folds it when every change on it is ticked: pizza_theory.js)
        reveal["fresh"] = phase != "cut" or view["finished"]
    waiting = [names[s] for s in view["waiting_for"]]
    return {
        "view": view, "pt": board, "me": me, "phase": phase, "reveal": reveal,
        "scoreboard": _scoreboard(view, names), "letters": LETTERS, "colour_names": COLOUR_NAMES,
        "neutral_choice": neutral_choice, "neutral_room": neutral_room, "waiting_names": waiting,
        "to_place_name": names[view["to_place"]] if view["to_place"] is not None else None,
        "roller_name": names[nv["roller"]] if nv else None, "pass_and_play": table.pass_and_play,
        "first_name": names[view["turn_order"][0]],
        "pt_names": names,
    }


def _resolved_first_corner(rep, last) -> int:
    """The corner of the first player of the resolved round (3 players: always the 1st corner)."""
    if rep.state.players == 3:
        return 0
    first = (rep.state.first_seat + last.round - 1) % 2
    return next(cj for who, _c, cj, _f, _l in last.cutters if who == first)


# ---------------------------------------------------------------- forms -> entries

def entry_from_form(form, ctx) -> dict:
    kind = form.get("kind", "")
    if kind == "place":
        return {"kind": "place", "space": list(BOARD.spaces[space_index(form.get("space"))])}
    if kind == "cut":
        return {"kind": "cut", "line": int_field(form, "line", "a line", 1, 6)}
    if kind == "neutral":
        line = int_field(form, "nline", "the line the neutral die shows", 1, 6)
        if form.get("space") == "none":
            return {"kind": "neutral", "line": line, "space": None}
        return {"kind": "neutral", "line": line, "space": list(BOARD.spaces[space_index(form.get("space"))])}
    raise RuleError("Tap a space or a line.")


def sheet_context(ctx, form) -> dict:
    return game_context(ctx.replay, ctx.seat, form, ctx.viewer)


def table_context(ctx) -> dict:
    return game_context(ctx.replay, None, {}, ctx.viewer)


# ---------------------------------------------------------------- the game's own pages

bp = Blueprint("pizza_theory", __name__)


def _pt_table(code):
    table = g.table
    if table.game != GAME_ID:
        abort(404, f"Table {table.code} is not playing Pizza Theory.")
    return table


@bp.route("/t/<code>/pizza/cuts", methods=["GET", "POST"])
def host_cuts(code):
    """The host enters the revealed dice of every seat that has not chosen (PT-7)."""
    table = _pt_table(code)
    rep = g.replay
    if not (g.host or all(may_play(s.seat) for s in table.seats)):
        abort(403, "Only the host can enter everyone's cut.")
    error, status = None, 200
    if request.method == "POST":
        try:
            if rep.finished or rep.state.phase != "cut":
                raise RuleError("The cuts are entered once every topping of the round is down.")
            waiting = rep.game.waiting_for(rep.state)
            lines = {s: int_field(request.form, f"line{s}", f"{table.seats[s].name}'s line", 1, 6)
                     for s in waiting}
            for s in waiting:
                _, rep, _ = record(store(), table, s, {"kind": "cut", "line": lines[s]})
        except (RuleError, TableError) as exc:
            error = exc.reason
            status = 422 if isinstance(exc, RuleError) else exc.status
            rep = load_replay(store(), table)
        else:
            return redirect(url_for("pages.table_view", code=table.code), code=303)
    ctx = game_context(rep, None, {})
    return render_template("pizza_theory/host_cuts.html", table=table, rep=rep, error=error,
                           web=WEB, **ctx), status


def replay_rounds(rep):
    """Replay the effective entries through the engine: one item per resolved round."""
    game = rep.game
    state = game.new_state(rep.state.players, rep.info.options)
    rounds = []
    for e in rep.effective:
        before_last = state.last
        state = game.apply(state, e.seat, e.as_entry())
        if state.last is not None and state.last is not before_last:
            rounds.append((state.last, state))
    return rounds


@bp.get("/t/<code>/pizza/replay")
def replay(code):
    table = _pt_table(code)
    game_no = request.args.get("game", type=int) or table.current_game
    if not 1 <= game_no <= table.current_game:
        abort(404, f"Table {table.code} has no game {game_no}.")
    rep = load_replay(store(), table, game_no)
    if rep.game.id != GAME_ID:
        abort(404, "That game is not Pizza Theory.")
    rounds = replay_rounds(rep)
    names = [s.name for s in table.seats]
    if not rounds:
        return render_template("pizza_theory/replay.html", table=table, rep=rep, web=WEB, game_no=game_no,
                               rounds=0, r=None, item=None, names=names, letters=LETTERS,
                               finished=rep.finished)
    r = request.args.get("round", type=int) or 1
    r = min(max(r, 1), len(rounds))
    last, after = rounds[r - 1]
    from .rules import resolution_view
    res = resolution_view(last)
    if rep.state.players == 3:
        ci = 0
    else:
        first = (rep.state.first_seat + last.round - 1) % 2
        ci = next(cj for who, _c, cj, _f, _l in last.cutters if who == first)
    item = _reveal(res, last, names, ci, False)
    corner_seats = [(LABELS[c], "", None) for c in range(3)]
    for who, col, cj, _fam, _line in last.cutters:
        corner_seats[cj] = (LABELS[cj], "neutral" if who < 0 else names[who], COLOURS[col])
    item["after_board"] = draw_board(_occupants_of(last.outcome.masks), ci, corner_seats=corner_seats, you=False)
    item["final"] = r == len(rounds) and rep.finished
    return render_template("pizza_theory/replay.html", table=table, rep=rep, web=WEB, game_no=game_no,
                           rounds=len(rounds), r=r, item=item, names=names, letters=LETTERS,
                           finished=rep.finished, winners=rep.game.winners(rep.state),
                           both_lose=rep.state.both_lose)


def create_options(form) -> dict:
    """The start page's choice of first player (PT-3: the seed picks one at random)."""
    players = sum(1 for i in range(12) if (form.get(f"player{i}") or "").strip())
    choice = form.get("pizza_theory_first")
    if not choice:
        return {}
    if choice == "random":
        return {"first_seat": secrets.randbelow(max(min(players, 3), 1))}
    first = int_field(form, "pizza_theory_first", "the first player", 0, 2)
    if first >= players:
        raise RuleError(f"There is no seat {first + 1} at a table of {players}.")
    return {"first_seat": first}


WEB = UI = GameWeb(
    sheet_template="pizza_theory/sheet.html",
    table_template="pizza_theory/board.html",
    entry_from_form=entry_from_form,
    sheet_context=sheet_context,
    table_context=table_context,
    create_options=create_options,
    options_template="pizza_theory/options.html",
    assets=("pizza_theory/sheet.css", "pizza_theory/sheet.js"),
    blueprint=bp,
    host_links=(("Enter everyone's cut from the dice", "pizza_theory.host_cuts"),
                ("Round-by-round replay", "pizza_theory.replay")),
)
