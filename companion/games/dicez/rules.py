"""DiceZ: five dice, thirteen boxes, a Yahtzee relative.

The dice are real: every player enters their own result, so each seat fills its own sheet.
With the `turn_order` option (DZ-20) the seats take their turns in seat order and an entry out of
turn is refused; without it (free play, DZ-14) anyone may enter at any time.
Rule numbers (DZ-n) refer to rules.md.

Options at two moments: `normalize_options` completes what a client asks for a new table (turn
order on unless switched off); `new_state` reads options as a table stored them, and a table stored
before turn order existed has no `turn_order` key: it keeps playing free, so its log replays as it
was written.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from operator import attrgetter
from typing import Any, NamedTuple

from companion.platform.core.contract import Text, MalformedEntry, RuleError

UPPER = ("ones", "twos", "threes", "fours", "fives", "sixes")
LOWER = (
    "three_of_a_kind",
    "four_of_a_kind",
    "full_house",
    "small_straight",
    "large_straight",
    "dicez",
    "chance",
)
BOXES = UPPER + LOWER
BOX_INDEX = {box: at for at, box in enumerate(BOXES)}

BOX_LABELS = {
    "ones": Text("Ones"),
    "twos": Text("Twos"),
    "threes": Text("Threes"),
    "fours": Text("Fours"),
    "fives": Text("Fives"),
    "sixes": Text("Sixes"),
    "three_of_a_kind": Text("3 of a Kind"),
    "four_of_a_kind": Text("4 of a Kind"),
    "full_house": Text("Full House"),
    "small_straight": Text("Small Straight"),
    "large_straight": Text("Large Straight"),
    "dicez": Text("DiceZ"),
    "chance": Text("Chance"),
}

FULL_HOUSE_SCORE = 25
SMALL_STRAIGHT_SCORE = 30
LARGE_STRAIGHT_SCORE = 40
DICEZ_SCORE = 50
UPPER_BONUS = 35
UPPER_BONUS_THRESHOLD = 63
EXTRA_DICEZ_BONUS = 100
DICE_PER_ROLL = 5
MAX_ROLLS_PER_TURN = 3
MIN_PLAYERS, MAX_PLAYERS = 1, 10

FACE_OF = {box: face for face, box in enumerate(UPPER, start=1)}

BOX_MAX = {
    **{box: face * DICE_PER_ROLL for box, face in FACE_OF.items()},
    "three_of_a_kind": 6 * DICE_PER_ROLL,
    "four_of_a_kind": 6 * DICE_PER_ROLL,
    "full_house": FULL_HOUSE_SCORE,
    "small_straight": SMALL_STRAIGHT_SCORE,
    "large_straight": LARGE_STRAIGHT_SCORE,
    "dicez": DICEZ_SCORE,
    "chance": 6 * DICE_PER_ROLL,
}

SMALL_STRAIGHTS = ({1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6})
LARGE_STRAIGHTS = ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6})

OPTIONS = ("five_of_a_kind_full_house", "extra_dicez_bonus", "joker", "roll_by_roll", "turn_order")
# what a new table gets for an option it does not name (the house rules are off)
NEW_TABLE_DEFAULTS = {name: False for name in OPTIONS} | {"turn_order": True}

# the fields of each kind of entry besides its "kind" (Game.entry_fields)
ENTRY_FIELDS = {"score": ("dice", "category"), "roll": ("dice", "held")}

# Entries may carry the platform's idempotency "key"; it means nothing to the rules.
IGNORED_ENTRY_KEYS = {"key"}
ALLOWED_FIELDS = {kind: frozenset({"kind", *fields}) for kind, fields in ENTRY_FIELDS.items()}


@dataclass(frozen=True)
class Sheet:
    """One player's scoresheet. `scores` follows BOXES; None marks an open box."""

    scores: tuple[int | None, ...] = (None,) * len(BOXES)
    extra_bonus: int = 0
    # This turn's rolls, only recorded with the roll_by_roll option.
    rolls: tuple[tuple[int, ...], ...] = ()
    # boxes filled: asked many times of each sheet (whose turn, is the game over); a sheet never changes
    filled: int = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "filled", len(self.scores) - self.scores.count(None))

    def by_box(self) -> dict[str, int | None]:
        return dict(zip(BOXES, self.scores))

    @property
    def upper_total(self) -> int:
        return sum(score or 0 for score in self.scores[: len(UPPER)])

    @property
    def lower_total(self) -> int:
        return sum(score or 0 for score in self.scores[len(UPPER) :])

    @property
    def upper_bonus(self) -> int:
        return UPPER_BONUS if self.upper_total >= UPPER_BONUS_THRESHOLD else 0

    @property
    def total(self) -> int:
        return self.upper_total + self.lower_total + self.upper_bonus + self.extra_bonus


