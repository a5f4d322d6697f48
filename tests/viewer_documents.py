"""Export folders of ``gpassk view`` written by hand, for the page's browser tests (tests/test_viewer_page_browser.py).

The data documents follow the contract between the page and its back end (docs/viewer.md): each is written as
``data/KEY.js`` = ``GPASSK.receive("KEY", JSON);`` beside the page's three files, as ``gpassk view --export``
writes them. The numbers come from the cell strings below and the exact oracle (tests/exact.py), not from the
package, so the page is tested against what it should show.
"""

from __future__ import annotations

import json
import shutil
from fractions import Fraction
from pathlib import Path

from exact import exact_g_pass, exact_mg_pass

VIEWER = Path(__file__).resolve().parents[1] / "gpassk_opencompass" / "render" / "viewer"
ASSETS = ("index.html", "viewer.js", "viewer.css")
THRESHOLDS = (0.5, 0.75, 1.0)
K = 4
ALPHA = "a1b2c3d4e5f6"
BETA = "0f1e2d3c4b5a"

#: The first run's questions: id, subset, cells (R right, W wrong, U unresolved, C cut), disagree, snippet.
ALPHA_QUESTIONS = (
    ("q-easy", "algebra", "RRRRRRRR", None, "What is 1 + 1?"),
    ("q-never", "algebra", "WWWWWWWW", None, "Prove the Riemann hypothesis."),
    ("q-unstable", "algebra", "RWRCWRUR", None, "How many primes are below 100?"),
    ("q-cut", "geometry", "CCCCRRRW", None, "A triangle has sides 3, 4 and 5. Its area?"),
    ("q-mostly", "algebra", "RRRRRRWW", None, "Solve x^2 = 4 for x > 0."),
    ("q-rarely", "algebra", "RWWWWWWW", 2, "The 10th Fibonacci number?"),
)
#: The second run's right counts on the same questions (n = 8, no cut).
BETA_COUNTS = (8, 0, 6, 3, 4, 1)


def receive_line(key: str, document: object) -> str:
    """A data file's whole text, as the contract fixes it."""
    return f"GPASSK.receive({json.dumps(key)}, {json.dumps(document, ensure_ascii=True)});\n"


