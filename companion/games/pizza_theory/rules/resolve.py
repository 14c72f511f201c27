"""Slice resolution on bitmasks (PT-9 .. PT-12). Pure functions, no state objects.

Colours are 0 red, 1 white, 2 green. A position is three masks (one per colour) over the board's
spaces. `resolve_masks` decides every slice from the counts before any change and returns an
`Outcome`; it is called once per round and 216 times by `outcomes`.
"""
from __future__ import annotations

from companion.platform.core.contract import Text

from typing import NamedTuple

TOPPINGS = 16
COLOURS = ("red", "white", "green")
COLOUR_WORDS = {"red": Text("red"), "white": Text("white"), "green": Text("green")}  # as players read them

# slice verdicts
EMPTY, MAJORITY, TIE2, TIE3 = "empty", "majority", "tie", "three-way tie"
# change reasons
REPLACED, REMOVED, NO_SUPPLY = "replaced", "removed", "supply_out"


class Outcome(NamedTuple):
    masks: tuple[int, int, int]  # colour masks after resolution
    counts: tuple[tuple[int, int, int], ...]  # per slice, counts before any change
    verdicts: tuple[tuple, ...]  # per slice: (EMPTY,) | (MAJORITY, colour) | (TIE2, c1, c2) | (TIE3,)
    safe: tuple[bool, bool, bool]
    would_be: tuple[int, int, int]  # on-board counts if supplies were unlimited
    # (space index, from colour, to colour or -1, reason, slice number)
    changes: tuple[tuple[int, int, int, str, int], ...]


def _decide(slices, counts, ms, safe) -> tuple[list, list[int], list[int]]:
    """Verdict per slice, and per colour the mask of toppings it loses and of spaces it takes over.

    Kept as one loop without per-slice calls: `outcomes` runs it for all 216 cuts.
    """
    lose = [0, 0, 0]
    take = [0, 0, 0]
    verdicts = []
    for s, (a, b, c) in zip(slices, counts):
        top = a if a > b else b
        if c > top:
            top = c
        if top == 0:
            verdicts.append((EMPTY,))
            continue
        leaders = (0,) * (a == top) + (1,) * (b == top) + (2,) * (c == top)
        if len(leaders) == 1:
            w = leaders[0]
            verdicts.append((MAJORITY, w))
            for col in (0, 1, 2):
                if col != w and not safe[col]:
                    g = s & ms[col]
                    if g:
                        lose[col] |= g
                        take[w] |= g
        elif len(leaders) == 2:
            verdicts.append((TIE2, leaders[0], leaders[1]))
            third = 3 - leaders[0] - leaders[1]
            if not safe[third]:
                lose[third] |= s & ms[third]
        else:
            verdicts.append((TIE3,))
    return verdicts, lose, take


def _unsupplied(take: list[int], would_be: tuple[int, int, int]) -> list[int]:
    """Per colour, the spaces it takes over but has no topping left for.

    Replacements are filled in space order, so the last `excess` of them stay empty.
    """
    short = [0, 0, 0]
    for col in (0, 1, 2):
        excess = would_be[col] - TOPPINGS
        if excess > 0:
            t = take[col]
            while excess:
                hi = 1 << (t.bit_length() - 1)
                short[col] |= hi
                t ^= hi
                excess -= 1
    return short


def _changes(slices, verdicts, lose: list[int], short: list[int]) -> tuple:
    """The change list, sorted by space index."""
    out = []
    for n, (sl, v) in enumerate(zip(slices, verdicts), 1):
        w = v[1] if v[0] == MAJORITY else -1
        for col in (0, 1, 2):
            g = lose[col] & sl
            while g:
                low = g & -g
                g ^= low
                i = low.bit_length() - 1
                if w < 0:
                    out.append((i, col, -1, REMOVED, n))
                elif short[w] & low:
                    out.append((i, col, -1, NO_SUPPLY, n))
                else:
                    out.append((i, col, w, REPLACED, n))
    out.sort()
    return tuple(out)


def resolve_masks(slices, m0: int, m1: int, m2: int, detail: bool = True) -> Outcome:
    ms = (m0, m1, m2)
    counts = tuple(((s & m0).bit_count(), (s & m1).bit_count(), (s & m2).bit_count()) for s in slices)
    safe = (all(c[0] <= 1 for c in counts), all(c[1] <= 1 for c in counts), all(c[2] <= 1 for c in counts))
    verdicts, lose, take = _decide(slices, counts, ms, safe)
    would_be = tuple(ms[col].bit_count() - lose[col].bit_count() + take[col].bit_count() for col in (0, 1, 2))
    short = _unsupplied(take, would_be)
    new = tuple((ms[col] & ~lose[col]) | (take[col] & ~short[col]) for col in (0, 1, 2))
    changes = ()
    if detail and (lose[0] or lose[1] or lose[2]):
        changes = _changes(slices, verdicts, lose, short)
    return Outcome(new, counts, tuple(verdicts), safe, would_be, changes)


def describe_change(space, frm: int, to: int, why: str, slice_no: int, verdict: tuple) -> str:
    """A sentence telling players what to do on the physical board."""
    where = Text("slice {slice}, space {space}", slice=slice_no, space=str(list(space)))
    words = {i: COLOUR_WORDS[c] for i, c in enumerate(COLOURS)}
    if why == REPLACED:
        return Text("{where}: {to} has the most here; swap the {frm} topping for a {to} one.", where=where,
                    to=words[to], frm=words[frm])
    if why == NO_SUPPLY:
        return Text("{where}: {leader} has the most here but has no topping left; remove the {frm} topping and "
                    "leave the space empty.", where=where, leader=words[verdict[1]], frm=words[frm])
    return Text("{where}: {first} and {second} tie for the most; remove the {frm} topping.", where=where,
                first=words[verdict[1]], second=words[verdict[2]], frm=words[frm])
