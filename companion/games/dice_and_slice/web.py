"""Dice and Slice on a phone: the pizza sheet drawn as SVG, turn by turn, to the final score.

Everything here is drawn from the game's view and hints (rules/view.py, rules/hints.py); this
module only turns forms into drafts and entries and picks colours. The placement "ghost" is
navigation, not game state: it travels in the query string (`rot` quarter turns, `dx`/`dy`
offset of the turned pattern, or `tx`/`ty` a tapped dot; `move` one arrow step) so every step
works as a plain GET without JavaScript, and htmx only re-renders the #sheet fragment.
Confirming posts the same fields; the hints turn them into the pattern's dots for the engine's
`place` entry (DS-5).

Tap targets: the sheet's dots are about 27 px apart on a 360 px phone, too close to be 44 px
targets, so the sheet holds no links at all (it is a picture, role="img"). The arrow pad under it
(≥ 52 px arrows and turn button, ≥ 48 px place / bonus / skip buttons, kept on screen in a sticky
bar) reaches every position of the pattern or of a bonus dot one step at a time; with JavaScript a
tap on the picture is a shortcut that jumps the ghost to the dot nearest the tap (sheet.js).
"""
from __future__ import annotations

from flask import url_for

from companion.platform.sdk import Text, GameWeb, KeptByIdentity, KeptDrawings, RuleError

from . import editions
from .editor_form import TOPPING_COLOURS
from .rules.edition import DIE_NAMES
from .rules.geometry import DOT_H, DOT_W

CELL = 10  # SVG units between two dots
SEAT_COLOURS = ["#c0392b", "#1f6f8b", "#2e7d32", "#8e44ad", "#b9770e", "#37474f"]
NAV_FIELDS = ("rot", "dx", "dy", "tx", "ty", "move", "bx", "by")
PREVIEW_MODES = ("place", "bonus")  # the modes in which the sheet shows a ghost and the arrow pad


def _whole(form, name: str) -> int | None:
    try:
        return int((form.get(name) or "").strip())
    except ValueError:
        return None


def draft_from_form(form) -> dict:
    """What the sheet has tapped so far, as the hints read it (see rules/hints.py)."""
    draft = {k: form.get(k) for k in NAV_FIELDS if form.get(k)}
    faces = {d: form.get(f"face_{d}") for d in DIE_NAMES if form.get(f"face_{d}")}
    if faces:
        draft["faces"] = faces
    return draft


# ---- drawing helpers -------------------------------------------------------------------------
def topping_style(view: dict) -> dict:
    """kind -> {"letter", "colour", "name"}: every topping has a letter as well as a colour."""
    return {t["kind"]: {"letter": t["letter"], "colour": TOPPING_COLOURS[i % len(TOPPING_COLOURS)], "name": t["kind"]}
            for i, t in enumerate(view["topping_kinds"])}


def _style_of(tops: dict, kind: str) -> dict:
    return tops.get(kind, {"letter": "?", "colour": "#777", "name": kind})


def sheet_drawing(player: dict, tops: dict) -> dict:
    """What the sheet SVG draws for one player's view (CELL units between two dots)."""
    toppings = [{**t, **_style_of(tops, t["kind"])} for t in player["toppings"]]
    return {**_kept_paths.value(player["dots"], player["lines"], player["regions"]), "toppings": toppings}


def sheet_paths(dots, lines, regions) -> dict:
    """The marks, lines and slices of a sheet's drawing: most of its markup, and most of its cost
    late in a game (some eighty regions, a hundred runs of lines)."""
    slices = [{**r["box"], "points": r["points"]} for r in regions if r["scorable"]]
    return {"mark_path": mark_path(dots), "line_path": line_path(line_runs(lines)),
            "slice_path": slice_path(slices), "point_labels": point_labels(slices),
            "unscorable": [sq for r in regions if r["enclosed"] and not r["scorable"] for sq in r["squares"]]}


# The sheet's paths give each shape from where the one before it began (relative moves): in reading
# order most steps are one cell across, the same few characters again, which compress to almost nothing.
def _n(v: float) -> str:
    return f"{round(v, 1):g}"


SLICE_INSET = 1.8  # a slice's square, inside its lines; sheet.css strokes it 2 wide with round joins


def slice_path(slices) -> str:
    """Every scoring slice as one path of squares, each 0.8 inside its lines with corners rounded 1
    (the round-joined stroke around the inset square)."""
    parts, at = [], None
    for s in sorted(slices, key=lambda s: (s["y"], s["x"])):
        x, y = s["x"] * CELL + SLICE_INSET, s["y"] * CELL + SLICE_INSET
        w, h = s["w"] * CELL - 2 * SLICE_INSET, s["h"] * CELL - 2 * SLICE_INSET
        parts.append(f"M{_n(x)} {_n(y)}" if at is None else f"m{_n(x - at[0])} {_n(y - at[1])}")
        parts.append(f"h{_n(w)}v{_n(h)}h{_n(-w)}z")
        at = (x, y)
    return "".join(parts)


