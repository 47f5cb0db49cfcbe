"""The written part of an email: what its author typed, without what mail software added.

A raw message (RFC 822 headers, MIME parts) becomes the plain-text body with the
headers, HTML parts, quoted replies, attribution lines ("On ... wrote:"), signatures,
PGP armour and mailing-list footers taken out. What is left is the kind of text a
user types into a mail client, which is what the model should learn from emails.

Pure functions on strings; tested in tests/unit/test_mailclean.py on messages written
for the purpose.
"""

from __future__ import annotations

import email
import email.message
import re
from collections import Counter

# A reply quotes with ">" (sometimes "> >", or with the author's initials, "JD> ", or
# with their name, as Emacs' supercite does: "Guido> ", "DanQ> ").
_QUOTED = re.compile(r"^\s*(?:[A-Za-z]{0,3}>|[A-Z][a-z]{2,10}[A-Z]?>|\|)")
# "On Thu, 22 Aug 2002, Jane Doe wrote:", "Jane Doe <jane@x.org> writes:", "Quoting Jane:"
_ATTRIBUTION_END = re.compile(r"\b(?:wrote|writes|said|escribió|schrieb)\s*:\s*$", re.IGNORECASE)
_ATTRIBUTION_START = re.compile(r"^\s*(?:On|At|Quoting|Le|Am)\b", re.IGNORECASE)
_QUOTING = re.compile(r"^\s*Quoting\b.*:\s*$", re.IGNORECASE)
# Outlook and friends put the whole quoted original below one of these lines.
_ORIGINAL_MESSAGE = re.compile(
    r"^\s*-{2,}\s*(?:Original Message|Forwarded message|Reply message)\s*-{2,}\s*$"
    r"|^\s*_{5,}\s*$(?=\s*\n\s*From:)",
    re.IGNORECASE | re.MULTILINE,
)
# PGP-signed text escapes a leading dash, so its separator reads "- -- ".
_SIGNATURE = re.compile(r"^(?:- )?--\s*$")
_PGP_SIGNED = re.compile(r"^-----BEGIN PGP SIGNED MESSAGE-----\s*$")
_PGP_BLOCK_BEGIN = re.compile(r"^-----BEGIN PGP (?:SIGNATURE|PUBLIC KEY BLOCK|MESSAGE)-----\s*$")
_PGP_BLOCK_END = re.compile(r"^-----END PGP (?:SIGNATURE|PUBLIC KEY BLOCK|MESSAGE)-----\s*$")
_PGP_HASH = re.compile(r"^Hash:\s*\S+\s*$")
# A footer is a rule line with a marker below it, or a line that only footers write.
_RULE = re.compile(r"^\s*[-_=*~+#]{5,}\s*$")
_FOOTER_MARKER = re.compile(
    r"mailing list|unsubscribe|listinfo|Yahoo! Groups|groups\.yahoo\.com|sourceforge\.net/lists"
    r"|Sponsored by|Sponsor\b",
    re.IGNORECASE,
)
_FOOTER_LINE = re.compile(
    r"^\s*(?:To unsubscribe|Your use of Yahoo|Yahoo! Groups Sponsor|Sent from my"
    r"|Get your FREE|Do you Yahoo|\S+ mailing list\s*$|https?://\S*listinfo)",
    re.IGNORECASE,
)
# Some lists put a sponsor line at the top of every message instead.
_SPONSOR_LINE = re.compile(r"^\s*\(This list is sponsored by.*\)\s*$", re.IGNORECASE)
FOOTER_WINDOW = 20  # lines from the end in which a footer is looked for
MIN_WORDS = 5
# A line found in this many messages or more is the list's, not an author's: a
# newsletter's footer ("or change your preferences, please go to your user page.", in
# 50 of easy-ham-1's messages, made "preferences" and "user" the emails' likeliest words
# after "for your"), an ad, a header the archive left ("Date: Not supplied", 201).
# Shorter lines recur as people write them ("Cheers,", "Hi all,") and are kept: of the
# lines of 10 characters or more in 5 messages or more none is an author's own (in 3 or
# 4 messages, forwarded paragraphs are).
BOILERPLATE_MESSAGES = 5
BOILERPLATE_CHARS = 10
# The name a message is signed with: its last line, of this many words at most, after
# a closing ("Cheers,") or ending that many messages (a regular's "Matthias", 56 of
# them). Kept, the list's regulars were the popup's words after "Best," or "Cheers,".
SIGNATURE_WORDS = 3
_CLOSING = re.compile(r"^\S+(?: \S+){0,3},$")
_NOT_A_NAME = re.compile(r"[,!?:]$")


def plain_body(raw: str) -> str:
    """The decoded text/plain parts of a raw message, headers and other parts dropped."""
    message = email.message_from_string(raw)
    texts = []
    for part in message.walk():
        if part.is_multipart() or part.get_content_type() != "text/plain":
            continue
        if part.get_content_disposition() == "attachment":
            continue
        texts.append(decode_part(part))
    return "\n\n".join(texts)


def decode_part(part: email.message.Message) -> str:
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return str(part.get_payload())
    charset = part.get_content_charset() or "latin-1"
    try:
        return payload.decode(charset, errors="replace")
    except LookupError:  # a charset name Python does not know
        return payload.decode("latin-1")


