"""What a Dice and Slice sheet previews while the player taps (`hints`): every verdict is the
engine's own, what a ghost would draw and slice is what the entry does, and the legal entries are
exactly ones the engine takes. Rules cited as DS-n (rules.md)."""
from __future__ import annotations

import json
import random

from companion.games.dice_and_slice import GAME
from companion.games.dice_and_slice.rules import geometry as g
from companion.games.dice_and_slice.rules import hints, view
from companion.platform.core.contract import Viewer
from tests.contract.playout import playout

from companion.games.dice_and_slice.tests.test_engine import CORNER_MISSING, play, roll, sheet, table

BLOCK = [[2, 0], [3, 0], [2, 1], [3, 1]]  # die B face 3 of the default edition on dot (2,0)


def placing(sheets=(), a=1, b=3, die="B", players=2, **kw):
    """A table in the placing part of turn 1: seat 0 chose `die` of the roll a / b (DS-4)."""
    return play(table(players, sheets, **kw), *roll(a, b, die))


def scorable(state, seat) -> list[dict]:
    return sorted((r["box"] for r in view(state, seat)["players"][seat]["regions"] if r["scorable"]),
                  key=lambda b: (b["y"], b["x"], b["size"]))


def made_by(state, seat, entry) -> list[dict]:
    """The scorable slices the engine's state has after `entry` and did not have before."""
    before = scorable(state, seat)
    return [b for b in scorable(GAME.apply(state, seat, entry), seat) if b not in before]


# ---- modes --------------------------------------------------------------------------------------
def test_ds3_only_the_active_seat_rolls_and_its_tapped_faces_make_the_roll_entry():
    st = table(2)
    h = hints(st, 0, {"faces": {"A": "5", "B": 3}})
    assert h["mode"] == "roll" and h["legal"] == [{"kind": "roll", "faces": {"A": 5, "B": 3}}]
    assert hints(st, 0, {"faces": {"A": 5}})["legal"] == []  # die B not tapped yet
    assert hints(st, 1, {"faces": {"A": 5, "B": 3}}) == {"mode": "none", "legal": []}
    # a face the dice do not have: the engine's refusal, nothing legal
    h = hints(st, 0, {"faces": {"A": 7, "B": 3}})
    assert h["legal"] == [] and h["reason"] == GAME.check(st, 0, {"kind": "roll", "faces": {"A": 7, "B": 3}})
    assert "1 to 6" in h["reason"]


def test_ds4_the_active_seat_chooses_either_die_and_nobody_else_does():
    st = play(table(2), (0, {"kind": "roll", "faces": {"A": 1, "B": 3}}))
    assert hints(st, 0, {})["legal"] == [{"kind": "choose", "die": "A"}, {"kind": "choose", "die": "B"}]
    assert hints(st, 1, {})["mode"] == "none"


def test_nobody_and_no_seat_has_anything_to_preview_once_the_game_is_over():
    st = table(1)._replace(phase="over")
    assert hints(st, 0, {"faces": {"A": 1, "B": 1}}) == {"mode": "none", "legal": []}
    assert hints(table(1), None, {})["mode"] == "none"  # the table view has no seat
    assert hints(table(1), 5, {})["mode"] == "none"


# ---- the ghost of a placement (DS-5, DS-6) -------------------------------------------------------
def test_ds5_a_ghost_off_the_sheet_is_refused_with_the_engines_own_text():
    st = placing()
    h = hints(st, 0, {"rot": 0, "dx": 0, "dy": 0, "move": "up"})
    ghost = h["ghost"]
    assert h["mode"] == "place" and (ghost["dx"], ghost["dy"]) == (0, -1)
    assert ghost["off"] == [[0, -1], [1, -1]] and ghost["new"] == [[0, 0], [1, 0]]
    assert not ghost["legal"]
    assert ghost["reason"] == GAME.check(st, 0, {"kind": "place", "dots": ghost["dots"]})
    assert ghost["reason"].startswith("Off the sheet: 2 dots")
    assert ghost["lines"] == [] and ghost["slices"] == []
    # never more than one step beyond the edge, so one step back undoes it
    assert hints(st, 0, {"rot": 0, "dx": 0, "dy": -1, "move": "up"})["ghost"]["dy"] == -1


def test_ds6_a_ghost_that_marks_no_new_dot_is_refused_with_the_engines_own_text():
    st = placing([g.mask_of(tuple(d) for d in BLOCK)])
    ghost = hints(st, 0, {"rot": 0, "dx": 2, "dy": 0})["ghost"]
    assert ghost["dots"] == BLOCK and ghost["overlap"] == BLOCK and ghost["new"] == []
    assert not ghost["legal"]
    assert ghost["reason"] == GAME.check(st, 0, {"kind": "place", "dots": BLOCK})
    assert ghost["reason"].startswith("No new dot")
    # one step right: two new dots, two on marked ones, and legal (DS-6 allows overlaps)
    ghost = hints(st, 0, {"rot": 0, "dx": 2, "dy": 0, "move": "right"})["ghost"]
    assert (len(ghost["new"]), len(ghost["overlap"]), ghost["legal"], ghost["reason"]) == (2, 2, True, None)


