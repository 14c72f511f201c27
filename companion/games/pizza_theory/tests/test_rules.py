"""Pizza Theory worked examples, one or more per rule PT-n of rules.md.

Boards are drawn as the hexagon seen from above with the 1st corner at the top left:
seven rows of 4-5-6-7-6-5-4 cells (row z = -3 at the top, x growing to the right),
R/W/G for red/white/green toppings and . for an empty space.
Seat 0 is red, seat 1 white, seat 2 green. In round 1 of a 3-player game with first_seat 0,
red faces the 1st corner (top left, cuts along x), white the 2nd (right, cuts along z) and green
the 3rd (bottom left, cuts along y). From every corner, line n is the line with k = 3 - n, so
"all three cut line 1" is the cut (2, 2, 2), and all line 3 is (0, 0, 0).
"""
import copy
import json
from dataclasses import replace

import pytest

from companion.platform.core.registry import RuleError, get_game
from companion.games.pizza_theory.rules import (BOARD, BoardError, apply, legal_spaces, neutral_spaces, new_state,
                                          normalize_options, outcomes, secret, totals, validate, view,
                                          waiting_for, winners)
from companion.games.pizza_theory.rules.board import DEFAULT_PATH, left_to_right
from companion.games.pizza_theory.rules.resolve import NO_SUPPLY, REMOVED, REPLACED, resolve_masks

SYMBOL = {"R": 0, "W": 1, "G": 2}
LETTER = "RWG"


def parse(picture: str) -> tuple[int, int, int]:
    """A drawn hexagon -> colour masks."""
    rows = [r.split() for r in picture.strip("\n").splitlines() if r.strip()]
    assert [len(r) for r in rows] == [4, 5, 6, 7, 6, 5, 4], "draw 7 rows of 4-5-6-7-6-5-4 cells"
    masks = [0, 0, 0]
    for z, row in zip(range(-3, 4), rows):
        for x, cell in zip(range(max(-3, -3 - z), 4), row):
            if cell != ".":
                masks[SYMBOL[cell]] |= 1 << BOARD.index[(x, -x - z, z)]
    return tuple(masks)


def draw(masks, cell=None) -> str:
    """Colour masks (or a function space index -> character) -> the drawing `parse` reads."""
    lines = []
    for z in range(-3, 4):
        cells = []
        for x in range(max(-3, -3 - z), min(3, 3 - z) + 1):
            i = BOARD.index[(x, -x - z, z)]
            if cell:
                cells.append(cell(i))
            else:
                cells.append(next((LETTER[c] for c in range(3) if masks[c] >> i & 1), "."))
        lines.append(" " * abs(z) + " ".join(cells))
    return "\n".join(lines)


def same(masks, picture) -> bool:
    return draw(masks) == draw(parse(picture))


def slices_picture(ks) -> str:
    sl = BOARD.cut_slices[BOARD.cut_id(ks)]
    return draw(None, lambda i: str(next(n for n, m in enumerate(sl, 1) if m >> i & 1)))


def at(picture, players=3, phase="cut", **kw):
    """A state in round 1 holding the drawn position, with supplies to match."""
    st = new_state(players, {})
    masks = parse(picture)
    return replace(st, masks=masks, supply=tuple(16 - m.bit_count() for m in masks), phase=phase, **kw)


def cut_all(st, lines):
    for seat, line in enumerate(lines):
        st = apply(st, seat, {"kind": "cut", "line": line})
    return st


def sp(i):
    return list(BOARD.spaces[i])


# ------------------------------------------------------------------------------------------- PT-1

def test_pt1_board_has_37_spaces_in_rows_of_4_to_7():
    assert len(BOARD.spaces) == 37
    assert all(sum(s) == 0 and max(map(abs, s)) <= 3 for s in BOARD.spaces)
    rows = {}
    for s in BOARD.spaces:
        rows[s[2]] = rows.get(s[2], 0) + 1
    assert [rows[z] for z in range(-3, 4)] == [4, 5, 6, 7, 6, 5, 4]


