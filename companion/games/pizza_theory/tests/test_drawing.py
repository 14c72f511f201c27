"""The pizza as each phone draws it (companion/games/pizza_theory/drawing.py): the player's own corner at
the bottom, so the screen matches the real board in front of them. Rule ids PT-n: rules.md."""
from __future__ import annotations

import math

import pytest

from companion.games.pizza_theory.drawing import (R, S, draw_board, hex_at, line_number, space_from_value,
                                                  space_value)
from companion.games.pizza_theory.rules import BOARD

EMPTY = [None] * len(BOARD.spaces)
ALL = [list(s) for s in BOARD.spaces]
SEATS = [("Christopher", "red"), ("Maximiliane", "white"), ("neutral", "green")]
CORNERS = range(len(BOARD.corners))


@pytest.mark.parametrize("corner", CORNERS)
def test_pt4_each_corner_reads_its_own_lines_1_to_6_left_to_right_at_the_bottom(corner):
    b = draw_board(EMPTY, corner, corner_seats=SEATS, my_family=BOARD.corners[corner].family)
    mine = sorted((ln for ln in b["lines"] if ln["mine"]), key=lambda ln: ln["n"])
    assert [ln["n"] for ln in mine] == [1, 2, 3, 4, 5, 6]
    xs = [ln["lx"] for ln in mine]
    assert xs == sorted(xs) and len(set(xs)) == 6  # left to right
    assert all(ln["ly"] > 0 for ln in mine)  # at the bottom (SVG y grows downwards)
    # the other two directions are numbered too, each 1..6 as the player at its own corner calls them
    for family in range(3):
        assert sorted(ln["n"] for ln in b["lines"] if ln["family"] == family) == [1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize("corner", CORNERS)
def test_every_space_is_drawn_once_as_a_hexagon_beside_its_neighbours(corner):
    b = draw_board(EMPTY, corner)
    assert sorted(h["value"] for h in b["hexes"]) == sorted(space_value(s) for s in BOARD.spaces)
    centres = {(round(h["x"]), round(h["y"])) for h in b["hexes"]}
    assert len(centres) == len(BOARD.spaces)
    for i, h in enumerate(b["hexes"]):
        for j in range(len(BOARD.spaces)):
            if BOARD.neighbour_mask[i] >> j & 1:
                other = b["hexes"][j]
                # centres are drawn in whole units: each within half a unit of the exact place
                assert math.hypot(h["x"] - other["x"], h["y"] - other["y"]) == pytest.approx(S, abs=1.0)
        assert len(h["points"].split()) == 6


@pytest.mark.parametrize("corner", CORNERS)
def test_the_bottom_corner_is_the_viewers_and_every_corner_shows_who_sits_there(corner):
    b = draw_board(EMPTY, corner, corner_seats=SEATS)
    bottom = [c for c in b["corners"] if c["bottom"]]
    assert len(bottom) == 1 and bottom[0] is b["corners"][corner]
    assert bottom[0]["y"] == max(c["y"] for c in b["corners"]) and abs(bottom[0]["x"]) < 1
    assert [c["label"] for c in b["corners"]] == ["1st", "2nd", "3rd"]
    assert [(c["name"], c["colour"], c["letter"]) for c in b["corners"]] == [
        ("Christopher", "red", "R"), ("Maximiliane", "white", "W"), ("neutral", "green", "G")]
    empty = draw_board(EMPTY, corner)  # nobody at a corner: no colour, no letter
    assert all(c["colour"] is None and c["letter"] == "" for c in empty["corners"])


@pytest.mark.parametrize("corner", CORNERS)
def test_buttons_come_in_reading_order_top_row_first_then_left_to_right(corner):
    b = draw_board(EMPTY, corner, buttons=ALL)
    order = [(h["y"], h["x"]) for h in b["buttons"]]
    assert len(order) == 37 and order == sorted(order)
    some = ALL[::5]
    assert sorted(h["value"] for h in draw_board(EMPTY, corner, buttons=some)["buttons"]) == sorted(
        space_value(s) for s in some)


def test_the_three_corners_walk_the_spaces_in_three_different_orders():
    orders = {tuple(h["value"] for h in draw_board(EMPTY, c, buttons=ALL)["buttons"]) for c in CORNERS}
    assert len(orders) == 3


def test_spaces_are_44_px_tap_targets_on_a_360_px_phone():
    # the board spans the page width less main's 8 px padding each side: 344 px on a 360 px phone; each
    # space's button is S wide in a drawing w wide, for every corner at the bottom and every phase's drawing
    for corner in CORNERS:
        for family in (None, 0, 1, 2):
            b = draw_board(EMPTY, corner, corner_seats=SEATS, my_family=family, buttons=ALL)
            assert 344 * S / b["w"] >= 44.5, (corner, family, b["w"])
            assert all(h["w"] * 344 / 100 >= 44.5 for h in b["buttons"])


@pytest.mark.parametrize("corner", CORNERS)
def test_the_box_holds_every_hex_number_and_corner_marker(corner):
    b = draw_board(EMPTY, corner, corner_seats=SEATS)
    minx, miny, w, h = (float(v) for v in b["viewbox"].split())
    assert all(minx <= hx["x"] - R and hx["x"] + R <= minx + w for hx in b["hexes"])
    assert all(miny <= hx["y"] - R and hx["y"] + R <= miny + h for hx in b["hexes"])
    assert all(minx <= ln["lx"] <= minx + w and miny <= ln["ly"] <= miny + h for ln in b["lines"])
    assert all(minx <= c["x"] - 24 and c["x"] + 24 <= minx + w for c in b["corners"])
    # the buttons sit over their hexes, as percentages of the box
    for btn in draw_board(EMPTY, corner, buttons=ALL)["buttons"]:
        assert minx + (btn["left"] + btn["w"] / 2) * w / 100 == pytest.approx(btn["x"], abs=0.5)
        assert miny + (btn["top"] + btn["h"] / 2) * h / 100 == pytest.approx(btn["y"], abs=0.5)


def test_toppings_x_spaces_and_legal_spaces_are_marked_and_labelled():
    occ = list(EMPTY)
    occ[0], occ[1] = "red", "green"
    xs = [list(BOARD.spaces[i]) for i in BOARD.corners[0].x_spaces]
    b = draw_board(occ, 0, x_spaces=xs, legal=[ALL[5]])
    assert (b["hexes"][0]["occ"], b["hexes"][0]["letter"], b["hexes"][1]["letter"]) == ("red", "R", "G")
    assert b["hexes"][0]["label"].startswith("Red topping")
    assert {h["value"] for h in b["hexes"] if h["x_space"]} == {space_value(s) for s in xs}
    assert "X start space" in hex_at(b, xs[0])["label"]
    assert [h["i"] for h in b["hexes"] if h["legal"]] == [5] and "you may add here" in b["hexes"][5]["label"]


def test_the_nearest_space_is_described_from_the_viewer_or_from_the_table():
    # from the 1st corner, the bottom space of the leftmost column is the corner space itself
    corner = BOARD.corners[0].corner
    mine = hex_at(draw_board(EMPTY, 0), corner)
    assert mine["where"].endswith("1st from you")
    table = hex_at(draw_board(EMPTY, 0, you=False), corner)
    assert table["where"].endswith("1st from the bottom") and "from the left" in table["where"]


def test_pt7_cuts_are_numbered_as_their_cutter_called_them_from_any_corner():
    # red cut its line 1 from the 1st corner, white its line 4 from the 2nd, green its line 6 from the 3rd
    cuts = [(c.family, c.numbering[n - 1], colour)
            for c, n, colour in zip(BOARD.corners, (1, 4, 6), ("red", "white", "green"))]
    for corner in CORNERS:
        b = draw_board(EMPTY, corner, cuts=cuts)
        assert [(c["colour"], c["n"]) for c in b["cuts"]] == [("red", 1), ("white", 4), ("green", 6)]
    assert line_number(2, BOARD.corners[2].numbering[2]) == 3


def test_pt2_slices_and_numbered_changes_are_drawn_on_their_spaces():
    slices = [[list(BOARD.spaces[i]) for i in range(37) if m >> i & 1] for m in BOARD.cut_slices[100]]
    changes = [ALL[7], ALL[3]]
    b = draw_board(EMPTY, 1, slices=slices, changes=changes)
    for n, members in enumerate(slices, 1):
        assert {hex_at(b, sp)["slice"] for sp in members} == {n}
    assert [s["n"] for s in b["slice_labels"]] == list(range(1, len(slices) + 1))
    assert (b["hexes"][7]["marker"], b["hexes"][3]["marker"]) == (1, 2)
    assert sum(1 for h in b["hexes"] if h["marker"]) == 2


def test_pt15_the_neutral_line_is_drawn_across_the_board():
    c = BOARD.corners[2]
    b = draw_board(EMPTY, 0, neutral_line=(c.family, c.numbering[2]))
    assert b["neutral"] and b["neutral"]["x1"] != b["neutral"]["x2"]
    assert draw_board(EMPTY, 0)["neutral"] is None


@pytest.mark.parametrize("value, space", [("0,0,0", [0, 0, 0]), ("3,-2,-1", [3, -2, -1]), ("9,9,9", None),
                                          ("1,2", None), ("a,b,c", None), ("", None), (None, None)])
def test_a_form_value_is_a_space_only_if_the_drawing_has_it(value, space):
    assert space_from_value(value) == space
