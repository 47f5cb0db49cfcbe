"""Every relative link of README.md and docs/*.md leads somewhere (issue 32): the file
or folder exists, and an anchor (`#section`) names a heading of the page it points at,
spelled as GitHub spells a heading's anchor. Links inside code blocks are not links."""

from __future__ import annotations

import re
from pathlib import Path

from helpers import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", flags=re.M | re.S)


def anchors(page: Path) -> set[str]:
    """GitHub's anchors for the page's headings: lower case, punctuation dropped,
    spaces as hyphens."""
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    titles = re.findall(r"^#+ (.+?)\s*$", text, flags=re.M)
    return {re.sub(r"[^\w\- ]", "", t).strip().lower().replace(" ", "-") for t in titles}


def links(page: Path) -> list[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    return [t for t in LINK.findall(text) if not re.match(r"[a-z]+:", t)]


def broken(page: Path) -> list[str]:
    """The page's relative links that lead nowhere, each with why."""
    found = []
    for target in links(page):
        path, _, anchor = target.partition("#")
        where = (page.parent / path).resolve() if path else page
        if not where.exists():
            found.append(f"{page.name}: {target} (no such file)")
        elif anchor and where.suffix == ".md" and anchor not in anchors(where):
            found.append(f"{page.name}: {target} (no such heading)")
    return found


def test_every_page_links_to_another() -> None:
    assert len(PAGES) > 5 and all(links(page) for page in PAGES)


def test_every_relative_link_resolves() -> None:
    found = [line for page in PAGES for line in broken(page)]
    assert not found, "\n".join(found)


def test_a_broken_link_is_found(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    (tmp_path / "other.md").write_text("# Other `page`: its title\n")
    page.write_text(
        "# Title\n\n[ok](#title) [gone](#nowhere) [file](missing.md) "
        "[there](other.md#other-page-its-title) [web](https://example.org/x.md)\n"
        "```\n[in code](nowhere.md)\n```\n"
    )
    assert broken(page) == [
        "page.md: #nowhere (no such heading)",
        "page.md: missing.md (no such file)",
    ]
