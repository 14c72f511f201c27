"""Score pad: the paper pad for whatever game is on the table, one column per player.

Pure: no Flask, no database. Each player enters their own score round by round; the pad adds
them up, knows when the game ends (a number of rounds, a target, or a finish between rounds)
and who wins. Rule numbers (SP-n) refer to rules.md.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping

from companion.platform.core.contract import Text, plural_text, MalformedEntry, RuleError

MIN_PLAYERS, MAX_PLAYERS = 1, 12
MIN_POINTS, MAX_POINTS = -100_000, 100_000
MAX_ROUNDS = 50
MAX_TARGET = 1_000_000
WINS = ("highest", "lowest")
OPTIONS = ("wins", "rounds", "target", "name")
MAX_NAME = 60  # characters of the name of the game being played
# the fields of each kind of entry besides its "kind" (Game.entry_fields)
ENTRY_FIELDS = {"score": ("points",), "finish": ()}

# The platform's idempotency "key" may ride along with an entry; it means nothing to the rules.
IGNORED_ENTRY_KEYS = {"key"}


@dataclass(frozen=True)
class State:
    wins: str                          # "highest" or "lowest" total wins
    rounds: int | None                 # the game's length, or None when open-ended
    target: int | None                 # a total that ends the game at the end of a round
    scores: tuple[tuple[int, ...], ...]  # per seat, its score of each round it has entered
    finished_by: int | None = None     # the seat that entered "finish"


# --- helpers ---------------------------------------------------------------------------


def _is_int(value: Any) -> bool:
    # JSON true/false arrive as bool, which Python counts as int; they are not numbers here.
    return isinstance(value, int) and not isinstance(value, bool)


def _shown(value: Any) -> str:
    """A client's value in a message, cut short: a message must stay readable."""
    text = repr(value) if not _is_int(value) or abs(value) < 10**30 else Text("a huge number")
    return text if len(text) <= 24 else text[:21] + "..."


def _check_seat(state: State, seat: Any) -> int:
    if not _is_int(seat) or not 0 <= seat < len(state.scores):
        raise RuleError("There is no seat {seat} at this table.", seat=_shown(seat))
    return seat


def _check_fields(entry: Mapping, allowed: set[str]) -> None:
    for name in entry:
        if name not in allowed and name not in IGNORED_ENTRY_KEYS:
            raise MalformedEntry("A {entry} entry has no field {name}.", entry=entry['kind'], name=_shown(name))


# --- options (SP-2) ----------------------------------------------------------------------


def _optional_whole(options: Mapping, name: str, low: int, high: int, what: str) -> int | None:
    value = options.get(name)
    if value is None:
        return None
    if not _is_int(value) or not low <= value <= high:
        raise RuleError("{what} must be a whole number from {low} to {high}, or left out; got {value}.", what=what, low=low, high=high, value=_shown(value))
    return value


def normalize_options(options: Mapping[str, Any] | None) -> dict:
    """Complete options with their defaults (SP-2); RuleError says what is wrong."""
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise RuleError("Score pad options are a set of named values: wins, rounds, target and name.")
    for name in options:
        if name not in OPTIONS:
            raise RuleError("Score pad has no option {name}; the options are: {options}.", name=_shown(name), options=', '.join(OPTIONS))
    wins = options.get("wins", "highest")
    if wins is None:
        wins = "highest"
    if not isinstance(wins, str) or wins not in WINS:
        raise RuleError('Who wins must be "highest" or "lowest" (the total); got {wins}.', wins=_shown(wins))
    rounds = _optional_whole(options, "rounds", 1, MAX_ROUNDS, Text("The number of rounds"))
    target = _optional_whole(options, "target", 1, MAX_TARGET, Text("The target score"))
    return {"wins": wins, "rounds": rounds, "target": target, "name": _game_name(options.get("name"))}


def _game_name(value: Any) -> str | None:
    """SP-2: the name of the game being played, spacing tidied; None when not given."""
    if value is None:
        return None
    if not isinstance(value, str) or any(not ch.isprintable() for ch in value):
        raise RuleError("The name of the game being played must be plain text; got {value}.", value=_shown(value))
    name = " ".join(value.split())
    if len(name) > MAX_NAME:
        raise RuleError("The name of the game being played is at most {max_name} characters; this one has {count}.", max_name=MAX_NAME, count=len(name))
    return name or None


