"""Pizza Theory at the table: the phone mirrors the physical board.

Every page draws the board from one corner (the viewer's, or this round's first player's on the
table view) so that "line 3" on the screen is line 3 on the real board in front of that player.
Everything drawn comes from the game's view for this viewer (PT-8: only a seat's own phone is shown
its pending cut) and from the rules' hints; the drawing itself is `drawing.py`.
"""
from __future__ import annotations

import secrets

from flask import Blueprint, abort, g, redirect, render_template, request, url_for

from companion.platform.sdk import (Text, GameWeb, KeptDrawings, PlayContext, RuleError, TableError, Viewer, game_replay,
                                    int_field, may_play, named_texts, record, reload_replay, screen_viewer, store)

from . import rules
from .drawing import LETTERS, draw_board, hex_at, space_from_value, space_value
from .rules.resolve import COLOUR_WORDS

GAME_ID = "pizza_theory"

# the boards drawn, by what they show: between two entries most phones' boards stay as they were
_pizzas = KeptDrawings("pizza_theory/_board.html", "pizza", size=512)


# ---------------------------------------------------------------- forms -> entries and drafts

def _space(form) -> list[int]:
    space = space_from_value(form.get("space"))
    if space is None:
        raise RuleError("Tap a space on the pizza.")
    return space


def entry_from_form(form, ctx) -> dict:
    kind = form.get("kind", "")
    if kind == "place":
        return {"kind": "place", "space": _space(form)}
    if kind == "cut":
        return {"kind": "cut", "line": int_field(form, "line", Text("a line"), 1, 6)}
    if kind == "neutral":
        line = int_field(form, "nline", Text("the line the neutral die shows"), 1, 6)
        return {"kind": "neutral", "line": line, "space": None if form.get("space") == "none" else _space(form)}
    raise RuleError("Tap a space or a line.")


def _draft(form) -> dict:
    """The line the neutral die shows, once tapped (the rules judge it)."""
    raw = (form.get("nline") or "").strip()
    if not raw:
        return {}
    try:
        return {"line": int(raw)}
    except ValueError:
        return {"line": raw}


# ---------------------------------------------------------------- reading the view

def _x_spaces(view) -> list:
    return [space for pair in view["x_spaces"] for space in pair]


def _corner_seats(view, names) -> list:
    """Per corner (1st, 2nd, 3rd): (who sits there, colour) this round."""
    out = [None, None, None]
    for s in view["seats"]:
        out[s["corner_index"]] = (names[s["seat"]], s["colour"])
    if view["neutral"]:
        out[view["neutral"]["corner_index"]] = ("neutral", "green")
    return out


def _scoreboard(view, names) -> list[dict]:
    rows = [{"seat": s["seat"], "name": names[s["seat"]], "colour": s["colour"], "letter": LETTERS[s["colour"]],
             "label": s["label"], "supply": s["supply"], "on_board": s["on_board"],
             "has_chosen": s["has_chosen"], "to_place": s["to_place"]} for s in view["seats"]]
    if view["neutral"]:
        nv = view["neutral"]
        rows.append({"seat": None, "name": Text("Neutral"), "colour": "green", "letter": "G", "label": "",
                     "supply": nv["supply"], "on_board": nv["on_board"], "has_chosen": False, "to_place": False})
    return rows


def _sheet_marks(view, me, hints) -> dict:
    """What the seat's own drawing adds to the board: where it may tap, its lines, the neutral line."""
    if view["phase"] == "add" and me["to_place"]:
        # every space is a button: an illegal tap is refused with the rules' reason
        return {"legal": hints["place"], "buttons": [sp["space"] for sp in view["spaces"]]}
    neutral = hints.get("neutral")
    if view["phase"] == "neutral" and neutral:
        return {"legal": neutral["spaces"], "buttons": neutral["spaces"],
                "neutral_line": (neutral["family"], neutral["k"])}
    if view["phase"] == "cut":
        return {"my_family": me["family"], "my_line": view["my_cut"]}
    return {}


