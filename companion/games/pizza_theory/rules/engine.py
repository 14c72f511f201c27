"""Pizza Theory state machine: setup, adding toppings, secret cuts, resolution, rotation, end.

The state is a frozen dataclass; the position is three colour bitmasks over the board's spaces.
Rule ids (PT-n) refer to rules.md.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from companion.platform.core.contract import Text, N_, MalformedEntry, RuleError, SeatText
from .board import Board, load_board
from .resolve import COLOUR_WORDS, COLOURS, TOPPINGS, Outcome, resolve_masks

BOARD: Board = load_board()
NEUTRAL = 2  # colour index of the neutral colour in the two-player game (green)
ADD, NEUTRAL_ROLL, CUT, OVER = "add", "neutral", "cut", "over"
OPTION_KEYS = ("x_spaces", "first_seat")
# the fields of each kind of entry besides its "kind" (Game.entry_fields)
ENTRY_FIELDS = {"place": ("space",), "cut": ("line",), "neutral": ("line", "space")}


@dataclass(frozen=True)
class Resolution:
    round: int
    first: int  # the seat that was 1st in this round
    ks: tuple[int, int, int]  # chosen line per family (k values)
    cut_id: int
    # (seat or -1 for the neutral cutter, colour, corner index, family, line number as announced)
    cutters: tuple[tuple[int, int, int, int, int], ...]
    before: tuple[int, int, int]  # colour masks before resolution
    outcome: Outcome


@dataclass(frozen=True)
class State:
    players: int
    first_seat: int
    x_spaces: tuple[tuple[int, int], ...]  # per corner (1st, 2nd, 3rd): space indices
    masks: tuple[int, int, int]  # per colour: occupied spaces
    supply: tuple[int, int, int]
    round: int = 1
    phase: str = ADD
    order: tuple[int, ...] = ()  # seats in turn order this round
    turn: int = 0  # index into order while adding
    cuts: tuple = ()  # per seat: pending line number or None
    neutral: tuple | None = None  # 2 players: (line, space index or -1) once rolled
    notes: tuple[str, ...] = ()  # automatic skips this round, for display
    last: Resolution | None = None
    winners: tuple[int, ...] = ()
    both_lose: bool = False


# ---------------------------------------------------------------- options and setup

def _space_index(value, what: str = "space") -> int:
    if (not isinstance(value, (list, tuple)) or len(value) != 3
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise MalformedEntry("The {what} must be three whole numbers [x, y, z].", what=what)
    i = BOARD.index.get(tuple(value))
    if i is None:
        raise RuleError("{value} is not a space on the pizza.", value=list(value))
    return i


def normalize_options(options) -> dict:
    """PT-3: {"first_seat": 0, "x_spaces": None or three pairs of spaces (corners 1st, 2nd, 3rd)}."""
    options = {} if options is None else options
    if not isinstance(options, dict):
        raise RuleError("Options must be an object.")
    unknown = sorted(set(options) - set(OPTION_KEYS))
    if unknown:
        raise RuleError("Unknown option(s) for Pizza Theory: {options}.", options=', '.join(map(str, unknown)))
    first = options.get("first_seat", 0)
    if not isinstance(first, int) or isinstance(first, bool) or not 0 <= first <= 2:
        raise RuleError("first_seat must be a seat number 0, 1 or 2.")
    xs = options.get("x_spaces")
    if xs is not None:
        if not isinstance(xs, (list, tuple)) or len(xs) != 3:
            raise RuleError("x_spaces must list three pairs of start spaces (for the 1st, 2nd and 3rd corners).")
        seen = set()
        norm = []
        for pair in xs:
            if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                raise RuleError("Each x_spaces entry must be a pair of spaces.")
            p = []
            for s in pair:
                i = _space_index(s, Text("start space"))
                if i in seen:
                    raise RuleError("Start space {s} is listed twice.", s=list(s))
                seen.add(i)
                p.append(list(BOARD.spaces[i]))
            norm.append(p)
        xs = norm
    return {"first_seat": first, "x_spaces": xs}


def corner_of(state: State, colour: int) -> int:
    """Index (0 = 1st, 1 = 2nd, 2 = 3rd) of the board corner facing this colour's player this round."""
    if state.players == 2:
        return colour  # PT-14: the board does not turn; neutral sits at the 3rd corner
    return (colour - state.first_seat - (state.round - 1)) % 3  # PT-13


def _order(players: int, first_seat: int, rnd: int) -> tuple[int, ...]:
    if players == 2:
        first = (first_seat + rnd - 1) % 2
        return (first, 1 - first)
    return tuple((first_seat + rnd - 1 + label) % 3 for label in range(3))


