"""The join link and QR code name an address phones can open (issue 34 item 11): a host screen
opened on the server itself (127.0.0.1) gives the computer's network address instead, and a server
that phones cannot reach at all says so on the host screen."""
from __future__ import annotations

import pytest

from companion.platform.web.address import base_for_phones, is_loopback, lan_address
from tests.helpers import new_table


def host_page(client, base: str) -> tuple[str, dict]:
    """The host screen of a new table, opened at `base` as the host's browser would."""
    table = new_table(client, ["Ann", "Ben"], seat_tokens=False)
    host = base.split("//", 1)[1].split(":")[0]
    client.set_cookie(f"host_{table['code']}", table["host_token"], domain=host)
    resp = client.get(f"/t/{table['code']}/host", base_url=base)
    assert resp.status_code == 200
    return resp.get_data(as_text=True), table


def test_a_host_screen_opened_on_the_server_itself_gives_phones_the_network_address(app, client):
    app.config["PUBLIC_URL"] = None
    page, table = host_page(client, "http://127.0.0.1:8000")
    lan = lan_address()
    if lan.startswith("127."):
        pytest.skip("this machine has no network address to give")
    assert f'href="http://{lan}:8000/t/{table["code"]}/j/' in page
    assert "http://127.0.0.1:8000/t/" not in page
    assert 'data-testid="join-warning"' not in page


def test_a_host_screen_opened_at_a_network_address_keeps_it(app, client):
    app.config["PUBLIC_URL"] = None
    page, table = host_page(client, "http://192.168.1.20:8000")
    assert f'href="http://192.168.1.20:8000/t/{table["code"]}/j/' in page
    assert 'data-testid="join-warning"' not in page


def test_a_server_phones_cannot_reach_warns_the_host(app, client):
    app.config["PUBLIC_URL"] = "http://127.0.0.1:8000/"  # as `python -m companion --host 127.0.0.1` sets it
    page, _ = host_page(client, "http://127.0.0.1:8000")
    assert 'data-testid="join-warning"' in page
    assert "Phones cannot open this link" in page and "(127.0.0.1)" in page


@pytest.mark.parametrize("host, loopback", [("127.0.0.1", True), ("127.0.1.1", True), ("::1", True),
                                            ("[::1]", True), ("localhost", True), ("LOCALHOST", True),
                                            ("192.168.1.20", False), ("games.example.org", False), (None, False)])
def test_loopback_addresses_are_told_apart_from_network_ones(host, loopback):
    assert is_loopback(host) is loopback


def test_an_address_phones_can_reach_is_kept_as_it_is():
    assert base_for_phones("http://10.0.0.5:8000/") == "http://10.0.0.5:8000/"
    assert base_for_phones("https://games.example.org/") == "https://games.example.org/"
