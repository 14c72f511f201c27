"""Dice and Slice turn flow, bonus dots, topping bonuses and scoring (rules DS-n in
rules.md). States are frozen values; `apply` returns a new one.

Phases: "roll" (active seat enters both dice) -> "choose" (active seat picks a die) ->
"place" (every seat places, then uses or declines bonus dots) -> next turn's "roll", or
"over" when the game has ended.

Seat status during "place": "to_place" | "bonus" (placed, bonus dots pending) | "done" |
"passed" (no legal placement: the engine passes for the seat as soon as the die is chosen).
"""
from __future__ import annotations

import json
import random
from functools import lru_cache
from typing import NamedTuple

from companion.platform.core.contract import Text, N_, plural_text, MalformedEntry, RuleError
from . import geometry as g
from .edition import DIE_NAMES, SIDE_NAMES, Edition, default_edition, default_edition_data, load_edition

# each kind of entry and its fields besides "kind" (Game.entry_fields)
ENTRY_FIELDS = {"roll": ("faces",), "choose": ("die",), "place": ("dots",), "bonus_dot": ("dot", "topping"),
                "skip_bonus": (), "pass": ()}
ENTRY_KINDS = tuple(ENTRY_FIELDS)
_OPTION_KEYS = {"edition", "side", "edition_from_default", "first", "first_draw"}
# "first": "random" is drawn once, when the table is created, as a number that every player count
# from 1 to 6 divides evenly: replays read the stored draw and never draw again
DRAW_RANGE = 60


# --- state -------------------------------------------------------------------------------------
# Immutable named tuples: cheap to build and to copy with one field changed (`_replace`).

class Seat(NamedTuple):
    dots: int = 0  # marked dots (bitmask)
    crossed: frozenset = frozenset()  # topping squares whose bonus dot was used
    counted: frozenset = frozenset()  # topping squares of a slice that scored a topping bonus
    pending: tuple = ()  # topping squares granting a bonus dot this turn, in grant order
    status: str = "waiting"
    bonuses: tuple = ()  # indexes of topping bonuses this seat scored


class BonusState(NamedTuple):
    scored_by: tuple = ()  # seats that scored it
    turn: int = 0  # turn in which it was scored
    closed: bool = False  # set at the end of the turn in which someone scored it


class State(NamedTuple):
    edition: Edition
    side: str
    players: int
    turn: int
    active: int
    phase: str
    faces: tuple | None  # (face number of die A, of die B)
    chosen: str | None
    seats: tuple
    bonuses: tuple

    def die_for(self, seat: int) -> str | None:
        if self.chosen is None:
            return None
        if seat == self.active:
            return self.chosen
        return "B" if self.chosen == "A" else "A"

    def face_for(self, seat: int) -> frozenset | None:
        die = self.die_for(seat)
        if die is None:
            return None
        return self.edition.face(die, self.faces[DIE_NAMES.index(die)])


# --- options -----------------------------------------------------------------------------------

def normalize_options(options) -> dict:
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise RuleError("Options must be an object.")
    unknown = set(options) - _OPTION_KEYS
    if unknown:
        raise RuleError("Unknown option(s) for Dice and Slice: {options}.", options=', '.join(sorted(map(str, unknown))))
    from_default = options.get("edition_from_default", False)
    if not isinstance(from_default, bool):
        raise RuleError('Option "edition_from_default" must be true or false.')
    edition = options.get("edition", "default")
    if edition == "default":
        # DS-2: the table keeps the edition it was created with, so the default edition's data is
        # copied in; a later edit of companion/games/dice_and_slice/rules/default_edition.json cannot change its replays.
        edition, from_default = default_edition_data(), True
    elif isinstance(edition, dict):
        edition = json.loads(json.dumps(_load(_key(edition)).data))  # a private copy
    else:
        raise RuleError('Option "edition" must be "default" or an edition object.')
    side = options.get("side", "A")
    if side not in SIDE_NAMES:
        raise RuleError('Option "side" must be "A" or "B" (the two sides of the sheet pad).')
    return {"edition": edition, "side": side, "edition_from_default": from_default, **_first_options(options)}