def write_export(folder: Path, documents: dict[str, object]) -> Path:
    """The page's files and ``data/KEY.js`` per document; returns ``folder/index.html``."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ASSETS:
        shutil.copyfile(VIEWER / name, folder / name)
    for key, document in documents.items():
        path = folder / "data" / f"{key}.js"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(receive_line(key, document), encoding="ascii")
    return folder / "index.html"


def percent(value: Fraction) -> float:
    return float(value * 100)


def gpass_of(c: int, n: int) -> dict[str, float]:
    values = {str(tau): percent(exact_g_pass(n, c, K, str(tau))) for tau in THRESHOLDS}
    values["mg"] = percent(exact_mg_pass(n, c, K))
    return values


def map_document(rid: str, questions) -> dict:
    return {
        "run": rid,
        "k": K,
        "thresholds": list(THRESHOLDS),
        "questions": [
            {
                "i": i,
                "id": qid,
                "subset": subset,
                "c": cells.count("R"),
                "n": len(cells),
                "cells": cells,
                "gpass": gpass_of(cells.count("R"), len(cells)),
                "snippet": snippet,
                "disagree": disagree,
            }
            for i, (qid, subset, cells, disagree, snippet) in enumerate(questions)
        ],
    }


def run_entry(rid: str, label: str, counts, cut: int, kind: str = "sampled") -> dict:
    n = 8
    metrics = {
        f"G-Pass@{K}_{tau}": float(sum(exact_g_pass(n, c, K, str(tau)) for c in counts) / len(counts) * 100)
        for tau in THRESHOLDS
    }
    metrics[f"mG-Pass@{K}"] = float(sum(exact_mg_pass(n, c, K) for c in counts) / len(counts) * 100)
    return {
        "id": rid,
        "label": label,
        "model": label,
        "benchmark": "TOY",
        "subsets": ["algebra", "geometry"],
        "kind": kind,
        "claims": ["pilot: 6 of 15 questions"],
        "design": None,
        "n": n,
        "k": [K],
        "thresholds": list(THRESHOLDS),
        "questions": len(counts),
        "judge": "rule",
        "metrics": metrics,
        "intervals": {f"mG-Pass@{K}": [10.0, 90.0]},
        "cut": {"count": cut, "total": n * len(counts), "exact": True},
        "unresolved": 1 if kind == "sampled" and label == "alpha-7b" else 0,
        "has_texts": True,
        "source": f"runs/{label}.json",
    }


#: Question 2 of the first run: its final answers (answer, count, right, cut) and generations in draw order.
UNSTABLE_ANSWERS = (("25", 4, True, 0), ("24", 2, False, 0), (None, 2, None, 1))
UNSTABLE_GENERATIONS = (
    # j, answer, verdict, cut, finish_reason, text
    (0, "25", "right", False, "stop", "There are 25 primes below 100. The answer is \\boxed{25}."),
    (1, "24", "wrong", False, "stop", "I count 24 of them: \\boxed{24}."),
    (2, "25", "right", False, "stop", "Counting: 2, 3, 5, ... 97. \\boxed{25}"),
    (3, None, "wrong", True, "length", "Let me list them: 2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 4"),
    (4, "24", "wrong", False, "stop", "\\boxed{24}"),
    (5, "25", "right", False, "stop", "\\boxed{25}"),
    (6, None, "unresolved", False, "stop", "The answer is twenty-five-ish."),
    (7, "25", "right", False, "stop", "So \\boxed{25}."),
)


def question_document(rid: str, i: int, qid: str, cells: str, generations, answers, text: str, gold: str) -> dict:
    c, n = cells.count("R"), len(cells)
    return {
        "run": rid,
        "i": i,
        "id": qid,
        "text": text,
        "gold": gold,
        "subset": "algebra",
        "c": c,
        "n": n,
        "gpass": [
            {"tau": tau, "value": percent(exact_g_pass(n, c, K, str(tau))), "low": 1.5, "high": 98.5}
            for tau in THRESHOLDS
        ],
        "mg": percent(exact_mg_pass(n, c, K)),
        "answers": [{"answer": a, "count": count, "right": right, "cut": cut} for a, count, right, cut in answers],
        "generations": [
            {
                "j": j,
                "answer": answer,
                "verdict": verdict,
                "cut": cut,
                "finish_reason": reason,
                "chars": len(text),
                "judge_reply": "The answer matches: 25." if j == 0 else None,
                "has_text": True,
            }
            for j, answer, verdict, cut, reason, text in generations
        ],
    }


def generation_documents(rid: str, i: int, generations) -> dict[str, dict]:
    return {
        f"runs/{rid}/q/{i}/g/{row[0]}": {"run": rid, "i": i, "j": row[0], "text": row[-1], "chars": len(row[-1])}
        for row in generations
    }


def compare_document(cannot_separate: bool = True) -> dict:
    """Beta against alpha, per question: Δc/n and ΔG-Pass@4_0.5 in points, from the counts."""
    rows = []
    for (qid, _, cells, _, _), c_b in zip(ALPHA_QUESTIONS, BETA_COUNTS):
        c_a = cells.count("R")
        d_gpass = percent(exact_g_pass(8, c_b, K, "0.5") - exact_g_pass(8, c_a, K, "0.5"))
        rows.append(
            {
                "id": qid,
                "i_a": len(rows),
                "i_b": len(rows),
                "c_a": c_a,
                "n_a": 8,
                "c_b": c_b,
                "n_b": 8,
                "d_cn": percent(Fraction(c_b - c_a, 8)),
                "d_gpass": d_gpass,
                "change": "improved" if d_gpass > 0 else "regressed" if d_gpass < 0 else "same",
            }
        )
    paired = {
        "metric": f"G-Pass@{K}_0.5",
        "diff": 1.25 if cannot_separate else 21.25,
        "low": -12.5 if cannot_separate else 3.75,
        "high": 15.0 if cannot_separate else 40.0,
        "level": 0.95,
        "verdict": "cannot separate" if cannot_separate else "b",
        "sentence": "beta-7b − alpha-7b on G-Pass@4_0.5: +1.2 points, 95 % interval [-12.5, +15.0] (paired by question)",
    }
    return {
        "a": ALPHA,
        "b": BETA,
        "k": K,
        "metric": f"G-Pass@{K}_0.5",
        "shared": len(rows),
        "only_a": 0,
        "only_b": 1,
        "questions": rows,
        "paired": paired,
    }


def standard_documents() -> dict[str, object]:
    """Two runs on the same six questions, a leaderboard of them, one question's details, their comparison."""
    alpha_counts = [cells.count("R") for _, _, cells, _, _ in ALPHA_QUESTIONS]
    beta_questions = tuple(
        (qid, subset, "R" * c + "W" * (8 - c), None, snippet)
        for (qid, subset, _, _, snippet), c in zip(ALPHA_QUESTIONS, BETA_COUNTS)
    )
    alpha = run_entry(ALPHA, "alpha-7b", alpha_counts, cut=5)
    beta = run_entry(BETA, "beta-7b", BETA_COUNTS, cut=0)
    columns = [f"G-Pass@{K}_{tau}" for tau in THRESHOLDS] + [f"mG-Pass@{K}"]

    def board_row(run: dict, tied: bool, cut: str) -> dict:
        return {
            "label": run["label"],
            "runs": {"sampled": run["id"], "greedy": None},
            "cells": {
                column: {
                    "value": run["metrics"][column],
                    "low": run["metrics"][column] - 5,
                    "high": run["metrics"][column] + 5,
                }
                for column in columns
            },
            "tied_with_next": tied,
            "cut": cut,
            "measured": "6 questions, n = 8, rule judge",
            "warnings": [],
        }

    rows = sorted([board_row(alpha, True, "10 %"), board_row(beta, False, "0 %")], key=lambda r: r["label"])
    index = {
        "version": 1,
        "title": "TOY runs",
        "generated_by": "gpassk-opencompass test",
        "runs": [alpha, beta],
        "leaderboard": {"k": K, "tables": [{"benchmark": "TOY", "columns": columns, "rows": rows}]},
        "pairs": [[ALPHA, BETA]],
    }
    unstable = ALPHA_QUESTIONS[2]
    documents: dict[str, object] = {
        "index": index,
        f"runs/{ALPHA}/map": map_document(ALPHA, ALPHA_QUESTIONS),
        f"runs/{BETA}/map": map_document(BETA, beta_questions),
        f"runs/{ALPHA}/q/2": question_document(
            ALPHA,
            2,
            unstable[0],
            unstable[2],
            UNSTABLE_GENERATIONS,
            UNSTABLE_ANSWERS,
            "How many primes are below 100?",
            "25",
        ),
        f"compare/{ALPHA}/{BETA}": compare_document(),
    }
    documents.update(generation_documents(ALPHA, 2, UNSTABLE_GENERATIONS))
    return documents
