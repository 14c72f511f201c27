"""What a seat's sheet previews while the player taps: the contract's `hints`. Pure.

The draft is what the sheet has tapped so far (numbers may come as ints or as form text):

  roll    {"faces": {"A": n, "B": n}}        the faces tapped for the two dice (either may be missing)
  place   {"rot": q, "dx": x, "dy": y}       the pattern turned q quarter turns, its top-left on dot (x, y)
          {"rot": q, "tx": x, "ty": y}       ... or with its middle on a tapped dot
  bonus   {"bx": x, "by": y}                 the dot for a bonus dot
  and "move": "left" | "right" | "up" | "down" (or "rotate" while placing): one step from there.

Each verdict is the engine's own answer for the entry the draft describes (its refusal, or what
the marking would draw and slice), so no rule is written twice.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Mapping

from companion.platform.core.contract import RuleError

from . import geometry as g
from .edition import DIE_NAMES
from .engine import State, apply, finished, placements_for
from .view import box

MOVES = {"left": (-1, 0), "right": (1, 0), "up": (0, -1), "down": (0, 1)}
MIDDLE = ((g.DOT_W - 1) / 2, (g.DOT_H - 1) / 2)  # the middle of the sheet, between dots


def hints(state: State, seat, draft) -> dict:
    """{"mode": "roll" | "choose" | "place" | "bonus" | "none", what that mode previews, and
    "legal": complete entries `seat` may make now (see the module docstring for the draft)."""
    draft = draft if isinstance(draft, Mapping) else {}
    mode = _mode(state, seat)
    return {"mode": mode, **_BY_MODE[mode](state, seat, draft)}


def _mode(state: State, seat) -> str:
    if not (isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < state.players) or finished(state):
        return "none"
    if state.phase in ("roll", "choose"):
        return state.phase if seat == state.active else "none"
    return {"to_place": "place", "bonus": "bonus"}.get(state.seats[seat].status, "none")


def _num(draft, key: str) -> int | None:
    """A whole number from the draft, or None when it is missing or not one."""
    raw = draft.get(key) if isinstance(draft, Mapping) else None
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw
    try:
        return int(raw.strip()) if isinstance(raw, str) else None
    except ValueError:  # not a number (or thousands of digits)
        return None


def _move(draft) -> str | None:
    move = draft.get("move")
    return move if isinstance(move, str) else None


def _clamp(v: int, low: int, high: int) -> int:
    return min(max(v, low), high)


def _outcome(state: State, seat: int, entry: dict) -> tuple[str | None, State | None]:
    """(the engine's refusal or None, the state after the entry when it is taken)."""
    try:
        return None, apply(state, seat, entry)
    except RuleError as exc:
        return exc.reason, None


def _legal(state: State, seat: int, entries) -> list[dict]:
    return [e for e in entries if _outcome(state, seat, e)[0] is None]


def _effects(state: State, seat: int, after: State | None) -> dict:
    """The lines a marking draws and the slices it makes (DS-8, DS-10), from the state after it."""
    before = state.seats[seat].dots
    if after is None:
        return {"lines": [], "slices": []}
    now = after.seats[seat].dots
    old = set(g.lines_of(before))
    lines = [[list(p), list(q)] for p, q in g.lines_of(now) if (p, q) not in old]
    slices = sorted((box(s) for s in g.new_slices(before, now)), key=lambda b: (b["y"], b["x"], b["size"]))
    return {"lines": lines, "slices": slices}


# ---- roll and choose ---------------------------------------------------------------------------
def _roll(state: State, seat: int, draft) -> dict:
    faces = {d: _num(draft.get("faces"), d) for d in DIE_NAMES}
    if any(n is None for n in faces.values()):
        return {"faces": faces, "reason": None, "legal": []}
    entry = {"kind": "roll", "faces": faces}
    reason, _ = _outcome(state, seat, entry)
    return {"faces": faces, "reason": reason, "legal": [] if reason else [entry]}


def _choose(state: State, seat: int, draft) -> dict:
    return {"legal": _legal(state, seat, [{"kind": "choose", "die": d} for d in DIE_NAMES])}


def _none(state: State, seat, draft) -> dict:
    return {"legal": []}


# ---- placing the die's pattern (DS-5, DS-6) ---------------------------------------------------
def shape(face, q: int) -> list[tuple[int, int]]:
    """The face turned clockwise by q quarter turns, with its top-left at (0, 0)."""
    return sorted(g.rotate(face, q % 4))


@lru_cache(maxsize=1024)  # a face and a turn: asked for every legal placement when the ghost is placed
def _dims(face: frozenset, q: int) -> tuple[int, int]:
    dots = shape(face, q)
    return max(x for x, _ in dots) + 1, max(y for _, y in dots) + 1


def ghost_dots(face, q: int, dx: int, dy: int) -> list[list[int]]:
    """Every dot of the turned pattern with its top-left on (dx, dy), row by row."""
    return sorted(([x + dx, y + dy] for x, y in shape(face, q)), key=lambda d: (d[1], d[0]))


def ghost_position(face, draft, placements: list[dict]) -> tuple[int, int, int]:
    """(quarter turns, dx, dy) of the pattern for this draft: a tapped dot, a position and a step,
    or, with neither, the legal placement nearest the middle of the sheet."""
    q, dx, dy = _num(draft, "rot"), _num(draft, "dx"), _num(draft, "dy")
    tx, ty = _num(draft, "tx"), _num(draft, "ty")
    tapped = tx is not None and ty is not None
    if not tapped and None in (q, dx, dy):
        return _default_ghost(face, placements)
    q = (q or 0) % 4
    if tapped:  # the middle of the pattern goes on the tapped dot, kept on the sheet
        w, h = _dims(face, q)
        dx = _clamp(_clamp(tx, 0, g.DOT_W - 1) - (w - 1) // 2, 0, g.DOT_W - w)
        dy = _clamp(_clamp(ty, 0, g.DOT_H - 1) - (h - 1) // 2, 0, g.DOT_H - h)
    return _step(face, q, dx, dy, _move(draft))


def _step(face, q: int, dx: int, dy: int, move) -> tuple[int, int, int]:
    w, h = _dims(face, q)
    if move == "rotate":  # turn about the pattern's middle
        cx, cy = dx + (w - 1) // 2, dy + (h - 1) // 2
        q = (q + 1) % 4
        w, h = _dims(face, q)
        dx, dy = cx - (w - 1) // 2, cy - (h - 1) // 2
    elif move in MOVES:
        dx, dy = dx + MOVES[move][0], dy + MOVES[move][1]
    # at most one step beyond an edge, so that "off the sheet" can be shown and undone
    return q, _clamp(dx, -1, g.DOT_W - w + 1), _clamp(dy, -1, g.DOT_H - h + 1)


def _default_ghost(face, placements: list[dict]) -> tuple[int, int, int]:
    if not placements:
        w, h = _dims(face, 0)
        return 0, (g.DOT_W - w) // 2, (g.DOT_H - h) // 2

    def distance(p):
        w, h = _dims(face, p["rotation"] // 90)
        cx, cy = p["offset"][0] + (w - 1) / 2, p["offset"][1] + (h - 1) / 2
        return (cx - MIDDLE[0]) ** 2 + (cy - MIDDLE[1]) ** 2, p["rotation"]

    best = min(placements, key=distance)
    return best["rotation"] // 90, best["offset"][0], best["offset"][1]


def _ghost(state: State, seat: int, dots: list[list[int]]) -> dict:
    """Where the pattern's dots land (new, on marked dots, off the sheet) and the engine's verdict."""
    mask = state.seats[seat].dots
    on = [d for d in dots if g.on_lattice(*d)]
    reason, after = _outcome(state, seat, {"kind": "place", "dots": dots})
    return {
        "dots": dots,
        "new": [d for d in on if not mask & g.dot_bit(*d)],
        "overlap": [d for d in on if mask & g.dot_bit(*d)],
        "off": [d for d in dots if not g.on_lattice(*d)],
        "legal": reason is None,
        "reason": reason,
        **_effects(state, seat, after),
    }


def _place(state: State, seat: int, draft) -> dict:
    face = state.face_for(seat)
    placements = placements_for(state, seat)
    q, dx, dy = ghost_position(face, draft, placements)
    ghost = {"q": q, "dx": dx, "dy": dy, "face": [list(d) for d in shape(face, 0)],
             **_ghost(state, seat, ghost_dots(face, q, dx, dy))}
    legal = [{"kind": "place", "dots": p["dots"]} for p in placements]
    return {"ghost": ghost, "nav": {"rot": q, "dx": dx, "dy": dy}, "placements": len(placements),
            "legal": legal + _legal(state, seat, [{"kind": "pass"}])}


# ---- bonus dots (DS-11) --------------------------------------------------------------------------
def _nearest_free(mask: int) -> tuple[int, int]:
    free = g.dots_of(g.ALL_DOTS & ~mask)
    if not free:
        return int(MIDDLE[0]), int(MIDDLE[1])
    return min(free, key=lambda d: ((d[0] - MIDDLE[0]) ** 2 + (d[1] - MIDDLE[1]) ** 2, d[1], d[0]))


def bonus_position(mask: int, draft) -> tuple[int, int]:
    """The bonus dot for this draft: the tapped dot and a step, or the free dot nearest the middle."""
    bx, by = _num(draft, "bx"), _num(draft, "by")
    if bx is None or by is None:
        return _nearest_free(mask)
    dx, dy = MOVES.get(_move(draft), (0, 0))
    return _clamp(bx + dx, 0, g.DOT_W - 1), _clamp(by + dy, 0, g.DOT_H - 1)


def _bonus(state: State, seat: int, draft) -> dict:
    s = state.seats[seat]
    bx, by = bonus_position(s.dots, draft)
    reason, after = _outcome(state, seat, {"kind": "bonus_dot", "dot": [bx, by]})
    tops = state.edition.toppings(state.side)
    pending = [{"square": [sq % g.SQ_W, sq // g.SQ_W], "kind": tops[sq]} for sq in s.pending]
    bonus = {"dot": [bx, by], "legal": reason is None, "reason": reason, "pending": pending,
             **_effects(state, seat, after)}
    legal = [{"kind": "bonus_dot", "dot": list(d)} for d in g.dots_of(g.ALL_DOTS & ~s.dots)]
    if reason is None and len(pending) > 1:  # the drafted dot, paid with each waiting topping
        legal += [{"kind": "bonus_dot", "dot": [bx, by], "topping": p["square"]} for p in pending]
    return {"bonus": bonus, "nav": {"bx": bx, "by": by}, "legal": legal + [{"kind": "skip_bonus"}]}


_BY_MODE = {"roll": _roll, "choose": _choose, "place": _place, "bonus": _bonus, "none": _none}
