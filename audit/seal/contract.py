"""What an annex holds, and which of its parts two seats may legitimately differ in.

Both seats run this code; compare-annex and verify take these lists from here,
never from the annex they check (docs/seal.md). Nothing in this module is read
from input, and none of it is a regular expression.
"""

from __future__ import annotations

FORMAT = "secondseat-annex-v2"
# An annex's text files (its CSVs, the ledger, the certificate, the README) are read
# whole by verify and the seal, so within this bound, past which they are too_large
# (docs/refusals.md, "Bounds on what is read"); the real bundle's largest is ~200 KB.
MAX_TEXT = 256 << 20

MANIFEST = "manifest.json"
LEDGER = "ledger.jsonl"
README = "README.md"  # derived from the head and the manifest: verify rebuilds it byte for byte
ENVELOPE = "attestation.dsse.json"  # the signed in-toto statement; its subjects: every other file
PUBLIC_KEY = "seat-key.pub.json"
# Files outside the manifest, and why: the manifest cannot list itself; the ledger
# is covered line by line by its chain, whose last line records the manifest's
# blake3; the README carries the head, so it is rebuilt rather than listed.
UNLISTED = (MANIFEST, LEDGER, README)
# The RFC 3161 token over the annex head (audit/seal/timestamp.py): unlisted, as
# the head cannot commit to a token over itself; present only when the seal was
# time-stamped, and checked by verify against the head.
SEAL_TOKEN = "seal.tsr"
OPTIONAL_UNLISTED = (SEAL_TOKEN,)

# Files whose bytes depend on when, where and by whom the seat ran: shown side by
# side by compare-annex, never counted as agreement or disagreement.
VOLATILE = (
    README,
    LEDGER,
    "run.json",
    "environment.json",
    "vulnerabilities.json",
    ENVELOPE,
    PUBLIC_KEY,
    # the bundle's files as bytes: another parquet writer, same content
    "lock/files.json",
    # time-stamps: the seat's own TSA, times and tokens (absent when it has none)
    "lock/lock.tsr",
    "lock/timestamp.json",
    SEAL_TOKEN,
)

# Lines of content files that carry a seat's own facts; set aside line by line, each
# only in its exact form (audit/seal/volatile.py: the prefix alone is not enough).
ANCHOR_PREFIX = "Ledger head anchored by this certificate: "
WRITER_PREFIX = "File as shipped (writer-dependent): "
# The vulnerability audit's one line (audit/seal/vulns.py): it depends on the day.
VULNS_PREFIX = "Vulnerability audit (volatile: it depends on the day; reproducible is not safe): "
# The lock's time-stamp in one line (audit/seal/timestamp.py): the seat's TSA and time.
TSA_PREFIX = "Time-stamps: "
VOLATILE_LINE_PREFIXES = {
    "certificate.md": (ANCHOR_PREFIX, WRITER_PREFIX, VULNS_PREFIX, TSA_PREFIX),
    "report/report.md": (VULNS_PREFIX, TSA_PREFIX),
    # the leaderboard report's HTML holds it as a paragraph, the trials report's in <pre>
    "report/report.html": (VULNS_PREFIX, f"<p>{VULNS_PREFIX}", TSA_PREFIX, f"<p>{TSA_PREFIX}"),
}