def test_pt1_adjacency_is_the_six_lattice_neighbours():
    centre = BOARD.index[(0, 0, 0)]
    assert sorted(BOARD.spaces_of(BOARD.neighbour_mask[centre])) == sorted(
        [(1, -1, 0), (1, 0, -1), (0, 1, -1), (-1, 1, 0), (-1, 0, 1), (0, -1, 1)])
    corner = BOARD.index[(0, 3, -3)]
    assert BOARD.neighbour_mask[corner].bit_count() == 3
    for i in range(37):  # symmetric
        for j in range(37):
            assert (BOARD.neighbour_mask[i] >> j & 1) == (BOARD.neighbour_mask[j] >> i & 1)


def _data():
    with open(DEFAULT_PATH) as fh:
        return json.load(fh)


def _break(mutate):
    d = _data()
    mutate(d)
    return d


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d.pop("corners"), "lacks 'corners'"),
    (lambda d: d["spaces"].append([0, 3, -3]), "listed twice"),
    (lambda d: d["spaces"].__setitem__(0, [0, 3, -2]), "not a cube coordinate"),
    (lambda d: d["spaces"].__setitem__(0, [0, "3", -3]), "three integers"),
    (lambda d: d["spaces"].append([9, -9, 0]), "not connected"),
    (lambda d: d["neighbour_offsets"].pop(), "six offsets"),
    (lambda d: d["families"][0]["lines"].__setitem__(0, 7), "misses the board"),
    (lambda d: d["families"][1].__setitem__("axis", "x"), "appears twice"),
    (lambda d: d["corners"][0].__setitem__("label", "2nd"), "label"),
    (lambda d: d["corners"][0].__setitem__("corner", [5, -5, 0]), "not a board space"),
    (lambda d: d["corners"][1].__setitem__("family", 0), "already belongs"),
    (lambda d: d["corners"][0]["numbering"].reverse(), "left to right"),
    (lambda d: d["corners"][0].__setitem__("numbering", [2, 1, 0]), "each x line once"),
    (lambda d: d["corners"][0]["x_spaces"].__setitem__(0, [4, -4, 0]), "not a board space"),
    (lambda d: d["corners"][1]["x_spaces"].__setitem__(0, [1, 2, -3]), "used twice"),
])
def test_pt1_bad_board_data_is_refused_with_a_message(mutate, message):
    with pytest.raises(BoardError, match=message):
        validate(_break(mutate))


def test_pt1_shipped_data_loads():
    assert validate(_data()).spaces == BOARD.spaces


# ------------------------------------------------------------------------------------------- PT-2

def test_pt2_all_line_1_cuts_off_three_edges():
    assert slices_picture((2, 2, 2)) == """\
   1 2 2 3
  1 2 2 2 3
 1 2 2 2 2 3
1 2 2 2 2 2 3
 2 2 2 2 2 2
  2 2 2 2 2
   4 4 4 4"""


def test_pt2_all_line_3_gives_seven_slices():
    assert slices_picture((0, 0, 0)) == """\
   1 2 2 3
  1 1 2 3 3
 1 1 1 3 3 3
1 1 1 4 3 3 3
 5 5 6 6 7 7
  5 6 6 6 7
   6 6 6 6"""


def test_pt2_216_cuts_each_with_4_to_7_slices():
    assert len(BOARD.cut_slices) == 216
    assert {len(s) for s in BOARD.cut_slices} == {4, 5, 6, 7}


# ------------------------------------------------------------------------------------------- PT-3

def test_pt3_three_player_setup_on_x_spaces():
    st = new_state(3, {})
    assert same(st.masks, """
   . R . .
  R . . . .
 . . . . . W
. . . . . . .
 . . . . . W
  G . . . .
   . G . .""")
    assert st.supply == (14, 14, 14)
    assert waiting_for(st) == [0]


def test_pt3_first_seat_faces_the_1st_corner():
    st = new_state(3, {"first_seat": 1})
    assert same(st.masks, """
   . W . .
  W . . . .
 . . . . . G
. . . . . . .
 . . . . . G
  R . . . .
   . R . .""")
    assert waiting_for(st) == [1]
    assert [s["label"] for s in view(st, None)["seats"]] == ["3rd", "1st", "2nd"]


