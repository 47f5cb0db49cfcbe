"""Unit tests for the pure cleaning and splitting functions of `nextword prepare-corpus`."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from nextword.data.corpus import (
    DOC_SEPARATOR,
    HSK_MEMBER,
    Source,
    assign_positional_splits,
    assign_splits,
    group_verses_by_book,
    html_to_text,
    normalise_text,
    parse_verse,
    prepare_source,
    read_hsk,
    segment_hsk,
    split_debref,
    strip_ansi,
    strip_pos_tags,
    strip_roff,
    strip_wiki_markup,
    unwrap_lines,
)

WIKITEXT = """{{Infobox country
| name = Testland {{nowrap|nested}}
}}
'''Testland''' is a [[country]] in [[Europe|western Europe]].<ref>{{cite web|url=x}}</ref>
It has an area of {{convert|10|km2}}, and a [[File:Flag.png|thumb|The [[flag]] of it]] flag.

== History ==
The [http://example.org first settlers] came in 1200.&nbsp;Nobody knows why.<!-- hidden -->
{| class="wikitable"
| a || b
|}
* A list item about [[Rome]]

== References ==
{{reflist}}
[[Category:Countries]]
"""


def test_strip_wiki_markup_keeps_readable_prose() -> None:
    text = strip_wiki_markup(WIKITEXT)
    assert text.startswith("Testland is a country in western Europe.")
    assert "It has an area of, and a flag." in text
    assert "\nHistory\n" in text
    assert "The first settlers came in 1200. Nobody knows why." in text
    assert "A list item about Rome" in text
    for debris in ("{{", "}}", "[[", "]]", "<ref", "'''", "wikitable", "Category", "==", "hidden"):
        assert debris not in text


def test_verses_are_grouped_by_book_without_numbers() -> None:
    lines = [
        "Ge1:1 In the beginning God created the heaven and the earth.",
        "Ge1:2 And the earth was without form, and void;",
        "Ge2:1 Thus the heavens and the earth were finished,",
        "1Co1:1 Paul, called to be an apostle",
        "not a verse line",
    ]
    assert parse_verse(lines[3]) == ("1Co", 1, "Paul, called to be an apostle")
    assert parse_verse(lines[4]) is None
    books = list(group_verses_by_book(lines))
    assert [book for book, _ in books] == ["Ge", "1Co"]
    assert books[0][1] == (
        "In the beginning God created the heaven and the earth.\n"
        "And the earth was without form, and void;\n"
        "\n"
        "Thus the heavens and the earth were finished,"
    )


def test_strip_roff_fills_paragraphs_and_keeps_literal_blocks() -> None:
    source = r""".\" Copyright line
.TH LDD 1 2023-02-05 "Linux man-pages 6.03"
.SH NAME
ldd \- print shared object dependencies
.SH DESCRIPTION
.B ldd
prints the shared objects required by each program (see
.BR ld.so (8)).
.PP
.EX
$ ldd /bin/ls
    libc.so.6
.EE
.SH OPTIONS
.TP
.B \-\-version
Print the version number of
.BR ldd .
"""
    assert strip_roff(source) == (
        "NAME\n"
        "ldd - print shared object dependencies\n"
        "\n"
        "DESCRIPTION\n"
        "ldd prints the shared objects required by each program (see ld.so(8)).\n"
        "\n"
        "$ ldd /bin/ls\n"
        "    libc.so.6\n"
        "\n"
        "OPTIONS\n"
        "\n"
        "--version\n"
        "Print the version number of ldd."
    )


def test_html_to_text_drops_navigation_and_scripts() -> None:
    source = (
        "<html><head><title>T</title></head><body><div id='banner'>Download the ebook</div>"
        "<ul class='docnav top'><li>Prev</li></ul><h2>1.3. Inner Workings</h2>"
        "<div class='para'>Debian is\n  made by <em>volunteers</em>.</div>"
        "<script>var x = 1;</script><pre>$ apt  update\n$ ls</pre></body></html>"
    )
    assert html_to_text(source) == (
        "1.3. Inner Workings\n\nDebian is made by volunteers.\n\n$ apt  update\n$ ls"
    )


def test_normalise_text_line_ends_controls_and_separator() -> None:
    raw = "a line  \r\nnext\x00 line\fend\u00a0here\n\n\n\n\nlast\t\n"
    assert normalise_text(raw) == "a line\nnext lineend here\n\n\nlast"
    assert "\f" not in normalise_text("x\fy")
    assert DOC_SEPARATOR == "\n\f\n"


def test_debref_split_skips_title_and_contents() -> None:
    text = (
        "Debian Reference\n\nTable of Contents\n\nPreface\n    1. Disclaimer\n"
        "1. GNU/Linux tutorials\n\nPreface\n\nThis is the preface.\n\n"
        "Chapter\u00a01.\u00a0GNU/Linux tutorials\n\nText one.\n\n"
        "Appendix\u00a0A.\u00a0Appendix\n\nText A.\n"
    )
    docs = list(split_debref(text))
    assert [doc_id for doc_id, _ in docs] == [
        "Preface",
        "Chapter\u00a01.\u00a0GNU/Linux tutorials",
        "Appendix\u00a0A.\u00a0Appendix",
    ]
    assert "This is the preface." in docs[0][1]


def test_assign_splits_is_deterministic_and_never_leaves_dev_or_test_empty() -> None:
    docs = [(f"book{i}", "word " * 100) for i in range(5)]
    first = assign_splits("kjv", docs)
    assert first == assign_splits("kjv", list(docs))
    assert first.count("dev") >= 1 and first.count("test") >= 1 and "train" in first


def test_assign_splits_widens_dev_to_the_word_minimum() -> None:
    docs = [(f"article {i}", "word " * 1000) for i in range(200)]
    plain = assign_splits("wiki", docs)
    widened = assign_splits("wiki", docs, min_dev_words=30_000)
    assert plain.count("dev") * 1000 < 30_000
    assert widened.count("dev") * 1000 >= 30_000
    # Widening only takes documents out of train; it never adds any to it.
    assert all(w != "train" or p == "train" for p, w in zip(plain, widened, strict=True))


def test_positional_splits_keep_order() -> None:
    splits = assign_positional_splits(100)
    assert splits[:90] == ["train"] * 90
    assert splits[90:95] == ["dev"] * 5 and splits[95:] == ["test"] * 5


def test_chinese_cleaners() -> None:
    line = "迈向/v  充满/v  [中央/n  电视台/n]nt  ，/w  １９９８年/t"
    assert strip_pos_tags(line) == ["迈向", "充满", "中央", "电视台", "，", "１９９８年"]
    assert strip_ansi("\x1b[32m《春晓》\x1b[m") == "《春晓》"


def test_unwrap_lines_joins_only_lines_a_terminal_wrap_split() -> None:
    full = "    " + "很" * 32  # 68 columns wide
    rest = "\n    $ man 5 sources.list\n短行。\n下一行。"
    assert unwrap_lines(full + "\n    难以合作的人。" + rest) == full + "难以合作的人。" + rest


def _hsk(id_: str, level: int, topic: str, chinese: str, words: list[str]) -> dict[str, object]:
    return {
        "id": id_,
        "hsk_level": level,
        "topic": topic,
        "chinese": chinese,
        "tokens": [{"word": w, "pinyin": "", "gloss_en": ""} for w in words],
    }


def test_hsk_sentences_keep_their_punctuation_between_the_listed_words() -> None:
    # The dataset lists words only; the punctuation between them comes from `chinese`.
    sentence = _hsk("hsk1-1", 1, "greetings", "老师，您好！", ["老师", "您", "好"])
    assert segment_hsk(sentence) == "老师 ， 您 好 ！"
    # A word the sentence does not spell leaves the rest unsegmented, never lost.
    broken = _hsk("hsk1-2", 1, "greetings", "今天很热。", ["今天", "冷"])
    assert segment_hsk(broken).replace(" ", "") == "今天很热。"


def test_hsk_documents_are_runs_of_one_level_and_topic(tmp_path: Path) -> None:
    sentences = [
        _hsk(f"hsk1-{i}", 1, "food", "我想喝茶。", ["我", "想", "喝", "茶"]) for i in range(12)
    ]
    sentences.append(_hsk("hsk2-1", 2, "weather", "今天天气很好。", ["今天", "天气", "很", "好"]))
    wheel = tmp_path / "hsk.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr(HSK_MEMBER, json.dumps(sentences, ensure_ascii=False))
    docs = list(read_hsk(wheel))
    assert [doc_id for doc_id, _ in docs] == ["hsk1/food/000", "hsk1/food/001", "hsk2/weather/000"]
    assert docs[0][1].splitlines() == ["我 想 喝 茶 。"] * 10
    assert docs[2][1] == "今天 天气 很 好 。"


def test_a_standardised_source_keeps_its_held_out_text_as_typed(tmp_path: Path) -> None:
    """The chats are trained on in the standard spelling; held-out chat is typed ("im"),
    so dev and test are also written as typed, for the evaluation to read what a typist
    writes."""
    docs = [(f"c{i}", f"im here {i}\nu there") for i in range(300)]
    source = Source(
        "talk", "chat", "en", "test", lambda cache: ("here", cache), lambda path: iter(docs),
        standardise=lambda cache: lambda text: text.replace("im", "I'm"),
    )  # fmt: skip
    entry = prepare_source(source, tmp_path / "cache", tmp_path / "out")
    splits = entry["splits"]
    assert isinstance(splits, dict) and "typed" not in splits["train"]
    assert not (tmp_path / "out" / "train" / "talk-typed.txt").exists()
    for split in ("dev", "test"):
        typed = (tmp_path / "out" / split / "talk-typed.txt").read_text()
        standard = (tmp_path / "out" / split / "talk.txt").read_text()
        assert typed.startswith("im here") and standard == typed.replace("im", "I'm")
        assert splits[split]["typed"]["documents"] == splits[split]["documents"] > 0
