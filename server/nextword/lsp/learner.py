"""Learning in the server: which store is open, which typed words it learns, when it saves.

Only while the `learning` setting is on. Then the words the user finishes typing (a
separator typed right after a word) are counted in the personal store
(nextword/engine/personal.py), a candidate the user had been offered there counting double;
the store is saved on a timer thread, SAVE_AFTER_S after the first unsaved word, and
on shutdown. With `learning` off no store is opened, nothing is learned and nothing
is written. No model code here: the store is plain counts.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from nextword.engine import WORD_RE, PersonalStore, learnfiles, personal
from nextword.lsp.names import FORGET_COMMAND

if TYPE_CHECKING:
    from nextword.lsp.session import Session

log = logging.getLogger(__name__)

SAVE_AFTER_S = 30.0
# Longer inserts are pastes (or a formatter's edits): not words the user wrote here.
MAX_TYPED = 100
# The word before an insert that a separator finishes is searched this far back.
_WORD_SPAN = 64


class Learner:
    """The open personal store (None while learning is off) and its saving."""

    def __init__(self) -> None:
        self.store: PersonalStore | None = None
        self.enabled = False
        self.scope = "user"
        self.workspace: str | None = None  # the client's workspace root URI, if any
        self._timer: threading.Timer | None = None
        self._lock = threading.Lock()

    def configure(self, enabled: bool, scope: str) -> bool:
        """Open, switch or close the store; True when it changed (deciders hold it)."""
        self.enabled, self.scope = enabled, scope
        path, workspace = None, None
        if enabled:
            if scope == "workspace" and self.workspace is not None:
                workspace = learnfiles.workspace_uri(self.workspace)
                path = learnfiles.workspace_path(workspace)
            else:
                if scope == "workspace":
                    log.info("no workspace folder open: learning into the user's store")
                path = learnfiles.user_path()
        old = self.store
        if (None if old is None else old.path) == path:
            return False  # the same store, or still none
        if old is not None:
            self.flush()  # what was learned with consent is kept
        self.store = None if path is None else PersonalStore.load(path, workspace=workspace)
        if self.store is not None:
            log.info("learning on: %d words known", len(self.store.words))
        return True

    def learn_typed(
        self, s: Session, text: str, change: types.TextDocumentContentChangeEvent
    ) -> None:
        """Learn the words a change finished in `s`: those it ends with a separator;
        `text` is the document before the cursor, the change included.

        A change is a keystroke, a few keys an editor sent together, or an accepted
        candidate; a word counts once a separator follows it, whatever the chunking.
        """
        if not isinstance(change, types.TextDocumentContentChangePartial):
            return
        inserted = change.text
        if not inserted or len(inserted) > MAX_TYPED or not text.endswith(inserted):
            return
        start = len(text) - len(inserted)  # where the insert begins in `text`
        base = max(0, start - _WORD_SPAN)
        for match in WORD_RE.finditer(text, base):
            end = match.end()
            if end < start:
                continue  # finished before this change
            if end >= len(text):
                break  # still being typed
            key = (match.start(), match.group())
            if key == s.learned:
                continue
            s.learned = key
            context = text[: match.start()]
            offered = context == s.shown_context and match.group() in s.shown
            self.learn(context, match.group(), accepted=offered)

    def learn(self, context: str, word: str, *, accepted: bool) -> None:
        """Count a word the user finished typing after `context`; save later."""
        store = self.store
        if store is not None and store.learn_word(context, word, accepted=accepted):
            self._schedule()

    def _schedule(self) -> None:
        with self._lock:
            if self._timer is None:
                self._timer = threading.Timer(SAVE_AFTER_S, self._save)
                self._timer.daemon = True
                self._timer.start()

    def _save(self) -> None:
        with self._lock:
            self._timer = None
        store = self.store
        if store is None:
            return
        try:
            store.save()
        except OSError as err:
            # A full or read-only disk costs the last words learned, never the server.
            log.warning("cannot save the learning store %s: %s", store.path, err)

    def flush(self) -> None:
        """Save now (shutdown, a change of store)."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
        self._save()

    def status(self) -> dict[str, Any]:
        """What is learned (counts, size, where), never the words."""
        out: dict[str, Any] = {"learning": self.enabled, "scope": self.scope}
        if self.store is not None:
            out["active"] = self.store.status()
        out["stored"] = personal.stored()
        return out

    def forget(self, what: str | None = None) -> dict[str, Any]:
        """Forget everything (None) or the workspace's store ("workspace"); the status after.

        Raises:
            ValueError: `what` is not None or "workspace", or no workspace is open.
        """
        if what not in (None, "workspace"):
            raise ValueError(f'{FORGET_COMMAND} takes no argument or "workspace", not {what!r}')
        if what == "workspace":
            if self.workspace is None:
                raise ValueError("no workspace folder is open")
            path = learnfiles.workspace_path(self.workspace)
            if self.store is not None and self.store.path == path:
                self.store.forget()
            learnfiles.forget(self.workspace)
        else:
            if self.store is not None:
                self.store.forget()
            learnfiles.forget(None)
        return self.status()
