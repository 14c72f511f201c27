"""The pizza drawn from one corner, as the player sitting there sees the real board (no Flask).

The drawing turns the board so that the chosen corner is at the bottom: the lines of that corner's
direction then read 1 to 6 from left to right, as its player numbers them (PT-4). `draw_board`
returns everything `templates/pizza_theory/_board.html` draws: hexes, numbered lines, cuts, slices,
change markers, the corner markers, a tight drawing box and the tap buttons in reading order.
Spaces come and go as cube coordinates ([x, y, z] lists, as in the game's view).
"""
from __future__ import annotations

import math
from functools import lru_cache

from companion.platform.sdk import Text

from .rules import BOARD
from .rules.board import LABELS, planar

S = 100.0  # distance between neighbouring space centres, in SVG units
R = S / math.sqrt(3)  # hexagon circumradius
LETTERS = {"red": "R", "white": "W", "green": "G"}
COLOUR_NAMES = {"red": Text("Red"), "white": Text("White"), "green": Text("Green")}
ORDINAL = {1: Text("1st"), 2: Text("2nd"), 3: Text("3rd")}


def ordinal(n: int) -> str:
    return ORDINAL.get(n) or Text("{n}th", n=n)


def space_value(space) -> str:
    """[x, y, z] -> "x,y,z", the value a space's button posts."""
    return ",".join(str(v) for v in space)


def space_from_value(value) -> list[int] | None:
    """"x,y,z" from a form -> [x, y, z] if that is a space of the drawing, else None."""
    try:
        parts = tuple(int(p) for p in str(value or "").split(","))
    except ValueError:
        return None
    return list(parts) if parts in BOARD.index else None


def _index(space) -> int:
    return BOARD.index[tuple(space)]


# ---------------------------------------------------------------- geometry

def rotation(corner: int) -> tuple[float, float]:
    """cos, sin of the rotation that puts corner `corner` (0 = 1st) at the bottom of the drawing."""
    cx, cy = planar(BOARD.corners[corner].corner)
    phi = -math.pi / 2 - math.atan2(cy, cx)
    return math.cos(phi), math.sin(phi)


def project(p, rot) -> tuple[float, float]:
    """Cube (possibly fractional) coordinates -> SVG coordinates (y down) for the rotation."""
    px, py = planar(p)
    c, s = rot
    rx, ry = px * c - py * s, px * s + py * c
    # whole units: within half a unit (a quarter of a pixel on a phone), and shorter to send
    return float(round(rx * S)) + 0.0, float(round(-ry * S)) + 0.0  # + 0.0: -0.0 is drawn as 0


def _line_point(family: int, v: float) -> list[float]:
    p = [-v / 2] * 3
    p[family] = v
    return p


def _line_direction(family: int) -> list[int]:
    d = [0, 0, 0]
    d[(family + 1) % 3] = 1
    d[(family + 2) % 3] = -1
    return d


@lru_cache(maxsize=64)
def line_ends(family: int, k: int, rot):
    """The segment of line k of `family` across the board, in SVG coordinates."""
    p0 = _line_point(family, k + 0.5)
    d = _line_direction(family)
    ts = [sum((s[i] - p0[i]) * d[i] for i in range(3)) / 2 for s in BOARD.spaces if s[family] in (k, k + 1)]
    lo, hi = min(ts) - 0.55, max(ts) + 0.55
    a = [p0[i] + lo * d[i] for i in range(3)]
    b = [p0[i] + hi * d[i] for i in range(3)]
    return project(a, rot), project(b, rot)


def _segment(family: int, k: int, rot) -> dict:
    a, b = line_ends(family, k, rot)
    return {"x1": a[0], "y1": a[1], "x2": b[0], "y2": b[1]}


def line_number(corner: int, k: int) -> int:
    """The number (1..6) the player at `corner` calls line k of its direction."""
    return BOARD.corners[corner].numbering.index(k) + 1


def _corner_of_family(family: int) -> int:
    return next(i for i, c in enumerate(BOARD.corners) if c.family == family)


@lru_cache(maxsize=1024)  # 37 spaces from each of 3 corners, and the shape at the origin
def hex_points(x: float, y: float) -> str:
    pts = []
    for j in range(6):  # flat-top after every corner rotation (the rotation is 30 degrees mod 60)
        a = math.pi / 3 * j
        pts.append(f"{round(x + R * math.cos(a), 1) + 0.0:g},{round(y + R * math.sin(a), 1) + 0.0:g}")
    return " ".join(pts)