def new_state(player_count: int, options: Mapping[str, Any] | None = None) -> State:
    if not _is_int(player_count) or not MIN_PLAYERS <= player_count <= MAX_PLAYERS:
        raise RuleError("Score pad is for {min_players} to {max_players} players; got {player_count}.", min_players=MIN_PLAYERS, max_players=MAX_PLAYERS, player_count=_shown(player_count))
    options = normalize_options(options)
    return State(wins=options["wins"], rounds=options["rounds"], target=options["target"],
                 scores=((),) * player_count)


# --- reading the state -----------------------------------------------------------------


def rounds_complete(state: State) -> int:
    """Rounds every player has entered (SP-4)."""
    return min(len(column) for column in state.scores)


def current_round(state: State) -> int:
    """The round under way: the one the slowest players are still to enter."""
    return rounds_complete(state) + 1


def at_round_boundary(state: State) -> bool:
    """Every player has entered the same number of rounds, at least one."""
    return len({len(column) for column in state.scores}) == 1 and rounds_complete(state) > 0


def totals(state: State) -> list[int]:
    """Each player's total: the sum of every score they entered (SP-1)."""
    return [sum(column) for column in state.scores]


def _best(values: list[int], wins: str) -> list[int]:
    best = max(values) if wins == "highest" else min(values)
    return [seat for seat, value in enumerate(values) if value == best]


def ended_by(state: State) -> str | None:
    """Why the game is over ("finish", "rounds", "target"), or None while it goes on (SP-7..SP-10)."""
    if state.finished_by is not None:
        return "finish"
    if not at_round_boundary(state):
        return None
    if state.rounds is not None and rounds_complete(state) >= state.rounds:
        return "rounds"
    if state.target is not None and any(total >= state.target for total in totals(state)):
        return "target"
    return None


def finished(state: State) -> bool:
    return ended_by(state) is not None


def winners(state: State) -> list[int]:
    """The best totals once the game is over; several on a tie (SP-11)."""
    if not finished(state):
        return []
    return _best(totals(state), state.wins)


def leaders(state: State) -> list[int]:
    """Who leads over the complete rounds; nobody before the first round is complete (SP-12)."""
    done = rounds_complete(state)
    if done == 0:
        return []
    return _best([sum(column[:done]) for column in state.scores], state.wins)


def waiting_for(state: State) -> list[int]:
    """The players who have not entered the round under way (SP-5)."""
    if finished(state):
        return []
    done = rounds_complete(state)
    return [seat for seat, column in enumerate(state.scores) if len(column) == done]


# --- entries ----------------------------------------------------------------------------


def _check_points(entry: Mapping) -> int:
    if "points" not in entry:
        raise MalformedEntry("Enter your score for this round (a whole number, 0 if you scored nothing).")
    points = entry["points"]
    if not _is_int(points):
        raise MalformedEntry(
            "A round score is a whole number from {min_points} to {max_points}, such as 12, 0 or -5; got {points}.", min_points=MIN_POINTS, max_points=MAX_POINTS, points=_shown(points))
    if not MIN_POINTS <= points <= MAX_POINTS:
        raise RuleError("A round score must be from {min_points} to {max_points}; got {points}.", rule="SP-3", min_points=MIN_POINTS, max_points=MAX_POINTS, points=_shown(points))
    return points


def _score(state: State, seat: int, entry: Mapping) -> State:
    _check_fields(entry, {"kind", *ENTRY_FIELDS["score"]})
    points = _check_points(entry)
    column = state.scores[seat]
    if len(column) > rounds_complete(state):
        raise RuleError("Round {count} is still open: a score for round {number} waits until every player has entered round {count}.", rule="SP-5", count=len(column), number=len(column) + 1)
    new_column = column + (points,)
    return replace(state, scores=state.scores[:seat] + (new_column,) + state.scores[seat + 1:])


