"""JSON view of a Dice and Slice state (every sheet is public; nothing is secret)."""
from __future__ import annotations

from . import geometry as g
from .edition import DIE_NAMES
from .engine import State, breakdown, finished, waiting_for, winners


def _sq(s: int) -> list[int]:
    return [s % g.SQ_W, s // g.SQ_W]


def _sheet(state: State, seat: int) -> dict:
    s = state.seats[seat]
    ed = state.edition
    a = g.analyse(s.dots)
    regions = [
        {
            "squares": [list(c) for c in r.square_coords()],
            "size": r.size,
            "enclosed": r.enclosed,
            "scorable": r.scorable,
            "points": ed.points_for(r.size) if r.scorable else 0,
        }
        for r in a.regions
    ]
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
        "dots": [list(d) for d in g.dots_of(s.dots)],
        "lines": [[list(p), list(q)] for p, q in g.lines_of(s.dots)],
        "regions": regions,
        "toppings": toppings,
        "pending_bonus_dots": len(s.pending),
        "border_complete": (s.dots & g.BORDER) == g.BORDER,
        "largest_region": a.largest,
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
        "edition": {"label": ed.label, "note": ed.note},
        "side": state.side,
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