_FILLED = attrgetter("filled")  # boxes filled on a sheet


@dataclass(frozen=True)
class State:
    # (name, enabled) pairs in OPTIONS order: a dict would not be immutable.
    options: tuple[tuple[str, bool], ...]
    sheets: tuple[Sheet, ...]
    # the boxes filled on the emptiest sheet: whose turn it is and whether the game is over, which
    # every entry asks several times
    fewest_filled: int = field(init=False, repr=False, compare=False)
    # the options by name, read several times an entry (roll-by-roll? joker? turn order?)
    switches: dict[str, bool] = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "fewest_filled", min(map(_FILLED, self.sheets), default=len(BOXES)))
        object.__setattr__(self, "switches", dict(self.options))

    def option(self, name: str) -> bool:
        return self.switches[name]


# --- validation ---------------------------------------------------------------


def normalize_options(options: Mapping[str, Any] | None) -> dict[str, bool]:
    """A new table's options, complete: every option not named takes NEW_TABLE_DEFAULTS."""
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise RuleError("DiceZ options must be a set of named on/off switches.")
    for name, value in options.items():
        if name not in OPTIONS:
            raise RuleError("DiceZ has no option {name!r}; the options are: {options}.", name=name, options=', '.join(OPTIONS))
        if not isinstance(value, bool):
            raise RuleError("Option {name!r} must be true or false; got {value!r}.", name=name, value=value)
    return {name: options.get(name, NEW_TABLE_DEFAULTS[name]) for name in OPTIONS}


def _stored_options(options: Mapping[str, Any] | None) -> dict[str, bool]:
    """Options as a table stored them. One stored before turn order existed lacks the key: free play."""
    if isinstance(options, Mapping) and "turn_order" not in options:
        options = {**options, "turn_order": False}
    return normalize_options(options)


def _is_int(value: Any) -> bool:
    # JSON true/false arrive as bool, which Python counts as int; they are not numbers here.
    return isinstance(value, int) and not isinstance(value, bool)


def _check_dice(dice: Any) -> tuple[int, ...]:
    if not isinstance(dice, (list, tuple)):
        raise MalformedEntry("Enter the dice as a list of 5 numbers.")
    if len(dice) != DICE_PER_ROLL:
        raise MalformedEntry("Enter exactly 5 dice; got {count}.", count=len(dice))
    for die in dice:
        if not _is_int(die):
            raise MalformedEntry("A die shows a whole number from 1 to 6; got {die!r}.", die=die)
        if not 1 <= die <= 6:
            raise RuleError("A die shows 1 to 6; got {die}.", die=die)
    return tuple(dice)


def _check_box(box: Any) -> str:
    if not isinstance(box, str) or box not in BOX_LABELS:
        raise MalformedEntry("There is no box {box!r}; choose one of: {boxes}.", box=box, boxes=', '.join(BOXES))
    return box


