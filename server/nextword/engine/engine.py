"""The loaded model and its word tables, shared by every document's decider.

    engine = Engine.load()              # model + word tables, shared by documents
    decider = engine.decider()          # one per document: its own KV cache and window
    decider.decide("The cat sat on the ", "m", k=3)

Loading reads the model (loader.py), its word tables (lexicon.py, ngram.py, then
`load_tables` picks the language's: wordtables.py's English, hantables.py's Chinese)
and the fitted mixture (weights.py). The decider
(decider.py) does the work per document: the engine hands each one the parts it
reads (the model, the tables, the token vocabulary, the weights), never itself.
"""

from __future__ import annotations

import json
import time
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from nextword.blas import set_inference_threads
from nextword.engine.blocklist import Blocklist
from nextword.engine.corrections import CorrectionGate, Spelling
from nextword.engine.decider import Decider
from nextword.engine.errormodel import ErrorModel
from nextword.engine.general import GeneralTrigram
from nextword.engine.genres import GenreNGram, load_ngram
from nextword.engine.hantables import AfterChar, CharTrigram, ChineseTables
from nextword.engine.lexicon import Lexicon, load_lexicon
from nextword.engine.loader import (
    DEFAULT_MODEL,
    MODELS_DIR,
    LoadedModel,
    ModelError,
    load,
    release_cached_buffers,
)
from nextword.engine.ngram import NGram
from nextword.engine.personal import PersonalStore
from nextword.engine.systemlm import SystemLM
from nextword.engine.variants import Variants
from nextword.engine.vocabulary import Vocabulary
from nextword.engine.weights import Mixture
from nextword.engine.words import is_han_text
from nextword.engine.wordtables import EnglishTables, WordTables


def shipped(model_dir: Path, name: str) -> Path:
    """A file the model directory may hold of its own, else the one shipped beside the
    bundled models (models/typos.json, spelling.txt, offensive.txt, variants.txt,
    misspellings.txt)."""
    own = model_dir / name
    return own if own.exists() else MODELS_DIR / name


class Engine:
    """A loaded model and its word tables; hand out one `Decider` per document."""

    def __init__(self, loaded: LoadedModel, tables: WordTables, mixture: Mixture):
        self.loaded = loaded
        self.tables = tables
        self.lexicon = tables.lexicon
        # The fitted weights every decider mixes with unless it is handed others.
        self.mixture = mixture
        self.vocabulary = Vocabulary(loaded.tokenizer, tables.lexicon, refines=tables.refines)
        self.load_seconds = 0.0
        # The least score (mean log-probability per word) of a phrase worth showing,
        # fitted on dev text for a precision (training/phrase_fit.py); None: no phrases.
        # In a word the first word's probability is given the typed prefix, so scores
        # run higher there: a threshold of its own, fitted for the same precision.
        self.phrase_threshold: float | None = None
        self.in_word_phrase_threshold: float | None = None
        # When a typed prefix is corrected at all, fitted on dev text
        # (training/correction_fit.py).
        self.gate = CorrectionGate()

    @classmethod
    def load(cls, model: str | Path | None = None, *, warmup: bool = True) -> Engine:
        """Load a model directory (default: the bundled model) and warm it up.

        Raises:
            loader.ModelError: with a one-line message naming the problem and the fix.
        """
        start = time.perf_counter()
        set_inference_threads()
        loaded = load(model)
        # The typing-error model and the words corrections may offer beyond the lexicon.
        errors = shipped(loaded.path, "typos.json")
        spelling = shipped(loaded.path, "spelling.txt")
        mixture = Mixture.read(loaded.path / "mixture.json")
        try:
            lexicon, arrays = load_lexicon(loaded.path, loaded.tokenizer, DEFAULT_MODEL)
            ngram = load_ngram(arrays, lexicon.unigram, mixture.genre_evidence_words)
            tables = load_tables(
                lexicon,
                ngram,
                ErrorModel.read(errors),
                arrays,
                spelling,
                blocklist=shipped(loaded.path, "offensive.txt"),
                variants=shipped(loaded.path, "variants.txt"),
                misspellings=shipped(loaded.path, "misspellings.txt"),
                general=loaded.path,
            )
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as err:
            raise ModelError(
                f"the word tables (lexicon.txt, lexicon.npz) of {loaded.path} are unreadable "
                f"({type(err).__name__}); re-export the model or delete both files"
            ) from None
        engine = cls(loaded, tables, mixture)
        thresholds = read_phrase_thresholds(loaded.path / "phrases.json")
        engine.phrase_threshold, engine.in_word_phrase_threshold = thresholds
        engine.gate = CorrectionGate.read(loaded.path / "corrections.json")
        if warmup:
            engine.warmup()
        release_cached_buffers()
        engine.load_seconds = time.perf_counter() - start
        return engine

    def decider(
        self,
        *,
        window_tokens: int = 128,
        temperature: float = 0.0,
        top_k: int = 50,
        seed: int | None = None,
        store: PersonalStore | None = None,
        mixture: Mixture | None = None,
        gate: CorrectionGate | None = None,
        block_offensive: bool = True,
        standard_spelling: bool = True,
    ) -> Decider:
        """A decider for one document; `mixture` and `gate` replace the fitted weights
        and correction gate (fits); `block_offensive` and `standard_spelling` as the
        `blockOffensiveWords` setting and the document's prose say."""
        return Decider(
            self.loaded,
            self.tables,
            self.vocabulary,
            mixture=mixture or self.mixture,
            phrase_thresholds=(self.phrase_threshold, self.in_word_phrase_threshold),
            window_tokens=window_tokens,
            temperature=temperature,
            top_k=top_k,
            seed=seed,
            store=store,
            gate=gate or self.gate,
            block_offensive=block_offensive,
            standard_spelling=standard_spelling,
        )

    def warmup(self) -> None:
        """Run the shapes a session runs (a window, then one-word steps) once."""
        decider = self.decider()
        text = "The quick brown fox jumps over the lazy dog while the editor waits. " * 4
        decider.decide(text, "")
        decider.decide(text + "Then ", "")
        decider.refine(text + "Then ")
        decider.decide(text + "Then it ", "x")

    def describe(self) -> dict[str, Any]:
        return {
            "path": str(self.loaded.path),
            "model_type": self.loaded.config.get("model_type"),
            "parameters": self.loaded.n_params,
            "weights_bytes": self.loaded.size_bytes,
            "lexicon_words": len(self.lexicon),
            "ngram": self.tables.ngram_component("") is not None,
            "mixture": self.mixture.weights,
            "system_lm": None if self.tables.system is None else str(self.tables.system.path),
        }


