"""`python -m companion`: the address and QR code the host sees in the terminal."""
from __future__ import annotations

from companion.__main__ import interface_addresses, lan_address
from companion.platform.qr import terminal_qr


def test_the_printed_address_is_one_phones_can_reach():
    reachable = [a for a in interface_addresses() if not a.startswith("127.")]
    if reachable:
        assert lan_address() in reachable
    else:  # a machine with no network at all: loopback is all there is
        assert lan_address() == "127.0.0.1"


def test_terminal_qr_code_is_drawn_in_block_characters():
    art = terminal_qr("http://192.168.1.20:8000/")
    lines = art.strip("\n").splitlines()
    assert len(lines) > 10 and len({len(line) for line in lines}) == 1  # a square of equal rows
    assert set("".join(lines)) <= set("█▀▄ \xa0")
