"""Byte budgets a phone on a venue's Wi-Fi cares about (sizes, so deterministic): a sheet's first load
at most 25 KB compressed, and what a page fetches after a change at most 5 KB, for every game at its
largest player count, at the start and late in a game."""
from __future__ import annotations

import pytest

from companion.platform.core.registry import GAMES
from tests.wire import change_fragments, fetch, first_load, played_table

FIRST_LOAD = 25 * 1024
FRAGMENT = 5 * 1024


@pytest.fixture(scope="module")
def wire_app(tmp_path_factory):
    from companion import create_app
    folder = tmp_path_factory.mktemp("wire")
    app = create_app({"DATABASE_URL": f"sqlite:///{folder / 'wire.sqlite'}", "TESTING": True,
                      "SECRET_KEY": "test-secret"})
    yield app
    app.extensions["store"].dispose()


@pytest.mark.parametrize("game_id", list(GAMES))
@pytest.mark.parametrize("share", [0.0, 0.9])
def test_first_load_and_change_fragments_fit_their_budgets(wire_app, game_id, share):
    client = wire_app.test_client()
    table = played_table(client, game_id, GAMES[game_id].max_players, share)
    load, files = first_load(client, table["code"], 0)
    assert files, "the sheet loads its style sheets and scripts"
    assert load.br <= FIRST_LOAD, f"{game_id}: first load {load}"
    for name, path in change_fragments(table["code"], 0).items():
        sizes = fetch(client, path)
        assert sizes.br <= FRAGMENT, f"{game_id} {name}: {sizes}"
