"""One engine per script, picked per decision by the text before the cursor.

The main model serves alphabetic text (English, code); a Chinese model serves text
written without spaces. A Chinese model is a separate model, not a bilingual one:
the default English model spends its 8,192 tokens on English subwords and has seen
almost no Chinese, and one model of this size shared between the two languages
would give each less (see the model cards). A document may mix both: each decision
goes to the model of the script it continues (`words.script_before`), so a Chinese
paragraph and an English one in the same file are each served by their own model.

`RoutingDecider` has the `Decider` interface, so callers (the server, `predict`,
the evaluator) do not know how many models there are.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from nextword.engine.components import Candidate
from nextword.engine.decider import Decider, Phrase
from nextword.engine.engine import Engine
from nextword.engine.loader import DEFAULT_CHINESE_MODEL, ModelError
from nextword.engine.words import script_before

log = logging.getLogger(__name__)


class Router:
    """The loaded engines by language: "en" (the main model) and, when present, "zh"."""

    def __init__(self, engines: dict[str, Engine], problems: list[str] | None = None):
        if "en" not in engines:
            raise ValueError("the main model is required")
        self.engines = engines
        self.problems = problems or []  # why an optional model is missing, for the user

    @classmethod
    def load(
        cls,
        model: str | Path | None = None,
        chinese_model: str | Path | None = None,
        *,
        warmup: bool = True,
    ) -> Router:
        """The main model (its errors raise), and the Chinese one (its errors are kept).

        Args:
            model: the main model directory; None for the bundled default.
            chinese_model: the Chinese model directory; None for the bundled one
                (skipped quietly when this installation has none), "" for none.
        """
        engines = {"en": Engine.load(model, warmup=warmup)}
        problems: list[str] = []
        zh_path = DEFAULT_CHINESE_MODEL if chinese_model is None else chinese_model
        if zh_path != "" and (chinese_model is not None or DEFAULT_CHINESE_MODEL.exists()):
            try:
                engines["zh"] = Engine.load(zh_path, warmup=warmup)
            except ModelError as err:
                problems.append(f"{err}; Chinese text gets no completions")
                log.error("Chinese model: %s", err)
        return cls(engines, problems)

    @property
    def loaded(self) -> Any:
        """The main model's loaded files (its path names the model in logs)."""
        return self.engines["en"].loaded

    @property
    def load_seconds(self) -> float:
        return sum(e.load_seconds for e in self.engines.values())

    def decider(self, **options: Any) -> RoutingDecider:
        return RoutingDecider(self, **options)


class RoutingDecider:
    """A document's deciders, one per language, behind the `Decider` interface."""

    def __init__(self, router: Router, **options: Any):
        self._deciders = {lang: e.decider(**options) for lang, e in router.engines.items()}

    def pick(self, context: str, prefix: str = "") -> Decider | None:
        """The decider for this position: a typed prefix is a word of the main model's."""
        lang = "en" if prefix else script_before(context)
        return self._deciders.get(lang)

    def decide(
        self,
        context: str,
        prefix: str = "",
        k: int = 5,
        *,
        spell: bool = True,
        correct: bool = False,
    ) -> list[Candidate]:
        decider = self.pick(context, prefix)
        if decider is None:
            return []
        return decider.decide(context, prefix, k, spell=spell, correct=correct)

    def filter_cached(
        self, context: str, prefix: str, k: int = 5, *, correct: bool = False, typed: bool = False
    ) -> list[Candidate] | None:
        decider = self.pick(context, prefix)
        if decider is None:
            return []
        return decider.filter_cached(context, prefix, k, correct=correct, typed=typed)

    def guess(self, context: str, prefix: str) -> Candidate | None:
        decider = self.pick(context, prefix)
        return None if decider is None else decider.guess(context, prefix)

    def speculate(self, context: str, prefix: str) -> bool:
        decider = self.pick(context, prefix)
        return decider is not None and decider.speculate(context, prefix)

    def refine(self, context: str, prefix: str = "") -> bool:
        decider = self.pick(context, prefix)
        return decider is not None and decider.refine(context, prefix)

    def speculate_space(self, context: str) -> bool:
        decider = self.pick(context)
        return decider is not None and decider.speculate_space(context)

    def shown_phrase(self, context: str, prefix: str = "", max_words: int = 4) -> Phrase | None:
        decider = self.pick(context, prefix)
        return None if decider is None else decider.shown_phrase(context, prefix, max_words)

    def catch_up(self) -> None:
        for decider in self._deciders.values():
            decider.catch_up()

    def reset(self) -> None:
        """Drop every language's window, KV cache and document caches."""
        for decider in self._deciders.values():
            decider.reset()

    def has_cached(self, context: str) -> bool:
        decider = self.pick(context)
        return decider is None or decider.has_cached(context)

    def has_ahead(self, context: str) -> bool:
        """Whether the boundary at `context` was decided ahead, before the space came."""
        decider = self.pick(context)
        return decider is not None and decider.has_ahead(context)

    def phrase_threshold(self, context: str) -> float | None:
        """The fitted phrase threshold of the model that serves `context` (None: no phrases)."""
        decider = self.pick(context)
        return None if decider is None else decider.phrase_threshold

    def slide_ahead(self, context: str) -> bool:
        decider = self.pick(context)
        return decider is not None and decider.slide_ahead(context)
