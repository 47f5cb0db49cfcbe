"""The personal store (nextword/engine/personal.py): learning, bounds, disk, forgetting,
crash safety and the weights it gets in the mix. Its place in a real model's decisions
and the `learn` / `forget` / `learning` commands: tests/engine/test_learning_engine.py.

Every test keeps the store in a temporary data directory ($NEXTWORD_DATA_DIR).
"""

from __future__ import annotations

import json
import logging
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from nextword.engine import learnfiles, personal
from nextword.engine.personal import PersonalStore

WORD = "zorblatt"  # a word no lexicon holds
pytestmark = pytest.mark.usefixtures("data_dir")


# ------------------------------------------------------------------------------ learning


def test_learns_words_and_pairs_but_not_across_sentences() -> None:
    store = PersonalStore(learnfiles.user_path())
    assert store.learn_text("The zorblatt sat. Then the zorblatt left, and 'quoted' x.") == 9
    assert store.words[WORD][0] == 2 and store.words["the"][0] == 1
    assert store.following("the") == {WORD: 1}
    assert store.following("The") == {WORD: 1}
    assert store.following("sat") == {}  # "sat. Then": a sentence end between them
    assert "'quoted'" not in store.words and "quoted" not in store.words


def test_accepted_words_count_double_after_their_context() -> None:
    store = PersonalStore(learnfiles.user_path())
    assert store.learn_word("I met the ", WORD, accepted=True)
    assert store.learn_word("I met the ", WORD)
    assert store.words[WORD][0] == 3
    assert store.following("the") == {WORD: 3}
    assert not store.learn_word("x ", "a" * 40)  # too long to be a word worth keeping
    assert not store.learn_word("x ", "今天")  # Chinese is the Chinese model's


def test_round_trip_keeps_everything(data_dir: Path) -> None:
    store = PersonalStore.load(learnfiles.user_path())
    store.learn_text("the zorblatt and the frobnicator went to the zorblatt")
    assert store.save()
    assert not store.save()  # nothing new: no write
    again = PersonalStore.load(learnfiles.user_path())
    assert again.words == store.words and again.bigrams == store.bigrams
    assert (again.clock, again.total, again.singletons) == (
        store.clock,
        store.total,
        store.singletons,
    )
    data = json.loads(learnfiles.user_path().read_text())
    assert data["format"] == personal.FORMAT and data["version"] == personal.VERSION
    assert learnfiles.user_path().stat().st_mode & 0o077 == 0  # the user's alone


def test_bounds_drop_the_least_recently_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(personal, "MAX_WORDS", 100)
    monkeypatch.setattr(personal, "MAX_BIGRAMS", 50)
    store = PersonalStore(learnfiles.user_path())
    store.learn_text(" ".join(f"old{i}" for i in range(60)))
    store.learn_text(" ".join(f"new{i}" for i in range(60)))
    store.learn_text("old0")  # used again: recent
    assert len(store.words) <= 100 and store.n_bigrams <= 50
    assert "old0" in store.words and "new59" in store.words
    assert "old1" not in store.words
    assert store.total == sum(c for c, _ in store.words.values())
    assert store.n_bigrams == sum(len(f) for f in store.bigrams.values())
    assert ("old1" not in store.bigrams) and "new58" in store.bigrams


def test_old_counts_age_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(personal, "MAX_TOTAL", 100)
    store = PersonalStore(learnfiles.user_path())
    store.learn_text("rare " + "common " * 99)
    store.learn_text("common")  # 101 words counted: every count halves
    assert store.words["common"][0] == 50
    assert "rare" not in store.words  # a word seen once, long ago, is gone
    assert store.total == 50 and store.singletons == 0


def test_status_shows_counts_never_words() -> None:
    store = PersonalStore(learnfiles.user_path())
    store.learn_text(f"my secret {WORD} password hunter2")
    store.save()
    status = store.status()
    assert status["words"] == 5 and status["bigrams"] == 4 and status["bytes"] > 0
    assert status["path"] == str(learnfiles.user_path())
    shown = json.dumps([status, personal.stored()])
    for word in ("secret", WORD, "password", "hunter2"):
        assert word not in shown


def test_corrupt_file_is_set_aside_and_the_store_starts_empty(
    caplog: pytest.LogCaptureFixture,
) -> None:
    path = learnfiles.user_path()
    path.parent.mkdir(parents=True)
    truncated = b'{"format": "nextword-learning", "version": 1, "clock": 3, "wo'
    for bad in (truncated, b"\xff\x00", b"[1, 2]", b'{"format": "other"}'):
        path.write_bytes(bad)
        with caplog.at_level(logging.WARNING, logger="nextword.engine.personal"):
            store = PersonalStore.load(path)
        assert store.words == {} and not path.exists()
        assert path.with_name("user.json.corrupt").read_bytes() == bad
        assert "unreadable" in caplog.text
        store.learn_text(WORD)
        assert store.save() and PersonalStore.load(path).words[WORD][0] == 1