@lru_cache(maxsize=8)  # the drawing is pure geometry per corner: worked out once
def places(rot) -> tuple[tuple[float, float, int, int], ...]:
    """Per space: (x, y, column from the left 1..7, place in that column counted from the bottom)."""
    xy = [project(s, rot) for s in BOARD.spaces]
    cols = sorted({round(x) for x, _ in xy})
    out = []
    for x, y in xy:
        col = [yy for xx, yy in xy if round(xx) == round(x)]
        from_bottom = sorted(col, reverse=True).index(y) + 1
        out.append((x, y, cols.index(round(x)) + 1, from_bottom))
    return tuple(out)


def where(place, you: bool = True) -> str:
    """Where a space is, in words, for the player at the bottom (`you`) or anyone at the table."""
    _, _, col, from_bottom = place
    if you:
        return Text("column {col} from your left, {row} from you", col=col, row=ordinal(from_bottom))
    return Text("column {col} from the left, {row} from the bottom", col=col, row=ordinal(from_bottom))


# ---------------------------------------------------------------- the parts of a drawing

def _slice_numbers(slices) -> dict[int, int]:
    """Space index -> number (1..) of the slice holding it."""
    return {_index(sp): n for n, members in enumerate(slices, 1) for sp in members}


def _hex(i: int, place, occ, marks: dict, you: bool) -> dict:
    x, y = place[0], place[1]
    x_space, legal = i in marks["x"], i in marks["legal"]
    desc = Text("{colour} topping", colour=COLOUR_NAMES[occ]) if occ else Text("Empty space")
    if x_space:
        desc = Text("{space} (X start space)", space=desc)
    if legal:
        desc = Text("{space}, you may add here", space=desc)
    spot = where(place, you)
    return {
        "i": i, "x": x, "y": y, "points": hex_points(x, y), "occ": occ, "letter": LETTERS.get(occ, ""),
        "x_space": x_space, "legal": legal, "slice": marks["slice"].get(i), "marker": marks["marker"].get(i),
        "value": space_value(BOARD.spaces[i]), "where": spot, "label": Text("{space}: {where}", space=desc, where=spot),
    }


def _slice_labels(slices, spots, occupants) -> list[dict]:
    """One slice number per slice, on the empty space nearest the slice's middle (in the middle of
    that space, where a label as large as the line numbers fits), or above a topping if none is empty."""
    labels = []
    for n, members in enumerate(slices, 1):
        idx = [_index(sp) for sp in members]
        mx = sum(spots[i][0] for i in idx) / len(idx)
        my = sum(spots[i][1] for i in idx) / len(idx)
        empty = [i for i in idx if not occupants[i]]
        best = min(empty or idx, key=lambda i: (spots[i][0] - mx) ** 2 + (spots[i][1] - my) ** 2)
        lift = 0 if empty else S * 0.36
        labels.append({"n": n, "x": spots[best][0], "y": round(spots[best][1] - lift, 1), "over": not empty})
    return labels


def _numbered_line(corner: int, k: int, rot, colour, mine: bool, chosen_line) -> dict:
    """Line k of `corner`'s direction, its number at the end nearest that corner, as its player reads it."""
    a, b = line_ends(BOARD.corners[corner].family, k, rot)
    near = project(BOARD.corners[corner].corner, rot)
    if (a[0] - near[0]) ** 2 + (a[1] - near[1]) ** 2 > (b[0] - near[0]) ** 2 + (b[1] - near[1]) ** 2:
        a, b = b, a
    dx, dy = a[0] - b[0], a[1] - b[1]
    length = math.hypot(dx, dy)
    n = line_number(corner, k)
    return {"x1": a[0], "y1": a[1], "x2": b[0], "y2": b[1], "n": n,
            "lx": round(a[0] + dx / length * S * 0.28, 1), "ly": round(a[1] + dy / length * S * 0.28, 1),
            "mine": mine, "chosen": mine and chosen_line == n, "colour": colour,
            "family": BOARD.corners[corner].family}


def _lines(rot, corner_seats, my_family, my_line) -> list[dict]:
    return [_numbered_line(cj, k, rot, corner_seats[cj][1], corner.family == my_family, my_line)
            for cj, corner in enumerate(BOARD.corners) for k in BOARD.lines[corner.family]]


def _cuts(cuts, rot) -> list[dict]:
    """Revealed cuts (family, k, colour), each numbered as its cutter called it."""
    return [{**_segment(f, k, rot), "colour": colour, "n": line_number(_corner_of_family(f), k)}
            for f, k, colour in cuts]


