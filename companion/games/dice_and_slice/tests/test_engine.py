"""Dice and Slice: turn flow, bonus dots, topping bonuses, end of game, scoring, view, options.

Sheets are ASCII drawings (`o` marked dot, `.` empty dot, y = 0 on top); topping layouts are
12-character rows of squares using the test legend M mushroom, O olive, P pepper.
"""
import json
import pytest

from companion.platform.core.contract import Viewer
from companion.platform.core.registry import GAMES, RuleError
from companion.games.dice_and_slice.rules import geometry as g
from companion.games.dice_and_slice.rules import (
    apply,
    finished,
    new_state,
    normalize_options,
    totals,
    view,
    waiting_for,
    winners,
)
from companion.games.dice_and_slice.rules.edition import default_edition_data

LEGEND = {"M": "mushroom", "O": "olive", "P": "pepper"}


def sheet(text: str) -> int:
    mask = 0
    for y, row in enumerate(r.strip() for r in text.strip("\n").splitlines()):
        for x, ch in enumerate(row):
            assert ch in "o."
            if ch == "o":
                mask |= g.dot_bit(x, y)
    return mask


def edition(rows, bonuses):
    d = default_edition_data()
    rows = list(rows) + ["." * 12] * (9 - len(rows))
    d["sides"]["A"] = {"legend": LEGEND, "rows": rows}
    d["topping_bonuses"] = [{"toppings": t, "points": p} for t, p in bonuses]
    return d


def table(players, sheets=(), rows=("MO..........",), bonuses=((["mushroom", "olive"], 5),)):
    st = new_state(players, normalize_options({"edition": edition(rows, bonuses), "side": "A"}))
    seats = list(st.seats)
    for i, m in enumerate(sheets):
        seats[i] = seats[i]._replace(dots=m)
    return st._replace(seats=tuple(seats))


def play(st, *entries):
    for seat, e in entries:
        st = apply(st, seat, e)
    return st


def roll(a, b, die, active=0):
    return [(active, {"kind": "roll", "faces": {"A": a, "B": b}}), (active, {"kind": "choose", "die": die})]


def place(seat, *dots):
    return (seat, {"kind": "place", "dots": [list(d) for d in dots]})


def bonus(seat, dot, **kw):
    return (seat, {"kind": "bonus_dot", "dot": list(dot), **kw})


def skip(seat):
    return (seat, {"kind": "skip_bonus"})


# default edition faces used below: A1 = single centre dot, B1 = domino, A6 = plus sign
DOMINO = [(0, 0), (1, 0)]


# --- DS-2 editions and options ---------------------------------------------------------------

def test_ds2_registered_and_default_edition_is_labelled_as_ours():
    game = GAMES["dice_and_slice"]
    assert (game.min_players, game.max_players, game.title) == (1, 6, "Dice and Slice")
    st = game.new_state(3, game.normalize_options({}))
    v = game.view(st, Viewer.table())
    assert "project" in v["edition"]["label"].lower()
    assert normalize_options({}) == {"edition": default_edition_data(), "side": "A", "edition_from_default": True,
                                     "first": 0}


def test_ds2_a_table_keeps_the_default_edition_it_was_created_with(tmp_path, monkeypatch):
    """DS-2: the options carry the whole default edition, not the word "default", so editing
    companion/games/dice_and_slice/rules/default_edition.json later cannot change an existing table's replays or history."""
    from companion.games.dice_and_slice.rules import edition as edition_module

    with open(edition_module.DEFAULT_PATH, encoding="utf-8") as f:
        on_disk = json.load(f)
    opts = normalize_options({"edition": "default", "side": "B"})
    assert opts == {"edition": on_disk, "side": "B", "edition_from_default": True, "first": 0}
    assert normalize_options(json.loads(json.dumps(opts))) == opts  # stored options replay as they are
    # the project changes its default edition afterwards
    changed = json.loads(json.dumps(on_disk))
    changed["label"] = "Default edition, second printing"
    changed["slice_points"] = [p * 3 for p in changed["slice_points"]]
    changed["topping_bonuses"] = changed["topping_bonuses"][:1]
    (tmp_path / "default.json").write_text(json.dumps(changed))
    monkeypatch.setattr(edition_module, "DEFAULT_PATH", tmp_path / "default.json")
    edition_module.default_edition.cache_clear()
    try:
        assert normalize_options({})["edition"]["label"] == "Default edition, second printing"
        st = new_state(2, opts)  # what a replay of the old table does
        assert st.edition.label == on_disk["label"] and st.edition.points_for(15) == on_disk["slice_points"][14]
        assert len(st.bonuses) == len(on_disk["topping_bonuses"])
        assert view(st, None)["edition"]["label"] == on_disk["label"]
        # tables from before the edition was stored still say "default" and still load
        assert new_state(1, {"edition": "default", "side": "A"}).edition.label == "Default edition, second printing"
    finally:
        monkeypatch.undo()
        edition_module.default_edition.cache_clear()


