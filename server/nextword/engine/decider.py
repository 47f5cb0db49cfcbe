"""One document's decider: its decisions (decisions.py) and the work ahead of the text.

Between keystrokes, while the user is not waiting, the decider runs the model for
what is likely to come, so that the decision is made when the text gets there:

- a refinement of a decision by the model's second token (refine.py), for the
  letters typed next;
- a guess of the word being typed, once one word is likely enough given its prefix:
  the boundary after it and a space is decided as if it were written (in a fork of
  the document caches), and taken as made when the user writes it;
- after punctuation that a space likely follows, the boundary after the space;
- a phrase: the likeliest few words after a boundary, greedily, word by word, each
  boundary decided on the way kept for the user typing through it;
- a slide of a nearly full token window.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from nextword.engine.boundary import Boundary
from nextword.engine.components import Candidate
from nextword.engine.decisions import BoundaryDecider
from nextword.engine.words import is_word

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


class Decider(BoundaryDecider):
    """One document's decisions, and the work ahead of its text."""

    _guessed = ""  # the context of the word last guessed (`speculate`)

    def reset(self) -> None:
        super().reset()
        self._guessed = ""

    def _decide_ahead(self, text: str) -> Boundary:
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
        return float(np.exp(boundary.logprobs[self.vocabulary.space_led()]).sum())

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
        threshold = self.in_word_phrase_threshold if prefix else self.phrase_threshold
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

    def _refined(self, boundary: Boundary, prefix: str) -> Boundary | None:
        """`boundary` refined for the words starting with `prefix` (a new boundary: a
        published one is never changed); None when there is nothing to refine."""
        groups = self.vocabulary.token_groups(boundary.lead)
        if groups is None:
            return None
        done, rows = boundary.branches or ([], None)
        among = None
        if prefix:  # the first tokens a word typed so may begin with (as the token search's)
            lead = boundary.lead
            among = np.zeros(len(groups.listed), dtype=bool)
            among[self.vocabulary.consistent_tokens("", lead + prefix, lead)] = True
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
        refined.spelled = boundary.spelled
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
