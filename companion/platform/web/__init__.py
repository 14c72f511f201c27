"""The web: the Flask app (`factory`), the pages and the JSON API, a request's table and seat
(`context`, `auth`), finished games' pages, hardening and rate limits, static files on the wire, a
game's pages as the platform plugs them in (`gameweb`), and the WSGI server `python -m companion`
runs (`serve`).
"""
