"""The boundary between the platform and the games, held by the code itself: a contributor who
breaks it learns so here, not from a review."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from radon.complexity import cc_visit

from companion.games import FOLDERS, every_game

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "companion"
COMPOSITION_ROOT = PACKAGE / "games" / "__init__.py"
MAX_COMPLEXITY = 20
GAMES = every_game()
# what a game's page hooks must not be: app-wide template globals, filters and context processors
APP_WIDE_HOOK = re.compile(r"\b(?:app_)?(?:context_processor|template_global|template_filter|template_test)\b")


def _python_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def _app_files(folder: Path) -> list[Path]:
    """The app's own Python files: a game's tests (companion/games/<id>/tests/) left out."""
    return [p for p in _python_files(folder) if "tests" not in p.relative_to(PACKAGE).parts]


def _game_words() -> list[str]:
    words = set()
    for game in GAMES.values():
        words |= {game.id, game.title, game.id.replace("_", "-"), game.id.replace("_", " ")}
    return sorted(words, key=len, reverse=True)


def _imports(path: Path, source: str | None = None) -> set[str]:
    """Every module `path` imports (`source`: its text, when not read from the file)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text() if source is None else source)):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # resolve a relative import against the file's own package
                package = path.relative_to(ROOT).with_suffix("").parts[:-node.level]
                base = ".".join(package + ((base,) if base else ()))
            names.add(base)
    return names


def _game_pattern() -> re.Pattern:
    return re.compile("|".join(re.escape(w) for w in _game_words()), re.IGNORECASE)


def _outside_the_game_folders() -> list[Path]:
    """The app's files that belong to no game: the platform's code, templates and static files (the
    composition root aside)."""
    code = [p for p in _python_files(PACKAGE) if p != COMPOSITION_ROOT
            and not any(p.is_relative_to(game.folder) for game in GAMES.values())]
    pages = [p for p in (ROOT / "templates").rglob("*") if p.is_file()]
    static = [p for p in (ROOT / "static").rglob("*") if p.is_file() and p.suffix in (".js", ".css", ".webmanifest", ".svg")]
    return sorted(code + pages + static)


def test_nothing_outside_a_game_folder_names_a_game():
    pattern = _game_pattern()
    named = {str(p.relative_to(ROOT)): sorted(set(pattern.findall(p.read_text()))) for p in _outside_the_game_folders()}
    assert {k: v for k, v in named.items() if v} == {}


def test_the_composition_root_names_each_game_on_one_line_and_loads_none_on_import():
    pattern = _game_pattern()
    naming = [line.strip() for line in COMPOSITION_ROOT.read_text().splitlines()
              if pattern.search(line) and not line.lstrip().startswith("#")]
    assert naming == [f'"{folder}",' for folder in FOLDERS]
    assert [game.folder.name for game in GAMES.values()] == list(FOLDERS) == [game.id for game in GAMES.values()]
    import subprocess
    import sys
    probe = ("import sys, companion.games; from companion.platform.core.registry import GAMES; "
             "print(sorted(m for m in sys.modules if m.startswith('companion.games.')), dict(GAMES))")
    loaded = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert loaded.stdout.strip() == "[] {}", loaded.stderr


def _game_modules(game) -> list[Path]:
    """A game's own Python files, its tests aside."""
    return [p for p in _python_files(game.folder) if "tests" not in p.relative_to(game.folder).parts]


def _is_rules(game, path: Path) -> bool:
    return path.relative_to(game.folder).parts[0] in ("rules", "rules.py")


@pytest.mark.parametrize("game_id", list(GAMES))
def test_a_game_imports_only_the_sdk_and_its_own_package(game_id):
    """Of the platform a game's code uses only companion.platform.sdk (its pure rules only the contract);
    of the rest of companion, only its own folder. It reaches no database: the store keeps its documents."""
    game = GAMES[game_id]
    own = f"companion.games.{game_id}"
    for path in _game_modules(game):
        allowed = "companion.platform.core.contract" if _is_rules(game, path) else "companion.platform.sdk"
        for name in _imports(path):
            if name.split(".")[0] == "companion":
                assert name == allowed or name == own or name.startswith(own + "."), (path, name)
            assert name.split(".")[0] not in ("sqlalchemy", "psycopg"), (path, name)


