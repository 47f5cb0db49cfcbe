# Sourced by the set-up scripts: install Debian packages the way this user can.
#
#   need_packages WHY [--no-recommends] PACKAGE...
#                                  installs the packages that are missing, saying first
#                                  what and why; as root it runs apt-get itself, as a user
#                                  through sudo. Without apt-get (macOS, other Linux) it
#                                  names what is missing and goes on: nothing there is
#                                  required, only faster or needed by the tests.
#
# `apt-get update` runs before every install, so an image with empty package lists
# (a fresh container) works too.

need_packages() {
  local why="$1" recommends=()
  shift
  if [ "${1:-}" = --no-recommends ]; then
    recommends=(--no-install-recommends)
    shift
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "note: no apt-get here; for $why, install the equivalent of: $*" >&2
    return 0
  fi
  local missing=() p
  for p in "$@"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  [ ${#missing[@]} -gt 0 ] || return 0
  local as=()
  if [ "$(id -u)" != 0 ]; then
    if ! command -v sudo >/dev/null 2>&1; then
      echo "error: $why needs the Debian packages ${missing[*]}; run this as root," \
        "or install sudo, or install them yourself" >&2
      return 1
    fi
    as=(sudo)
  fi
  echo "installing Debian packages for $why: ${missing[*]}" >&2
  # ${a[@]+"${a[@]}"}: an empty array under `set -u` in macOS's bash 3.2.
  ${as[@]+"${as[@]}"} apt-get update -qq
  ${as[@]+"${as[@]}"} env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    ${recommends[@]+"${recommends[@]}"} "${missing[@]}" >/dev/null
}
