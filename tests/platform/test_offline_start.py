"""Restarts need no internet: `scripts/run.sh` on an installed checkout starts with every package
index out of reach, and reinstalls only when pyproject.toml or a lock file changed. And servers starting at once on
a fresh database (an SQLite file, a PostgreSQL schema) all come up: none trips over another one
creating the tables."""
from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import urllib.request
import venv

import pytest

from tests.browser_fixtures import ROOT, _free_port, _wait_for

# pip may reach no index at all: a closed port for an index, no find-links, no config file
OFFLINE = {"PIP_INDEX_URL": "http://127.0.0.1:9/", "PIP_NO_INDEX": "1", "PIP_CONFIG_FILE": os.devnull,
           "PIP_FIND_LINKS": "", "PIP_RETRIES": "0", "PIP_DEFAULT_TIMEOUT": "2"}


def offline_env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    return {**env, **OFFLINE, **extra}


@pytest.fixture
def checkout(tmp_path):
    """A copy of the project whose .venv has the project's dependencies but not the project:
    the dependencies are the ones this test runs with (linked, nothing is downloaded)."""
    where = tmp_path / "checkout"
    for part in ("companion", "templates", "static", "scripts"):
        shutil.copytree(ROOT / part, where / part, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "requirements.lock", "requirements-test.lock"):
        shutil.copy(ROOT / name, where / name)
    venv.create(where / ".venv", with_pip=True)
    deps = tmp_path / "deps"
    deps.mkdir()
    ours = [p for p in site.getsitepackages() if p.startswith(sys.prefix)]
    for folder in ours:
        for item in os.listdir(folder):
            if item.startswith(("companion", "__editable__", "_distutils_hack", "pip", "setuptools")) or (
                    item.endswith(".pth")):
                continue
            if not (deps / item).exists():
                (deps / item).symlink_to(os.path.join(folder, item))
    new_site = subprocess.run([where / ".venv/bin/python", "-c", "import site; print(site.getsitepackages()[0])"],
                              capture_output=True, text=True, check=True).stdout.strip()
    (where / ".venv" / new_site / "test-deps.pth").write_text(str(deps) + "\n")
    return where


def ensure_venv(checkout, what: str, **env) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", f'set -euo pipefail; . scripts/_setup.sh; ensure_venv "{what}"'],
                          cwd=checkout, env=offline_env(**env), capture_output=True, text=True)


def first_install(checkout, what: str) -> None:
    # the first install, with nothing to download: the build backend from the venv itself
    done = ensure_venv(checkout, what, PIP_NO_BUILD_ISOLATION="0")
    assert done.returncode == 0, done.stdout + done.stderr


def start_run_sh(checkout, tmp_path):
    port = _free_port()
    env = offline_env(DATABASE_URL=f"sqlite:///{tmp_path / 'companion.sqlite'}", SECRET_KEY="offline")
    log_path = tmp_path / "run.log"
    with open(log_path, "w") as out:
        server = subprocess.Popen(["bash", "scripts/run.sh", "--host", "127.0.0.1", "--port", str(port)],
                                  cwd=checkout, env=env, stdout=out, stderr=subprocess.STDOUT)
    server.log_path = log_path
    return server, port


def test_run_sh_on_an_installed_checkout_starts_with_no_package_index_and_reinstalls_only_for_a_change(
        checkout, tmp_path):
    first_install(checkout, ".")
    server, port = start_run_sh(checkout, tmp_path)
    try:
        _wait_for(port, server, timeout=60)
        request = urllib.request.Request(f"http://127.0.0.1:{port}/api/tables", method="POST",
                                         data=json.dumps({"game": "dicez", "players": ["Ann", "Ben"]}).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request) as resp:
            assert resp.status == 201
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert "Game companion is running" in server.log_path.read_text()

    # the test extras were never installed: asking for them runs pip (which, offline, fails)
    assert ensure_venv(checkout, ".[test]").returncode != 0
    first_install(checkout, ".[test]")
    assert ensure_venv(checkout, ".[test]").returncode == 0  # offline: pip did not run
    assert ensure_venv(checkout, ".").returncode == 0  # '.[test]' includes '.'

    for changed_file in ("requirements.lock", "pyproject.toml"):
        with open(checkout / changed_file, "a") as f:
            f.write("\n# a changed dependency list\n")
        changed = ensure_venv(checkout, ".")
        assert changed.returncode != 0, f"a changed {changed_file} must reinstall"
        assert "pip" in changed.stderr.lower() or "error" in changed.stderr.lower()


# each process loads everything, says it is ready, and creates the app the moment the go file appears
AT_ONCE = """
import os, sys, time
from companion import create_app
print("ready", flush=True)
while not os.path.exists(sys.argv[1]):
    time.sleep(0.001)
create_app()
print("up", flush=True)
"""


def last_word(output: str) -> str:
    """"up", or the error a process died of."""
    lines = output.strip().splitlines()
    errors = [line for line in lines if "Error:" in line]
    return errors[-1][:200] if errors else lines[-1]


@pytest.mark.parametrize("attempt", range(2))
def test_servers_starting_at_once_on_a_fresh_database_all_come_up(db_url, tmp_path, attempt):
    env = {**os.environ, "DATABASE_URL": db_url, "SECRET_KEY": "race",
           "PYTHONPATH": str(ROOT)}
    go = tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, "-c", AT_ONCE, str(go)], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True) for _ in range(4)]
    for p in procs:
        assert p.stdout.readline().strip() == "ready"
    go.touch()
    outputs = [p.communicate(timeout=60)[0] for p in procs]
    said = "\n".join(last_word(o) for o in outputs)
    assert [p.returncode for p in procs] == [0] * len(procs), said
    assert said == "\n".join(["up"] * len(procs))
