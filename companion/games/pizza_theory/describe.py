"""Pizza Theory entries in words, for the table view's "last entry" line. The platform asks only
about entries `secret` no longer hides, so a cut is told only once the round's cuts are revealed."""
from __future__ import annotations

from .rules.engine import NEUTRAL, State
from companion.platform.sdk import Text

from .rules.resolve import COLOUR_WORDS, COLOURS


def _place(name: str, seat: int, entry: dict, before: State, after: State) -> str:
    colour = COLOUR_WORDS[COLOURS[seat]]
    return Text("{name} added a {colour} topping: {count} {colour} on the pizza.", name=name, colour=colour,
                count=after.masks[seat].bit_count())


def _neutral(name: str, seat: int, entry: dict, before: State, after: State) -> str:
    line, space = after.neutral
    placed = (Text("placed a {colour} topping beside it", colour=COLOUR_WORDS[COLOURS[NEUTRAL]]) if space >= 0
              else Text("no neutral topping could go down"))
    return Text("{name} rolled line {line} for the neutral cutter; {placed}.", name=name, line=line, placed=placed)


def describe(seat: int, entry: dict, before: State, after: State, names: list[str]) -> str | None:
    kind = entry.get("kind")
    if kind == "cut":
        return _cut_words(names, seat, entry, before, after)
    words = {"place": _place, "neutral": _neutral}.get(kind)
    return words(names[seat], seat, entry, before, after) if words else None


def _cut_words(names: list[str], seat: int, entry: dict, before: State, after: State) -> str:
    last = after.last
    if last is None or last.round != before.round:  # an earlier cut of a round now revealed
        return Text("{name} cut along line {line}.", name=names[seat], line=entry["line"])
    cuts = [Text("{who} line {line}", who=Text("the neutral cutter") if who < 0 else names[who], line=line)
            for who, _colour, _corner, _family, line in last.cutters]
    said = cuts[0]
    for cut in cuts[1:]:
        said = Text("{said}, {cut}", said=said, cut=cut)
    return Text("{name} made the last cut of round {round}; the cuts: {cuts}.", name=names[seat], round=last.round,
                cuts=said)
