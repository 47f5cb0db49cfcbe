;;; nextword.el --- Next-word completion from a local model, through eglot  -*- lexical-binding: t; -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1") (eglot "1.9"))
;; Keywords: convenience, completion, languages

;;; Commentary:

;; Registers `nextword serve', a language server that offers the next
;; word as completion candidates, with eglot for prose buffers (text,
;; Markdown, Org, commit messages, ...).  Candidates come through
;; `completion-at-point' (C-M-i), so Company, Corfu and the like pop them
;; up as you type.
;;
;;     (require 'nextword)                 ; after putting this file on `load-path'
;;     (add-hook 'text-mode-hook #'eglot-ensure)
;;
;; Eglot 1.9 (Emacs 28) connects one server per buffer and per major mode,
;; and sends one languageId per server: each entry of `nextword-modes' is
;; therefore its own `eglot-server-programs' entry, put first, so a mode
;; listed here is served by nextword rather than by another language
;; server.  Code modes are not listed by default for that reason; add
;; `(prog-mode . nil)' to `nextword-modes' to have words in code buffers
;; instead of their language server.  Eglot manages only buffers that
;; visit files: Magit's commit buffer (COMMIT_EDITMSG) is served,
;; `log-edit-mode' buffers (*vc-log*) are not.
;;
;; M-x nextword-stats shows the server's statistics.

;;; Code:

(require 'cl-lib)
(require 'eglot)
(require 'jsonrpc)
(require 'json)

(defgroup nextword nil
  "Next-word completion from the `nextword serve' language server."
  :group 'eglot
  :prefix "nextword-")

(defcustom nextword-command '("nextword" "serve")
  "The command that starts the server (program and arguments).
Read when eglot connects, so a change applies to the next connection."
  :type '(repeat string))

(defcustom nextword-initialization-options nil
  "The server's settings, sent as `initializationOptions': a plist or nil.
Names are the server's camelCase setting names (the table in its
README): `:model', `:chineseModel', `:k', `:temperature', `:windowTokens',
`:throttleMs', `:inline', `:phraseWords', `:speculate', `:corrections',
`:blockOffensiveWords', `:languages', `:logLevel', `:learning' and `:learningScope'.  Lists are vectors and false is `:json-false', as in
\(:k 5 :throttleMs 50 :languages [\"plaintext\" \"markdown\"]).
Per project, the same settings may go in `eglot-workspace-configuration'
under `:nextword'."
  :type '(plist :key-type symbol :value-type sexp))

(defun nextword--set-modes (symbol value)
  "Set SYMBOL to VALUE and register the modes again."
  (set-default symbol value)
  (when (fboundp 'nextword-register)
    (nextword-register)))

(defcustom nextword-modes
  '((git-commit-mode . "git-commit")
    (gfm-mode . "markdown")
    (markdown-mode . "markdown")
    (org-mode . "org")
    (rst-mode . "restructuredtext")
    (latex-mode . "latex")
    (tex-mode . "tex")
    (message-mode . "mail")
    (text-mode . "plaintext"))
  "Major modes served by nextword, each with the languageId sent for it.
A mode also covers the modes derived from it that no earlier entry
names, so order matters: most specific first.  A languageId of nil
sends the mode's name without \"-mode\" (`python-mode': \"python\").
The server serves the languageIds in its `languages' setting; in prose
ones a space opens the word popup, in code only a word character does.
These entries go before eglot's own, so a listed mode loses the
language server eglot would otherwise start for it."
  :type '(alist :key-type (symbol :tag "Major mode")
                :value-type (choice (string :tag "languageId")
                                    (const :tag "From the mode's name" nil)))
  :set #'nextword--set-modes)

(defun nextword--initialization-options (_server)
  "The `initializationOptions' object for a new connection."
  (or nextword-initialization-options (make-hash-table)))

(defun nextword--contact (&optional _interactive)
  "The eglot contact for nextword: `nextword-command' and its options."
  (append nextword-command
          (list :initializationOptions #'nextword--initialization-options)))

(defun nextword-register ()
  "Put one `eglot-server-programs' entry per `nextword-modes' entry first.
Entries from an earlier call are replaced."
  (interactive)
  (setq eglot-server-programs
        (append
         (mapcar (pcase-lambda (`(,mode . ,language-id))
                   ;; ((MODE :language-id ID)): one mode, its own server.
                   (cons (list (if language-id (list mode :language-id language-id) mode))
                         #'nextword--contact))
                 nextword-modes)
         (cl-remove #'nextword--contact eglot-server-programs :key #'cdr))))

(defun nextword-stats (&optional show)
  "Return the statistics of the nextword server managing this buffer.
Sends the `nextword/stats' request.  Interactively, or with SHOW
non-nil, also show them as JSON in the *nextword stats* buffer."
  (interactive (list t))
  (let* ((server (or (eglot-current-server)
                     (user-error "No eglot server manages this buffer")))
         (stats (jsonrpc-request server :nextword/stats nil)))
    (when show
      (with-help-window "*nextword stats*"
        (with-current-buffer standard-output
          (insert (json-encode stats))
          (json-pretty-print-buffer))))
    stats))

(nextword-register)

(provide 'nextword)
;;; nextword.el ends here
