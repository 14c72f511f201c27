"""Light on the wire: compressed answers, versioned static files a phone keeps, cacheable QR codes."""
from __future__ import annotations

import gzip
import re
from pathlib import Path

import brotli
import pytest
from flask import Response

from companion import create_app
from companion.platform.core.registry import GAMES
from companion.platform.web.wire import BUNDLES, FRAGMENT_BR_LEVEL, FRAGMENT_GZIP_LEVEL, JOINERS, StaticFiles, minified
from tests.helpers import join_seat, new_table, post_entry, start_table_page

STATIC = Path(__file__).resolve().parents[2] / "static"


def _sheet(client):
    code = start_table_page(client, player0="Ann", player1="Ben")
    join_seat(client, code, 0)
    return code


def test_pages_go_out_brotli_or_gzip_as_the_phone_accepts(client):
    code = _sheet(client)
    plain = client.get(f"/t/{code}/s/0/sheet").get_data()
    for encoding, decode in (("br", brotli.decompress), ("gzip", gzip.decompress)):
        resp = client.get(f"/t/{code}/s/0/sheet", headers={"Accept-Encoding": encoding})
        assert resp.headers["Content-Encoding"] == encoding
        assert "Accept-Encoding" in resp.headers["Vary"]
        body = decode(resp.get_data())
        assert len(resp.get_data()) * 3 < len(body)
        # the same sheet (each render carries a fresh form key)
        assert re.sub(rb'value="[^"]{16}"', b"", body) == re.sub(rb'value="[^"]{16}"', b"", plain)
    assert "Content-Encoding" not in client.get(f"/t/{code}/s/0/sheet").headers  # none accepted


def test_a_fragment_a_phone_fetches_goes_out_at_the_fragment_level(client):
    code = _sheet(client)
    htmx = {"HX-Request": "true"}
    plain = client.get(f"/t/{code}/s/0/sheet", headers=htmx).get_data()
    resp = client.get(f"/t/{code}/s/0/sheet", headers={**htmx, "Accept-Encoding": "gzip, deflate, br"})
    assert resp.headers["Content-Encoding"] == "br" and "Accept-Encoding" in resp.headers["Vary"]
    body = brotli.decompress(resp.get_data())
    assert re.sub(rb'value="[^"]{16}"', b"", body) == re.sub(rb'value="[^"]{16}"', b"", plain)
    # drawn at the lighter level; the page itself (a first load, no htmx) at Flask-Compress's
    assert len(resp.get_data()) == len(brotli.compress(body, quality=FRAGMENT_BR_LEVEL))
    page = client.get(f"/t/{code}/s/0", headers={"Accept-Encoding": "br"}).get_data()
    assert len(page) == len(brotli.compress(brotli.decompress(page), quality=client.application.config["COMPRESS_BR_LEVEL"]))
    assert FRAGMENT_BR_LEVEL < client.application.config["COMPRESS_BR_LEVEL"]
    # a phone that takes only gzip (a plain-http LAN) gets gzip, at the lighter level too
    resp = client.get(f"/t/{code}/s/0/sheet", headers={**htmx, "Accept-Encoding": "gzip"})
    assert resp.headers["Content-Encoding"] == "gzip" and "Accept-Encoding" in resp.headers["Vary"]
    body = gzip.decompress(resp.get_data())
    assert re.sub(rb'value="[^"]{16}"', b"", body) == re.sub(rb'value="[^"]{16}"', b"", plain)
    assert len(resp.get_data()) == len(gzip.compress(body, compresslevel=FRAGMENT_GZIP_LEVEL, mtime=0))
    assert FRAGMENT_GZIP_LEVEL < client.application.config["COMPRESS_LEVEL"]


def test_a_tiny_answer_is_not_compressed(client):
    code = _sheet(client)
    resp = client.get(f"/t/{code}/poll?v=0.0.0", headers={"Accept-Encoding": "br, gzip"})
    assert resp.status_code == 200 and len(resp.get_data()) < 500
    assert "Content-Encoding" not in resp.headers


def test_an_event_stream_goes_out_uncompressed_event_by_event(db_url):
    app = create_app({"DATABASE_URL": db_url, "TESTING": True, "SECRET_KEY": "test-secret"})
    sent = []

    def events():
        for n in range(3):
            sent.append(n)
            yield f"data: {'x' * 600} {n}\n\n"

    app.add_url_rule("/stream-probe", "stream_probe",
                     lambda: Response(events(), mimetype="text/event-stream"))
    resp = app.test_client().get("/stream-probe", headers={"Accept-Encoding": "br, gzip"}, buffered=False)
    assert "Content-Encoding" not in resp.headers
    chunks = iter(resp.response)
    assert next(chunks).endswith(b" 0\n\n") and sent == [0]  # the first event is out before the second exists
    resp.close()
    app.extensions["store"].dispose()


