"""Pages follow by push across two server processes, and a page whose stream dropped (its server
restarted) catches up with every change it missed, without a reload."""
from __future__ import annotations

import os

import pytest
from playwright.sync_api import expect

from tests.browser_fixtures import ROOT, free_ports, join_as, start_dicez_table, start_server, start_servers, tap_dice

pytestmark = pytest.mark.browser


start = start_server


def score(page, dice, box):
    tap_dice(page, dice)
    page.locator(f'[data-testid="score-{box}"]').click()
    expect(page.locator(f'[data-testid="box-{box}"]')).not_to_have_text("")


def test_a_page_follows_by_push_and_catches_up_after_its_server_restarts(tmp_path, phone):
    env = {**{k: v for k, v in os.environ.items() if k != "REDIS_URL"},
           "DATABASE_URL": f"sqlite:///{tmp_path / 'companion.sqlite'}", "SECRET_KEY": "live-browser",
           "PYTHONPATH": str(ROOT)}
    port_a, port_b = free_ports(2)
    base_a, base_b = f"http://127.0.0.1:{port_a}", f"http://127.0.0.1:{port_b}"
    a, b = start_servers([(port_a, env, tmp_path / "a.log"), (port_b, env, tmp_path / "b.log")])
    try:
        join_url = start_dicez_table(phone(), base_a, ["Ann", "Ben"], turn_order=False)  # Ben plays alone
        ann, ben, screen = phone(), phone(), phone()
        join_as(ann, join_url, "Ann")                      # Ann's phone and the table view on A
        join_as(ben, join_url.replace(base_a, base_b), "Ben")  # Ben's phone on B
        screen.goto(join_url.split("/j/")[0] + "/view")
        polls = []
        for page in (ann, screen):
            expect(page.locator("#live")).to_have_attribute("data-live", "open")
            page.on("request", lambda r: polls.append(r.url) if "/poll" in r.url else None)

        score(ben, [5, 5, 5, 5, 5], "dicez")  # on B; Ann's sheet and the view on A follow by push
        expect(ann.locator('[data-testid="total-1"]')).to_have_text("50")
        expect(screen.locator('[data-testid="view-total-1"]')).to_have_text("50")

        a.terminate()  # A goes away: Ann's and the view's streams drop
        a.wait(timeout=10)
        expect(ann.locator("#live")).to_have_attribute("data-live", "down")
        score(ben, [6, 6, 6, 1, 2], "sixes")  # two changes while their streams are down
        score(ben, [1, 2, 3, 4, 6], "small_straight")
        expect(ann.locator('[data-testid="total-1"]')).to_have_text("50")  # nothing reached them yet

        a = start(port_a, env, tmp_path / "a.log")  # A again, a new process: the streams reconnect
        for page in (ann, screen):
            expect(page.locator("#live")).to_have_attribute("data-live", "open")
        expect(ann.locator('[data-testid="total-1"]')).to_have_text("98")
        expect(screen.locator('[data-testid="view-total-1"]')).to_have_text("98")
        board = screen.locator("#board").inner_text()
        assert "18" in board and "30" in board  # both boxes Ben filled while the view's stream was down
        assert polls == []  # by push alone: the slow poll was never needed
    finally:
        for proc in (a, b):
            proc.terminate()
            proc.wait(timeout=10)
