"""The README's set-up commands install Debian packages the way each user can (issue 13).

`scripts/lib/packages.sh` is sourced by `scripts/install` and `scripts/test`. These
tests run it in bash with a PATH holding only stand-ins for the system's package tools
(`id`, `dpkg`, `apt-get`, `sudo`), which record how they were called: root without
sudo, a user with sudo, a user without, a machine without apt (macOS), and nothing
missing. CI itself runs the real thing as root without sudo.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import ROOT

BASH = shutil.which("bash") or "/bin/bash"
HELPER = ROOT / "scripts" / "lib" / "packages.sh"


def tool(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text(f"#!{BASH}\n{body}\n")
    path.chmod(0o755)


def machine(
    tmp_path: Path, *, uid: int, sudo: bool, apt: bool, installed: tuple[str, ...] = ()
) -> Path:
    """A folder of stand-in tools; each call is appended to tmp_path/calls."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "calls"
    (bin_dir / "env").symlink_to(shutil.which("env") or "/usr/bin/env")
    tool(bin_dir, "id", f"echo {uid}")
    if apt:
        known = " ".join(installed)
        tool(
            bin_dir,
            "dpkg",
            f'for p in {known}; do [ "$2" = "$p" ] && exit 0; done; exit 1',
        )
        tool(bin_dir, "apt-get", f'echo "apt-get $* DEBIAN_FRONTEND=$DEBIAN_FRONTEND" >> {calls}')
    if sudo:
        tool(bin_dir, "sudo", f'echo sudo >> {calls}; exec "$@"')
    return bin_dir


def install(bin_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    script = f'set -euo pipefail; . {HELPER}; need_packages "the tests" {" ".join(args)}'
    return subprocess.run(
        [BASH, "-c", script],
        env={"PATH": str(bin_dir), "HOME": os.environ.get("HOME", "/tmp")},
        capture_output=True,
        text=True,
        timeout=30,
    )


def calls(tmp_path: Path) -> list[str]:
    path = tmp_path / "calls"
    return path.read_text().splitlines() if path.exists() else []


def test_root_without_sudo_runs_apt_itself_after_an_update(tmp_path: Path) -> None:
    done = install(machine(tmp_path, uid=0, sudo=False, apt=True, installed=("strace",)),
                   "strace", "presage")  # fmt: skip
    assert done.returncode == 0, done.stderr
    # The lists may be empty on a fresh image: update comes first, every time.
    assert calls(tmp_path) == [
        "apt-get update -qq DEBIAN_FRONTEND=",
        "apt-get install -y -qq presage DEBIAN_FRONTEND=noninteractive",
    ]
    assert "installing Debian packages for the tests: presage" in done.stderr


def test_a_user_with_sudo_goes_through_sudo(tmp_path: Path) -> None:
    done = install(machine(tmp_path, uid=1000, sudo=True, apt=True), "--no-recommends", "strace")
    assert done.returncode == 0, done.stderr
    assert calls(tmp_path) == [
        "sudo",
        "apt-get update -qq DEBIAN_FRONTEND=",
        "sudo",
        "apt-get install -y -qq --no-install-recommends strace DEBIAN_FRONTEND=noninteractive",
    ]


def test_a_user_without_sudo_is_told_what_to_do(tmp_path: Path) -> None:
    done = install(machine(tmp_path, uid=1000, sudo=False, apt=True), "strace")
    assert done.returncode == 1
    assert calls(tmp_path) == []
    assert "needs the Debian packages strace; run this as root" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("uid", [0, 501])
def test_without_apt_it_names_the_packages_and_goes_on(tmp_path: Path, uid: int) -> None:
    done = install(machine(tmp_path, uid=uid, sudo=False, apt=False), "libopenblas0-pthread")
    assert done.returncode == 0, done.stderr
    assert "no apt-get here" in done.stderr and "libopenblas0-pthread" in done.stderr


def test_nothing_missing_installs_nothing(tmp_path: Path) -> None:
    bin_dir = machine(tmp_path, uid=1000, sudo=False, apt=True, installed=("strace",))
    done = install(bin_dir, "strace")
    assert done.returncode == 0, done.stderr
    assert calls(tmp_path) == [] and done.stderr == ""


def test_the_readme_names_the_scripts_and_no_bare_sudo() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "bash scripts/install" in readme and "bash scripts/test" in readme
    for line in readme.split("## Commands")[0].splitlines():
        assert not line.lstrip().startswith("sudo "), line