def test_pt3_x_spaces_option_overrides_start_spaces():
    xs = [[[0, 0, 0], [0, 3, -3]], [[3, -3, 0], [1, -1, 0]], [[-3, 0, 3], [-1, 1, 0]]]
    st = new_state(3, {"x_spaces": xs})
    assert same(st.masks, """
   R . . .
  . . . . .
 . . . . . .
. . G R W . W
 . . . . . .
  . . . . .
   G . . .""")
    assert normalize_options({"x_spaces": xs})["x_spaces"] == xs


@pytest.mark.parametrize("options, message", [
    ({"colour": "red"}, "Unknown option"),
    ({"first_seat": 3}, "first_seat"),
    ({"first_seat": True}, "first_seat"),
    ({"x_spaces": [[[0, 0, 0], [0, 0, 0]], [[3, -3, 0], [1, -1, 0]], [[-3, 0, 3], [-1, 1, 0]]]}, "twice"),
    ({"x_spaces": [[[0, 0, 0], [9, 0, -9]], [[3, -3, 0], [1, -1, 0]], [[-3, 0, 3], [-1, 1, 0]]]}, "not a space"),
    ({"x_spaces": [[[0, 0, 0]]]}, "three pairs"),
    ("first", "object"),
])
def test_pt3_bad_options_refused(options, message):
    with pytest.raises(RuleError, match=message):
        normalize_options(options)


def test_pt3_player_count_and_first_seat_checked():
    with pytest.raises(RuleError):
        new_state(4, {})
    with pytest.raises(RuleError, match="first_seat"):
        new_state(2, {"first_seat": 2})


def test_pt3_registered_in_the_registry():
    g = get_game("pizza_theory")
    assert (g.title, g.min_players, g.max_players) == ("Pizza Theory", 2, 3)
    assert set(g.entry_kinds) == {"place", "cut", "neutral"}


# ------------------------------------------------------------------------------------------- PT-4

def test_pt4_lines_numbered_left_to_right_from_each_corner():
    for c in BOARD.corners:
        assert list(c.numbering) == left_to_right(c.corner, c.family, BOARD.lines[c.family])
    v = view(new_state(3, {}), 0)
    red = v["seats"][0]
    # red sits top left: line 1 (on red's left) cuts off the upper-right edge x = 3
    assert (red["axis"], red["lines"][0], red["lines"][5]) == ("x", 2.5, -2.5)
    assert [(s["axis"], s["board_label"]) for s in v["seats"]] == [("x", "1st"), ("z", "2nd"), ("y", "3rd")]


# ------------------------------------------------------------------------------------------- PT-5

def test_pt5_legal_spaces_avoid_own_toppings_and_occupied_spaces():
    st = at("""
   . . . .
  . . . . .
 . . . . . .
. . . R W . .
 . . . . . .
  . . . . .
   . . . .""", phase="add")
    red = set(legal_spaces(st, 0))
    assert (0, 0, 0) not in red and (1, -1, 0) not in red  # own, occupied
    assert not red & set(BOARD.spaces_of(BOARD.neighbour_mask[BOARD.index[(0, 0, 0)]]))
    assert (2, -2, 0) in red  # next to white only: fine
    assert len(red) == 37 - 2 - 5


def test_pt5_placing_next_to_own_or_on_occupied_is_refused():
    st = new_state(3, {})
    with pytest.raises(RuleError, match="touches one of your own"):
        apply(st, 0, {"kind": "place", "space": [0, 2, -2]})  # next to red's X at [1, 2, -3]
    with pytest.raises(RuleError, match="already holds a white"):
        apply(st, 0, {"kind": "place", "space": [3, -2, -1]})
    st2 = apply(st, 0, {"kind": "place", "space": [2, -2, 0]})  # next to white: allowed
    assert st2.masks[0] >> BOARD.index[(2, -2, 0)] & 1 and st2.supply[0] == 13


# ------------------------------------------------------------------------------------------- PT-6

