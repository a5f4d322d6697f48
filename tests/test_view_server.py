"""``gpassk view``'s server over real HTTP on 127.0.0.1, and ``--export``: every key answers, everything else is a
4xx without a traceback, hostile generations come back as inert escaped text, nothing is written outside DIR or
over an input."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from gpassk_opencompass.view.keys import Key, document_script
from gpassk_opencompass.view.page import CONTENT_SECURITY_POLICY
from in_process import run_main
from scoring_fixtures import COUNTS, generations
from view_fixtures import receive, request, scored, serving

TEN_MB = 10 * 1024 * 1024
HOSTILE = [
    "<script>alert(1)</script> so the answer is \\boxed{7}",
    '<img src=x onerror="alert(1)"> \\boxed{8}',
    "[click](javascript:alert(1)) and ![x](http://example.com/x.png) \\boxed{7}",
    "control \x00\x01\x07\x1b[31mred\x7f bytes \\boxed{7}",
    "bidi \u202ereversed\u202c \u2066isolate\u2069 separators \u2028\u2029 \\boxed{9}",
    "x" * TEN_MB + " \\boxed{7}",
]


@pytest.fixture
def scored_run(tmp_path, capsys):
    return scored(capsys, tmp_path, generations(COUNTS))


def test_every_key_answers_and_nothing_else_does(scored_run):
    with serving(list(scored_run)) as (viewer, server):
        keys = list(viewer.document_keys())
        assert len(keys) == 1 + 1 + 8 + 64
        for key in keys:
            status, headers, body = request(server, f"/data/{key.text}.js")
            assert status == 200, key.text
            assert receive(body)[0] == key.text and body == viewer.script(key.text)
            assert headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
            assert headers["X-Content-Type-Options"] == "nosniff" and headers["Cache-Control"] == "no-store"
            assert headers["Content-Type"].startswith("text/javascript")
        status, headers, body = request(server, "/data/index.js", method="HEAD")
        assert status == 200 and body == b"" and int(headers["Content-Length"]) > 100
        run = keys[1].run
        refused = [
            "/../",
            "/data/../../etc/passwd.js",
            "/%2e%2e/%2e%2e/etc/passwd",
            "/data/%2e%2e/%2e%2e/etc/passwd.js",
            "/data/runs/%2e%2e/map.js",
            "/etc/passwd",
            "//etc/passwd",
            "/data/",
            "/data/index.json",
            "/data/index",
            "/data/INDEX.js",
            f"/data/runs/{run.upper()}/map.js",
            "/data/runs/000000000000/map.js",
            f"/data/runs/{run}/q/01.js",
            f"/data/runs/{run}/q/8.js",
            f"/data/runs/{run}/q/0/g/8.js",
            f"/data/runs/{run}/q/99999999999999999999.js",
            f"/data/compare/{run}/{run}.js",
            f"/data/runs/{run}/map.js/",
            "/viewer.js.map",
            "/scores.json",
        ]
        for path in refused:
            status, headers, body = request(server, path)
            assert status == 404, path
            assert b"Traceback" not in body and headers["X-Content-Type-Options"] == "nosniff"
        for method in ("POST", "PUT", "DELETE", "PATCH", "OPTIONS"):
            status, headers, body = request(server, "/data/index.js", method=method)
            assert status == 405 and headers["Allow"] == "GET, HEAD", method
        status, _, _ = request(server, "/data/index.js", host="attacker.example:80")
        assert status == 403  # a page of another origin resolved to 127.0.0.1 (DNS rebinding) reads nothing
        with socket.create_connection(("127.0.0.1", server.server_address[1]), timeout=10) as raw:
            raw.sendall(b"GET /data/index.js <script> HTTP/1.1\r\n\r\n")
            answer = raw.recv(4096)
        assert answer.startswith(b"HTTP/1.1 400") and b"Traceback" not in answer and b"<script>" not in answer


def test_hostile_generations_come_back_as_escaped_text(tmp_path, capsys):
    rows = [{"id": "q0", "question": "<script>alert('q')</script> 3 + 4?", "answer": "7", "predictions": HOSTILE}]
    results, gens = scored(capsys, tmp_path, rows, ks=("2",))
    with serving([results, gens]) as (viewer, server):
        run = next(iter(viewer.runs))
        started = time.monotonic()
        big: list = []
        fetch = threading.Thread(target=lambda: big.append(request(server, f"/data/runs/{run}/q/0/g/5.js")))
        fetch.start()
        status, _, _ = request(server, "/data/index.js", timeout=5)  # answered while the 10 MB text is read
        assert status == 200 and time.monotonic() - started < 5
        fetch.join(60)
        for j, text in enumerate(HOSTILE):
            status, _, body = big[0] if j == 5 else request(server, f"/data/runs/{run}/q/0/g/{j}.js")
            assert status == 200
            body.decode("ascii")  # only ASCII: no raw control byte, bidi override or line separator reaches the page
            assert b"\x00" not in body and b"\xe2\x80\xa8" not in body
            _, document = receive(body)
            assert document["text"] == text and document["chars"] == len(text)
        _, _, body = request(server, f"/data/runs/{run}/q/0.js")
        document = receive(body)[1]
        assert document["text"].startswith("<script>") and [g["chars"] for g in document["generations"]] == [
            len(text) for text in HOSTILE
        ]


def test_the_command_prints_the_url_first_and_stops_on_sigterm(scored_run):
    environment = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    process = subprocess.Popen(
        [sys.executable, "-m", "gpassk_opencompass.cli", "view", *map(str, scored_run), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
    )
    try:
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/")
        port = int(url.rsplit(":", 1)[1].rstrip("/"))
        server = type("Server", (), {"server_address": ("127.0.0.1", port)})()
        status, _, body = request(server, "/data/index.js")
        assert status == 200 and receive(body)[0] == "index"
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == 128 + signal.SIGTERM
    assert "Traceback" not in stderr and "terminated by SIGTERM" in stderr


def test_export_writes_every_document_and_nothing_outside(scored_run, tmp_path, capsys):
    before = {path for path in tmp_path.rglob("*")}
    site = tmp_path / "site"
    done = run_main(capsys, "view", *map(str, scored_run), "--export", str(site))
    assert done.returncode == 0, done.stderr
    written = sorted(path for path in site.rglob("*") if path.is_file())
    assert done.stdout.startswith(f"exported {site}: {len(written)} files, ")
    assert {path for path in tmp_path.rglob("*")} - before == set(site.rglob("*")) | {site}
    from gpassk_opencompass.view import Viewer

    with Viewer(list(scored_run)) as viewer:
        keys = list(viewer.document_keys())
        data = sorted(path for path in written if path.suffix == ".js" and "data" in path.relative_to(site).parts)
        assert len(data) == len(keys) == 74
        for key in keys:
            path = site / "data" / f"{key.text}.js"
            assert path.read_bytes() == document_script(key.text, viewer.document(key))
    (text_file,) = (site / "data" / "runs").glob("*/q/2/g/0.js")
    assert (
        receive(text_file.read_bytes())[1]["text"]
        == json.loads(scored_run[1].read_text().splitlines()[2])["predictions"][0]
    )


def test_export_refuses_to_write_over_an_input(scored_run, tmp_path, capsys):
    results, gens = scored_run
    site = tmp_path / "site"
    (site / "data").mkdir(parents=True)
    os.symlink(gens, site / "data" / "index.js")
    kept = gens.read_bytes()
    done = run_main(capsys, "view", str(results), str(gens), "--export", str(site))
    assert done.returncode == 2 and "is one of the inputs" in done.stderr and done.stderr.count("\n") == 1
    assert gens.read_bytes() == kept and sorted(site.rglob("*")) == [site / "data", site / "data" / "index.js"]
    done = run_main(capsys, "view", str(results), "--export", str(results))
    assert done.returncode == 2 and "not a folder" in done.stderr


def test_bad_arguments_are_one_line_before_any_work(scored_run, tmp_path, capsys):
    results, gens = scored_run
    for argv, said in [
        (["view", str(tmp_path / "absent.json")], "no such file or folder"),
        (["view", str(gens)], "not a results file"),
        (["view", str(results), "--port", "70000"], "--port 70000"),
        (["view", str(results), "--export", str(tmp_path / "s"), "--port", "8000"], "leave out --host and --port"),
    ]:
        done = run_main(capsys, *argv)
        assert done.returncode == 2 and said in done.stderr and done.stderr.count("\n") == 1, (argv, done.stderr)


def test_a_document_key_is_parsed_once_by_its_grammar():
    assert Key("generation", run="ab", i=1, j=2).text == "runs/ab/q/1/g/2"


def test_a_text_whose_file_changed_since_start_up_is_not_read_as_the_old_one(scored_run):
    results, gens = scored_run
    with serving([results, gens]) as (viewer, server):
        run = next(iter(viewer.runs))
        assert request(server, f"/data/runs/{run}/q/0/g/0.js")[0] == 200
        with gens.open("a", encoding="utf-8") as file:
            file.write("\n")
        status, _, body = request(server, f"/data/runs/{run}/q/0/g/0.js")
        assert status == 409 and b"changed since gpassk view read it" in body and b"Traceback" not in body
        assert request(server, f"/data/runs/{run}/map.js")[0] == 200  # what was read at start-up is still served