def new_state(player_count: int, options: dict | None = None) -> State:
    opts = normalize_options(options or {})
    if player_count not in (2, 3):
        raise RuleError("Pizza Theory is for 2 or 3 players.")
    first = opts["first_seat"]
    if first >= player_count:
        raise RuleError("There is no seat {number} at a table of {player_count} (first_seat counts from 0).", number=first + 1, player_count=player_count)
    if opts["x_spaces"] is None:
        xs = tuple(c.x_spaces for c in BOARD.corners)
    else:
        xs = tuple(tuple(BOARD.index[tuple(s)] for s in pair) for pair in opts["x_spaces"])
    st = State(players=player_count, first_seat=first, x_spaces=xs, masks=(0, 0, 0), supply=(0, 0, 0))
    masks = [0, 0, 0]
    for colour in range(3):  # PT-3: every colour, the neutral one included, starts on its X spaces
        for i in xs[corner_of(st, colour)]:
            masks[colour] |= 1 << i
    st = replace(st, masks=tuple(masks), supply=(TOPPINGS - 2,) * 3)
    return _start_round(st, 1)


# ---------------------------------------------------------------- adding toppings

def _legal_mask(masks, colour: int) -> int:
    occupied = masks[0] | masks[1] | masks[2]
    near = 0
    m = masks[colour]
    nm = BOARD.neighbour_mask
    while m:
        low = m & -m
        near |= nm[low.bit_length() - 1]
        m ^= low
    return BOARD.full_mask & ~occupied & ~near


def legal_spaces(state: State, colour: int) -> list[tuple[int, int, int]]:
    """PT-5: empty spaces not touching any topping of `colour`."""
    return BOARD.spaces_of(_legal_mask(state.masks, colour))


def _start_round(st: State, rnd: int) -> State:
    st = replace(st, round=rnd, phase=ADD, order=_order(st.players, st.first_seat, rnd), turn=0,
                 cuts=(None,) * st.players, neutral=None, notes=())
    return _advance(st)


def _advance(st: State) -> State:
    """PT-6: skip, with a note, every player in turn who has no supply or no legal space."""
    turn, notes = st.turn, list(st.notes)
    while turn < len(st.order):
        seat = st.order[turn]
        if st.supply[seat] == 0:
            notes.append(SeatText("{player} ({colour}) has no topping left in supply and skips adding.",
                                  {"player": seat}, colour=COLOUR_WORDS[COLOURS[seat]]))
        elif not _legal_mask(st.masks, seat):
            notes.append(SeatText("{player} ({colour}) has no legal space and skips adding.",
                                  {"player": seat}, colour=COLOUR_WORDS[COLOURS[seat]]))
        else:
            break
        turn += 1
    phase = st.phase
    if turn == len(st.order):
        phase = NEUTRAL_ROLL if st.players == 2 else CUT
    return replace(st, turn=turn, notes=tuple(notes), phase=phase)


def _place(st: State, seat: int, entry: dict) -> State:
    _keys(entry, ("kind", *ENTRY_FIELDS["place"]))
    if st.phase != ADD:
        raise RuleError("Toppings are added at the start of a round; now is the {st}.", st=_phase_name(st))
    if st.order[st.turn] != seat:
        raise RuleError("It is {colour}'s turn to add a topping.", rule="PT-6", colour=COLOUR_WORDS[COLOURS[st.order[st.turn]]])
    i = _space_index(entry.get("space"))
    bit = 1 << i
    for c in range(3):
        if st.masks[c] & bit:
            raise RuleError("That space already holds a {colour} topping.", rule="PT-5", colour=COLOUR_WORDS[COLOURS[c]])
    if BOARD.neighbour_mask[i] & st.masks[seat]:
        raise RuleError("That space touches one of your own toppings; pick a space away from them.", rule="PT-5")
    masks = list(st.masks)
    masks[seat] |= bit
    supply = list(st.supply)
    supply[seat] -= 1
    return _advance(replace(st, masks=tuple(masks), supply=tuple(supply), turn=st.turn + 1))


# ---------------------------------------------------------------- neutral roll (two players)

def _line(entry: dict) -> int:
    n = entry.get("line")
    if not isinstance(n, int) or isinstance(n, bool):
        raise MalformedEntry("The line must be a whole number from 1 to 6.")
    if not 1 <= n <= 6:
        raise RuleError("There is no line {n}; lines are numbered 1 to 6.", rule="PT-4", n=n)
    return n