@pytest.mark.parametrize("game_id", list(GAMES))
def test_a_game_hooks_into_pages_through_its_gameweb_only(game_id):
    """Nothing a game adds reaches every page of the app: no template globals or context processors
    (its start options come through GameWeb.options_context)."""
    hooks = {str(p.relative_to(ROOT)): APP_WIDE_HOOK.findall(p.read_text()) for p in _game_modules(GAMES[game_id])}
    assert {k: v for k, v in hooks.items() if v} == {}


@pytest.mark.parametrize("game_id", list(GAMES))
def test_a_game_is_one_folder(game_id):
    """Its rules, web part, templates, static files (if any), rules text, API section and tests."""
    folder = GAMES[game_id].folder
    assert (folder / "rules.py").is_file() or (folder / "rules" / "__init__.py").is_file()
    assert (folder / "web.py").is_file()
    assert any((folder / "templates").glob("*.html"))
    assert (folder / "rules.md").is_file() and (folder / "api.md").is_file()
    assert (folder / "tests" / "__init__.py").is_file() and any((folder / "tests").glob("test_*.py"))
    for kind, where in (("templates", ROOT / "templates" / game_id), ("static files", ROOT / "static" / game_id),
                        ("tests", ROOT / "tests" / "games" / game_id)):
        assert not where.exists(), f"{game_id}'s {kind} belong in {folder.relative_to(ROOT)}, not {where.relative_to(ROOT)}"


def test_the_platform_never_imports_a_game():
    for path in _python_files(PACKAGE / "platform"):
        assert not any(name.startswith("companion.games") for name in _imports(path)), path


PLATFORM = PACKAGE / "platform"
# what each group of the platform may import of the others: each rests on the ones below it
GROUPS_BELOW = {"core": set(), "store": {"core"}, "live": {"core", "store"}, "web": {"core", "store", "live"}}
LOOSE_PLATFORM_MODULES = {"__init__.py", "sdk.py"}  # sdk: the names a game may use, from any group


def _group_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if parts[:2] == ["companion", "platform"] and len(parts) > 2 else None


def test_every_platform_module_sits_in_a_group():
    loose = sorted(p.name for p in PLATFORM.glob("*.py") if p.name not in LOOSE_PLATFORM_MODULES)
    folders = sorted(p.name for p in PLATFORM.iterdir() if p.is_dir() and p.name != "__pycache__")
    assert loose == []
    assert folders == sorted(GROUPS_BELOW)
    assert all((PLATFORM / group / "__init__.py").exists() for group in GROUPS_BELOW)


@pytest.mark.parametrize("group", sorted(GROUPS_BELOW))
def test_a_platform_group_imports_only_the_groups_below_it(group):
    """core imports no other group; store no web and no live; live no web. Imports inside functions
    and under TYPE_CHECKING count as much as the ones at the top."""
    reached = {}
    for path in _python_files(PLATFORM / group):
        others = {_group_of(name) for name in _imports(path)} - {None, group}
        if others - GROUPS_BELOW[group]:
            reached[str(path.relative_to(ROOT))] = sorted(others - GROUPS_BELOW[group])
    assert reached == {}


def test_the_group_check_sees_every_kind_of_import():
    """The check above resolves relative imports against the file's own package, so a store module
    reaching up into the web is found however it is written."""
    cases = {"from ..web.context import store": "web", "from ..web import pages": "web",
             "from companion.platform.web.auth import browser_id": "web", "import companion.platform.live.updates": "live",
             "def later():\n    from ..live import updates": "live", "from .storage import Store": "store"}
    module = PLATFORM / "store" / "not_a_module.py"
    for source, group in cases.items():
        assert group in {_group_of(name) for name in _imports(module, source)}, source


