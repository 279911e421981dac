"""``pbem data calibrate witp``: the calibration cases (rulesets/witp/calibration.py)
run and printed, each measured outcome's distribution beside history's, and their
histograms drawn (``--picture``) with Pillow, the project's one picture library."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from pbem.core.errors import PbemError
from pbem.rulesets.witp import calibration
from pbem.rulesets.witp.calibration import Distribution, Outcome, Result


def calibrate(names: Sequence[str] | None, trials: int, seed: int, picture: Path | None) -> int:
    """Run the cases (all, or ``names``), print each, draw the picture; 0 if every
    fitted record falls inside its central 80 % and every bound holds, else 1."""
    if trials < 10:
        print("--trials: at least 10", file=sys.stderr)
        return 2
    try:
        cases = [calibration.load_case(n) for n in (names or calibration.case_names())]
        pack = calibration.game_pack()
        results = [calibration.run(c, trials, seed, pack) for c in cases]
    except PbemError as e:
        print(f"{e}", file=sys.stderr)
        return 1
    for r in results:
        print(format_result(r))
        print()
    missed = [o for r in results for o in r.outcomes if o.record.calibrated and not o.inside]
    broken = [b for r in results for b in r.bounds if not b.holds]
    print(
        f"{sum(len(r.outcomes) for r in results)} records, {len(missed)} fitted outside the "
        f"central 80 %; {sum(len(r.bounds) for r in results)} bounds, {len(broken)} broken "
        f"({trials} trials a case, seed {seed})"
    )
    if picture is not None:
        draw(results).save(picture)
        print(f"histograms: {picture}")
    return 1 if missed or broken else 0


def _num(x: float) -> str:
    return f"{x:g}"


def _spread(d: Distribution) -> str:
    """Each value's share of the trials: "0:12% 1:30% ..."."""
    n = len(d.values)
    return " ".join(f"{_num(v)}:{100 * k / n:.0f}%" for v, k in d.counts().items())


def _history(o: Outcome) -> str:
    lo, hi = o.record.low, o.record.high
    return _num(lo) if lo == hi else f"{_num(lo)}-{_num(hi)}"


def format_result(r: Result) -> str:
    """One case: its title, each record and the other shown outcomes."""
    lines = [f"== {r.case.name}: {r.case.title}", f"   sources: {r.case.source}"]
    lines.append(
        f"   {'outcome':<26} {'history':>8} {'P10':>4} {'P50':>4} {'P90':>4}  inside  distribution"
    )
    recorded = {o.record.key for o in r.outcomes}
    for o in r.outcomes:
        d = o.distribution
        lo, hi = d.central
        verdict = "yes" if o.inside else "NO"
        if not o.record.calibrated:
            verdict += "*"
        lines.append(
            f"   {o.record.key:<26} {_history(o):>8} {_num(lo):>4} {_num(d.percentile(0.5)):>4} "
            f"{_num(hi):>4}  {verdict:<6}  {_spread(d)}"
        )
    for key in calibration.shown(r):
        if key in recorded or any(b.bound.metric == key for b in r.bounds):
            continue
        d = r.metrics[key]
        lo, hi = d.central
        lines.append(
            f"   {key:<26} {'-':>8} {_num(lo):>4} {_num(d.percentile(0.5)):>4} {_num(hi):>4}  "
            f"{'':<6}  {_spread(d)}"
        )
    for b in r.bounds:
        state = "holds" if b.holds else "BROKEN"
        lines.append(
            f"   bound: {b.bound.metric} at least {_num(b.bound.at_least)} in "
            f"{100 * b.share:.1f}% of trials (under {100 * b.bound.share:.0f}%): {state}"
        )
    if any(not o.record.calibrated for o in r.outcomes):
        lines.append(
            "   * not fitted: "
            + "; ".join(
                f"{o.record.key}: {o.record.why}" for o in r.outcomes if not o.record.calibrated
            )
        )
    return "\n".join(lines)


# --- the picture --------------------------------------------------------------------

PANEL = (300, 170)
COLUMNS = 4
BAR, MARK, INK, PAPER, GRID = (
    (70, 110, 170),
    (200, 40, 40),
    (20, 20, 20),
    (255, 255, 255),
    (210, 210, 210),
)


def _panels(
    results: Sequence[Result],
) -> list[tuple[str, Distribution, tuple[float, float] | None]]:
    """(title, distribution, the historical range or None) for each record and bound."""
    out: list[tuple[str, Distribution, tuple[float, float] | None]] = []
    for r in results:
        for o in r.outcomes:
            mark = "" if o.record.calibrated else " (not fitted)"
            out.append(
                (
                    f"{r.case.name}: {o.record.key}{mark}",
                    o.distribution,
                    (o.record.low, o.record.high),
                )
            )
        for b in r.bounds:
            title = f"{r.case.name}: {b.bound.metric} (bound: {_num(b.bound.at_least)} < {100 * b.bound.share:.0f}%)"
            out.append((title, r.metrics[b.bound.metric], None))
    return out


def draw(results: Sequence[Result]) -> Image.Image:
    """A histogram a record (and bound): the trials' share at each value, the
    historical range marked in red under the bars, the central 80 % bracketed."""
    panels = _panels(results)
    rows = (len(panels) + COLUMNS - 1) // COLUMNS
    w, h = PANEL
    img = Image.new("RGB", (w * COLUMNS, h * rows + 24), PAPER)
    pen = ImageDraw.Draw(img)
    font = ImageFont.load_default()
    pen.text(
        (8, 6),
        "Calibration: outcome histograms (bars), history (red), central 80 % (grey bracket)",
        fill=INK,
        font=font,
    )
    for i, (title, dist, hist) in enumerate(panels):
        x0, y0 = (i % COLUMNS) * w, 24 + (i // COLUMNS) * h
        _panel(pen, font, (x0, y0), title, dist, hist)
    return img


def _panel(
    pen: ImageDraw.ImageDraw,
    font: ImageFont.ImageFont | ImageFont.FreeTypeFont,
    at: tuple[int, int],
    title: str,
    dist: Distribution,
    hist: tuple[float, float] | None,
) -> None:
    x0, y0 = at
    w, h = PANEL
    pen.text((x0 + 6, y0 + 4), title[:48], fill=INK, font=font)
    counts = dist.counts()
    top = max([*counts, *(hist or ())], default=1.0)
    values = [float(v) for v in range(int(max(5.0, top)) + 1)]
    left, right, base, height = x0 + 14, x0 + w - 10, y0 + h - 34, h - 62
    slot = (right - left) / len(values)
    n = len(dist.values)
    peak = max(counts.values()) / n if counts else 1.0
    pen.line((left, base, right, base), fill=GRID)
    for k, v in enumerate(values):
        share = counts.get(v, 0) / n
        bx = left + k * slot
        bar = height * share / peak if peak else 0
        pen.rectangle((bx + 3, base - bar, bx + slot - 3, base), fill=BAR)
        pen.text((bx + slot / 2 - 3, base + 3), _num(v), fill=INK, font=font)
        if share:
            pen.text((bx + 3, base - bar - 11), f"{100 * share:.0f}", fill=INK, font=font)
    lo, hi = dist.central
    cx0, cx1 = left + lo * slot + 2, left + (hi + 1) * slot - 2
    pen.line((cx0, base + 15, cx1, base + 15), fill=(140, 140, 140), width=2)
    if hist is not None:
        hx0 = left + hist[0] * slot + slot * 0.15
        hx1 = left + hist[1] * slot + slot * 0.85
        pen.rectangle((hx0, base + 19, max(hx1, hx0 + 3), base + 24), fill=MARK)