def _first_options(options: dict) -> dict:
    """DS-3: who starts. A seat index (0 = seat 1, also for tables from before the option), or
    "random" with its draw: made here when the table is created, kept with the table after."""
    first = options.get("first", 0)
    if first == "random":
        draw = options.get("first_draw")
        if draw is None:
            draw = random.SystemRandom().randrange(DRAW_RANGE)
        if not g_is_int(draw) or not 0 <= draw < DRAW_RANGE:
            raise RuleError('Option "first_draw" must be a whole number from 0 to {number}.', number=DRAW_RANGE - 1)
        return {"first": "random", "first_draw": draw}
    if "first_draw" in options:
        raise RuleError('Option "first_draw" only goes with "first": "random".')
    if not g_is_int(first) or not 0 <= first < 6:
        raise RuleError('Option "first" must be a seat (0 for seat 1, up to 5) or "random".')
    return {"first": first}


def first_seat(options: dict, player_count: int) -> int:
    """The seat that is the active player in turn 1 (DS-3), from normalised options."""
    if options.get("first") == "random":
        return options["first_draw"] % player_count
    if options.get("first", 0) >= player_count:
        raise RuleError("There is no seat {number} to start: this table has {player_count}.", number=options['first'] + 1, player_count=player_count)
    return options.get("first", 0)


def _key(data: dict) -> str:
    try:
        return json.dumps(data, sort_keys=True)
    except (TypeError, ValueError):
        raise RuleError("Edition problem: an edition must be plain JSON data.") from None


@lru_cache(maxsize=16)
def _load(key: str) -> Edition:
    """load_edition for a table's stored edition; replays rebuild the state often."""
    return load_edition(json.loads(key))


def _edition_of(options: dict) -> Edition:
    ed = options["edition"]
    # "default" is only found in the options of tables created before the edition was stored
    return default_edition() if ed == "default" else _load(_key(ed))


def new_state(player_count: int, options: dict) -> State:
    if not g_is_int(player_count) or not 1 <= player_count <= 6:
        raise RuleError("Dice and Slice is for 1 to 6 players.")
    opts = normalize_options(options)
    edition = _edition_of(opts)
    return State(
        edition=edition,
        side=opts["side"],
        players=player_count,
        turn=1,
        active=first_seat(opts, player_count),
        phase="roll",
        faces=None,
        chosen=None,
        seats=tuple(Seat() for _ in range(player_count)),
        bonuses=tuple(BonusState() for _ in edition.bonuses),
    )


def g_is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


# --- entry parsing -----------------------------------------------------------------------------

def _keys(entry: dict, allowed: set) -> None:
    extra = set(entry) - set(allowed) - {"kind"}
    if extra:
        raise RuleError("This entry has unexpected field(s): {fields}.", fields=', '.join(sorted(map(str, extra))))


def _coords(raw, what: str = "A dot") -> tuple[int, int]:
    if not (isinstance(raw, (list, tuple)) and len(raw) == 2 and all(g_is_int(c) for c in raw)):
        raise MalformedEntry("{what} must be given as [x, y] with whole numbers.", what=what)
    return raw[0], raw[1]


def _dot(raw, what: str = "A dot") -> tuple[int, int]:
    x, y = _coords(raw, what)
    if not g.on_lattice(x, y):
        raise RuleError("Dot ({x},{y}) is off the sheet: x goes 0 to 12 and y 0 to 9.", x=x, y=y)
    return x, y


def _pattern_dots(raw) -> list[tuple[int, int]]:
    """A placement's dots, each once; DS-5: every one of them on the sheet."""
    if not isinstance(raw, list) or not raw:
        raise MalformedEntry("List the dots of the whole pattern as you placed it, overlaps included.")
    dots = []
    for d in raw:
        dot = _coords(d)
        if dot in dots:
            raise RuleError("Dot ({dot},{dot2}) is listed twice.", dot=dot[0], dot2=dot[1])
        dots.append(dot)
    off = sum(1 for d in dots if not g.on_lattice(*d))
    if off:
        raise RuleError(plural_text(
            "Off the sheet: {off} dot of the pattern would land outside the pizza; slide it back so that every dot lands on a dot of the sheet.",
            "Off the sheet: {off} dots of the pattern would land outside the pizza; slide it back so that every dot lands on a dot of the sheet.",
            off, off=off))
    return dots