def test_rules_are_pure():
    """A game's rules import no web framework and no database: they can be replayed anywhere."""
    for game_dir in sorted(p for p in (PACKAGE / "games").iterdir() if p.is_dir() and p.name != "__pycache__"):
        rules = [game_dir / "rules.py"] if (game_dir / "rules.py").exists() else _python_files(game_dir / "rules")
        assert rules, f"{game_dir.name} has no rules module"
        for path in rules:
            imported = _imports(path)
            assert not any(n.split(".")[0] in ("flask", "sqlalchemy", "htmx_flask", "werkzeug", "jinja2")
                           for n in imported), path
            assert not any(n.startswith("companion.platform") and n != "companion.platform.core.contract"
                           for n in imported), path


@pytest.mark.parametrize("folder", ["companion/games", "templates"])
def test_the_web_never_reads_a_state(folder):
    """Pages draw from view() and hints(); `.state.` reads belong to the rules alone."""
    files = [p for p in (ROOT / folder).rglob("*") if p.suffix in (".py", ".html")
             and not {"rules", "tests"} & set(p.relative_to(ROOT).parts) and p.name != "rules.py"]
    readers = {str(p.relative_to(ROOT)): re.findall(r"\bstate\.\w+", p.read_text()) for p in files}
    assert {k: v for k, v in readers.items() if v} == {}


@pytest.mark.parametrize("folder", ["companion", "bench", "scripts", "tests"])
def test_no_function_is_too_complex_to_read_in_one_sitting(folder):
    too_complex = []
    for path in _python_files(ROOT / folder):
        for block in cc_visit(path.read_text()):
            if block.complexity > MAX_COMPLEXITY:
                too_complex.append(f"{path.relative_to(ROOT)}:{block.name} ({block.complexity})")
    assert too_complex == []


def _string_parts(path: Path) -> list[str]:
    """Every string literal of a module, f-strings included (their literal parts)."""
    tree = ast.parse(path.read_text())
    docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                  if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body
                  and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    return [n.value for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docstrings]


def test_no_html_is_built_in_python_strings():
    tag = re.compile(r"<(?:div|span|label|input|button|p|li|ul|ol|table|tr|td|th|svg|a|g|rect|path)(?:\s[^<]*)?>")
    found = {str(p.relative_to(ROOT)): [t for t in _string_parts(p) if tag.search(t)] for p in _app_files(PACKAGE)}
    assert {k: v for k, v in found.items() if v} == {}


def test_only_the_browser_fixtures_start_chromium():
    """Every test that starts Chromium does it through tests/browser_fixtures.py, whose collection
    check holds them to the `browser` marker (so `-m "not browser"` leaves them all out)."""
    starts = re.compile(r"sync_playwright|async_playwright|chromium\.launch")
    starters = [path.relative_to(ROOT).as_posix() for path in _python_files(ROOT / "tests")
                if path != Path(__file__) and starts.search(path.read_text())]
    assert starters == ["tests/browser_fixtures.py"]


UNMARKED = '''
def test_uses_a_phone(phone):
    pass
'''


def _collect(tmp_path, source: str):
    import subprocess
    import sys

    (tmp_path / "test_phone.py").write_text(source)
    return subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                           "-p", "tests.browser_fixtures", "--rootdir", str(tmp_path), str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_a_test_that_starts_chromium_without_the_browser_marker_stops_the_run(tmp_path):
    unmarked = _collect(tmp_path, UNMARKED)
    assert unmarked.returncode != 0
    assert "test_phone.py::test_uses_a_phone" in unmarked.stdout + unmarked.stderr
    assert "lack @pytest.mark.browser" in unmarked.stdout + unmarked.stderr
    marked = _collect(tmp_path, "import pytest\n\npytestmark = pytest.mark.browser\n" + UNMARKED)
    assert marked.returncode == 0, marked.stdout + marked.stderr
    assert "1 test collected" in marked.stdout
