"""Which lines of an annex's content files are volatile, recognised byte for byte.

audit.seal.contract names the volatile lines of each file; this module says what
each must be, whole, for compare-annex to set it aside. A line that only begins
like one (a sentence added under the vulnerability audit's prefix, a second
anchor, a writer line with a claim after its digests) is not volatile: it is
content, compared like any other line, and a difference is named.

- the anchor line: the prefix, then one 64-hex-digit head in backticks;
- a writer line: the prefix, the role, the file name in backticks, then its
  blake3 and sha256 in backticks; only the two digests are volatile (the role and
  the file name are compared);
- the vulnerability audit's line: exactly the line this code renders
  (audit.seal.vulns.line_of) from the same annex's own vulnerabilities.json, whose
  every field is of the form the audit writes (known environments, a known reason,
  package, version and advisory ids as plain tokens). In HTML, that line as the
  report renders it: a paragraph (leaderboard reports) or a line of a <pre> block.
- the time-stamps' line: exactly the line audit.seal.timestamp renders from the
  same annex's own lock/timestamp.json (or its absence), whose fields are of the
  form the stamp writes (audit.seal.timestamp.volatile_line), in the same forms.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from markupsafe import escape

from audit.seal import contract, timestamp, vulns

HEX = r"[0-9a-f]{64}"
ANCHOR = re.compile(re.escape(contract.ANCHOR_PREFIX) + rf"`({HEX})`")
WRITER = re.compile(
    re.escape(contract.WRITER_PREFIX)
    + rf"([a-z][a-z0-9_]*) `([^`]+)` blake3 `{HEX}` sha256 `{HEX}`"
)
# every reason audit.seal.vulns records for an environment it did not audit
REASON = re.compile(
    r"(uv export|pip-audit) (not found|not executable|timed out after [0-9.e+]+ s"
    r"|failed \(exit -?[0-9]+\))"
    r"|no advisory data reachable|no pinned package to audit"
    r"|pip-audit's report has no dependency list|" + re.escape(vulns.DISABLED)
)
TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+!-]{0,99}")
MAX_VULNS = 16 << 20


def _well_formed(doc: object) -> bool:
    """vulnerabilities.json holds only what the audit writes: nothing free-form reaches
    the one line (docs/seal.md, "Advisories")."""
    if not isinstance(doc, dict) or not isinstance(doc.get("environments"), dict):
        return False
    envs = doc["environments"]
    if not envs or not set(envs) <= set(vulns.ENVIRONMENTS):
        return False
    for e in envs.values():
        if not isinstance(e, dict) or e.get("audited") not in (True, False):
            return False
        if e["audited"] is False:
            if not isinstance(e.get("reason"), str) or not REASON.fullmatch(e["reason"]):
                return False
            continue
        n = e.get("packages_audited")
        adv, skipped = e.get("advisories"), e.get("not_audited")
        if (
            type(n) is not int
            or n < 0
            or not isinstance(adv, list)
            or not isinstance(skipped, list)
        ):
            return False
        for a in adv:
            if not isinstance(a, dict) or not all(
                isinstance(a.get(k), str) and TOKEN.fullmatch(a[k])
                for k in ("package", "version", "id")
            ):
                return False
    return True


def _vulns_line(annex: Path) -> str | None:
    """The line this code renders from the annex's own vulnerabilities.json; None when
    that file is absent, unreadable or not of the audit's form (no line is then volatile)."""
    path = annex / "vulnerabilities.json"
    try:
        if not path.is_file() or path.is_symlink() or path.stat().st_size > MAX_VULNS:
            return None
        doc = json.loads(path.read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None
    return vulns.line_of(annex) if _well_formed(doc) else None


def _html_forms(line: str) -> tuple[str, str]:
    from audit.markdown import inline

    return f"<p>{inline(line)}</p>", str(escape(line))


def masked(annex: Path, rel: str, lines: list[str]) -> tuple[list[str], int]:
    """The file's lines with each volatile line the contract lists for ``rel``, in exactly
    its form, replaced by a placeholder; and how many were. Any other line is kept as is."""
    prefixes = contract.VOLATILE_LINE_PREFIXES.get(rel, ())
    own: list[str | None] = []  # the vulnerability line, read once when a line needs it
    out, n = [], 0
    for raw in lines:  # each with its line ending, kept after a placeholder
        line = raw.rstrip("\r\n")
        m = _mask(annex, rel, line, prefixes, own) if line.startswith(prefixes) else None
        out.append(raw if m is None else m + raw[len(line) :])
        n += m is not None
    return out, n


def _mask(
    annex: Path, rel: str, line: str, prefixes: tuple[str, ...], own: list[str | None]
) -> str | None:
    if contract.ANCHOR_PREFIX in prefixes and ANCHOR.fullmatch(line):
        return f"{contract.ANCHOR_PREFIX}<the seat's pre-seal head>"
    if contract.WRITER_PREFIX in prefixes and (m := WRITER.fullmatch(line)):
        return f"{contract.WRITER_PREFIX}{m[1]} `{m[2]}` <the file's digests as shipped>"
    if contract.TSA_PREFIX in prefixes and line.startswith(
        (contract.TSA_PREFIX, f"<p>{contract.TSA_PREFIX}")
    ):
        tsa = timestamp.volatile_line(annex)
        forms = () if tsa is None else _html_forms(tsa) if rel.endswith(".html") else (tsa,)
        return f"{contract.TSA_PREFIX}<this seat's time-stamps>" if line in forms else None
    if not own:
        own.append(_vulns_line(annex))
    if own[0] is None:
        return None
    forms = _html_forms(own[0]) if rel.endswith(".html") else (own[0],)
    if line in forms:
        return f"{contract.VULNS_PREFIX}<this seat's vulnerability audit>"
    return None
