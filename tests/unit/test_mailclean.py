"""The email cleaner keeps what the author wrote and nothing mail software added.

The messages are written for these tests, one per thing the cleaner must take out.
"""

from __future__ import annotations

from nextword.data.corpus import SOTU_LAST_YEAR, sotu_year
from nextword.data.mailclean import (
    BOILERPLATE_MESSAGES,
    clean_body,
    clean_message,
    drop_boilerplate,
)

HEADERS = """From jane@example.org  Thu Aug 22 14:23:39 2002
Return-Path: <jane@example.org>
Received: from mail.example.org (mail.example.org [10.0.0.1])
\tby mx.example.com (Postfix) with ESMTP id 9DAE147C66
From: Jane Doe <jane@example.org>
To: team@example.com
Subject: Re: the picnic on Saturday
Date: Thu, 22 Aug 2002 09:15:25 -0400
"""


def test_headers_go_and_the_body_stays() -> None:
    raw = HEADERS + "Content-Type: text/plain\n\nSee you all at the park on Saturday at noon.\n"
    assert clean_message(raw) == "See you all at the park on Saturday at noon."


def test_html_parts_and_attachments_go() -> None:
    raw = HEADERS + (
        'MIME-Version: 1.0\nContent-Type: multipart/alternative; boundary="XX"\n\n'
        "--XX\nContent-Type: text/plain; charset=utf-8\n\n"
        "I will bring the lemonade and a few chairs.\n"
        "--XX\nContent-Type: text/html; charset=utf-8\n\n"
        "<html><body><p>I will bring the <b>lemonade</b></p></body></html>\n"
        "--XX\nContent-Type: text/plain\nContent-Disposition: attachment; filename=list.txt\n\n"
        "chairs: 4\n"
        "--XX--\n"
    )
    text = clean_message(raw)
    assert text == "I will bring the lemonade and a few chairs."


def test_quoted_printable_and_charsets_are_decoded() -> None:
    raw = HEADERS + (
        "Content-Type: text/plain; charset=iso-8859-1\n"
        "Content-Transfer-Encoding: quoted-printable\n\n"
        "The caf=E9 opens at nine, so we can meet there before we go.\n"
    )
    assert clean_message(raw) == "The café opens at nine, so we can meet there before we go."


def test_quoted_replies_and_attribution_lines_go() -> None:
    body = (
        "Saturday works for me, and I can drive.\n"
        "\n"
        "On Thu, 22 Aug 2002, John Smith <john@example.com>\n"
        "  wrote:\n"
        "> Does Saturday work for everyone?\n"
        "> > I would rather go on Sunday.\n"
        "\n"
        "Jane Doe wrote:\n"
        "JD> We could also go next week.\n"
        "\n"
        "  Guido> Or the week after.\n"
        "\n"
        "Let me know how many seats you need.\n"
    )
    assert clean_body(body) == (
        "Saturday works for me, and I can drive.\n\nLet me know how many seats you need."
    )


def test_outlook_style_original_message_goes_with_everything_below() -> None:
    body = (
        "Thanks, that fixed it.\n\n"
        "-----Original Message-----\n"
        "From: John Smith\nSent: Monday, October 07, 2002 6:51 AM\n"
        "Try restarting the daemon.\n"
    )
    assert clean_body(body) == "Thanks, that fixed it."


def test_signatures_go() -> None:
    body = "I have attached the minutes of the meeting.\n\n-- \nJane Doe\nExample Corp, Dublin\n"
    assert clean_body(body) == "I have attached the minutes of the meeting."
    # PGP-signed text escapes the separator's leading dash.
    assert clean_body("Here it is.\n- -- \nJane\n") == "Here it is."


def test_pgp_armour_goes() -> None:
    body = (
        "-----BEGIN PGP SIGNED MESSAGE-----\n"
        "Hash: SHA1\n"
        "\n"
        "The new release is on the server now.\n"
        "\n"
        "-----BEGIN PGP SIGNATURE-----\n"
        "Version: GnuPG v1.0.7 (GNU/Linux)\n"
        "\n"
        "iD8DBQE9ZGqQ5Dle1Qx0TWURAqZRAJ9ikUBE\n"
        "=XyZ1\n"
        "-----END PGP SIGNATURE-----\n"
    )
    assert clean_body(body) == "The new release is on the server now."


def test_mailing_list_footers_go() -> None:
    body = (
        "The patch is in CVS now; please update and try again.\n"
        "\n"
        "-------------------------------------------------------\n"
        "This sf.net email is sponsored by: ThinkGeek\n"
        "Welcome to geek heaven.\n"
        "http://thinkgeek.com/sf\n"
        "_______________________________________________\n"
        "Exmh-workers mailing list\n"
        "Exmh-workers@redhat.com\n"
        "https://listman.redhat.com/mailman/listinfo/exmh-workers\n"
    )
    assert clean_body(body) == "The patch is in CVS now; please update and try again."
    sponsor = "(This list is sponsored by Ironclad Networks http://www.ironclad.net.au/)\n"
    assert clean_body(sponsor + "Hello all, the DNS server is back up.\n") == (
        "Hello all, the DNS server is back up."
    )