@pytest.mark.parametrize(
    "opts, words",
    [
        ({"colour": "red"}, "Unknown option"),
        ({"side": "C"}, '"side"'),
        ({"edition_from_default": "yes"}, '"edition_from_default"'),
        ({"edition": "deluxe"}, '"edition"'),
        ({"edition": {"label": "x"}}, "the edition lacks its"),
    ],
)
def test_ds2_bad_options_refused(opts, words):
    with pytest.raises(RuleError) as e:
        normalize_options(opts)
    assert words in e.value.reason


def test_ds2_inline_edition_round_trips_through_options():
    opts = normalize_options({"edition": edition(["P" * 12], []), "side": "A"})
    json.dumps(opts)
    st = new_state(2, opts)
    assert len(st.edition.toppings("A")) == 12
    assert normalize_options(opts) == opts


def test_ds2_side_b_uses_its_own_layout():
    a = new_state(1, normalize_options({"side": "A"}))
    b = new_state(1, normalize_options({"side": "B"}))
    ta = [t["square"] for t in view(a, 0)["players"][0]["toppings"]]
    tb = [t["square"] for t in view(b, 0)["players"][0]["toppings"]]
    assert ta and tb and ta != tb


# --- DS-3 / DS-4 turn flow -------------------------------------------------------------------

def test_ds3_active_player_rolls_and_chooses_then_everyone_places():
    st = table(3)
    assert waiting_for(st) == [0]
    with pytest.raises(RuleError, match="active player"):
        apply(st, 1, {"kind": "roll", "faces": {"A": 1, "B": 1}})
    with pytest.raises(RuleError, match="roll first"):
        apply(st, 0, {"kind": "choose", "die": "A"})
    with pytest.raises(RuleError, match="chosen a die"):
        apply(st, 0, {"kind": "place", "dots": [[0, 0]]})
    st = play(st, *roll(1, 1, "A"))
    assert waiting_for(st) == [0, 1, 2]
    # DS-4: the active seat uses the chosen die, the others the other one
    v = view(st, 1)
    assert v["dice_for_seats"] == ["A", "B", "B"]
    with pytest.raises(RuleError, match="die A"):
        apply(st, 0, {"kind": "place", "dots": [[0, 0], [1, 0]]})
    st = play(st, place(0, (4, 4)), place(1, (0, 0), (1, 0)))
    assert waiting_for(st) == [2]
    with pytest.raises(RuleError, match="done for this turn"):
        apply(st, 0, {"kind": "place", "dots": [[5, 5]]})
    st = play(st, place(2, (3, 3), (3, 4)))
    # DS-13: next active seat in seat order, back to the roll
    assert (st.phase, st.active, st.turn) == ("roll", 1, 2)
    assert waiting_for(st) == [1]


@pytest.mark.parametrize(
    "entry, words",
    [
        ({"kind": "roll", "faces": {"A": 7, "B": 1}}, "1 to 6"),
        ({"kind": "roll", "faces": {"A": True, "B": 1}}, "1 to 6"),
        ({"kind": "roll", "faces": [1, 2]}, "both dice"),
        ({"kind": "roll", "faces": {"A": 1, "B": 1}, "extra": 1}, "unexpected"),
        ({"kind": "dance"}, "Unknown entry"),
        ({"faces": {}}, '"kind"'),
        ("roll", '"kind"'),
    ],
)
def test_ds16_malformed_entries_refused(entry, words):
    with pytest.raises(RuleError) as e:
        apply(table(2), 0, entry)
    assert words in e.value.reason


def test_ds16_seat_out_of_range_refused():
    with pytest.raises(RuleError, match="no seat"):
        apply(table(2), 2, {"kind": "roll", "faces": {"A": 1, "B": 1}})


# --- DS-5 / DS-6 placement checks ------------------------------------------------------------

