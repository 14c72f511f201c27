"""Three phones play Pizza Theory rounds by tapping while a table view follows live.

Rule ids PT-n: rules.md. The engine runs next to the browsers with the same entries to
know what the pages must show.
"""
from __future__ import annotations

import random
import re

import pytest
from playwright.sync_api import expect

from tests.browser_fixtures import fill_players, join_as, table_code

from companion.games.pizza_theory.rules import apply, legal_spaces, new_state, resolution_view

pytestmark = pytest.mark.browser

NAMES = ["Ann", "Ben", "Cy"]
COLOURS = ["red", "white", "green"]


def value(space) -> str:
    return ",".join(str(v) for v in space)


def no_horizontal_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def sheet_without_status(page) -> str:
    """The seat's own sheet with the parts that may change when another seat chooses blanked out."""
    html = page.locator("#sheet").evaluate("el => el.outerHTML")
    html = re.sub(r'(data-testid="(?:status-\w+|instruction)">)[^<]*', r"\1", html)
    html = re.sub(r'name="key" value="[^"]+"', "", html)  # a fresh idempotency key per render
    html = re.sub(r" htmx-(?:request|settling|swapping|added)", "", html)  # htmx's in-flight markers
    # whether Undo is offered follows what the others did (a later cut may keep a topping), not their choices
    html = re.sub(r'(<div id="undo-box">).*?(</div>)', r"\1\2", html, flags=re.S)
    return re.sub(r'\s(class="pt-space[^"]*")', "", html)


# the page shows the table's latest entry, and no htmx request, swap or settle is under way on it
CAUGHT_UP = """v => { const seen = document.getElementById('live-seen');
  return seen && seen.dataset.version.split('.')[1] === String(v)
    && !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling'); }"""


def caught_up(page) -> None:
    """Wait until the phone has drawn the table's latest entry and its own swaps are done."""
    base, rest = page.url.split("/t/", 1)
    version = page.request.get(f"{base}/api/tables/{rest.split('/')[0]}").json()["version"]
    page.wait_for_function(CAUGHT_UP, arg=version)


def reveal_open(page) -> bool:
    """Whether the phone's section with the last round's changes is open (measured in one step: a live
    refresh may swap the sheet at any moment)."""
    caught_up(page)  # a swap that was under way has settled, and the section shows what the player did
    return page.evaluate("""() => { const d = document.querySelector('#sheet details[data-testid="reveal"]');
                                    return !!(d && d.open); }""")


def changes_shown(page, where="#sheet") -> list:
    items = page.locator(f'{where} [data-testid="change"]')
    return [(items.nth(i).get_attribute("data-space"), items.nth(i).get_attribute("data-from"),
             items.nth(i).get_attribute("data-to") or None) for i in range(items.count())]


def board_now_topping(page, space, colour):
    return page.locator(f'[data-testid="board-now"] [data-topping="{value(space)}:{colour}"]')


def fold_the_reveal_if_open(page) -> None:
    if reveal_open(page):
        page.locator('#sheet details[data-testid="reveal"] > summary').click()


def take_the_seats(phone, join_url, first, second) -> list:
    """A phone for each seat, each shown its own colour."""
    phones = []
    for seat, name in enumerate(NAMES):
        p = phone()
        join_as(p, join_url if seat != 1 else join_url.replace(first, second), name)  # Ben on the other process
        expect(p.locator('[data-testid="my-colour"]')).to_contain_text(COLOURS[seat])
        phones.append(p)
    return phones


def assert_spaces_are_separate_tap_targets(page) -> None:
    """Every space is a tap target of 44 px or more on a 360 px phone, and no two of them overlap."""
    boxes = page.evaluate("""Array.from(document.querySelectorAll('button.pt-space')).map(b => {
        const r = b.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2, r.width, r.height]; })""")
    assert len(boxes) == 37
    assert all(w >= 44 and h >= 44 for _, _, w, h in boxes), min(min(w, h) for _, _, w, h in boxes)
    # the hit areas are circles (border-radius 50%): neighbours' circles may touch but not overlap
    for i, (x1, y1, w1, _) in enumerate(boxes):
        for x2, y2, w2, _ in boxes[i + 1:]:
            assert ((x1 - x2) ** 2 + (y1 - y2) ** 2) ** 0.5 >= (w1 + w2) / 2 - 0.5