# ---------------------------------------------------------------- a resolved round

def _why(ch) -> str:
    if ch["why"] == "replaced":
        return Text("{colour} has the most in slice {slice}", colour=COLOUR_WORDS[ch["to"]], slice=ch["slice"])
    if ch["why"] == "supply_out":  # PT-12: the leader's replacements ran out
        lead = ch["leader"]
        return Text("slice {slice}: {colour} ({letter}) has the most here but no {colour} topping left",
                    slice=ch["slice"], colour=COLOUR_WORDS[lead], letter=LETTERS[lead])
    return Text("slice {slice} is a tie", slice=ch["slice"])


def _checklist_item(n: int, ch, board) -> dict:
    frm, to = ch["from"], ch["to"]
    action = (Text("Swap the {frm} topping for a {to} one", frm=COLOUR_WORDS[frm], to=COLOUR_WORDS[to]) if to
              else Text("Take the {frm} topping off and leave the space empty", frm=COLOUR_WORDS[frm]))
    return {"n": n, "space": ch["space"], "value": space_value(ch["space"]), "from": frm, "to": to,
            "from_letter": LETTERS[frm], "to_letter": LETTERS.get(to, "–"), "action": action, "why": _why(ch),
            "where": hex_at(board, ch["space"])["where"], "slice": ch["slice"], "kind": ch["why"]}


def _cutters(res, names) -> list:
    """Per corner: (who cut from there, their colour) in the resolved round."""
    out = [None, None, None]
    for c in res["cuts"]:
        out[c["corner_index"]] = ("neutral" if c["neutral"] else names[c["seat"]], c["colour"])
    return out


def _what_if(res, names, seat) -> dict:
    """The round's what-if (the rules' own, per seat): each seat's best line against its choice,
    and this seat's six lines in full."""
    colours = {c["seat"]: c["colour"] for c in res["cuts"] if not c["neutral"]}
    rows = [{**w, "name": names[w["seat"]], "colour": colours[w["seat"]], "letter": LETTERS[colours[w["seat"]]],
             "chosen_on_board": w["by_line"][str(w["line_chosen"])]} for w in res.get("what_if", ())]
    mine = next((r for r in rows if r["seat"] == seat), None)
    return {"rows": rows, "mine": mine}


def _round_scores(res, names) -> list[dict]:
    """Per colour that cut (the neutral one too): who cut which line, and its toppings on the pizza
    before the round and after it (the would-be count where its supply fell short, PT-12)."""
    rows = []
    for c in res["cuts"]:
        colour = c["colour"]
        before, after = res["on_board_before"][colour], res["on_board_after"][colour]
        rows.append({"who": Text("Neutral die") if c["neutral"] else names[c["seat"]], "colour": colour,
                     "letter": LETTERS[colour], "line": c["line"], "before": before, "after": after, "gain": after - before,
                     "would_be": res["would_be"][colour]})
    return rows


def reveal(res, names, corner: int, *, you: bool, x_spaces=(), seat=None) -> dict:
    """The resolved round `res` drawn from `corner`: the board before the changes, with the cuts, the
    slices and the numbered changes, the checklist of those changes, who cut where and what the round
    did to each colour's count."""
    board = draw_board(res["before"], corner, corner_seats=_cutters(res, names), x_spaces=x_spaces,
                       cuts=[(c["family"], c["k"], c["colour"]) for c in res["cuts"]],
                       slices=[s["spaces"] for s in res["slices"]], changes=[ch["space"] for ch in res["changes"]],
                       you=you)
    cuts = [{"who": Text("Neutral die") if c["neutral"] else names[c["seat"]], "colour": c["colour"],
             "letter": LETTERS[c["colour"]], "line": c["line"], "corner": c["board_label"]} for c in res["cuts"]]
    return {"round": res["round"], "board": board, "cuts": cuts, "slices": res["slices"], "safe": res["safe"],
            "checklist": [_checklist_item(n, ch, board) for n, ch in enumerate(res["changes"], 1)],
            "would_be": res["would_be"], "after": res["on_board_after"], "what_if": _what_if(res, names, seat),
            "scores": _round_scores(res, names)}


