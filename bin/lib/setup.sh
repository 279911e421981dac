# shellcheck shell=bash
# What bin/test, bin/demo and .ci/run share to set a machine up: Debian packages
# through apt-get (waiting for the package lock, the package lists updated once a
# run) and pbem in the project's virtual environment. Sourced, not run; messages
# go to standard error, each headed by the script's name ($SETUP_WHO).
#   PYTHON      the Python that makes the virtual environment (default: python3;
#               Debian's own, /usr/bin/python3, refuses installs outside one)
#   PBEM_VENV   where it is (default: .venv in the checkout)
#   PBEM_APT_LOCK_WAIT   seconds to wait for another apt-get or dpkg (default 600)

SETUP_WHO=${SETUP_WHO:-bin/$(basename "$0")}
SETUP_SUDO=""
[ "$(id -u)" -eq 0 ] || SETUP_SUDO="sudo"
SETUP_APT_UPDATED=no

setup_say() { echo "$SETUP_WHO: $*" >&2; }

# apt-get with its arguments, waiting while another apt-get or dpkg holds the lock:
# DPkg::Lock::Timeout covers dpkg's lock, not the package lists' lock that
# `apt-get update` takes, so a refusal for a lock is retried until the wait is over.
setup_apt_get() {
    local limit=${PBEM_APT_LOCK_WAIT:-600} pause=${PBEM_APT_LOCK_PAUSE:-5} tries=0 err
    local until=$((SECONDS + limit))
    err=$(mktemp)
    while true; do
        if DEBIAN_FRONTEND=noninteractive $SETUP_SUDO apt-get -o DPkg::Lock::Timeout="$limit" \
            "$@" 2>"$err"; then
            rm -f "$err"
            return 0
        fi
        if ! grep -q "Could not get lock" "$err" || [ "$SECONDS" -ge "$until" ]; then
            cat "$err" >&2
            rm -f "$err"
            setup_say "apt-get $* failed"
            return 1
        fi
        tries=$((tries + 1))
        [ "$tries" -gt 1 ] || setup_say "waiting for the package lock: another apt-get" \
            "or dpkg is running ($(grep -m1 -o 'held by process.*' "$err" || echo '?'))"
        sleep "$pause"
    done
}

# setup_apt_install WHY PACKAGE...: install Debian packages, saying which and why;
# the package lists are updated first, once a run.
setup_apt_install() {
    local why=$1
    shift
    setup_say "installing $* (Debian packages) for $why"
    if [ "$SETUP_APT_UPDATED" = no ]; then
        setup_say "updating the package lists (apt-get update)"
        setup_apt_get update -qq
        SETUP_APT_UPDATED=yes
    fi
    setup_apt_get install -y -qq --no-install-recommends "$@" >/dev/null
}

# Makes the virtual environment when it is missing: `python3 -m venv`, which
# Debian ships apart (python3-venv), installed when this Python lacks it.
setup_make_venv() {
    local py=$1 dir=$2
    [ -x "$dir/bin/python" ] && return 0
    if ! "$py" -c 'import ensurepip, venv' >/dev/null 2>&1; then
        command -v apt-get >/dev/null 2>&1 \
            || { setup_say "$py has no venv module: install it (on Debian: python3-venv)"; return 1; }
        setup_apt_install "$py's venv module (virtual environments)" \
            "python3-venv" "python$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')-venv"
    fi
    setup_say "making the virtual environment $dir ($("$py" --version 2>&1), $py)"
    "$py" -m venv "$dir"
}

# setup_venv EXTRAS: pbem installed (editable, the versions in constraints.txt) in
# the project's virtual environment, made if missing; sets VPY to its Python.
# EXTRAS is pip's, e.g. "[test]", or "" for pbem alone.
setup_venv() {
    local extras=$1 py=${PYTHON:-python3} dir=${PBEM_VENV:-$PWD/.venv}
    case "$dir" in /*) ;; *) dir=$PWD/$dir ;; esac
    setup_make_venv "$py" "$dir" || return 1
    VPY=$dir/bin/python
    if ! setup_pinned "$extras"; then
        setup_say "installing pbem$extras into $dir (pip, the versions in constraints.txt)"
        "$VPY" -m pip install -q -c constraints.txt -e ".$extras"
    fi
    setup_say "using the virtual environment $dir (activate it: . $dir/bin/activate)"
}

# True when pbem is installed in $VPY and, for the extras, every package pinned in
# constraints.txt is there at its version.
setup_pinned() {
    "$VPY" -m pip show pbem >/dev/null 2>&1 || return 1
    [ -n "$1" ] || return 0
    "$VPY" - <<'PINNED'
import sys
from importlib.metadata import PackageNotFoundError, version

for line in open("constraints.txt"):
    pin = line.split("#")[0].strip()
    if pin:
        name, wanted = pin.split("==")
        try:
            installed = version(name)
        except PackageNotFoundError:
            sys.exit(1)
        if installed != wanted:
            sys.exit(1)
PINNED
}
