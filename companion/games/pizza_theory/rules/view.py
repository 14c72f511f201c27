"""JSON-able views of a Pizza Theory state. Never shows another seat's pending cut (PT-8)."""
from __future__ import annotations

from .board import AXES, LABELS
from .engine import ADD, BOARD, CUT, NEUTRAL, OVER, Resolution, State, _legal_mask, corner_of, waiting_for
from .resolve import COLOURS, EMPTY, MAJORITY, TIE2, describe_change


def _corner_view(ci: int) -> dict:
    c = BOARD.corners[ci]
    return {
        "corner": list(c.corner),
        "board_label": c.label,
        "family": c.family,
        "axis": AXES[c.family],
        # line n lies at axis = lines[n - 1], read left to right from this corner
        "lines": [k + 0.5 for k in c.numbering],
    }


def _label(state: State, seat: int) -> str:
    return LABELS[state.order.index(seat)]


def _verdict_text(v: tuple) -> str:
    if v[0] == EMPTY:
        return "no toppings"
    if v[0] == MAJORITY:
        return f"{COLOURS[v[1]]} has the most"
    if v[0] == TIE2:
        return f"{COLOURS[v[1]]} and {COLOURS[v[2]]} tie for the most"
    return "three-way tie: nothing changes"


def resolution_view(res: Resolution) -> dict:
    out = res.outcome
    slices = BOARD.cut_slices[res.cut_id]
    return {
        "round": res.round,
        "cuts": [
            {"seat": None if who < 0 else who, "colour": COLOURS[col], "neutral": who < 0,
             "board_label": BOARD.corners[ci].label, "axis": AXES[fam], "line": line,
             "at": res.ks[fam] + 0.5}
            for who, col, ci, fam, line in res.cutters
        ],
        "slices": [
            {"number": n, "spaces": [list(s) for s in BOARD.spaces_of(m)],
             "counts": dict(zip(COLOURS, cnt)), "verdict": v[0], "text": _verdict_text(v)}
            for n, (m, cnt, v) in enumerate(zip(slices, out.counts, out.verdicts), 1)
        ],
        "safe": [COLOURS[c] for c in range(3) if out.safe[c]],
        "changes": [
            {"space": list(BOARD.spaces[i]), "from": COLOURS[frm], "to": COLOURS[to] if to >= 0 else None,
             "why": why, "slice": n,
             "text": describe_change(BOARD.spaces[i], frm, to, why, n, out.verdicts[n - 1])}
            for i, frm, to, why, n in out.changes
        ],
        "would_be": dict(zip(COLOURS, out.would_be)),
        "on_board_after": dict(zip(COLOURS, (m.bit_count() for m in out.masks))),
    }


def view(state: State, viewer: int | None) -> dict:
    players = state.players
    occupant = {}
    for c in range(3):
        m = state.masks[c]
        while m:
            low = m & -m
            occupant[low.bit_length() - 1] = COLOURS[c]
            m ^= low
    to_place = state.order[state.turn] if state.phase == ADD else None
    seats = []
    for s in range(players):
        d = {"seat": s, "colour": COLOURS[s], "label": _label(state, s)}
        d.update(_corner_view(corner_of(state, s)))
        d.update({
            "supply": state.supply[s],
            "on_board": state.masks[s].bit_count(),
            "to_place": s == to_place,
            "has_chosen": state.phase == CUT and state.cuts[s] is not None,
        })
        seats.append(d)
    v = {
        "game": "pizza_theory",
        "players": players,
        "round": state.round,
        "phase": state.phase,
        "spaces": [{"space": list(sp), "occupant": occupant.get(i)} for i, sp in enumerate(BOARD.spaces)],
        "supply": dict(zip(COLOURS, state.supply)),
        "on_board": dict(zip(COLOURS, (m.bit_count() for m in state.masks))),
        "seats": seats,
        "turn_order": list(state.order),
        "to_place": to_place,
        "legal_spaces": [],
        "my_cut": None,
        "skipped": list(state.notes),
        "neutral": None,
        "last_resolution": resolution_view(state.last) if state.last else None,
        "finished": state.phase == OVER,
        "winners": list(state.winners),
        "both_lose": state.both_lose,
        "waiting_for": [],
    }
    if viewer is not None and viewer == to_place:
        v["legal_spaces"] = [list(s) for s in BOARD.spaces_of(_legal_mask(state.masks, viewer))]
    if viewer is not None and state.phase == CUT and 0 <= viewer < players:
        v["my_cut"] = state.cuts[viewer]
    if players == 2:
        nv = {"colour": COLOURS[NEUTRAL], "roller": state.order[0],
              "supply": state.supply[NEUTRAL], "on_board": state.masks[NEUTRAL].bit_count(),
              "line": state.neutral[0] if state.neutral else None,
              "space": (list(BOARD.spaces[state.neutral[1]]) if state.neutral and state.neutral[1] >= 0
                        else None)}
        nv.update(_corner_view(2))
        v["neutral"] = nv
    v["waiting_for"] = waiting_for(state)
    return v
