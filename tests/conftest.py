"""The shared fixtures: a tiny real model trained by the real `nextword train` command,
and the bundled model loaded in-process. Shared helpers are in helpers.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import FIXTURES, nextword


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh $NEXTWORD_DATA_DIR (where learning keeps its stores) for one test."""
    from nextword.engine import learnfiles

    path = tmp_path / "data"
    monkeypatch.setenv(learnfiles.DATA_DIR_ENV, str(path))
    return path


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
