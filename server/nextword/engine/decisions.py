"""One document's decisions at word boundaries: (context, typed prefix) -> ranked words.

A decision at a word boundary runs the model once over the new tokens (the token
window, window.py) and mixes the word distributions of `components`: the model's
(lexicon.py), a word trigram (ngram.py), the document's own words (wordtables.py)
and, with learning on, the user's (personal.py), with the weights of the decider's
`Mixture` (weights.py). Keystrokes inside the word only filter that cached
distribution by the prefix (filtering.py); the model runs again only when the cache
has no word for it (the token search, tokensearch.py).

The decider is handed what it reads, not the engine that made it: the model (its
window and KV cache are the decider's own), the language's word tables, the token
vocabulary, the mixture's weights and the phrase thresholds. The work ahead of the
text (refinement, guesses, phrases) builds on this in decider.py.
"""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from nextword.engine.boundary import Boundary
from nextword.engine.components import Candidate, Component, Components, following, repeat_rate
from nextword.engine.corrections import CorrectionGate, Masses
from nextword.engine.filtering import filter_words, mistake_masses
from nextword.engine.personal import PersonalStore, last_word
from nextword.engine.scorer import Pending, Scorer
from nextword.engine.tokensearch import spell_words, spelled_before
from nextword.engine.weights import GENERAL, NEURAL, NGRAM, SYSTEM, USER, USERBIGRAM, Mixture
from nextword.engine.window import fit_window
from nextword.engine.words import is_word, starts_sentence

if TYPE_CHECKING:
    from nextword.engine.loader import LoadedModel
    from nextword.engine.vocabulary import Vocabulary
    from nextword.engine.wordtables import Document, WordTables

# Spelled words join the boundary's distribution with this much of their path
# probability: they rank by it among themselves, below any word the tables know.
SPELLED_SHARE = 1e-3
# A popup ends before a word this much less likely than its first: after "I dont" the
# first is don't at 100%, and the places left were filled with donut, dont_inherit and
# donate at 1e-7, noise to read past. A typist never takes such a word: 1,500 words
# of dev chat and email type the same with it, to four places (KSR@1/3/5, top-1/3).
# The word typed in full counts as the first: after "Are you free this" the typed
# "this" holds 99.6% of the words it starts, and the popup was thisline, thisclass,
# this_cpu at 0.06% each, the ghost text "line".
# The words beyond the lexicon that the document or the user wrote stay, whatever
# their probability. This came when a name written once sat at P ~ 0 until the
# document repeated a word; the document cache's prior (wordtables.DOC_YOUNG) now
# gives it weight from the start, and the tests that needed the exception pass
# without it. It is kept as the promise that such a word is never cut.
POPUP_FLOOR = 1e-3


@dataclass
class DeciderStats:
    """What a decider did so far (tests and the bench read it)."""

    decisions: int = 0  # boundary decisions (distribution recomputed)
    cache_hits: int = 0  # answered by filtering the cached distribution
    spelled: int = 0  # answered with the help of the token search
    forwards: int = 0  # model calls
    decisions_ahead: int = 0  # boundaries decided ahead of the text (phrases)
    ahead_hits: int = 0  # boundaries the text reached after they were decided ahead
    adopted: int = 0  # of those, taken as decided (a guess, mixed as if written)
    refined: int = 0  # decisions refined by the model's second token (refine.py)


