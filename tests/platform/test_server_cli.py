"""`python -m companion`: the address and QR code the host sees in the terminal, and the open-file
limit it serves with."""
from __future__ import annotations

import subprocess
import sys

import pytest

from companion.platform.web.serve import raise_open_file_limit
from companion.platform.web.address import interface_addresses, lan_address
from companion.platform.web.qr import terminal_qr


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


def test_the_server_lifts_its_open_file_limit_to_the_hard_limit():
    """Each phone's open page is an open file: at 1,024 a venue of a thousand phones would be turned away."""
    resource = pytest.importorskip("resource")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard <= 1024:
        pytest.skip(f"this machine allows only {hard} open files per process")
    # in a process of its own started at 1,024, as a shell often starts one
    check = ("import resource; from companion.platform.web.serve import raise_open_file_limit as lift; "
             "now = lift(); print(now, *resource.getrlimit(resource.RLIMIT_NOFILE))")
    out = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, check=True,
                         preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (1024, hard))).stdout
    said, now_soft, now_hard = map(int, out.split())
    assert said == now_soft and now_hard == hard
    assert now_soft == hard if hard != resource.RLIM_INFINITY else now_soft >= 10_240


class _OpenFileRules:
    """The `resource` calls of a system whose rules can't run here: it reports `soft` and `hard`, and
    refuses any soft limit above `per_process` (an unlimited one included)."""

    RLIMIT_NOFILE, RLIM_INFINITY = 7, 2**63 - 1

    def __init__(self, soft: int, hard: int, per_process: int):
        self.limits, self.per_process = (soft, hard), per_process

    def getrlimit(self, which):
        return self.limits

    def setrlimit(self, which, limits):
        if limits[0] > self.per_process:
            raise ValueError("current limit exceeds maximum limit")
        self.limits = limits


@pytest.mark.parametrize("system, soft, per_process, expected", [
    # macOS: 256 open files, an unlimited hard limit it will not grant, kern.maxfilesperproc above OPEN_MAX
    ("macOS", 256, 24_576, 10_240),
    ("macOS, an older one", 256, 10_240, 10_240),
    # Linux with `ulimit -Hn unlimited`: the kernel still caps a process at fs.nr_open
    ("Linux, unlimited hard limit", 1024, 1_048_576, 1_048_576),
])
def test_the_open_file_limit_is_lifted_where_the_hard_limit_cannot_be_taken(system, soft, per_process, expected):
    rules = _OpenFileRules(soft, _OpenFileRules.RLIM_INFINITY, per_process)
    assert raise_open_file_limit(rules) == expected
    assert rules.getrlimit(rules.RLIMIT_NOFILE) == (expected, _OpenFileRules.RLIM_INFINITY)


def test_a_limit_that_cannot_be_lifted_is_kept():
    rules = _OpenFileRules(256, _OpenFileRules.RLIM_INFINITY, 1_000)  # less than any soft limit asked for
    assert raise_open_file_limit(rules) == 256
    assert rules.getrlimit(rules.RLIMIT_NOFILE)[0] == 256