def _describe_face(face: frozenset) -> str:
    rows = []
    for y in range(3):
        rows.append("".join("o" if (x, y) in face else "." for x in range(3)))
    return "/".join(rows)


# --- turn mechanics ----------------------------------------------------------------------------

def _after_marking(state: State, seat: int, before: int, s: Seat) -> Seat:
    """Grant bonus dots and record topping bonuses for slices that this marking made."""
    new_slices = g.new_slices(before, s.dots)
    if not new_slices:
        return s
    tops = state.edition.toppings(state.side)
    pending = list(s.pending)
    counted, won = s.counted, list(s.bonuses)
    for sl in new_slices:
        here = sorted(sq for sq in sl if sq in tops)
        for sq in here:  # DS-11: each unused topping of a newly made slice grants a bonus dot
            if sq not in s.crossed and sq not in pending:
                pending.append(sq)
        if not here or any(sq in counted for sq in here):
            continue  # DS-12: toppings that already scored a bonus never score another
        kinds = tuple(sorted(tops[sq] for sq in here))
        for i, b in enumerate(state.edition.bonuses):
            if b.toppings == kinds and not state.bonuses[i].closed and i not in won:
                won.append(i)
                counted = counted | frozenset(here)
    return s._replace(pending=tuple(pending), counted=counted, bonuses=tuple(won))


def _settle(s: Seat) -> Seat:
    """A seat with nothing pending (or no free dot left for a bonus dot) is done."""
    if s.status == "bonus" and (not s.pending or s.dots == g.ALL_DOTS):
        return s._replace(status="done", pending=())
    return s


def _store(state: State, seat: int, before: Seat, s: Seat) -> State:
    seats = list(state.seats)
    seats[seat] = s
    bonuses = list(state.bonuses)
    for i in s.bonuses[len(before.bonuses):]:
        b = bonuses[i]
        bonuses[i] = b._replace(scored_by=b.scored_by + (seat,), turn=state.turn)
    state = state._replace(seats=tuple(seats), bonuses=tuple(bonuses))
    return _maybe_end_turn(state)


def _maybe_end_turn(state: State) -> State:
    if any(s.status not in ("done", "passed") for s in state.seats):
        return state
    bonuses = tuple(b._replace(closed=True) if b.scored_by and not b.closed else b for b in state.bonuses)
    seats = tuple(s._replace(status="waiting", pending=()) for s in state.seats)
    over = any(g.game_can_end(s.dots) for s in state.seats)
    return state._replace(
        bonuses=bonuses,
        seats=seats,
        phase="over" if over else "roll",
        turn=state.turn if over else state.turn + 1,
        active=state.active if over else (state.active + 1) % state.players,
        faces=None if not over else state.faces,
        chosen=None if not over else state.chosen,
    )


def _start_placing(state: State) -> State:
    seats = []
    for i, s in enumerate(state.seats):
        can = g.has_legal_placement(s.dots, state.face_for(i))
        seats.append(s._replace(status="to_place" if can else "passed", pending=()))
    return _maybe_end_turn(state._replace(phase="place", seats=tuple(seats)))


# --- apply -------------------------------------------------------------------------------------

def apply(state: State, seat: int, entry: dict) -> State:
    if not isinstance(entry, dict) or not isinstance(entry.get("kind"), str):
        raise MalformedEntry('An entry must be an object with a "kind".')
    kind = entry["kind"]
    if kind not in ENTRY_KINDS:
        raise RuleError("Unknown entry {kind!r}; Dice and Slice knows: {entry_kinds}.", kind=kind, entry_kinds=', '.join(ENTRY_KINDS))
    if not g_is_int(seat) or not 0 <= seat < state.players:
        raise RuleError("There is no seat {seat!r} at this table.", seat=seat)
    if state.phase == "over":
        raise RuleError("The game is over; no more entries.")
    return _HANDLERS[kind](state, seat, entry)


