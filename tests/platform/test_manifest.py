"""Installable: every page links a web app manifest that opens the app full screen from the home
screen, with PNG icons of 192 and 512 px that are served (issue 12, item 6)."""
from __future__ import annotations

import json
import re
import struct
from urllib.parse import urljoin, urlsplit

import pytest


def _manifest_url(html: str) -> str:
    found = re.search(r'<link rel="manifest" href="([^"]+)">', html)
    assert found, "the page links no manifest"
    return found.group(1)


def _png_size(body: bytes) -> tuple[int, int]:
    assert body[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", body[16:24])


@pytest.mark.parametrize("path", ["/", "/history", "/rules/dicez"])
def test_pages_link_a_manifest_for_a_full_screen_app_with_icons(client, path):
    url = _manifest_url(client.get(path).get_data(as_text=True))
    resp = client.get(url)
    assert resp.status_code == 200
    assert resp.mimetype == "application/manifest+json"
    manifest = json.loads(resp.get_data(as_text=True))
    assert manifest["display"] == "standalone"
    assert manifest["name"] and manifest["short_name"]
    assert client.get(manifest["start_url"]).status_code == 200  # the start page
    assert manifest["start_url"].startswith(manifest["scope"])
    sizes = set()
    for icon in manifest["icons"]:
        icon_resp = client.get(urlsplit(urljoin(url, icon["src"])).path)
        assert icon_resp.status_code == 200 and icon_resp.mimetype == icon["type"] == "image/png"
        width, height = _png_size(icon_resp.get_data())
        assert icon["sizes"] == f"{width}x{height}"
        sizes.add(width)
    assert {192, 512} <= sizes


def test_a_sheet_links_the_manifest_too(client):
    from tests.helpers import join_seat, new_table

    table = new_table(client, ["Ann", "Ben"])
    join_seat(client, table["code"], 0)
    html = client.get(f"/t/{table['code']}/s/0").get_data(as_text=True)
    assert _manifest_url(html).startswith("/static/manifest.webmanifest")
