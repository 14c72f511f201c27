# Shared by run.sh and test.sh: system packages (Debian) and the project's virtual environment.
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
apt_updated=""
apt_install() {
  [ -n "$apt_updated" ] || { as_root apt-get update -qq; apt_updated=1; }
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}
# The project's packages are pinned, with their hashes, in requirements.lock (run) and
# requirements-test.lock (run and test), made from pyproject.toml by scripts/lock.sh.
# .venv/installed lists "<sha256 of pyproject.toml and both lock files> <what was installed>", one line
# per install that succeeded with these files; a start with nothing new to install touches no index.
venv_stamp=.venv/installed
installed_already() {  # $1: the files' hash, $2: what is asked for ('.' or '.[extras]')
  [ -f "$venv_stamp" ] || return 1
  grep -qxF "$1 $2" "$venv_stamp" && return 0
  # every '.[extras]' install also installed '.'
  [ "$2" = . ] && grep -q "^$1 " "$venv_stamp"
}
ensure_venv() {
  # Debian's python3 needs python3-venv before `python3 -m venv` can make an environment
  [ -x .venv/bin/python ] || python3 -c "import ensurepip" 2>/dev/null || apt_install python3-venv
  [ -x .venv/bin/python ] || python3 -m venv .venv
  local hash lock=requirements.lock
  [ "$1" = . ] || lock=requirements-test.lock
  hash="$(cat pyproject.toml requirements.lock requirements-test.lock | sha256sum | cut -d' ' -f1)"
  installed_already "$hash" "$1" && return 0
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -r "$lock"  # exactly the locked versions
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps -e .  # the project itself
  { grep "^$hash " "$venv_stamp" 2>/dev/null || true; echo "$hash $1"; } > "$venv_stamp.tmp"
  mv "$venv_stamp.tmp" "$venv_stamp"
}
# The JavaScript tools (axe-core for the browser tests, terser for scripts/minify_js.sh), pinned in
# package.json / package-lock.json, into node_modules/; installed again only when the lock file changed
# since the last install.
ensure_node_tools() {
  command -v npm >/dev/null || apt_install npm
  local stamp=node_modules/.installed-from hash
  hash="$(sha256sum package-lock.json | cut -d' ' -f1)"
  [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$hash" ] && return 0
  npm ci --no-audit --no-fund --loglevel=error
  echo "$hash" > "$stamp"
}