def read_phrase_thresholds(path: Path) -> tuple[float | None, float | None]:
    """The fitted phrase thresholds of a model directory, at a word start and in a word;
    None where it has none (no threshold reached the precision there, or no fit). A fit
    from before the in-word threshold uses its word-start threshold in a word too."""

    def score(value: object) -> float | None:
        return None if value is None else float(value)  # type: ignore[arg-type]

    try:
        fitted = json.loads(path.read_text(encoding="utf-8"))
        in_word = fitted.get("in_word") or {"threshold": fitted["threshold"]}
        return score(fitted["threshold"]), score(in_word["threshold"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None, None


def load_tables(
    lexicon: Lexicon,
    ngram: NGram | GenreNGram | None,
    errors: ErrorModel,
    arrays: dict[str, np.ndarray],
    spelling: Path | None = None,
    *,
    blocklist: Path | None = None,
    variants: Path | None = None,
    misspellings: Path | None = None,
    general: Path | None = None,
) -> WordTables:
    """The tables for this lexicon: Chinese when its words are Han continuations.
    `spelling`: the words corrections may offer beyond the lexicon (English);
    `blocklist`: the offensive words (blocklist.py); `variants`: the informal spellings
    and their standard ones (variants.py; English); `misspellings`: the words never
    offered unless written (English); `general`: the model directory, whose
    general-English trigram is read where it has one (general.py; English).

    Raises:
        ModelError: the general-English trigram is there but unreadable.
    """
    chinese = bool(lexicon.words) and all(is_han_text(w) for w in lexicon.words[:100])
    tables: WordTables
    if chinese:
        chars = CharTrigram.from_arrays(arrays, lexicon)
        after = AfterChar.from_arrays(arrays, len(lexicon))
        tables = ChineseTables(lexicon, after, chars, SystemLM.find())
    else:
        extra = Spelling.read(spelling, lexicon.index) if spelling is not None else None
        spellings = Variants.load(variants) if variants is not None else Variants({})
        misspelled = None
        if misspellings is not None:
            misspelled = Blocklist.load(misspellings, lexicon.words, lexicon.index)
        tables = EnglishTables(lexicon, ngram, errors, extra, spellings, misspelled)
        if general is not None:
            tables.general = GeneralTrigram.load(
                general, lexicon.words, lexicon.counts, tables.openers
            )
    if blocklist is not None:
        tables.blocklist = Blocklist.load(blocklist, lexicon.words, lexicon.index)
    return tables
