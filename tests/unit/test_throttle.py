"""Unit tests for the per-key trailing throttle (nextword.lsp.throttle)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from nextword.lsp.throttle import Throttle


class FakeTimers:
    """A manual clock and scheduler: `advance(dt)` runs the callbacks that fall due."""

    def __init__(self) -> None:
        self.now = 0.0
        self.due: list[list] = []  # [time, callback, cancelled]

    def clock(self) -> float:
        return self.now

    def call_later(self, delay: float, fn: Callable[[], None]) -> FakeTimers.Handle:
        entry = [self.now + delay, fn, False]
        self.due.append(entry)
        return FakeTimers.Handle(entry)

    def advance(self, dt: float) -> None:
        self.now += dt
        for entry in sorted(self.due, key=lambda e: e[0]):
            if entry[0] <= self.now and not entry[2]:
                entry[2] = True
                entry[1]()

    class Handle:
        def __init__(self, entry: list) -> None:
            self.entry = entry

        def cancel(self) -> None:
            self.entry[2] = True


def make(interval: float = 0.05) -> tuple[Throttle, FakeTimers, list[str], list[str]]:
    timers = FakeTimers()
    ran: list[str] = []
    skipped: list[str] = []
    throttle = Throttle(
        interval, clock=timers.clock, call_later=timers.call_later, on_skip=skipped.append
    )
    return throttle, timers, ran, skipped


def test_first_call_runs_at_once() -> None:
    throttle, _, ran, _ = make()
    assert throttle.call("a", lambda: ran.append("1"))
    assert ran == ["1"]


def test_call_inside_interval_is_held_until_its_end() -> None:
    throttle, timers, ran, _ = make(0.05)
    throttle.call("a", lambda: ran.append("1"))
    timers.advance(0.01)
    assert not throttle.call("a", lambda: ran.append("2"))
    assert throttle.held("a")
    assert throttle.wait("a") == 0.04
    timers.advance(0.039)
    assert ran == ["1"]
    timers.advance(0.001)
    assert ran == ["1", "2"]
    assert not throttle.held("a")


def test_newest_held_call_wins_and_the_replaced_ones_count_as_skipped() -> None:
    throttle, timers, ran, skipped = make(0.05)
    throttle.call("a", lambda: ran.append("1"))
    for name in "234":
        timers.advance(0.01)
        throttle.call("a", lambda name=name: ran.append(name))
    timers.advance(0.05)
    assert ran == ["1", "4"]
    assert skipped == ["a", "a"]


def test_trailing_call_restarts_the_interval() -> None:
    throttle, timers, ran, _ = make(0.05)
    throttle.call("a", lambda: ran.append("1"))
    throttle.call("a", lambda: ran.append("2"))
    timers.advance(0.05)
    assert ran == ["1", "2"]
    # The trailing call fired at t=0.05, so the next may run only at t=0.10.
    assert not throttle.call("a", lambda: ran.append("3"))
    timers.advance(0.05)
    assert ran == ["1", "2", "3"]


def test_keys_are_independent() -> None:
    throttle, _, ran, _ = make(0.05)
    assert throttle.call("a", lambda: ran.append("a"))
    assert throttle.call("b", lambda: ran.append("b"))
    assert ran == ["a", "b"]


def test_call_after_the_interval_runs_at_once() -> None:
    throttle, timers, ran, _ = make(0.05)
    throttle.call("a", lambda: ran.append("1"))
    timers.advance(0.06)
    assert throttle.call("a", lambda: ran.append("2"))
    assert ran == ["1", "2"]


def test_zero_interval_never_holds() -> None:
    throttle, _, ran, _ = make(0.0)
    for name in "123":
        assert throttle.call("a", lambda name=name: ran.append(name))
    assert ran == ["1", "2", "3"]


def test_cancel_and_forget_drop_the_held_call() -> None:
    throttle, timers, ran, skipped = make(0.05)
    throttle.call("a", lambda: ran.append("1"))
    throttle.call("a", lambda: ran.append("2"))
    throttle.forget("a")
    timers.advance(0.1)
    assert ran == ["1"]
    assert skipped == ["a"]
    assert throttle.wait("a") == 0.0


async def test_default_scheduler_is_the_running_loop() -> None:
    ran: list[str] = []
    throttle = Throttle(0.02)
    throttle.call("a", lambda: ran.append("1"))
    throttle.call("a", lambda: ran.append("2"))
    assert ran == ["1"]
    await asyncio.sleep(0.05)
    assert ran == ["1", "2"]