def add_toppings_by_tapping(state, phones, view, rng):
    """PT-6: in turn order, the seat in turn taps one of its legal spaces, and every phone and the table
    view show the topping live. Returns the engine's state once the round reaches its cuts."""
    while state.phase == "add":
        seat = state.order[state.turn]
        space = rng.choice(legal_spaces(state, seat))
        p = phones[seat]
        expect(p.locator('[data-testid="instruction"]')).to_contain_text("Your turn", timeout=4000)
        fold_the_reveal_if_open(p)  # one board at a time: fold the last reveal away to see the board now
        p.locator(f'[data-testid="space-{value(space)}"]').click()
        state = apply(state, seat, {"kind": "place", "space": list(space)})
        # everyone sees it live (on the board now, folded away where the reveal is open), the table view too
        for other in phones:
            expect(board_now_topping(other, space, COLOURS[seat])).to_be_attached(timeout=4000)
        expect(view.locator(f'[data-topping="{value(space)}:{COLOURS[seat]}"]').first).to_be_visible(timeout=4000)
    return state


def assert_only_the_choice_is_told(page, seat, cutter, sheet_before, code) -> None:
    """PT-8: the phone of `seat` learns that `cutter` has chosen a cut, and nothing of the line."""
    expect(page.locator(f'[data-testid="status-{COLOURS[cutter]}"]')).to_have_text("chosen", timeout=4000)
    # nothing of the chosen line reached the other phone: its sheet changed only in the
    # "chosen" status and the waiting line
    assert sheet_without_status(page) == sheet_before
    assert 'aria-pressed="true"' not in page.content() or seat < cutter  # only its own choice is marked
    last = page.request.get(page.url.split("/t/")[0] + f"/api/tables/{code}/entries").json()["entries"][-1]
    assert last["kind"] == "cut" and last["seat"] == cutter and last.get("hidden") and "line" not in last


def cut_in_secret(state, phones, view, code, lines):
    """PT-7, PT-8: the seats tap their lines in seat order; until the last choice reveals them all, the
    others and the table view learn only who has chosen. Returns the engine's state after the reveal."""
    for seat in range(3):
        others = [s for s in range(3) if s != seat]
        before = {s: sheet_without_status(phones[s]) for s in others}
        phones[seat].locator(f'[data-testid="line-{lines[seat]}"]').click()
        state = apply(state, seat, {"kind": "cut", "line": lines[seat]})
        if seat == 2:
            break  # the last choice reveals
        expect(phones[seat].locator("#sheet legend")).to_contain_text(f"Your cut: line {lines[seat]}")
        for s in others:
            assert_only_the_choice_is_told(phones[s], s, seat, before[s], code)
        expect(view.locator(f'[data-testid="view-status-{COLOURS[seat]}"]')).to_have_text("chosen",
                                                                                            timeout=4000)
    return state


def expect_the_reveal_everywhere(phones, view, state, rnd, lines, expected) -> None:
    """Every phone shows round `rnd`'s reveal with the `expected` changes, every seat's cut and the
    engine's topping counts; the table view shows the same changes and counts."""
    for p in phones:
        expect(p.locator('[data-testid="reveal"]')).to_contain_text(f"Round {rnd}", timeout=4000)
        assert changes_shown(p) == expected
        for colour, line in zip(COLOURS, lines):
            expect(p.locator(f'#sheet [data-testid="cut-{colour}"]').first).to_contain_text(f"line {line}")
        for colour in range(3):
            expect(p.locator(f'[data-testid="count-{COLOURS[colour]}"]')).to_have_text(
                str(state.masks[colour].bit_count()))
    expect(view.locator('[data-testid="table-reveal"]')).to_contain_text(f"Round {rnd}", timeout=4000)
    assert changes_shown(view, "#board") == expected
    expect(view.locator('[data-testid="view-count-red"]')).to_have_text(str(state.masks[0].bit_count()))


def waits_for_its_turn(state, seat) -> bool:
    """Is the seat's topping still to come this round? Only then does its phone's last reveal stay
    open over the board now: whoever must act, or has acted, sees the board first."""
    return state.phase == "add" and state.order.index(seat) > state.turn


