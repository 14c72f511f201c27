"""Pizza Theory properties (hypothesis): conservation, partition, slice counts, safety, replay."""
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.pizza_theory.rules import (BOARD, apply, finished, legal_spaces, neutral_spaces, new_state,
                                          resolve_masks, secret, view, waiting_for)

cut_ids = st.integers(0, 215)


@st.composite
def positions(draw):
    """Random colour masks: each space empty or one colour, at most 16 per colour."""
    cells = draw(st.lists(st.sampled_from([-1, -1, 0, 1, 2]), min_size=37, max_size=37))
    masks, n = [0, 0, 0], [0, 0, 0]
    for i, c in enumerate(cells):
        if c >= 0 and n[c] < 16:
            masks[c] |= 1 << i
            n[c] += 1
    return tuple(masks)


def play(data, players, max_entries=400):
    """Drive a random game through legal entries (with a few illegal ones mixed in); return (states, log)."""
    s = new_state(players, {"first_seat": data.draw(st.integers(0, players - 1))})
    states, log = [s], []
    while not finished(s) and len(log) < max_entries:
        seat = waiting_for(s)[0]
        if s.phase == "add":
            entry = {"kind": "place", "space": list(data.draw(st.sampled_from(legal_spaces(s, seat))))}
        elif s.phase == "neutral":
            line = data.draw(st.integers(1, 6))
            room = neutral_spaces(s, line) if s.supply[2] else []
            entry = {"kind": "neutral", "line": line,
                     "space": list(data.draw(st.sampled_from(room))) if room else None}
        else:
            seat = data.draw(st.sampled_from(range(players)))  # anyone may (re)choose until the last
            entry = {"kind": "cut", "line": data.draw(st.integers(1, 6))}
        s = apply(s, seat, entry)
        states.append(s)
        log.append((seat, entry))
    return states, log


def test_pt2_every_cut_partitions_the_board_into_4_to_7_slices():
    for slices in BOARD.cut_slices:
        assert 4 <= len(slices) <= 7
        union = 0
        for m in slices:
            assert m and not union & m  # non-empty, disjoint
            union |= m
        assert union == BOARD.full_mask


@given(cut_ids)
def test_pt2_slices_are_sides_of_the_three_lines(cut_id):
    ks = BOARD.cut_ks(cut_id)
    for m in BOARD.cut_slices[cut_id]:
        sides = {tuple(s[f] > ks[f] for f in range(3)) for s in BOARD.spaces_of(m)}
        assert len(sides) == 1
    assert BOARD.cut_id(ks) == cut_id


@given(positions(), cut_ids)
def test_pt11_resolution_never_touches_a_safe_colour(masks, cut_id):
    out = resolve_masks(BOARD.cut_slices[cut_id], *masks)
    for c in range(3):
        if out.safe[c]:
            assert out.masks[c] & masks[c] == masks[c]  # nothing removed or replaced
            assert all(ch[1] != c for ch in out.changes)


@given(positions(), cut_ids)
def test_pt12_changes_explain_the_new_position_and_counts_stay_within_16(masks, cut_id):
    out = resolve_masks(BOARD.cut_slices[cut_id], *masks)
    assert not (out.masks[0] & out.masks[1] or out.masks[0] & out.masks[2] or out.masks[1] & out.masks[2])
    for c in range(3):
        assert out.masks[c].bit_count() == min(out.would_be[c], 16)
    rebuilt = list(masks)
    for i, frm, to, _why, _n in out.changes:
        rebuilt[frm] &= ~(1 << i)
        if to >= 0:
            rebuilt[to] |= 1 << i
    assert tuple(rebuilt) == out.masks


@settings(max_examples=40, deadline=None)
@given(st.data(), st.sampled_from([2, 3]))
def test_pt12_toppings_on_board_plus_supply_is_always_16(data, players):
    states, _ = play(data, players)
    for s in states:
        for c in range(3):
            assert s.masks[c].bit_count() + s.supply[c] == 16


@settings(max_examples=40, deadline=None)
@given(st.data(), st.sampled_from([2, 3]))
def test_pt19_replaying_the_log_reproduces_the_state(data, players):
    states, log = play(data, players)
    s = new_state(players, {"first_seat": states[0].first_seat})
    for seat, entry in log:
        s = apply(s, seat, entry)
    assert s == states[-1]


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_pt8_no_view_reveals_another_seats_pending_cut(data):
    states, log = play(data, 3, max_entries=60)
    for before, after, (seat, entry) in zip(states, states[1:], log):
        if after.phase == "cut":
            for viewer in (0, 1, 2, None):
                v = view(after, viewer)
                assert v["my_cut"] == (after.cuts[viewer] if viewer is not None else None)
                assert [x["has_chosen"] for x in v["seats"]] == [c is not None for c in after.cuts]
        if entry["kind"] == "cut":
            hidden = after.phase == "cut" and after.round == before.round
            for viewer in (0, 1, 2, None):
                assert secret(seat, entry, before, after, viewer) == (hidden and viewer != seat)


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_pt13_first_player_moves_one_seat_clockwise_each_round(data):
    states, _ = play(data, 3)
    for s in states:
        f = s.first_seat
        assert s.order == tuple((f + s.round - 1 + i) % 3 for i in range(3))
        labels = [x["label"] for x in view(s, None)["seats"]]
        assert labels[s.order[0]] == "1st"
        assert sorted(x["axis"] for x in view(s, None)["seats"]) == ["x", "y", "z"]


@given(positions())
def test_pt5_legal_spaces_are_empty_and_away_from_own(masks):
    s = replace(new_state(3, {}), masks=masks)
    occupied = masks[0] | masks[1] | masks[2]
    for c in range(3):
        for space in legal_spaces(s, c):
            i = BOARD.index[space]
            assert not occupied >> i & 1 and not BOARD.neighbour_mask[i] & masks[c]
