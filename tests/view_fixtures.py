"""Runs for the ``gpassk view`` tests, each made by the real commands, and the documents read back over HTTP."""

from __future__ import annotations

import http.client
import json
import re
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from gpassk_opencompass.view.server import ViewerServer
from gpassk_opencompass.view.viewer import Viewer
from in_process import run_main
from leaderboard_workdirs import dataset_cfg, model_cfg, write_config
from scoring_fixtures import write_jsonl

DATA = Path(__file__).parent / "data"
#: The real predictions OpenCompass 0.5.4 wrote (tests/data/opencompass/PROVENANCE.md): 4 questions x n=8, two parts.
OPENCOMPASS_PREDICTIONS = DATA / "opencompass" / "predictions" / "strong_t0-7"
RECEIVE = re.compile(rb'^GPASSK\.receive\("(?P<key>[^"]+)", (?P<json>.*)\);\n$', re.DOTALL)


def score(capsys, source: Path, output: Path, *extra: str, ks=("2", "4"), judge: str = "rule") -> dict:
    """``gpassk score SOURCE --output OUTPUT`` through the real command; the results document."""
    done = run_main(
        capsys, "score", str(source), "--k", *ks, "--judge", judge, "--quiet", "--no-cache", "--output", str(output),
        *extra,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(output.read_text(encoding="utf-8"))


def scored(capsys, folder: Path, rows: list[dict], *extra: str, ks=("2", "4")) -> tuple[Path, Path]:
    """A generations file and the results ``gpassk score`` made of it."""
    generations = write_jsonl(folder / "gens.jsonl", rows)
    results = folder / "scores.json"
    score(capsys, generations, results, *extra, ks=ks)
    return results, generations


def opencompass_folder(capsys, root: Path) -> Path:
    """A work dir as OpenCompass lays it out: the real predictions (two parts), a saved config dumped by mmengine,
    and the results scored from those predictions by ``gpassk score`` (what GPassKEvaluator's results hold)."""
    run_dir = root / "work" / "20261123_120000"
    predictions = run_dir / "predictions" / "strong_t0-7"
    predictions.mkdir(parents=True)
    for part in sorted(OPENCOMPASS_PREDICTIONS.glob("tiny_llm_*.json")):
        shutil.copy(part, predictions / part.name)
    write_config(
        run_dir,
        "20261123_120000_4242",
        [model_cfg("strong_t0-7", "org/strong", 0.7)],
        [dataset_cfg("tiny_llm", "AIME2025", (2, 4), 8)],
    )
    results = run_dir / "results" / "strong_t0-7" / "tiny_llm.json"
    results.parent.mkdir(parents=True)
    score(capsys, predictions / "tiny_llm_0.json", results, "--format", "opencompass")
    return root / "work"


def receive(body: bytes) -> tuple[str, object]:
    """The key and the document of a ``data/KEY.js`` file."""
    match = RECEIVE.match(body)
    assert match is not None, body[:200]
    return match["key"].decode(), json.loads(match["json"])


@contextmanager
def serving(paths: list, host: str = "127.0.0.1") -> Iterator[tuple[Viewer, ViewerServer]]:
    """A viewer served on a free port of 127.0.0.1 in a thread, for the length of the block."""
    with Viewer(paths) as viewer:
        server = ViewerServer(viewer, host, 0)
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        thread.start()
        try:
            yield viewer, server
        finally:
            server.shutdown()
            server.server_close()
            thread.join(10)


def request(server: ViewerServer, path: str, method: str = "GET", host: str | None = None, timeout: float = 30):
    """``(status, headers, body)`` of one raw HTTP request (the path sent as given, never normalised)."""
    connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=timeout)
    try:
        connection.putrequest(method, path, skip_host=host is not None, skip_accept_encoding=True)
        if host is not None:
            connection.putheader("Host", host)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()
