"""What a seat may enter now: the previews its phone draws, and the legal entries (the contract's hints)."""
from __future__ import annotations

from collections.abc import Mapping

from companion.platform.core.contract import RuleError
from .engine import ADD, CUT, NEUTRAL_ROLL, State, _line, legal_spaces, neutral_blocked, neutral_line, neutral_spaces

LINES = range(1, 7)


def hints(state: State, seat, draft) -> dict:
    """Previews for `seat`; `draft` may hold the line the neutral die shows ({"line": n}).

    "place": the spaces it may add a topping to now (PT-5, on its turn: PT-6);
    "cut_lines": the lines it may choose, or change its choice to (PT-7);
    "neutral": for the first player during the neutral roll, once the line is drafted (PT-15): that
      line as (family, k), the spaces the green topping may go to, and why none may ("blocked");
    "legal": every complete entry it could make now; "refusal": why the draft cannot be used.
    """
    out = {"place": [], "cut_lines": [], "neutral": None, "legal": []}
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < state.players:
        return out
    if state.phase == ADD and state.order[state.turn] == seat:
        out["place"] = [list(s) for s in legal_spaces(state, seat)]
        out["legal"] = [{"kind": "place", "space": s} for s in out["place"]]
    elif state.phase == CUT:
        out["cut_lines"] = list(LINES)
        out["legal"] = [{"kind": "cut", "line": n} for n in LINES]
    elif state.phase == NEUTRAL_ROLL and state.order[0] == seat:
        out.update(_neutral_hints(state, draft))
    return out


def _neutral_hints(state: State, draft) -> dict:
    line = draft.get("line") if isinstance(draft, Mapping) else None
    if line is None:
        return {}
    try:
        line = _line({"line": line})
    except RuleError as exc:
        return {"refusal": exc.reason}
    family, k = neutral_line(line)
    blocked = neutral_blocked(state, line)
    spaces = [] if blocked else [list(s) for s in neutral_spaces(state, line)]
    legal = [{"kind": "neutral", "line": line, "space": s} for s in spaces]
    if blocked:
        legal = [{"kind": "neutral", "line": line, "space": None}]
    return {"neutral": {"line": line, "family": family, "k": k, "spaces": spaces, "blocked": blocked},
            "legal": legal}


def sample_draft(rng) -> dict:
    """What the neutral die might show (the only die the phone is told before an entry)."""
    return {"line": rng.randint(1, 6)}
