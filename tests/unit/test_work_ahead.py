"""Work ahead of the user in the server, without a model: the worker's background lane,
a held phrase followed (or left) by typing, and which boundary a speculation decided."""

from __future__ import annotations

import threading

from nextword.lsp.session import HeldPhrase, follows_guess
from nextword.lsp.worker import InferenceWorker


def test_background_jobs_wait_for_every_other_job() -> None:
    worker = InferenceWorker()
    try:
        gate, ran = threading.Event(), []
        worker.submit(gate.wait, key="busy")  # holds the thread while the others queue
        worker.submit(lambda: ran.append("ahead"), key="doc#phrase", background=True)
        worker.submit(lambda: ran.append("decision"), key="doc")
        quick = worker.submit(lambda: ran.append("filter"))
        gate.set()
        last = worker.submit(lambda: ran.append("ahead 2"), key="other#phrase", background=True)
        last.result(timeout=5)
        quick.result(timeout=5)
        assert ran == ["filter", "decision", "ahead", "ahead 2"]
    finally:
        worker.shutdown()


def test_a_background_job_is_dropped_or_replaced_before_it_runs() -> None:
    worker = InferenceWorker()
    try:
        gate = threading.Event()
        worker.submit(gate.wait, key="busy")
        first = worker.submit(lambda: "old", key="doc#speculate", background=True)
        second = worker.submit(lambda: "new", key="doc#speculate", background=True)
        dropped = worker.submit(lambda: "never", key="doc#phrase", background=True)
        assert worker.drop("doc#phrase")
        gate.set()
        assert second.result(timeout=5) == "new"
        assert first.cancelled() and dropped.cancelled()
    finally:
        worker.shutdown()


def test_a_held_phrase_follows_typing_through_it() -> None:
    held = HeldPhrase("Thank you for ", "your help with")
    assert held.rest("Thank you for ", "") == "your help with"
    assert held.rest("Thank you for ", "yo") == "your help with"  # over the typed prefix
    assert held.rest("Thank you for ", "your") == "your help with"
    assert held.rest("Thank you for your ", "") == "help with"
    assert held.rest("Thank you for your ", "he") == "help with"
    assert held.rest("Thank you for your help ", "wi") == "with"


def test_typing_that_leaves_a_held_phrase_or_ends_it_drops_it() -> None:
    held = HeldPhrase("Thank you for ", "your help with")
    assert held.rest("Thank you for ", "x") is None
    assert held.rest("Thank you for ", "You") is None  # case counts
    assert held.rest("Thank you for your  ", "") is None  # two spaces
    assert held.rest("Thank you for your help with", "") is None  # typed in full
    assert held.rest("Thank you for your help with ", "") is None
    assert held.rest("Thanks for ", "") is None


def test_the_boundary_a_speculation_decided() -> None:
    assert follows_guess("Let me know if you have any ", "Let me know if you have any questions ")
    assert not follows_guess("Let me know if you have any ", "Let me know if you have any ")
    assert not follows_guess("Let me know if you have any ", "Let me know if you have any q")
    assert not follows_guess("any ", "any questions, ")  # punctuation: not a guessed word
    assert not follows_guess("any ", "any more questions ")  # two words
    assert not follows_guess(None, "any questions ")
    assert follows_guess("any questions.", "any questions. ")  # the space after punctuation
    assert not follows_guess("any questions.", "any questions.\n")
    assert not follows_guess("any ", "any  ")