def test_pt6_turn_order_and_out_of_turn_refused():
    st = new_state(3, {})
    with pytest.raises(RuleError, match="red's turn"):
        apply(st, 1, {"kind": "place", "space": [0, 0, 0]})
    st = apply(st, 0, {"kind": "place", "space": [0, 0, 0]})
    assert waiting_for(st) == [1]
    st = apply(st, 1, {"kind": "place", "space": [-1, 1, 0]})
    st = apply(st, 2, {"kind": "place", "space": [1, 1, -2]})
    assert st.phase == "cut" and waiting_for(st) == [0, 1, 2]


def test_pt6_no_supply_skips_with_a_note():
    st = replace(new_state(3, {}), supply=(0, 14, 14))
    st = replace(st, **{"turn": 0, "notes": ()})
    from companion.games.pizza_theory.rules.engine import _advance
    st = _advance(st)
    assert waiting_for(st) == [1]
    assert "red" in st.notes[0] and "supply" in st.notes[0]


def test_pt6_no_legal_space_skips_with_a_note():
    # every empty space touches a red topping: red is passed over, white adds
    pic = """
   R . R .
  . . . . R
 R . R . . .
. . . . R . R
 . R . . . .
  . . . R .
   R . . ."""
    st = at(pic, phase="add")
    masks = list(st.masks)
    # fill the remaining red-legal spaces with white toppings
    masks[1] |= BOARD.full_mask & ~(masks[0] | masks[1] | masks[2]) & ~sum(
        BOARD.neighbour_mask[i] for i in range(37) if masks[0] >> i & 1) & BOARD.full_mask
    masks[1] &= ~masks[0]
    st = replace(st, masks=tuple(masks), supply=(5, 5, 14))
    from companion.games.pizza_theory.rules.engine import _advance
    assert legal_spaces(st, 0) == []
    st = _advance(st)
    assert waiting_for(st) == [1] and "no legal space" in st.notes[0]
    assert view(st, None)["skipped"] == list(st.notes)


# ------------------------------------------------------------------------------------------- PT-7

def test_pt7_cuts_wait_for_everyone_and_may_be_changed():
    st = at("""
   . . . .
  . . . . .
 . . . . . .
. . . . . . .
 . . . . . .
  . . . . .
   . . . .""")
    with pytest.raises(RuleError, match="once the toppings are added"):
        apply(replace(st, phase="add"), 0, {"kind": "cut", "line": 1})
    st = apply(st, 0, {"kind": "cut", "line": 1})
    st = apply(st, 0, {"kind": "cut", "line": 4})  # changed her mind
    st = apply(st, 1, {"kind": "cut", "line": 2})
    assert st.phase == "cut" and waiting_for(st) == [2] and st.last is None
    st = apply(st, 2, {"kind": "cut", "line": 6})
    assert st.last is not None and st.round == 2
    assert [c[4] for c in st.last.cutters] == [4, 2, 6]
    assert st.last.ks == (-1, -3, 1)  # red x line 4, green y line 6, white z line 2


# ------------------------------------------------------------------------------------------- PT-8

def test_pt8_view_never_shows_another_seats_pending_cut():
    st = at(". . . .\n" + ". . . . .\n. . . . . .\n. . . . . . .\n. . . . . .\n. . . . .\n. . . .")
    st1 = apply(st, 0, {"kind": "cut", "line": 5})
    for viewer in (1, 2, None):
        v = view(st1, viewer)
        assert v["my_cut"] is None
        assert [s["has_chosen"] for s in v["seats"]] == [True, False, False]
        # whatever red chose, everyone else sees exactly the same thing
        for other in range(1, 7):
            assert view(apply(st, 0, {"kind": "cut", "line": other}), viewer) == v
    assert view(st1, 0)["my_cut"] == 5


