"""The plots: interval bars in the PNG, the planner's calibration plot."""

from __future__ import annotations

import io

import numpy as np
import pytest
from matplotlib.image import imread

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.metrics import g_pass_at_k
from gpassk_opencompass.render.plots import PALETTE, calibration_plot, png_bytes, threshold_figure
from gpassk_opencompass.uncertainty.planner import plan_table
from leaderboard_rows import board, row


def colour_pixels(png: bytes, colour: str) -> int:
    pixels = imread(io.BytesIO(png))[..., :3]
    rgb = np.array([int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)])
    return int((np.abs(pixels - rgb).sum(axis=-1) < 0.02).sum())


def test_the_png_shows_interval_bars():
    plain = board([row("m", [10.0, 30.0, 20.0, 10.0, 15.0])])
    barred = board(
        [
            row(
                "m",
                [10.0, 30.0, 20.0, 10.0, 15.0],
                curve_intervals=((0.5, 5.0, 70.0), (0.75, 2.0, 60.0), (1.0, 1.0, 50.0)),
            )
        ]
    )
    without = colour_pixels(png_bytes(threshold_figure(plain, "AIME2025")), PALETTE[0])
    with_bars = colour_pixels(png_bytes(threshold_figure(barred, "AIME2025")), PALETTE[0])
    assert with_bars > without + 100  # three bars, ~55 points of the axis each


def test_the_calibration_plot_puts_each_plan_at_its_simulated_width():
    """Monte Carlo: simulate runs of 30 questions at n = 8 and 32, and plot z * sd of the estimates."""
    rng = np.random.default_rng(0)
    p = np.array([0.2, 0.5, 0.9] * 10)
    plans = plan_table(p, ns=[8, 32], k=[4], thresholds=[1.0], include_question_sampling=False)
    realised = {}
    for plan in plans:
        if plan.key != "G-Pass@4_1.0":
            continue
        counts = rng.binomial(plan.n, p, size=(400, p.size))
        estimates = np.array([g_pass_at_k(plan.n, run, 4, 1.0).mean() * 100 for run in counts])
        realised[(plan.key, plan.n, plan.questions)] = [1.959964 * estimates.std(ddof=1)]
    figure = calibration_plot(plans, realised)
    (axes,) = figure.axes
    (container,) = axes.containers
    xs, ys = container.lines[0].get_data()
    planned = {plan.n: plan.half_width for plan in plans if plan.key == "G-Pass@4_1.0"}
    assert sorted(xs) == pytest.approx(sorted(planned.values()))
    assert list(ys) == [realised[("G-Pass@4_1.0", n, 30)][0] for n in (8, 32)]
    assert np.allclose(ys, xs, rtol=0.1)  # the plan is right: within Monte Carlo noise of the diagonal
    assert png_bytes(figure)[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    "realised, message",
    [
        ({}, "needs realised widths for at least one plan"),
        ({("G-Pass@4_1.0", 8, 30): []}, "must be a non-empty list of finite numbers >= 0"),
        ({("G-Pass@4_1.0", 8, 30): [float("nan")]}, "must be a non-empty list of finite numbers >= 0"),
        ({("G-Pass@4_1.0", 9, 30): [1.0]}, "match no plan"),
    ],
)
def test_the_calibration_plot_refuses_widths_it_cannot_place(realised, message):
    plans = plan_table([0.5] * 30, ns=[8], k=[4], thresholds=[1.0])
    with pytest.raises(InputError, match=message):
        calibration_plot(plans, realised)


def test_the_docs_page_examples_run():
    import doctest
    from pathlib import Path

    page = Path(__file__).resolve().parents[1] / "docs" / "leaderboard-page.md"
    result = doctest.testfile(str(page), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 5
