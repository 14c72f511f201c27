"""Dice and Slice: worked examples for the geometry (DS-1, DS-5..DS-10) and placements.

Sheets are drawn as ASCII: one text row per dot row (y = 0 at the top), `o` a marked dot,
`.` an empty dot; rows may be shorter than 13 and fewer than 10 (the rest is empty).
"""
import pytest

from companion.games.dice_and_slice.rules import analyse, legal_placements
from companion.games.dice_and_slice.rules import geometry as g


def sheet(text: str) -> int:
    mask = 0
    rows = [r.strip() for r in text.strip("\n").splitlines()]
    for y, row in enumerate(rows):
        for x, ch in enumerate(row):
            assert ch in "o.", f"bad character {ch!r} in sheet drawing"
            if ch == "o":
                mask |= g.dot_bit(x, y)
    return mask


def region_of(a, cx, cy):
    sq = cy * g.SQ_W + cx
    return next(r for r in a.regions if sq in r.squares)


# --- DS-1 geometry -------------------------------------------------------------------------

def test_ds1_lattice_is_13_by_10_dots_and_12_by_9_squares():
    assert g.DOT_W * g.DOT_H == 130
    assert g.SQUARES == 108
    assert len(g.dots_of(g.BORDER)) == 42
    assert g.on_lattice(12, 9) and not g.on_lattice(13, 0) and not g.on_lattice(0, 10)


def test_ds1_empty_sheet_is_one_open_region():
    a = analyse(0)
    assert len(a.regions) == 1
    r = a.regions[0]
    assert r.size == 108 and not r.enclosed and not r.scorable


def test_ds1_square_corners_follow_y_down():
    # the 1 x 1 slice drawn at dots (3,2)-(4,3) is square (3,2)
    a = analyse(sheet("""
        .............
        .............
        ...oo........
        ...oo........
    """))
    r = region_of(a, 3, 2)
    assert r.squares == {2 * 12 + 3} and r.scorable


# --- DS-8 lines ----------------------------------------------------------------------------

def test_ds8_lines_join_orthogonal_neighbours_only():
    m = sheet("""
        oo.
        .o.
        ..o
    """)
    lines = set(g.lines_of(m))
    assert lines == {((0, 0), (1, 0)), ((1, 0), (1, 1))}  # (1,1)-(2,2) is diagonal: no line


def test_ds8_no_line_wraps_around_the_sheet_edge():
    m = g.mask_of([(12, 0), (0, 1)])  # consecutive bits, not neighbours
    assert g.lines_of(m) == []


def test_ds8_outer_border_is_not_a_line_until_its_dots_are_marked():
    # DS-8/DS-9: the corner square is open to the sheet's edge, so it is not enclosed
    a = analyse(sheet("""
        .o...........
        oo...........
    """))
    r = region_of(a, 0, 0)
    assert not r.enclosed
    a = analyse(sheet("""
        oo...........
        oo...........
    """))
    assert region_of(a, 0, 0).scorable


# --- DS-9 regions / DS-10 scorable slices ----------------------------------------------------

def test_ds9_regions_split_by_lines_and_enclosure():
    a = analyse(sheet("""
        ooooo........
        ooooo........
    """))
    # the 4 x 1 strip would be enclosed, but the border dots force cross-lines: four 1 x 1
    top = [region_of(a, cx, 0) for cx in range(4)]
    assert all(r.size == 1 and r.scorable for r in top)


def test_ds10_two_by_two_slice_scores():
    a = analyse(sheet("""
        ooo
        o.o
        ooo
    """))
    r = region_of(a, 0, 0)
    assert r.size == 4 and r.enclosed and r.rectangle and r.scorable


def test_ds10_marked_interior_dot_spoils_a_slice():
    # a 3 x 5 outline with one interior dot joined to the border by a dangling line:
    # the region is still the whole 15-square rectangle, but a dot sits inside it
    a = analyse(sheet("""
        oooooo
        o....o
        oo...o
        o....o
        oooooo
    """))
    # the 5 x 4 outline is 20 squares; check the interior dot itself
    r = region_of(a, 2, 2)
    assert r.enclosed and r.rectangle and r.size == 20 and not r.scorable
    a = analyse(sheet("""
        oooo
        o..o
        oo.o
        o..o
        o..o
        oooo
    """))
    r = region_of(a, 1, 1)
    assert r.size == 15 and r.enclosed and r.rectangle and not r.scorable
    a = analyse(sheet("""
        oooo
        o..o
        o..o
        o..o
        o..o
        oooo
    """))
    assert region_of(a, 1, 1).scorable and region_of(a, 1, 1).size == 15


