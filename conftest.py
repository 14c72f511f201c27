"""The fixtures every test may use, wherever it lives: under tests/ or in a game's own folder
(companion/games/<id>/tests/)."""
pytest_plugins = ["tests.fixtures", "tests.browser_fixtures"]
