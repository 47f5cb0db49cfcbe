"""One document's decisions: (context, typed prefix) -> ranked whole words.

A decision at a word boundary runs the model once over the new tokens and mixes the
word distributions of `components`: the model's (lexicon.py), a word trigram
(ngram.py), the document's own words (wordtables.py) and, with learning on, the
user's (personal.py), with the weights of the decider's `Mixture` (weights.py).
Keystrokes inside the word only filter that cached distribution by the prefix; the
model runs again only when the cache has too few words for it (`_spell`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from nextword.engine.components import Candidate, Component, Components, following, repeat_rate
from nextword.engine.corrections import MIN_TYPED, SPELLING_MIN_TYPED
from nextword.engine.personal import PersonalStore, last_word
from nextword.engine.scorer import Scorer, common_prefix
from nextword.engine.weights import NEURAL, NGRAM, SYSTEM, USER, USERBIGRAM, Mixture
from nextword.engine.words import WORD_RE, is_word, starts_sentence

if TYPE_CHECKING:
    from nextword.engine.engine import Engine
    from nextword.engine.wordtables import Document

# Longest word the token search spells out, in tokens.
MAX_SPELL_TOKENS = 4
# After the text jumped (queued typing read at once), a decision that would forward
# more new tokens than this forwards only the last this many (about 18 words of
# context, ~6 ms here instead of ~25 ms for a full window); the window grows back.
CATCH_UP_TOKENS = 24
# A word typed this far is guessed, and the boundary after it decided ahead, once its
# probability given the prefix reaches this; after a full stop or a comma, the
# boundary after a space, once the model gives a space SPACE_MIN. Both fitted on dev
# text (`python -m nextword.training.speculation_fit`; the last 2,000 words of email,
# wiki and sotu dev, the bundled model): words guessed right at 0.5 / 0.6 / 0.7 / 0.8
# were 52.6% / 54.7% / 55.1% / 53.3% of the 6,000 words; spaces right less wrong after
# 910 punctuation marks 400 / 404 / 433 / 419.
SPECULATE_MIN = 0.7
SPACE_MIN = 0.7
# What a space usually follows in prose (not "(" or "/", which a word follows).
SPACE_AFTER = frozenset(".,;:!?)")
# A phrase goes on only while its next word is at least this likely, and while the
# model expects a word at all (not a full stop) at least this much.
PHRASE_MIN_WORD = 0.05
PHRASE_MIN_CONTINUE = 0.5
# Spelled words join the boundary's distribution with this much of their path
# probability: they rank by it among themselves, below any word the tables know.
SPELLED_SHARE = 1e-3


@dataclass
class DeciderStats:
    decisions: int = 0  # boundary decisions (distribution recomputed)
    cache_hits: int = 0  # answered by filtering the cached distribution
    spelled: int = 0  # answered with the help of the token search
    forwards: int = 0  # model calls
    decisions_ahead: int = 0  # boundaries decided ahead of the text (phrases)
    ahead_hits: int = 0  # boundaries the text reached after they were decided ahead
    adopted: int = 0  # of those, taken as decided (a guess, mixed as if written)
    refined: int = 0  # decisions refined by the model's second token (refine.py)


@dataclass(frozen=True)
class Phrase:
    """Words likely to follow, best first word first, with how likely they are."""

    words: tuple[str, ...]
    # The mean log-probability per word (length-normalised, as Smart Compose scores).
    score: float
    logprobs: tuple[float, ...]  # each word's, given the words before it

    @property
    def text(self) -> str:
        return " ".join(self.words)


@dataclass
class _Boundary:
    """The word distribution computed at one word boundary."""

    context: str
    dense: np.ndarray  # (W,) probabilities of lexicon words
    extra: dict[str, float]  # probabilities of words outside the lexicon
    lead: str  # " " when the word follows a space, else ""
    tokens: list[int]
    logprobs: np.ndarray  # the model's next-token log-probabilities
    word_mass: float = 1.0  # P(a lexicon word comes next at all), see Components
    # Per spelled prefix: the share of its mass the spelled words do not cover, so a
    # lone spelled word shows its real share, not 100%.
    unspelled: dict[str, float] = field(default_factory=dict)
    # Decided ahead over a guess as if it were written: the document caches counted up
    # to `context`, which the decider takes over with the decision when the text
    # reaches it. None for a phrase's boundaries (mixed again when reached).
    doc: Document | None = None
    # The candidates at the word start, best first, and how many were asked for: the
    # decision, the popup, the ghost text and the phrase search all read them (once
    # computed they never change: a spelled word needs a prefix).
    starts: tuple[int, list[Candidate]] | None = None
    # The first tokens refined by the model's next token (`Decider.refine`), with the
    # model's log-probabilities after each.
    branches: tuple[list[int], np.ndarray] | None = None


class Decider:
    """One document's decisions: its token window, KV cache and cached distribution."""

    def __init__(
        self,
        engine: Engine,
        *,
        window_tokens: int = 128,
        temperature: float = 0.0,
        top_k: int = 50,
        seed: int | None = None,
        store: PersonalStore | None = None,
        mixture: Mixture | None = None,
    ):
        if window_tokens < 8:
            raise ValueError("window_tokens must be at least 8")
        self.engine = engine
        self.window_tokens = window_tokens
        self.temperature = max(0.0, float(temperature))
        self.top_k = max(1, int(top_k))
        self.stats = DeciderStats()
        # The weights this decider mixes with (the engine's fitted ones by default; a
        # fit hands each decider the weights it tries).
        self.mixture = mixture or engine.mixture
        self._scorer = Scorer(engine.loaded.model)
        self._doc = engine.tables.document()
        self._anchor = 0  # character offset where the token window starts
        self._boundary: _Boundary | None = None
        self._rng = np.random.default_rng(seed)
        # Boundaries decided ahead of the text (a phrase's next words), by context: the
        # user typing through a phrase finds each one made. Replaced, never changed in
        # place, so `filter_cached` may read it from another thread.
        self._ahead: dict[str, _Boundary] = {}
        self._guessed = ""  # the context of the word last guessed (`speculate`)
        # The user's own words (personal.py), shared by every document; None: learning off.
        self.store = store
        self._catch_up = False  # the next window is short if it needs many new tokens

    def catch_up(self) -> None:
        """Make the next decision cheap if it needs many new tokens (see CATCH_UP_TOKENS).

        The server asks this after reading ahead over queued typing: the text jumped,
        and the user waits for the newest state. The window then grows back as usual.
        """
        self._catch_up = True

    def reset(self) -> None:
        self._scorer.reset()
        self._doc = self.engine.tables.document()
        self._anchor = 0
        self._boundary = None
        self._ahead = {}
        self._guessed = ""

    def has_cached(self, context: str) -> bool:
        """True when a decision at this boundary is already made (no model call needed)."""
        return self._cached(context) is not None

    def has_ahead(self, context: str) -> bool:
        """True when the model already ran for this boundary, ahead of the text: deciding
        it is the mixture alone (a few ms, no forward)."""
        return context in self._ahead

    def _cached(self, context: str) -> _Boundary | None:
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
        ranked = self._filter(boundary, prefix, max(k, self.top_k), correct)
        if spell and not ranked and prefix:
            # Nothing known starts with the prefix, nor does it misspell a known word
            # (with `correct`): spell words out with the model (a new name), and keep
            # them with the boundary so the next keystrokes filter them for free.
            # The dict is replaced, never changed: another thread may be filtering it.
            found = self._spell(boundary, prefix, k)
            spelled = {c.text: c.prob * SPELLED_SHARE for c in found}
            rest = max(0.0, 1.0 - sum(c.prob for c in found)) * SPELLED_SHARE
            boundary.unspelled = {**boundary.unspelled, prefix: rest}
            boundary.extra = {**spelled, **boundary.extra}
            self.stats.spelled += 1
            ranked = self._filter(boundary, prefix, max(k, self.top_k), correct)
        return self._order(ranked, k)

    def filter_cached(
        self, context: str, prefix: str, k: int = 5, *, correct: bool = False
    ) -> list[Candidate] | None:
        """The decision at `context` filtered by `prefix`, or None when none is cached.

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
        return self._order(self._filter(boundary, prefix, max(k, self.top_k), correct), k)

    # -- the boundary decision --------------------------------------------------------

    def _advance(self, context: str) -> _Boundary:
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

    def _adoptable(self, ahead: _Boundary) -> bool:
        """Whether a boundary decided ahead is what deciding it now would give: counted
        as written, over the token window the decider would use now (a slide may have
        moved it since), and no learning in between (the user's counts change as
        words are written)."""
        return (
            ahead.doc is not None
            and self.store is None
            and ahead.tokens == self._tokens(ahead.context)
        )

    def _decide_ahead(self, text: str) -> _Boundary:
        """The boundary at `text` as if it were written: the document caches count the
        guessed words in a fork, so the decision is whole when the text reaches it."""
        doc = self._doc.fork()
        step = self._decide_boundary(text, doc=doc)
        step.doc = doc
        # Refined now too, while the word is typed: no refinement is left to run after
        # the space, where it would share the CPU with the answer to it (+1.9 ms on
        # the round trip p50 at speculated boundaries when it ran there, nextword bench).
        # The word start is ranked first, unrefined, as a decision made at the space
        # shows it: a guess changes no candidate.
        self._filter(step, "", self.top_k)
        step = self._refined(step, "") or step
        self.stats.decisions_ahead += 1
        self._ahead = {**self._ahead, text: step}
        return step

    def space_probability(self, context: str) -> float | None:
        """How likely the model finds a space next, at a boundary decided at `context`
        that ends in punctuation; None elsewhere (a space already, no decision)."""
        boundary = self._cached(context)
        if boundary is None or not context or context[-1] not in SPACE_AFTER:
            return None
        return float(np.exp(boundary.logprobs[self.engine.space_led()]).sum())

    def speculate_space(self, context: str, min_prob: float = SPACE_MIN) -> bool:
        """Decide ahead the boundary after a space, at a boundary after punctuation.

        After "questions." a space is the likely next key, and the boundary after it
        has the same tokens (a space belongs to the next word's first token): deciding
        it ahead is the mixture and its refinement, run between keystrokes. Only where the model
        gives a space `min_prob` (not "self." in code). Returns True when it decided.
        """
        text = context + " "
        space = self.space_probability(context)
        if space is None or space < min_prob or text in self._ahead:
            return False
        self._decide_ahead(text)
        return True

    def guess(self, context: str, prefix: str) -> Candidate | None:
        """The likeliest word being typed, given its prefix: a completion, or the prefix
        itself as a whole word ("a", "to"); None with no decision at `context`."""
        boundary = self._cached(context)
        if boundary is None or not prefix or not is_word(prefix):
            return None
        top = self._filter(boundary, prefix, 1, typed=True)
        return top[0] if top else None

    def speculate(self, context: str, prefix: str, min_prob: float = SPECULATE_MIN) -> bool:
        """Decide ahead the boundary after the word being typed, if one word is likely.

        While the user types "questi", the word is most likely "questions": the forward
        over "questions" and the space is run now, between keystrokes, so the decision
        at the space is ready when it comes; a short word ("to") is guessed when typed
        in full. At most one guess per word: a guess for
        this word already made (right or wrong) is not repeated. Returns True when it
        ran the model.
        """
        top = self.guess(context, prefix)
        if top is None or top.prob < min_prob:
            return False
        text = context + top.text + " "
        if self._guessed == context or text in self._ahead:
            return False
        self._guessed = context
        self._decide_ahead(text)
        return True

    def shown_phrase(self, context: str, prefix: str = "", max_words: int = 4) -> Phrase | None:
        """The phrase worth showing as ghost text: two words or more, scoring at least
        the engine's fitted threshold (at a word start, or in a word when `prefix` is
        typed); None otherwise (the single word is enough)."""
        engine = self.engine
        threshold = engine.in_word_phrase_threshold if prefix else engine.phrase_threshold
        if threshold is None or max_words < 2:
            return None
        found = self.phrase(context, prefix, max_words, floor=threshold)
        if found is None or len(found.words) < 2 or found.score < threshold:
            return None
        return found

    def phrase(
        self, context: str, prefix: str = "", max_words: int = 4, *, floor: float | None = None
    ) -> Phrase | None:
        """The likeliest few words after `context` (the first completing `prefix`).

        Greedy over whole words: the best word, then the boundary decided after it (one
        forward over its one or two tokens, with the KV cache, and the mixture), and so
        on, up to `max_words`. It stops where the model expects no word next (a full
        stop, a comma) or where the next word is less likely than PHRASE_MIN_WORD. The
        boundaries it decides are kept, so typing through the phrase needs no model
        call. Returns None when not even one word is offered, or, with `floor`, once the
        phrase can no longer score that much: words to come add at most log 1 = 0 each,
        so the best mean left is the sum so far over `max_words` (a search whose phrase
        could not be shown ends a forward or two sooner).
        """
        boundary = self._advance(context)
        # The first word as `guess` has it: the prefix typed in full counts as a word
        # ("worst" in "it was the worst"), so the phrase a guess starts is searched.
        ranked = self._filter(boundary, prefix, 1, typed=bool(prefix))
        if not ranked:
            return None
        words, logps = [ranked[0].text], [math.log(max(ranked[0].prob, 1e-12))]
        text = context + words[0] + " "  # `context` ends where the prefix begins
        ahead = dict(self._ahead)
        while len(words) < max_words:
            if floor is not None and sum(logps) / max_words < floor:
                self._ahead = ahead
                return None  # out of reach whatever follows
            step = ahead.get(text)
            if step is None:
                step = self._decide_boundary(text, update=False)
                self.stats.decisions_ahead += 1
                ahead[text] = step
            top = self._filter(step, "", 1)
            prob = top[0].prob * step.word_mass if top else 0.0
            if prob < PHRASE_MIN_WORD or step.word_mass < PHRASE_MIN_CONTINUE:
                break
            words.append(top[0].text)
            logps.append(math.log(prob))
            text += top[0].text + " "
        self._ahead = ahead
        return Phrase(tuple(words), sum(logps) / len(logps), tuple(logps))

    def refine(self, context: str, prefix: str = "") -> bool:
        """Refine the decision made at `context` by the model's second token (refine.py)
        for the words that start with `prefix`, for the letters typed next; the word
        start keeps the candidates it showed. At the word start ("") a decision is
        refined once (a guess decided ahead is refined as it is made); each prefix adds
        the likeliest first tokens that fit it and were not refined yet.

        One batched forward (~1.5 of a one-token one); the server runs it between
        keystrokes. Returns True when it refined.
        """
        boundary = self._cached(context)
        if boundary is None or (not prefix and boundary.branches is not None):
            return False
        refined = self._refined(boundary, prefix)
        if refined is None or self._boundary is not boundary:
            return False  # nothing to refine, or decided anew meanwhile (never so far)
        self._boundary = refined
        return True

    def _refined(self, boundary: _Boundary, prefix: str) -> _Boundary | None:
        """`boundary` refined for the words starting with `prefix` (a new boundary: a
        published one is never changed); None when there is nothing to refine."""
        groups = self.engine.token_groups(boundary.lead)
        if groups is None:
            return None
        done, rows = boundary.branches or ([], None)
        among = None
        if prefix:  # the first tokens a word typed so may begin with (as the token search's)
            among = np.zeros(len(groups.listed), dtype=bool)
            among[self.engine.consistent_tokens("", boundary.lead + prefix, boundary.lead)] = True
        if done:
            among = np.ones(len(groups.listed), dtype=bool) if among is None else among.copy()
            among[done] = False
        tokens = groups.pick(boundary.logprobs, among=among)
        new = self._scorer.branches(boundary.tokens, tokens) if tokens else None
        self.stats.forwards = self._scorer.forwards
        if new is None:
            return None
        branches = (done + tokens, new if rows is None else np.concatenate([rows, new]))
        refined = self._decide_boundary(
            boundary.context, reuse=boundary, doc=boundary.doc, branches=branches
        )
        # What the word start showed stays; words spelled since stay with the decision.
        refined.starts, refined.unspelled = boundary.starts, boundary.unspelled
        refined.extra = {**boundary.extra, **refined.extra}
        refined.doc, refined.branches = boundary.doc, branches
        self.stats.refined += 1
        return refined

    def slide_ahead(self, context: str) -> bool:
        """Slide a nearly full window now, while the user is not waiting.

        A slide recomputes half a window (about 20 ms here); done between keystrokes,
        it spares the next decision that cost. Returns True when it slid.
        """
        text = context[:-1] if context.endswith(" ") else context
        anchor = self._anchor
        tokens = self._window(text, limit=self.window_tokens * 3 // 4)
        if self._anchor == anchor:
            return False
        self._scorer.logprobs(tokens)
        self.stats.forwards = self._scorer.forwards
        return True

    def _window(self, text: str, *, limit: int | None = None) -> list[int]:
        """Tokens of text[anchor:], the anchor moved forward when the window is full.

        The window grows to `limit` (default `window_tokens`), then restarts at half
        of `window_tokens`, at a word start: the cached keys stay valid between moves,
        so a move costs one recompute of half a window every half window of typing.
        """
        limit = limit or self.window_tokens
        tok = self.engine.loaded.tokenizer
        if self._anchor > len(text):
            self._anchor = 0
        # Bound the text handed to the tokenizer; ~4 characters per token is typical.
        floor = len(text) - 16 * self.window_tokens
        if self._anchor < floor:
            self._anchor = _next_word_start(text, floor)
        encoding = tok.encode(text[self._anchor :], add_special_tokens=False)
        ids, offsets = encoding.ids, encoding.offsets
        if len(ids) > limit:
            keep = self.window_tokens // 2
            cut = offsets[len(ids) - keep][0]
            self._anchor += _next_word_start(text[self._anchor :], cut)
            encoding = tok.encode(text[self._anchor :], add_special_tokens=False)
            ids, offsets = encoding.ids, encoding.offsets
        bos = self.engine.loaded.bos_id
        if self._catch_up:
            self._catch_up = False
            cached = self._scorer.tokens
            if self._anchor == 0 and bos is not None:
                cached = cached[1:]
            fresh = len(ids) - common_prefix(cached, ids)
            if fresh > CATCH_UP_TOKENS:
                cut = offsets[len(ids) - CATCH_UP_TOKENS][0]
                self._anchor += _next_word_start(text[self._anchor :], cut)
                ids = tok.encode(text[self._anchor :], add_special_tokens=False).ids
        if self._anchor == 0 and bos is not None:
            ids = [bos, *ids]
        if not ids:
            ids = tok.encode("\n", add_special_tokens=False).ids
        return ids[-self.window_tokens :]

    def _tokens(self, context: str) -> list[int]:
        """The token window the model reads for the word after `context`: a single
        space before the word belongs to the word's first token (" the")."""
        return self._window(context[:-1] if context.endswith(" ") else context)

    def components(
        self,
        context: str,
        *,
        update: bool = True,
        reuse: _Boundary | None = None,
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
        engine, lex = self.engine, self.engine.lexicon
        # A component weighted 0 (a Chinese model has no word trigram or document
        # pairs: its text has no spaces to count words by) is not computed at all.
        computed = self.mixture.computed()
        lead = " " if context.endswith(" ") else ""
        tokens = self._tokens(context)
        if reuse is not None and reuse.tokens == tokens:
            logprobs = reuse.logprobs
        else:
            logprobs = self._scorer.logprobs(tokens)
        self.stats.forwards = self._scorer.forwards

        first, cond = (lex.first_space, lex.cond_space) if lead else (lex.first_bare, lex.cond_bare)
        neural = np.exp(logprobs[first]) * cond
        if lead and engine.space_token is not None:
            # " 000" is [" ", "000"]: a word whose first token is the bare space would
            # take the model's whole P(" ") after a space, and that is mostly a second
            # space (emails put two after a full stop). Such words (numbers, mostly)
            # come from the trigram and the document instead.
            neural[first == engine.space_token] = 0.0
        if branches is not None and (groups := engine.token_groups(lead)) is not None:
            neural = groups.split(neural, *branches)
        word_mass = float(neural.sum())
        parts = [Component(NEURAL, neural / word_mass, {})]
        if NGRAM in computed and (counted := engine.tables.ngram_component(context)) is not None:
            parts.append(counted)
        if (
            SYSTEM in computed
            and (second := engine.tables.system_component(parts[0].dense, context)) is not None
        ):
            parts.append(second)
        if self.store is not None and engine.tables.learns:
            parts += self._personal(context, computed)
        doc = doc or self._doc
        parts += doc.components(context, self.mixture, update=update)
        return Components(parts, tokens, logprobs, lead, doc.words, min(1.0, word_mass))

    def _personal(self, context: str, computed: set[str]) -> list[Component]:
        """The personal store's components: the user's words, and what follows the last
        word in what they wrote; scaled, as the document's, by their repeat rate."""
        store, lex = self.store, self.engine.lexicon
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
        reuse: _Boundary | None = None,
        doc: Document | None = None,
        branches: tuple[list[int], np.ndarray] | None = None,
    ) -> _Boundary:
        doc = doc or self._doc
        found = self.components(context, update=update, reuse=reuse, doc=doc, branches=branches)
        # Weights of the components present renormalised: an empty document has no
        # document-local evidence, and its share goes to the others.
        weights = [self.mixture.weight(p.name) * p.confidence for p in found.parts]
        norm = sum(weights) or 1.0
        mixed = np.zeros(len(self.engine.lexicon), dtype=np.float64)
        extra: dict[str, float] = {}
        for part, weight in zip(found.parts, weights, strict=True):
            weight /= norm
            mixed += weight * part.dense
            for word, p in part.extra.items():
                extra[word] = extra.get(word, 0.0) + weight * p
        self.engine.tables.opening(mixed, context, doc)
        return _Boundary(
            context, mixed, extra, found.lead, found.tokens, found.logprobs, found.word_mass
        )

    # -- in-word filtering --------------------------------------------------------------

    def _filter(
        self, boundary: _Boundary, prefix: str, n: int, correct: bool = False, typed: bool = False
    ) -> list[Candidate]:
        """The `n` most probable words starting with `prefix`, from the cached distribution;
        with `correct`, and words one typing mistake away (corrections.py) among them;
        with `typed`, the prefix itself as a word among them (no completion, but a guess)."""
        if not prefix:
            starts = boundary.starts
            if starts is None or starts[0] < n:
                starts = n, self._filter_words(boundary, "", n, False, False)
                boundary.starts = starts
            return starts[1][:n]
        return self._filter_words(boundary, prefix, n, correct, typed)

    def _filter_words(
        self, boundary: _Boundary, prefix: str, n: int, correct: bool, typed: bool
    ) -> list[Candidate]:
        if not prefix:
            own = self.engine.tables.start_candidates(boundary.dense, n, boundary.context)
            if own is not None:
                return own
        lex = self.engine.lexicon
        lo, hi = lex.prefix_range(prefix)
        probs = boundary.dense[lo:hi]
        if len(probs) > n:
            top = np.argpartition(-probs, n)[:n]
        else:
            top = np.arange(len(probs))
        found = {lex.words[lo + i]: float(probs[i]) for i in top if probs[i] > 0}
        for word, p in boundary.extra.items():
            if word.startswith(prefix):
                found[word] = found.get(word, 0.0) + p
        # The word already typed in full is no completion.
        typed_word = found.get(prefix, 0.0) if typed else found.pop(prefix, 0.0)
        mass = float(probs.sum()) + sum(
            p for word, p in boundary.extra.items() if word.startswith(prefix)
        )
        # What the token search found for a shorter prefix is only part of its mass.
        mass += sum(rest for p, rest in boundary.unspelled.items() if prefix.startswith(p))
        corrector = self.engine.tables.corrector
        if correct and mass == 0 and len(prefix) >= MIN_TYPED and corrector is not None:
            # Nothing the tables know starts so: the words of general English that do
            # ("upstai": upstairs), by their frequency in running text, before the
            # token search spells out a new word.
            known, mass = corrector.spelling.completions(prefix, n)
            typed_word = max(typed_word, known.get(prefix, 0.0))
            if not typed:
                known.pop(prefix, None)  # typed in full: no completion
            found.update(known)
        corrections: dict[str, float] = {}
        if correct:
            corrections, corrected_mass = self._corrections(boundary, prefix, n, typed_word)
            mass += corrected_mass
        mass = mass or 1.0
        merged = [(word, p, False) for word, p in found.items()]
        merged += [(word, p, True) for word, p in corrections.items()]
        merged.sort(key=lambda item: (-item[1], item[0]))
        return [Candidate(word, p / mass, fix) for word, p, fix in merged[:n]]

    def _corrections(
        self, boundary: _Boundary, typed: str, n: int, typed_word: float
    ) -> tuple[dict[str, float], float]:
        """Words one edit (or two) from `typed`, weighed P(word | context) * P(typed | word), and
        the weight of all the words their prefixes hold (for the normalisation).

        A correction must outweigh the typed text read as a word of its own: a rare
        word typed right is not corrected into a common one. Words beyond the lexicon
        (`Spelling`) have no probability in context: their frequency in running text
        stands in for it, so they win only where no word the model knows explains
        the typing as well.
        """
        corrector = self.engine.tables.corrector
        if corrector is None:
            return {}, 0.0
        lex, spelling = self.engine.lexicon, corrector.spelling
        typed_word = max(typed_word, spelling.frequency(typed.lower()))
        sources = [(lex.words, lex.prefix_range, boundary.dense)]
        if len(typed) >= SPELLING_MIN_TYPED:
            sources.append((spelling.words, spelling.prefix_range, spelling.freqs))
        out: dict[str, float] = {}
        mass = 0.0
        for prefix, rate in corrector.intended(typed).items():
            for words, prefix_range, weights in sources:
                lo, hi = prefix_range(prefix)
                if lo == hi:
                    continue  # most explanations start words in one list, not both
                probs = weights[lo:hi]
                mass += rate * float(probs.sum())
                top = np.argpartition(-probs, n)[:n] if len(probs) > n else range(len(probs))
                for i in top:
                    word, weight = words[lo + i], rate * float(probs[i])
                    if typed[0].isupper() and word[0].islower():
                        word = word[0].upper() + word[1:]  # as the user wrote it: capitalised
                    if weight > max(typed_word, out.get(word, 0.0)) and not word.startswith(typed):
                        out[word] = weight
        return out, mass

    def _order(self, ranked: list[Candidate], k: int) -> list[Candidate]:
        """Best first at temperature 0; otherwise a draw without replacement."""
        if self.temperature == 0 or len(ranked) <= 1:
            return ranked[:k]
        pool = ranked[: self.top_k]
        logits = np.log(np.array([c.prob for c in pool]) + 1e-12) / self.temperature
        # Gumbel top-k: sorting perturbed logits samples k items without replacement.
        keys = logits + self._rng.gumbel(size=len(pool))
        return [pool[i] for i in np.argsort(-keys)[:k]]

    # -- the token search, for words the tables do not know -----------------------------

    def _spell(self, boundary: _Boundary, prefix: str, k: int) -> list[Candidate]:
        """Spell out words starting with `prefix` token by token with the model.

        Only runs when the cached distribution has no word for the prefix: a new
        identifier, a rare name. Up to `k` paths start from the best first tokens
        consistent with the prefix; each follows the best consistent token until the
        prefix is covered, then the model's choice until it prefers to end the word.
        """
        texts = self.engine.token_texts()
        lead = boundary.lead
        target = lead + prefix
        first = np.array(self.engine.consistent_tokens("", target, lead), dtype=np.int64)
        if not len(first):
            return []
        # Each word's share is of everything the model gives the prefix's first tokens.
        prefix_mass = float(np.exp(boundary.logprobs[first]).sum())
        order = first[np.argsort(-boundary.logprobs[first])][:k]
        found: dict[str, float] = {}
        for token in order:
            word, logp = texts[token], float(boundary.logprobs[token])
            path = [*boundary.tokens, int(token)]
            for _ in range(MAX_SPELL_TOKENS - 1):
                logprobs = self._scorer.logprobs(path)
                if len(word) >= len(target):
                    # Past the prefix the model is free; a non-word token ends the word.
                    best = int(np.argmax(logprobs))
                    if not is_word(texts[best]):
                        break
                else:
                    options = self.engine.consistent_tokens(word, target, lead)
                    if not options:
                        break
                    best = max(options, key=lambda t: logprobs[t])
                word += texts[best]
                logp += float(logprobs[best])
                path.append(best)
            word = word[len(lead) :]
            if word.startswith(prefix) and len(word) > len(prefix):
                found[word] = max(found.get(word, -np.inf), logp)
        self.stats.forwards = self._scorer.forwards
        if not found:
            return []
        return [
            Candidate(word, min(1.0, float(np.exp(v)) / prefix_mass))
            for word, v in sorted(found.items(), key=lambda item: -item[1])
        ]


def _next_word_start(text: str, pos: int) -> int:
    """The first offset at or after `pos` where a word starts after whitespace."""
    pos = max(0, pos)
    match = WORD_RE.search(text, pos)
    while match is not None and match.start() > 0 and not text[match.start() - 1].isspace():
        match = WORD_RE.search(text, match.end())
    return match.start() if match is not None else pos
