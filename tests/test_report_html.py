"""Both kinds' reports as a browser shows them: headless Chromium renders each report.html,
and the rendered text must hold no raw Markdown, every figure an SVG with marks in it, and
"What this does not show" last; report.md's images must exist. A screenshot of each lands in
results/screenshots/ for a person to look at."""

from __future__ import annotations

import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.conftest import CHROMIUM_FLAGS, ROOT, run_dag

CHROMIUM = shutil.which("chromium")
SHARED = (ROOT / ".." / "shared" / "bundles").resolve()
# arm -> (config file or None for the demo, bundle folder name or None, figure ids shown)
ARMS = {
    "demo": (None, None, ["census-map", "null-histograms", "controls-plot"]),
    "skillsbench-registry": (
        "skillsbench-registry.yaml",
        "skillsbench-registry",
        ["intervals-plot", "task-rewards", "null-histograms"],
    ),
    "benchflow-sample": (
        "benchflow-sample.yaml",
        "benchflow-trials-sample",
        ["intervals-plot", "task-rewards", "settings-plot"],
    ),
}


class _Page(HTMLParser):
    """The text a reader sees (style and script left out), and each figure's marks."""

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.skip = 0
        self.figure: str | None = None
        self.figures: dict[str, int] = {}  # figure id -> drawn elements inside its <svg>
        self.imgs: list[str] = []
        self.h2: list[str] = []
        self._in_h2 = False
        self.ids: list[str] = []  # every element's id, in page order

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id") and self.figure is None:  # an SVG's own ids are the plot's
            self.ids.append(a["id"] or "")
        if tag in ("style", "script"):
            self.skip += 1
        elif tag == "figure":
            self.figure = a.get("id") or ""
            self.figures[self.figure] = 0
        elif tag in ("path", "text", "use", "rect", "line") and self.figure is not None:
            self.figures[self.figure] += 1
        elif tag == "img":
            self.imgs.append(a.get("src") or "")
        elif tag == "h2":
            self._in_h2 = True
            self.h2.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("style", "script"):
            self.skip -= 1
        elif tag == "figure":
            self.figure = None
        elif tag == "h2":
            self._in_h2 = False

    def handle_data(self, data: str) -> None:
        if self.skip or self.figure is not None:
            return  # SVG text (tick labels) is a plot's, not the page's prose
        self.text.append(data)
        if self._in_h2:
            self.h2[-1] += data


@pytest.fixture(scope="module", params=list(ARMS))
def arm(request, impl_envs, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    name = request.param
    config, bundle, _ = ARMS[name]
    args = ["--config", f"prereg={ROOT / 'prereg' / 'demo.yaml'}"]
    if config is not None:
        folder = SHARED / bundle
        if not folder.is_dir():
            pytest.skip(f"real bundle not present at ../shared/bundles/{bundle}")
        prereg = ROOT / "prereg" / f"{name}.yaml"
        args = ["--configfile", str(ROOT / "config" / config), "--config"]
        args += [f"prereg={prereg}", f"bundle={folder}"]
    work = tmp_path_factory.mktemp(name)
    p = run_dag(work, *args)
    assert p.returncode == 0, p.stderr[-3000:]
    return name, work / "results" / name


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")
def test_report_renders_without_raw_markdown_or_missing_images(arm, tmp_path: Path) -> None:
    name, res = arm
    report = res / "report"
    flags = [*CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run(
        [CHROMIUM, *flags, "--dump-dom", (report / "report.html").as_uri()],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert dom.returncode == 0, dom.stderr[-2000:]
    page = _Page()
    page.feed(dom.stdout)
    lines = [ln.strip() for ln in "".join(page.text).splitlines() if ln.strip()]
    raw = [ln for ln in lines if ln.startswith(("#", "```", "|---", "![", "- "))]
    assert not raw, raw[:5]  # Markdown a browser shows as it is
    assert not [ln for ln in lines if re.search(r"`[^`]+`", ln)], "unrendered code spans"
    twice = sorted({i for i in page.ids if page.ids.count(i) > 1})
    assert not twice, twice  # an anchor names one element (a section and its figure differ)
    for ident in ARMS[name][2]:
        assert page.figures.get(ident, 0) > 10, (ident, page.figures)  # an SVG, drawn
    assert all((report / src).is_file() for src in page.imgs)
    assert page.h2[-1] == "What this does not show"
    assert "p-value here is below 1/(" in "".join(page.text)
    # the Markdown twin: every image it links is beside it, and the limits close it too
    md = (report / "report.md").read_text(encoding="utf-8")
    linked = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md)
    assert linked and all((report / f).is_file() for f in linked), linked
    assert [ln for ln in md.splitlines() if ln.startswith("## ")][-1] == (
        "## What this does not show"
    )
    # the certificate: the limits, then the anchor, with the seal's line kept as it was
    cert = (res / "annex" / "certificate.md").read_text(encoding="utf-8")
    heads = [ln for ln in cert.splitlines() if ln.startswith("## ")]
    assert heads[-2:] == ["## What this does not show", "## Anchor"], heads
    assert "Ledger head anchored by this certificate: `" in cert
    shot = ROOT / "results" / "screenshots" / f"report-{name}.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    png = subprocess.run(
        [CHROMIUM, *flags, "--hide-scrollbars", "--window-size=1400,3000", f"--screenshot={shot}",
         (report / "report.html").as_uri()],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )  # fmt: skip
    assert png.returncode == 0 and shot.stat().st_size > 20_000


# Each table's wrapper whose content is wider than it (a scroller hiding columns), measured
# in the page as the browser lays it out.
OVERFLOW = """<script>
window.addEventListener('load', () => {
  const wide = [...document.querySelectorAll('.table-wrap')]
    .filter(w => w.scrollWidth > w.clientWidth + 1)
    .map(w => [w.firstElementChild.id, w.scrollWidth, w.clientWidth]);
  const pre = document.createElement('pre');
  pre.id = 'overflow';
  pre.textContent = JSON.stringify(wide);
  document.body.appendChild(pre);
});
</script>"""


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")
def test_no_table_hides_columns_at_1400(arm, tmp_path: Path) -> None:
    """At 1400 x 900 every table shows all its columns (the trials arms' entries table has 16;
    a scroller hid its last three before the page was widened)."""
    import html
    import json

    _, res = arm
    page = tmp_path / "report.html"
    text = (res / "report" / "report.html").read_text(encoding="utf-8")
    page.write_text(text.replace("</body>", OVERFLOW + "</body>"), encoding="utf-8")
    flags = [*CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--hide-scrollbars"]
    dom = subprocess.run(
        [CHROMIUM, *flags, "--window-size=1400,900", "--dump-dom", page.as_uri()],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert dom.returncode == 0, dom.stderr[-2000:]
    found = re.search(r'<pre id="overflow">(.*?)</pre>', dom.stdout, re.DOTALL)
    assert found, "the probe did not run"
    assert json.loads(html.unescape(found.group(1))) == []
