"""The start page on a 360 x 640 phone: name fields follow the chosen game's player counts, the start
button stays on screen, and only the chosen game's options show (issue 12, item 5)."""
from __future__ import annotations

import json
import urllib.request

import pytest
from playwright.sync_api import expect

from companion.platform.core.registry import GAMES

pytestmark = pytest.mark.browser  # every test here starts Chromium


def _visible_names(page):
    return page.locator("[data-seat-field] input:visible")


def _start_button_in_view(page):
    box = page.get_by_role("button", name="Start the table").bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 640


def test_name_fields_follow_the_chosen_game(servers, phone):
    page = phone()
    page.goto(servers[0] + "/")
    dicez, pizza = GAMES["dicez"], GAMES["pizza_theory"]
    expect(_visible_names(page)).to_have_count(dicez.min_players)
    assert _start_button_in_view(page)
    add = page.get_by_role("button", name="Add a player")
    for count in range(dicez.min_players + 1, dicez.max_players + 1):
        add.click()
        expect(_visible_names(page)).to_have_count(count)
        expect(page.locator(f'input[name="player{count - 1}"]')).to_be_focused()  # ready to type
        assert _start_button_in_view(page), f"start button off screen with {count} fields"
    expect(add).to_be_hidden()
    expect(page.locator("details.options:visible")).to_have_count(1)
    expect(page.locator("details.options:visible summary")).to_have_text("DiceZ options")

    page.check('input[name="game"][value="pizza_theory"]')
    expect(_visible_names(page)).to_have_count(pizza.min_players)
    expect(page.locator("details.options:visible summary")).to_have_text("Pizza Theory options")
    assert _start_button_in_view(page)


def test_names_typed_for_one_game_are_kept_up_to_the_next_games_most(servers, phone):
    page = phone()
    page.goto(servers[0] + "/")
    add = page.get_by_role("button", name="Add a player")
    for i, name in enumerate(["Ann", "Ben", "Cleo", "Dan"]):
        if i:
            add.click()
        page.fill(f'input[name="player{i}"]', name)
    page.check('input[name="game"][value="pizza_theory"]')  # 2 to 3 players
    expect(_visible_names(page)).to_have_count(3)
    expect(add).to_be_hidden()
    page.get_by_role("button", name="Start the table").click()
    code = page.url.split("/t/")[1].split("/")[0]
    with urllib.request.urlopen(f"{servers[0]}/api/tables/{code}") as resp:
        table = json.loads(resp.read())
    assert table["game"] == "pizza_theory"
    assert [p["name"] for p in table["players"]] == ["Ann", "Ben", "Cleo"]