def test_prose_about_mailing_lists_stays() -> None:
    body = (
        "Trust me, you do not want to run your own mailing lists\n"
        "on your own software.\n\nRegards,\nVin\n"
    )
    assert clean_body(body) == body.strip()


def test_messages_with_almost_nothing_of_their_own_are_dropped() -> None:
    raw = HEADERS + "\n> All of this is quoted.\n> Every line.\n\nAgreed.\n"
    assert clean_message(raw) == ""


NEWSLETTER_FOOTER = (
    "You have received this message because you subscribed to it\n"
    "or change your preferences, please go to your user page.\n"
)


def test_lines_many_messages_share_are_the_lists_and_go() -> None:
    # Every issue of a newsletter ends with the same footer: it goes wherever it
    # recurs, and the closing stays (the name after it goes: below).
    issues = [
        f"Issue {n}: the picnic moved to the park by the lake.\n\n{NEWSLETTER_FOOTER}\nCheers,\nAnn"
        for n in range(BOILERPLATE_MESSAGES)
    ]
    kept = drop_boilerplate(issues)
    assert kept[0] == "Issue 0: the picnic moved to the park by the lake.\n\nCheers,"
    assert not any("preferences" in text for text in kept)
    # One message fewer and the footer is one author's lines, kept.
    assert all("preferences" in text for text in drop_boilerplate(issues[1:]))


def test_the_name_a_message_is_signed_with_goes() -> None:
    # After a closing, or as the line a regular ends every message with: a name the
    # popup would offer after "Cheers," to every user.
    closing = "The build is fixed now, see the log for the details.\n\nCheers,\nRAH"
    regular = [
        f"I reverted change {n} to the spec file\nMatthias" for n in range(BOILERPLATE_MESSAGES)
    ]
    assert drop_boilerplate([closing, *regular])[:2] == [
        "The build is fixed now, see the log for the details.\n\nCheers,",
        "I reverted change 0 to the spec file",
    ]
    # A last line that ends as a sentence, a question or a closing is the author's.
    for text in ("Can we meet at noon?\nSee you there!", "Agreed, see you at noon.\nBest,"):
        assert drop_boilerplate([text]) == [text]
    # One message fewer and "Matthias" is just a line.
    assert drop_boilerplate(regular[1:])[0] == regular[1]


def test_a_message_left_with_only_boilerplate_is_dropped() -> None:
    texts = [NEWSLETTER_FOOTER + "Thanks!"] * BOILERPLATE_MESSAGES
    texts.append("The minutes of Tuesday's meeting are attached.\n" + NEWSLETTER_FOOTER)
    assert drop_boilerplate(texts) == [""] * BOILERPLATE_MESSAGES + [
        "The minutes of Tuesday's meeting are attached."
    ]


def test_reserved_state_of_the_union_years_are_never_read() -> None:
    assert sotu_year("package/data/2012_barack_obama_d.txt") == 2012
    assert sotu_year("package/data/1790_george_washington_n.txt") == 1790
    assert sotu_year("package/data/2012_barack_obama_d.json") is None
    assert SOTU_LAST_YEAR == 2012


def pack(tmp_path, files: dict[str, str]):
    """A .tgz laid out as the npm packages are (package/data/...)."""
    import io
    import tarfile

    path = tmp_path / "package.tgz"
    with tarfile.open(path, "w:gz") as tf:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return path


def test_only_the_allowed_groups_and_years_are_read(tmp_path) -> None:
    import json

    from nextword.data.corpus import read_emails, read_sotu

    body = HEADERS + "\nThe minutes of Tuesday's meeting are attached, with the budget.\n"
    emails = pack(
        tmp_path,
        {
            f"package/data/{group}/0001.{group}.json": json.dumps({"text": body})
            for group in ("easy-ham-1", "easy-ham-2", "hard-ham-1", "spam-1", "spam-2")
        },
    )
    assert [doc_id for doc_id, _ in read_emails(emails)] == ["0001.easy-ham-1"]
    speeches = pack(
        tmp_path,
        {
            "package/data/2012_barack_obama_d.txt": "Mr. Speaker, Mr. Vice President.",
            "package/data/2013_barack_obama_d.txt": "Reserved for evaluation.",
            "package/data/2021_joseph_r_biden_d.txt": "Reserved for evaluation.",
        },
    )
    assert [doc_id for doc_id, _ in read_sotu(speeches)] == ["2012_barack_obama_d"]
