"""Light on the wire: compressed answers, static files under versioned URLs that phones keep for a year.

Flask-Compress compresses pages, fragments and JSON per response (brotli or gzip, as the phone accepts).
Static files are read, hashed and compressed at the highest levels once per process, the first time a
page names them: they are the bulk of a first load and never change while the process runs. A bundle
(`/static/bundles/<name>`) is several of them in one answer, declared by name when the app is built, and
served by the same rules as a single file: a page loads one script and one style sheet, and brotli over
the whole is about a kilobyte smaller than over the parts.
"""
from __future__ import annotations

import gzip
import hashlib
import mimetypes
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import brotli
import rcssmin
import rjsmin
from flask import Flask, Response, abort, current_app, request, url_for
from flask_compress import Compress
from werkzeug.security import safe_join

# What Flask-Compress may compress. Never text/event-stream: a live stream must reach the phone event by
# event, and compressing it would hold events back in the compressor's buffer.
COMPRESSED_MIMETYPES = ["text/html", "text/css", "text/javascript", "application/javascript",
                        "application/json", "image/svg+xml", "text/plain", "text/csv", "application/manifest+json"]
mimetypes.add_type("application/manifest+json", ".webmanifest")  # not in every system's mime.types
YEAR = 31536000
UNVERSIONED_MAX_AGE = 300  # a page's old copy names a file without (or with an older) version
ENCODINGS = ("br", "gzip")
# A fragment (an htmx request: a sheet redrawn after a change, a preview) is drawn for one phone and
# sent once, and at a venue the process draws hundreds a second, while its bytes are few (1-5 KB) and
# far under any venue's Wi-Fi. Brotli 2 takes half of level 4's time (35-115 against 70-210 µs for
# 9-52 KB of HTML) for 5-12 % more bytes; gzip 3 half of level 6's (27-145 against 66-320 µs) for
# 5-25 % more. First loads keep brotli 6 and gzip 6 (their 25 KB budget is the tighter one).
# bench/bench_wire.py measures the bytes.
FRAGMENT_BR_LEVEL = 2
FRAGMENT_GZIP_LEVEL = 3
BUNDLES = "bundles/"  # the folder a bundle's URL names; no file under static/ lives there
# Between a bundle's files: a newline ends a file's last line even if it is a comment, and the
# semicolon ends its last statement, so the next file's first line cannot continue it.
JOINERS = {".js": b"\n;", ".css": b"\n"}


@dataclass
class StaticFile:
    mimetype: str
    version: str
    bodies: dict[str, bytes] = field(default_factory=dict)  # by encoding ("identity" for the file itself)

    def body(self, encoding: str) -> bytes:
        if encoding not in self.bodies:
            raw = self.bodies["identity"]
            self.bodies[encoding] = (brotli.compress(raw, quality=11) if encoding == "br"
                                     else gzip.compress(raw, compresslevel=9, mtime=0))
        return self.bodies[encoding]


class StaticFiles:
    """The files under static/, each read once, by name, and the bundles made of them. A name under
    one of `folders`' prefixes (`<game id>/sheet.js`) is read from that folder instead (a game's own)."""

    def __init__(self, folder: str, bundles: Mapping[str, Sequence[str]] | None = None,
                 folders: Mapping[str, str] | None = None):
        self.folder = folder
        self.folders = dict(folders or {})
        self.files: dict[str, StaticFile] = {}
        self.bundles: dict[str, tuple[str, ...]] = {}
        for name, members in (bundles or {}).items():
            self.add_bundle(name, members)

    def add_bundle(self, name: str, members: Sequence[str]) -> None:
        """Declare a bundle: script files for a name ending .js, style sheets for one ending .css."""
        kind = os.path.splitext(name)[1]
        if kind not in JOINERS or "/" in name:
            raise ValueError(f"A bundle is named like 'page.js' or 'page.css', not {name!r}.")
        for member in members:
            if not member.endswith(kind) or self.path(member) is None:
                raise ValueError(f"Bundle {name}: {member!r} is not a {kind} file under static/.")
        self.bundles[name] = tuple(members)

    def get(self, filename: str) -> StaticFile | None:
        # a miss is not kept: any URL can be asked for, and each would stay in memory
        if filename not in self.files:
            found = self._read_bundle(filename) if filename.startswith(BUNDLES) else self._read(filename)
            if found is None:
                return None
            self.files[filename] = found
        return self.files[filename]

    def path(self, filename: str) -> str | None:
        """Where the file a URL under /static/ names is on disk (None: no such file)."""
        prefix, _, rest = filename.partition("/")
        path = safe_join(self.folders[prefix], rest) if rest and prefix in self.folders else safe_join(self.folder, filename)
        return path if path is not None and os.path.isfile(path) else None

    def _read(self, filename: str) -> StaticFile | None:
        path = self.path(filename)
        if path is None:
            return None
        made = self.path(filename[:-3] + ".min.js") if filename.endswith(".js") else None
        with open(made or path, "rb") as f:
            raw = f.read()
        body = raw if made else minified(filename, raw)
        mimetype = mimetypes.guess_type(filename)[0] or "application/octet-stream"
        return StaticFile(mimetype, hashlib.sha256(body).hexdigest()[:12], {"identity": body})

    def _read_bundle(self, filename: str) -> StaticFile | None:
        name = filename[len(BUNDLES):]
        if name not in self.bundles:
            return None
        joiner = JOINERS[os.path.splitext(name)[1]]
        body = joiner.join(self.get(member).bodies["identity"] for member in self.bundles[name])
        return StaticFile(mimetypes.guess_type(name)[0], hashlib.sha256(body).hexdigest()[:12], {"identity": body})

    def bundle_url(self, name: str) -> str:
        """The versioned URL of a declared bundle (a name no bundle has is a mistake in a template)."""
        if name not in self.bundles:
            raise KeyError(f"No bundle is named {name!r}; declare it in companion/platform/web/bundles.py.")
        return url_for("static", filename=BUNDLES + name)

    def add_version(self, endpoint: str, values: dict) -> None:
        """url_for('static', filename=...) names the file's content hash: `/static/app.js?v=<hash>`."""
        if endpoint == "static" and "v" not in values and (found := self.get(values.get("filename", ""))):
            values["v"] = found.version

    def serve(self, filename: str) -> Response:
        found = self.get(filename)
        if found is None:
            abort(404)
        encoding = request.accept_encodings.best_match(ENCODINGS, default="identity")
        if found.mimetype not in COMPRESSED_MIMETYPES:
            encoding = "identity"
        resp = Response(found.body(encoding), mimetype=found.mimetype)
        if encoding != "identity":
            resp.headers["Content-Encoding"] = encoding  # Flask-Compress leaves an encoded answer alone
        resp.headers["Vary"] = "Accept-Encoding"
        resp.set_etag(found.version if encoding == "identity" else f"{found.version}:{encoding}")
        if request.args.get("v") == found.version:
            resp.headers["Cache-Control"] = f"public, max-age={YEAR}, immutable"
        else:
            resp.headers["Cache-Control"] = f"public, max-age={UNVERSIONED_MAX_AGE}"
        return resp.make_conditional(request)


