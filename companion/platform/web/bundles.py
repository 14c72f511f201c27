"""What each kind of page loads: one style sheet and one script, each a bundle of files under static/
(served by wire.StaticFiles at /static/bundles/<name>). Templates name them with bundle_url(name);
templates/base.html picks a page's pair, a page may name another one."""
from __future__ import annotations

from collections.abc import Mapping

from ..core.contract import Game

HTMX = "htmx-2.0.11.min.js"
HTMX_SSE = "htmx-ext-sse-2.2.4.min.js"  # live updates: only the pages of a table hold a stream


def page_bundles(games: Mapping[str, Game]) -> dict[str, tuple[str, ...]]:
    bundles = {
        "page.css": ("app.css",),
        "page.js": (HTMX, "app.js"),
        "page-offline.js": ("offline.js",),  # loaded by app.js once a page is up: see static/offline.js
        "start.css": ("app.css", "start.css"),
        "start.js": (HTMX, "app.js", "start.js"),
        "rules.css": ("app.css", "rules.css"),
        "results.css": ("app.css", "results.css"),
        "table.css": ("app.css", "table.css"),  # joining, handing a seat over
    }
    for game in games.values():
        if game.web is not None:
            bundles.update(game_bundles(game))
    return bundles


def game_bundles(game: Game) -> dict[str, tuple[str, ...]]:
    """A table's pages: the game's own files after ours. A phone's sheet loads its .css and .js; the
    host screen, the table view and the game's own pages its -view.css (table-view.css is for body.tv alone)."""
    styles = tuple(name for name in game.web.assets if name.endswith(".css"))
    scripts = tuple(name for name in game.web.assets if name.endswith(".js"))
    return {
        f"{game.id}.css": ("app.css", *styles),
        f"{game.id}.js": (HTMX, HTMX_SSE, "app.js", *scripts),
        f"{game.id}-offline.js": ("offline.js", *game.web.offline_scripts),
        f"{game.id}-view.css": ("app.css", "table.css", *styles, *game.web.view_styles, "table-view.css"),
    }