def test_another_processs_writes_are_merged_not_overwritten() -> None:
    path = learnfiles.user_path()
    ours, theirs = PersonalStore.load(path), PersonalStore.load(path)
    ours.learn_text("alpha beta")
    theirs.learn_text("gamma")
    ours.save()
    theirs.save()  # the file changed since `theirs` read it: merged
    merged = PersonalStore.load(path)
    assert set(merged.words) == {"alpha", "beta", "gamma"}
    assert set(theirs.words) == {"alpha", "beta", "gamma"}


def test_a_store_deleted_by_forget_elsewhere_is_not_written_back() -> None:
    store = PersonalStore.load(learnfiles.user_path())
    store.learn_text(WORD)
    store.save()
    learnfiles.forget()  # `nextword forget` in another process
    store.learn_text("more")
    assert not store.save()
    assert not learnfiles.user_path().exists() and store.words == {}


def test_forget_everything_or_one_workspace(data_dir: Path) -> None:
    user = PersonalStore.load(learnfiles.user_path())
    one = PersonalStore.load(learnfiles.workspace_path("/projects/one"), workspace="one")
    two = PersonalStore.load(learnfiles.workspace_path("file:///projects/two/"), workspace="two")
    for store in (user, one, two):
        store.learn_text(WORD)
        store.save()
    assert learnfiles.workspace_path("/projects/two") == two.path  # a path and its URI agree
    assert len(personal.stored()) == 3
    removed = learnfiles.forget("/projects/one")
    assert removed == [str(one.path)]
    assert user.path.exists() and two.path.exists()
    learnfiles.forget()
    assert not (data_dir / "learning").exists()
    assert personal.stored() == []
    one.forget()  # the store's own forget: memory and file
    assert one.words == {}


# -------------------------------------------------------------------------- crash safety

WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from nextword.engine.personal import PersonalStore

    path = Path(sys.argv[1])
    store = PersonalStore.load(path)
    if not store.words:  # a big store: a write takes a while
        store.learn_text(" ".join(f"w{i}" for i in range(15_000)))
    if sys.argv[2] == "slow":  # stop inside each write, the new bytes on disk, not renamed
        import os, time
        fsync = os.fsync
        def slow(fd):
            fsync(fd)
            print("writing", flush=True)
            time.sleep(5)
        os.fsync = slow
    while True:
        store.learn_text(f"step{store.clock}")
        store.save()
        print(store.clock, flush=True)
    """
)


def check_complete(path: Path, acknowledged: int) -> int:
    """The file holds one whole store, at least as new as the last save acknowledged."""
    store = PersonalStore.load(path)
    assert not path.with_name(path.name + ".corrupt").exists(), "a partial store was read"
    assert acknowledged <= store.clock <= acknowledged + 1
    # Every word counted once, each a new one, the last step's there: nothing torn.
    assert store.total == store.clock == len(store.words)
    assert f"step{store.clock - 1}" in store.words
    return store.clock


def test_a_kill_mid_write_leaves_the_old_store_or_the_new_one(tmp_path: Path) -> None:
    path = learnfiles.user_path()
    rng = random.Random(7)
    env = {**os.environ, learnfiles.DATA_DIR_ENV: str(tmp_path / "data")}
    kills = last = 0
    for mode in ["fast"] * 20 + ["slow"] * 3:
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), mode],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert proc.stdout is not None
        first = proc.stdout.readline()  # the first save (or, slow, the first write) is on
        assert first, "the writer died"
        if mode == "fast":
            time.sleep(rng.uniform(0, 0.3))
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate(timeout=30)
        kills += proc.returncode == -signal.SIGKILL
        saved = [int(line) for line in [first, *out.splitlines()] if line.strip().isdigit()]
        clock = check_complete(path, max(saved, default=last))
        if mode == "slow":
            assert clock == last  # killed between the write and the rename: the old one
        last = clock
    assert kills == 23
    # The slow kills at least left their temporary files: the kills did land mid-write.
    assert len(list(path.parent.glob(".user.json.*.tmp"))) >= 3
    # Interrupted writes leave temporary files beside the store; `forget` takes them too.
    learnfiles.forget()
    assert not path.parent.exists()


# --------------------------------------------------------------------------- the mix


def test_weights_default_where_the_mixture_predates_learning(tmp_path: Path) -> None:
    from nextword.engine.weights import PERSONAL_WEIGHTS, Mixture

    path = tmp_path / "mixture.json"
    path.write_text(
        json.dumps({"weights": {"neural": 0.5, "ngram": 0.5, "doc": 0, "docbigram": 0}})
    )
    # ... and the system model (Chinese) and the general-English trigram: off.
    assert Mixture.read(path).weights == {
        "system": 0.0,
        "general": 0.0,
        "neural": 0.5,
        "ngram": 0.5,
        "doc": 0.0,
        "docbigram": 0.0,
        **PERSONAL_WEIGHTS,
    }