def compress_fragment(resp: Response) -> Response:
    """after_request: an htmx fragment at FRAGMENT_BR_LEVEL or FRAGMENT_GZIP_LEVEL, as the phone takes
    it. Flask-Compress leaves an answer that is already encoded alone (it still adds the Vary header),
    and does the rest."""
    if (request.headers.get("HX-Request") != "true" or resp.is_streamed or resp.direct_passthrough
            or not 200 <= resp.status_code < 300 or resp.mimetype not in COMPRESSED_MIMETYPES
            or "Content-Encoding" in resp.headers):
        return resp
    encoding = request.accept_encodings.best_match(ENCODINGS, default="identity")
    data = resp.get_data()
    if encoding == "identity" or len(data) < current_app.config["COMPRESS_MIN_SIZE"]:
        return resp
    resp.set_data(brotli.compress(data, quality=FRAGMENT_BR_LEVEL) if encoding == "br"
                  else gzip.compress(data, compresslevel=FRAGMENT_GZIP_LEVEL, mtime=0))
    resp.headers["Content-Encoding"] = encoding
    return resp


def minified(filename: str, raw: bytes) -> bytes:
    """Our own scripts and style sheets without comments and indentation (a third smaller); a file
    whose name says it is minified already (htmx) is left as it is. A script of ours goes out as terser
    minified it instead (its X.min.js beside it, from scripts/minify_js.sh: local names shortened too)."""
    if filename.endswith(".min.js"):
        return raw
    if filename.endswith(".js"):
        return rjsmin.jsmin(raw)
    if filename.endswith(".css"):
        return rcssmin.cssmin(raw)
    return raw


def install_wire(app: Flask, bundles: Mapping[str, Sequence[str]] | None = None,
                 folders: Mapping[str, str] | None = None) -> None:
    app.config.setdefault("COMPRESS_ALGORITHM", list(ENCODINGS))
    app.config.setdefault("COMPRESS_MIMETYPES", COMPRESSED_MIMETYPES)
    # from 5 on brotli models the text (a tenth to a quarter smaller than 4); 8 takes 0.3-0.4 ms for a
    # 10-25 KB page, 0.05 ms more than 6, for up to 30 bytes less on the board-heavy pages, which keeps
    # every game's first load inside its 25 KB; from 9 on it costs ten times that
    app.config.setdefault("COMPRESS_BR_LEVEL", 8)
    app.config.setdefault("COMPRESS_LEVEL", 6)  # gzip for pages (a plain-http LAN phone's first load)
    app.config.setdefault("COMPRESS_MIN_SIZE", 500)  # below about this, the headers outweigh the saving
    app.config.setdefault("COMPRESS_STREAMS", False)  # a streamed answer (a live stream) goes out as it is
    Compress(app)
    app.after_request(compress_fragment)  # registered after Flask-Compress's hook, so it runs first
    files = StaticFiles(app.static_folder, bundles, folders)
    app.extensions["static_files"] = files
    app.jinja_env.globals["bundle_url"] = files.bundle_url
    app.view_functions["static"] = files.serve
    app.url_defaults(files.add_version)
