"""Real servers and a real headless Chromium for the browser tests.

Two server processes share one SQLite file, so the tests also show that live updates
need nothing kept inside a single process.
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-quic"]
ROOT = Path(__file__).resolve().parents[1]
PHONE = {"viewport": {"width": 360, "height": 640}, "device_scale_factor": 2, "is_mobile": True,
         "has_touch": True}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def free_ports(n: int) -> list[int]:
    """`n` different ports nothing listens on (each held until all are chosen, so none twice)."""
    held = []
    try:
        for _ in range(n):
            s = socket.socket()
            held.append(s)
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in held]
    finally:
        for s in held:
            s.close()


def _wait_for(port: int, proc: subprocess.Popen, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            output = open(proc.log_path).read() if hasattr(proc, "log_path") else ""
            raise RuntimeError(f"server exited early: {output}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.02)  # a server takes about a second to start: look often
    raise RuntimeError("server did not start")


def _launch(port: int, env: dict, log_path) -> subprocess.Popen:
    log = open(log_path, "a")  # a file, not a pipe: nobody reads it while tests run
    proc = subprocess.Popen([sys.executable, "-m", "companion", "--host", "127.0.0.1", "--port", str(port)],
                            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, text=True)
    proc.log_path = log_path
    return proc


def start_server(port: int, env: dict, log_path) -> subprocess.Popen:
    """`python -m companion` on loopback as a user starts it, its output appended to `log_path`."""
    return start_servers([(port, env, log_path)])[0]


def start_servers(specs) -> list[subprocess.Popen]:
    """Several servers, each (port, env, log_path) as for start_server, launched together and then
    waited for: each process's start (imports, the app, its tables) overlaps the others'."""
    procs = []
    try:
        for port, env, log_path in specs:
            procs.append(_launch(port, env, log_path))
        for (port, _, _), proc in zip(specs, procs):
            _wait_for(port, proc)
    except BaseException:
        for proc in procs:
            proc.terminate()
            proc.wait(timeout=10)
        raise
    return procs


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    """Base URLs of two server processes on one database, fresh for each module: what a module's
    tests leave behind (tables, rate limit counts kept in each process) never reaches another."""
    tmp = tmp_path_factory.mktemp("servers")
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp / 'companion.sqlite'}",
           "SECRET_KEY": "browser-test-secret", "PYTHONPATH": str(ROOT),
           "TABLES_PER_CLIENT": "10000 per minute"}  # a module's tests start many tables from one address
    ports = free_ports(2)
    procs = start_servers([(port, env, tmp / f"server-{port}.log") for port in ports])
    yield [f"http://127.0.0.1:{port}" for port in ports]
    for proc in procs:
        proc.terminate()
        proc.wait(timeout=10)


CHROMIUM_FIXTURE = "_chromium"  # every fixture that starts Chromium (browser, phone) depends on it


def tests_missing_the_browser_marker(items) -> list[str]:
    """The tests that start Chromium (through any fixture that depends on CHROMIUM_FIXTURE) and do
    not carry the `browser` marker."""
    return [item.nodeid for item in items
            if CHROMIUM_FIXTURE in getattr(item, "fixturenames", ()) and item.get_closest_marker("browser") is None]


@pytest.hookimpl(tryfirst=True)  # before `-m "not browser"` deselects anything
def pytest_collection_modifyitems(config, items):
    """`-m "not browser"` must leave out every test that starts Chromium: one without the marker
    stops the run before any test runs."""
    missing = tests_missing_the_browser_marker(items)
    if missing:
        raise pytest.UsageError("These tests start Chromium but lack @pytest.mark.browser:\n  "
                                + "\n  ".join(missing))


@pytest.fixture(scope="session")
def _chromium():
    """One headless Chromium for the whole run (launching it and Playwright's driver takes about a
    second): every test gets browser contexts of its own, each with its own cookies and storage."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium not found at {CHROMIUM}: install Debian's chromium (scripts/test.sh does).")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def browser(_chromium):
    """The run's Chromium, for one module: a context its tests left open (a test that failed before
    closing its own) is closed with the module, as if the module had had a browser of its own."""
    yield _chromium
    for ctx in list(_chromium.contexts):
        ctx.close()


@pytest.fixture
def phone(browser):
    """Make phone-sized browser contexts, each one a separate phone with its own cookies."""
    contexts = []

    def make(**extra):
        ctx = browser.new_context(**{**PHONE, **extra})
        ctx.set_default_timeout(10_000)
        contexts.append(ctx)
        return ctx.new_page()

    yield make
    for ctx in contexts:
        ctx.close()


def fill_players(host, names) -> None:
    """Type the players' names on the start page (after choosing the game), tapping "Add a player"
    whenever the game's first fields are all used."""
    for i, name in enumerate(names):
        field = host.locator(f'input[name="player{i}"]')
        if not field.is_visible():
            host.click("[data-add-player]")
        field.fill(name)


def start_dicez_table(host, base: str, names, turn_order: bool = True) -> str:
    """On the host's page, start a DiceZ table for `names` (in seat order, or in free play with
    `turn_order=False`); return the join URL it shows."""
    host.goto(base + "/")
    fill_players(host, names)
    if not turn_order:
        host.locator("details.options", has_text="DiceZ options").locator("summary").click()
        host.uncheck('[data-testid="dicez-turn-order"]')
    host.click("text=Start the table")
    return host.locator(".join-url").get_attribute("href")


def tap_dice(page, dice) -> None:
    """Enter a DiceZ throw as a player does: clear the slots, then tap each die's face in turn."""
    page.locator('[data-testid="clear-dice"]').click()
    for value in dice:
        page.locator(f'[data-testid="face-{value}"]').click()


def table_code(join_url: str) -> str:
    """The table code in a join link (…/t/<code>/j/<secret>)."""
    return join_url.split("/t/", 1)[1].split("/")[0]


def join_as(page, join_url: str, name: str) -> None:
    page.goto(join_url)
    page.click(f"text=I am {name}")


SETTLED = """v => {
  const seen = document.getElementById('live-seen');
  return seen && Number(seen.dataset.version.split('.')[1]) >= v
    && !document.querySelector('.htmx-request');
}"""


def settle(page, base: str, code: str) -> None:
    """Wait until `page` has caught up with the table's latest entry and its own refresh is done,
    as a player waits for the screen to show the others' moves before tapping. A page already past
    that entry has caught up too: a tap of its own may land between the read and the wait."""
    import json
    import urllib.request

    with urllib.request.urlopen(f"{base}/api/tables/{code}") as resp:
        version = json.loads(resp.read())["version"]
    for _ in range(2):  # twice: a refresh queued behind another request starts right after it
        page.wait_for_function(SETTLED, arg=version)
        page.wait_for_timeout(150)
