"""Pizza Theory's board is never hidden from a player who must act (issue 34, item 2): after a round in
which no topping changed, every phone shows the board now, and on a 360 x 640 phone the player whose
turn it is finds the spaces to tap, and every player the cut lines, on the first screen."""
from __future__ import annotations

import random

import pytest

from companion.platform.core.contract import Viewer
from companion.platform.core.registry import GAMES
from tests.a11y import played_table, screenshot
from tests.contract.playout import playout

pytestmark = pytest.mark.browser

GAME = GAMES["pizza_theory"]
NAMES = ["Ann", "Ben", "Cleo"]
# the first screen of a 360 x 640 phone, in CSS pixels
SCREEN_HEIGHT = 640


def _steps_to_a_quiet_round(players: int):
    """A playout with a round whose cuts changed nothing, and the index of the step that opened the
    next round's toppings (the quiet round's reveal is then fresh)."""
    for attempt in range(300):
        _, steps = playout(GAME, players, random.Random(f"quiet-{players}-{attempt}"))
        for i, step in enumerate(steps):
            seen = GAME.view(step.after, Viewer.table())
            if (step.after.phase == "add" and step.before.phase != "add" and not GAME.finished(step.after)
                    and seen["last_resolution"] and not seen["last_resolution"]["changes"]):
                return steps, i
    raise AssertionError("no playout had a round without changes")


def _table(base, players, steps):
    return played_table(base, "pizza_theory", steps, players=NAMES[:players])


def _open_sheet(phone, base, table, seat):
    page = phone()
    page.context.add_cookies([{"name": f"seat_{table['code']}", "value": table["seats"][seat]["token"], "url": base}])
    page.goto(f"{base}/t/{table['code']}/s/{seat}")
    return page


def _on_first_screen(locator) -> bool:
    box = locator.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= SCREEN_HEIGHT


@pytest.mark.parametrize("players", [3, 2])
def test_after_a_round_without_changes_every_phone_shows_the_board(servers, phone, players):
    steps, at = _steps_to_a_quiet_round(players)
    table = _table(servers[0], players, steps[:at + 1])
    after = steps[at].after
    acting = after.order[after.turn]
    for seat in range(players):
        page = _open_sheet(phone, servers[0], table, seat)
        board = page.locator('[data-testid="board-now"] .pt-board')
        assert board.is_visible(), f"{NAMES[seat]} sees no board"
        reveal = page.locator('#sheet details[data-testid="reveal"]')
        # the quiet round is told, folded: one tap opens it
        assert reveal.get_attribute("open") is None
        assert "nothing changes on the board" in reveal.locator("> summary").inner_text()
        if seat == acting:
            assert "Your turn" in page.locator('[data-testid="instruction"]').inner_text()
            legal = page.locator('[data-testid="board-now"] button.pt-space.legal')
            assert legal.count() > 0 and all(_on_first_screen(legal.nth(i)) for i in range(legal.count()))
            screenshot(page, f"pizza_theory-{players}p-quiet-round-your-turn")


def test_the_player_whose_turn_it_is_sees_the_board_before_the_reveal(servers, phone):
    """A round with changes: the player to add sees the board now with its spaces to tap; a player whose
    topping comes later still reads the reveal first, to copy the changes onto the real board."""
    _, steps = playout(GAME, 3, random.Random("board-first"))
    at = next(i for i, s in enumerate(steps) if s.after.round == 2 and s.after.phase == "add"
              and GAME.view(s.after, Viewer.table())["last_resolution"]["changes"])
    table = _table(servers[0], 3, steps[:at + 1])
    after = steps[at].after
    acting, last = after.order[after.turn], after.order[-1]
    page = _open_sheet(phone, servers[0], table, acting)
    assert page.locator('#sheet details[data-testid="reveal"]').get_attribute("open") is None
    legal = page.locator('[data-testid="board-now"] button.pt-space.legal')
    assert legal.count() > 0 and all(_on_first_screen(legal.nth(i)) for i in range(legal.count()))
    assert "to make on the board" in page.locator('[data-testid="reveal-count"]').inner_text()
    screenshot(page, "pizza_theory-3p-changes-your-turn")

    waiting = _open_sheet(phone, servers[0], table, last)
    assert waiting.locator('#sheet details[data-testid="reveal"]').get_attribute("open") is not None
    assert waiting.locator('[data-testid="checklist"]').is_visible()


@pytest.mark.parametrize("players", [3, 2])
def test_the_cut_lines_are_on_the_first_screen_in_the_first_rounds(servers, phone, players):
    _, steps = playout(GAME, players, random.Random(f"cut-lines-{players}"))
    for rnd in (1, 2, 3):
        at = next((i for i, s in enumerate(steps) if s.after.round == rnd and s.after.phase == "cut"), None)
        if at is None:
            break  # the game ended before this round
        table = _table(servers[0], players, steps[:at + 1])
        page = _open_sheet(phone, servers[0], table, steps[at].after.order[0])
        for n in range(1, 7):
            assert _on_first_screen(page.locator(f'[data-testid="line-{n}"]')), f"round {rnd}: line {n} needs a scroll"
        page.locator('[data-testid="line-3"]').click()
        page.locator("#sheet legend", has_text="Your cut: line 3").wait_for()
        if rnd == 1:
            screenshot(page, f"pizza_theory-{players}p-cut-first-screen")