def _roll(state: State, seat: int, entry: dict) -> State:
    _keys(entry, ENTRY_FIELDS["roll"])
    if state.phase != "roll":
        raise RuleError("The dice have already been entered this turn.")
    if seat != state.active:
        raise RuleError("Only the active player, {active}, enters the roll.", rule="DS-3", seats={"active": state.active})
    faces = entry.get("faces")
    if not isinstance(faces, dict) or set(faces) != set(DIE_NAMES):
        raise MalformedEntry('Enter both dice: {"A": face, "B": face}.')
    for d in DIE_NAMES:
        if not g_is_int(faces[d]) or not 1 <= faces[d] <= 6:
            raise RuleError("Die {d} shows a face from 1 to 6.", d=d)
    return state._replace(phase="choose", faces=(faces["A"], faces["B"]))


def _choose(state: State, seat: int, entry: dict) -> State:
    _keys(entry, ENTRY_FIELDS["choose"])
    if state.phase != "choose":
        raise RuleError(N_("Enter the roll first.") if state.phase == "roll" else N_("A die has already been chosen this turn."))
    if seat != state.active:
        raise RuleError("Only the active player, {active}, chooses the die.", rule="DS-3", seats={"active": state.active})
    die = entry.get("die")
    if die not in DIE_NAMES:
        raise RuleError('Choose die "A" or die "B".')
    return _start_placing(state._replace(chosen=die))


def _placing_seat(state: State, seat: int) -> Seat:
    if state.phase != "place":
        raise RuleError("Nobody places dots until the active player has entered the roll and chosen a die.")
    s = state.seats[seat]
    if s.status == "bonus":
        raise RuleError("You have already placed your die this turn; place or decline your bonus dots.")
    if s.status in ("done", "passed"):
        raise RuleError("You are done for this turn; wait for the others.")
    return s


def _place(state: State, seat: int, entry: dict) -> State:
    _keys(entry, ENTRY_FIELDS["place"])
    s = _placing_seat(state, seat)
    dots = _pattern_dots(entry.get("dots"))
    die = state.die_for(seat)
    face = state.face_for(seat)
    if not g.matches_face(face, frozenset(dots)):
        raise RuleError(
            "Those dots are not die {die}'s pattern ({face}, {count} dot(s)), turned only in quarter turns (no mirror image).", rule="DS-5", die=die, face=_describe_face(face), count=len(face)
        )
    m = g.mask_of(dots)
    if not m & ~s.dots:
        raise RuleError("No new dot: every dot of the pattern is already marked; a placement must mark at least "
                        "one new dot.", rule="DS-6")
    ns = s._replace(dots=s.dots | m)
    ns = _settle(_after_marking(state, seat, s.dots, ns)._replace(status="bonus"))
    return _store(state, seat, s, ns)


def _bonus_seat(state: State, seat: int) -> Seat:
    if state.phase != "place":
        raise RuleError("Bonus dots are placed after your die, during the placing part of the turn.")
    s = state.seats[seat]
    if s.status != "bonus":
        if s.status == "to_place":
            raise RuleError("Place your die's pattern first.")
        raise RuleError("You have no bonus dots to place this turn.", rule="DS-11")
    return s


def _bonus_dot(state: State, seat: int, entry: dict) -> State:
    _keys(entry, ENTRY_FIELDS["bonus_dot"])
    s = _bonus_seat(state, seat)
    x, y = _dot(entry.get("dot"), Text("The bonus dot"))
    if s.dots & g.dot_bit(x, y):
        raise RuleError("Dot ({x},{y}) is already marked; a bonus dot goes on an empty dot.", rule="DS-11", x=x, y=y)
    if "topping" in entry:
        t = entry["topping"]
        ok = isinstance(t, (list, tuple)) and len(t) == 2 and all(g_is_int(c) for c in t)
        if not ok or not (0 <= t[0] < g.SQ_W and 0 <= t[1] < g.SQ_H):
            raise RuleError("Name the topping to cross off by its square [x, y] (x 0 to 11, y 0 to 8).")
        used = t[1] * g.SQ_W + t[0]
        if used not in s.pending:
            raise RuleError("Square ({t},{t2}) has no topping with a bonus dot waiting this turn.", t=t[0], t2=t[1])
    else:
        used = s.pending[0]
    pending = tuple(p for p in s.pending if p != used)
    ns = s._replace(dots=s.dots | g.dot_bit(x, y), crossed=s.crossed | {used}, pending=pending)
    ns = _settle(_after_marking(state, seat, s.dots, ns))
    return _store(state, seat, s, ns)


