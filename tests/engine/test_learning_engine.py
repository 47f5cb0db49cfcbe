"""What learning changes in the bundled model's decisions, and the `learn` / `forget` /
`learning` commands. The store itself: tests/unit/test_learning.py.

Every test keeps the store in a temporary data directory ($NEXTWORD_DATA_DIR).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from helpers import nextword
from nextword.engine import learnfiles
from nextword.engine.personal import PersonalStore

WORD = "zorblatt"  # a word no lexicon holds
pytestmark = pytest.mark.usefixtures("data_dir")


# --------------------------------------------------------------------------- the decider


def learned_store() -> PersonalStore:
    store = PersonalStore(learnfiles.user_path())
    for _ in range(3):
        store.learn_text(f"Yesterday we fed the {WORD} again.")
    return store


def test_a_learned_word_is_offered_in_a_new_document(default_engine) -> None:
    context = "After lunch I went to see the "
    without = default_engine.decider().decide(context, "zo", 5)
    assert WORD not in [c.text for c in without]
    with_store = default_engine.decider(store=learned_store()).decide(context, "zo", 5)
    assert with_store[0].text == WORD
    # After "the" it is offered before any letter is typed.
    at_start = default_engine.decider(store=learned_store()).decide(context, "", 5)
    assert WORD in [c.text for c in at_start]


def test_common_words_keep_their_place(default_engine) -> None:
    """What the user wrote lifts their words where they fit; it does not push the
    context's likely words out, nor put a learned rare word where it does not fit."""
    store = learned_store()
    for context, prefix in [("I would like to ", ""), ("It is one of the most ", "")]:
        plain = [c.text for c in default_engine.decider().decide(context, prefix, 3)]
        mixed = [c.text for c in default_engine.decider(store=store).decide(context, prefix, 5)]
        assert set(plain) <= set(mixed), (context, plain, mixed)
        assert WORD not in mixed, (context, mixed)


def test_the_bundled_models_personal_weights_were_fitted() -> None:
    from nextword.engine.loader import DEFAULT_MODEL

    record = json.loads((DEFAULT_MODEL / "mixture.json").read_text())
    assert {"user", "userbigram"} <= set(record["weights"])
    assert record["user_fit"]["top3_with"] >= record["user_fit"]["top3_without"]


# ------------------------------------------------------------------------------ commands


def test_learn_status_forget_commands(tmp_path: Path, data_dir: Path) -> None:
    folder = tmp_path / "writing"
    (folder / "notes").mkdir(parents=True)
    (folder / "a.md").write_text(f"The {WORD} is a secret.\n")
    (folder / "notes" / "b.txt").write_text(f"Feed the {WORD} twice.\n")
    (folder / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00binary")
    (folder / ".git").mkdir()
    (folder / ".git" / "config").write_text("hidden words\n")
    env = {**os.environ, learnfiles.DATA_DIR_ENV: str(data_dir)}

    learned = nextword("learn", str(folder), env=env)
    assert "learned 9 words from 2 files (1 skipped" in learned.stdout
    status = nextword("learning", "status", env=env).stdout
    assert "user: 8 words" in status and str(learnfiles.user_path()) in status
    assert WORD not in status and "secret" not in status

    nextword("learn", "--workspace", str(folder), str(folder / "a.md"), env=env)
    status = nextword("learning", "status", env=env).stdout
    assert folder.resolve().as_uri() in status and "5 words" in status

    assert "1 file deleted" in nextword("forget", "--workspace", str(folder), env=env).stdout
    assert folder.resolve().as_uri() not in nextword("learning", "status", env=env).stdout
    nextword("forget", env=env)
    assert "nothing learned" in nextword("learning", "status", env=env).stdout
    assert not (data_dir / "learning").exists()
    missing = nextword("learn", str(tmp_path / "nope"), env=env, check=False)
    assert missing.returncode == 1 and "no such file" in missing.stderr
