"""Score pad rules. Each test names the rule (SP-n in rules.md) it checks."""
from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.score_pad import rules
from companion.games.score_pad.rules import (
    apply,
    finished,
    hints,
    leaders,
    new_state,
    normalize_options,
    rounds_complete,
    totals,
    undo_refusal,
    view,
    waiting_for,
    winners,
)
from companion.platform.core.contract import MalformedEntry, RuleError, Viewer
from companion.platform.core.registry import GAMES
from tests.contract.playout import playout

GAME = GAMES["score_pad"]


def score(points):
    return {"kind": "score", "points": points}


FINISH = {"kind": "finish"}


def pad(players=2, **options):
    return new_state(players, options)


def play_rounds(state, *rounds):
    """Enter whole rounds, each a list of points in seat order."""
    for points in rounds:
        for seat, p in enumerate(points):
            state = apply(state, seat, score(p))
    return state


# --- the pad -----------------------------------------------------------------------------


def test_registered_with_its_contract():  # SP-1
    assert (GAME.id, GAME.title, GAME.min_players, GAME.max_players) == ("score_pad", "Score pad", 1, 12)
    assert GAME.entry_kinds == ("score", "finish")
    assert GAME.host_kinds == ()
    state = GAME.new_state(3, GAME.normalize_options({}))
    assert GAME.waiting_for(state) == [0, 1, 2]
    assert GAME.totals(GAME.apply(state, 1, score(9))) == [0, 9, 0]


@pytest.mark.parametrize("count", [1, 12])
def test_one_to_twelve_players(count):  # SP-1
    state = pad(count)
    assert [p["seat"] for p in view(state)["players"]] == list(range(count))
    assert totals(state) == [0] * count


@pytest.mark.parametrize("count", [0, 13, -1, True, "2", 2.0, None])
def test_other_player_counts_are_refused(count):  # SP-1
    with pytest.raises(RuleError, match="1 to 12 players"):
        new_state(count, {})


def test_a_total_is_the_sum_of_the_column():  # SP-1
    state = play_rounds(pad(3), [10, -5, 0], [7, 20, 3], [-2, 0, 100])
    assert totals(state) == [15, 15, 103]
    assert [p["scores"] for p in view(state)["players"]] == [[10, 7, -2], [-5, 20, 0], [0, 3, 100]]


def test_a_single_player_can_keep_a_pad():  # SP-1 SP-11
    state = play_rounds(pad(1, rounds=2), [4], [5])
    assert finished(state) and winners(state) == [0] and totals(state) == [9]


# --- options -------------------------------------------------------------------------------


def test_options_default_to_highest_wins_open_ended_without_target():  # SP-2
    assert normalize_options({}) == {"wins": "highest", "rounds": None, "target": None, "name": None}
    assert normalize_options(None) == normalize_options({})
    assert normalize_options({"wins": None, "rounds": None, "target": None}) == normalize_options({})


def test_options_in_range_are_kept():  # SP-2
    assert normalize_options({"wins": "lowest", "rounds": 1, "target": 1_000_000}) == {
        "wins": "lowest", "rounds": 1, "target": 1_000_000, "name": None}
    assert normalize_options({"rounds": 50, "target": 1})["rounds"] == 50


def test_the_host_may_name_the_game_being_played():  # SP-2
    assert normalize_options({"name": "  Ticket   to Ride "})["name"] == "Ticket to Ride"
    assert normalize_options({"name": "   "})["name"] is None
    for bad, message in ((7, "must be plain text"), ("Ca\nrcassonne", "must be plain text"),
                         ("x" * 61, "at most 60 characters")):
        with pytest.raises(RuleError, match=message):
            normalize_options({"name": bad})