def neutral_spaces(state: State, line: int) -> list[tuple[int, int, int]]:
    """PT-15: empty spaces touching the neutral cutter on `line` (numbered from the 3rd corner)."""
    return BOARD.spaces_of(_neutral_mask(state.masks, line))


def _neutral_mask(masks, line: int) -> int:
    c = BOARD.corners[2]
    return BOARD.touch_mask[c.family][c.numbering[line - 1]] & ~(masks[0] | masks[1] | masks[2])


def neutral_line(line: int) -> tuple[int, int]:
    """PT-15: (family, k) of neutral line `line`, numbered from the 3rd corner."""
    c = BOARD.corners[2]
    return c.family, c.numbering[line - 1]


def neutral_blocked(state: State, line: int) -> str | None:
    """PT-15: why no neutral topping can go down beside `line`, or None if one must."""
    if state.supply[NEUTRAL] == 0:
        return Text("the neutral supply is empty")
    if not _neutral_mask(state.masks, line):
        return Text("no empty space touches line {line}", line=line)
    return None


def _neutral(st: State, seat: int, entry: dict) -> State:
    _keys(entry, ("kind", *ENTRY_FIELDS["neutral"]))
    if st.players != 2:
        raise RuleError("Only the two-player game has a neutral colour.")
    if st.phase != NEUTRAL_ROLL:
        raise RuleError("The neutral roll comes after adding toppings and before cutting; now is the {st}.", st=_phase_name(st))
    if seat != st.order[0]:
        raise RuleError("The first player this round ({colour}) rolls for the neutral colour.", rule="PT-15", colour=COLOUR_WORDS[COLOURS[st.order[0]]])
    line = _line(entry)
    room = _neutral_mask(st.masks, line)
    space = entry.get("space")
    notes = list(st.notes)
    masks, supply = list(st.masks), list(st.supply)
    blocked = neutral_blocked(st, line)
    if blocked:
        if space is not None:
            raise RuleError("No neutral topping can be placed: {blocked}.", blocked=blocked)
        notes.append(Text("No neutral topping placed: {blocked}.", blocked=blocked))
        idx = -1
    else:
        if space is None:
            raise RuleError("Place a neutral topping on an empty space touching line {line}.", rule="PT-15", line=line)
        idx = _space_index(space)
        if not room >> idx & 1:
            if (masks[0] | masks[1] | masks[2]) >> idx & 1:
                raise RuleError("That space is not empty.")
            raise RuleError("That space does not touch neutral line {line}.", rule="PT-15", line=line)
        masks[NEUTRAL] |= 1 << idx
        supply[NEUTRAL] -= 1
    return replace(st, masks=tuple(masks), supply=tuple(supply), neutral=(line, idx), notes=tuple(notes),
                   phase=CUT)


# ---------------------------------------------------------------- cuts, resolution, rotation

def _cut(st: State, seat: int, entry: dict) -> State:
    _keys(entry, ("kind", *ENTRY_FIELDS["cut"]))
    if st.phase != CUT:
        raise RuleError("Cuts are chosen once the toppings are added; now is the {st}.", rule="PT-7", st=_phase_name(st))
    line = _line(entry)
    cuts = list(st.cuts)
    cuts[seat] = line  # PT-7: a pending choice may be changed until the last seat chooses
    st = replace(st, cuts=tuple(cuts))
    if None in cuts:
        return st
    return _resolve_round(st)


def _resolve_round(st: State) -> State:
    ks = [0, 0, 0]
    cutters = []
    for seat in range(st.players):
        ci = corner_of(st, seat)
        c = BOARD.corners[ci]
        ks[c.family] = c.numbering[st.cuts[seat] - 1]
        cutters.append((seat, seat, ci, c.family, st.cuts[seat]))
    if st.players == 2:
        c = BOARD.corners[2]
        ks[c.family] = c.numbering[st.neutral[0] - 1]
        cutters.append((-1, NEUTRAL, 2, c.family, st.neutral[0]))
    ks = tuple(ks)
    cut_id = BOARD.cut_id(ks)
    out = resolve_masks(BOARD.cut_slices[cut_id], *st.masks)
    supply = tuple(TOPPINGS - m.bit_count() for m in out.masks)
    res = Resolution(st.round, st.order[0], ks, cut_id, tuple(cutters), st.masks, out)
    st = replace(st, masks=out.masks, supply=supply, last=res)
    # PT-16 / PT-17: the end is checked at the end of the round from the would-be counts
    wb = out.would_be
    done = [c for c in range(st.players) if wb[c] >= TOPPINGS]
    if done:
        best = max(wb[c] for c in done)
        return replace(st, phase=OVER, winners=tuple(c for c in done if wb[c] == best))
    if st.players == 2 and wb[NEUTRAL] >= TOPPINGS:
        return replace(st, phase=OVER, both_lose=True)
    return _start_round(st, st.round + 1)  # PT-13 / PT-14: turn the board / pass the first player