def point_labels(slices) -> list[tuple[str, int, str]]:
    """(x, y, text) of each slice's points at its bottom-right corner (the template shifts them in).
    A row's one-digit numbers share one <text>: an x per character, each its own end-anchored chunk."""
    rows: dict[int, list[tuple[int, str]]] = {}
    for s in slices:
        rows.setdefault((s["y"] + s["h"]) * CELL, []).append(((s["x"] + s["w"]) * CELL, str(s["points"])))
    labels = []
    for y, row in sorted(rows.items()):
        digits = sorted(label for label in row if len(label[1]) == 1)
        labels += [(str(x), y, text) for x, text in sorted(row) if len(text) > 1]
        if digits:
            labels.append((" ".join(str(x) for x, _ in digits), y, "".join(text for _, text in digits)))
    return labels


def line_path(runs) -> str:
    """The lines' runs (see line_runs), each across (H) or down (V)."""
    return "".join(f"M{x1 * CELL} {y1 * CELL}" + (f"H{x2 * CELL}" if y1 == y2 else f"V{y2 * CELL}")
                   for (x1, y1), (x2, y2) in runs)


def mark_path(dots) -> str:
    """The marked dots, row by row: each a zero-length stroke (h0) whose round cap draws a disc."""
    parts, at = [], None
    for y, x in sorted((y, x) for x, y in dots):
        parts.append(f"M{x * CELL} {y * CELL}h0" if at is None else f"m{(x - at[0]) * CELL} {(y - at[1]) * CELL}h0")
        at = (x, y)
    return "".join(parts)


def line_runs(lines) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """The sheet's unit lines joined into straight runs: the same drawing in far fewer numbers."""
    runs = []
    for vertical in (False, True):
        cells = sorted((p[0], min(p[1], q[1])) if vertical else (p[1], min(p[0], q[0]))
                       for p, q in lines if (p[0] == q[0]) == vertical)
        for fixed, start in cells:
            if runs and runs[-1][0] == (vertical, fixed) and runs[-1][2] == start:
                runs[-1][2] = start + 1
            else:
                runs.append([(vertical, fixed), start, start + 1])
    return [((f, a), (f, b)) if v else ((a, f), (b, f)) for (v, f), a, b in runs]


# Drawn sheets by what they show. A sheet's markup grows with its lines and slices (three times as
# long at the end of a game as at its start), and between two entries only the writer's sheet
# changes: the table view and the other phones draw theirs from here.
_sheets = KeptDrawings("dice_and_slice/_svg.html", "sheet_svg", size=512)
# A sheet's paths, by the lists the rules' view shares for the sheet as it stands (rules/view.py
# `_drawn`): the table view asks for all six sheets after every entry.
_kept_paths = KeptByIdentity(sheet_paths, size=512)


def seat_style(seat: int) -> dict:
    return {"colour": SEAT_COLOURS[seat % len(SEAT_COLOURS)], "mark": str(seat + 1)}


# ---- forms -> entries ------------------------------------------------------------------------
def _roll_entry(form, ctx) -> dict:
    faces = {d: _whole(form, f"face_{d}") for d in DIE_NAMES}
    for d, n in faces.items():
        if n is None:
            raise RuleError("Tap the face that die {d} shows.", d=d)
    return {"kind": "roll", "faces": faces}


def _place_entry(form, ctx) -> dict:
    nav = {k: _whole(form, k) for k in ("rot", "dx", "dy")}
    ghost = ctx.hints(nav).get("ghost")
    if ghost is None:
        return {"kind": "place", "dots": []}  # the engine says why this seat does not place now
    if None in nav.values():
        raise RuleError("Put the pattern on the sheet first: tap a dot or use the arrows.")
    return {"kind": "place", "dots": ghost["dots"]}


def _bonus_entry(form, ctx) -> dict:
    bx, by = _whole(form, "bx"), _whole(form, "by")
    if bx is None or by is None:
        raise RuleError("Tap a free dot for your bonus dot first.")
    entry = {"kind": "bonus_dot", "dot": [bx, by]}
    top = (form.get("topping") or "").split(",")
    if len(top) == 2 and all(t.strip().isdigit() for t in top):
        entry["topping"] = [int(top[0]), int(top[1])]
    return entry


_ENTRIES = {
    "roll": _roll_entry,
    "choose": lambda form, ctx: {"kind": "choose", "die": form.get("die", "")},
    "place": _place_entry,
    "bonus": _bonus_entry,
    "skip_bonus": lambda form, ctx: {"kind": "skip_bonus"},
    "pass": lambda form, ctx: {"kind": "pass"},
}


def entry_from_form(form, ctx) -> dict:
    make = _ENTRIES.get(form.get("action", ""))
    if make is None:
        raise RuleError("That button is not known here; reload the page.")
    return make(form, ctx)


# ---- template contexts ------------------------------------------------------------------------
def is_default_edition(options: dict) -> bool:
    """Was the table created with the project's default edition? Tables store the edition's data
    and the flag `edition_from_default`; tables from before that stored just "default"."""
    return options.get("edition") == "default" or options.get("edition_from_default") is True


