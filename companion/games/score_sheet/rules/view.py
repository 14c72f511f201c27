"""What the pages draw (SS-12) and the previews while a player fills a row (hints)."""
from __future__ import annotations

from typing import Mapping

from .engine import State, all_filled, apply, finished, ranks, refusal, row_points, totals, waiting_for, winners
from .sheet import Row
from companion.platform.core.contract import Text


def row_range(row: Row) -> str:
    """The row's allowed values in words, for the input's hint."""
    if row.kind == "check":
        return Text("yes or no, {points} for yes", points=row.points_each)
    if row.kind == "formula":
        said = ""
        for name, low, high in row.inputs:
            part = Text("{name} {low} to {high}", name=name, low=low, high=high)
            said = Text("{said}, {part}", said=said, part=part) if said else part
        return said
    return Text("{low} to {high}", low=row.low, high=row.high)


def _row_view(row: Row) -> dict:
    return {**row.spec(), "range": row_range(row)}


def _shown(row: Row, fill) -> str:
    """What was filled in, in words: "2/2/1" for a formula's inputs, "yes" for a check."""
    if fill is None:
        return ""
    if row.kind == "formula":
        return "/".join(str(value) for _name, value in fill.inputs)
    if row.kind == "check":
        return "yes" if fill.value else "no"
    return str(fill.value)


def _player(state: State, seat: int, rank: int, waiting: list[int]) -> dict:
    rows, column = state.sheet.rows, state.fills[seat]
    return {
        "seat": seat,
        "rows": row_points(state, seat),
        "filled": {row.id: _shown(row, fill) for row, fill in zip(rows, column) if fill is not None},
        "inputs": {row.id: dict(fill.inputs) for row, fill in zip(rows, column) if fill is not None and fill.inputs},
        "empty": [row.id for row, fill in zip(rows, column) if fill is None],
        "total": totals(state)[seat],
        "rank": rank,
        "waiting": seat in waiting,
        # plain row -> points fields, which the exports turn into columns (an empty row is 0, SS-10)
        "sheet": {row.id: (fill.points if fill is not None else 0) for row, fill in zip(rows, column)},
    }


def view(state: State) -> dict:
    """Nothing on a score sheet is secret (SS-12): one view for every viewer."""
    waiting = waiting_for(state)
    seat_ranks = ranks(state)
    over = finished(state)
    return {
        "sheet": {**state.sheet.data(), "rows": [_row_view(row) for row in state.sheet.rows]},
        "players": [_player(state, seat, rank, waiting) for seat, rank in enumerate(seat_ranks)],
        "totals": totals(state),
        "ranks": seat_ranks,
        "waiting_for": waiting,
        "finished": over,
        "ended_by": state.ended_by,
        "empty_count_zero": over and not all_filled(state),
        "winners": winners(state),
    }


def _draft_entry(state: State, draft: Mapping) -> dict | None:
    row = state.sheet.row(draft.get("row")) if isinstance(draft.get("row"), str) else None
    if row is None:
        return None
    if row.kind == "formula":
        return {"kind": "fill", "row": row.id, "inputs": dict(draft.get("inputs") or {})}
    return {"kind": "fill", "row": row.id, "value": draft.get("value")}


def hints(state: State, seat: int, draft: Mapping) -> dict:
    """The row being filled: its points and the total after it, or the rules' refusal. "legal": the
    drafted fill when the rules take it, and ending the game when the draft asks for it."""
    out = {"row": None, "points": None, "total_after": None, "refusal": None, "legal": []}
    entry = _draft_entry(state, draft)
    if entry is not None:
        out["row"] = entry["row"]
        out["refusal"] = refusal(state, seat, entry)
        if out["refusal"] is None:
            after = apply(state, seat, entry)
            out["points"] = row_points(after, seat)[entry["row"]]
            out["total_after"] = totals(after)[seat]
            out["legal"].append(entry)
    if draft.get("end") and refusal(state, seat, {"kind": "end"}) is None:
        out["legal"].append({"kind": "end"})
    return out