def outcomes(state: State, position: str = "last") -> dict[tuple[int, int, int], Outcome]:
    """PT-18: the resolution of every one of the 216 cuts, keyed by (k_x, k_y, k_z).

    position "last": the position the last round was resolved from (the current one before any
    resolution); "current": the position on the board now.
    """
    if position not in ("last", "current"):
        raise RuleError('position must be "last" or "current".')
    masks = state.last.before if position == "last" and state.last else state.masks
    m0, m1, m2 = masks
    slices = BOARD.cut_slices
    result = {}
    i = 0
    for k0 in BOARD.lines[0]:
        for k1 in BOARD.lines[1]:
            for k2 in BOARD.lines[2]:
                result[(k0, k1, k2)] = resolve_masks(slices[i], m0, m1, m2)
                i += 1
    return result


def what_if(res: Resolution) -> list[dict]:
    """After a reveal, per seat: how many toppings of its colour would be on the pizza after the
    round for each of its six lines, the other cuts (the neutral one too) as they were."""
    out = []
    for who, colour, ci, family, line in res.cutters:
        if who < 0:
            continue
        by_line = {}
        for n, k in enumerate(BOARD.corners[ci].numbering, 1):
            ks = list(res.ks)
            ks[family] = k
            outcome = resolve_masks(BOARD.cut_slices[BOARD.cut_id(tuple(ks))], *res.before, detail=False)
            by_line[str(n)] = outcome.masks[colour].bit_count()
        best = max(by_line.values())
        out.append({"seat": who, "line_chosen": line, "by_line": by_line,
                    "best_lines": [int(n) for n, v in by_line.items() if v == best], "best_on_board": best})
    return out


# ---------------------------------------------------------------- contract

_HANDLERS = {"place": _place, "cut": _cut, "neutral": _neutral}


def _keys(entry: dict, allowed) -> None:
    extra = sorted(set(entry) - set(allowed), key=str)
    if extra:
        raise RuleError("Unexpected field(s) in a {entry} entry: {fields}.", entry=entry['kind'], fields=', '.join(map(str, extra)))


def _phase_name(st: State) -> str:
    return Text({ADD: N_("adding of toppings"), NEUTRAL_ROLL: N_("neutral roll"), CUT: N_("cutting"),
                 OVER: N_("end of the game")}[st.phase])


def apply(state: State, seat: int, entry: dict) -> State:
    if not isinstance(entry, dict):
        raise MalformedEntry("An entry must be an object with a kind.")
    kind = entry.get("kind")
    handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
    if handler is None:
        raise RuleError("Unknown entry kind {kind!r}; use place, cut or neutral.", kind=kind)
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < state.players:
        raise RuleError("You are not seated in this game.")
    if state.phase == OVER:
        raise RuleError("The game is over.")
    return handler(state, seat, entry)


def record(state: State, seat: int) -> dict:
    """For the player's record: did the seat win, by its place in the first round's turn order."""
    label = ("1st", "2nd", "3rd")[_order(state.players, state.first_seat, 1).index(seat)]
    return {Text("Wins by start position (%)"): {label: 100 if seat in state.winners else 0}}


def finished(state: State) -> bool:
    return state.phase == OVER


def winners(state: State) -> list[int]:
    return list(state.winners)


def totals(state: State) -> list[int]:
    return [state.masks[s].bit_count() for s in range(state.players)]


def waiting_for(state: State) -> list[int]:
    if state.phase == ADD:
        return [state.order[state.turn]]
    if state.phase == NEUTRAL_ROLL:
        return [state.order[0]]
    if state.phase == CUT:
        return [s for s in range(state.players) if state.cuts[s] is None]
    return []


def undo_refusal(entry_seat, entry, state_before, state_now) -> str | None:
    """A cut cannot be taken back once the cuts are revealed: everybody has seen them."""
    if isinstance(entry, dict) and entry.get("kind") == "cut" and not (
            state_now.phase == CUT and state_now.round == state_before.round):
        return Text("The cuts have been revealed; a cut can no longer be taken back.")
    return None


def secret(entry_seat, entry, state_before, state_now, viewer) -> bool:
    """PT-8: a cut stays hidden from everyone but its author until the round's cuts are revealed."""
    if not isinstance(entry, dict) or entry.get("kind") != "cut" or viewer == entry_seat:
        return False
    return state_now.phase == CUT and state_now.round == state_before.round
