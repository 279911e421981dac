"""A newcomer's set-up (the README's first lines: bin/demo, bin/test) on Debian.

bin/lib/setup.sh, which bin/test, bin/demo and .ci/run share: pbem goes into the
project's virtual environment (Debian's own Python refuses installs outside one),
and apt-get updates the package lists once, waits for another apt-get or dpkg's
lock and says what it installs and why. apt-get is a stand-in here that records
its calls; the README's set-up runs for real, with Debian's python3.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEBIAN_PYTHON = Path("/usr/bin/python3")  # the distribution's, not a separately built one
LOCKED = "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 4242 (apt-get)"

# A stand-in apt-get: records each call; refuses `update` for the lock while the
# file `locked-updates` counts down.
FAKE_APT = f"""#!/bin/sh
echo "$*" >> "$FAKE/calls"
left=$(cat "$FAKE/locked-updates" 2>/dev/null || echo 0)
case "$*" in *" update "*|*" update") if [ "$left" -gt 0 ]; then
    echo $((left - 1)) > "$FAKE/locked-updates"
    echo "{LOCKED}" >&2
    exit 100
fi ;; esac
exit 0
"""


def _setup(fake: Path, script: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run ``script`` in bash after sourcing bin/lib/setup.sh, with the stand-in apt-get."""
    (fake / "bin").mkdir(exist_ok=True)
    for name, text in (("apt-get", FAKE_APT), ("sudo", '#!/bin/sh\nexec "$@"\n')):
        (fake / "bin" / name).write_text(text)
        (fake / "bin" / name).chmod(0o755)
    environ = {
        **os.environ,
        "PATH": f"{fake / 'bin'}:{os.environ['PATH']}",
        "FAKE": str(fake),
        "SETUP_WHO": "bin/test",
        "PBEM_APT_LOCK_PAUSE": "0",
        **env,
    }
    return subprocess.run(
        ["bash", "-c", f"set -euo pipefail; . bin/lib/setup.sh; {script}"],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_apt_install_says_what_and_why_and_updates_the_lists_once(tmp_path: Path) -> None:
    run = _setup(
        tmp_path,
        'setup_apt_install "the mail tests\' TLS certificates" openssl; '
        'setup_apt_install "the OpenPGP tests\' keys and signatures" gnupg',
    )
    assert run.returncode == 0, run.stderr
    calls = (tmp_path / "calls").read_text().splitlines()
    assert [c for c in calls if c.endswith(" update -qq")] == [calls[0]]  # once, first
    installs = [c for c in calls if " install " in c]
    assert [c.split()[-1] for c in installs] == ["openssl", "gnupg"]
    assert all("-o DPkg::Lock::Timeout=600" in c for c in calls)  # dpkg's lock: apt waits
    assert "bin/test: installing openssl (Debian packages) for the mail tests' TLS" in run.stderr
    assert "for the OpenPGP tests' keys and signatures" in run.stderr


def test_apt_waits_for_the_package_lists_lock_and_says_so(tmp_path: Path) -> None:
    """`apt-get update` does not wait for the lists' lock itself: the first try of
    bin/test died on "Could not get lock" with no word of its own."""
    (tmp_path / "locked-updates").write_text("2")
    run = _setup(tmp_path, 'setup_apt_install "the archive site\'s browser test" chromium')
    assert run.returncode == 0, run.stderr
    calls = (tmp_path / "calls").read_text().splitlines()
    assert [c.split()[-2:] for c in calls] == [["update", "-qq"]] * 3 + [
        ["--no-install-recommends", "chromium"]
    ]
    assert run.stderr.count("waiting for the package lock") == 1
    assert "held by process 4242 (apt-get)" in run.stderr


def test_apt_gives_up_on_a_lock_never_released_and_shows_apts_words(tmp_path: Path) -> None:
    (tmp_path / "locked-updates").write_text("1000")
    run = _setup(
        tmp_path,
        'setup_apt_install "the tests" openssl',
        PBEM_APT_LOCK_WAIT="3",
        PBEM_APT_LOCK_PAUSE="1",
    )
    assert run.returncode != 0
    assert LOCKED in run.stderr and "bin/test: apt-get" in run.stderr
    calls = (tmp_path / "calls").read_text().splitlines()
    assert not [c for c in calls if " install " in c]


@pytest.mark.slow
def test_readme_set_up_with_debians_own_python_in_a_fresh_virtual_environment(
    tmp_path: Path,
) -> None:
    """The README's two commands, as a newcomer on Debian runs them: bin/demo, then
    bin/test (here one small test file), with the distribution's python3, which
    refuses `pip install` outside a virtual environment (externally managed)."""
    assert DEBIAN_PYTHON.exists(), "this test needs Debian's python3"
    venv = tmp_path / "venv"
    env = {
        k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")
    }
    env |= {"PYTHON": str(DEBIAN_PYTHON), "PBEM_VENV": str(venv)}
    env["PBEM_DEMO_DIR"] = str(tmp_path / "demo")
    env["PATH"] = os.pathsep.join(  # no other Python's scripts first on the path
        p for p in env["PATH"].split(os.pathsep) if Path(sys.prefix) not in Path(p).parents
    )

    demo = subprocess.run(
        ["bin/demo"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900
    )
    assert demo.returncode == 0, demo.stdout[-2000:] + demo.stderr[-2000:]
    assert f"bin/demo: making the virtual environment {venv} (Python 3" in demo.stderr
    assert f"bin/demo: using the virtual environment {venv}" in demo.stderr
    assert ", 0 failed" in demo.stdout  # every report the daemon queued was delivered
    assert f"home = {DEBIAN_PYTHON.parent}" in (venv / "pyvenv.cfg").read_text()

    test = subprocess.run(
        ["bin/test", "--unit", "-n", "0", "tests/unit/core/test_phase_label.py"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert test.returncode == 0, test.stdout[-2000:] + test.stderr[-2000:]
    assert f"installing pbem[test] into {venv}" in test.stderr
    assert " passed" in test.stdout.splitlines()[-1]
    where = subprocess.run(
        [venv / "bin" / "python", "-c", "import pbem, pytest; print(pbem.__file__)"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert where.stdout.strip() == str(ROOT / "pbem" / "__init__.py")
    # Debian's Python itself is left as it was: pbem is not installed into it.
    outside = subprocess.run([DEBIAN_PYTHON, "-c", "import pbem"], env=env, cwd=tmp_path)
    assert outside.returncode != 0