class BoundaryDecider:
    """One document's decisions: its token window, KV cache and cached distribution.

    `Decider` (decider.py) is this and the work ahead of the text.
    """

    def __init__(
        self,
        model: LoadedModel,
        tables: WordTables,
        vocabulary: Vocabulary,
        *,
        mixture: Mixture,
        phrase_thresholds: tuple[float | None, float | None] = (None, None),
        window_tokens: int = 128,
        temperature: float = 0.0,
        top_k: int = 50,
        seed: int | None = None,
        store: PersonalStore | None = None,
        gate: CorrectionGate | None = None,
        block_offensive: bool = True,
        standard_spelling: bool = True,
    ):
        """Args:
        model: the loaded model; the decider runs it on a KV cache of its own.
        tables: the language's word tables (lexicon, trigram, document caches).
        vocabulary: the model's tokens as text (token search, refinement).
        mixture: the weights this decider mixes with (the engine's fitted ones; a
            fit hands each decider the weights it tries).
        phrase_thresholds: the least score of a phrase worth showing, at a word
            start and in a word (`Engine.phrase_threshold`); None: no phrases there.
        store: the user's own words (personal.py); None while learning is off.
        gate: when to correct a typed prefix (corrections.py; the engine's fitted
            one; a fit hands each decider the gate it tries).
        block_offensive: never offer a word of the blocklist (blocklist.py) that the
            document or the store has not written.
        standard_spelling: offer "don't" for "dont" (variants.py): prose, not code.
        """
        if window_tokens < 8:
            raise ValueError("window_tokens must be at least 8")
        self.model = model
        self.tables = tables
        self.lexicon = tables.lexicon
        self.vocabulary = vocabulary
        self.phrase_threshold, self.in_word_phrase_threshold = phrase_thresholds
        self.window_tokens = window_tokens
        self.temperature = max(0.0, float(temperature))
        self.top_k = max(1, int(top_k))
        self.stats = DeciderStats()
        self.mixture = mixture
        self.gate = gate or CorrectionGate()
        self.block_offensive = block_offensive
        self.standard_spelling = standard_spelling
        # In prose the model reads the text in its standard spelling, as it was trained
        # on it ("i dont" as "I don't"); in code "i" is a name.
        self._standardise = tables.standardise if standard_spelling else None
        self._scorer = Scorer(model.model)
        self._doc = tables.document()
        self._anchor = 0  # character offset where the token window starts
        self._boundary: Boundary | None = None
        self._rng = np.random.default_rng(seed)
        # Boundaries decided ahead of the text (a phrase's next words), by context: the
        # user typing through a phrase finds each one made. Replaced, never changed in
        # place, so `filter_cached` may read it from another thread.
        self._ahead: dict[str, Boundary] = {}
        # The user's own words (personal.py), shared by every document; None: learning off.
        self.store = store
        self._catch_up = False  # the next window is short if it needs many new tokens

    def catch_up(self) -> None:
        """Make the next decision cheap if it needs many new tokens (window.CATCH_UP_TOKENS).

        The server asks this after reading ahead over queued typing: the text jumped,
        and the user waits for the newest state. The window then grows back as usual.
        """
        self._catch_up = True

    def reset(self) -> None:
        """Drop the window, the KV cache, the document caches and every decision."""
        self._scorer.reset()
        self._doc = self.tables.document()
        self._anchor = 0
        self._boundary = None
        self._ahead = {}

    def has_cached(self, context: str) -> bool:
        """True when a decision at this boundary is already made (no model call needed)."""
        return self._cached(context) is not None

    def has_ahead(self, context: str) -> bool:
        """True when the model already ran for this boundary, ahead of the text: deciding
        it is the mixture alone (a few ms, no forward)."""
        return context in self._ahead

    def _cached(self, context: str) -> Boundary | None:
        """The boundary decided at `context`; None if none (see `has_ahead`)."""
        boundary = self._boundary
        if boundary is not None and boundary.context == context:
            return boundary
        return None

    def decide(
        self,
        context: str,
        prefix: str = "",
        k: int = 5,
        *,
        spell: bool = True,
        correct: bool = False,
    ) -> list[Candidate]:
        """The top-`k` whole words that continue `context` and start with `prefix`.

        Args:
            context: the document text before the word being typed.
            prefix: the part of the word already typed ("" at a word start).
            k: how many candidates to return at most.
            spell: allow the token search (model calls) when no known word starts
                with the prefix; False keeps an in-word call to filtering only.
            correct: offer words the prefix misspells too (`Candidate.correction`).
        """
        if k <= 0 or (prefix and not is_word(prefix)):
            return []
        if context in self._ahead:
            self._advance(context)  # the text reached a boundary the model saw ahead
        cached = self.filter_cached(context, prefix, k, correct=correct)
        if cached is not None and (cached or not spell or not prefix):
            return cached
        boundary = self._advance(context)
        ranked = self._ranked(boundary, prefix, k, correct)
        unknown = prefix and not _completes(ranked, prefix)
        if spell and unknown and not spelled_before(boundary, prefix):
            # Nothing known starts with the prefix, nor does it misspell a known word
            # (with `correct`): spell words out with the model (a new name), and keep
            # them with the boundary so the next keystrokes filter them for free.
            # The dict is replaced, never changed: another thread may be filtering it.
            found = self._spell(boundary, prefix, k)
            spelled = {
                c.text: c.prob * SPELLED_SHARE for c in found if self._offers(c.text, context)
            }
            rest = max(0.0, 1.0 - sum(c.prob for c in found)) * SPELLED_SHARE
            boundary.unspelled = {**boundary.unspelled, prefix: rest}
            boundary.spelled = boundary.spelled.union(spelled.keys() - boundary.extra.keys())
            boundary.extra = {**spelled, **boundary.extra}
            self.stats.spelled += 1
            ranked = self._ranked(boundary, prefix, k, correct)
        return self._popup(ranked, boundary, prefix, k)

    def filter_cached(
        self,
        context: str,
        prefix: str,
        k: int = 5,
        *,
        correct: bool | CorrectionGate = False,
        typed: bool = False,
    ) -> list[Candidate] | None:
        """The decision at `context` filtered by `prefix`, or None when none is cached;
        `correct` as `_filter` reads it; with `typed`, the prefix itself as a word
        among the candidates where it ranks (ghost text shows no completion less
        likely than the word typed in full).

        Never calls the model, and reads the cached decision once (a boundary, once
        published, is only replaced), so a thread other than the inference worker may
        call it while the worker decides elsewhere.
        """
        boundary = self._cached(context)
        if boundary is None:
            return None
        if k <= 0 or (prefix and not is_word(prefix)):
            return []
        self.stats.cache_hits += 1
        return self._popup(self._ranked(boundary, prefix, k, correct), boundary, prefix, k, typed)

    # -- the boundary decision --------------------------------------------------------

    def _advance(self, context: str) -> Boundary:
        """The boundary at `context`: the one made, one decided ahead, or a new one."""
        boundary = self._boundary
        if boundary is not None and boundary.context == context:
            return boundary
        ahead = self._ahead.get(context)
        if ahead is not None and self._adoptable(ahead):
            # A guess the user has now written: decided as a fresh decision would be.
            assert ahead.doc is not None
            self._doc, boundary = ahead.doc, ahead
            self.stats.adopted += 1
        else:
            # Decided ahead by a phrase, the boundary lacked the words the user has now
            # written: it is mixed again with the document's counts, over the model
            # output already computed.
            boundary = self._decide_boundary(context, reuse=ahead)
        if ahead is not None:
            self.stats.ahead_hits += 1
        else:
            self.stats.decisions += 1
        self._boundary = boundary
        # What lies beyond this context is still ahead; the rest was not written.
        self._ahead = {c: b for c, b in self._ahead.items() if c.startswith(context)}
        return boundary

    def _adoptable(self, ahead: Boundary) -> bool:
        """Whether a boundary decided ahead is what deciding it now would give: counted
        as written, over the token window the decider would use now (a slide may have
        moved it since), and no learning in between (the user's counts change as
        words are written)."""
        return (
            ahead.doc is not None
            and self.store is None
            and ahead.tokens == self._tokens(ahead.context)
        )

    # -- the token window and the mixture ---------------------------------------------

    def _window(self, text: str, *, limit: int | None = None) -> list[int]:
        """Tokens of text[anchor:] (window.py), the anchor moved forward when the window
        is full, or to catch up after a jump (`catch_up`)."""
        cached = None
        if self._catch_up:
            self._catch_up, cached = False, self._scorer.tokens
        tokens, self._anchor = fit_window(
            self.model.tokenizer,
            text,
            self._anchor,
            size=self.window_tokens,
            limit=limit or self.window_tokens,
            bos_id=self.model.bos_id,
            cached=cached,
            standardise=self._standardise,
        )
        return tokens

    def _tokens(self, context: str) -> list[int]:
        """The token window the model reads for the word after `context`: a single
        space before the word belongs to the word's first token (" the")."""
        return self._window(context[:-1] if context.endswith(" ") else context)

    def components(
        self,
        context: str,
        *,
        update: bool = True,
        reuse: Boundary | None = None,
        doc: Document | None = None,
        branches: tuple[list[int], np.ndarray] | None = None,
    ) -> Components:
        """The word distributions mixed at this boundary, each with its weight name.

        With `update` False (a look ahead over guessed words), the document caches
        are not brought up to `context`. `reuse`, a boundary decided ahead at this
        context, lends its model output when the token window is the same. `doc`:
        the document caches to count with (default: the decider's own). `branches`:
        first tokens and the model's next-token log-probabilities after each, to
        split their mass among their words by (refine.py).
        """
        lex, tables, vocabulary = self.lexicon, self.tables, self.vocabulary
        # A component weighted 0 (a Chinese model has no word trigram or document
        # pairs: its text has no spaces to count words by) is not computed at all.
        computed = self.mixture.computed()
        lead = " " if context.endswith(" ") else ""
        tokens = self._tokens(context)
        if reuse is not None and reuse.tokens == tokens:
            pending = Pending(reuse.logprobs)
        else:
            # Started first and read last: the word tables are counted meanwhile.
            pending = self._scorer.request(tokens)
            self.stats.forwards = self._scorer.forwards
        doc = doc or self._doc
        # The word trigram's component (ngram.py), from the language's tables; where
        # they hold one trigram per genre, mixed by the document's genre (genres.py).
        # In prose the tables read the words before the cursor in their standard
        # spelling; in code "i" is a name.
        standard = self.standard_spelling
        counted = (
            tables.ngram_component(context, doc, standardise=standard)
            if NGRAM in computed
            else None
        )
        general = (
            tables.general_component(context, doc, standardise=standard)
            if GENERAL in computed
            else None
        )
        learned = self.store is not None and tables.learns
        words = self._personal(context, computed) if learned else []
        words += doc.components(context, self.mixture, update=update)

        logprobs = pending.result()
        first, cond = (lex.first_space, lex.cond_space) if lead else (lex.first_bare, lex.cond_bare)
        neural = np.exp(logprobs[first]) * cond
        if lead and vocabulary.space_token is not None:
            # " 000" is [" ", "000"]: a word whose first token is the bare space would
            # take the model's whole P(" ") after a space, and that is mostly a second
            # space (emails put two after a full stop). Such words (numbers, mostly)
            # come from the trigram and the document instead.
            neural[first == vocabulary.space_token] = 0.0
        groups = vocabulary.token_groups(lead)
        if groups is not None and counted is not None:
            # Each first token's words split as the trigram ranks them, not by the
            # training counts' share, which is blind to the context (refine.py).
            neural = groups.follow(neural, counted.dense)
        if branches is not None and groups is not None:
            neural = groups.split(neural, *branches)
        word_mass = float(neural.sum())
        neural = neural / word_mass
        second = tables.system_component(neural, context) if SYSTEM in computed else None
        parts = [Component(NEURAL, neural, {})]
        parts += [part for part in (counted, general, second) if part is not None] + words
        return Components(parts, tokens, logprobs, lead, doc.words, min(1.0, word_mass))

    def _personal(self, context: str, computed: set[str]) -> list[Component]:
        """The personal store's components: the user's words, and what follows the last
        word in what they wrote; scaled, as the document's, by their repeat rate."""
        store, lex = self.store, self.lexicon
        assert store is not None
        parts = []
        sentence_start = starts_sentence(context)
        if USER in computed:
            known, unknown, total, singletons = store.unigram(lex.index)
            if sentence_start:  # as for the document's words: only capitals open a sentence
                known *= lex.capitalised
                unknown = {w: c for w, c in unknown.items() if w[0].isupper()}
            if total and (unknown or known.any()):
                extra = {w: c / total for w, c in unknown.items()}
                confidence = repeat_rate(total, singletons)
                parts.append(Component(USER, known / total, extra, confidence))
        previous = last_word(context) if USERBIGRAM in computed else None
        pairs = store.following(previous) if previous is not None else {}
        if pairs:
            parts.append(following(USERBIGRAM, pairs, lex.index))
        return parts

    def _decide_boundary(
        self,
        context: str,
        *,
        update: bool = True,
        reuse: Boundary | None = None,
        doc: Document | None = None,
        branches: tuple[list[int], np.ndarray] | None = None,
    ) -> Boundary:
        """The boundary at `context`: its components (`components`, same arguments)
        mixed by the mixture's weights."""
        doc = doc or self._doc
        found = self.components(context, update=update, reuse=reuse, doc=doc, branches=branches)
        # Weights of the components present renormalised: an empty document has no
        # document-local evidence, and its share goes to the others.
        weights = [self.mixture.weight(p.name) * p.confidence for p in found.parts]
        norm = sum(weights) or 1.0
        mixed = np.zeros(len(self.lexicon), dtype=np.float64)
        extra: dict[str, float] = {}
        for part, weight in zip(found.parts, weights, strict=True):
            weight /= norm
            mixed += weight * part.dense
            for word, p in part.extra.items():
                extra[word] = extra.get(word, 0.0) + weight * p
        self.tables.opening(mixed, context, doc)
        self.tables.screen(
            mixed,
            extra,
            context,
            doc,
            block=self.block_offensive,
            standardise=self.standard_spelling,
            learned=self._learned(),
        )
        return Boundary(
            context,
            mixed,
            extra,
            found.lead,
            found.tokens,
            found.logprobs,
            found.word_mass,
            standardised=self.standard_spelling,
        )

    def _learned(self) -> Container[str]:
        """The personal store's words: read without its lock, as a word learned meanwhile
        shows a boundary later."""
        return self.store.words if self.store is not None else ()

    def _wrote(self, word: str, context: str) -> bool:
        """Whether the document before `context`'s end or the personal store has `word`."""
        return word in self._learned() or self._doc.wrote(word, context)

    def _offers(self, word: str, context: str) -> bool:
        """Whether a word the token search spelled may be offered (`WordTables.offers`)."""
        return self.tables.offers(
            word, context, self._doc, block=self.block_offensive, learned=self._learned()
        )

    # -- in-word filtering and the token search -----------------------------------------

    def _filter(
        self,
        boundary: Boundary,
        prefix: str,
        n: int,
        correct: bool | CorrectionGate = False,
        typed: bool = False,
    ) -> list[Candidate]:
        """The `n` likeliest words of `boundary` for `prefix` (filtering.py); with
        `correct`, and the words it misspells where the decider's gate opens (or the
        gate `correct` is: a fit asks with others), unless the user wrote it before
        in the document or the store learned it: then it is their word, no typo."""
        gate = correct if isinstance(correct, CorrectionGate) else self.gate if correct else None
        if gate is not None and prefix and self._wrote(prefix, boundary.context):
            gate = None
        return filter_words(boundary, prefix, n, self.tables, correct=gate, typed=typed)

    def _ranked(
        self, boundary: Boundary, prefix: str, k: int, correct: bool | CorrectionGate
    ) -> list[Candidate]:
        """What a popup is cut from: the likeliest `top_k` (at least `k`) words for
        `prefix`, and the prefix itself as a word where it ranks (`_above_floor`). At a
        word start, as many as the word start's own readers ask for (the candidates
        kept with the boundary, `filter_words`)."""
        n = max(k, self.top_k) + (1 if prefix else 0)
        return self._filter(boundary, prefix, n, correct, typed=True)

    def _popup(
        self, ranked: list[Candidate], boundary: Boundary, prefix: str, k: int, typed: bool = False
    ) -> list[Candidate]:
        """The `k` words to offer of `ranked` (`_ranked`), above the floor. In a word,
        the words that save a keystroke come first (`Candidate.saves`): after "th" the
        popup offers that, this, they, there, their, and "the", one letter away, only
        where room is left. With `typed`, the prefix typed in full among them too,
        where its probability puts it, and after them the words of the likeliest `k`
        that the popup passed over: ghost text reads them all, likeliest first
        (lsp/items.py)."""
        kept = _above_floor(ranked, boundary)
        own = next((c for c in kept if c.is_typed(prefix)), None) if prefix else None
        ordered = self._order([c for c in kept if c is not own] if own else kept, len(kept))
        words = (_saving_first(ordered, prefix) if prefix else ordered)[:k]
        if typed:
            if own is not None:
                words.insert(sum(c.prob > own.prob for c in words), own)
            words += [c for c in ordered[:k] if c not in words]
        return words

    def mistake_masses(self, context: str, prefix: str) -> Masses | None:
        """What the correction gate weighs at `prefix` after `context` (`Masses`: the
        known words' probability A, the error mass B, whether it reads as a name);
        None with no decision made there."""
        boundary = self._cached(context)
        return None if boundary is None else mistake_masses(boundary, prefix, self.tables)

    def _order(self, ranked: list[Candidate], k: int) -> list[Candidate]:
        """Best first at temperature 0; otherwise a draw without replacement."""
        if self.temperature == 0 or len(ranked) <= 1:
            return ranked[:k]
        pool = ranked[: self.top_k]
        logits = np.log(np.array([c.prob for c in pool]) + 1e-12) / self.temperature
        # Gumbel top-k: sorting perturbed logits samples k items without replacement.
        keys = logits + self._rng.gumbel(size=len(pool))
        return [pool[i] for i in np.argsort(-keys)[:k]]

    def _spell(self, boundary: Boundary, prefix: str, k: int) -> list[Candidate]:
        """Words starting with `prefix` spelled out by the model (tokensearch.py)."""
        found = spell_words(boundary, prefix, k, scorer=self._scorer, vocabulary=self.vocabulary)
        self.stats.forwards = self._scorer.forwards
        return found


def _above_floor(ranked: list[Candidate], boundary: Boundary) -> list[Candidate]:
    """`ranked` less the words `POPUP_FLOOR` leaves out, but for the words beyond the
    lexicon other than the token search's guesses: the document's and the user's own,
    as filtering.py reads them too (with them, a standard spelling the lexicon lacks,
    "iPhone"). The prefix typed in full, where `ranked` has it, counts for the floor."""
    if not ranked:
        return ranked
    floor = max(c.prob for c in ranked) * POPUP_FLOOR
    return [
        c
        for c in ranked
        if c.prob >= floor or (c.text in boundary.extra and c.text not in boundary.spelled)
    ]


def _saving_first(ranked: list[Candidate], prefix: str) -> list[Candidate]:
    """`ranked` with the words that save a keystroke after `prefix` first, each part in
    its order. Only in a word: at a word start the popup is also the guess of the next
    word (what top-3 measures), and "I" and "a" keep their places there."""
    return sorted(ranked, key=lambda c: not c.saves(prefix))


def _completes(ranked: list[Candidate], prefix: str) -> bool:
    """Whether any of `ranked` is more than the prefix typed in full."""
    return any(not c.is_typed(prefix) for c in ranked)
