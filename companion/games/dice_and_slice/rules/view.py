"""JSON view of a Dice and Slice state (every sheet is public; nothing is secret)."""
from __future__ import annotations

from functools import lru_cache

from . import geometry as g
from .edition import DIE_NAMES, SIDE_NAMES, Edition, slice_points_for, topping_word
from .engine import State, breakdown, finished, waiting_for, winners


def _sq(s: int) -> list[int]:
    return [s % g.SQ_W, s // g.SQ_W]


def box(squares) -> dict:
    """The rectangle of squares (indexes) a region or slice covers: x, y, w, h and its size."""
    xs = [s % g.SQ_W for s in squares]
    ys = [s // g.SQ_W for s in squares]
    return {"x": min(xs), "y": min(ys), "w": max(xs) - min(xs) + 1, "h": max(ys) - min(ys) + 1,
            "size": len(squares)}


def topping_kinds(edition: Edition, side: str) -> list[dict]:
    """Every topping of the edition (both sheet sides, in the order they first appear) with the
    letter printed for it: the table's side's legend first, then the other side's."""
    sides = [edition.data["sides"][s]["legend"] for s in SIDE_NAMES]
    kinds = dict.fromkeys(topping_word(k) for legend in sides for k in legend.values())
    letters: dict[str, str] = {}
    for legend in [edition.data["sides"][side]["legend"], *sides]:
        for letter, kind in legend.items():
            letters.setdefault(kind.strip(), letter)
    return [{"kind": k, "letter": letters.get(k, k[:1].upper())} for k in kinds]


def die_faces(edition: Edition) -> dict:
    """Each die's six faces as dots on the 3 x 3 grid, face 1 first."""
    return {d: [sorted([list(p) for p in edition.face(d, n)]) for n in range(1, 7)] for d in DIE_NAMES}


@lru_cache(maxsize=512)  # ≈ 85 six-player tables' current sheets, some 15 MB late in their games
def _drawn(mask: int, slice_points: tuple[int, ...]) -> dict:
    """What a sheet's view draws from its marked dots (and the edition's slice points): its dots,
    lines and regions. Late in a game a sheet has some eighty regions, and a view of the table is
    drawn after every entry, so each sheet's is built once and shared by every view of it: what a
    view returns is only ever read (serialised, drawn), never changed."""
    a = g.analyse(mask)
    regions = [
        {
            "squares": [list(c) for c in r.square_coords()],
            "size": r.size,
            "box": box(r.squares),
            "enclosed": r.enclosed,
            "scorable": r.scorable,
            "points": slice_points_for(slice_points, r.size) if r.scorable else 0,
        }
        for r in a.regions
    ]
    return {"dots": [list(d) for d in g.dots_of(mask)],
            "lines": [[list(p), list(q)] for p, q in g.lines_of(mask)],
            "regions": regions, "largest_region": a.largest}


def _sheet(state: State, seat: int) -> dict:
    s = state.seats[seat]
    ed = state.edition
    drawn = _drawn(s.dots, ed.slice_points)
    toppings = [
        {
            "square": _sq(sq),
            "kind": kind,
            "bonus_dot": "used" if sq in s.crossed else "unused",
            "counted_for_bonus": sq in s.counted,
            "pending": sq in s.pending,
        }
        for sq, kind in sorted(ed.toppings(state.side).items())
    ]
    bd = breakdown(state, seat)
    return {
        "seat": seat,
        "status": s.status,
        "die": state.die_for(seat) if state.phase == "place" else None,
        "dots": drawn["dots"],
        "lines": drawn["lines"],
        "regions": drawn["regions"],
        "toppings": toppings,
        "pending_bonus_dots": len(s.pending),
        # the toppings whose bonus dot is waiting, in the order they were granted (DS-11)
        "pending_bonus_squares": [_sq(sq) for sq in s.pending],
        "border_complete": (s.dots & g.BORDER) == g.BORDER,
        "largest_region": drawn["largest_region"],
        "score": bd,
        "total": bd["total"],
    }


def view(state: State, viewer: int | None) -> dict:
    ed = state.edition
    rolled = None
    if state.faces is not None:
        rolled = {
            d: {"face": n, "dots": sorted([list(p) for p in ed.face(d, n)])}
            for d, n in zip(DIE_NAMES, state.faces)
        }
    bonuses = []
    for i, (b, st) in enumerate(zip(ed.bonuses, state.bonuses)):
        status = "closed" if st.closed else ("scored" if st.scored_by else "open")
        bonuses.append(
            {
                "bonus": i,
                "toppings": list(b.toppings),
                "points": b.points,
                "status": status,  # "scored": made this turn, closes at the end of the turn
                "scored_by": list(st.scored_by),
                "turn": st.turn or None,
            }
        )
    return {
        "game": "dice_and_slice",
        "viewer": viewer,
        "edition": {"label": ed.label, "note": ed.note, "dice": die_faces(ed)},
        "side": state.side,
        "topping_kinds": topping_kinds(ed, state.side),
        "turn": state.turn,
        "active": state.active,
        "phase": state.phase,
        "rolled": rolled,
        "chosen": state.chosen,
        "dice_for_seats": [state.die_for(i) if state.phase == "place" else None for i in range(state.players)],
        "seat_status": [s.status for s in state.seats],
        "waiting_for": waiting_for(state),
        "topping_bonuses": bonuses,
        "slice_points": {str(n): p for n, p in enumerate(ed.slice_points, 1)},
        "players": [_sheet(state, i) for i in range(state.players)],
        "finished": finished(state),
        "winners": winners(state),
    }
