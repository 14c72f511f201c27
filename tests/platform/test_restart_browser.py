"""A server restart in the middle of a game loses nothing, and phones carry on without a reload."""
from __future__ import annotations

import os

import pytest
from playwright.sync_api import expect

from tests.browser_fixtures import ROOT, _free_port, join_as, start_dicez_table, start_server, tap_dice

pytestmark = pytest.mark.browser


start = start_server


def test_phones_survive_a_server_restart(tmp_path, phone):
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'companion.sqlite'}",
           "SECRET_KEY": "restart-test", "PYTHONPATH": str(ROOT)}
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    server = start(port, env, tmp_path / "server.log")
    try:
        host = phone()
        join_url = start_dicez_table(host, base, ["Ann", "Ben"])
        ann, ben = phone(), phone()
        join_as(ann, join_url, "Ann")
        join_as(ben, join_url, "Ben")
        tap_dice(ann, [6, 6, 6, 1, 2])
        expect(ann.locator('[data-testid="score-sixes"]')).to_have_text("18")
        ann.locator('[data-testid="score-sixes"]').click()
        expect(ann.locator('[data-testid="box-sixes"]')).to_have_text("18")

        server.terminate()
        server.wait(timeout=10)
        server = start(port, env, tmp_path / "server.log")  # the same database, a new process: nothing kept in memory

        # Ben's phone was left open: it keeps polling and scores on the new process
        tap_dice(ben, [5, 5, 5, 5, 5])
        expect(ben.locator('[data-testid="score-dicez"]')).to_have_text("50")
        ben.locator('[data-testid="score-dicez"]').click()
        expect(ben.locator('[data-testid="box-dicez"]')).to_have_text("50")
        # Ann's open page follows live, and a reload shows her sheet as it was
        expect(ann.locator('[data-testid="total-1"]')).to_have_text("50", timeout=3000)
        ann.reload()
        expect(ann.locator('[data-testid="box-sixes"]')).to_have_text("18")
        expect(ann.locator('[data-testid="my-total"]')).to_have_text("18")
    finally:
        server.terminate()
        server.wait(timeout=10)