@pytest.mark.parametrize("options, message", [
    ({"wins": "most"}, 'Who wins must be "highest" or "lowest"'),
    ({"wins": 1}, 'Who wins must be "highest" or "lowest"'),
    ({"wins": ["highest"]}, 'Who wins must be "highest" or "lowest"'),
    ({"rounds": 0}, "number of rounds must be a whole number from 1 to 50"),
    ({"rounds": 51}, "number of rounds must be a whole number from 1 to 50"),
    ({"rounds": 3.0}, "number of rounds must be a whole number from 1 to 50"),
    ({"rounds": True}, "number of rounds must be a whole number from 1 to 50"),
    ({"rounds": "ten"}, "number of rounds must be a whole number from 1 to 50"),
    ({"target": 0}, "target score must be a whole number from 1 to 1000000"),
    ({"target": -100}, "target score must be a whole number from 1 to 1000000"),
    ({"target": 10**40}, "or left out; got a huge number."),
    ({"target": {"a": 1}}, "target score must be a whole number"),
    ({"colour": "red"}, "Score pad has no option 'colour'; the options are: wins, rounds, target"),
    (["wins"], "Score pad options are a set of named values"),
])
def test_bad_options_are_refused_with_the_reason(options, message):  # SP-2
    with pytest.raises(RuleError) as refused:
        normalize_options(options)
    assert message in refused.value.reason


# --- entering scores -------------------------------------------------------------------------


@pytest.mark.parametrize("points", [rules.MIN_POINTS, -1, 0, 1, rules.MAX_POINTS])
def test_whole_numbers_within_the_bounds_are_taken(points):  # SP-3
    assert totals(apply(pad(1), 0, score(points))) == [points]


@pytest.mark.parametrize("points", [rules.MIN_POINTS - 1, rules.MAX_POINTS + 1, 10**50])
def test_numbers_past_the_bounds_are_refused(points):  # SP-3
    with pytest.raises(RuleError, match="from -100000 to 100000") as refused:
        apply(pad(), 0, score(points))
    assert not isinstance(refused.value, MalformedEntry)
    assert len(refused.value.reason) < 120  # a huge number is not printed in full


@pytest.mark.parametrize("points", [True, False, 2.5, 3.0, "7", "abc", None, [1], {"p": 1}, float("nan")])
def test_anything_but_a_whole_number_is_malformed(points):  # SP-3
    with pytest.raises(MalformedEntry, match="A round score is a whole number"):
        apply(pad(), 0, score(points))


@pytest.mark.parametrize("entry, cls, message", [
    ({"kind": "score"}, MalformedEntry, "Enter your score for this round"),
    ({"kind": "score", "points": 1, "round": 2}, MalformedEntry, "A score entry has no field 'round'"),
    ({"kind": "finish", "points": 1}, MalformedEntry, "A finish entry has no field 'points'"),
    ({"kind": "bid", "points": 1}, RuleError, "Score pad takes 'score' and 'finish' entries; got 'bid'"),
    ({"points": 1}, RuleError, "Score pad takes 'score' and 'finish' entries; got None"),
    ("score 5", MalformedEntry, "An entry must be a set of named fields"),
])
def test_malformed_entries_are_refused_with_the_reason(entry, cls, message):  # SP-3
    with pytest.raises(cls, match=re.escape(message)):
        apply(pad(), 0, entry)


@pytest.mark.parametrize("seat", [-1, 2, True, "0", None])
def test_a_seat_the_table_does_not_have_is_refused(seat):  # SP-3
    with pytest.raises(RuleError, match="There is no seat"):
        apply(pad(), seat, score(1))


def test_the_platform_key_means_nothing_to_the_rules():  # SP-3
    assert apply(pad(), 0, {"kind": "score", "points": 4, "key": "abc"}) == apply(pad(), 0, score(4))


def test_a_refused_entry_changes_nothing():  # SP-3
    state = play_rounds(pad(), [1, 2])
    before = view(state)
    for bad in (score(2.5), score(10**6), {"kind": "nope"}):
        with pytest.raises(RuleError):
            apply(state, 0, bad)
    assert view(state) == before


def test_players_enter_a_round_in_any_order():  # SP-4
    state = pad(3)
    state = apply(state, 2, score(30))
    state = apply(state, 0, score(10))
    assert rounds_complete(state) == 0 and waiting_for(state) == [1]
    state = apply(state, 1, score(20))
    assert rounds_complete(state) == 1
    assert view(state)["grid"] == [{"round": 1, "complete": True, "scores": [10, 20, 30]}]


def test_a_player_waits_for_the_round_to_complete():  # SP-5
    state = apply(pad(3), 0, score(5))
    with pytest.raises(RuleError) as refused:
        apply(state, 0, score(6))
    assert refused.value.reason == ("Round 1 is still open: a score for round 2 waits until every player "
                                    "has entered round 1.")
    assert waiting_for(state) == [1, 2]
    state = apply(apply(state, 1, score(1)), 2, score(1))
    assert waiting_for(state) == [0, 1, 2]  # between rounds: everyone
    assert totals(apply(state, 0, score(6))) == [11, 1, 1]


