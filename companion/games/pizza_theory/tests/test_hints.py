"""Pizza Theory through the contract: hints (what a seat may enter now), what each viewer's view shows,
and the round-by-round replay. Rule ids PT-n: rules.md."""
from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

from companion.games.pizza_theory import GAME
from companion.games.pizza_theory.rules import (BOARD, apply, hints, legal_spaces, neutral_spaces, new_state,
                                                rounds, view)
from companion.platform.core.contract import Viewer
from tests.contract.playout import playout

from .test_rules import at, cut_all

EMPTY_BOARD = "\n".join(" ".join("." * n) for n in (4, 5, 6, 7, 6, 5, 4))


def two_players_at_the_neutral_roll():
    st = new_state(2, {})
    st = apply(st, 0, {"kind": "place", "space": [0, 0, 0]})
    return apply(st, 1, {"kind": "place", "space": [1, -1, 0]})


def every_viewer(players):
    return ([Viewer.own(s) for s in range(players)] + [Viewer.shared(s) for s in range(players)]
            + [Viewer.shared(), Viewer.table(), Viewer.host()])


# ---------------------------------------------------------------- hints

def test_pt5_pt6_only_the_seat_in_turn_may_add_and_only_on_its_legal_spaces():
    st = new_state(3, {})
    h = GAME.hints(st, 0, {})
    assert h["place"] == [list(s) for s in legal_spaces(st, 0)] and h["cut_lines"] == [] and h["neutral"] is None
    assert h["legal"] == [{"kind": "place", "space": s} for s in h["place"]]
    # exactly the spaces apply takes: every other space is refused with the rules' own reason
    for space in BOARD.spaces:
        entry = {"kind": "place", "space": list(space)}
        assert (GAME.check(st, 0, entry) is None) == (entry in h["legal"])
    assert GAME.check(st, 0, {"kind": "place", "space": [0, 2, -2]}) == (
        "That space touches one of your own toppings; pick a space away from them.")
    for seat in (1, 2):  # PT-6: not their turn
        assert GAME.hints(st, seat, {}) == {"place": [], "cut_lines": [], "neutral": None, "legal": []}


def test_pt7_every_seat_may_choose_its_cut_and_change_it_until_the_last_chooses():
    st = at(EMPTY_BOARD)
    st = apply(st, 0, {"kind": "cut", "line": 2})
    for seat in range(3):  # red has chosen but may still change her line
        h = GAME.hints(st, seat, {"line": 4})
        assert h["cut_lines"] == [1, 2, 3, 4, 5, 6] and h["place"] == []
        assert h["legal"] == [{"kind": "cut", "line": n} for n in range(1, 7)]
        assert all(GAME.check(st, seat, e) is None for e in h["legal"])
    assert "my_cut" not in json.dumps(GAME.hints(st, 1, {}))  # hints carry nobody's choice (PT-8)


def test_pt15_the_first_player_gets_the_spaces_beside_the_drafted_neutral_line():
    st = two_players_at_the_neutral_roll()
    c = BOARD.corners[2]
    occupied = {tuple(sp["space"]) for sp in GAME.view(st, Viewer.table())["spaces"] if sp["occupant"]}
    for line in range(1, 7):
        h = GAME.hints(st, 0, {"line": line})
        n = h["neutral"]
        assert (n["line"], n["family"], n["k"]) == (line, c.family, c.numbering[line - 1])
        assert n["spaces"] == [list(s) for s in neutral_spaces(st, line)] and n["blocked"] is None
        assert h["legal"] == [{"kind": "neutral", "line": line, "space": s} for s in n["spaces"]]
        assert all(GAME.check(st, 0, e) is None for e in h["legal"])
        far = next(list(s) for s in BOARD.spaces if s not in occupied and list(s) not in n["spaces"])
        assert GAME.check(st, 0, {"kind": "neutral", "line": line, "space": far}) == (
            f"That space does not touch neutral line {line}.")
    # the second player does not roll; without a line nothing is legal yet; a line off the die is refused
    assert GAME.hints(st, 1, {"line": 3})["legal"] == [] and GAME.hints(st, 1, {"line": 3})["neutral"] is None
    assert GAME.hints(st, 0, {})["legal"] == []
    assert GAME.hints(st, 0, {"line": 7})["refusal"] == "There is no line 7; lines are numbered 1 to 6."
    assert GAME.hints(st, 0, {"line": "x"})["refusal"] == "The line must be a whole number from 1 to 6."


def test_pt15_with_no_green_left_the_only_legal_neutral_entry_places_nothing():
    st = replace(two_players_at_the_neutral_roll(), supply=(13, 13, 0))
    h = GAME.hints(st, 0, {"line": 2})
    assert h["neutral"]["spaces"] == [] and h["neutral"]["blocked"] == "the neutral supply is empty"
    assert h["legal"] == [{"kind": "neutral", "line": 2, "space": None}]
    assert GAME.check(st, 0, h["legal"][0]) is None
    assert GAME.check(st, 0, {"kind": "neutral", "line": 2, "space": [2, -2, 0]}) == (
        "No neutral topping can be placed: the neutral supply is empty.")


def test_hints_for_no_seat_or_a_finished_game_offer_nothing():
    st = new_state(3, {})
    for seat in (None, -1, 3, True, "0"):
        assert hints(st, seat, {})["legal"] == []
    over = replace(st, phase="over")
    assert all(hints(over, s, {"line": 1})["legal"] == [] for s in range(3))