def test_pt8_secret_hides_pending_cut_entries_until_reveal():
    st = at(". . . .\n" + ". . . . .\n. . . . . .\n. . . . . . .\n. . . . . .\n. . . . .\n. . . .")
    e0 = {"kind": "cut", "line": 5}
    st1 = apply(st, 0, e0)
    assert secret(0, e0, st, st1, 1) and secret(0, e0, st, st1, None)
    assert not secret(0, e0, st, st1, 0)
    st2 = apply(st1, 1, {"kind": "cut", "line": 1})
    assert secret(0, e0, st, st2, 2)
    st3 = apply(st2, 2, {"kind": "cut", "line": 1})
    assert not secret(0, e0, st, st3, 1) and not secret(0, e0, st, st3, None)
    place = {"kind": "place", "space": [0, 0, 0]}
    assert not secret(0, place, st, st1, 1)


# ------------------------------------------------------------------------------------------- PT-9

def test_pt9_single_highest_replaces_the_others():
    st = at("""
   R . . .
  R W . . .
 . . . . G G
. . . . . . .
 . . . . . .
  . . W . .
   . W . G""")
    st = cut_all(st, [3, 3, 3])  # slices as in test_pt2_all_line_3_gives_seven_slices
    assert same(st.masks, """
   R . . .
  R R . . .
 . . . . G G
. . . . . . .
 . . . . . .
  . . W . .
   . W . W""")
    ch = view(st, None)["last_resolution"]["changes"]
    assert [(c["space"], c["from"], c["to"], c["why"]) for c in ch] == [
        ([0, 2, -2], "white", "red", "replaced"), ([0, -3, 3], "green", "white", "replaced")]
    assert st.supply == (13, 13, 14)


def test_pt9_counts_are_taken_before_any_change():
    # each slice judged on the original position: red's gains in slice 1 do not count elsewhere
    before = parse("""
   R . . .
  R W . . .
 . . . . G G
. . . . . . .
 . . . . . .
  . . W . .
   . W . G""")
    out = resolve_masks(BOARD.cut_slices[BOARD.cut_id((0, 0, 0))], *before)
    assert out.counts[0] == (2, 1, 0) and out.counts[5] == (0, 2, 1)


# ------------------------------------------------------------------------------------------- PT-10

def test_pt10_two_way_tie_removes_the_third_colour():
    st = cut_all(at("""
   . . . .
  R W . . .
 R W . . . .
G . . . . . .
 . . . . . .
  . . . . .
   G G . ."""), [3, 3, 3])
    assert same(st.masks, """
   . . . .
  R W . . .
 R W . . . .
. . . . . . .
 . . . . . .
  . . . . .
   G G . .""")
    (c,) = st.last.outcome.changes
    assert (sp(c[0]), c[1], c[2], c[3]) == ([-3, 3, 0], 2, -1, REMOVED)
    assert st.supply[2] == 14


def test_pt10_three_way_tie_changes_nothing():
    pic = """
   . . . .
  R W . . .
 R W G . . .
G . . . . . .
 . . . . . .
  . . . . .
   . . . ."""
    st = cut_all(at(pic), [3, 3, 3])
    assert same(st.masks, pic) and st.last.outcome.changes == ()
    assert view(st, None)["last_resolution"]["slices"][0]["verdict"] == "three-way tie"


# ------------------------------------------------------------------------------------------- PT-11

def test_pt11_safe_colour_keeps_its_toppings_but_still_counts():
    st = cut_all(at("""
   . . . .
  W W . . .
 R . . . . .
. . . . . . .
 . . . . . .
  . R W . .
   G G . ."""), [3, 3, 3])
    # red has one topping per slice: safe. Slice 1 (W W R): red stays. Slice 6 (R W G G): green
    # has the most, white loses its topping, red keeps its one.
    assert same(st.masks, """
   . . . .
  W W . . .
 R . . . . .
. . . . . . .
 . . . . . .
  . R G . .
   G G . .""")
    assert view(st, None)["last_resolution"]["safe"] == ["red"]


# ------------------------------------------------------------------------------------------- PT-12

