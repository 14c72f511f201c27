"""Fixtures: a fresh app on a real database per test (every test's, the games' own included: the
conftest.py at the top of the checkout loads this module).

Storage and API tests run on a temporary SQLite file, and also on PostgreSQL when
TEST_DATABASE_URL is set (each test in a schema of its own, dropped afterwards).
"""
from __future__ import annotations

import os
import uuid

import pytest
from flask.testing import FlaskClient
from sqlalchemy import create_engine, text

from companion import create_app
from companion.games import every_game
from companion.platform.store.engines import normalize_url
from companion.platform.core.registry import register

# The composition root's games, for tests that use a game without building an app (an app registers
# the games it is handed, the same ones)
for _game in every_game().values():
    register(_game)

DB_KINDS = ["sqlite"] + (["postgresql"] if os.environ.get("TEST_DATABASE_URL") else [])


@pytest.fixture(params=DB_KINDS)
def db_url(request, tmp_path):
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'companion.sqlite'}"
        return
    base = normalize_url(os.environ["TEST_DATABASE_URL"])
    schema = f"t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(base)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    sep = "&" if "?" in base else "?"
    yield f"{base}{sep}options=-csearch_path%3D{schema}"
    with admin.begin() as conn:
        conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
    admin.dispose()


class ServedClient(FlaskClient):
    """Flask's test client, closing each answer once it has it whole, as a WSGI server does after
    sending it (what the app does once the answer is sent, such as telling a table's live streams
    of a change, happens then). An event stream, which never ends, is left open to be read as it
    comes; so is any answer asked for with an explicit `buffered=False`."""

    def open(self, *args, buffered: bool | None = None, **kwargs):
        if buffered is not None:
            return super().open(*args, buffered=buffered, **kwargs)
        response = super().open(*args, **kwargs)
        if response.mimetype != "text/event-stream":
            response.make_sequence()  # the whole answer, as a server sends it
            response.close()
        return response


def served_app(config: dict):
    """`create_app(config)` whose test clients read and close each answer as a server does."""
    app = create_app(config)
    app.test_client_class = ServedClient
    return app


@pytest.fixture
def app(db_url, tmp_path):
    # a test may start many tables from one client; test_table_limits.py checks the real limit on its own app
    app = served_app({"DATABASE_URL": db_url, "TESTING": True, "SECRET_KEY": "test-secret",
                      "TABLES_PER_CLIENT": "10000 per minute"})
    yield app
    app.extensions["store"].dispose()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def store(app):
    return app.extensions["store"]
