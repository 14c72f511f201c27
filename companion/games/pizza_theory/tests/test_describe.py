"""Pizza Theory's entries in words on the table view: a cut is told only once the round's cuts are
revealed (PT-7, PT-8); toppings and the neutral roll are told as they are added (PT-5, PT-15)."""
from __future__ import annotations

from companion.platform.core.contract import Viewer
from companion.platform.core.play import last_entry_text
from companion.platform.core.registry import get_game

GAME = get_game("pizza_theory")
NAMES = ["Ann", "Ben", "Cleo"]


class Table:
    """A game played entry by entry, its log kept newest first as the platform reads it."""

    def __init__(self, players: int):
        self.state = GAME.new_state(players, GAME.normalize_options({}))
        self.log = []

    def enter(self, seat: int, entry: dict) -> None:
        after = GAME.apply(self.state, seat, entry)
        self.log.insert(0, (seat, entry, self.state, after))
        self.state = after

    def add_toppings(self) -> None:
        """Every player whose turn it is adds a topping on the first space open to them."""
        while GAME.view(self.state, Viewer.table())["phase"] == "add":
            seat = GAME.waiting_for(self.state)[0]
            self.enter(seat, GAME.hints(self.state, seat, {})["legal"][0])

    def told(self, viewer: Viewer) -> str | None:
        return last_entry_text(GAME, self.log, self.state, viewer, NAMES)


def test_a_cut_is_not_told_until_the_cuts_are_revealed_and_then_every_cut_is():  # PT-7 PT-8
    table = Table(3)
    table.add_toppings()
    placed = table.told(Viewer.table())
    assert " added a " in placed and "topping" in placed
    table.enter(0, {"kind": "cut", "line": 4})
    table.enter(1, {"kind": "cut", "line": 2})
    table.enter(0, {"kind": "cut", "line": 5})  # Ann changes her mind (PT-7)
    for viewer in (Viewer.table(), Viewer.host(), Viewer.shared(), Viewer.shared(0)):
        assert table.told(viewer) == placed  # still the last topping: no word of any cut
    assert table.told(Viewer.own(0)) == "Ann cut along line 5."  # her own phone may know
    table.enter(2, {"kind": "cut", "line": 6})
    told = table.told(Viewer.table())
    assert told == "Cleo made the last cut of round 1; the cuts: Ann line 5, Ben line 2, Cleo line 6."


def test_toppings_and_the_neutral_roll_are_told_as_they_happen():  # PT-5 PT-15
    table = Table(2)
    first = GAME.waiting_for(table.state)[0]
    table.enter(first, GAME.hints(table.state, first, {})["legal"][0])
    assert table.told(Viewer.table()) == f"{NAMES[first]} added a {['red', 'white'][first]} topping: 3 {['red', 'white'][first]} on the pizza."
    table.add_toppings()
    roller = GAME.waiting_for(table.state)[0]
    neutral = GAME.hints(table.state, roller, {"line": 3})["legal"][0]
    table.enter(roller, neutral)
    assert table.told(Viewer.table()) == (f"{NAMES[roller]} rolled line 3 for the neutral cutter; "
                                          "placed a green topping beside it.")
