"""Dice and Slice on a phone: the pizza sheet drawn as SVG, turn by turn, to the final score.

The placement "ghost" is navigation state, not game state: it travels in the query string
(`rot` quarter turns, `dx`/`dy` offset of the turned pattern, or `tx`/`ty` a tapped dot;
`move` one arrow step) so every step works as a plain GET without JavaScript, and htmx only
re-renders the #sheet fragment. Confirming posts the same fields; the server turns them into
the engine's `place` entry with every dot of the pattern (DS-5).

Tap targets — a documented exception to the 44 px minimum:
the sheet's dots are about 27 px apart on a 360 px phone (13 dots across ~344 px). Each dot's
link already covers its whole cell (a transparent square one dot-spacing wide), so the hit area
cannot grow without the sheet growing wider than the phone. The dots are therefore only tap
*shortcuts*: every move they offer is also on the arrow pad below the sheet (52 px arrows, the
turn button, ≥ 48 px place / bonus / skip buttons), which can reach every position of the
pattern or of a bonus dot, one step at a time.
"""
from __future__ import annotations

from flask import Blueprint, abort, redirect, render_template, request, url_for

from companion.platform.context import store
from companion.platform.contract import RuleError, Viewer
from companion.platform.gameweb import GameWeb

from .rules import geometry as g
from .rules.edition import DIE_NAMES, SIDE_NAMES, default_edition_data, load_edition
from .rules.engine import placements_for

GAME_ID = "dice_and_slice"
CELL = 10  # SVG units between two dots
TOPPING_COLOURS = ["#8d5a3b", "#2e6b30", "#c0392b", "#1f6f8b", "#b8860b", "#6c3483", "#555555", "#a04000"]
SEAT_COLOURS = ["#c0392b", "#1f6f8b", "#2e7d32", "#8e44ad", "#b9770e", "#37474f"]
MOVES = {"left": (-1, 0), "right": (1, 0), "up": (0, -1), "down": (0, 1)}


# ---- small parsing helpers -------------------------------------------------------------------
def _int(form, name, default=None, low=None, high=None):
    raw = (form.get(name) or "").strip() if hasattr(form, "get") else ""
    try:
        value = int(raw)
    except ValueError:
        return default
    if low is not None and value < low or high is not None and value > high:
        return default
    return value


def grid_rotate(face, q: int) -> list[tuple[int, int]]:
    """The face turned clockwise by q quarter turns (same rule as the engine), normalised."""
    return sorted(g.rotate(face, q % 4))


def _dims(shape) -> tuple[int, int]:
    return max(x for x, _ in shape) + 1, max(y for _, y in shape) + 1