def test_ds10_enclosed_l_shape_is_not_scorable():
    a = analyse(sheet("""
        ooo..
        o.o..
        o.ooo
        o...o
        ooooo
    """))
    r = region_of(a, 0, 0)
    assert r.enclosed and not r.rectangle and not r.scorable and r.size == 12


def test_ds10_enclosed_rectangle_bigger_than_15_is_not_scorable():
    a = analyse(sheet("""
        ooooooooo
        o.......o
        o.......o
        ooooooooo
    """))
    r = region_of(a, 1, 1)
    assert r.size == 24 and r.enclosed and r.rectangle and not r.scorable


def test_ds10_one_by_k_strips_never_score_they_fall_apart():
    for k in range(2, 13):
        m = g.mask_of([(x, y) for x in range(k + 1) for y in (0, 1)])
        a = analyse(m)
        assert all(r.size == 1 for r in a.regions if r.scorable)
        assert region_of(a, 0, 0).size == 1


def derive_scorable_sizes():
    """Every rectangle that fits, with just its outline marked: which sizes does it score?"""
    sizes = set()
    for w in range(1, 13):
        for h in range(1, 10):
            if w * h > 15:
                continue
            m = g.mask_of(
                [(x, y) for x in range(w + 1) for y in range(h + 1) if x in (0, w) or y in (0, h)]
            )
            for sl in analyse(m).scorable:
                sizes.add(len(sl))
    return sizes


def test_ds10_derived_set_of_scorable_sizes():
    # 1 x 1 and every w x h with w, h >= 2 and w * h <= 15 (1 x k strips cannot score)
    assert derive_scorable_sizes() == {1, 4, 6, 8, 9, 10, 12, 14, 15}


# --- DS-5 / DS-6 placements --------------------------------------------------------------------

DIAGONAL = frozenset({(0, 0), (2, 2)})
L4 = frozenset({(0, 0), (1, 0), (2, 0), (0, 1)})


def test_ds5_rotations_no_mirror():
    assert g.matches_face(L4, frozenset({(5, 5), (6, 5), (7, 5), (5, 6)}))
    assert g.matches_face(L4, frozenset({(5, 5), (6, 5), (6, 6), (6, 7)}))  # 90 degrees
    assert not g.matches_face(L4, frozenset({(5, 5), (6, 5), (7, 5), (7, 6)}))  # mirror image
    assert not g.matches_face(L4, frozenset({(5, 5), (6, 5), (7, 5)}))


def test_ds5_legal_placements_on_empty_sheet():
    # the diagonal has two distinct rotations, each fits 11 x 8 positions
    ps = legal_placements(0, DIAGONAL)
    assert len(ps) == 2 * 11 * 8
    assert {p["rotation"] for p in ps} == {0, 90}
    assert len(legal_placements(0, {(1, 1)})) == 130
    for p in ps:
        assert all(g.on_lattice(x, y) for x, y in p["dots"])
        assert g.matches_face(DIAGONAL, frozenset(map(tuple, p["dots"])))


def test_ds6_placements_needing_a_new_dot_and_dedup_by_added_dots():
    full_but_one = g.ALL_DOTS & ~g.dot_bit(6, 4)
    ps = legal_placements(full_but_one, {(0, 0), (1, 0)})
    assert len(ps) == 1 and ps[0]["new"] == [[6, 4]]
    assert legal_placements(g.ALL_DOTS, {(0, 0)}) == []
    # accepts a list of dots too
    assert len(legal_placements([(0, 0)], {(0, 0)})) == 129


def test_ds6_overlapping_placement_only_adds_new_dots():
    m = sheet("""
        oo
    """)
    ps = legal_placements(m, {(0, 0), (1, 0), (2, 0)})
    p = next(p for p in ps if p["dots"] == [[0, 0], [1, 0], [2, 0]])
    assert p["new"] == [[2, 0]]


def test_ds14_game_can_end_only_with_full_border_and_small_regions():
    assert not g.game_can_end(g.BORDER)  # 108-square region
    grid = g.BORDER | g.mask_of([(x, y) for x in (4, 8) for y in range(10)])
    grid |= g.mask_of([(x, 3) for x in range(13)]) | g.mask_of([(x, 6) for x in range(13)])
    assert g.game_can_end(grid)  # nine 4 x 3 regions of 12 squares
    assert not g.game_can_end(grid & ~g.dot_bit(0, 1))
