"""Editions travel between companions in a link (DS-2): the share page shows a QR code of a link
whose path carries the edition packed; another companion (another app on another database) opens
the link, shows what it holds and imports it on "Import". A damaged or oversized link is refused
with a reason and nothing is imported."""
from __future__ import annotations

import base64
import html
import io
import re
import secrets
import urllib.parse
import zlib

import pytest
import qrcode
from PIL import Image

from companion import create_app
from companion.platform.web.address import base_for_phones
from companion.games.dice_and_slice.edition_files import MAX_CODE_CHARS, share_code
from companion.games.dice_and_slice.tests.test_edition_owners import distinctive
from tests.helpers import csrf_from

EDITIONS = "/dice-and-slice/editions"


@pytest.fixture
def other_companion(tmp_path):
    app = create_app({"DATABASE_URL": f"sqlite:///{tmp_path / 'other.sqlite'}", "TESTING": True,
                      "SECRET_KEY": "another-secret"})
    yield app
    app.extensions["store"].dispose()


def names(store):
    return [d.name for d in store.documents("dice_and_slice", "editions")]


def shared_link(client, name) -> str:
    page = client.get(f"{EDITIONS}/share/{name}").get_data(as_text=True)
    assert 'data-testid="share-qr"' in page and 'src="data:image/png;base64,' in page  # the QR code is in the page
    return html.unescape(re.search(r'value="([^"]+)" data-testid="share-link"', page).group(1))


def test_a_shared_link_imports_the_same_edition_on_another_companion(client, store, other_companion):
    assert client.post(EDITIONS, data=distinctive(client, "Truffle box")).status_code == 303
    link = shared_link(client, "Truffle box")
    receive = f"{base_for_phones('http://localhost/')}dice-and-slice/editions/receive/"
    assert link.startswith(receive) and len(link) < 4000

    other = other_companion.test_client()
    resp = other.get(EDITIONS + "/receive", query_string={"link": link})  # pasted on the other companion
    assert resp.status_code == 303
    page = other.get(resp.headers["Location"]).get_data(as_text=True)
    assert "Truffle box" in page and "truffle" in page and 'data-testid="receive-import"' in page
    assert names(other_companion.extensions["store"]) == []  # opening the link imports nothing by itself
    code = re.search(r'name="code" value="([^"]+)"', page).group(1)
    resp = other.post(EDITIONS + "/receive", data={"code": code, "name": "Truffle box", "csrf_token": csrf_from(page)})
    assert resp.status_code == 303 and "/editions/e/Truffle" in resp.headers["Location"]
    theirs = other_companion.extensions["store"].document("dice_and_slice", "editions", "Truffle box")
    assert theirs.data == store.document("dice_and_slice", "editions", "Truffle box").data
    # the copy belongs to the browser that imported it there
    assert 'data-testid="delete-edition"' in other.get(EDITIONS + "/e/Truffle box").get_data(as_text=True)
    # the same link again: the name is taken, so it arrives as "(2)"
    resp = other.post(EDITIONS + "/receive", data={"code": code, "csrf_token": csrf_from(page)})
    assert urllib.parse.unquote(resp.headers["Location"]).startswith(EDITIONS + "/e/Truffle box (2)?")
    assert names(other_companion.extensions["store"]) == ["Truffle box", "Truffle box (2)"]


def test_damaged_or_oversized_links_are_refused_and_nothing_is_imported(client, store):
    good = share_code("Blue", {**distinctive_data(client)})
    for code, status, says in [
        (good[:-40], 400, "incomplete or damaged"),          # cut short when copied
        (good[:20] + "!!" + good[22:], 400, "incomplete or damaged"),
        ("A" * (MAX_CODE_CHARS + 1), 400, "incomplete or damaged"),
        (pack(b"{" * 10 + b"x" * (70 * 1024)), 413, "more than 64 KiB"),  # a zip bomb stays unpacked
        (pack(b'{"format": "companion-edition", "version": 1, "game": "dicez", "name": "x", "edition": {}}'),
         422, "another game"),
    ]:
        resp = client.get(f"{EDITIONS}/receive/{code}")
        assert resp.status_code == status and says in resp.get_data(as_text=True), says
        csrf = csrf_from(client.get(EDITIONS).get_data(as_text=True))
        resp = client.post(EDITIONS + "/receive", data={"code": code, "csrf_token": csrf})
        assert resp.status_code == status and says in resp.get_data(as_text=True)
    assert names(store) == []
    resp = client.get(EDITIONS + "/receive", query_string={"link": "  "})
    assert resp.status_code == 400 and "Paste the whole share link" in resp.get_data(as_text=True)


def test_an_edition_too_large_for_a_link_points_to_the_file(client, store):
    data = distinctive_data(client)
    data["note"] = secrets.token_urlsafe(4000)  # random text does not compress
    assert share_code("Huge", data) is None
    from companion.platform.web.context import Collection

    Collection(store, "dice_and_slice", "editions").save("Huge", data)
    page = client.get(f"{EDITIONS}/share/Huge").get_data(as_text=True)
    assert 'data-testid="share-too-large"' in page and "Export as a file" in page


def pack(raw: bytes) -> str:
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).rstrip(b"=").decode()


def distinctive_data(client) -> dict:
    from companion.games.dice_and_slice.editions import form_to_edition

    return form_to_edition(distinctive(client, "x"))


def test_the_share_page_stays_light_with_its_qr_code(client):
    """The QR code of a long share link travels as a small PNG, not a path of tens of kilobytes."""
    assert client.post(EDITIONS, data=distinctive(client, "Heavy box")).status_code == 303
    page = client.get(f"{EDITIONS}/share/Heavy box").get_data(as_text=True)
    link = html.unescape(re.search(r'value="([^"]+)" data-testid="share-link"', page).group(1))
    png = base64.b64decode(re.search(r'src="data:image/png;base64,([^"]+)"', page).group(1))
    code = Image.open(io.BytesIO(png)).convert("L")
    expected = qrcode.QRCode(border=2)
    expected.add_data(link)
    expected.make(fit=True)
    modules = expected.get_matrix()  # the share link's code, its quiet border included; True is dark
    assert code.size == (len(modules), len(modules))  # one pixel a module
    assert [[code.getpixel((x, y)) < 128 for x in range(code.width)] for y in range(code.height)] == modules
    assert len(page.encode()) < 20_000, len(page.encode())
