"""Dice and Slice entries in words, for the table view's "last entry" line."""
from __future__ import annotations

from companion.platform.sdk import Text, plural_text

from .rules import engine


def _points_and_bonuses(seat: int, before: engine.State, after: engine.State) -> Text | str:
    """What a marking earned: points, a topping bonus, bonus dots to place."""
    parts = []
    gained = engine.breakdown(after, seat)["total"] - engine.breakdown(before, seat)["total"]
    if gained:
        parts.append(Text("{points:+d} points", points=gained))
    for i in after.seats[seat].bonuses[len(before.seats[seat].bonuses):]:
        bonus = after.edition.bonuses[i]
        parts.append(Text("the {toppings} bonus", toppings=" + ".join(bonus.toppings)))
    waiting = len(after.seats[seat].pending)
    if waiting > len(before.seats[seat].pending):
        parts.append(plural_text("{count} bonus dot to place", "{count} bonus dots to place", waiting, count=waiting))
    if not parts:
        return ""
    said = parts[0]
    for part in parts[1:]:
        said = Text("{said} and {part}", said=said, part=part)
    return Text(", {said}", said=said)


def _place(name: str, seat: int, entry: dict, before: engine.State, after: engine.State) -> str:
    return Text("{name} placed die {die}'s {dots}-dot pattern{earned}.", name=name, die=before.die_for(seat),
                dots=len(before.face_for(seat)), earned=_points_and_bonuses(seat, before, after))


def _bonus_dot(name: str, seat: int, entry: dict, before: engine.State, after: engine.State) -> str:
    used = before.seats[seat].crossed ^ after.seats[seat].crossed
    kinds = before.edition.toppings(before.side)
    earned = _points_and_bonuses(seat, before, after)
    if used:
        return Text("{name} placed a bonus dot for the {topping}{earned}.", name=name,
                    topping=kinds[next(iter(used))], earned=earned)
    return Text("{name} placed a bonus dot{earned}.", name=name, earned=earned)


def _roll(name: str, seat: int, entry: dict, before: engine.State, after: engine.State) -> str:
    a, b = after.faces
    return Text("{name} rolled: die A shows face {a}, die B face {b}.", name=name, a=a, b=b)


def _choose(name: str, seat: int, entry: dict, before: engine.State, after: engine.State) -> str:
    # the entry names the die: the state after it may already be past the round (a table where
    # nobody else places, or where the others have no legal placement, moves straight on)
    chosen = entry["die"]
    other = "B" if chosen == "A" else "A"
    return Text("{name} chose die {chosen}; everyone else uses die {other}.", name=name, chosen=chosen, other=other)


def _skip(name: str, seat: int, entry: dict, before: engine.State, after: engine.State) -> str:
    return Text("{name} let the remaining bonus dots go.", name=name)


def _pass(name: str, seat: int, entry: dict, before: engine.State, after: engine.State) -> str:
    return Text("{name} had no room for die {die} and passed.", name=name, die=before.die_for(seat))


_WORDS = {"roll": _roll, "choose": _choose, "place": _place, "bonus_dot": _bonus_dot, "skip_bonus": _skip,
          "pass": _pass}


def describe(seat: int, entry: dict, before: engine.State, after: engine.State, names: list[str]) -> str | None:
    words = _WORDS.get(entry.get("kind"))
    return words(names[seat], seat, entry, before, after) if words else None


def export_columns(states: list[engine.State], seat: int) -> dict:
    """The seat's row in the CSV export, as its final sheet holds it: how many slices of each size
    that can score, their points, the topping bonuses made and their points."""
    score = engine.breakdown(states[-1], seat)
    counts = {row["size"]: row["count"] for row in score["slices"]}
    columns: dict = {Text("{size}-square slices", size=size): counts.get(size, 0) for size in engine.SCORABLE_SIZES}
    columns[Text("slice points")] = score["slice_total"]
    columns[Text("topping bonuses")] = "; ".join(f"{' + '.join(b['toppings'])} ({b['points']} points)"
                                                 for b in score["topping_bonuses"])
    columns[Text("bonus points")] = score["bonus_total"]
    return columns
