"""Pizza Theory entries in words, for the table view's "last entry" line. The platform asks only
about entries `secret` no longer hides, so a cut is told only once the round's cuts are revealed."""
from __future__ import annotations

from .rules.engine import NEUTRAL, State
from .rules.resolve import COLOURS


def _place(name: str, seat: int, entry: dict, before: State, after: State) -> str:
    colour = COLOURS[seat]
    return f"{name} added a {colour} topping: {after.masks[seat].bit_count()} {colour} on the pizza."


def _neutral(name: str, seat: int, entry: dict, before: State, after: State) -> str:
    line, space = after.neutral
    placed = (f"placed a {COLOURS[NEUTRAL]} topping beside it" if space >= 0
              else "no neutral topping could go down")
    return f"{name} rolled line {line} for the neutral cutter; {placed}."


def describe(seat: int, entry: dict, before: State, after: State, names: list[str]) -> str | None:
    kind = entry.get("kind")
    if kind == "cut":
        return _cut_words(names, seat, entry, before, after)
    words = {"place": _place, "neutral": _neutral}.get(kind)
    return words(names[seat], seat, entry, before, after) if words else None


def _cut_words(names: list[str], seat: int, entry: dict, before: State, after: State) -> str:
    last = after.last
    if last is None or last.round != before.round:  # an earlier cut of a round now revealed
        return f"{names[seat]} cut along line {entry['line']}."
    cuts = ", ".join(f"{'the neutral cutter' if who < 0 else names[who]} line {line}"
                     for who, _colour, _corner, _family, line in last.cutters)
    return f"{names[seat]} made the last cut of round {last.round}; the cuts: {cuts}."