def _alone(app, name: str) -> bytes:
    """What a file under static/ should go out as: a script of ours as terser made it (X.min.js),
    another script or style sheet minified, anything else as it is."""
    made = app.extensions["static_files"].path(name[:-3] + ".min.js") if name.endswith(".js") else None
    if made:
        return Path(made).read_bytes()
    return minified(name, Path(app.extensions["static_files"].path(name)).read_bytes())


def _bundle_body(app, name: str) -> bytes:
    """What a bundle should be: its files, each as it goes out alone, in the order declared."""
    members = app.extensions["static_files"].bundles[name]
    return JOINERS[Path(name).suffix].join(_alone(app, m) for m in members)


def _expected(app, name: str) -> bytes:
    return _bundle_body(app, name[len(BUNDLES):]) if name.startswith(BUNDLES) else _alone(app, name)


def _sent(resp) -> bytes:
    decode = {"br": brotli.decompress, "gzip": gzip.decompress}.get(resp.headers.get("Content-Encoding"), bytes)
    return decode(resp.get_data())


def test_static_files_have_versioned_urls_kept_for_a_year(client, app):
    html = client.get("/").get_data(as_text=True)
    urls = re.findall(r'(?:href|src)="(/static/[^"]+)"', html)
    assert {u.split("?")[0] for u in urls} >= {"/static/bundles/start.css", "/static/bundles/start.js",
                                               "/static/manifest.webmanifest"}
    for url in urls:
        assert re.search(r"\?v=[0-9a-f]{12}$", url), url
        resp = client.get(url, headers={"Accept-Encoding": "br"})
        assert resp.headers["Cache-Control"] == "public, max-age=31536000, immutable"
        assert _sent(resp) == _expected(app, url[len("/static/"):].split("?")[0])


def test_a_changed_file_gets_a_new_url_and_an_old_url_is_not_kept_long(client, app):
    for name in ("bundles/start.js", "app.js"):
        for stale in (f"/static/{name}", f"/static/{name}?v=000000000000"):
            resp = client.get(stale)
            assert resp.headers["Cache-Control"] == "public, max-age=300"
            assert resp.get_data() == _expected(app, name)
    url = re.search(r'src="(/static/bundles/start.js\?v=[^"]+)"', client.get("/").get_data(as_text=True)).group(1)
    assert url != "/static/bundles/start.js?v=000000000000"


def test_our_scripts_and_styles_go_out_minified_and_htmx_as_it_is(client):
    for name in ("app.js", "app.css"):
        sent = client.get(f"/static/{name}").get_data()
        assert len(sent) * 10 < len((STATIC / name).read_bytes()) * 9 and b"\n  " not in sent
    assert client.get("/static/htmx-2.0.11.min.js").get_data() == (STATIC / "htmx-2.0.11.min.js").read_bytes()


def test_a_static_file_revalidates_with_304(client):
    for encoding in ("gzip", "identity"):
        first = client.get("/static/app.css", headers={"Accept-Encoding": encoding})
        again = client.get("/static/app.css", headers={"Accept-Encoding": encoding,
                                                       "If-None-Match": first.headers["ETag"]})
        assert again.status_code == 304 and not again.get_data()


def test_a_missing_or_outside_static_file_is_404(client):
    for path in ("/static/nope.js", "/static/../pyproject.toml", "/static/%2e%2e/pyproject.toml"):
        assert client.get(path).status_code == 404


def test_a_bundle_is_its_files_in_order_and_goes_out_compressed_as_a_whole(client, app):
    assert client.get("/static/bundles/page.js").get_data() == (
        (STATIC / "htmx-2.0.11.min.js").read_bytes() + b"\n;" + (STATIC / "app.min.js").read_bytes())
    for name in app.extensions["static_files"].bundles:
        plain = client.get(f"/static/bundles/{name}")
        assert plain.get_data() == _bundle_body(app, name), name
        assert plain.mimetype == ("text/css" if name.endswith(".css") else "text/javascript")
    for name in ("dicez.js", "dicez.css"):
        plain = client.get(f"/static/bundles/{name}").get_data()
        for encoding in ("br", "gzip"):
            resp = client.get(f"/static/bundles/{name}", headers={"Accept-Encoding": encoding})
            assert resp.headers["Content-Encoding"] == encoding and "Accept-Encoding" in resp.headers["Vary"]
            assert _sent(resp) == plain and len(resp.get_data()) * 3 < len(plain)


