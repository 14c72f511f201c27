"""JSON-able views of a Pizza Theory state. Never shows another seat's pending cut (PT-8)."""
from __future__ import annotations

from .board import AXES, LABELS
from .engine import (ADD, BOARD, CUT, NEUTRAL, OVER, Resolution, State, _legal_mask, corner_of, waiting_for,
                     what_if)
from .resolve import COLOUR_WORDS, COLOURS, EMPTY, MAJORITY, TIE2, describe_change
from companion.platform.core.contract import Text


def _corner_view(ci: int) -> dict:
    c = BOARD.corners[ci]
    return {
        "corner": list(c.corner),
        "corner_index": ci,  # 0, 1, 2 for the board's 1st, 2nd, 3rd corner
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
        return Text("no toppings")
    if v[0] == MAJORITY:
        return Text("{colour} has the most", colour=COLOUR_WORDS[COLOURS[v[1]]])
    if v[0] == TIE2:
        return Text("{first} and {second} tie for the most", first=COLOUR_WORDS[COLOURS[v[1]]],
                    second=COLOUR_WORDS[COLOURS[v[2]]])
    return Text("three-way tie: nothing changes")


def _occupants(masks) -> list[str | None]:
    """Per space, in board order: the colour of its topping, or None."""
    occupant = [None] * len(BOARD.spaces)
    for c in range(3):
        for i in range(len(BOARD.spaces)):
            if masks[c] >> i & 1:
                occupant[i] = COLOURS[c]
    return occupant


def _cut_view(res: Resolution, who: int, col: int, ci: int, fam: int, line: int) -> dict:
    return {"seat": None if who < 0 else who, "colour": COLOURS[col], "neutral": who < 0,
            "board_label": BOARD.corners[ci].label, "corner_index": ci, "axis": AXES[fam], "family": fam,
            "k": res.ks[fam], "line": line, "at": res.ks[fam] + 0.5}


def _change_view(change: tuple, verdicts) -> dict:
    i, frm, to, why, n = change
    verdict = verdicts[n - 1]
    return {"space": list(BOARD.spaces[i]), "from": COLOURS[frm], "to": COLOURS[to] if to >= 0 else None,
            "why": why, "slice": n,
            # the colour with the most in the slice (also when it had no topping left: PT-12)
            "leader": COLOURS[verdict[1]] if verdict[0] == MAJORITY else None,
            "text": describe_change(BOARD.spaces[i], frm, to, why, n, verdict)}


def resolution_view(res: Resolution) -> dict:
    """A resolved round, with everything its reveal draws: the position the cuts were made on
    ("before", per space as in the view's "spaces"), the cuts and the corners they were made from,
    the slices, the changes and why, and the position after them ("after")."""
    out = res.outcome
    slices = BOARD.cut_slices[res.cut_id]
    return {
        "round": res.round,
        # the corner the round's first player sat at: the table view draws the round from there
        "first_corner": next(ci for who, _col, ci, _fam, _line in res.cutters if who == res.first),
        "cuts": [_cut_view(res, *cutter) for cutter in res.cutters],
        "slices": [
            {"number": n, "spaces": [list(s) for s in BOARD.spaces_of(m)],
             "counts": dict(zip(COLOURS, cnt)), "verdict": v[0], "text": _verdict_text(v)}
            for n, (m, cnt, v) in enumerate(zip(slices, out.counts, out.verdicts), 1)
        ],
        "safe": [COLOURS[c] for c in range(3) if out.safe[c]],
        "changes": [_change_view(ch, out.verdicts) for ch in out.changes],
        "would_be": dict(zip(COLOURS, out.would_be)),
        "on_board_before": dict(zip(COLOURS, (m.bit_count() for m in res.before))),
        "on_board_after": dict(zip(COLOURS, (m.bit_count() for m in out.masks))),
        "before": _occupants(res.before),
        "after": _occupants(out.masks),
        # per seat: its count after the round for each of its lines, the other cuts unchanged
        "what_if": what_if(res),
    }


def rounds(states) -> list[dict]:
    """Every round resolved along a game, in order (PT-12), from the states it went through."""
    out = []
    for st in states:
        if st.last is not None and (not out or out[-1]["round"] != st.last.round):
            out.append(resolution_view(st.last))
    return out


def _seat_view(state: State, seat: int, to_place) -> dict:
    d = {"seat": seat, "colour": COLOURS[seat], "label": _label(state, seat)}
    d.update(_corner_view(corner_of(state, seat)))
    d.update({
        "supply": state.supply[seat],
        "on_board": state.masks[seat].bit_count(),
        "to_place": seat == to_place,
        "has_chosen": state.phase == CUT and state.cuts[seat] is not None,
    })
    return d


def _neutral_view(state: State) -> dict | None:
    """PT-14 / PT-15: the neutral colour of the two-player game, and who rolls its die this round."""
    if state.players != 2:
        return None
    line, idx = state.neutral if state.neutral else (None, -1)
    nv = {"colour": COLOURS[NEUTRAL], "roller": state.order[0],
          "supply": state.supply[NEUTRAL], "on_board": state.masks[NEUTRAL].bit_count(),
          "line": line, "space": list(BOARD.spaces[idx]) if idx >= 0 else None}
    nv.update(_corner_view(2))
    return nv


def _private(state: State, viewer: int | None, to_place) -> dict:
    """What only the seat's own device is shown: its legal spaces and its pending cut (PT-8)."""
    mine = {"legal_spaces": [], "my_cut": None}
    if viewer is not None and viewer == to_place:
        mine["legal_spaces"] = [list(s) for s in BOARD.spaces_of(_legal_mask(state.masks, viewer))]
    if viewer is not None and state.phase == CUT and 0 <= viewer < state.players:
        mine["my_cut"] = state.cuts[viewer]
    return mine


def view(state: State, viewer: int | None) -> dict:
    """Everything the pages draw. `viewer` is the seat whose own device looks (None: any other)."""
    to_place = state.order[state.turn] if state.phase == ADD else None
    seats = [_seat_view(state, s, to_place) for s in range(state.players)]
    return {
        "game": "pizza_theory",
        "players": state.players,
        "round": state.round,
        "phase": state.phase,
        "spaces": [{"space": list(sp), "occupant": occ}
                   for sp, occ in zip(BOARD.spaces, _occupants(state.masks))],
        "x_spaces": [[list(BOARD.spaces[i]) for i in pair] for pair in state.x_spaces],
        "supply": dict(zip(COLOURS, state.supply)),
        "on_board": dict(zip(COLOURS, (m.bit_count() for m in state.masks))),
        "seats": seats,
        "turn_order": list(state.order),
        # the corner of this round's first player: the table view draws the board from there
        "first_corner": seats[state.order[0]]["corner_index"],
        "to_place": to_place,
        **_private(state, viewer, to_place),
        "skipped": list(state.notes),
        "neutral": _neutral_view(state),
        "last_resolution": resolution_view(state.last) if state.last else None,
        "finished": state.phase == OVER,
        "winners": list(state.winners),
        "both_lose": state.both_lose,
        "waiting_for": waiting_for(state),
    }


def export_columns(states: list[State], seat: int) -> dict:
    """The seat's row in the CSV export: its colour, then its toppings on the pizza after each
    round (PT-12), as the replay shows them round by round."""
    columns: dict = {Text("colour"): COLOUR_WORDS[COLOURS[seat]]}
    for state in states:
        res = state.last
        if res is not None and Text("round {number}", number=res.round) not in columns:
            columns[Text("round {number}", number=res.round)] = res.outcome.masks[seat].bit_count()
    return columns