def tick_the_changes_off(state, phones) -> None:
    """Ann ticks her first change off and Ben every one of his (opening the reveal first where it is
    folded under the board); the reveal stays open for copying the changes, until a player has ticked
    every one of them."""
    for p in phones[:2]:
        if not reveal_open(p):
            p.locator('#sheet details[data-testid="reveal"] > summary').click()
    phones[0].locator('#sheet [data-testid="change"] input').first.check()
    boxes = phones[1].locator('#sheet [data-testid="change"] input')
    for i in range(boxes.count()):
        boxes.nth(i).check()
    assert not reveal_open(phones[1])
    assert reveal_open(phones[2]) == waits_for_its_turn(state, 2)


def first_player_adds_after_the_ticks(state, phones, expected, rng):
    """The new 1st player taps a topping; the live refresh that follows keeps every phone's ticks, and
    each reveal stays as it was (the player who tapped folded their own). Returns the engine's state."""
    nxt = state.order[0]
    sp = rng.choice(legal_spaces(state, nxt))
    # the board is never hidden from the player whose turn it is
    assert phones[nxt].locator('[data-testid="board-now"]').is_visible()
    phones[nxt].locator(f'[data-testid="space-{value(sp)}"]').click()
    state = apply(state, nxt, {"kind": "place", "space": list(sp)})
    expect(board_now_topping(phones[0], sp, COLOURS[nxt])).to_be_attached(timeout=4000)
    expect(phones[0].locator('#sheet [data-testid="change"] input').first).to_be_checked()
    # after that refresh: still open where not everything is ticked, still folded where it is
    expect(board_now_topping(phones[2], sp, COLOURS[nxt])).to_be_attached(timeout=4000)
    expect(board_now_topping(phones[1], sp, COLOURS[nxt])).to_be_attached(timeout=4000)
    assert reveal_open(phones[2]) == waits_for_its_turn(state, 2) and not reveal_open(phones[1])
    # Ann opened hers herself when it was folded under the board: what she did wins
    assert reveal_open(phones[0]) == (len(expected) > 1 and (nxt == 0 or waits_for_its_turn(state, 0)))
    phones[1].reload()  # the ticks are kept in the phone: a fully ticked reveal stays folded
    expect(phones[1].locator('#sheet [data-testid="change"] input').last).to_be_checked()
    assert not reveal_open(phones[1])
    return state


def test_three_phones_play_rounds_by_tapping_with_secret_cuts(servers, phone):
    first, second = servers
    host = phone()
    host.goto(first + "/")
    host.check('input[name="game"][value="pizza_theory"]')
    fill_players(host, NAMES)
    host.click("text=Start the table")
    join_url = host.locator(".join-url").get_attribute("href")
    code = table_code(join_url)

    phones = take_the_seats(phone, join_url, first, second)
    view = phone(viewport={"width": 1024, "height": 900}, is_mobile=False)
    view.goto(f"{second}/t/{code}/view")

    for p in phones:
        assert no_horizontal_scroll(p)
    assert_spaces_are_separate_tap_targets(phones[0])

    state = new_state(3, {})
    rng = random.Random(2024)

    # PT-5: a space touching Ann's own start topping is refused in place, and nothing is saved
    phones[0].locator('[data-testid="space-0,3,-3"]').click()
    expect(phones[0].locator('[data-testid="error"]')).to_contain_text("touches one of your own")
    expect(phones[0].locator('[data-topping^="0,3,-3:"]')).to_have_count(0)

    for rnd in range(1, 4):
        # ---- adding toppings by tapping, in turn order (PT-6)
        state = add_toppings_by_tapping(state, phones, view, rng)
        assert state.phase == "cut"
        for p in phones:
            expect(p.locator('[data-testid="line-1"]')).to_be_visible(timeout=4000)

        # ---- secret cuts (PT-7, PT-8)
        lines = [rng.randint(1, 6) for _ in range(3)]
        state = cut_in_secret(state, phones, view, code, lines)

        # ---- the reveal: the changes shown are the engine's resolution (PT-9 .. PT-12)
        assert state.round == rnd + 1 or state.phase == "over"
        expected = [(value(c["space"]), c["from"], c["to"]) for c in resolution_view(state.last)["changes"]]
        expect_the_reveal_everywhere(phones, view, state, rnd, lines, expected)
        if expected:  # ticking a change off survives the live refresh after the next topping
            tick_the_changes_off(state, phones)
        if state.phase == "over":
            break
        # PT-13: the board turned: a new 1st player
        expect(phones[state.order[0]].locator(".pt-round")).to_contain_text("you play 1st")
        if expected:
            state = first_player_adds_after_the_ticks(state, phones, expected, rng)

    for p in phones:
        assert no_horizontal_scroll(p)
