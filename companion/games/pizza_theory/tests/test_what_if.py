"""PT-18: the per-seat what-if of a reveal, checked against the engine resolving each line for real."""
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.pizza_theory.rules import apply, new_state, view
from companion.games.pizza_theory.rules.engine import CUT

from .test_properties import play
from .test_rules import parse


def _round_states(states):
    """(state before the round's first cut, state after its reveal) for every resolved round."""
    out = []
    for before, after in zip(states, states[1:]):
        if before.phase == CUT and after.last is not None and after.last is not before.last:
            first_cut = next(s for s in reversed(states[:states.index(before) + 1])
                             if s.phase == CUT and s.round == before.round and all(c is None for c in s.cuts))
            out.append((first_cut, after))
    return out


def _played_instead(start, chosen: dict, seat: int, line: int) -> int:
    """Play the round's cuts through `apply`, `seat` taking `line`: its count on the pizza after."""
    s = start
    for cutter, their_line in chosen.items():
        s = apply(s, cutter, {"kind": "cut", "line": line if cutter == seat else their_line})
    return s.last.outcome.masks[seat].bit_count()


def _check_rounds(states):
    checked = 0
    for start, after in _round_states(states):
        res = view(after, None)["last_resolution"]
        chosen = {c["seat"]: c["line"] for c in res["cuts"] if not c["neutral"]}
        assert [w["seat"] for w in res["what_if"]] == sorted(chosen)
        for w in res["what_if"]:
            seat = w["seat"]
            assert w["line_chosen"] == chosen[seat]
            assert set(w["by_line"]) == {"1", "2", "3", "4", "5", "6"}
            for n in range(1, 7):
                assert w["by_line"][str(n)] == _played_instead(start, chosen, seat, n)
            colour = res["cuts"][[c["seat"] for c in res["cuts"]].index(seat)]["colour"]
            assert w["by_line"][str(w["line_chosen"])] == res["on_board_after"][colour]
            assert w["best_on_board"] == max(w["by_line"].values())
            assert w["best_lines"] == [n for n in range(1, 7) if w["by_line"][str(n)] == w["best_on_board"]]
        checked += 1
    return checked


@settings(max_examples=25, deadline=None)
@given(st.data(), st.sampled_from([2, 3]))
def test_pt18_what_if_matches_the_engine_resolving_each_line(data, players):
    states, _ = play(data, players, max_entries=120)
    _check_rounds(states)


def test_pt18_what_if_of_a_known_position():
    # White and green cut line 3. Red's line 3 splits red's pair from each other, so the slice with a
    # red and a white is a tie (nothing to replace); any other red line keeps both reds in the slice
    # with that white topping, which red then takes over: 3 on the pizza instead of 2.
    masks = parse("""
        R R . .
       . . . . .
      . . W W . .
     . . . W . . .
      . . . . . .
       . . . . .
        . . . G
    """)
    s = new_state(3, {"first_seat": 0})
    s = replace(s, masks=masks, supply=tuple(16 - m.bit_count() for m in masks), phase=CUT, turn=3,
                cuts=(None, None, None))
    after = apply(apply(apply(s, 1, {"kind": "cut", "line": 3}), 2, {"kind": "cut", "line": 3}),
                  0, {"kind": "cut", "line": 3})
    red, white, green = view(after, 0)["last_resolution"]["what_if"]
    assert red == {"seat": 0, "line_chosen": 3, "by_line": {"1": 3, "2": 3, "3": 2, "4": 3, "5": 3, "6": 3},
                   "best_lines": [1, 2, 4, 5, 6], "best_on_board": 3}
    assert white["line_chosen"] == 3 and white["best_on_board"] == 3 and white["by_line"]["3"] == 3
    assert green["by_line"] == {str(n): 1 for n in range(1, 7)}  # green's lone topping is never at stake