def _corner_marker(cj: int, bottom: int, rot, seat) -> dict:
    """A corner's marker (its seat's colour and letter) beyond the line numbers, its label beside it."""
    x, y = project(BOARD.corners[cj].corner, rot)
    d = math.hypot(x, y)
    name, colour = seat
    if cj == bottom:  # below the viewer's numbers 3 and 4
        mx, my = x / d * S * 4.2, y / d * S * 4.2
        tx, ty, anchor = mx + S * 0.35, my, "start"
    else:  # beyond the side corner, its label above it, clear of that corner's numbers
        mx, my = x / d * S * 4.05, y / d * S * 4.05
        tx, ty, anchor = mx, my - S * 0.48, "middle"
    return {"x": round(mx, 1), "y": round(my, 1), "tx": round(tx, 1), "ty": round(ty, 1),
            "label": LABELS[cj], "name": name, "colour": colour, "letter": LETTERS.get(colour, ""),
            "anchor": anchor, "bottom": cj == bottom}


def _box(hexes, lines, corners) -> tuple[float, float, float, float]:
    """(min x, min y, width, height) around the hexes, line numbers and corner markers with their labels.

    Measured by their own extents and kept tight across the width, so that on a 360 px phone every
    space is a tap target of 44 px or more.
    """
    xs = ([x for h in hexes for x in (h["x"] - R, h["x"] + R)]
          + [x for ln in lines for x in (ln["lx"] - 14, ln["lx"] + 14)]
          + [x for c in corners for x in (c["x"] - 27, c["x"] + 27)]
          + [x for c in corners if c["anchor"] == "middle"
             for x in (c["tx"] - 9 * len(c["label"]), c["tx"] + 9 * len(c["label"]))])
    ys = [h["y"] for h in hexes] + [ln["ly"] for ln in lines] + [c["y"] for c in corners] + [c["ty"] for c in corners]
    pad = S * 0.62 * 0.75
    minx, maxx = min(xs) - S * 0.06, max(xs) + S * 0.06
    miny, maxy = min(ys) - pad, max(ys) + pad
    return minx, miny, maxx - minx, maxy - miny


def _buttons(spaces, hexes, box) -> list[dict]:
    """A button over each of `spaces`, in the order the viewer reads the drawing (top row first, then
    left to right), so that Tab walks the spaces as they appear from this corner."""
    minx, miny, w, h = box
    picked = sorted((hexes[_index(sp)] for sp in spaces), key=lambda hx: (round(hx["y"]), hx["x"]))
    # percentages to 0.1: a third of a pixel on a phone, and a smaller page
    return [{**hx, "left": round((hx["x"] - S / 2 - minx) / w * 100, 1),
             "top": round((hx["y"] - S / 2 - miny) / h * 100, 1),
             "w": round(S / w * 100, 2), "h": round(S / h * 100, 2)} for hx in picked]


# ---------------------------------------------------------------- the whole drawing

def draw_board(occupants, corner: int, *, corner_seats=None, x_spaces=(), legal=(), my_family=None,
               my_line=None, cuts=(), slices=(), changes=(), neutral_line=None, buttons=(),
               you: bool = True) -> dict:
    """Everything the board template needs, drawn with corner `corner` (0 = 1st) at the bottom.

    occupants: per space, in board order, a colour name or None. corner_seats: per corner
    (name, colour) of who sits there, or None for nobody. x_spaces, legal, buttons: spaces (the X start
    spaces, the highlighted ones, those that get a button). my_family / my_line: the viewer's cut
    direction and chosen line number. cuts: revealed (family, k, colour). slices: lists of spaces.
    changes: spaces, numbered 1.. in that order. neutral_line: (family, k). you: the viewer sits at
    the bottom corner (the spaces' labels say "from your left").
    """
    rot = rotation(corner)
    spots = places(rot)
    seats = [seat or ("", None) for seat in (corner_seats or [None] * 3)]
    marks = {"x": {_index(sp) for sp in x_spaces}, "legal": {_index(sp) for sp in legal},
             "slice": _slice_numbers(slices), "marker": {_index(sp): n for n, sp in enumerate(changes, 1)}}
    hexes = [_hex(i, spots[i], occupants[i], marks, you) for i in range(len(BOARD.spaces))]
    lines = _lines(rot, seats, my_family, my_line)
    corners = [_corner_marker(cj, corner, rot, seats[cj]) for cj in range(len(BOARD.corners))]
    box = _box(hexes, lines, corners)
    minx, miny, w, h = box
    return {
        "viewbox": f"{minx:.1f} {miny:.1f} {w:.1f} {h:.1f}", "w": round(w, 1), "h": round(h, 1),
        "hexes": hexes, "lines": lines, "cuts": _cuts(cuts, rot),
        "neutral": _segment(*neutral_line, rot) if neutral_line is not None else None,
        "corners": corners, "slice_labels": _slice_labels(slices, spots, occupants),
        "buttons": _buttons(buttons, hexes, box), "r_top": round(S * 0.3, 1), "hex_shape": hex_points(0, 0),
    }


def hex_at(board: dict, space) -> dict:
    """The drawn hex of `space` (its position, its "where" words)."""
    return board["hexes"][_index(space)]
