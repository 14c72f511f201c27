# Shared by run.sh and test.sh: system packages (Debian) and the project's virtual environment.
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
apt_updated=""
apt_install() {
  [ -n "$apt_updated" ] || { as_root apt-get update -qq; apt_updated=1; }
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}
ensure_venv() {
  # Debian's python3 needs python3-venv before `python3 -m venv` can make an environment
  python3 -c "import ensurepip" 2>/dev/null || apt_install python3-venv
  [ -x .venv/bin/python ] || python3 -m venv .venv
  .venv/bin/pip install --quiet --disable-pip-version-check -e "$1"
}
