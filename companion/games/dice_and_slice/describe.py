"""Dice and Slice entries in words, for the table view's "last entry" line."""
from __future__ import annotations

from .rules import engine


def _points_and_bonuses(seat: int, before: engine.State, after: engine.State) -> str:
    """What a marking earned: points, a topping bonus, bonus dots to place."""
    parts = []
    gained = engine.breakdown(after, seat)["total"] - engine.breakdown(before, seat)["total"]
    if gained:
        parts.append(f"{gained:+d} points")
    for i in after.seats[seat].bonuses[len(before.seats[seat].bonuses):]:
        bonus = after.edition.bonuses[i]
        parts.append(f"the {' + '.join(bonus.toppings)} bonus")
    waiting = len(after.seats[seat].pending)
    if waiting > len(before.seats[seat].pending):
        parts.append(f"{waiting} bonus dot{'s' if waiting > 1 else ''} to place")
    return f", {' and '.join(parts)}" if parts else ""


def _place(name: str, seat: int, entry: dict, before: engine.State, after: engine.State) -> str:
    die = before.die_for(seat)
    return f"{name} placed die {die}'s {len(before.face_for(seat))}-dot pattern{_points_and_bonuses(seat, before, after)}."


def _bonus_dot(name: str, seat: int, entry: dict, before: engine.State, after: engine.State) -> str:
    used = before.seats[seat].crossed ^ after.seats[seat].crossed
    kinds = before.edition.toppings(before.side)
    topping = f" for the {kinds[next(iter(used))]}" if used else ""
    return f"{name} placed a bonus dot{topping}{_points_and_bonuses(seat, before, after)}."


def _roll(name: str, seat: int, entry: dict, before: engine.State, after: engine.State) -> str:
    a, b = after.faces
    return f"{name} rolled: die A shows face {a}, die B face {b}."


def _choose(name: str, seat: int, entry: dict, before: engine.State, after: engine.State) -> str:
    # the entry names the die: the state after it may already be past the round (a table where
    # nobody else places, or where the others have no legal placement, moves straight on)
    chosen = entry["die"]
    other = "B" if chosen == "A" else "A"
    return f"{name} chose die {chosen}; everyone else uses die {other}."


def _skip(name: str, seat: int, entry: dict, before: engine.State, after: engine.State) -> str:
    return f"{name} let the remaining bonus dots go."


def _pass(name: str, seat: int, entry: dict, before: engine.State, after: engine.State) -> str:
    return f"{name} had no room for die {before.die_for(seat)} and passed."


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
    columns: dict = {f"{size}-square slices": counts.get(size, 0) for size in engine.SCORABLE_SIZES}
    columns["slice points"] = score["slice_total"]
    columns["topping bonuses"] = "; ".join(f"{' + '.join(b['toppings'])} ({b['points']} points)"
                                           for b in score["topping_bonuses"])
    columns["bonus points"] = score["bonus_total"]
    return columns