# ---- the ghost: where the pattern would go ---------------------------------------------------
def ghost_position(face, form, mask: int, legal: list[dict]) -> tuple[int, int, int]:
    """(q, dx, dy) from the form: a tap, an arrow step, a rotation, or a sensible default."""
    q = _int(form, "rot", None, 0, 3)
    dx = _int(form, "dx", None, -3, 15)
    dy = _int(form, "dy", None, -3, 12)
    tx = _int(form, "tx", None, 0, g.DOT_W - 1)
    ty = _int(form, "ty", None, 0, g.DOT_H - 1)
    move = form.get("move") if hasattr(form, "get") else None
    if q is None or dx is None or dy is None:
        if tx is None or ty is None:
            return _default_ghost(face, legal)
        q = q or 0
    shape = grid_rotate(face, q)
    w, h = _dims(shape)
    if tx is not None and ty is not None:
        # a tapped dot: the middle of the pattern goes there, kept on the sheet
        dx = min(max(tx - (w - 1) // 2, 0), g.DOT_W - w)
        dy = min(max(ty - (h - 1) // 2, 0), g.DOT_H - h)
    if move == "rotate":
        cx, cy = dx + (w - 1) // 2, dy + (h - 1) // 2
        q = (q + 1) % 4
        shape = grid_rotate(face, q)
        w, h = _dims(shape)
        dx, dy = cx - (w - 1) // 2, cy - (h - 1) // 2
    elif move in MOVES:
        dx += MOVES[move][0]
        dy += MOVES[move][1]
    # at most one step beyond an edge, so "off the sheet" can be shown and undone
    dx = min(max(dx, -1), g.DOT_W - w + 1)
    dy = min(max(dy, -1), g.DOT_H - h + 1)
    return q, dx, dy


def _default_ghost(face, legal: list[dict]) -> tuple[int, int, int]:
    """The legal placement closest to the middle of the sheet (or the middle itself)."""
    shape = grid_rotate(face, 0)
    w, h = _dims(shape)
    if not legal:
        return 0, (g.DOT_W - w) // 2, (g.DOT_H - h) // 2
    def dist(p):
        sw, sh = _dims(grid_rotate(face, p["rotation"] // 90))
        cx, cy = p["offset"][0] + (sw - 1) / 2, p["offset"][1] + (sh - 1) / 2
        return ((cx - 6) ** 2 + (cy - 4.5) ** 2, p["rotation"])
    best = min(legal, key=dist)
    return best["rotation"] // 90, best["offset"][0], best["offset"][1]


def ghost_dots(face, q: int, dx: int, dy: int) -> list[tuple[int, int]]:
    return sorted(((x + dx, y + dy) for x, y in grid_rotate(face, q)), key=lambda d: (d[1], d[0]))


def judge_ghost(mask: int, dots) -> dict:
    off = [d for d in dots if not g.on_lattice(*d)]
    on = [d for d in dots if g.on_lattice(*d)]
    new = [d for d in on if not mask & g.dot_bit(*d)]
    overlap = [d for d in on if mask & g.dot_bit(*d)]
    if off:
        n = len(off)
        reason = (f"Off the sheet: {n} dot{'s' if n > 1 else ''} of the pattern would land outside the "
                  "pizza. Move it back with the arrows (DS-5).")
    elif not new:
        reason = "No new dot: every dot of the pattern is already marked; a placement must mark at least one (DS-6)."
    else:
        reason = None
    lines = []
    if not off and new:
        after = mask | g.mask_of(new)
        before_lines = set(g.lines_of(mask))
        lines = [ln for ln in g.lines_of(after) if ln not in before_lines]
    slices = []
    if not off and new:
        slices = g.new_slices(mask, mask | g.mask_of(new))
    return {"off": off, "new": new, "overlap": overlap, "legal": reason is None, "reason": reason,
            "lines": lines, "slices": [_bbox(s) for s in slices]}


def _bbox(squares) -> dict:
    xs = [s % g.SQ_W for s in squares]
    ys = [s // g.SQ_W for s in squares]
    return {"x": min(xs), "y": min(ys), "w": max(xs) - min(xs) + 1, "h": max(ys) - min(ys) + 1,
            "size": len(squares)}


# ---- drawing helpers -------------------------------------------------------------------------
def topping_style(edition_data: dict, side: str) -> dict:
    """kind -> {"letter", "colour", "name"}: every topping has a letter as well as a colour."""
    kinds = []
    for s in SIDE_NAMES:
        for k in edition_data["sides"][s]["legend"].values():
            if k.strip() not in kinds:
                kinds.append(k.strip())
    letters = {}
    for s in (side, *SIDE_NAMES):
        for letter, k in edition_data["sides"][s]["legend"].items():
            letters.setdefault(k.strip(), letter)
    return {k: {"letter": letters.get(k, k[:1].upper()), "colour": TOPPING_COLOURS[i % len(TOPPING_COLOURS)],
                "name": k} for i, k in enumerate(kinds)}


def sheet_drawing(player: dict, tops: dict) -> dict:
    """What the sheet SVG draws for one player's view."""
    scorable, other = [], []
    for r in player["regions"]:
        if r["scorable"]:
            squares = [sq[1] * g.SQ_W + sq[0] for sq in r["squares"]]
            scorable.append({**_bbox(squares), "points": r["points"]})
        elif r["enclosed"]:
            other.extend(r["squares"])
    toppings = [{**t, **tops.get(t["kind"], {"letter": "?", "colour": "#777", "name": t["kind"]})}
                for t in player["toppings"]]
    return {"dots": {tuple(d) for d in player["dots"]}, "lines": player["lines"], "slices": scorable,
            "unscorable": other, "toppings": toppings}


def seat_style(seat: int) -> dict:
    return {"colour": SEAT_COLOURS[seat % len(SEAT_COLOURS)], "mark": str(seat + 1)}


# ---- forms -> entries ------------------------------------------------------------------------
def entry_from_form(form, ctx) -> dict:
    rep, seat = ctx.replay, ctx.seat
    action = form.get("action", "")
    state = rep.state
    if action == "roll":
        faces = {}
        for d in DIE_NAMES:
            n = _int(form, f"face_{d}", None, 1, 6)
            if n is None:
                raise RuleError(f"Tap the face that die {d} shows.")
            faces[d] = n
        return {"kind": "roll", "faces": faces}
    if action == "choose":
        die = form.get("die", "")
        if die not in DIE_NAMES:
            raise RuleError("Choose die A or die B.")
        return {"kind": "choose", "die": die}
    if action == "place":
        face = state.face_for(seat) if state.phase == "place" else None
        if face is None:
            return {"kind": "place", "dots": []}  # the engine says why nobody places now
        q, dx, dy = _int(form, "rot", None, 0, 3), _int(form, "dx"), _int(form, "dy")
        if q is None or dx is None or dy is None:
            raise RuleError("Put the pattern on the sheet first: tap a dot or use the arrows.")
        return {"kind": "place", "dots": [list(d) for d in ghost_dots(face, q, dx, dy)]}
    if action == "bonus":
        bx, by = _int(form, "bx", None, 0, g.DOT_W - 1), _int(form, "by", None, 0, g.DOT_H - 1)
        if bx is None or by is None:
            raise RuleError("Tap a free dot for your bonus dot first.")
        entry = {"kind": "bonus_dot", "dot": [bx, by]}
        top = (form.get("topping") or "").split(",")
        if len(top) == 2 and all(t.strip().isdigit() for t in top):
            entry["topping"] = [int(top[0]), int(top[1])]
        return entry
    if action == "skip_bonus":
        return {"kind": "skip_bonus"}
    if action == "pass":
        return {"kind": "pass"}
    raise RuleError("That button is not known here; reload the page.")


# ---- template contexts ------------------------------------------------------------------------
def _common_context(rep) -> dict:
    state = rep.state
    view = rep.game.view(state, Viewer.table())
    ed = state.edition
    tops = topping_style(ed.data, state.side)
    faces = {d: [sorted(ed.face(d, n)) for n in range(1, 7)] for d in DIE_NAMES}
    return {"view": view, "tops": tops, "faces": faces, "cell": CELL, "dot_w": g.DOT_W, "dot_h": g.DOT_H,
            "seat_style": seat_style, "drawings": [sheet_drawing(p, tops) for p in view["players"]],
            "is_default_edition": is_default_edition(rep.info.options)}


def is_default_edition(options: dict) -> bool:
    """Was the table created with the project's default edition? Tables store the edition's data
    and the flag `edition_from_default`; tables from before that stored just "default"."""
    return options.get("edition") == "default" or options.get("edition_from_default") is True


def sheet_context(pctx, form) -> dict:
    rep, seat = pctx.replay, pctx.seat
    ctx = _common_context(rep)
    state = rep.state
    view = ctx["view"]
    me = view["players"][seat]
    mask = state.seats[seat].dots
    ctx.update(me=me, mode=None, ghost=None, bonus=None, nav={}, my_drawing=ctx["drawings"][seat],
               roll_pick={d: _int(form, f"face_{d}", None, 1, 6) for d in DIE_NAMES})
    if state.phase == "place" and me["status"] == "to_place":
        face = state.face_for(seat)
        legal = placements_for(state, seat)
        q, dx, dy = ghost_position(face, form, mask, legal)
        dots = ghost_dots(face, q, dx, dy)
        ctx.update(mode="place", face=sorted(face), ghost={**judge_ghost(mask, dots), "dots": dots, "q": q},
                   nav={"rot": q, "dx": dx, "dy": dy}, legal_count=len(legal))
    elif state.phase == "place" and me["status"] == "bonus":
        bx, by = _int(form, "bx", None, 0, g.DOT_W - 1), _int(form, "by", None, 0, g.DOT_H - 1)
        move = form.get("move") if hasattr(form, "get") else None
        if bx is None or by is None:
            bx, by = _nearest_free(mask)
        elif move in MOVES:
            bx = min(max(bx + MOVES[move][0], 0), g.DOT_W - 1)
            by = min(max(by + MOVES[move][1], 0), g.DOT_H - 1)
        taken = bool(mask & g.dot_bit(bx, by))
        after = mask | g.dot_bit(bx, by)
        pending = [t for t in ctx["my_drawing"]["toppings"] if t["pending"]]
        order = {sq: i for i, sq in enumerate(state.seats[seat].pending)}
        pending.sort(key=lambda t: order.get(t["square"][1] * g.SQ_W + t["square"][0], 99))
        ctx.update(mode="bonus", nav={"bx": bx, "by": by}, bonus={
            "dot": (bx, by), "taken": taken, "pending": pending,
            "reason": f"Dot ({bx},{by}) is already marked; a bonus dot goes on an empty dot (DS-11)." if taken else None,
            "lines": [] if taken else [ln for ln in g.lines_of(after) if ln not in set(g.lines_of(mask))],
            "slices": [] if taken else [_bbox(s) for s in g.new_slices(mask, after)],
        })
    ctx["links"] = _dot_links(rep, seat, ctx) if ctx["mode"] else None
    return ctx


def _nearest_free(mask: int) -> tuple[int, int]:
    free = [(x, y) for y in range(g.DOT_H) for x in range(g.DOT_W) if not mask & g.dot_bit(x, y)]
    if not free:
        return 6, 4
    return min(free, key=lambda d: ((d[0] - 6) ** 2 + (d[1] - 4.5) ** 2, d[1], d[0]))


def _dot_links(rep, seat, ctx) -> dict:
    """href for tapping each dot of the sheet (a plain GET of the page with the new ghost)."""
    code = request.view_args.get("code") if request.view_args else None
    base = url_for("pages.sheet", code=code, seat=seat)
    out = {}
    for y in range(g.DOT_H):
        for x in range(g.DOT_W):
            if ctx["mode"] == "place":
                out[(x, y)] = f"{base}?rot={ctx['nav']['rot']}&tx={x}&ty={y}"
            else:
                out[(x, y)] = f"{base}?bx={x}&by={y}"
    return out


def table_context(pctx) -> dict:
    return _common_context(pctx.replay)


# ---- create-table options and named editions ---------------------------------------------------
def create_options(form) -> dict:
    side = form.get("dice_and_slice_side") or "A"
    if side not in SIDE_NAMES:
        raise RuleError("Choose sheet side A or B.")
    name = (form.get("dice_and_slice_edition") or "default").strip()
    if name == "default":
        return {"edition": "default", "side": side}  # normalize_options stores the default's data
    data = _edition(name)
    if data is None:
        raise RuleError(f"There is no edition called {name!r}.")
    return {"edition": data, "side": side}


EDITIONS = "editions"  # the game's document collection in the platform's store


def _named_editions() -> list[dict]:
    """Every named edition: [{"name", "label", "updated_at"}], by name."""
    return [{"name": d.name, "label": d.data.get("label", ""), "updated_at": d.updated_at}
            for d in store().documents(GAME_ID, EDITIONS)]


def _edition(name: str) -> dict | None:
    doc = store().document(GAME_ID, EDITIONS, name)
    return doc.data if doc else None


bp = Blueprint("dice_and_slice", __name__, url_prefix="/dice-and-slice")


@bp.app_context_processor
def _editions_for_forms():
    def ds_edition_names():
        try:
            return [e["name"] for e in _named_editions()]
        except Exception:  # noqa: BLE001 - a page must still render without the list
            return []
    return {"ds_edition_names": ds_edition_names}


def form_to_edition(form) -> dict:
    """The editor's plain form -> an edition dict (validated afterwards by load_edition)."""
    dice = {}
    for d in DIE_NAMES:
        dice[d] = [[[x, y] for y in range(3) for x in range(3) if form.get(f"die{d}_{n}_{x}_{y}")]
                   for n in range(1, 7)]
    sides = {}
    for s in SIDE_NAMES:
        legend = {}
        for line in (form.get(f"side{s}_legend") or "").splitlines():
            if not line.strip():
                continue
            if "=" not in line:
                raise RuleError(f"Edition problem: side {s} legend line {line.strip()!r} must look like M=mushroom.")
            k, v = line.split("=", 1)
            legend[k.strip()] = v.strip()
        rows = [r.strip() for r in (form.get(f"side{s}_rows") or "").splitlines() if r.strip()]
        sides[s] = {"legend": legend, "rows": rows}
    bonuses = []
    for i in range(20):
        tops = [t.strip() for t in (form.get(f"bonus{i}_toppings") or "").split(",") if t.strip()]
        pts = (form.get(f"bonus{i}_points") or "").strip()
        if not tops and not pts:
            continue
        try:
            points = int(pts)
        except ValueError:
            raise RuleError(f"Edition problem: topping bonus row {i + 1} needs its points as a whole number.") from None
        bonuses.append({"toppings": tops, "points": points})
    points = []
    for n in range(1, g.MAX_SLICE + 1):
        raw = (form.get(f"points{n}") or "").strip()
        try:
            points.append(int(raw))
        except ValueError:
            raise RuleError(f"Edition problem: the points for a slice of {n} must be a whole number.") from None
    return {"label": (form.get("label") or "").strip(), "note": (form.get("note") or "").strip(),
            "dice": dice, "sides": sides, "topping_bonuses": bonuses, "slice_points": points}


def _edition_form_values(data: dict) -> dict:
    return {
        "dice": {d: [{(x, y) for x, y in f} for f in data["dice"][d]] for d in DIE_NAMES},
        "legend": {s: "\n".join(f"{k}={v}" for k, v in data["sides"][s]["legend"].items()) for s in SIDE_NAMES},
        "rows": {s: "\n".join(data["sides"][s]["rows"]) for s in SIDE_NAMES},
        "bonuses": data["topping_bonuses"] + [{"toppings": [], "points": ""}] * 3,
        "points": data["slice_points"],
    }


def _valid_name(name: str) -> str:
    name = " ".join((name or "").split())
    if not name or len(name) > 60:
        raise RuleError("Give the edition a name of 1 to 60 characters.")
    if name.lower() == "default":
        raise RuleError('"default" is the project\'s own edition; choose another name.')
    return name


@bp.get("/editions")
def editions():
    return render_template("dice_and_slice/editions.html", named=_named_editions())


@bp.get("/editions/default")
def edition_default():
    data = default_edition_data()
    return render_template("dice_and_slice/editions_edit.html", name="default", data=data, readonly=True,
                           values=_edition_form_values(data), error=None, pics=_pics(data))


@bp.get("/editions/new")
def edition_new():
    source = request.args.get("from", "default")
    data = default_edition_data() if source == "default" else _edition(source)
    if data is None:
        abort(404, f"There is no edition called {source!r}.")
    # a copy is a new edition: it must not keep the source's label and note (the default's say
    # "Companion default edition (the project's own design…)", which would mislabel the copy)
    data = {**data, "label": "", "note": ""}
    name = "" if source == "default" else f"{source} (copy)"
    return render_template("dice_and_slice/editions_edit.html", name=name, data=data, readonly=False, new=True,
                           values=_edition_form_values(data), error=None, pics=_pics(data))


@bp.get("/editions/e/<path:name>")
def edition_show(name):
    data = _edition(name)
    if data is None:
        abort(404, f"There is no edition called {name!r}.")
    return render_template("dice_and_slice/editions_edit.html", name=name, data=data, readonly=False, new=False,
                           values=_edition_form_values(data), error=None, pics=_pics(data))


@bp.post("/editions")
def edition_save():
    form = request.form
    original = form.get("original") or None
    try:
        if original is not None and _edition(original) is None:
            missing, original = original, None
            raise RuleError(f"There is no saved edition called {missing!r} to change (it may have been renamed or "
                            "deleted); nothing was saved. Save this one under a new name.")
        name = _valid_name(form.get("name"))
        data = form_to_edition(form)
        load_edition(data)  # DS-2: a mistake is refused with a message pointing at it
        if _same_label(data["label"], default_edition_data()["label"]):
            raise RuleError("That label belongs to the project's default edition; give your edition its own "
                            "label (for example the name of your box).")
        if name != original and _edition(name) is not None:
            raise RuleError(f"There is already an edition called {name!r}; choose another name (or open that "
                            "edition to change it). Nothing was saved.")
    except RuleError as exc:
        values = _form_values_from_post(form)
        return render_template("dice_and_slice/editions_edit.html", name=form.get("name", ""), data=None,
                               readonly=False, new=original is None, values=values, error=exc.reason,
                               original=original, pics=None), 422
    store().save_document(GAME_ID, EDITIONS, name, data)
    if original and original != name:
        store().delete_document(GAME_ID, EDITIONS, original)
    return redirect(url_for("dice_and_slice.edition_show", name=name, saved=1), code=303)


def _same_label(a, b) -> bool:
    return " ".join(str(a).split()).casefold() == " ".join(str(b).split()).casefold()


def _form_values_from_post(form) -> dict:
    bonuses = []
    for i in range(20):
        tops, pts = form.get(f"bonus{i}_toppings"), form.get(f"bonus{i}_points")
        if tops is None and pts is None:
            continue
        bonuses.append({"toppings": [t.strip() for t in (tops or "").split(",") if t.strip()], "points": pts or ""})
    return {
        "dice": {d: [{(x, y) for y in range(3) for x in range(3) if form.get(f"die{d}_{n}_{x}_{y}")}
                     for n in range(1, 7)] for d in DIE_NAMES},
        "legend": {s: form.get(f"side{s}_legend", "") for s in SIDE_NAMES},
        "rows": {s: form.get(f"side{s}_rows", "") for s in SIDE_NAMES},
        "bonuses": bonuses,
        "points": [form.get(f"points{n}", "") for n in range(1, g.MAX_SLICE + 1)],
        "label": form.get("label", ""), "note": form.get("note", ""),
    }


def _pics(data: dict) -> dict:
    """Toppings of each side as a small grid for the read-only view."""
    out = {}
    for s in SIDE_NAMES:
        legend = data["sides"][s]["legend"]
        out[s] = [[(ch, legend.get(ch, "")) for ch in row] for row in data["sides"][s]["rows"]]
    return out


WEB = GameWeb(
    sheet_template="dice_and_slice/sheet.html",
    table_template="dice_and_slice/board.html",
    entry_from_form=entry_from_form,
    sheet_context=sheet_context,
    table_context=table_context,
    create_options=create_options,
    options_template="dice_and_slice/options.html",
    assets=("dice_and_slice/sheet.css", "dice_and_slice/sheet.js"),
    blueprint=bp,
    host_links=(("Editions: match the dice and sheets to your copy", "dice_and_slice.editions"),),
)
