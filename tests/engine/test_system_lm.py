"""The system's Chinese language model (fcitx5's KenLM trigram, engine/systemlm.py).

The test set-up installs Debian's libime-data-language-model and PyPI kenlm, so the
real file is read here; each test that needs it says so when it is missing, and fails.
"""

from __future__ import annotations

import glob
from pathlib import Path

import numpy as np
import pytest

from nextword.engine import Engine
from nextword.engine.loader import MODELS_DIR
from nextword.engine.systemlm import ENV, SYSTEM_LM_GLOB, TOP_ENTRIES, SystemLM
from nextword.engine.weights import SYSTEM


@pytest.fixture(scope="module")
def system() -> SystemLM:
    found = SystemLM.find()
    assert found is not None, "no system model: `bash scripts/test` installs it"
    return found


@pytest.fixture(scope="module")
def zh() -> Engine:
    return Engine.load(MODELS_DIR / "zh")


def top(engine: Engine, context: str, weight: float, k: int = 3) -> list[str]:
    decider = engine.decider(mixture=engine.mixture.with_weights(**{SYSTEM: weight}))
    return [c.text for c in decider.decide(context, "", k)]


def test_the_bundled_chinese_model_mixes_it_in(zh: Engine, system: SystemLM) -> None:
    assert zh.tables.system is not None and zh.mixture.weight(SYSTEM) > 0


def test_the_context_is_read_as_the_models_words(system: SystemLM) -> None:
    assert system.segment("今天天气真") == ["今天", "天气", "真"]
    assert system.segment("") == []


def test_it_reorders_the_models_likeliest_continuations_only(zh: Engine, system: SystemLM) -> None:
    rng = np.random.default_rng(0)
    neural = rng.random(len(zh.lexicon)) ** 8
    neural /= neural.sum()
    out = system.reorder(neural, zh.lexicon.words, "今天天气真")
    changed = np.flatnonzero(out != neural)
    assert 0 < len(changed) <= TOP_ENTRIES
    assert out.sum() == pytest.approx(1.0)
    top_entries = set(np.argsort(-neural)[:TOP_ENTRIES].tolist())
    assert set(changed.tolist()) <= top_entries


def test_everyday_questions_end_as_people_say_them(zh: Engine, system: SystemLM) -> None:
    # One month of news rarely asks anyone whether they have eaten.
    assert "吗" not in top(zh, "你吃饭了", 0.0)
    assert "吗" in top(zh, "你吃饭了", zh.mixture.weight(SYSTEM))


def test_switched_off_or_unreadable_it_is_not_used(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(ENV, "")
    assert SystemLM.find() is None
    monkeypatch.setenv(ENV, str(tmp_path / "absent.lm"))
    assert SystemLM.find() is None
    broken = tmp_path / "broken.lm"
    for junk in (
        b"mmap lm http://kheafield.com/code format version 5\n\0garbage",
        bytes(range(256)),
    ):
        broken.write_bytes(junk)
        monkeypatch.setenv(ENV, str(broken))
        assert SystemLM.find() is None
    real = Path(sorted(glob.glob(SYSTEM_LM_GLOB))[0])
    broken.write_bytes(real.read_bytes()[:8_000_000])  # cut short
    assert SystemLM.find() is None
    engine = Engine.load(MODELS_DIR / "zh", warmup=False)  # the engine goes on without it
    assert engine.tables.system is None and top(engine, "今天天气很", 1.0)
