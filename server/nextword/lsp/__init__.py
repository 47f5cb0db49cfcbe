"""The `nextword serve` language server: editor typing in, engine candidates out.

Layers, each in its own module: settings (the typed schema), throttle (how often a
model decision may fire), worker (the one inference thread), sessions (per-document
typing state), items (candidates as lsprotocol items), stats, and server (the pygls
handlers, glue only).
"""