def test_a_bundle_is_kept_a_year_under_its_version_and_revalidates_with_304(client):
    html = client.get(f"/t/{_sheet(client)}/s/0").get_data(as_text=True)
    urls = re.findall(r'(?:href|src)="(/static/bundles/[^"]+)"', html)
    assert [u.split("?")[0] for u in urls] == ["/static/bundles/dicez.css", "/static/bundles/dicez.js"]
    for url in urls:
        assert client.get(url).headers["Cache-Control"] == "public, max-age=31536000, immutable"
        assert client.get(url.split("?")[0]).headers["Cache-Control"] == "public, max-age=300"
        for encoding in ("br", "gzip", "identity"):
            first = client.get(url, headers={"Accept-Encoding": encoding})
            again = client.get(url, headers={"Accept-Encoding": encoding, "If-None-Match": first.headers["ETag"]})
            assert again.status_code == 304 and not again.get_data()
        assert client.get(url).headers["ETag"] == f'"{url.split("?v=")[1]}"'  # the version is the content's hash


def test_an_unknown_bundle_is_404_and_a_bundle_url_reaches_no_other_file(client):
    for path in ("/static/bundles/nope.js", "/static/bundles/app.css", "/static/bundles/../app.js",
                 "/static/bundles/%2e%2e/app.js", "/static/bundles/page.js/app.js", "/static/bundles/page",
                 "/static/bundles/", "/static/bundles/../../pyproject.toml"):
        assert client.get(path).status_code == 404, path


def test_a_bundle_holds_only_scripts_or_only_style_sheets_from_static(app):
    files = StaticFiles(str(STATIC))
    for name, members in (("x.js", ["../pyproject.toml"]), ("x.js", ["/etc/passwd"]), ("x.js", ["app.css"]),
                          ("x.css", ["nope.css"]), ("x.txt", ["app.js"]), ("a/x.js", ["app.js"])):
        with pytest.raises(ValueError):
            files.add_bundle(name, members)
    with app.test_request_context(), pytest.raises(KeyError):
        app.extensions["static_files"].bundle_url("nope.js")


@pytest.mark.parametrize("game_id", [game_id for game_id, game in GAMES.items() if game.web])
def test_a_sheet_page_loads_one_script_and_one_style_sheet(client, game_id):
    table = new_table(client, game=game_id)
    join_seat(client, table["code"], 0)
    html = client.get(f"/t/{table['code']}/s/0").get_data(as_text=True)
    assert re.findall(r'<script src="([^"?]+)', html) == [f"/static/bundles/{game_id}.js"]
    assert re.findall(r'<link rel="stylesheet" href="([^"?]+)', html) == [f"/static/bundles/{game_id}.css"]
    assert html.count("<script") == 1 and html.count('rel="stylesheet"') == 1


def test_table_state_etag_answers_304_when_compressed(client):
    table = new_table(client)
    url, accept = f"/api/tables/{table['code']}", {"Accept-Encoding": "gzip"}
    first = client.get(url, headers=accept)
    assert first.headers["Content-Encoding"] == "gzip"
    etag = first.headers["ETag"]
    again = client.get(url, headers={**accept, "If-None-Match": etag})
    assert again.status_code == 304 and again.headers["ETag"] == etag
    post_entry(client, table, 0, kind="score", dice=[1, 1, 2, 2, 3], category="ones")
    assert client.get(url, headers={**accept, "If-None-Match": etag}).status_code == 200


def test_the_join_qr_is_kept_a_day_by_the_invited_device_only(client, app):
    code = start_table_page(client, player0="Ann", player1="Ben")
    first = client.get(f"/t/{code}/qr.svg", headers={"Accept-Encoding": "br"})
    assert first.status_code == 200 and first.mimetype == "image/svg+xml"
    assert first.headers["Cache-Control"] == "private, max-age=86400"
    again = client.get(f"/t/{code}/qr.svg", headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and again.headers["Cache-Control"] == "private, max-age=86400"
    assert app.test_client().get(f"/t/{code}/qr.svg").status_code == 403
