"""The host plays too (issue 34 item 6), on a 360 x 640 phone and a 1024 x 768 tablet, against real
servers and Chromium: the host's own phone takes a seat in one tap from the host screen; once the
game is on, the host screen puts the game first (whose turn, the last entry) and the join code
second, still there for a late joiner. Screenshots go to test-artifacts/."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser_fixtures import ROOT, join_as, start_dicez_table, table_code, tap_dice

pytestmark = pytest.mark.browser

ARTIFACTS = ROOT / "test-artifacts"
TABLET = {"viewport": {"width": 1024, "height": 768}}
QR_DRAWN = "() => { const img = document.querySelector('.join-card img'); return img.complete && img.naturalWidth > 0; }"


def top(page, selector: str) -> float:
    return page.locator(selector).bounding_box()["y"]


def in_view(page, locator) -> bool:
    """Wholly on the screen as the page first shows, without scrolling."""
    box = locator.bounding_box()
    size = page.viewport_size
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= size["height"]


@pytest.mark.parametrize("screen", ["phone", "tablet"])
def test_the_host_takes_a_seat_in_one_tap_and_then_sees_the_game_first(servers, phone, screen):
    base = servers[0]
    host = phone(**(TABLET if screen == "tablet" else {}))
    join_url = start_dicez_table(host, base, ["Ann", "Ben", "Cleo"])
    code = table_code(join_url)
    ARTIFACTS.mkdir(exist_ok=True)
    host.wait_for_function(QR_DRAWN)
    host.screenshot(path=str(ARTIFACTS / f"host-before-start-{screen}.png"), full_page=True)
    # before the game: the join code first, then the host's own seat a tap away
    assert top(host, '[data-testid="join-card"]') < top(host, "#host-game")
    expect(host.locator('.join-card img')).to_be_visible()
    # these servers listen on loopback only (--host 127.0.0.1): the host is told phones cannot reach it
    expect(host.locator('[data-testid="join-warning"]')).to_contain_text("Phones cannot open this link")
    offer = host.locator('[data-testid="play-here"]')
    expect(offer).to_contain_text("Playing too?")
    host.get_by_role("button", name="I am Ann").click()
    expect(host).to_have_url(f"{base}/t/{code}/s/0")
    expect(host.locator('[data-testid="face-1"]')).to_be_visible()  # Ann's sheet, on the host's phone

    ben = phone()
    join_as(ben, join_url, "Ben")
    tap_dice(host, [3, 3, 3, 5, 5])
    host.locator('[data-testid="score-full_house"]').click()
    expect(host.locator('[data-testid="box-full_house"]')).to_have_text("25")

    host.get_by_role("link", name="Host screen").click()
    # the game is on: it comes first, with whose turn and the last entry in view
    assert top(host, "#host-game") < top(host, '[data-testid="join-card"]')
    turn = host.locator('#host-game [data-testid="whose-turn"]')
    expect(turn).to_have_text("Ben’s turn")
    assert in_view(host, turn)
    last = host.locator('#host-game [data-testid="last-entry"]')
    expect(last).to_contain_text("Ann")
    assert in_view(host, last)
    expect(host.locator('[data-testid="my-sheet"]')).to_have_text("Your sheet (Ann)")
    expect(host.locator('[data-testid="play-here"]')).to_have_count(0)  # the host holds a seat already
    expect(host.locator("#seats")).to_contain_text("Ann (this phone)")
    host.screenshot(path=str(ARTIFACTS / f"host-game-on-{screen}.png"), full_page=True)

    # ... and the join code is still there for Cleo, who comes late
    late = host.locator('[data-testid="join-card"]')
    late.scroll_into_view_if_needed()
    expect(late).to_contain_text("Joining late?")
    host.wait_for_function(QR_DRAWN)
    cleo = phone()
    join_as(cleo, host.locator(".join-url").get_attribute("href"), "Cleo")
    expect(cleo).to_have_url(f"{base}/t/{code}/s/2")
    expect(host.locator("#seats")).to_contain_text("Cleo (joined)")  # the host screen follows live

    host.locator('[data-testid="my-sheet"]').click()
    expect(host).to_have_url(f"{base}/t/{code}/s/0")


def test_a_host_in_a_seat_still_moves_and_seats_the_others(servers, phone):
    """Taking a seat does not take the host's other powers away: the host screen is one tap from the sheet."""
    base = servers[0]
    host = phone()
    start_dicez_table(host, base, ["Ann", "Ben"])
    host.get_by_role("button", name="I am Ben").click()
    host.get_by_role("link", name="Host screen").click()
    expect(host.locator('[data-testid="my-sheet"]')).to_have_text("Your sheet (Ben)")
    expect(host.get_by_role("link", name="Move to another phone")).to_have_count(1)  # Ben's seat
    expect(host.get_by_role("link", name="Seat on a phone")).to_have_count(1)  # Ann's, still free