def _check_seat(state: State, seat: Any) -> int:
    if not _is_int(seat) or not 0 <= seat < len(state.sheets):
        raise RuleError("There is no seat {seat!r} at this table.", seat=seat)
    return seat


def _check_held(held: Any) -> tuple[int, ...]:
    if not isinstance(held, (list, tuple)):
        raise MalformedEntry("List the held dice by position, 0 to 4.")
    for index in held:
        if not _is_int(index) or not 0 <= index < DICE_PER_ROLL:
            raise MalformedEntry("A held die is named by its position 0 to 4; got {index!r}.", index=index)
    if len(set(held)) != len(held):
        raise RuleError("Each held die can be listed only once.")
    return tuple(held)


def _check_fields(entry: Mapping, allowed: set[str]) -> None:
    for name in entry:
        if name not in allowed and name not in IGNORED_ENTRY_KEYS:
            raise MalformedEntry("A {entry} entry has no field {name!r}.", entry=entry['kind'], name=name)


def _show(dice: tuple[int, ...]) -> str:
    return " ".join(str(die) for die in dice)


# --- scoring ------------------------------------------------------------------


def _is_five_of_a_kind(dice: tuple[int, ...]) -> bool:
    return len(set(dice)) == 1


def _joker_scores_apply(dice: tuple[int, ...], sheet: Mapping[str, int | None]) -> bool:
    """Under the joker rule, five of a kind fills Full House/straights at full value
    once both the DiceZ box and the matching upper box are taken (DZ-17)."""
    return (
        _is_five_of_a_kind(dice)
        and sheet.get("dicez") is not None
        and sheet.get(UPPER[dice[0] - 1]) is not None
    )


def _joker_choices(dice: tuple[int, ...], sheet: Mapping[str, int | None]) -> set[str] | None:
    """The boxes the forced joker order allows, or None when it puts no limit (DZ-17)."""
    if not _is_five_of_a_kind(dice) or sheet.get("dicez") is None:
        return None
    matching_upper = UPPER[dice[0] - 1]
    if sheet.get(matching_upper) is None:
        return {matching_upper}
    open_lower = {box for box in LOWER if sheet.get(box) is None}
    if open_lower:
        return open_lower
    return {box for box in UPPER if sheet.get(box) is None}


class _Roll(NamedTuple):
    """The dice and the facts about them that the scoring rules look at."""

    dice: tuple[int, ...]
    counts: dict[int, int]  # face -> how many dice show it (faces shown only)
    most_alike: int
    faces: set[int]

    @classmethod
    def of(cls, dice: tuple[int, ...]) -> _Roll:
        faces = set(dice)
        counts = dict(zip(faces, map(dice.count, faces)))
        return cls(dice, counts, max(counts.values()), faces)


# Each scorer takes (roll, options, joker); `joker` says the joker rule lets five of a kind
# count as a Full House or straight.

def _upper(face: int):
    def score(roll: _Roll, options: dict, joker: bool) -> int:
        return face * roll.counts.get(face, 0)

    return score


def _of_a_kind(needed: int):
    def score(roll: _Roll, options: dict, joker: bool) -> int:
        return sum(roll.dice) if roll.most_alike >= needed else 0

    return score


def _full_house(roll: _Roll, options: dict, joker: bool) -> int:
    real_full_house = sorted(roll.counts.values()) == [2, 3]
    five_counts = roll.most_alike == 5 and (options["five_of_a_kind_full_house"] or joker)
    return FULL_HOUSE_SCORE if real_full_house or five_counts else 0


def _small_straight(roll: _Roll, options: dict, joker: bool) -> int:
    straight = any(run <= roll.faces for run in SMALL_STRAIGHTS)
    return SMALL_STRAIGHT_SCORE if straight or joker else 0


def _large_straight(roll: _Roll, options: dict, joker: bool) -> int:
    return LARGE_STRAIGHT_SCORE if roll.faces in LARGE_STRAIGHTS or joker else 0