def test_undo_is_open_until_somebody_enters_a_later_round():  # SP-6
    state = play_rounds(pad(2), [5, 6])
    state = apply(state, 0, score(7))  # Ann opens round 2
    assert undo_refusal(0, state) is None  # Ann's round 2: nobody is further
    assert undo_refusal(1, state) == ("Round 1 can't be changed any more: another player has already entered "
                                      "a score for round 2.")
    state = apply(state, 1, score(8))
    assert undo_refusal(1, state) is None and undo_refusal(0, state) is None


def test_undo_refusal_is_the_game_contract_hook():  # SP-6
    state = play_rounds(pad(2), [5, 6])
    later = apply(state, 0, score(1))
    assert GAME.undo_refusal(1, score(6), state, later).startswith("Round 1 can't be changed any more")
    assert GAME.undo_refusal(0, score(1), state, later) is None


# --- the end -----------------------------------------------------------------------------


def test_a_fixed_number_of_rounds_ends_with_the_last_round():  # SP-7
    state = play_rounds(pad(2, rounds=2), [3, 4])
    assert not finished(state) and view(state)["rounds_left"] == 1
    state = apply(state, 0, score(10))
    assert not finished(state)
    state = apply(state, 1, score(1))
    assert finished(state) and view(state)["ended_by"] == "rounds" and view(state)["rounds_left"] == 0
    assert waiting_for(state) == [] and winners(state) == [0]


def test_the_target_ends_the_game_at_the_end_of_the_round():  # SP-8
    state = pad(3, target=100)
    state = play_rounds(state, [60, 50, 10])
    state = apply(state, 0, score(45))  # Ann reaches 105 mid-round: the others still enter round 2
    assert not finished(state) and waiting_for(state) == [1, 2]
    state = apply(state, 1, score(55))
    state = apply(state, 2, score(0))
    assert finished(state) and view(state)["ended_by"] == "target"
    assert totals(state) == [105, 105, 10] and winners(state) == [0, 1]


def test_reaching_the_target_exactly_ends_the_game():  # SP-8
    state = play_rounds(pad(2, target=20), [20, 0])
    assert finished(state) and winners(state) == [0]
    assert not finished(play_rounds(pad(2, target=20), [19, 0]))


def test_hearts_the_target_ends_it_and_the_lowest_total_wins():  # SP-8 SP-11
    state = pad(4, wins="lowest", target=100)
    state = play_rounds(state, [26, 0, 0, 0], [0, 13, 13, 0], [26, 0, 0, 0], [26, 0, 0, 0])
    assert not finished(state) and totals(state) == [78, 13, 13, 0]
    state = play_rounds(state, [26, 0, 0, 0])
    assert finished(state) and totals(state) == [104, 13, 13, 0]
    assert winners(state) == [3]


def test_rounds_and_target_end_at_whichever_comes_first():  # SP-9
    early = play_rounds(pad(2, rounds=5, target=50), [30, 0], [30, 0])
    assert finished(early) and view(early)["ended_by"] == "target" and rounds_complete(early) == 2
    late = play_rounds(pad(2, rounds=2, target=50), [10, 0], [10, 0])
    assert finished(late) and view(late)["ended_by"] == "rounds"


def test_any_player_finishes_between_rounds():  # SP-10
    state = play_rounds(pad(3), [5, 9, 1], [5, 0, 1])
    done = apply(state, 2, FINISH)
    assert finished(done) and view(done)["ended_by"] == "finish" and view(done)["finished_by"] == 2
    assert winners(done) == [0] and waiting_for(done) == []
    assert finished(apply(state, 0, FINISH)) and finished(apply(state, 1, FINISH))


def test_finish_also_stops_a_game_with_rounds_or_a_target_early():  # SP-10
    state = play_rounds(pad(2, rounds=10, target=500), [5, 9])
    assert view(apply(state, 0, FINISH))["ended_by"] == "finish"


def test_no_finish_before_the_first_round():  # SP-10
    with pytest.raises(RuleError, match="Play at least one round before finishing the game."):
        apply(pad(3), 1, FINISH)


