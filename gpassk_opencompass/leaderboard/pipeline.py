"""``gpassk leaderboard`` end to end: options checked, runs read, tables built, outputs written.

:func:`make_leaderboard` is the one function the command calls: every option is checked before a results file
is read (``InputError``), then the runs are collected, the k chosen, the tables built, compared, ranked, written
and plotted. It returns a :class:`LeaderboardOutcome`: ``COMPLETE``, ``INCOMPLETE`` (a run left out for
unresolved verdicts) or ``MISSING`` (runs a manifest lists without results, or results that cannot be believed,
left out); docs/leaderboard.md, "Exit codes".

>>> request = LeaderboardRequest(outputs=(Path("outputs"),), files=(Path("board.txt"),))
>>> output_targets(request)
Traceback (most recent call last):
...
gpassk_opencompass.errors.InputError: cannot tell the format of 'board.txt' from its suffix '.txt'; use one of .md .markdown .csv .json .html .htm or pass --format
"""

from __future__ import annotations

import enum
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from gpassk_opencompass import defaults
from gpassk_opencompass.console import inert
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.files.writing import (
    check_not_input,
    check_writable_file,
    check_writable_folder,
    write_text_atomic,
)
from gpassk_opencompass.leaderboard.collect import collect_runs
from gpassk_opencompass.leaderboard.published import (
    DEFAULT_TOLERANCE,
    PublishedLeaderboard,
    compare_with_published,
    load_published,
)
from gpassk_opencompass.leaderboard.ranking import check_ranking_options, rank_leaderboard
from gpassk_opencompass.leaderboard.records import Collection, Leaderboard
from gpassk_opencompass.leaderboard.table import LEADERBOARD_THRESHOLDS, build_leaderboard, leaderboard_columns
from gpassk_opencompass.log import logger
from gpassk_opencompass.render import require_extra
from gpassk_opencompass.render.formats import EXTRAS, FORMATS, SUFFIXES
from gpassk_opencompass.render.html import explorer_base, render_html


class LeaderboardOutcome(enum.Enum):
    """What :func:`make_leaderboard` achieved (see the module docstring)."""

    #: Every wanted run is tabulated.
    COMPLETE = "complete"
    #: A wanted run was left out for unresolved verdicts.
    INCOMPLETE = "incomplete"
    #: A manifest lists runs without results, or a results file that cannot be believed was left out.
    MISSING = "missing"


@dataclass(frozen=True)
class LeaderboardRequest:
    """Everything ``gpassk leaderboard`` was asked for.

    Attributes:
        outputs: OpenCompass work dirs, runs, or folders above them.
        files: where to write (format from the suffix, or ``fmt``); empty: stdout.
        fmt: the output format when there is one file or stdout.
        k: the k of the G-Pass@k columns; ``None``: the largest the runs share.
        thresholds: τ of the G-Pass@k_τ columns.
        benchmarks: only these benchmarks, in this order.
        temperature: only sampled runs at this temperature.
        intervals: show bootstrap intervals.
        compare_published: add Δ columns against the published figures.
        published: compare with this JSON instead of the shipped figures.
        tolerance: flag |Δ| beyond this many points.
        allow_unresolved: tabulate incomplete runs, marked.
        allow_inconsistent: tabulate runs whose values cannot be believed, marked.
        manifests: generator manifests to use instead of looking for them.
        plots: write PNG plots into this folder.
        sort_by: the column the rows are sorted (and ranked) by; default mG-Pass@k.
        significance: rank intervals and adjacent-row significance at this
            confidence (e.g. 0.95); ``None``: not computed.
        correction: ``holm`` or ``none`` for the adjacent tests.
        resamples: bootstrap resamples (and random sign vectors) of the ranking.
        seed: seeds them.
        explorer: a ``gpassk view --export`` folder (or its ``http(s)://`` address): an HTML page links each row
            to its run there.
    """

    outputs: tuple[Path, ...]
    files: tuple[Path, ...] = ()
    fmt: str | None = None
    k: int | None = None
    thresholds: tuple[float, ...] = LEADERBOARD_THRESHOLDS
    benchmarks: tuple[str, ...] | None = None
    temperature: float | None = None
    intervals: bool = False
    compare_published: bool = False
    published: Path | None = None
    tolerance: float = DEFAULT_TOLERANCE
    allow_unresolved: bool = False
    allow_inconsistent: bool = False
    manifests: tuple[Path, ...] = ()
    plots: Path | None = None
    sort_by: str | None = None
    significance: float | None = None
    correction: str = "holm"
    resamples: int = defaults.N_BOOT_PAIRED
    seed: int = 0
    explorer: str | None = None