def test_pt12_shortfall_leaves_spaces_empty_and_tiebreak_pt16_by_would_be():
    st = at("""
   R G . W
  R R W R W
 G R W R W W
. G W R W R G
 R W R W R W
  W R W R W
   R R W W""")
    st = cut_all(st, [1, 1, 1])  # slices as in test_pt2_all_line_1_cuts_off_three_edges
    out = st.last.outcome
    # slice 2: red 11, white 11, green 2 -> green removed; slice 1: red takes green;
    # slice 3: white takes green but white already has all 16 on the pizza -> space stays empty.
    assert out.would_be == (16, 17, 0)
    assert same(st.masks, """
   R . . W
  R R W R W
 R R W R W W
. . W R W R .
 R W R W R W
  W R W R W
   R R W W""")
    short = [c for c in out.changes if c[3] == NO_SUPPLY]
    assert [(sp(c[0]), c[1]) for c in short] == [([3, -3, 0], 2)]
    assert st.supply == (0, 0, 16)
    assert st.phase == "over" and winners(st) == [1]  # PT-16: 17 beats 16
    text = view(st, None)["last_resolution"]["changes"]
    assert any("leave the space empty" in c["text"] for c in text)


def test_pt12_replacements_fill_in_board_order():
    st = cut_all(at("""
   . R R .
  . R R R .
 . R R W W .
. R R R W . .
 . R R R G G
  . . . . .
   R R . ."""), [1, 1, 1])
    assert st.last.outcome.would_be[0] == 20
    assert same(st.masks, """
   . R R .
  . R R R .
 . R R R . .
. R R R . . .
 . R R R . .
  . . . . .
   R R . .""")
    whys = [(sp(c[0]), c[3]) for c in st.last.outcome.changes]
    assert whys == [([1, 0, -1], REPLACED), ([2, -1, -1], NO_SUPPLY), ([1, -1, 0], NO_SUPPLY),
                    ([1, -2, 1], NO_SUPPLY), ([2, -3, 1], NO_SUPPLY)]
    assert st.supply == (0, 16, 16) and winners(st) == [0]


def test_pt12_last_resolution_kept_for_display():
    st = cut_all(at(". . . .\n. . . . .\n. . . . . .\nR W . . . . .\n. . . . . .\n. . . . .\n. . . ."),
                 [2, 4, 6])
    lr = view(st, 0)["last_resolution"]
    assert lr["round"] == 1 and len(lr["cuts"]) == 3
    assert sum(len(s["spaces"]) for s in lr["slices"]) == 37
    assert lr["would_be"] == {"red": 1, "white": 1, "green": 0}
    assert [c["line"] for c in lr["cuts"]] == [2, 4, 6]


# ------------------------------------------------------------------------------------------- PT-13

def test_pt13_board_turns_clockwise_each_round():
    st = new_state(3, {})
    assert st.order == (0, 1, 2)
    for seat, space in ((0, [0, 0, 0]), (1, [-1, 1, 0]), (2, [1, 1, -2])):
        st = apply(st, seat, {"kind": "place", "space": space})
    st = cut_all(st, [6, 6, 6])
    assert st.round == 2 and st.order == (1, 2, 0)
    seats = view(st, 1)["seats"]
    assert [s["label"] for s in seats] == ["3rd", "1st", "2nd"]
    # white now faces the 1st corner and cuts along x; red faces the 3rd and cuts along y
    assert [(s["board_label"], s["axis"]) for s in seats] == [("3rd", "y"), ("1st", "x"), ("2nd", "z")]
    assert waiting_for(st) == [1]


def test_pt13_cut_lines_follow_the_seats_new_corner():
    st = replace(at(". . . .\n. . . . .\n. . . . . .\n. . . . . . .\n. . . . . .\n. . . . .\n. . . ."),
                 round=2, order=(1, 2, 0))
    st = cut_all(st, [1, 2, 3])  # red (3rd corner, y) 1, white (1st, x) 2, green (2nd, z) 3
    assert st.last.ks == (1, 2, 0)


# ------------------------------------------------------------------------------------------- PT-14

def test_pt14_two_player_setup_has_neutral_green():
    st = new_state(2, {})
    assert same(st.masks, """
   . R . .
  R . . . .
 . . . . . W
. . . . . . .
 . . . . . W
  G . . . .
   . G . .""")
    v = view(st, None)
    assert v["neutral"]["colour"] == "green" and v["neutral"]["axis"] == "y"
    assert len(v["seats"]) == 2 and totals(st) == [2, 2]