@pytest.mark.parametrize(
    "dots, words",
    [
        ([(0, 0), (1, 0), (2, 0), (2, 1)], "turned only in quarter turns (no mirror image)"),  # mirrored B5
        ([(0, 0), (1, 0), (2, 0)], "pattern"),
        ([(11, 0), (12, 0), (13, 0), (11, 1)], "Off the sheet: 1 dot of the pattern"),
        ([(0, 0), (0, 0), (1, 0), (2, 0)], "twice"),
        ([(0, 0), (1, 0), (2, 0), (0, 1)], "at least one new dot"),
        ([[0.5, 0]], "whole numbers"),
    ],
)
def test_ds5_ds6_bad_placements_refused_with_reasons(dots, words):
    st = play(table(2, [0, sheet("ooo\no..")]), *roll(1, 5, "A"))
    with pytest.raises(RuleError) as e:
        apply(st, 1, {"kind": "place", "dots": [list(d) for d in dots]} if dots else {"kind": "place"})
    assert words in e.value.reason
    apply(st, 1, {"kind": "place", "dots": [[2, 0], [0, 1], [1, 1], [2, 1]]})  # half turn: fine


def test_ds6_overlap_marks_only_new_dots():
    st = play(table(2, [0, sheet("oo")]), *roll(3, 3, "B"))
    # seat 0 uses die B face 3 (2 x 2 block), seat 1 uses die A face 3 (straight three)
    st = play(st, place(1, (0, 0), (1, 0), (2, 0)))
    assert g.dots_of(st.seats[1].dots) == [(0, 0), (1, 0), (2, 0)]


# --- DS-7 no legal placement ----------------------------------------------------------------

def test_ds7_seat_without_legal_placement_is_passed_automatically():
    # only the corner dot is free; the plus sign (die A face 6) cannot cover a corner
    nearly_full = g.ALL_DOTS & ~g.dot_bit(0, 0)
    st = play(table(2, [0, nearly_full]), *roll(6, 1, "B"))
    assert view(st, 1)["seat_status"] == ["to_place", "passed"]
    assert waiting_for(st) == [0]
    with pytest.raises(RuleError, match="done for this turn"):
        apply(st, 1, {"kind": "pass"})
    st = play(st, place(0, (0, 0), (1, 0)))
    assert st.phase == "roll" and st.seats[1].dots == nearly_full


def test_ds7_pass_refused_while_a_placement_exists():
    st = play(table(2), *roll(1, 1, "A"))
    with pytest.raises(RuleError, match="cannot pass"):
        apply(st, 1, {"kind": "pass"})


# --- DS-11 bonus dots ------------------------------------------------------------------------

CORNER_MISSING = sheet("""
    ooo
    o.o
    oo.
""")


def test_ds11_slice_with_toppings_grants_bonus_dots_that_chain():
    # M and O sit in the 2 x 2 top-left slice; P sits in square (5,0)
    pepper_open = sheet("""
        .....oo
        .....o.
    """)
    st = table(1, [CORNER_MISSING | pepper_open], rows=["MO...P......"], bonuses=[])
    st = play(st, *roll(1, 1, "A"), place(0, (2, 2)))
    v = view(st, 0)
    assert v["players"][0]["pending_bonus_dots"] == 2 and v["seat_status"] == ["bonus"]
    # first bonus dot closes square (5,0): its pepper grants one more (a chain)
    st = play(st, bonus(0, (6, 1)))
    p = view(st, 0)["players"][0]
    assert p["pending_bonus_dots"] == 2
    assert {tuple(t["square"]): t["bonus_dot"] for t in p["toppings"]} == {
        (0, 0): "used", (1, 0): "unused", (5, 0): "unused"
    }
    with pytest.raises(RuleError, match="already marked"):
        apply(st, 0, {"kind": "bonus_dot", "dot": [6, 1]})
    st = play(st, bonus(0, (12, 9), topping=[5, 0]), bonus(0, (11, 9)))
    assert st.phase == "roll" and st.turn == 2
    p = view(st, 0)["players"][0]
    assert all(t["bonus_dot"] == "used" for t in p["toppings"])


def test_ds11_bonus_dots_are_optional_and_only_that_turn():
    st = table(1, [CORNER_MISSING], bonuses=[])
    st = play(st, *roll(1, 1, "A"), place(0, (2, 2)), bonus(0, (9, 9)), skip(0))
    assert st.phase == "roll"
    p = view(st, 0)["players"][0]
    assert p["pending_bonus_dots"] == 0
    assert [t["bonus_dot"] for t in p["toppings"]] == ["used", "unused"]
    st = play(st, *roll(1, 1, "A"))
    with pytest.raises(RuleError, match="Place your die"):
        apply(st, 0, {"kind": "bonus_dot", "dot": [5, 5]})
    st = play(st, place(0, (5, 5)))
    with pytest.raises(RuleError, match="placing part"):
        apply(st, 0, {"kind": "bonus_dot", "dot": [6, 6]})


