"""pygls' document store, with lines split where LSP clients split them.

pygls splits a document with `str.splitlines`, which also breaks at form feed,
vertical tab, \\x1c-\\x1e, \\x85, U+2028 and U+2029; editors break lines only at \\n,
\\r\\n and \\r. A form feed in a C file or a U+2028 in a JSON string would shift
every position after it, and the server's copy would drift from the client's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pygls.workspace import TextDocument, Workspace

_LINE_RE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


class LspTextDocument(TextDocument):
    """A text document whose lines end only at \\n, \\r\\n and \\r."""

    @property
    def lines(self) -> Sequence[str]:
        return tuple(_LINE_RE.findall(self.source))


class LspWorkspace(Workspace):
    """A workspace that holds `LspTextDocument`s."""

    def _create_text_document(
        self,
        doc_uri: str,
        source: str | None = None,
        version: int | None = None,
        language_id: str | None = None,
    ) -> TextDocument:
        return LspTextDocument(
            doc_uri,
            source=source,
            version=version,
            language_id=language_id,
            sync_kind=self._sync_kind,
            position_codec=self.position_codec,
        )

    @classmethod
    def like(cls, workspace: Workspace, sync_kind) -> LspWorkspace:
        """An empty copy of a freshly initialized pygls workspace."""
        return cls(
            workspace.root_uri,
            sync_kind,
            list(workspace.folders.values()),
            workspace.position_encoding,
        )