def _reveal_fresh(view) -> bool:
    """The last reveal stays open (at the top of a phone, on the table view's board) while the next
    round's toppings go down, as people may still be copying its changes onto the real board; it
    folds away once the round reaches its cuts (a phone also folds it when every change on it is
    ticked: sheet.js)."""
    return view["last_resolution"] is not None and (view["phase"] != "cut" or view["finished"])


def _last_reveal(view, names, seat) -> dict | None:
    res = view["last_resolution"]
    if not res:
        return None
    if seat is None:  # the table view: from the side its board now is drawn from, which the reveal is drawn on
        corner = view["first_corner"]
    else:
        corner = next(c["corner_index"] for c in res["cuts"] if c["seat"] == seat)
    rv = reveal(res, names, corner, you=seat is not None, x_spaces=_x_spaces(view), seat=seat)
    rv["fresh"] = _reveal_fresh(view)
    rv["covers_board"] = rv["fresh"] and bool(rv["checklist"]) and _still_waiting(view, seat)
    return rv


def _still_waiting(view, seat) -> bool:
    """Has `seat` nothing to do on the board yet (its topping comes later this round, or the game is
    over)? Only then may the last reveal stay open over the board now: a player whose turn it is, or
    who has already added this round, sees the board first."""
    if view["finished"]:
        return True
    if seat is None or view["phase"] != "add" or view["to_place"] is None:
        return False
    order = view["turn_order"]
    return order.index(seat) > order.index(view["to_place"])


def _reveal_marks(view) -> dict:
    """What the table view's one board adds while the last reveal is open: the round's cuts and its
    changes, numbered as in the checklist (a TV shows no second board for the reveal)."""
    if not _reveal_fresh(view):
        return {}
    res = view["last_resolution"]
    return {"cuts": [(c["family"], c["k"], c["colour"]) for c in res["cuts"]],
            "changes": [ch["space"] for ch in res["changes"]]}


# ---------------------------------------------------------------- page contexts

def game_context(ctx: PlayContext, form) -> dict:
    """Shared by the seat sheet (ctx.seat is a seat) and the table and host views (ctx.seat is None)."""
    view, names, seat = ctx.view, ctx.names, ctx.seat
    me = view["seats"][seat] if seat is not None else None
    hints = ctx.hints(_draft(form)) if me else {}
    marks = _sheet_marks(view, me, hints) if me else _reveal_marks(view)
    pt = draw_board([sp["occupant"] for sp in view["spaces"]], me["corner_index"] if me else view["first_corner"],
                    corner_seats=_corner_seats(view, names), x_spaces=_x_spaces(view), you=me is not None, **marks)
    nv = view["neutral"]
    return {
        "pt": pt, "me": me, "phase": view["phase"], "reveal": _last_reveal(view, names, seat),
        "scoreboard": _scoreboard(view, names), "letters": LETTERS,
        "neutral": hints.get("neutral"), "draft_error": hints.get("refusal"),
        "waiting_names": [names[s] for s in view["waiting_for"]],
        "skipped": named_texts(view["skipped"], names),
        "to_place_name": names[view["to_place"]] if view["to_place"] is not None else None,
        "roller_name": names[nv["roller"]] if nv else None,
        "first_name": names[view["turn_order"][0]], "drawn_pizza": _pizzas.draw,
    }


def sheet_context(ctx, form) -> dict:
    return game_context(ctx, form)


def table_context(ctx) -> dict:
    return game_context(ctx, {})


# ---------------------------------------------------------------- the game's own pages

bp = Blueprint("pizza_theory", __name__)


def _pt_table():
    if g.table.game != GAME_ID:
        abort(404, Text("Table {code} is not playing Pizza Theory.", code=g.table.code))
    return g.table


