"""The VS Code extension in real VS Code: code-server 1.139 driven by headless Chromium.

Installs what it needs once (scripts/install-vscode-test-deps, cached outside the
repository), lints and packages the extension as a .vsix, and runs the playwright
driver (vscode-extension/e2e/run.mjs) against it. Screenshots and VS Code's logs land
in vscode-extension/artifacts/; NEXTWORD_UPDATE_SCREENSHOT=1 also rewrites the README's
vscode-extension/screenshot.png.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import ROOT, nextword, phrase_model

EXTENSION = ROOT / "vscode-extension"
ARTIFACTS = EXTENSION / "artifacts"
CHINESE = "😀 今天天气很"  # what the driver types in chinese.txt
HAN_ONLY = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]{1,4}")

pytestmark = pytest.mark.skipif(
    sys.platform != "linux" or platform.machine() != "x86_64",
    reason="code-server and Node 24 are installed for Linux x86_64",
)


def run(cmd: list[str], *, env: dict[str, str], cwd: Path, timeout: int) -> str:
    """Run a build step; its output is the failure message."""
    proc = subprocess.run(
        cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


@pytest.fixture(scope="module")
def node_env() -> dict[str, str]:
    """An environment with the cached Node 24 first on PATH and `nextword` (this venv's)."""
    out = run(
        [str(ROOT / "scripts" / "install-vscode-test-deps")],
        env=dict(os.environ),
        cwd=ROOT,
        timeout=900,
    )
    cache = Path(out.strip().splitlines()[-1])
    node_dir = next(cache.glob("node-*/bin"))
    venv_bin = Path(sys.executable).parent
    assert (venv_bin / "nextword").exists(), "the nextword command is not installed in this venv"
    return {
        **os.environ,
        "PATH": os.pathsep.join([str(node_dir), str(venv_bin), os.environ.get("PATH", "")]),
        # The machine's npm config may name another Node's headers (see EDITORS.md).
        "npm_config_nodedir": str(node_dir.parent),
        "NEXTWORD_VSCODE_CACHE": str(cache),
    }


@pytest.fixture(scope="module")
def extension_deps(node_env: dict[str, str]) -> dict[str, str]:
    """The extension's locked dev dependencies, from the npm cache when it has them."""
    run(
        ["npm", "ci", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"],
        env=node_env,
        cwd=EXTENSION,
        timeout=600,
    )
    return node_env


def test_extension_lints(extension_deps: dict[str, str]) -> None:
    run(["npm", "run", "lint"], env=extension_deps, cwd=EXTENSION, timeout=300)


def test_extension_in_vscode(extension_deps: dict[str, str], tmp_path: Path) -> None:
    env = extension_deps
    vsix = EXTENSION / "nextword.vsix"
    vsix.unlink(missing_ok=True)
    run(["npm", "run", "package"], env=env, cwd=EXTENSION, timeout=300)
    assert vsix.exists()

    shutil.rmtree(ARTIFACTS, ignore_errors=True)
    cmd = [
        "node", "e2e/run.mjs",
        "--cache", env["NEXTWORD_VSCODE_CACHE"],
        "--vsix", str(vsix),
        "--artifacts", str(ARTIFACTS),
        # The bundled model with a phrase threshold that lets nearly any phrase through.
        "--model", str(phrase_model(tmp_path)),
    ]  # fmt: skip
    if os.environ.get("NEXTWORD_UPDATE_SCREENSHOT") == "1":
        cmd += ["--screenshot", str(EXTENSION / "screenshot.png")]
    proc = subprocess.run(
        cmd, cwd=EXTENSION, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    lines = proc.stdout.strip().splitlines()
    assert lines, f"the driver printed no result:\n{proc.stderr}"
    result = json.loads(lines[-1])
    failure = f"{result.get('error')}\n{proc.stderr}\nartifacts: {ARTIFACTS}"

    assert result["checks"].get("ready"), failure
    labels = [c["label"] for c in result.get("candidates", [])]
    assert labels, failure
    # nextword's items carry their probability as detail: they are ours, not VS Code's words.
    assert all(c["detail"].endswith("%") for c in result["candidates"]), result["candidates"]
    accepted, ghost = result.get("accepted"), result.get("ghostText")
    assert accepted in labels, failure
    assert ghost, failure
    assert result.get("fileText") == f"Thank you for your {accepted} {ghost}", failure
    # A phrase of several words as ghost text: Ctrl+Right took its first word, Tab the rest.
    phrase = result.get("phrase", {})
    context = "It was the best of times, it was the "
    words = phrase.get("shown", "").split()
    assert len(words) >= 2, f"{phrase}\n{failure}"
    assert phrase.get("afterWord", "").rstrip() == context + words[0], f"{phrase}\n{failure}"
    assert phrase.get("fileText") == context + phrase["shown"], f"{phrase}\n{failure}"
    assert result["checks"].get("phraseWord") and result["checks"].get("phraseAll"), failure
    # Chinese: the suggest widget offered predict's decision for the same text (k 5, the
    # default), Han continuations only, and the first one went in after the text.
    predicted = json.loads(nextword("predict", CHINESE, "--json").stdout)
    expected = [c["text"] for c in predicted["candidates"]]
    assert expected and all(HAN_ONLY.fullmatch(w) for w in expected), expected
    chinese = result.get("chinese", {})
    assert chinese.get("expected") == expected, failure  # the driver's own predict agreed
    assert chinese.get("candidates") == expected, f"{chinese}\n{failure}"
    assert chinese.get("accepted") == expected[0], failure
    assert chinese.get("fileText") == CHINESE + expected[0], failure
    assert result["checks"].get("chinese"), failure
    # A typo: its correction was offered (marked so), and accepting it replaced the word.
    typo = result.get("typo", {})
    assert any(c["detail"].endswith("(correction)") for c in typo.get("candidates", [])), failure
    assert typo.get("fileText") == "Please send it to the address", failure
    assert result["checks"].get("correction"), failure
    assert result["checks"].get("stats"), failure
    assert result["checks"].get("learningStatus"), f"{result.get('learningMessage')}\n{failure}"
    assert result["checks"].get("missingServer"), failure
    assert proc.returncode == 0 and result["ok"], failure
    assert (ARTIFACTS / "suggest.png").exists()