def test_ds11_subdividing_a_slice_regrants_unused_toppings():
    st = table(1, [CORNER_MISSING], bonuses=[])
    st = play(st, *roll(1, 1, "A"), place(0, (2, 2)), bonus(0, (9, 9), topping=[1, 0]), skip(0))
    # mushroom (0,0) is still unused; the centre dot cuts the slice into four 1 x 1 slices
    st = play(st, *roll(1, 1, "A"), place(0, (1, 1)))
    p = view(st, 0)["players"][0]
    assert p["pending_bonus_dots"] == 1
    assert [t["pending"] for t in p["toppings"]] == [True, False]


# --- DS-12 topping bonuses -------------------------------------------------------------------

def test_ds12_same_turn_makers_all_score_then_bonus_closes():
    st = table(3, [CORNER_MISSING, CORNER_MISSING, CORNER_MISSING])
    # seat 0 single dot (die A face 1), seat 1 domino overlapping (1,2), seat 2 waits
    st = play(st, *roll(1, 1, "A"), place(0, (2, 2)), skip(0), place(1, (1, 2), (2, 2)))
    assert view(st, 2)["topping_bonuses"][0]["status"] == "scored"  # still this turn
    st = play(st, skip(1), place(2, (10, 9), (11, 9)))
    tb = view(st, 2)["topping_bonuses"][0]
    assert tb["status"] == "closed" and tb["scored_by"] == [0, 1] and tb["turn"] == 1
    # seat 2 makes the same slice a turn later: no bonus any more
    st = play(st, *roll(1, 1, "A", active=1), place(0, (5, 5), (6, 5)), place(1, (6, 6)), place(2, (2, 1), (2, 2)), skip(2))
    assert [len(s.bonuses) for s in st.seats] == [1, 1, 0]
    sc = view(st, 0)["players"]
    assert sc[0]["score"]["topping_bonuses"] == [{"bonus": 0, "toppings": ["mushroom", "olive"], "points": 5}]
    assert sc[0]["total"] == 4 + 5 and sc[2]["total"] == 4


def test_ds12_bonus_made_with_a_bonus_dot_counts_the_same_turn():
    # seat 1 finishes the slice only through a bonus dot granted by square (5,0)
    pepper_open = sheet("""
        .....oo
        .....o.
    """)
    st = table(2, [CORNER_MISSING, CORNER_MISSING | pepper_open], rows=["MO...P......"])
    st = play(st, *roll(1, 1, "A"), place(0, (2, 2)), skip(0), place(1, (5, 1), (6, 1)))
    st = play(st, bonus(1, (2, 2)), skip(1))
    assert st.bonuses[0].scored_by == (0, 1) and st.bonuses[0].closed


def test_ds12_exact_toppings_and_nothing_else():
    # a slice holding mushroom, olive and pepper does not score the mushroom+olive bonus
    st = table(1, [CORNER_MISSING], rows=["MO..........", "P..........."])
    st = play(st, *roll(1, 1, "A"), place(0, (2, 2)), skip(0))
    assert st.seats[0].bonuses == ()


def test_ds12_crossed_toppings_still_count_but_scored_ones_never_again():
    bonuses = [(["mushroom", "olive", "pepper"], 9), (["mushroom"], 2), (["olive"], 3)]
    rows = ["MO..........", ".P.........."]
    # seat 0 makes the 2 x 2 with M, O, P: scores the 9 and uses all three bonus dots
    st = table(2, [CORNER_MISSING, 0], rows=rows, bonuses=bonuses)
    st = play(st, *roll(1, 1, "A"), place(0, (2, 2)), bonus(0, (9, 9)), bonus(0, (9, 7)), bonus(0, (7, 9)))
    st = play(st, place(1, (0, 0), (1, 0)))
    assert st.seats[0].bonuses == (0,)
    # subdividing: the 1 x 1 mushroom slice would match bonus 1 but its topping already scored
    st = play(st, *roll(1, 1, "A", active=1), place(0, (0, 1), (1, 1)))
    assert st.seats[0].bonuses == (0,)
    p = view(st, 0)["players"][0]
    assert all(t["counted_for_bonus"] for t in p["toppings"])