def _record_cuts(table) -> None:
    """Record every waiting seat's line from the host's form; nothing is recorded if one is missing."""
    rep = g.replay
    if PlayContext(table, rep, screen_viewer()).view["phase"] != "cut":
        raise RuleError("The cuts are entered once every topping of the round is down.")
    waiting = rep.game.waiting_for(rep.state)
    lines = {s: int_field(request.form, f"line{s}", Text("{name}'s line", name=table.seats[s].name), 1, 6) for s in waiting}
    for s in waiting:
        _, rep, _ = record(store(), table, s, {"kind": "cut", "line": lines[s]}, replay=rep, by_host=True)


@bp.route("/t/<code>/pizza/cuts", methods=["GET", "POST"])
def host_cuts(code):
    """The host enters the revealed dice of every seat that has not chosen (PT-7)."""
    table = _pt_table()
    if not (g.host or all(may_play(s.seat) for s in table.seats)):
        abort(403, "Only the host can enter everyone's cut.")
    error, status = None, 200
    if request.method == "POST":
        try:
            _record_cuts(table)
        except (RuleError, TableError) as exc:
            error = exc.reason
            status = 422 if isinstance(exc, RuleError) else exc.status
        else:
            return redirect(url_for("pages.table_view", code=table.code), code=303)
    # after a refused POST the log may have moved on (another phone, or seats recorded before the refusal)
    ctx = PlayContext(table, reload_replay() if error else g.replay, screen_viewer())
    return render_template("pizza_theory/host_cuts.html", table=table, error=error, game=ctx.game, web=WEB,
                           view=ctx.view,
                           finished=ctx.finished, **game_context(ctx, {})), status


@bp.get("/t/<code>/pizza/replay")
def replay(code):
    """One resolved round at a time, from the side of that round's first player."""
    table = _pt_table()
    rep = game_replay(request.args.get("game", type=int))
    game_no = rep.info.game_no
    if rep.game.id != GAME_ID:
        abort(404, "That game is not Pizza Theory.")
    view = rep.game.view(rep.state, Viewer.table())
    rounds = rules.rounds([*rep.before, rep.state])
    names = table.names
    page = {"table": table, "game": rep.game, "web": WEB, "game_no": game_no, "rounds": len(rounds), "names": names, "drawn_pizza": _pizzas.draw,
            "letters": LETTERS, "finished": rep.finished, "view": view, "totals": rep.game.totals(rep.state)}
    if not rounds:
        return render_template("pizza_theory/replay.html", r=None, item=None, **page)
    r = min(max(request.args.get("round", type=int) or 1, 1), len(rounds))
    res = rounds[r - 1]
    item = reveal(res, names, res["first_corner"], you=False, x_spaces=_x_spaces(view))
    item["after_board"] = draw_board(res["after"], res["first_corner"], corner_seats=_cutters(res, names),
                                     x_spaces=_x_spaces(view), you=False)
    item["final"] = r == len(rounds) and rep.finished
    return render_template("pizza_theory/replay.html", r=r, item=item, **page)


def create_options(form, players) -> dict:
    """The start page's choice of first player (PT-3: the seed picks one at random); the rules
    refuse a seat the table does not have."""
    choice = form.get("pizza_theory_first")
    if not choice:
        return {}
    if choice == "random":
        return {"first_seat": secrets.randbelow(max(players, 1))}
    return {"first_seat": int_field(form, "pizza_theory_first", Text("the first player"), 0, 2)}


WEB = GameWeb(
    sheet_template="pizza_theory/sheet.html",
    table_template="pizza_theory/board.html",
    entry_from_form=entry_from_form,
    sheet_context=sheet_context,
    table_context=table_context,
    create_options=create_options,
    options_template="pizza_theory/options.html",
    assets=("pizza_theory/sheet.css", "pizza_theory/sheet.js"),
    offline_scripts=("pizza_theory/offline.js",),
    view_styles=("pizza_theory/view.css",),
    blueprint=bp,
    host_links=((Text("Enter everyone's cut from the dice"), "pizza_theory.host_cuts"),
                (Text("Round-by-round replay"), "pizza_theory.replay")),
)