def _finish(state: State, seat: int, entry: Mapping) -> State:
    _check_fields(entry, {"kind", *ENTRY_FIELDS["finish"]})
    if not any(state.scores):
        raise RuleError("Play at least one round before finishing the game.", rule="SP-10")
    if not at_round_boundary(state):
        missing = len(waiting_for(state))
        raise RuleError(plural_text("Finish between rounds: round {round} still waits for {missing} score.",
                                    "Finish between rounds: round {round} still waits for {missing} scores.",
                                    missing, round=current_round(state), missing=missing), rule="SP-10")
    return replace(state, finished_by=seat)


ENTRIES = {"score": _score, "finish": _finish}


def apply(state: State, seat: int, entry: Any) -> State:
    seat = _check_seat(state, seat)
    if finished(state):
        raise RuleError("The game is over.", rule="SP-13")
    if not isinstance(entry, Mapping):
        raise MalformedEntry("An entry must be a set of named fields.")
    kind = entry.get("kind")
    if not isinstance(kind, str) or kind not in ENTRIES:
        raise RuleError("Score pad takes 'score' and 'finish' entries; got {kind}.", kind=_shown(kind))
    return ENTRIES[kind](state, seat, entry)


def refusal(state: State, seat: int, entry: dict) -> str | None:
    try:
        apply(state, seat, entry)
    except RuleError as exc:
        return exc.reason
    return None


def undo_refusal(seat: int, now: State) -> str | None:
    """A seat's latest score stays open to undo until someone enters a later round (SP-6)."""
    entered = len(now.scores[seat])
    if any(len(column) > entered for column in now.scores):
        return (Text("Round {entered} can't be changed any more: another player has already entered a score for round {number}.", entered=entered, number=entered + 1))
    return None


def hints(state: State, seat: int, draft: Mapping) -> dict:
    """What the seat's sheet shows while it types a score (`draft["points"]`, maybe not valid).

    "legal": the complete entries this seat may make now: the score it typed (if the rules take
    it) and the finish between rounds. "total_after": the seat's total with the typed score;
    "refusal": why the typed score is refused.
    """
    seat = _check_seat(state, seat)
    column = state.scores[seat]
    out = {"round": len(column) + 1, "may_enter": seat in waiting_for(state), "points": None,
           "total_after": None, "refusal": None, "legal": []}
    if "points" in draft and draft["points"] is not None:
        entry = {"kind": "score", "points": draft["points"]}
        out["refusal"] = refusal(state, seat, entry)
        if out["refusal"] is None:
            out["points"] = draft["points"]
            out["total_after"] = sum(column) + draft["points"]
            out["legal"].append(entry)
    if refusal(state, seat, {"kind": "finish"}) is None:
        out["legal"].append({"kind": "finish"})
    return out


def view(state: State) -> dict:
    """Everything the pages draw. Nothing in Score pad is secret (SP-14): one view for everyone."""
    done = rounds_complete(state)
    game_over = finished(state)
    waiting = waiting_for(state)
    longest = max(len(column) for column in state.scores)
    players = [
        {
            "seat": seat,
            "scores": list(column),
            "total": sum(column),
            "entered": len(column),
            "waiting": seat in waiting,
            # plain round -> score fields, which the exports turn into columns
            "sheet": {f"round_{n}": points for n, points in enumerate(column, start=1)},
        }
        for seat, column in enumerate(state.scores)
    ]
    grid = [
        {"round": n, "complete": n <= done,
         "scores": [column[n - 1] if len(column) >= n else None for column in state.scores]}
        for n in range(1, longest + 1)
    ]
    return {
        "wins": state.wins,
        "rounds": state.rounds,
        "target": state.target,
        "rounds_complete": done,
        "round": None if game_over else done + 1,
        "rounds_left": None if state.rounds is None else max(state.rounds - done, 0),
        "players": players,
        "grid": grid,
        "totals": totals(state),
        "leaders": leaders(state),
        "waiting_for": waiting,
        "may_finish": not game_over and at_round_boundary(state),
        "finished": game_over,
        "ended_by": ended_by(state),
        "finished_by": state.finished_by,
        "winners": winners(state),
    }
