"""On a phone: a photo of the tray, picked through the sheet's camera button, fills the five slots; the
player corrects one and scores. Offline the button says it needs the server. (issue 39)"""
from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect
from tests.browser_fixtures import ROOT, join_as, start_dicez_table
from companion.games.dicez.tests.test_browser import ONE_SCREEN

pytestmark = pytest.mark.browser

PHOTO = Path(__file__).resolve().parents[4] / "tests" / "data" / "dice-photos" / "images" / "IMG_20191208_111702.jpg"


def table_version(base: str, code: str) -> int:
    with urllib.request.urlopen(f"{base}/api/tables/{code}") as answer:
        return json.loads(answer.read())["version"]


def slot_values(page) -> list[str]:
    return [page.locator(f'[data-die-value="{i}"]').input_value() for i in range(5)]


def test_a_photo_fills_the_slots_the_player_corrects_one_and_scores(servers, phone):
    base, _ = servers
    join_url = start_dicez_table(phone(), base, ["Ann", "Ben"])
    code = join_url.split("/t/", 1)[1].split("/")[0]
    ann = phone()
    join_as(ann, join_url, "Ann")
    camera = ann.locator('[data-testid="dice-camera"]')
    expect(camera).to_be_visible()
    assert ann.evaluate(ONE_SCREEN)["problems"] == []  # the camera keeps the turn on one screen
    before = table_version(base, code)

    ann.locator("[data-dice-photo]").set_input_files(str(PHOTO))
    status = ann.locator('[data-testid="dice-photo-status"]')
    expect(status).to_contain_text("Check them: tap a die to change it")
    for i in range(5):
        expect(ann.locator(f'[data-testid="die-{i}"]')).to_have_class("slot read")
    expect(ann.locator('[data-testid="dice-photo-view"] img')).to_be_visible()
    expect(ann.locator('[data-testid="dice-photo-view"] .die-box span')).to_have_text(["1", "2", "3", "4", "5"])
    (ROOT / "test-artifacts").mkdir(exist_ok=True)
    ann.screenshot(path=str(ROOT / "test-artifacts" / "dicez-phone-photo-read.png"), full_page=True)
    read = slot_values(ann)
    assert all(value in "123456" and value for value in read)
    assert table_version(base, code) == before  # a photo records nothing

    # the player sees die 1 wrong: one tap on the slot, one on the right face
    corrected = "6" if read[0] != "6" else "1"
    ann.locator('[data-testid="die-0"]').click()
    ann.locator(f'[data-testid="face-{corrected}"]').click()
    expect(ann.locator('[data-testid="die-0"]')).to_have_attribute("aria-label", f"Die 1: {corrected}")
    expect(ann.locator('[data-testid="die-1"]')).to_have_attribute(
        "aria-label", f"Die 2: {read[1]} (read from the photo: tap to change)")
    dice = [int(corrected), *map(int, read[1:])]
    chance = ann.locator('[data-testid="score-chance"]')
    expect(chance).to_have_text(str(sum(dice)))
    chance.click()
    expect(ann.locator('[data-testid="box-chance"]')).to_have_text(str(sum(dice)))
    with urllib.request.urlopen(f"{base}/api/tables/{code}") as answer:
        sheet = json.loads(answer.read())
    assert table_version(base, code) == before + 1
    assert json.dumps(sheet).count(str(sum(dice))) >= 1


def test_offline_the_camera_says_it_needs_the_server(servers, phone):
    base, _ = servers
    join_url = start_dicez_table(phone(), base, ["Cleo", "Dan"])
    cleo = phone()
    join_as(cleo, join_url, "Cleo")
    camera = cleo.locator('[data-testid="dice-camera"]')
    expect(camera).to_be_visible()
    cleo.context.set_offline(True)
    expect(camera).to_have_attribute("title", "Reading dice from a photo needs the server")
    camera.click()
    expect(cleo.locator('[data-testid="dice-photo-status"]')).to_have_text(
        "Reading dice from a photo needs the server: tap the faces for now.")
    assert slot_values(cleo) == [""] * 5
    cleo.context.set_offline(False)
    expect(camera).to_have_attribute("title", "Read the dice from a photo")


def test_in_roll_by_roll_each_roll_can_be_read_from_a_photo(servers, phone):
    from tests.a11y import api

    base, _ = servers
    status, table = api(base, "/api/tables", {"game": "dicez", "players": ["Eve", "Fay"],
                                              "options": {"roll_by_roll": True}})
    assert status == 201
    eve = phone()
    eve.context.add_cookies([{"name": f"seat_{table['code']}", "value": table["seats"][0]["token"], "url": base}])
    eve.goto(f"{base}/t/{table['code']}/s/0")
    for roll, photo in enumerate(["IMG_20191208_111702.jpg", "IMG_20191208_111924.jpg"], start=1):
        eve.locator("[data-dice-photo]").set_input_files(str(PHOTO.parent / photo))
        expect(eve.locator('[data-testid="dice-photo-status"]')).to_contain_text("Check them")
        expect(eve.locator('[data-testid="die-4"]')).to_have_class("slot read")
        read = slot_values(eve)
        eve.locator('[data-testid="record-roll"]').click()
        expect(eve.locator('[data-testid="rolls"]')).to_contain_text(f"Roll {roll} of 3 recorded")
        expect(eve.locator('[data-testid="rolls"] .roll').last).to_have_text(" ".join(read))
