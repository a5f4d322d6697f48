"""``analysis.planning``: the sample-size plan from a pilot results file, checked against an exact
computation and against simulation (planned vs realised width)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from analysis_docs import Z95, exact_half_width, exact_value, write
from gpassk_opencompass.analysis.inputs import load_with_details
from gpassk_opencompass.analysis.planning import calibrate, pilot_p, plan, plan_results
from gpassk_opencompass.errors import InputError

T, F, N = True, False, None


def matrix_of(counts, n):
    return [[bool(g < c) for g in range(n)] for c in counts]


def test_pilot_probabilities_leave_unresolved_verdicts_out(tmp_path):
    pilot = load_with_details(write(tmp_path / "p.json", [[T, N, N, F], [T, T, T, F]]))
    assert pilot_p(pilot).tolist() == [0.5, 4 / 6]


def test_planned_half_widths_match_an_exact_computation(tmp_path):
    counts = [0, 1, 3, 4, 4, 2]
    pilot = load_with_details(write(tmp_path / "p.json", matrix_of(counts, 4), ks=(2, 4), thresholds=(0.5, 1.0)))
    p = [Fraction(c + 1, 6) for c in counts]
    report = plan_results(pilot, [4, 8], questions=[6, 60])
    assert len(report.rows) == 2 * 2 * 2 * 3
    for row in report.rows:
        k = int(row.key.split("@")[1].split("_")[0])
        key = "mG" if row.key.startswith("mG") else row.key.split("_")[1]
        assert row.half_width == pytest.approx(exact_half_width(p, row.n, k, key, row.questions), rel=1e-9), row
    fixed = plan_results(pilot, [8], k=[4], thresholds=[1.0], include_question_sampling=False)
    assert fixed.rows[0].half_width == pytest.approx(exact_half_width(p, 8, 4, "1.0", 6, sampling=False), rel=1e-9)


def test_smallest_n_is_the_first_n_whose_exact_width_reaches_the_target(tmp_path):
    counts = [1, 2, 3, 2, 1, 3, 2, 2]
    pilot = load_with_details(write(tmp_path / "p.json", matrix_of(counts, 4), ks=(2,), thresholds=(1.0,)))
    p = [Fraction(c + 1, 6) for c in counts]
    report = plan_results(pilot, [4], questions=[200], target=6.0, include_question_sampling=False)
    found = {t.key: t.n for t in report.targets}
    for key, tau in (("G-Pass@2_1.0", "1.0"), ("mG-Pass@2", "mG")):
        n = found[key]
        assert exact_half_width(p, n, 2, tau, 200, sampling=False) <= 6.0
        assert n == 2 or exact_half_width(p, n - 1, 2, tau, 200, sampling=False) > 6.0
    floor = plan_results(pilot, [4], target=1.0)  # 8 questions as a sample: their spread alone is wider
    assert all(t.n is None and t.floor > 1.0 for t in floor.targets)
    assert "not reachable with 8 questions" in plan(tmp_path / "p.json", [4], target=1.0)


def test_planned_width_matches_the_simulated_width(tmp_path):
    """Planned vs realised: simulate runs of M questions drawn from the pilot, c ~ Bin(n, p), exact metric."""
    rng = np.random.default_rng(11)
    counts = rng.integers(0, 9, 40)
    pilot = load_with_details(write(tmp_path / "p.json", matrix_of(counts, 8), ks=(4,), thresholds=(0.5, 1.0)))
    p = (counts + 1) / 10
    report = plan_results(pilot, [8, 16], questions=[40, 160])
    replications = 4000
    for row in report.rows:
        key = "mG" if row.key.startswith("mG") else row.key.split("_")[1]
        table = np.array([float(exact_value(row.n, c, 4, key)) for c in range(row.n + 1)])
        chosen = p[rng.integers(0, p.size, size=(replications, row.questions))]
        scores = table[rng.binomial(row.n, chosen)].mean(axis=1)
        realised = 100 * Z95 * scores.std(ddof=1)
        assert row.half_width == pytest.approx(realised, rel=0.06), row  # MC error of a std: ~1.1%
    points = calibrate(pilot_p(pilot), report.rows, replications=replications, seed=3)
    for point in points:
        assert point.realised == pytest.approx(point.planned.half_width, rel=0.06)


def test_calibration_plot_and_outputs_are_written(tmp_path):
    path = write(tmp_path / "p.json", matrix_of([1, 3, 4, 0, 2, 2], 4), ks=(2,), thresholds=(1.0,))
    text = plan(
        path,
        [4, 8],
        target=30.0,
        calibration_png=tmp_path / "cal.png",
        replications=300,
        json_path=tmp_path / "plan.json",
        markdown_path=tmp_path / "plan.md",
    )
    assert (tmp_path / "cal.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "## Calibration: planned vs simulated half-width" in text and "Smallest n for ±30 points" in text
    assert (tmp_path / "plan.md").read_text() == text
    assert '"schema": "gpassk-plan/1"' in (tmp_path / "plan.json").read_text()


@pytest.mark.parametrize(
    "options, message",
    [
        (dict(ns=[0]), "--n must be positive integers, got 0"),
        (dict(ns=[4], questions=[0]), "--questions must be positive integers, got 0"),
        (dict(ns=[1], k=[2]), "every k (2) exceeds every planned n (1)"),
        (dict(ns=[4], target=-1.0), "--target must be a half-width > 0"),
        (dict(ns=[4], level=1.5), "level must be"),
    ],
)
def test_bad_plan_requests_are_one_line_errors(tmp_path, options, message):
    pilot = load_with_details(write(tmp_path / "p.json", matrix_of([1, 2], 4)))
    with pytest.raises(InputError) as info:
        plan_results(pilot, **options)
    assert message in str(info.value) and "\n" not in str(info.value)