def test_no_finish_in_the_middle_of_a_round():  # SP-10
    state = apply(apply(play_rounds(pad(3), [1, 2, 3]), 0, score(4)), 2, score(2))
    with pytest.raises(RuleError) as refused:
        apply(state, 0, FINISH)
    assert refused.value.reason == "Finish between rounds: round 2 still waits for 1 score."
    state = apply(play_rounds(pad(3), [1, 2, 3]), 0, score(4))
    with pytest.raises(RuleError, match="round 2 still waits for 2 scores"):
        apply(state, 1, FINISH)
    with pytest.raises(RuleError, match="round 1 still waits for 1 score"):
        apply(apply(pad(2), 0, score(1)), 0, FINISH)


def test_ties_share_the_win():  # SP-11
    state = apply(play_rounds(pad(3), [10, 10, 3]), 0, FINISH)
    assert winners(state) == [0, 1]
    low = apply(play_rounds(pad(3, wins="lowest"), [10, 3, 3]), 0, FINISH)
    assert winners(low) == [1, 2]


def test_nobody_wins_while_the_game_goes_on():  # SP-11
    assert winners(play_rounds(pad(2), [5, 1])) == []


def test_the_lead_counts_complete_rounds_only():  # SP-12
    state = pad(2)
    assert leaders(state) == [] and view(state)["leaders"] == []
    state = play_rounds(state, [10, 20])
    assert leaders(state) == [1]
    state = apply(state, 0, score(50))  # Ann's 60 stands, but round 2 is not complete
    assert totals(state) == [60, 20] and leaders(state) == [1]
    state = apply(state, 1, score(0))
    assert leaders(state) == [0]
    assert leaders(play_rounds(pad(2, wins="lowest"), [10, 20])) == [0]


def test_every_entry_is_refused_once_the_game_is_over():  # SP-13
    state = play_rounds(pad(2, rounds=1), [1, 2])
    for seat, entry in ((0, score(1)), (1, FINISH)):
        with pytest.raises(RuleError, match="The game is over."):
            apply(state, seat, entry)
    assert hints(state, 0, {"points": 5})["legal"] == []


def test_every_viewer_sees_the_whole_pad():  # SP-14
    state = apply(play_rounds(pad(3), [1, 2, 3]), 1, score(-4))
    viewers = [Viewer.own(0), Viewer.own(2), Viewer.shared(1), Viewer.shared(), Viewer.table(), Viewer.host()]
    views = [GAME.view(state, v) for v in viewers]
    assert all(v == views[0] for v in views)
    assert views[0]["grid"][1] == {"round": 2, "complete": False, "scores": [None, -4, None]}
    json.dumps(views[0])
    assert GAME.secret(1, score(-4), state, state, Viewer.own(0)) is False


def test_the_view_describes_what_the_pages_draw():  # SP-5 SP-12 SP-14
    state = apply(play_rounds(pad(3, rounds=4, target=50), [5, 8, 1]), 1, score(2))
    v = view(state)
    assert (v["round"], v["rounds"], v["rounds_left"], v["target"], v["wins"]) == (2, 4, 3, 50, "highest")
    assert v["waiting_for"] == [0, 2] and v["leaders"] == [1] and v["totals"] == [5, 10, 1]
    assert [p["waiting"] for p in v["players"]] == [True, False, True]
    assert v["players"][1]["sheet"] == {"round_1": 8, "round_2": 2}
    assert (v["may_finish"], v["finished"], v["ended_by"], v["winners"]) == (False, False, None, [])


# --- hints: what a sheet previews ------------------------------------------------------------


def test_hints_name_the_typed_score_and_the_total_after_it():  # SP-1 SP-4
    state = play_rounds(pad(2), [10, 4])
    h = hints(state, 0, {"points": 7})
    assert h["round"] == 2 and h["may_enter"] and h["total_after"] == 17 and h["refusal"] is None
    assert score(7) in h["legal"] and FINISH in h["legal"]
    json.dumps(h)


def test_hints_give_the_rules_own_refusal():  # SP-3 SP-5
    state = apply(pad(2), 0, score(3))
    assert hints(state, 0, {"points": 2})["refusal"].startswith("Round 1 is still open")
    assert hints(state, 0, {"points": 2})["legal"] == []
    assert hints(pad(2), 0, {"points": "2.5"})["refusal"] == GAME.check(pad(2), 0, score("2.5"))
    assert hints(pad(2), 0, {})["legal"] == []  # nothing typed and no round to finish