def _dicez(roll: _Roll, options: dict, joker: bool) -> int:
    return DICEZ_SCORE if roll.most_alike == 5 else 0


def _chance(roll: _Roll, options: dict, joker: bool) -> int:
    return sum(roll.dice)


_SCORERS = {
    **{box: _upper(face) for box, face in FACE_OF.items()},
    "three_of_a_kind": _of_a_kind(3),
    "four_of_a_kind": _of_a_kind(4),
    "full_house": _full_house,
    "small_straight": _small_straight,
    "large_straight": _large_straight,
    "dicez": _dicez,
    "chance": _chance,
}


def score_box(
    dice: Any,
    box: str,
    options: Mapping[str, Any] | None = None,
    sheet: Mapping[str, int | None] | None = None,
) -> int:
    """What `box` would score for `dice`. `sheet` (box -> score or None) lets the joker
    rule apply. This does not say whether the box may be chosen: see `preview`."""
    return _points(_check_dice(dice), _check_box(box), normalize_options(options), sheet)


def _points(dice: tuple[int, ...], box: str, options: Mapping[str, bool],
            sheet: Mapping[str, int | None] | None) -> int:
    """score_box for dice, box and options already checked."""
    return _SCORERS[box](_Roll.of(dice), options, _joker_on(dice, options, sheet))


def _joker_on(dice: tuple[int, ...], options: Mapping[str, bool], sheet: Mapping[str, int | None] | None) -> bool:
    return bool(options["joker"] and sheet is not None and _joker_scores_apply(dice, sheet))


def preview(state: State, seat: int, dice: Any) -> dict[str, int]:
    """Score of every open box this seat may choose for `dice`, in BOXES order."""
    sheet = state.sheets[_check_seat(state, seat)].by_box()
    dice = _check_dice(dice)
    options = state.switches
    allowed = _joker_choices(dice, sheet) if options["joker"] else None
    roll, joker = _Roll.of(dice), _joker_on(dice, options, sheet)  # the same for every box
    return {
        box: _SCORERS[box](roll, options, joker)
        for box in BOXES
        if sheet[box] is None and (allowed is None or box in allowed)
    }


def hints(state: State, seat: int, draft: Mapping) -> dict:
    """What the seat's sheet previews for the dice it has tapped so far (`draft["dice"]`).

    "boxes": the score every open box would take; "legal": the entries it could make now
    (with roll-by-roll, the roll itself while fewer than three are recorded).
    """
    sheet = state.sheets[_check_seat(state, seat)]
    dice = draft.get("dice")
    if dice is None and state.option("roll_by_roll") and sheet.rolls:
        dice = list(sheet.rolls[-1])
    if dice is None or finished(state) or sheet.filled == len(BOXES):
        return {"dice": None, "boxes": {}, "legal": []}
    try:
        boxes = preview(state, seat, dice)
    except RuleError as exc:
        return {"dice": None, "boxes": {}, "legal": [], "refusal": exc.reason}
    candidates = [{"kind": "score", "category": box, "dice": list(dice)} for box in boxes]
    if state.option("roll_by_roll"):
        candidates.append({"kind": "roll", "dice": list(dice), "held": list(draft.get("held", []))})
    legal = [entry for entry in candidates if _refusal(state, seat, entry) is None]
    return {"dice": list(dice), "boxes": boxes, "legal": legal}


def _refusal(state: State, seat: int, entry: dict) -> str | None:
    try:
        apply(state, seat, entry)
    except RuleError as exc:
        return exc.reason
    return None


# --- entries ------------------------------------------------------------------


def new_state(player_count: int, options: Mapping[str, Any] | None = None) -> State:
    """The state before the first entry, for options as the table stored them (see the module doc)."""
    if not _is_int(player_count) or not MIN_PLAYERS <= player_count <= MAX_PLAYERS:
        raise RuleError("DiceZ is for {min_players} to {max_players} players; got {player_count!r}.", min_players=MIN_PLAYERS, max_players=MAX_PLAYERS, player_count=player_count)
    return State(
        options=tuple(_stored_options(options).items()),
        sheets=(Sheet(),) * player_count,
    )