@pytest.mark.parametrize("players, seed", [(2, 1), (2, 2), (3, 3), (3, 4)])
def test_random_playouts_from_hints_never_stall_and_every_view_is_json(players, seed):
    # as the contract suite plays: a seat from waiting_for, its sample draft, a random legal entry
    # someone waited for can always enter something, and what hints offer the rules take
    st, steps = playout(GAME, players, random.Random(seed), options={"first_seat": seed % players})
    for step in steps:
        for viewer in every_viewer(players):
            json.dumps(GAME.view(step.after, viewer))
    assert GAME.finished(st) and GAME.waiting_for(st) == []


# ---------------------------------------------------------------- secrecy per viewer (PT-8)

def test_pt8_a_pending_cut_shows_only_on_its_own_seats_device():
    st = at(EMPTY_BOARD)
    entry = {"kind": "cut", "line": 5}
    chosen = apply(st, 0, entry)
    other = apply(st, 0, {"kind": "cut", "line": 2})
    assert GAME.view(chosen, Viewer.own(0))["my_cut"] == 5
    assert not GAME.secret(0, entry, st, chosen, Viewer.own(0))
    for viewer in every_viewer(3):
        if viewer == Viewer.own(0):
            continue
        v = GAME.view(chosen, viewer)
        assert v["my_cut"] is None and v["seats"][0]["has_chosen"], viewer
        # nothing in the view depends on which line was chosen, and the log entry stays hidden
        assert json.dumps(v) == json.dumps(GAME.view(other, viewer)), viewer
        assert GAME.secret(0, entry, st, chosen, viewer), viewer
    # once everyone has chosen, the cuts are revealed to all (PT-7)
    done = cut_all(chosen, [5, 1, 1])
    for viewer in every_viewer(3):
        assert not GAME.secret(0, entry, st, done, viewer)
        assert [c["line"] for c in GAME.view(done, viewer)["last_resolution"]["cuts"]] == [5, 1, 1]


def test_pt8_a_pass_and_play_device_never_sees_the_pending_cut_of_the_seat_it_shows():
    st = apply(at(EMPTY_BOARD), 1, {"kind": "cut", "line": 3})
    assert GAME.view(st, Viewer.own(1))["my_cut"] == 3
    assert GAME.view(st, Viewer.shared(1))["my_cut"] is None
    assert GAME.view(st, Viewer.shared(1)) == GAME.view(apply(at(EMPTY_BOARD), 1, {"kind": "cut", "line": 6}),
                                                        Viewer.shared(1))


# ---------------------------------------------------------------- the view draws a resolved round

def test_pt12_the_last_resolution_has_everything_its_reveal_draws():
    # all three cut line 3 (k = 0): the slice x > 0, y <= 0, z <= 0 holds three red and two white toppings
    red, white = [(1, 0, -1), (2, -1, -1), (2, 0, -2)], [(1, -1, 0), (3, -1, -2)]
    masks = (sum(1 << BOARD.index[s] for s in red), sum(1 << BOARD.index[s] for s in white), 0)
    st = replace(at(EMPTY_BOARD), masks=masks, supply=(13, 14, 16))
    before = view(st, None)["spaces"]
    st = cut_all(st, [3, 3, 3])
    res = view(st, None)["last_resolution"]
    assert res["before"] == [sp["occupant"] for sp in before]
    assert res["after"] == [sp["occupant"] for sp in view(st, None)["spaces"]]
    assert res["first_corner"] == 0  # PT-13: three players: the round's 1st player faced the 1st corner
    for cut, corner in zip(res["cuts"], BOARD.corners):  # round 1: red 1st, white 2nd, green 3rd
        assert (cut["corner_index"], cut["family"]) == (BOARD.corners.index(corner), corner.family)
        assert cut["k"] == corner.numbering[cut["line"] - 1] == 0 and cut["at"] == 0.5
    assert sorted(tuple(sp) for s in res["slices"] for sp in s["spaces"]) == sorted(BOARD.spaces)
    # PT-9: red leads that slice, both white toppings turn red
    assert sorted((c["space"], c["from"], c["to"], c["why"], c["leader"]) for c in res["changes"]) == [
        ([1, -1, 0], "white", "red", "replaced", "red"), ([3, -1, -2], "white", "red", "replaced", "red")]
    assert res["after"][BOARD.index[(1, -1, 0)]] == "red" and res["before"][BOARD.index[(1, -1, 0)]] == "white"


def test_pt14_two_players_draw_each_round_from_its_first_players_corner():
    st = two_players_at_the_neutral_roll()
    st = apply(st, 0, {"kind": "neutral", "line": 1, "space": None if not neutral_spaces(st, 1) else
                       list(neutral_spaces(st, 1)[0])})
    st = cut_all(st, [1, 1])
    assert view(st, None)["last_resolution"]["first_corner"] == 0  # Ann was 1st, at the 1st corner
    assert view(st, None)["first_corner"] == 1  # round 2: Ben is 1st, at the 2nd corner
    cuts = view(st, None)["last_resolution"]["cuts"]
    assert [(c["seat"], c["corner_index"], c["neutral"]) for c in cuts] == [(0, 0, False), (1, 1, False),
                                                                             (None, 2, True)]


def test_pt12_rounds_lists_each_resolved_round_once_in_order():
    st = new_state(3, {})
    rng = random.Random(5)
    states = [st]
    while st.round < 4:
        seat = GAME.waiting_for(st)[0]
        st = apply(st, seat, rng.choice(hints(st, seat, {})["legal"]))
        states.append(st)
    rs = rounds(states)
    assert [r["round"] for r in rs] == [1, 2, 3]
    assert rs[-1] == view(st, None)["last_resolution"]
    for earlier, later in zip(rs, rs[1:]):  # a round starts from where the one before left the board
        placed = [i for i in range(37) if later["before"][i] != earlier["after"][i]]
        assert all(earlier["after"][i] is None for i in placed)
    assert rounds(states[:2]) == []