def test_pt14_first_player_alternates_and_board_stays():
    st = new_state(2, {"first_seat": 1})
    assert st.order == (1, 0)
    st = apply(st, 1, {"kind": "place", "space": [0, 0, 0]})
    st = apply(st, 0, {"kind": "place", "space": [-1, 1, 0]})
    st = apply(st, 1, {"kind": "neutral", "line": 3, "space": [1, 0, -1]})
    st = cut_all(st, [6, 6])
    assert st.round == 2 and st.order == (0, 1)
    assert [s["axis"] for s in view(st, 0)["seats"]] == ["x", "z"]


# ------------------------------------------------------------------------------------------- PT-15

def test_pt15_neutral_roll_before_cuts_by_first_player():
    st = new_state(2, {})
    st = apply(st, 0, {"kind": "place", "space": [0, 0, 0]})
    st = apply(st, 1, {"kind": "place", "space": [-1, 1, 0]})
    assert st.phase == "neutral" and waiting_for(st) == [0]
    with pytest.raises(RuleError, match="once the toppings are added"):
        apply(st, 0, {"kind": "cut", "line": 1})
    with pytest.raises(RuleError, match="before cutting"):
        apply(replace(st, phase="add"), 0, {"kind": "neutral", "line": 1, "space": None})
    with pytest.raises(RuleError, match="first player"):
        apply(st, 1, {"kind": "neutral", "line": 1, "space": [0, 3, -3]})
    # line 1 from the 3rd corner is y = 2.5: the two rows y = 3 and y = 2
    assert set(neutral_spaces(st, 1)) == {s for s in BOARD.spaces if s[1] >= 2} - {(1, 2, -3), (-1, 3, -2)}  # minus red's X
    with pytest.raises(RuleError, match="does not touch"):
        apply(st, 0, {"kind": "neutral", "line": 1, "space": [0, -3, 3]})
    with pytest.raises(RuleError, match="Place a neutral topping"):
        apply(st, 0, {"kind": "neutral", "line": 1})
    st = apply(st, 0, {"kind": "neutral", "line": 1, "space": [0, 2, -2]})  # next to red: fine
    assert st.phase == "cut" and st.supply[2] == 13
    assert view(st, 1)["neutral"]["line"] == 1


def test_pt15_no_neutral_topping_when_supply_empty():
    st = replace(at(". . . .\n. . . . .\n. . . . . .\n. . . . . . .\n. . . . . .\n. . . . .\n. . . .",
                    players=2, phase="neutral"), supply=(16, 16, 0))
    with pytest.raises(RuleError, match="neutral supply is empty"):
        apply(st, 0, {"kind": "neutral", "line": 2, "space": [0, 0, 0]})
    st = apply(st, 0, {"kind": "neutral", "line": 2, "space": None})
    assert st.phase == "cut" and "empty" in st.notes[-1]


def test_pt15_neutral_cut_and_majority_count():
    # green (neutral) wins slice 2 like a player
    st = at("""
   . . . .
  . . . . .
 . . G G G .
. . . . R . .
 . . . . R .
  . . . . .
   . . . .""", players=2, phase="neutral")
    st = apply(st, 0, {"kind": "neutral", "line": 1, "space": [-1, 3, -2]})
    st = cut_all(st, [1, 1])
    assert st.last.ks == (2, 2, 2)
    assert same(st.masks, """
   . . . .
  G . . . .
 . . G G G .
. . . . G . .
 . . . . G .
  . . . . .
   . . . .""")
    assert st.last.cutters[2][:2] == (-1, 2)


# ------------------------------------------------------------------------------------------- PT-16

def test_pt16_equal_would_be_counts_share_the_win():
    st = cut_all(at("""
   R G . W
  R R W R W
 G R W R W W
. G W R W R .
 R W R W R W
  W R W R W
   R R W W"""), [1, 1, 1])
    assert st.last.outcome.would_be[:2] == (16, 16)
    assert winners(st) == [0, 1] and st.phase == "over" and not st.both_lose
    with pytest.raises(RuleError, match="over"):
        apply(st, 0, {"kind": "place", "space": [0, 0, 0]})


