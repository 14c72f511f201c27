"""Dice and Slice: hypothesis properties of the geometry (DS-8..DS-10) and the engine (DS-16)."""
import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games.dice_and_slice.rules import analyse, apply, legal_placements, new_state, normalize_options
from companion.games.dice_and_slice.rules import geometry as g
from companion.games.dice_and_slice.rules import finished, view
from companion.games.dice_and_slice import GAME
from tests.contract.playout import playout

DOTS = [(x, y) for y in range(g.DOT_H) for x in range(g.DOT_W)]
SCORABLE_SIZES = {1, 4, 6, 8, 9, 10, 12, 14, 15}  # derived in test_dice_and_slice.py (DS-10)

dot_lists = st.lists(st.sampled_from(DOTS), max_size=130, unique=True)
# masks of every density: a random mask thinned or thickened by another one
masks = st.one_of(
    dot_lists.map(g.mask_of),
    st.tuples(st.integers(0, g.ALL_DOTS), st.integers(0, g.ALL_DOTS)).map(lambda t: t[0] | t[1]),
    st.tuples(st.integers(0, g.ALL_DOTS), st.integers(0, g.ALL_DOTS)).map(lambda t: t[0] & t[1]),
)


def marked(m, x, y):
    return bool(m & g.dot_bit(x, y))


@settings(deadline=None)  # no timing in tests: the machine may be busy
@given(masks)
def test_ds9_regions_partition_the_108_squares(m):
    a = analyse(m)
    seen = set()
    for r in a.regions:
        assert not (seen & r.squares)
        seen |= r.squares
        assert r.size == len(r.squares)
    assert seen == set(range(108))


@settings(deadline=None)  # no timing in tests: the machine may be busy
@given(masks)
def test_ds10_every_scorable_slice_is_an_enclosed_small_empty_rectangle(m):
    a = analyse(m)
    for r in a.regions:
        if not r.scorable:
            continue
        cx0, cy0, cx1, cy1 = r.bbox
        assert r.size == (cx1 - cx0 + 1) * (cy1 - cy0 + 1) <= 15
        assert r.size in SCORABLE_SIZES
        # checked independently: every dot of the outline marked, none strictly inside
        for x in range(cx0, cx1 + 2):
            for y in range(cy0, cy1 + 2):
                on_outline = x in (cx0, cx1 + 1) or y in (cy0, cy1 + 1)
                assert marked(m, x, y) == on_outline


@settings(deadline=None)  # no timing in tests: the machine may be busy
@given(masks)
def test_ds10_every_outlined_empty_rectangle_is_found(m):
    # the converse: any rectangle of <= 15 squares with its outline marked and no dot inside
    found = {frozenset(s) for s in analyse(m).scorable}
    for w in range(1, 13):
        for h in range(1, 10):
            if w * h > 15 or (min(w, h) == 1 and max(w, h) > 1):
                continue  # 1 x k strips fall apart into 1 x 1 slices (DS-10)
            for x0 in range(0, 13 - w):
                for y0 in range(0, 10 - h):
                    ok = all(
                        marked(m, x, y) == (x in (x0, x0 + w) or y in (y0, y0 + h))
                        for x in range(x0, x0 + w + 1)
                        for y in range(y0, y0 + h + 1)
                    )
                    if ok:
                        sq = frozenset((y0 + j) * 12 + x0 + i for i in range(w) for j in range(h))
                        assert sq in found


@settings(deadline=None)  # no timing in tests: the machine may be busy
@given(dot_lists, st.randoms(use_true_random=False))
def test_ds8_marking_order_never_changes_lines_regions_or_score(dots, rnd):
    def build(order):
        m, seen = 0, []
        for d in order:
            m |= g.dot_bit(*d)
            seen.append(analyse(m))  # intermediate sheets are analysed along the way
        return m

    other = list(dots)
    rnd.shuffle(other)
    m1, m2 = build(dots), build(other)
    assert m1 == m2
    a1, a2 = analyse(m1), analyse(m2)
    assert sorted(g.lines_of(m1)) == sorted(g.lines_of(m2))
    assert {r.squares for r in a1.regions} == {r.squares for r in a2.regions}
    assert a1.scorable == a2.scorable
    # the same through the engine's scoring of a one-seat table
    from companion.games.dice_and_slice.rules import totals

    base = new_state(1, normalize_options({}))
    s1 = base._replace(seats=(base.seats[0]._replace(dots=m1),))
    s2 = base._replace(seats=(base.seats[0]._replace(dots=m2),))
    assert totals(s1) == totals(s2)


@settings(deadline=None)  # no timing in tests: the machine may be busy
@given(masks)
def test_ds5_legal_placements_are_exactly_the_legal_moves(m):
    face = frozenset({(0, 0), (1, 0), (2, 0), (0, 1)})
    ps = legal_placements(m, face)
    news = [g.mask_of(map(tuple, p["new"])) for p in ps]
    assert len(set(news)) == len(news)  # deduplicated by the dots added
    for p, new in zip(ps, news):
        placed = g.mask_of(map(tuple, p["dots"]))
        assert new and new == placed & ~m
        assert g.matches_face(face, frozenset(map(tuple, p["dots"])))
    assert bool(ps) == g.has_legal_placement(m, face)


def random_game(rnd, players, max_entries=400):
    """Random legal entries on a random sheet side: (final state, log)."""
    state, steps = playout(GAME, players, rnd, max_steps=max_entries, options={"side": rnd.choice("AB")})
    return state, [(step.seat, step.entry) for step in steps]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_ds16_replaying_the_log_reproduces_the_state(players, seed):
    state, log = random_game(random.Random(seed), players)
    again = new_state(players, normalize_options({"side": state.side}))
    for seat, e in json.loads(json.dumps(log)):  # the log survives a JSON round trip
        again = apply(again, seat, e)
    assert again == state
    assert view(again, 0) == view(state, 0)
    json.dumps(view(state, None))


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1))
def test_ds14_random_games_end_with_a_full_border_and_small_regions(seed):
    state, log = random_game(random.Random(seed), 2, max_entries=5000)
    assert finished(state)
    assert any(g.game_can_end(s.dots) for s in state.seats)
    v = view(state, None)
    best = max(p["total"] for p in v["players"])
    assert v["winners"] == [p["seat"] for p in v["players"] if p["total"] == best]


@settings(deadline=None)  # no timing in tests: the machine may be busy
@given(masks, masks)
def test_ds10_new_slices_fast_path_agrees_with_region_analysis(a, b):
    before, after = a & b, a
    expected = analyse(after).scorable - analyse(before).scorable
    assert set(g.new_slices(before, after)) == set(expected)
