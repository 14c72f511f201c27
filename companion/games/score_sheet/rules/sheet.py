"""A sheet as data (SS-2..SS-7): checked once into frozen rows, each able to turn what a player
fills in into points. Every refusal names the row (by its label) and what is wrong with it."""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Mapping

from companion.platform.core.contract import Text, RuleError

from .formula import FUNCTIONS, MAX_COMBINATIONS, Formula, checked_formula

MIN_PLAYERS, MAX_PLAYERS = 1, 12
MAX_ROWS = 30
MAX_INPUTS = 6
MAX_POINTS = 100_000   # a points row's bounds and a table's points
MAX_COUNT = 1000       # a count or table row counts up to this
MAX_INPUT = 1000       # a formula input's bounds
MAX_SHEET_COMBINATIONS = 5000  # the input combinations of all of a sheet's formulas, checked on saving
WINS = ("highest", "lowest")
KINDS = ("points", "count", "table", "formula", "check")
SHEET_FIELDS = ("name", "players", "wins", "tie_break", "rows", "source")
ROW_FIELDS = {"points": ("min", "max"), "count": ("points_each", "max"), "table": ("table", "max"),
              "formula": ("inputs", "expression"), "check": ("points",)}
ROW_ID = re.compile(r"[a-z][a-z0-9_]{0,23}")
INPUT_NAME = re.compile(r"[a-z][a-z0-9_]{0,15}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _refuse(why: str) -> RuleError:
    return RuleError(why, rule="SS-2")


@dataclass(frozen=True)
class Row:
    id: str
    label: str
    kind: str
    low: int = 0                # the smallest value (points row) or count (0)
    high: int = 1               # the largest value, count, or 1 for a check
    points_each: int = 0        # count: points per thing; check: points for yes
    table: tuple[int, ...] = ()
    inputs: tuple[tuple[str, int, int], ...] = ()
    expression: str = ""

    @property
    def formula(self) -> Formula:
        return checked_formula(self.label, self.expression, self.inputs)

    def points(self, value: int | None = None, inputs: Mapping[str, int] | None = None) -> int:
        """The row's points for a value (or a formula's inputs) already within range."""
        if self.kind == "points":
            return value
        if self.kind == "count":
            return value * self.points_each
        if self.kind == "table":
            return self.table[min(value, len(self.table) - 1)]
        if self.kind == "check":
            return self.points_each if value else 0
        return self.formula.points(dict(inputs))

    def spec(self) -> dict:
        """The row as a sheet's data writes it (SS-16)."""
        extra = {"points": {"min": self.low, "max": self.high},
                 "count": {"points_each": self.points_each, "max": self.high},
                 "table": {"table": list(self.table), "max": self.high},
                 "formula": {"inputs": [{"name": n, "min": lo, "max": hi} for n, lo, hi in self.inputs],
                             "expression": self.expression},
                 "check": {"points": self.points_each}}[self.kind]
        return {"id": self.id, "label": self.label, "kind": self.kind, **extra}


@dataclass(frozen=True)
class Sheet:
    name: str
    min_players: int
    max_players: int
    wins: str
    tie_break: str | None
    rows: tuple[Row, ...]
    source: str = ""

    def row(self, row_id: str) -> Row | None:
        return next((row for row in self.rows if row.id == row_id), None)

    def data(self) -> dict:
        data = {"name": self.name, "players": [self.min_players, self.max_players], "wins": self.wins,
                "tie_break": self.tie_break, "rows": [row.spec() for row in self.rows]}
        return {**data, "source": self.source} if self.source else data


# --- checking a sheet's data ------------------------------------------------------------------


def _text(value: Any, what: str, longest: int) -> str:
    if not isinstance(value, str) or not " ".join(value.split()):
        raise _refuse(Text("{what} is missing: write 1 to {longest} characters.", what=what, longest=longest))
    text = " ".join(value.split())
    if len(text) > longest or not text.isprintable():
        raise _refuse(Text("{what} must be 1 to {longest} printable characters.", what=what, longest=longest))
    return text


def _whole(value: Any, what: str, low: int, high: int) -> int:
    if not _is_int(value) or not low <= value <= high:
        raise _refuse(Text("{what} must be a whole number from {low} to {high}.", what=what, low=low, high=high))
    return value


def _fields(data: Mapping, allowed: tuple[str, ...], what: str) -> None:
    for name in data:
        if name not in allowed:
            raise _refuse(Text("{what} has no field {name!r}; it has: {allowed}.", what=what, name=str(name)[:30], allowed=', '.join(allowed)))


def _inputs(raw: Any, label: str) -> tuple[tuple[str, int, int], ...]:
    if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_INPUTS:
        raise _refuse(Text("{label} needs 1 to {max_inputs} inputs, each with a name, a min and a max.", label=label, max_inputs=MAX_INPUTS))
    inputs = []
    for item in raw:
        if not isinstance(item, Mapping):
            raise _refuse(Text("Each input of {label} has a name, a min and a max.", label=label))
        _fields(item, ("name", "min", "max"), Text("An input of {label}", label=label))
        name = item.get("name")
        if not isinstance(name, str) or not INPUT_NAME.fullmatch(name) or name in FUNCTIONS:
            raise _refuse(Text("An input of {label} is named {name!r}: use a short lowercase word (letters, digits, _), not min, max or abs.", label=label, name=str(name)[:30]))
        low = _whole(item.get("min"), Text("The min of {label}'s input {name}", label=label, name=name), -MAX_INPUT, MAX_INPUT)
        high = _whole(item.get("max"), Text("The max of {label}'s input {name}", label=label, name=name), low, MAX_INPUT)
        inputs.append((name, low, high))
    if len({name for name, _l, _h in inputs}) != len(inputs):
        raise _refuse(Text("Two inputs of {label} have the same name.", label=label))
    return tuple(inputs)


def _row_parts(kind: str, raw: Mapping, label: str) -> dict:
    if kind == "points":
        low = _whole(raw.get("min"), Text("The min of {label}", label=label), -MAX_POINTS, MAX_POINTS)
        return {"low": low, "high": _whole(raw.get("max"), Text("The max of {label}", label=label), low, MAX_POINTS)}
    if kind == "count":
        return {"points_each": _whole(raw.get("points_each"), Text("The points each of {label}", label=label), -1000, 1000),
                "high": _whole(raw.get("max"), Text("The max of {label}", label=label), 1, MAX_COUNT)}
    if kind == "table":
        table = raw.get("table")
        if not isinstance(table, list) or not 1 <= len(table) <= MAX_COUNT + 1:
            raise _refuse(Text("{label} needs its table: the points for 0, 1, 2, ... (the last for every count beyond).", label=label))
        points = tuple(_whole(p, Text("Each point in {label}'s table", label=label), -MAX_POINTS, MAX_POINTS) for p in table)
        return {"table": points, "high": _whole(raw.get("max"), Text("The max of {label}", label=label), 1, MAX_COUNT)}
    if kind == "check":
        return {"points_each": _whole(raw.get("points"), Text("The points of {label}", label=label), -MAX_POINTS, MAX_POINTS)}
    return {"inputs": _inputs(raw.get("inputs"), label), "expression": raw.get("expression")}


def _combinations(inputs: tuple[tuple[str, int, int], ...]) -> int:
    return math.prod(high - low + 1 for _name, low, high in inputs)


def _row(raw: Any, number: int, budget: list[int]) -> Row:
    if not isinstance(raw, Mapping):
        raise _refuse(Text("Row {number} must have an id, a label and a kind.", number=number))
    label = _text(raw.get("label"), Text("The label of row {number}", number=number), 40)
    kind = raw.get("kind")
    if not isinstance(kind, str) or kind not in KINDS:
        raise _refuse(Text("{label} has no kind {kind!r}: a row is one of {kinds}.", label=label, kind=str(kind)[:20], kinds=', '.join(KINDS)))
    _fields(raw, ("id", "label", "kind", *ROW_FIELDS[kind]), f"{label} (a {kind} row)")
    row_id = raw.get("id")
    if not isinstance(row_id, str) or not ROW_ID.fullmatch(row_id):
        raise _refuse(Text("The id of {label} must be a short lowercase word (letters, digits, _).", label=label))
    row = Row(id=row_id, label=label, kind=kind, **_row_parts(kind, raw, label))
    if kind == "formula":
        budget[0] -= _combinations(row.inputs)
        if budget[0] < 0 and _combinations(row.inputs) <= MAX_COMBINATIONS:
            raise RuleError("The formulas of a sheet together may have at most {max_sheet_combinations} combinations of inputs to check; {label} goes beyond that.", rule="SS-6", max_sheet_combinations=MAX_SHEET_COMBINATIONS, label=label)
        row.formula  # noqa: B018 - checked over every combination of its inputs (SS-6)
    return row


def _rows(raw: Any) -> tuple[Row, ...]:
    if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_ROWS:
        raise _refuse(Text("A sheet has 1 to {max_rows} rows.", max_rows=MAX_ROWS))
    budget = [MAX_SHEET_COMBINATIONS]  # what the formulas' checks may cost, all together
    rows = tuple(_row(item, n, budget) for n, item in enumerate(raw, start=1))
    ids = [row.id for row in rows]
    twice = next((i for i in ids if ids.count(i) > 1), None)
    if twice:
        raise _refuse(Text("Two rows have the id {twice!r}; each row needs its own.", twice=twice))
    return rows


def _players(raw: Any) -> tuple[int, int]:
    if not isinstance(raw, list) or len(raw) != 2:
        raise _refuse(Text("The players are [fewest, most], from {min_players} to {max_players}.", min_players=MIN_PLAYERS, max_players=MAX_PLAYERS))
    low = _whole(raw[0], Text("The fewest players"), MIN_PLAYERS, MAX_PLAYERS)
    return low, _whole(raw[1], Text("The most players"), low, MAX_PLAYERS)


def sheet_from_data(data: Any) -> Sheet:
    """The sheet these data describe, or RuleError naming what is wrong (SS-2)."""
    if not isinstance(data, Mapping):
        raise _refuse(Text("A sheet is a set of named fields: name, players, wins, tie_break and rows."))
    _fields(data, SHEET_FIELDS, "A sheet")
    name = _text(data.get("name"), Text("The sheet's name"), 60)
    low, high = _players(data.get("players"))
    wins = data.get("wins", "highest")
    if wins not in WINS:
        raise _refuse(Text('Who wins is "highest" or "lowest" (the total).'))
    rows = _rows(data.get("rows"))
    tie_break = data.get("tie_break")
    if tie_break is not None and not any(row.id == tie_break for row in rows):
        raise _refuse(Text("The tie-breaker must be one of the sheet's row ids, not {tie_break!r}.", tie_break=str(tie_break)[:30]))
    source = data.get("source", "")
    source = _text(source, Text("The source"), 400) if source else ""
    return Sheet(name, low, high, wins, tie_break, rows, source)


def canonical(data: Any) -> str:
    try:
        return json.dumps(data, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError):
        raise _refuse(Text("A sheet must be plain JSON data.")) from None


@lru_cache(maxsize=128)
def _cached(key: str) -> Sheet:
    return sheet_from_data(json.loads(key))


def load_sheet(data: Any) -> Sheet:
    """sheet_from_data, kept for sheets seen before (a table's sheet is replayed often)."""
    return _cached(canonical(data))
