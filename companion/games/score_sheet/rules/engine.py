"""Score sheet: the end-of-game scoresheet of any board game, one column per player. Pure: no Flask,
no database. Rule numbers (SS-n) refer to rules.md."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Mapping

from companion.platform.core.contract import Text, MalformedEntry, RuleError

from .builtin import BUILTIN, DEFAULT_SHEET
from .sheet import MAX_PLAYERS, MIN_PLAYERS, Row, Sheet, load_sheet

ENTRY_FIELDS = {"fill": ("row", "value", "inputs"), "end": ()}
OPTIONS = ("sheet", "sheet_id")
IGNORED_ENTRY_KEYS = {"key"}


@dataclass(frozen=True)
class Fill:
    value: int | None                      # what was typed or counted (None for a formula row)
    inputs: tuple[tuple[str, int], ...]    # a formula row's inputs
    points: int


@dataclass(frozen=True)
class State:
    sheet: Sheet
    fills: tuple[tuple[Fill | None, ...], ...]  # per seat, per row
    ended_by: int | None = None                 # the seat that ended the game early


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _shown(value: Any) -> str:
    text = repr(value) if not _is_int(value) or abs(value) < 10**30 else Text("a huge number")
    return text if len(text) <= 24 else text[:21] + "..."


# --- options (SS-1) -------------------------------------------------------------------------------


def normalize_options(options: Mapping[str, Any] | None, find: Callable[[str], Any] | None = None) -> dict:
    """{"sheet": the sheet's data, "sheet_id": where it came from or None}. `sheet` may be the id of
    a built-in sheet, of a saved one (`find(id)` gives its data) or a sheet's data itself."""
    options = {} if options is None else options
    if not isinstance(options, Mapping):
        raise RuleError("Score sheet options are a set of named values: sheet.")
    for name in options:
        if name not in OPTIONS:
            raise RuleError("Score sheet has no option {name}; the option is: sheet.", name=_shown(name))
    chosen = options.get("sheet", DEFAULT_SHEET)
    sheet_id = options.get("sheet_id") if isinstance(options.get("sheet_id"), str) else None
    if isinstance(chosen, str):
        sheet_id, data = chosen, BUILTIN.get(chosen)
        if data is None and find is not None:
            data = find(chosen)
        if data is None:
            raise RuleError("There is no sheet {chosen}: choose one from the library.", rule="SS-1", chosen=_shown(chosen))
    else:
        data = chosen
    sheet = load_sheet(data)
    return {"sheet": sheet.data(), "sheet_id": sheet_id}


def new_state(player_count: int, options: Mapping[str, Any] | None = None) -> State:
    sheet = load_sheet(normalize_options(options)["sheet"])
    if not _is_int(player_count) or not sheet.min_players <= player_count <= sheet.max_players:
        raise RuleError("{name} is for {min_players} to {max_players} players; got {player_count}.", rule="SS-1", name=sheet.name, min_players=sheet.min_players, max_players=sheet.max_players, player_count=_shown(player_count))
    return State(sheet=sheet, fills=((None,) * len(sheet.rows),) * player_count)


# --- reading the state ----------------------------------------------------------------------------


def row_points(state: State, seat: int) -> dict[str, int]:
    """The points of each row this seat has filled (SS-9)."""
    return {row.id: fill.points for row, fill in zip(state.sheet.rows, state.fills[seat]) if fill is not None}


def totals(state: State) -> list[int]:
    """Each seat's total: the sum of its filled rows; an empty row counts 0 (SS-9)."""
    return [sum(fill.points for fill in column if fill is not None) for column in state.fills]


def _tie_points(state: State, seat: int) -> int:
    tie = state.sheet.tie_break
    return row_points(state, seat).get(tie, 0) if tie else 0


def _standing(state: State, seat: int) -> tuple[int, int]:
    """Bigger is better: the total, then the tie-breaker row's points, both in the sheet's direction."""
    sign = 1 if state.sheet.wins == "highest" else -1
    return sign * totals(state)[seat], sign * _tie_points(state, seat)


def ranks(state: State) -> list[int]:
    """1 for the best; seats level on total and tie-breaker share a rank (SS-11)."""
    standings = [_standing(state, seat) for seat in range(len(state.fills))]
    return [1 + sum(other > mine for other in standings) for mine in standings]


def all_filled(state: State) -> bool:
    return all(fill is not None for column in state.fills for fill in column)


def finished(state: State) -> bool:
    """Over once every row of every seat is filled, or someone ended it (SS-10)."""
    return state.ended_by is not None or all_filled(state)


def winners(state: State) -> list[int]:
    if not finished(state):
        return []
    return [seat for seat, rank in enumerate(ranks(state)) if rank == 1]


def waiting_for(state: State) -> list[int]:
    """The seats with an empty row (SS-8)."""
    if finished(state):
        return []
    return [seat for seat, column in enumerate(state.fills) if any(fill is None for fill in column)]


# --- entries -------------------------------------------------------------------------------------


def _check_fields(entry: Mapping, allowed: tuple[str, ...]) -> None:
    for name in entry:
        if name != "kind" and name not in allowed and name not in IGNORED_ENTRY_KEYS:
            raise MalformedEntry("A {entry} entry has no field {name}.", entry=entry['kind'], name=_shown(name))


def _between(row_label: str, value: Any, low: int, high: int) -> int:
    if value is None:
        raise MalformedEntry("Fill in {row_label}: a whole number from {low} to {high}.", row_label=row_label, low=low, high=high)
    if not _is_int(value):
        raise MalformedEntry("{row_label} takes a whole number from {low} to {high}; got {value}.", row_label=row_label, low=low, high=high, value=_shown(value))
    if not low <= value <= high:
        raise RuleError("{row_label} is between {low} and {high}.", rule="SS-4", row_label=row_label, low=low, high=high)
    return value


def _row_of(state: State, entry: Mapping) -> Row:
    row_id = entry.get("row")
    row = state.sheet.row(row_id) if isinstance(row_id, str) else None
    if row is None:
        ids = ", ".join(r.id for r in state.sheet.rows)
        raise MalformedEntry("{name} has no row {row_id}; its rows are: {ids}.", name=state.sheet.name, row_id=_shown(row_id), ids=ids)
    return row


def _formula_fill(row: Row, entry: Mapping) -> Fill:
    if "value" in entry:
        raise MalformedEntry('{label} is worked out from its inputs: send "inputs", not "value".', label=row.label)
    given = entry.get("inputs")
    if not isinstance(given, Mapping):
        raise MalformedEntry("{label} needs its inputs: {list}.", label=row.label, list=', '.join(n for n, _l, _h in row.inputs))
    unknown = [name for name in given if name not in {n for n, _l, _h in row.inputs}]
    if unknown:
        raise MalformedEntry("{label} has no input {unknown}.", label=row.label, unknown=_shown(unknown[0]))
    values = []
    for name, low, high in row.inputs:
        if name not in given:
            raise MalformedEntry("{label} needs a value for {name}.", label=row.label, name=name)
        values.append((name, _between(f"{row.label}'s {name}", given[name], low, high)))
    return Fill(None, tuple(values), row.points(inputs=dict(values)))


def _value_fill(row: Row, entry: Mapping) -> Fill:
    if "inputs" in entry:
        raise MalformedEntry('{label} takes one "value", not "inputs".', label=row.label)
    if "value" not in entry:
        raise MalformedEntry("Fill {label} with a value.", label=row.label)
    value = _between(row.label, entry["value"], row.low, row.high)
    return Fill(value, (), row.points(value))


def _fill(state: State, seat: int, entry: Mapping) -> State:
    _check_fields(entry, ENTRY_FIELDS["fill"])
    row = _row_of(state, entry)
    fill = _formula_fill(row, entry) if row.kind == "formula" else _value_fill(row, entry)
    index = state.sheet.rows.index(row)
    column = state.fills[seat][:index] + (fill,) + state.fills[seat][index + 1:]
    return replace(state, fills=state.fills[:seat] + (column,) + state.fills[seat + 1:])


def _end(state: State, seat: int, entry: Mapping) -> State:
    _check_fields(entry, ENTRY_FIELDS["end"])
    if not any(fill is not None for column in state.fills for fill in column):
        raise RuleError("Fill at least one row before ending the game.", rule="SS-10")
    return replace(state, ended_by=seat)


ENTRIES = {"fill": _fill, "end": _end}


def apply(state: State, seat: int, entry: Any) -> State:
    if not _is_int(seat) or not 0 <= seat < len(state.fills):
        raise RuleError("There is no seat {seat} at this table.", seat=_shown(seat))
    if finished(state):
        raise RuleError("The game is over.", rule="SS-10")
    if not isinstance(entry, Mapping):
        raise MalformedEntry("An entry must be a set of named fields.")
    kind = entry.get("kind")
    if not isinstance(kind, str) or kind not in ENTRIES:
        raise RuleError("Score sheet takes 'fill' and 'end' entries; got {kind}.", kind=_shown(kind))
    return ENTRIES[kind](state, seat, entry)


def refusal(state: State, seat: int, entry: dict) -> str | None:
    try:
        apply(state, seat, entry)
    except RuleError as exc:
        return exc.reason
    return None