def test_ds10_a_legal_ghost_slices_exactly_what_the_placement_slices():
    st = placing()
    ghost = hints(st, 0, {"rot": 0, "tx": 2, "ty": 0})["ghost"]  # the 2 x 2 block's middle on (2,0)
    assert ghost["legal"] and ghost["dots"] == BLOCK
    entry = {"kind": "place", "dots": ghost["dots"]}
    assert ghost["slices"] == made_by(st, 0, entry) == [{"x": 2, "y": 0, "w": 1, "h": 1, "size": 1}]
    after = view(GAME.apply(st, 0, entry), 0)["players"][0]["lines"]
    assert sorted(ghost["lines"]) == sorted(after)  # DS-8: a fresh sheet, so every line is new


def test_ds10_ds11_the_last_dot_of_a_slice_previews_the_slice_it_closes():
    st = placing([CORNER_MISSING], a=1, die="A", players=1)  # die A face 1: one dot
    ghost = hints(st, 0, {"rot": 0, "dx": 2, "dy": 2})["ghost"]  # its single dot lands on (2,2)
    assert ghost["dots"] == [[2, 2]] and ghost["legal"]
    assert ghost["lines"] == [[[1, 2], [2, 2]], [[2, 1], [2, 2]]]
    assert ghost["slices"] == made_by(st, 0, {"kind": "place", "dots": [[2, 2]]})
    assert [b["size"] for b in ghost["slices"]] == [4]


def test_ds5_a_quarter_turn_keeps_the_pattern_where_it_was():
    st = placing(a=3, die="A")  # die A face 3: three dots in a row
    ghost = hints(st, 0, {"rot": 0, "dx": 5, "dy": 4, "move": "rotate"})["ghost"]
    assert ghost["q"] == 1 and ghost["dots"] == [[6, 3], [6, 4], [6, 5]]
    assert hints(st, 0, {"rot": 3, "dx": 6, "dy": 3, "move": "rotate"})["ghost"]["dots"] == [[5, 4], [6, 4], [7, 4]]


def test_ds7_the_ghost_a_seat_starts_with_is_a_legal_placement():
    st = placing([g.ALL_DOTS & ~g.mask_of([(12, 9), (11, 9)])])  # only two corner dots free
    ghost = hints(st, 0, {})["ghost"]
    assert ghost["legal"] and set(map(tuple, ghost["new"])) <= {(12, 9), (11, 9)}


def test_ds5_the_legal_entries_are_the_engines_placements_and_pass_is_not_one():
    st = placing()
    h = hints(st, 1, {})
    assert h["legal"] and all(e["kind"] == "place" for e in h["legal"])
    assert len(h["legal"]) == h["placements"] == len({json.dumps(e) for e in h["legal"]})
    assert all(GAME.check(st, 1, e) is None for e in h["legal"])
    assert GAME.check(st, 1, {"kind": "pass"}) is not None


# ---- bonus dots (DS-11) ------------------------------------------------------------------------
def bonus_turn():
    """Seat 0 has just closed square (2,0), a mushroom on side A: one bonus dot is waiting."""
    st = placing(players=2, rows=("..M.........",), bonuses=())
    return GAME.apply(st, 0, {"kind": "place", "dots": BLOCK})


def test_ds11_a_bonus_dot_on_a_marked_dot_is_refused_with_the_engines_own_text():
    st = bonus_turn()
    h = hints(st, 0, {"bx": 2, "by": 0})
    assert h["mode"] == "bonus" and h["bonus"]["dot"] == [2, 0]
    assert not h["bonus"]["legal"]
    assert h["bonus"]["reason"] == GAME.check(st, 0, {"kind": "bonus_dot", "dot": [2, 0]})
    assert "already marked" in h["bonus"]["reason"]
    assert h["bonus"]["pending"] == [{"square": [2, 0], "kind": "mushroom"}]


def test_ds11_the_bonus_dot_steps_with_the_arrows_and_stays_on_the_sheet():
    st = bonus_turn()
    assert hints(st, 0, {"bx": "9", "by": "9", "move": "right"})["nav"] == {"bx": 10, "by": 9}
    assert hints(st, 0, {"bx": 12, "by": 9, "move": "right"})["nav"] == {"bx": 12, "by": 9}
    free = hints(st, 0, {})["bonus"]  # no tap yet: a free dot near the middle
    assert free["legal"] and free["dot"] not in BLOCK