def format_for_path(path: Path | str) -> str:
    """The output format a file name asks for, from its suffix.

    >>> format_for_path("board.HTML")
    'html'

    Raises:
        InputError: the suffix is not one of ``.md .markdown .csv .json .html .htm``.
    """
    suffix = Path(path).suffix.lower()
    if suffix not in SUFFIXES:
        raise InputError(
            f"cannot tell the format of {str(path)!r} from its suffix {suffix!r}; "
            f"use one of {' '.join(SUFFIXES)} or pass --format"
        )
    return SUFFIXES[suffix]


def output_targets(request: LeaderboardRequest) -> list[tuple[Path | None, str]]:
    """``(path, or None for stdout; format)`` of every output, checked before any work.

    Raises:
        InputError: ``--format`` with several files, an unknown suffix, an output that cannot be written
            (``files.writing.check_writable_file``: a missing folder, a device, a FIFO).
    """
    if request.fmt is not None and request.fmt not in FORMATS:
        raise InputError(f"unknown format {request.fmt!r}; use one of {', '.join(sorted(FORMATS))}")
    if not request.files:
        return [(None, request.fmt or "md")]
    if request.fmt and len(request.files) > 1:
        raise InputError("--format applies to a single --output; with several, each file's suffix gives its format")
    targets: list[tuple[Path | None, str]] = []
    for path in request.files:
        fmt = request.fmt or format_for_path(path)
        check_writable_file("--output", path)
        targets.append((path, fmt))
    for fmt in dict.fromkeys(fmt for _, fmt in targets):
        require_extra(f"the {fmt} format", True, *EXTRAS.get(fmt, ()))
    return targets


def check_request(request: LeaderboardRequest) -> list[tuple[Path | None, str]]:
    """Every option checked, before any results file is read (``--plots`` a folder, or one that can be made);
    returns the output targets.

    Raises:
        InputError: one line naming the bad option.
    """
    targets = output_targets(request)
    if request.explorer is not None and not any(fmt == "html" for _, fmt in targets):
        raise InputError(
            f"--explorer {request.explorer!r} links the rows of an HTML page; add -o board.html (or --format html)"
        )
    leaderboard_columns(16 if request.k is None else request.k, request.thresholds)  # k and τ
    require_extra("--plots", request.plots, "matplotlib")
    if request.plots is not None:
        check_writable_folder("--plots", request.plots)
    if request.tolerance < 0:
        raise InputError(f"--tolerance must be >= 0, got {request.tolerance:g}")
    check_ranking_options(
        level=request.significance, correction=request.correction, resamples=request.resamples, seed=request.seed
    )
    return targets


def make_leaderboard(request: LeaderboardRequest, stdout: TextIO | None = None) -> LeaderboardOutcome:
    """Build and write the leaderboard; what it achieved (see the module docstring).

    The steps: check every option (:func:`check_request`), read the runs (refusing an output that is one of
    them), build the tables (:func:`build_board`), say what was left out, write the outputs and plots, and
    tell the outcome (:func:`outcome`).

    Raises:
        InputError: a bad option or input (exit 2), an ``--output`` that is one of
            the files read (a results file, a saved config, a manifest, the
            published figures), or no row at all from usable results.
    """
    targets = check_request(request)
    published = load_published(request.published) if request.compare_published or request.published else None
    collection = collect_runs(request.outputs, request.manifests)
    for path, _ in targets:  # nothing is written yet
        check_not_input("--output", path, [*collection.inputs, *([request.published] if request.published else [])])
    for manifest in collection.manifests:
        logger.info("manifest: {}", manifest)
    board = build_board(request, collection, published)
    for notice in board.notices:
        logger.warning(notice.message)
    for run in board.missing:
        logger.warning("expected but without results: {}", run.describe())
    if not board.tables:
        return _no_rows(board, len(collection.runs))
    rows = sum(len(table.rows) for table in board.tables)
    logger.info(f"{rows} row(s) on {len(board.tables)} benchmark(s) from {len(collection.runs)} results file(s)")
    write_outputs(board, targets, intervals=request.intervals, stdout=stdout or sys.stdout, explorer=request.explorer)
    if request.plots is not None:
        from gpassk_opencompass.render.plots import write_plots  # deferred: matplotlib, when asked

        for path in write_plots(board, request.plots):
            logger.info("wrote {}", path)
    return outcome(board)


