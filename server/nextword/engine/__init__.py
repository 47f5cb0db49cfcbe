"""The runtime engine: everything the server loads to turn text into ranked words.

    router = Router.load()                  # the models, by script (router.py)
    decider = router.decider()              # one per document (decider.py)
    decider.decide("The cat sat on the ", "m", k=3)

This package imports nothing from the rest of nextword but the base modules (blas,
errors, percentiles, process). The language server uses only the names below; the
training and evaluation layers may reach into the modules themselves.
"""

import nextword.engine.learnfiles as learnfiles
import nextword.engine.personal as personal
from nextword.engine.components import Candidate
from nextword.engine.decider import Decider, Phrase
from nextword.engine.engine import Engine
from nextword.engine.loader import DEFAULT_MODEL, ModelError, resolve
from nextword.engine.personal import PersonalStore
from nextword.engine.refine import REFINED_LETTERS
from nextword.engine.router import Router, RoutingDecider
from nextword.engine.words import WORD_RE, is_candidate, split_prefix

__all__ = [
    "DEFAULT_MODEL",
    "Candidate",
    "Decider",
    "Engine",
    "ModelError",
    "learnfiles",
    "PersonalStore",
    "REFINED_LETTERS",
    "Phrase",
    "Router",
    "RoutingDecider",
    "personal",
    "resolve",
    "WORD_RE",
    "is_candidate",
    "split_prefix",
]