def drop_pgp(lines: list[str]) -> list[str]:
    """Take out PGP armour: signature and key blocks, and a signed message's header."""
    out: list[str] = []
    in_block = False
    skip_hash = False
    for line in lines:
        if in_block:
            in_block = not _PGP_BLOCK_END.match(line)
            continue
        if _PGP_BLOCK_BEGIN.match(line):
            in_block = True
            continue
        if _PGP_SIGNED.match(line):
            skip_hash = True
            continue
        if skip_hash and (_PGP_HASH.match(line) or not line.strip()):
            skip_hash = bool(_PGP_HASH.match(line))
            continue
        skip_hash = False
        out.append(line)
    return out


def drop_quotes(lines: list[str]) -> list[str]:
    """Take out quoted lines and the attribution lines that introduce them."""
    out: list[str] = []
    for line in lines:
        if _QUOTED.match(line):
            continue
        if _ATTRIBUTION_END.search(line) or _QUOTING.match(line):
            # "On Thu, 22 Aug 2002, Jane Doe\n  <jane@x.org> wrote:" spans two lines.
            if out and _ATTRIBUTION_START.match(out[-1]) and not _ATTRIBUTION_END.search(out[-1]):
                out.pop()
            continue
        out.append(line)
    return out


def cut_signature(lines: list[str]) -> list[str]:
    """Everything from the signature separator ("-- ") on is the signature."""
    for i, line in enumerate(lines):
        if _SIGNATURE.match(line):
            return lines[:i]
    return lines


def is_footer_start(lines: list[str], i: int) -> bool:
    if _FOOTER_LINE.match(lines[i]):
        return True
    below = lines[i + 1 : i + 4]
    return bool(_RULE.match(lines[i])) and any(_FOOTER_MARKER.search(line) for line in below)


def cut_footer(lines: list[str]) -> list[str]:
    """Cut a mailing-list or advertising footer from the last lines of the body.

    Only the last FOOTER_WINDOW lines are searched, and a footer needs text above it, so
    a sentence about a mailing list in the text itself stays. Lists nest footers (a
    sponsor's above the list's own), so the search repeats on what is left.
    """
    cut = len(lines)
    first_text = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    while cut > first_text + 1:
        start = max(first_text + 1, cut - FOOTER_WINDOW)
        found = next((i for i in range(start, cut) if is_footer_start(lines, i)), None)
        if found is None:
            break
        cut = found
    lines = lines[:cut]
    # A trailing rule line with nothing after it is also debris.
    while lines and (_RULE.match(lines[-1]) or not lines[-1].strip()):
        lines = lines[:-1]
    return lines


def clean_body(body: str) -> str:
    """The author's own text of a plain-text body (see the module docstring)."""
    body = body.replace("\r\n", "\n").replace("\r", "\n")
    original = _ORIGINAL_MESSAGE.search(body)
    if original:
        body = body[: original.start()]
    lines = [line for line in body.split("\n") if not _SPONSOR_LINE.match(line)]
    lines = drop_pgp(lines)
    lines = cut_signature(lines)
    lines = drop_quotes(lines)
    return joined(cut_footer(lines))


def joined(lines: list[str]) -> str:
    """`lines` as one text: trailing spaces, runs of blank lines and blank ends gone."""
    text = "\n".join(line.rstrip() for line in lines)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def enough(text: str) -> str:
    """`text`, or '' when too little of the author's text is left (MIN_WORDS)."""
    return text if len(text.split()) >= MIN_WORDS else ""


def drop_boilerplate(
    texts: list[str], *, messages: int = BOILERPLATE_MESSAGES, chars: int = BOILERPLATE_CHARS
) -> list[str]:
    """`texts` without what recurs across them: the lines of `chars` characters or more
    (spaces around them aside) that `messages` of them or more contain, and the name each
    is signed with (`SIGNATURE_WORDS`). A text left with fewer than MIN_WORDS words
    becomes ''."""
    seen: Counter[str] = Counter()
    for text in texts:
        distinct = {line.strip() for line in text.split("\n")}
        seen.update(line for line in distinct if len(line) >= chars)
    common = {line for line, count in seen.items() if count >= messages}
    bodies = []
    for text in texts:
        lines = [line for line in text.split("\n") if line.strip() not in common]
        while lines and not lines[-1].strip():
            lines.pop()
        bodies.append(lines)
    last = Counter(lines[-1].strip() for lines in bodies if lines)
    out = []
    for lines in bodies:
        if lines and _signed(lines, last, messages):
            lines.pop()
        out.append(enough(joined(lines)))
    return out


def _signed(lines: list[str], last: Counter[str], messages: int) -> bool:
    """Whether the last of `lines` is a name signed with (`SIGNATURE_WORDS`); `last`: how
    many messages end with each line."""
    name = lines[-1].strip()
    if not name or len(name.split()) > SIGNATURE_WORDS or _NOT_A_NAME.search(name):
        return False
    after_closing = len(lines) > 1 and _CLOSING.match(lines[-2].strip()) is not None
    return after_closing or last[name] >= messages


def clean_message(raw: str) -> str:
    """A raw message to its cleaned body; '' when too little of the author's text is left."""
    return enough(clean_body(plain_body(raw)))
