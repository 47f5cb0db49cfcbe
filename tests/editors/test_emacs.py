"""End-to-end: editors/emacs/nextword.el in real Emacs 28 with eglot 1.9 and the real server.

One `emacs --batch` run (no -Q: Debian's site-start puts the packaged eglot on the
load path) loads nextword.el, opens a text file, lets nextword.el's
`eglot-server-programs` entry pick the contact and languageId, connects, types
"The history of the " and then "wor", and asks eglot's `completion-at-point`
function for its candidates at the cursor each time; then a typo, whose correction
it accepts. It prints what it saw as
`MARKER json` lines. The tests check those candidates against what the same server
answers a plain LSP client typing the same text, and that every languageId
nextword.el sends is one the server serves. CI installs Emacs (`scripts/test`):
without it these tests fail rather than skip.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from typing import Any

import pytest

from helpers import EDITOR_CAPABILITIES, ROOT
from nextword.engine.words import is_word
from nextword.evaluation.lspclient import LspClient
from nextword.lsp.settings import DEFAULT_LANGUAGES, PROSE_LANGUAGES

PACKAGE = ROOT / "editors" / "emacs"
TEXT, PREFIX = "The history of the ", "wor"
TYPO, FIXED = "Please send it to the adress", "Please send it to the address"
K = 3  # sent as initializationOptions: the candidates are capped at this
TIMEOUT = 60

# The driver: everything Emacs does, in order. Errors end it with an ERROR line.
DRIVER = r""";; -*- lexical-binding: t; -*-
;; Lists go out as vectors: json.el would write a list of lists as an object.
(defun drive-out (tag value) (princ (format "%s %s\n" tag (json-encode value))))