def apply(state: State, seat: int, entry: Any) -> State:
    seat = _check_seat(state, seat)
    if finished(state):
        raise RuleError("The game is over.", rule="DZ-14")
    sheet = state.sheets[seat]
    if sheet.filled == len(BOXES):
        raise RuleError("Your sheet is full; wait for the others to finish.", rule="DZ-14")
    if not isinstance(entry, Mapping):
        raise MalformedEntry("An entry must be a set of named fields.")
    try:
        new_sheet = _entered_sheet(state, sheet, entry)
    except MalformedEntry:
        raise  # an entry of the wrong shape is told so, whoever's turn it is
    except RuleError:
        _check_turn(state, seat)  # out of turn, the turn is the reason that matters
        raise
    _check_turn(state, seat)
    return State(state.options, state.sheets[:seat] + (new_sheet,) + state.sheets[seat + 1 :])


def _entered_sheet(state: State, sheet: Sheet, entry: Mapping) -> Sheet:
    kind = entry.get("kind")
    if kind == "score":
        return _score(state, sheet, entry)
    if kind == "roll":
        return _roll(state, sheet, entry)
    raise RuleError("DiceZ takes 'score' and 'roll' entries; got {kind!r}.", kind=kind)


def _check_turn(state: State, seat: int) -> None:
    playing = turn(state)
    if playing is not None and playing != seat:
        raise RuleError("It is {turn}'s turn: turns go in seat order, so wait for {turn}.", rule="DZ-20",
                        seats={"turn": playing})


def _roll(state: State, sheet: Sheet, entry: Mapping) -> Sheet:
    if not state.option("roll_by_roll"):
        raise RuleError("This table enters only the final dice of each turn; roll-by-roll is off.", rule="DZ-18")
    _check_fields(entry, ALLOWED_FIELDS["roll"])
    dice = _check_dice(entry.get("dice"))
    held = _check_held(entry.get("held", []))
    if not sheet.rolls:
        if held:
            raise RuleError("The first roll of a turn holds no dice.", rule="DZ-18")
    elif len(sheet.rolls) >= MAX_ROLLS_PER_TURN:
        raise RuleError("You have rolled 3 times this turn; now fill a box.", rule="DZ-18")
    else:
        previous = sheet.rolls[-1]
        for index in held:
            if dice[index] != previous[index]:
                raise RuleError(
                    "Die {number} was held at {index} but now shows {index2}; a held die keeps its value.", number=index + 1, index=previous[index], index2=dice[index]
                )
    return replace(sheet, rolls=sheet.rolls + (dice,))


def _score(state: State, sheet: Sheet, entry: Mapping) -> Sheet:
    _check_fields(entry, ALLOWED_FIELDS["score"])
    box = _check_box(entry.get("category"))
    if state.option("roll_by_roll"):
        if not sheet.rolls:
            raise RuleError("Enter your roll before scoring it.", rule="DZ-18")
        last_roll = sheet.rolls[-1]
        dice = _check_dice(entry["dice"]) if "dice" in entry else last_roll
        if dice != last_roll:
            raise RuleError("The scored dice must be your last roll: {last_roll}.", rule="DZ-18", last_roll=_show(last_roll))
    else:
        dice = _check_dice(entry.get("dice"))

    at = BOX_INDEX[box]
    if sheet.scores[at] is not None:
        raise RuleError("{box} is already filled.", rule="DZ-3", box=BOX_LABELS[box])
    options = state.switches
    # the sheet by box, for the rules that look at the other boxes (the joker, the extra DiceZ bonus)
    scores = sheet.by_box() if options["joker"] or options["extra_dicez_bonus"] else None
    if options["joker"]:
        _check_joker_order(dice, box, scores)

    extra_bonus = sheet.extra_bonus
    if options["extra_dicez_bonus"] and _is_five_of_a_kind(dice) and scores["dicez"] == DICEZ_SCORE:
        extra_bonus += EXTRA_DICEZ_BONUS
    points = _points(dice, box, options, scores)
    new_scores = sheet.scores[:at] + (points,) + sheet.scores[at + 1 :]
    return Sheet(scores=new_scores, extra_bonus=extra_bonus, rolls=())