def test_ds12_crossed_off_topping_still_counts_for_a_later_bonus():
    bonuses = [(["mushroom"], 2)]
    rows = ["MO..........", "P..........."]
    st = table(1, [CORNER_MISSING], rows=rows, bonuses=bonuses)
    # the 2 x 2 (M, O, P) matches nothing; use the mushroom's bonus dot far away
    st = play(st, *roll(1, 1, "A"), place(0, (2, 2)), bonus(0, (12, 9), topping=[0, 0]), skip(0))
    assert st.seats[0].crossed == {0}
    # the centre dot cuts out a 1 x 1 mushroom slice: crossed off, it still scores the bonus
    st = play(st, *roll(1, 1, "A"), place(0, (1, 1)))
    assert st.seats[0].bonuses == (0,)


# --- DS-14 / DS-15 end of game and scoring ---------------------------------------------------

def test_ds14_game_ends_at_end_of_the_turn_and_ds15_scores_and_ties():
    one_short = g.ALL_DOTS & ~g.dot_bit(12, 9)
    st = table(2, [one_short, one_short], rows=[], bonuses=[])
    st = play(st, *roll(1, 1, "A"), place(0, (12, 9)))
    assert not finished(st) and winners(st) == []  # seat 1 still to play this turn
    st = play(st, place(1, (11, 9), (12, 9)))
    assert finished(st)
    assert totals(st) == [108, 108] and winners(st) == [0, 1]
    v = view(st, None)
    assert v["finished"] and v["winners"] == [0, 1] and v["waiting_for"] == []
    assert v["players"][0]["score"]["slices"] == [{"size": 1, "count": 108, "points_each": 1, "points": 108}]
    with pytest.raises(RuleError, match="over"):
        apply(st, 0, {"kind": "roll", "faces": {"A": 1, "B": 1}})


def test_ds15_breakdown_counts_each_size():
    # a 3 x 5 slice (25 points in the default table) and a 2 x 2 (4) and a 1 x 1 (1)
    m = sheet("""
        oooo.ooo.oo
        o..o.o.o.oo
        o..o.ooo...
        o..o.......
        o..o.......
        oooo.......
    """)
    st = new_state(1, normalize_options({}))
    st = st._replace(seats=(st.seats[0]._replace(dots=m),))
    sl = view(st, 0)["players"][0]["score"]["slices"]
    assert sl == [
        {"size": 1, "count": 1, "points_each": 1, "points": 1},
        {"size": 4, "count": 1, "points_each": 4, "points": 4},
        {"size": 15, "count": 1, "points_each": 25, "points": 25},
    ]
    assert totals(st) == [30]


# --- view and purity -------------------------------------------------------------------------

def test_view_shape_is_json_and_apply_never_mutates():
    # DS-16: an entry never changes the game it is applied to (replays rebuild the same game);
    # DS-10: the view reports the slice the placement closed as scorable
    st = play(table(2, [CORNER_MISSING]), *roll(1, 1, "A"))
    before = json.dumps(view(st, 0), sort_keys=True)
    after = apply(st, 0, {"kind": "place", "dots": [[2, 2]]})
    assert json.dumps(view(st, 0), sort_keys=True) == before
    v = view(after, 0)
    json.dumps(v)
    p = v["players"][0]
    assert set(p) >= {"dots", "lines", "regions", "toppings", "pending_bonus_dots", "score", "total"}
    r = next(r for r in p["regions"] if r["scorable"])
    assert r == {"squares": [[0, 0], [1, 0], [0, 1], [1, 1]], "size": 4, "enclosed": True, "scorable": True, "points": 4,
                 "box": {"x": 0, "y": 0, "w": 2, "h": 2, "size": 4}}
    assert v["rolled"]["A"] == {"face": 1, "dots": [[1, 1]]}
    assert v["chosen"] == "A" and v["phase"] == "place"


def test_ds7_placements_for_a_seat_follow_its_die_and_status():
    from companion.games.dice_and_slice.rules import placements_for

    st = table(2)
    assert placements_for(st, 0) == []  # nothing rolled yet
    st = play(st, *roll(1, 1, "A"))
    assert len(placements_for(st, 0)) == 130  # single dot anywhere
    assert len(placements_for(st, 1)) == 12 * 10 + 13 * 9  # domino, either way round
    st = play(st, place(0, (0, 0)))
    assert placements_for(st, 0) == []
