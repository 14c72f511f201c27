"""Two real browsers and one edition (DS-2): Ann saves it and may change, rename and delete it; Ben
sees it is not his, copies it, exports his copy as a file and imports that file again."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def tid(page, name):
    return page.locator(f'[data-testid="{name}"]')


def item(page, name):
    return page.locator(f'[data-testid="edition-item"][data-name="{name}"]')


def test_two_browsers_own_copy_export_and_import_editions(servers, phone, tmp_path):
    base = servers[0]
    ann, ben = phone(), phone()
    ann.goto(base + "/dice-and-slice/editions")
    tid(ann, "new-edition").click()
    tid(ann, "edition-name").fill("Blue box")
    ann.fill('input[name="label"]', "Our blue box")
    tid(ann, "save-edition").click()
    expect(tid(ann, "saved")).to_be_visible()

    ben.goto(base + "/dice-and-slice/editions")
    expect(item(ben, "Blue box").locator('[data-testid="yours"]')).to_have_count(0)
    ben.goto(base + "/dice-and-slice/editions/e/Blue box")
    expect(tid(ben, "not-yours")).to_contain_text("only that browser can change or delete it")
    expect(tid(ben, "save-edition")).to_have_count(0)
    expect(tid(ben, "delete-edition")).to_have_count(0)
    ben.goto(base + "/dice-and-slice/editions")
    item(ben, "Blue box").locator('[data-testid="copy"]').click()
    expect(tid(ben, "edition-name")).to_have_value("Blue box (copy)")
    ben.fill('input[name="label"]', "Ben's blue box")
    tid(ben, "save-edition").click()
    expect(tid(ben, "saved")).to_be_visible()
    expect(tid(ben, "delete-edition")).to_be_visible()  # the copy is Ben's

    # Ben exports his copy and imports the file: the name is taken, so it arrives as "(2)"
    with ben.expect_download() as download:
        tid(ben, "export-edition").click()
    path = tmp_path / download.value.suggested_filename
    download.value.save_as(path)
    assert path.name == "Blue box (copy).edition.json"
    ben.goto(base + "/dice-and-slice/editions")
    tid(ben, "import-file").set_input_files(str(path))
    tid(ben, "import").click()
    expect(tid(ben, "imported")).to_contain_text("Blue box (copy) (2)")
    ben.goto(base + "/dice-and-slice/editions")
    for mine in ("Blue box (copy)", "Blue box (copy) (2)"):
        expect(item(ben, mine).locator('[data-testid="yours"]')).to_be_visible()
    # a file that is not an edition is refused on the page, and nothing is added
    bad = tmp_path / "notes.json"
    bad.write_text('{"format": "companion-edition", "version": 1, "game": "dicez", "name": "x", "edition": {}}')
    tid(ben, "import-file").set_input_files(str(bad))
    tid(ben, "import").click()
    expect(tid(ben, "import-error")).to_contain_text("for another game")
    expect(ben.locator('[data-testid="edition-item"]')).to_have_count(3)

    # Ann renames her edition and deletes it; Ben's copies stay
    ann.goto(base + "/dice-and-slice/editions")
    expect(item(ann, "Blue box").locator('[data-testid="yours"]')).to_be_visible()
    expect(item(ann, "Blue box (copy)").locator('[data-testid="copy"]')).to_be_visible()
    ann.goto(base + "/dice-and-slice/editions/e/Blue box")
    tid(ann, "edition-name").fill("Navy box")
    tid(ann, "save-edition").click()
    expect(ann.locator("h1")).to_contain_text("Navy box")
    tid(ann, "delete-edition").click()
    expect(tid(ann, "deleted")).to_contain_text("Navy box")
    ben.goto(base + "/dice-and-slice/editions")
    expect(ben.locator('[data-testid="edition-item"]')).to_have_count(2)