def _check_joker_order(dice: tuple[int, ...], box: str, scores: Mapping[str, int | None]) -> None:
    allowed = _joker_choices(dice, scores)
    if allowed is None or box in allowed:
        return
    matching_upper = UPPER[dice[0] - 1]
    if matching_upper in allowed:
        raise RuleError(
            "Joker rule: five {dice}s must go in {box} while it is open.", rule="DZ-17", dice=dice[0], box=BOX_LABELS[matching_upper]
        )
    raise RuleError("Joker rule: five {dice}s must go in an open lower box while there is one.", rule="DZ-17", dice=dice[0])


# --- reading the state ----------------------------------------------------------


def sheet_of(state: State, seat: int) -> Sheet:
    """One seat's sheet (the coach weighs what-ifs on it)."""
    return state.sheets[_check_seat(state, seat)]


def solo(options: Mapping[str, Any] | None, sheet: Sheet) -> State:
    """A one-seat table of these options holding `sheet` with no roll recorded (the coach's what-ifs)."""
    return State(options=tuple(normalize_options(options).items()), sheets=(replace(sheet, rolls=()),))


def finished(state: State) -> bool:
    return state.fewest_filled == len(BOXES)


def totals(state: State) -> list[int]:
    return [sheet.total for sheet in state.sheets]


def winners(state: State) -> list[int]:
    if not finished(state):
        return []
    scores = totals(state)
    best = max(scores)
    return [seat for seat, score in enumerate(scores) if score == best]


def turn(state: State) -> int | None:
    """The seat whose turn it is with turn order (DZ-20): the first in seat order of those with
    the fewest boxes filled. None in free play and once the game is over."""
    if not state.option("turn_order") or finished(state):
        return None
    return list(map(_FILLED, state.sheets)).index(state.fewest_filled)


def waiting_for(state: State) -> list[int]:
    """With turn order, the seat whose turn it is (DZ-20); in free play the seats still behind in
    the round, those with the fewest boxes filled (DZ-14)."""
    if finished(state):
        return []
    playing = turn(state)
    if playing is not None:
        return [playing]
    fewest = state.fewest_filled
    return [seat for seat, sheet in enumerate(state.sheets) if sheet.filled == fewest]


def view(state: State, viewer: int | None = None) -> dict:
    # Nothing is secret in DiceZ: every viewer sees the whole table.
    return {
        "players": [
            {
                "seat": seat,
                "sheet": {
                    **sheet.by_box(),
                    "upper_bonus": sheet.upper_bonus,
                    "extra_bonus": sheet.extra_bonus,
                },
                "upper_total": sheet.upper_total,
                "lower_total": sheet.lower_total,
                "total": sheet.total,
                "filled": sheet.filled,
                "rolls": [list(roll) for roll in sheet.rolls],
            }
            for seat, sheet in enumerate(state.sheets)
        ],
        "options": dict(state.options),
        "turn": turn(state),
        "finished": finished(state),
    }


def record(state: State, seat: int) -> dict:
    """A finished sheet for the player's record: each box's score, and whether the upper bonus came."""
    sheet = state.sheets[seat]
    return {
        Text("Box averages"): {BOX_LABELS[box]: score or 0 for box, score in sheet.by_box().items()},
        Text("Upper bonus rate (%)"): {Text("Upper bonus"): 100 if sheet.upper_bonus else 0},
    }