# --- properties --------------------------------------------------------------------------------

options_strategy = st.fixed_dictionaries({
    "wins": st.sampled_from(["highest", "lowest"]),
    "rounds": st.none() | st.integers(1, 6),
    "target": st.none() | st.integers(1, 200),
})
moves_strategy = st.lists(st.tuples(st.integers(0, 4), st.integers(-50, 80) | st.just("finish")), max_size=60)


def play_moves(players, options, moves):
    """Apply each move the rules take; return the final state and the accepted (seat, entry) log."""
    state, log = new_state(players, options), []
    for seat, move in moves:
        entry = FINISH if move == "finish" else score(move)
        seat %= players
        if GAME.check(state, seat, entry) is None:
            state = apply(state, seat, entry)
            log.append((seat, entry))
    return state, log


def replay(players, options, log):
    state = new_state(players, options)
    for seat, entry in log:
        state = apply(state, seat, entry)
    return state


@settings(max_examples=150, deadline=None)
@given(players=st.integers(1, 5), options=options_strategy, moves=moves_strategy)
def test_replaying_the_log_rebuilds_the_pad_and_totals_are_sums(players, options, moves):  # SP-1 SP-4
    state, log = play_moves(players, options, moves)
    assert replay(players, options, log) == state
    for seat in range(players):
        assert totals(state)[seat] == sum(e["points"] for s, e in log if s == seat and e["kind"] == "score")
    counts = [len(p["scores"]) for p in view(state)["players"]]
    assert max(counts) - min(counts) <= 1  # SP-5: nobody is more than the round under way ahead


@settings(max_examples=150, deadline=None)
@given(players=st.integers(1, 5), options=options_strategy, moves=moves_strategy)
def test_winners_are_the_best_totals_and_lowest_mirrors_highest(players, options, moves):  # SP-11
    state, log = play_moves(players, options, moves)
    if not finished(state):
        assert winners(state) == []
        return
    best = (max if options["wins"] == "highest" else min)(totals(state))
    assert winners(state) == [s for s, t in enumerate(totals(state)) if t == best]
    # the same pad with every score negated and the other rule for winning has the same winners
    mirrored = {**options, "wins": "lowest" if options["wins"] == "highest" else "highest"}
    if options["target"] is None:  # (a target would be reached by other totals)
        flipped = [(s, score(-e["points"]) if e["kind"] == "score" else e) for s, e in log]
        assert winners(replay(players, mirrored, flipped)) == winners(state)


@settings(max_examples=150, deadline=None)
@given(players=st.integers(1, 5), options=options_strategy, moves=moves_strategy)
def test_undo_refusal_agrees_with_replaying_without_the_entry(players, options, moves):  # SP-6
    state, log = play_moves(players, options, moves)
    if finished(state):
        return
    for seat in range(players):
        own = [i for i, (s, _) in enumerate(log) if s == seat]
        if not own:
            continue
        rest = [item for i, item in enumerate(log) if i != own[-1]]
        try:
            replay(players, options, rest)
            replays = True
        except RuleError:
            replays = False
        assert (undo_refusal(seat, state) is None) == replays


@settings(max_examples=100, deadline=None)
@given(players=st.integers(1, 6), options=options_strategy, seed=st.integers(0, 10**6))
def test_random_playouts_never_stall_and_agree_with_check(players, options, seed):  # SP-4 SP-5 SP-10
    # tries=1: every seat the game waits for can enter a score, and the rules take what hints offer
    state, steps = playout(GAME, players, random.Random(seed), max_steps=2000, options=options, tries=1)
    for step in steps:
        assert GAME.waiting_for(step.before) and not GAME.finished(step.before)
        json.dumps(GAME.view(step.after, Viewer.table()))
    assert GAME.finished(state)


def test_every_rule_in_the_rules_text_is_cited_by_a_test():
    here = Path(__file__).resolve().parent
    text = (here.parent / "rules.md").read_text()
    numbered = set(re.findall(r"^\*\*(SP-\d+)\*\*", text, flags=re.MULTILINE))
    cited = set()
    for test_file in here.glob("test_*.py"):
        cited |= set(re.findall(r"SP-\d+", test_file.read_text()))
    assert numbered == {f"SP-{n}" for n in range(1, 15)}
    assert numbered <= cited
