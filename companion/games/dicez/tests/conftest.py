"""The coach's solved tables, built once per test session into a temporary folder.

Seed rules through the command a host runs (so its progress bar is checked too), the house rules
extra DiceZ bonus + joker in-process. Every coach test, and the browser test's servers, read these.
"""
from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from companion.games.dicez import coach_tables

ROOT = Path(__file__).resolve().parents[4]
HOUSE = {"extra_dicez_bonus": True, "joker": True}


@pytest.fixture(scope="session")
def coach_build(tmp_path_factory):
    """(the folder, what the build command printed)."""
    folder = tmp_path_factory.mktemp("coach")
    run = subprocess.run([sys.executable, "-m", "companion.games.dicez.coach_tables", "build", "--dir", str(folder)],
                         cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stderr
    coach_tables.build_into(folder, HOUSE, out=io.StringIO())
    return folder, run.stderr


@pytest.fixture(scope="session")
def coach_dir(coach_build):
    return coach_build[0]


@pytest.fixture(scope="session")
def seed_table(coach_dir):
    return coach_tables.load(coach_tables.path_for(coach_dir, {}), {})


@pytest.fixture(scope="session")
def house_table(coach_dir):
    return coach_tables.load(coach_tables.path_for(coach_dir, HOUSE), HOUSE)