(defun drive-wait (what probe secs)
  "Pump process output until PROBE returns non-nil; its value."
  (let ((deadline (+ (float-time) secs)) value)
    (while (and (not (setq value (funcall probe))) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (or value (error "Timed out after %ss waiting for %s" secs what))))

(defun drive-candidates ()
  "The typed prefix and eglot's candidates for it at point."
  (accept-process-output nil 0.1)
  (pcase-let* ((`(,beg ,end ,table . ,_) (eglot-completion-at-point))
               (prefix (buffer-substring-no-properties beg end)))
    (vector prefix (vconcat (mapcar #'substring-no-properties
                                    (all-completions prefix table))))))

(condition-case err
    (progn
      (require 'nextword)
      (setq nextword-command (list (getenv "NEXTWORD_PYTHON") "-m" "nextword" "serve"))
      (setq nextword-initialization-options (list :k (string-to-number (getenv "NEXTWORD_K"))))
      ;; What eglot would send for each mode nextword.el registers.
      (drive-out "LANGUAGE-IDS"
                 (vconcat
                  (mapcar (lambda (mode)
                            (pcase-let ((`(,modes ,id ,contact) (eglot--lookup-mode mode)))
                              (vector mode id (eq contact #'nextword--contact) (car modes))))
                          (mapcar #'car nextword-modes))))
      (find-file (expand-file-name "notes.txt" (getenv "NEXTWORD_DIR")))
      (drive-out "MODE" major-mode)
      ;; eglot-ensure waits for a command loop, which batch mode lacks: connect as
      ;; M-x eglot would, with the contact and languageId eglot guesses.
      (apply #'eglot (eglot--guess-contact))
      (let ((server (drive-wait "the connection" #'eglot-current-server 30)))
        (drive-out "SERVER" (vector (plist-get (eglot--server-info server) :name)
                                    (eglot--language-id server)))
        (insert (getenv "NEXTWORD_TEXT"))
        ;; Empty answers until the model has loaded.
        (drive-out "START" (drive-wait "candidates"
                                       (lambda ()
                                         (let ((c (drive-candidates)))
                                           (and (< 0 (length (aref c 1))) c)))
                                       30))
        ;; The decision is refined between keys (engine/refine.py): typed once it is,
        ;; as the plain client below types, both get the same words.
        (drive-wait "the refinement"
                    (lambda ()
                      (let ((stats (jsonrpc-request server :nextword/stats nil)))
                        (<= 1 (plist-get (plist-get stats :overall) :refinements))))
                    30)
        (insert (getenv "NEXTWORD_PREFIX"))
        (drive-out "PREFIX" (drive-candidates))
        (drive-out "CHECKSUM" (jsonrpc-request server :nextword/documentChecksum
                                               (list :uri (eglot--path-to-uri buffer-file-name))))
        (drive-out "STATS" (nextword-stats))
        (nextword-stats t)  ; as M-x does: the stats as JSON in a help buffer
        (drive-out "STATS-BUFFER" (with-current-buffer "*nextword stats*" (buffer-string)))
        ;; A typo: the correction is among the candidates (eglot filters by filterText);
        ;; accepted as Company or C-M-i accept one (the word replaces the bounds, then
        ;; the exit function applies its textEdit), it replaces the typed word.
        (erase-buffer)
        (insert (getenv "NEXTWORD_TYPO"))
        (drive-out "TYPO" (drive-candidates))
        (pcase-let* ((`(,beg ,end ,table . ,props) (eglot-completion-at-point))
                     (word (car (all-completions (buffer-substring beg end) table))))
          (delete-region beg end)
          (goto-char beg)
          (insert word)
          (funcall (plist-get props :exit-function) word 'finished))
        (drive-out "ACCEPTED" (buffer-substring-no-properties (point-min) (point-max)))
        (eglot-shutdown server)
        (drive-out "SHUTDOWN" (if (jsonrpc-running-p server) "running" "stopped")))
      (kill-emacs 0))
  (error (drive-out "ERROR" (format "%S" err)) (kill-emacs 1)))
"""


def emacs() -> str:
    path = shutil.which("emacs")
    if path is None:
        pytest.fail("no `emacs` on PATH: install emacs-nox and elpa-eglot (scripts/test does)")
    return path


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The driver's output, one entry per marker, plus `seconds`."""
    tmp = tmp_path_factory.mktemp("emacs")
    project = tmp / "project"
    project.mkdir()
    (tmp / "drive.el").write_text(DRIVER)
    env = {
        **os.environ,
        "HOME": str(tmp / "home"),
        "XDG_CONFIG_HOME": str(tmp / "config"),
        "XDG_DATA_HOME": str(tmp / "data"),
        "XDG_CACHE_HOME": str(tmp / "cache"),
        "XDG_STATE_HOME": str(tmp / "state"),
        "NEXTWORD_PYTHON": sys.executable,
        "NEXTWORD_DIR": str(project),
        "NEXTWORD_K": str(K),
        "NEXTWORD_TEXT": TEXT,
        "NEXTWORD_PREFIX": PREFIX,
        "NEXTWORD_TYPO": TYPO,
    }
    (tmp / "home").mkdir()
    started = time.perf_counter()
    proc = subprocess.run(
        [emacs(), "--batch", "-L", str(PACKAGE), "-l", str(tmp / "drive.el")],
        capture_output=True,
        text=True,
        env=env,
        cwd=project,
        timeout=TIMEOUT,
    )
    out: dict[str, Any] = {"seconds": time.perf_counter() - started}
    for line in proc.stdout.splitlines():
        tag, _, value = line.partition(" ")
        if tag.isupper() and value:
            out[tag] = json.loads(value)
    where = f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    assert "ERROR" not in out, f"the Emacs driver failed: {out['ERROR']}\n{where}"
    assert proc.returncode == 0 and "SHUTDOWN" in out, where
    return out


@pytest.fixture(scope="module")
def server_answers() -> dict[str, list[str]]:
    """What the same server offers a plain LSP client typing the same text, same settings."""
    with LspClient.spawn() as server:
        server.initialize({"k": K}, capabilities=EDITOR_CAPABILITIES)
        uri = "file:///emacs/notes.txt"
        server.open_document(uri)

        def type_and_ask(at: int, text: str, version: int) -> list[str]:
            pos = {"line": 0, "character": at}
            server.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [{"range": {"start": pos, "end": pos}, "text": text}],
                },
            )
            end = {"line": 0, "character": at + len(text)}
            params = {"textDocument": {"uri": uri}, "position": end, "context": {"triggerKind": 1}}
            return [
                item["label"] for item in server.request("textDocument/completion", params)["items"]
            ]

        start = type_and_ask(0, TEXT, 1)
        deadline = time.monotonic() + 30
        while not start and time.monotonic() < deadline:  # the model is loading
            time.sleep(0.05)
            start = type_and_ask(len(TEXT), "", 1)
        # The prefix is typed once the decision is refined (engine/refine.py), as the
        # Emacs driver types it: the refinement reorders the words after a prefix.
        while server.request("nextword/stats", {})["overall"]["refinements"] < 1:
            assert time.monotonic() < deadline, "the decision was not refined"
            time.sleep(0.05)
        prefix = type_and_ask(len(TEXT), PREFIX, 2)
        assert server.shutdown() == 0
    return {"start": start, "prefix": prefix}


def test_every_mode_sends_a_language_id_the_server_serves(run: dict[str, Any]) -> None:
    ids = {mode: (language_id, ours, main) for mode, language_id, ours, main in run["LANGUAGE-IDS"]}
    assert {"text-mode", "markdown-mode", "gfm-mode", "git-commit-mode"} <= ids.keys()
    for mode, (language_id, ours, main) in ids.items():
        assert ours and main == mode, f"{mode} is not registered for nextword"
        assert language_id in DEFAULT_LANGUAGES, f"{mode} sends {language_id!r}, not served"
        assert language_id in PROSE_LANGUAGES, f"{mode} sends {language_id!r}, not prose"
    assert ids["text-mode"][0] == "plaintext"
    assert ids["markdown-mode"][0] == "markdown"
    assert ids["git-commit-mode"][0] == "git-commit"
    # The buffer the test typed into: a text file, connected with that languageId.
    assert run["MODE"] == "text-mode"
    assert run["SERVER"] == ["nextword", "plaintext"]


def test_candidates_at_a_word_start(run: dict[str, Any], server_answers: dict) -> None:
    prefix, words = run["START"]
    assert prefix == ""
    assert words and len(words) <= K
    assert all(is_word(w) for w in words), words
    assert words == server_answers["start"]


def test_candidates_complete_the_typed_prefix(run: dict[str, Any], server_answers: dict) -> None:
    prefix, words = run["PREFIX"]
    assert prefix == PREFIX  # eglot's bounds: the partial word before the cursor
    assert words and len(words) <= K
    for word in words:
        assert is_word(word) and word.startswith(PREFIX) and word != PREFIX, word
    assert words == server_answers["prefix"]


def test_a_typo_is_offered_corrected_and_accepting_replaces_it(run: dict[str, Any]) -> None:
    prefix, words = run["TYPO"]
    assert prefix == "adress"
    assert words[:1] == ["address"], words  # kept, though it does not start with "adress"
    assert run["ACCEPTED"] == FIXED  # the typo replaced, nothing left over


def test_the_server_holds_what_emacs_typed(run: dict[str, Any]) -> None:
    expected = hashlib.sha256((TEXT + PREFIX).encode()).hexdigest()
    assert run["CHECKSUM"]["sha256"] == expected


def test_stats_command_and_shutdown(run: dict[str, Any]) -> None:
    overall = run["STATS"]["overall"]
    assert overall["completions"] >= 2  # the word start (once ready) and the prefix
    assert [d["uri"] for d in run["STATS"]["documents"]] == [run["CHECKSUM"]["uri"]]
    shown = json.loads(run["STATS-BUFFER"])  # M-x nextword-stats
    assert shown["overall"]["completions"] >= overall["completions"]
    assert run["SHUTDOWN"] == "stopped"
    assert run["seconds"] < TIMEOUT