def _skip_bonus(state: State, seat: int, entry: dict) -> State:
    _keys(entry, ENTRY_FIELDS["skip_bonus"])
    s = _bonus_seat(state, seat)
    return _store(state, seat, s, s._replace(status="done", pending=()))


def _pass(state: State, seat: int, entry: dict) -> State:
    _keys(entry, ENTRY_FIELDS["pass"])
    s = _placing_seat(state, seat)
    options = g.legal_placements(s.dots, state.face_for(seat))
    if options:
        eg = options[0]["dots"]
        raise RuleError(
            "You can still place die {state} (for example on {list}), so you cannot pass.", state=state.die_for(seat), list=', '.join(f'({x},{y})' for x, y in eg)
        )
    return _store(state, seat, s, s._replace(status="passed"))


_HANDLERS = {
    "roll": _roll,
    "choose": _choose,
    "place": _place,
    "bonus_dot": _bonus_dot,
    "skip_bonus": _skip_bonus,
    "pass": _pass,
}


# --- scoring and queries -----------------------------------------------------------------------

def breakdown(state: State, seat: int) -> dict:
    s = state.seats[seat]
    ed = state.edition
    counts: dict[int, int] = {}
    for sl in g.analyse(s.dots).scorable:
        counts[len(sl)] = counts.get(len(sl), 0) + 1
    slices = [
        {"size": n, "count": c, "points_each": ed.points_for(n), "points": c * ed.points_for(n)}
        for n, c in sorted(counts.items())
    ]
    bonuses = [
        {"bonus": i, "toppings": list(ed.bonuses[i].toppings), "points": ed.bonuses[i].points}
        for i in s.bonuses
    ]
    slice_total = sum(x["points"] for x in slices)
    bonus_total = sum(x["points"] for x in bonuses)
    return {
        "slices": slices,
        "slice_total": slice_total,
        "topping_bonuses": bonuses,
        "bonus_total": bonus_total,
        "total": slice_total + bonus_total,
    }


# sizes a scorable slice can have: a 1 x 1 square, or a rectangle at least 2 wide both ways (a 1 x k
# strip with k >= 2 never scores), of at most MAX_SLICE squares
SCORABLE_SIZES = sorted({w * h for w in range(1, g.MAX_SLICE + 1) for h in range(1, g.MAX_SLICE + 1)
                         if w * h <= g.MAX_SLICE and (w == h == 1 or min(w, h) >= 2)})


def record(state: State, seat: int) -> dict:
    """A finished sheet for the player's record: how many slices of each size it scored."""
    counts = {row["size"]: row["count"] for row in breakdown(state, seat)["slices"]}
    return {Text("Slices per game, by size"): {str(n): counts.get(n, 0) for n in SCORABLE_SIZES}}


def totals(state: State) -> list[int]:
    return [breakdown(state, i)["total"] for i in range(state.players)]


def finished(state: State) -> bool:
    return state.phase == "over"


def winners(state: State) -> list[int]:
    if not finished(state):
        return []
    t = totals(state)
    best = max(t)
    return [i for i, v in enumerate(t) if v == best]


def waiting_for(state: State) -> list[int]:
    if state.phase in ("roll", "choose"):
        return [state.active]
    if state.phase == "place":
        return [i for i, s in enumerate(state.seats) if s.status in ("to_place", "bonus")]
    return []


def placements_for(state: State, seat: int) -> list[dict]:
    """legal_placements for a seat's die right now ([] unless the seat still has to place)."""
    if state.phase != "place" or not 0 <= seat < state.players or state.seats[seat].status != "to_place":
        return []
    return g.legal_placements(state.seats[seat].dots, state.face_for(seat))