def build_board(request: LeaderboardRequest, collection: Collection, published: PublishedLeaderboard | None):
    """The tables of the collected runs as asked: built, compared with the published figures, ranked."""
    board = build_leaderboard(
        collection.runs,
        k=request.k,
        thresholds=request.thresholds,
        benchmarks=request.benchmarks,
        temperature=request.temperature,
        notices=collection.notices,
        allow_unresolved=request.allow_unresolved,
        missing=collection.missing,
        sort_by=request.sort_by,
        allow_inconsistent=request.allow_inconsistent,
    )
    if board.k_reason:
        logger.info(board.k_reason)
    if published is not None:
        board = compare_with_published(board, published, request.tolerance)
    if request.significance is not None and board.tables:
        board = rank_leaderboard(
            board,
            metric=request.sort_by,
            level=request.significance,
            correction=request.correction,
            resamples=request.resamples,
            seed=request.seed,
        )
    return board


def _no_rows(board: Leaderboard, usable: int) -> LeaderboardOutcome:
    """A leaderboard without rows: incomplete or unbelievable runs left out (said, with the outcome), else an
    ``InputError``."""
    if board.left_out_incomplete:
        logger.error(
            f"no leaderboard rows: {len(board.left_out_incomplete)} incomplete run(s) left out (see above); "
            "rerun them to resume, or pass --allow-unresolved"
        )
        return LeaderboardOutcome.INCOMPLETE
    if board.left_out_inconsistent:
        logger.error(
            f"no leaderboard rows: {len(board.left_out_inconsistent)} results file(s) whose values cannot be "
            "believed left out (see above); score them again, or pass --allow-inconsistent"
        )
        return LeaderboardOutcome.MISSING
    missing = f"; {len(board.missing)} run(s) the manifest lists have no results" if board.missing else ""
    raise InputError(f"no leaderboard rows from {usable} usable results file(s){missing}; see the warnings above")


def outcome(board: Leaderboard) -> LeaderboardOutcome:
    """What a written leaderboard achieved: runs left out for unresolved verdicts, for values that cannot be
    believed, runs a manifest lists without results (each said in one line), else complete."""
    if board.left_out_incomplete:
        logger.error(
            f"incomplete: {len(board.left_out_incomplete)} run(s) left out for unresolved verdicts (see above); "
            "rerun them to resume, or pass --allow-unresolved"
        )
        return LeaderboardOutcome.INCOMPLETE
    if board.left_out_inconsistent:
        logger.error(
            f"inconsistent: {len(board.left_out_inconsistent)} results file(s) whose values cannot be believed "
            "left out (see above); score them again, or pass --allow-inconsistent to tabulate them marked"
        )
        return LeaderboardOutcome.MISSING
    if board.missing:
        logger.error(
            f"missing: {len(board.missing)} run(s) the manifest lists have no results (see above); "
            "the tables show the others (gpassk grid status tells why)"
        )
        return LeaderboardOutcome.MISSING
    return LeaderboardOutcome.COMPLETE


def write_outputs(
    board: Leaderboard,
    targets: Sequence[tuple[Path | None, str]],
    *,
    intervals: bool,
    stdout: TextIO,
    explorer: str | None = None,
) -> None:
    """Render ``board`` in each target's format; write files atomically, the rest to ``stdout``. An HTML page
    links its rows to their runs in the ``explorer`` export, as the page reaches it."""
    for path, fmt in targets:
        if fmt == "html" and explorer is not None:
            text = render_html(board, intervals=intervals, explorer=explorer_base(explorer, path))
        else:
            text = FORMATS[fmt](board, intervals=intervals)
        text = text if text.endswith("\n") else text + "\n"
        if path is None:  # a console: through its door (under gpassk, stdout is one already)
            stdout.write(inert(text))
        else:
            write_text_atomic(path, text)
            logger.info("wrote {}", path)
