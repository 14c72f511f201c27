"""The boundary between the platform and the games, held by the code itself: a contributor who
breaks it learns so here, not from a review."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from radon.complexity import cc_visit

from companion.platform.registry import GAMES

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "companion"
MAX_COMPLEXITY = 20


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


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # resolve a relative import against the file's own package
                package = path.relative_to(ROOT).with_suffix("").parts[:-node.level]
                base = ".".join(package + ((base,) if base else ()))
            names.add(base)
    return names


def test_no_module_outside_the_games_names_a_game():
    pattern = re.compile("|".join(re.escape(w) for w in _game_words()), re.IGNORECASE)
    outside = [p for p in _python_files(PACKAGE) if "games" not in p.relative_to(PACKAGE).parts]
    outside += sorted((ROOT / "templates" / "table").glob("*.html")) + sorted((ROOT / "templates").glob("*.html"))
    named = {str(p.relative_to(ROOT)): sorted(set(pattern.findall(p.read_text()))) for p in outside}
    assert {k: v for k, v in named.items() if v} == {}


def test_the_platform_never_imports_a_game():
    for path in _python_files(PACKAGE / "platform"):
        assert not any(name.startswith("companion.games") for name in _imports(path)), path


def test_rules_are_pure():
    """A game's rules import no web framework and no database: they can be replayed anywhere."""
    for game_dir in sorted(p for p in (PACKAGE / "games").iterdir() if p.is_dir() and p.name != "__pycache__"):
        rules = [game_dir / "rules.py"] if (game_dir / "rules.py").exists() else _python_files(game_dir / "rules")
        assert rules, f"{game_dir.name} has no rules module"
        for path in rules:
            imported = _imports(path)
            assert not any(n.split(".")[0] in ("flask", "sqlalchemy", "htmx_flask", "werkzeug", "jinja2")
                           for n in imported), path
            assert not any(n.startswith("companion.platform") and n != "companion.platform.contract"
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
