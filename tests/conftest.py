"""Shared fixtures: a tiny real model trained by the real `nextword train` command."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"


def plain(obj: Any) -> Any:
    """A custom request's result as dicts and lists (pygls gives named tuples)."""
    if hasattr(obj, "_asdict"):
        obj = obj._asdict()
    if isinstance(obj, dict):
        return {k: plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [plain(v) for v in obj]
    return obj


def nextword(*args: str, check: bool = True, **kwargs) -> subprocess.CompletedProcess[str]:
    """Run the `nextword` command as a user would, capturing its output."""
    return subprocess.run(
        [sys.executable, "-m", "nextword", *args],
        capture_output=True,
        text=True,
        check=check,
        timeout=600,
        **kwargs,
    )


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A training run of a 2-layer model on the fixture corpus, exported as a model."""
    root = tmp_path_factory.mktemp("tiny")
    nextword(
        "train",
        "--corpus", str(FIXTURES / "corpus-tiny"), "--sources", "tiny",
        "--run", str(root / "run"), "--vocab", "300", "--hidden", "32", "--layers", "2",
        "--heads", "2", "--ffn", "64", "--seq", "32", "--batch", "4", "--steps", "20",
        "--warmup", "5", "--eval-every", "10", "--save-every", "10",
        "--export", str(root / "model"), "--fit-words", "100",
    )  # fmt: skip
    return root


@pytest.fixture(scope="session")
def tiny_model(tiny_run: Path) -> Path:
    return tiny_run / "model"


@pytest.fixture(scope="session")
def tiny_engine(tiny_model: Path):
    from nextword.engine.engine import Engine

    return Engine.load(tiny_model)


@pytest.fixture(scope="session")
def default_engine():
    from nextword.engine.engine import Engine

    return Engine.load()
