"""What the coach tells a player, from a solved table (`solver.Table`) and the rules.

Every box's score and the sheet it leaves come from `rules.preview` and `rules.apply`; the table
adds the expected points still to come from that sheet. Holds come from the table's turn values.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations


from . import rules, solver


def last_roll(state: rules.State, seat: int) -> list[int] | None:
    """The seat's last recorded roll of this turn (roll-by-roll), or None."""
    rolls = rules.sheet_of(state, seat).rolls
    return list(rolls[-1]) if rolls else None


def roll_number(sheet: rules.Sheet, dice) -> int:
    """Which roll of the turn `dice` are: the last recorded one, or the next one being tapped in."""
    recorded = len(sheet.rolls)
    return recorded if recorded and tuple(dice) == sheet.rolls[-1] else recorded + 1


def position(sheet: rules.Sheet) -> tuple[int, int, bool]:
    """(filled boxes as a bit mask, upper total, DiceZ box holds 50) of a sheet."""
    mask = sum(1 << b for b, score in enumerate(sheet.scores) if score is not None)
    return mask, sheet.upper_total, sheet.by_box()["dicez"] == rules.DICEZ_SCORE


def expected_total(table: solver.Table, sheet: rules.Sheet) -> float:
    """The final total this sheet can expect with optimal play from the start of a turn."""
    return sheet.total + table.expected(*position(sheet))


@dataclass(frozen=True)
class Choice:
    category: str
    score: int
    expected_final: float

    def as_json(self) -> dict:
        return {"category": self.category, "score": self.score, "expected_final": round(self.expected_final, 4)}


def choices(table: solver.Table, sheet: rules.Sheet, dice) -> list[Choice]:
    """Every box the rules let this sheet take for `dice`, with its score and the expected final
    total after it (raises RuleError for dice the rules refuse)."""
    state = rules.solo(solver.scoring_options(table.options), sheet)
    out = []
    for box, points in rules.preview(state, 0, dice).items():
        after = rules.sheet_of(rules.apply(state, 0, {"kind": "score", "category": box, "dice": list(dice)}), 0)
        out.append(Choice(box, points, expected_total(table, after)))
    return out


def best(found: list[Choice]) -> Choice | None:
    """The choice with the highest expectation (the first in sheet order on a tie)."""
    return max(found, key=lambda c: c.expected_final, default=None)


@dataclass(frozen=True)
class Hold:
    indexes: tuple[int, ...]
    expected_final: float


def holds(table: solver.Table, sheet: rules.Sheet, dice, roll: int) -> list[Hold]:
    """Every distinct choice of dice to keep after roll 1 or 2, best first (ties: more dice kept)."""
    if roll not in (1, 2):
        raise rules.RuleError("Hold advice is for after roll 1 or roll 2.")
    rules.preview(solver.solo_state(table.options), 0, dice)  # the rules' own check of the dice
    worth = table.turn(*position(sheet))
    keep_values = worth.keep_second if roll == 1 else worth.keep_third
    index, seen, out = solver.dice().index, set(), []
    for size in range(len(dice), -1, -1):
        for picked in combinations(range(len(dice)), size):
            kept = tuple(sorted(dice[i] for i in picked))
            if kept in seen:
                continue
            seen.add(kept)
            out.append(Hold(picked, sheet.total + float(keep_values[size][index[kept]])))
    out.sort(key=lambda h: -h.expected_final)
    return out


def advice(table: solver.Table, sheet: rules.Sheet, dice=None, roll: int | None = None) -> dict:
    """The API's answer: the expected total; with dice every open box and the best; with a roll the hold."""
    answer = {"expected_total": round(expected_total(table, sheet), 4)}
    if dice is None:
        return answer
    found = choices(table, sheet, dice)
    answer["boxes"] = [c.as_json() for c in found]
    answer["best"] = best(found).category if found else None
    if roll is not None:
        top = holds(table, sheet, dice, roll)[0]
        answer["hold"] = list(top.indexes)
        answer["hold_expected_final"] = round(top.expected_final, 4)
    return answer


# --- after the game ------------------------------------------------------------------


@dataclass(frozen=True)
class Decision:
    """One choice a player made: a box (kind "score") or the dice kept before a roll ("hold")."""

    seat: int
    turn: int
    kind: str
    dice: tuple[int, ...]
    chosen: str
    best: str
    chosen_expected: float
    best_expected: float

    @property
    def lost(self) -> float:
        return max(0.0, self.best_expected - self.chosen_expected)


def review(table: solver.Table, steps) -> list[Decision]:
    """Every decision in `steps` (seat, sheet before, entry) against the best one."""
    out = []
    for seat, sheet, entry in steps:
        turn = sheet.filled + 1
        if entry["kind"] == "score":
            dice = tuple(entry.get("dice") or sheet.rolls[-1])
            found = choices(table, sheet, dice)
            top, mine = best(found), next(c for c in found if c.category == entry["category"])
            out.append(Decision(seat, turn, "score", dice, mine.category, top.category,
                                mine.expected_final, top.expected_final))
        elif entry["kind"] == "roll" and 1 <= len(sheet.rolls) <= 2:
            out.append(_hold_decision(table, seat, turn, sheet, entry))
    return out


def _hold_decision(table, seat, turn, sheet, entry) -> Decision:
    previous = sheet.rolls[-1]
    options = holds(table, sheet, previous, len(sheet.rolls))
    kept = sorted(previous[i] for i in entry.get("held", []))
    mine = next(h for h in options if sorted(previous[i] for i in h.indexes) == kept)
    show = lambda h: " ".join(str(previous[i]) for i in h.indexes) or "nothing"  # noqa: E731
    return Decision(seat, turn, "hold", tuple(previous), show(mine), show(options[0]),
                    mine.expected_final, options[0].expected_final)


def summary(decisions: list[Decision], seats: int) -> list[dict]:
    """Per seat: decisions, how many were the best, expected points lost in all."""
    out = []
    for seat in range(seats):
        mine = [d for d in decisions if d.seat == seat]
        out.append({"seat": seat, "decisions": len(mine),
                    "best_taken": sum(1 for d in mine if d.lost < 1e-6),
                    "lost": round(sum(d.lost for d in mine), 2)})
    return out