# ------------------------------------------------------------------------------------------- PT-17

PT17 = """
   R G R W
  R G R G W
 R G R G R .
{} G R G R G .
 G R G R G R
  R R R G W
   G G G G"""


def _pt17(first_cell):
    st = at(PT17.format(first_cell), players=2, phase="neutral")
    st = apply(st, 0, {"kind": "neutral", "line": 1, "space": None})  # green has all 16 out already
    return cut_all(st, [1, 1])


def test_pt17_neutral_reaching_16_alone_means_both_lose():
    st = _pt17(".")
    assert st.last.outcome.would_be == (15, 2, 16)  # white keeps its two in slice 3
    assert st.both_lose and winners(st) == [] and st.phase == "over"
    assert view(st, 0)["both_lose"] is True


def test_pt17_player_reaching_16_with_neutral_wins():
    st = _pt17("R")
    assert st.last.outcome.would_be[0] == 16 and st.last.outcome.would_be[2] >= 16
    assert winners(st) == [0] and not st.both_lose


# ------------------------------------------------------------------------------------------- PT-18

def test_pt18_outcomes_cover_216_cuts_and_match_the_round():
    st = at("""
   R . . .
  R W . . .
 . . . . G G
. . . . . . .
 . . . . . .
  . . W . .
   . W . G""")
    before = st.masks
    st = cut_all(st, [3, 3, 3])
    table = outcomes(st)
    assert len(table) == 216
    assert table[(0, 0, 0)] == st.last.outcome
    assert table[(2, 2, 2)] == resolve_masks(BOARD.cut_slices[BOARD.cut_id((2, 2, 2))], *before)
    now = outcomes(st, "current")
    assert now[(0, 0, 0)].masks == st.masks  # resolving twice with the same cut changes nothing new


# ------------------------------------------------------------------------------------------- PT-19

@pytest.mark.parametrize("entry, message", [
    ("place", "object"),
    ({"kind": "jump"}, "Unknown entry kind"),
    ({"kind": "place"}, "three whole numbers"),
    ({"kind": "place", "space": [0, 0]}, "three whole numbers"),
    ({"kind": "place", "space": [0, 0, True]}, "three whole numbers"),
    ({"kind": "place", "space": [4, -4, 0]}, "not a space on the pizza"),
    ({"kind": "place", "space": [1, 1, 1]}, "not a space on the pizza"),
    ({"kind": "place", "space": [0, 0, 0], "colour": "red"}, "Unexpected field"),
    ({"kind": "cut", "line": 1}, "once the toppings are added"),
    ({"kind": "neutral", "line": 1, "space": [0, 0, 0]}, "two-player"),
])
def test_pt19_malformed_entries_refused_without_change(entry, message):
    st = new_state(3, {})
    snapshot = copy.deepcopy(entry)
    with pytest.raises(RuleError, match=message):
        apply(st, 0, entry)
    assert entry == snapshot and st == new_state(3, {})


@pytest.mark.parametrize("line, message", [(0, "no line 0"), (7, "no line 7"), ("3", "whole number"),
                                           (2.0, "whole number"), (None, "whole number")])
def test_pt19_line_out_of_range_or_wrong_type(line, message):
    st = at(". . . .\n. . . . .\n. . . . . .\n. . . . . . .\n. . . . . .\n. . . . .\n. . . .")
    with pytest.raises(RuleError, match=message):
        apply(st, 0, {"kind": "cut", "line": line})


def test_pt19_seat_not_in_game():
    with pytest.raises(RuleError, match="not seated"):
        apply(new_state(2, {}), 2, {"kind": "place", "space": [0, 0, 0]})


def test_pt19_view_is_json_and_contract_totals():
    st = new_state(3, {})
    v = view(st, 0)
    json.dumps(v)
    assert len(v["spaces"]) == 37 and v["legal_spaces"] and v["to_place"] == 0
    assert view(st, 1)["legal_spaces"] == []
    assert totals(st) == [2, 2, 2] and winners(st) == []
