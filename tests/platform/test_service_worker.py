"""The service worker that opens a sheet without a connection (static/sw.js) is served from the top
of the site, so its scope covers every sheet, asked afresh each time, under the app's security headers;
and a proxy's path prefix reaches the page's link to it."""
from __future__ import annotations

import re

import pytest

from companion import create_app


@pytest.fixture
def client(tmp_path):
    app = create_app({"DATABASE_URL": f"sqlite:///{tmp_path / 'sw.sqlite'}", "TESTING": True,
                      "SECRET_KEY": "test-secret"})
    yield app.test_client()
    app.extensions["store"].dispose()


def test_the_worker_is_served_at_the_top_and_never_kept_stale(client):
    resp = client.get("/sw.js")
    assert resp.status_code == 200
    assert resp.mimetype in ("text/javascript", "application/javascript")
    assert resp.headers["Cache-Control"] == "no-cache"
    assert "script-src 'self'" in resp.headers["Content-Security-Policy"]
    body = resp.get_data(as_text=True)
    # it reads the cache that the page's offline script fills
    assert "companion-offline-v1" in body
    assert "companion-offline-v1" in client.get("/static/offline.js").get_data(as_text=True)


def test_a_page_names_its_offline_script_whose_folder_leads_back_to_the_worker(client):
    page = client.get("/").get_data(as_text=True)
    src = re.search(r'data-offline-js="([^"]+)"', page).group(1)
    assert src.startswith("/static/bundles/page-offline.js?v=")  # static/offline.js finds /sw.js two folders up
    assert client.get(src.replace("&amp;", "&")).status_code == 200