def _common_context(ctx) -> dict:
    view = ctx.view
    tops = topping_style(view)
    return {"view": view, "tops": tops, "faces": view["edition"]["dice"], "cell": CELL, "dot_w": DOT_W,
            "dot_h": DOT_H, "seat_style": seat_style, "drawn_sheet": _sheets.draw,
            "is_default_edition": is_default_edition(ctx.options)}


# ---- prompts in words, not coordinates ------------------------------------------------------------
def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def dot_in_words(x: int, y: int) -> str:
    """Where dot (x, y) is on the sheet, as a player would say it."""
    across, down = x in (0, DOT_W - 1), y in (0, DOT_H - 1)
    side = "left" if x == 0 else "right"
    edge = "top" if y == 0 else "bottom"
    if across and down:
        return Text("in the {edge}-{side} corner", edge=edge, side=side)
    if down:
        return Text("on the {edge} edge, {number} dot from the left", edge=edge, number=ordinal(x + 1))
    if across:
        return Text("on the {side} edge, {number} dot from the top", side=side, number=ordinal(y + 1))
    return Text("{number} dot from the left, {number2} from the top", number=ordinal(x + 1), number2=ordinal(y + 1))


def square_in_words(cx: int, cy: int) -> str:
    return Text("row {number} from the top, {number2} square from the left", number=cy + 1, number2=ordinal(cx + 1))


def slices_in_words(slices) -> str:
    """", and closes a 4-square slice" for the slices a marking would make ("" for none)."""
    if not slices:
        return ""
    said = ""
    for s in slices:
        slice_words = Text("a {size}-square slice", size=s["size"])
        said = Text("{said} and {part}", said=said, part=slice_words) if said else slice_words
    return Text(", and closes {slices}", slices=said)


def turned_in_words(q: int) -> str:
    return (Text("Not turned"), Text("Turned a quarter turn clockwise"), Text("Turned half way round"),
            Text("Turned three quarters clockwise"))[q % 4]


WORDS = {"dot_in_words": dot_in_words, "square_in_words": square_in_words, "slices_in_words": slices_in_words,
         "turned_in_words": turned_in_words}


def _tap(ctx, mode: str, nav: dict) -> dict:
    """What a tap on the picture asks for (sheet.js adds the dot): the fragment with a new ghost."""
    url = url_for("pages.sheet_fragment", code=ctx.table.code, seat=ctx.seat)
    return {"mode": mode, "url": url, "rot": nav.get("rot", 0)}


def sheet_context(ctx, form) -> dict:
    out = _common_context(ctx)
    hints = ctx.hints(draft_from_form(form))
    mode = hints["mode"] if hints["mode"] in PREVIEW_MODES else None
    bonus = hints.get("bonus")
    if bonus:  # the waiting toppings, drawn as chips
        bonus = {**bonus, "pending": [{**t, **_style_of(out["tops"], t["kind"])} for t in bonus["pending"]]}
    nav = hints.get("nav", {}) if mode else {}
    out.update(me=ctx.view["players"][ctx.seat], mode=mode, ghost=hints.get("ghost"), bonus=bonus, nav=nav,
               my_drawing=sheet_drawing(ctx.view["players"][ctx.seat], out["tops"]), roll_pick=hints.get("faces") or {},
               tap=_tap(ctx, mode, nav) if mode else None, **WORDS)
    return out


def table_context(ctx) -> dict:
    out = _common_context(ctx)
    return {**out, "drawings": [sheet_drawing(p, out["tops"]) for p in ctx.view["players"]]}


# ---- the start form ------------------------------------------------------------------------------
def _first(form) -> int | str:
    """Who starts (DS-3): "random", or the seat of the n-th name on the start form."""
    raw = (form.get("dice_and_slice_first") or "0").strip()
    if raw == "random":
        return raw
    if raw.isdigit() and len(raw) == 1:
        return int(raw)
    raise RuleError("Choose who starts: one of the players, or at random.")


def create_options(form, players) -> dict:
    side = form.get("dice_and_slice_side") or "A"  # normalize_options refuses anything but A or B
    first = _first(form)
    name = (form.get("dice_and_slice_edition") or "default").strip()
    if name == "default":
        return {"edition": "default", "side": side, "first": first}  # normalize_options stores the default's data
    data = editions.edition_data(name)
    if data is None:
        raise RuleError("There is no edition called {name!r}.", name=name)
    return {"edition": data, "side": side, "first": first}


WEB = GameWeb(
    sheet_template="dice_and_slice/sheet.html",
    table_template="dice_and_slice/board.html",
    entry_from_form=entry_from_form,
    sheet_context=sheet_context,
    table_context=table_context,
    create_options=create_options,
    options_template="dice_and_slice/options.html",
    options_context=editions.options_context,
    assets=("dice_and_slice/sheet.css", "dice_and_slice/sheet.js"),
    offline_scripts=("dice_and_slice/offline.js",),
    view_styles=("dice_and_slice/view.css",),
    blueprint=editions.bp,
    host_links=((Text("Editions: match the dice and sheets to your copy"), "dice_and_slice.editions"),),
)