def chain_turn():
    """Seat 0 closed the top-left 2 x 2 slice over a mushroom and an olive: two bonus dots wait,
    and a dot on (6,1) would close square (5,0), a pepper (DS-11: bonus dots chain)."""
    pepper_open = sheet("""
        .....oo
        .....o.
    """)
    st = table(1, [CORNER_MISSING | pepper_open], rows=["MO...P......"], bonuses=[])
    return play(st, *roll(1, 1, "A"), (0, {"kind": "place", "dots": [[2, 2]]}))


def test_ds11_a_bonus_dot_previews_the_slice_it_would_close():
    st = chain_turn()
    preview = hints(st, 0, {"bx": 6, "by": 1})["bonus"]
    entry = {"kind": "bonus_dot", "dot": [6, 1]}
    assert preview["legal"] and preview["lines"] == [[[5, 1], [6, 1]], [[6, 0], [6, 1]]]
    assert preview["slices"] == made_by(st, 0, entry) == [{"x": 5, "y": 0, "w": 1, "h": 1, "size": 1}]
    # a dot far from everything draws nothing and slices nothing
    far = hints(st, 0, {"bx": 10, "by": 7})["bonus"]
    assert far["legal"] and far["lines"] == [] and far["slices"] == []


def test_ds11_after_skipping_the_bonus_dot_there_is_nothing_left_to_preview():
    st = GAME.apply(bonus_turn(), 0, {"kind": "skip_bonus"})
    assert hints(st, 0, {"bx": 5, "by": 5}) == {"mode": "none", "legal": []}


def test_ds11_the_legal_bonus_entries_are_every_empty_dot_and_skipping():
    st = bonus_turn()
    legal = hints(st, 0, {})["legal"]
    free = g.ALL_DOTS & ~g.mask_of(tuple(d) for d in BLOCK)
    assert {tuple(e["dot"]) for e in legal if e["kind"] == "bonus_dot"} == set(g.dots_of(free))
    assert legal[-1] == {"kind": "skip_bonus"}
    assert all(GAME.check(st, 0, e) is None for e in legal)


def test_ds11_with_two_toppings_waiting_the_first_listed_is_the_one_crossed_by_default():
    st = chain_turn()
    h = hints(st, 0, {"bx": 6, "by": 1})
    assert [p["square"] for p in h["bonus"]["pending"]] == [[0, 0], [1, 0]]
    # the drafted dot may pay with either topping: one entry per topping
    assert {"kind": "bonus_dot", "dot": [6, 1], "topping": [1, 0]} in h["legal"]
    after = GAME.apply(st, 0, {"kind": "bonus_dot", "dot": [6, 1]})
    used = {tuple(t["square"]) for t in view(after, 0)["players"][0]["toppings"] if t["bonus_dot"] == "used"}
    assert used == {(0, 0)}


# ---- random play through hints (DS-16) -----------------------------------------------------------
def test_ds16_random_games_played_from_hints_alone_never_stall_and_every_legal_entry_is_taken():
    """What the contract suite does: a seat the game waits for, a sampled draft, a random legal
    entry. Every "legal" entry is checked against the engine, and a game always reaches its end."""
    rng = random.Random(7)
    for players in (1, 3):
        state, steps = playout(GAME, players, rng, max_steps=2000)  # stalls fail inside
        for step in steps:
            for seat in GAME.waiting_for(step.before):
                h = GAME.hints(step.before, seat, GAME.sample_draft(step.before, seat, rng))
                json.dumps(h)
                assert all(GAME.check(step.before, seat, e) is None for e in h["legal"]), h["mode"]
        assert GAME.finished(state)
        for viewer in (Viewer.own(0), Viewer.shared(0), Viewer.table(), Viewer.host()):
            json.dumps(GAME.view(state, viewer))


def test_view_carries_what_the_pages_draw():
    v = GAME.view(placing(), Viewer.table())
    # DS-2: the edition's die faces, for the roll picker
    assert len(v["edition"]["dice"]["A"]) == 6 and v["edition"]["dice"]["A"][0] == [[1, 1]]
    # every topping of both sides, the table's side first, each with the letter printed for it
    assert v["topping_kinds"][:3] == [{"kind": "mushroom", "letter": "M"}, {"kind": "olive", "letter": "O"},
                                      {"kind": "pepper", "letter": "P"}]
    assert len({t["kind"] for t in v["topping_kinds"]}) == len(v["topping_kinds"])
    assert all(p["pending_bonus_squares"] == [] for p in v["players"])


def test_ds16_a_draft_of_nonsense_shows_the_starting_ghost_instead():
    st = placing()
    start = hints(st, 0, {})
    for draft in (None, "rot=1", {"rot": "x", "dx": "9" * 5000, "dy": [], "move": ["up"]},
                  {"faces": [1, 2], "tx": True, "ty": 1.5}):
        assert hints(st, 0, draft) == start
    far = hints(st, 0, {"rot": 10 ** 30, "dx": -10 ** 30, "dy": 10 ** 30})["ghost"]
    assert far["q"] == 0 and (far["dx"], far["dy"]) == (-1, 9) and not far["legal"]
