r"""The attack corpus (tests/data/judge_attacks.jsonl) against every judge protocol: no generation steers the prompt
or the reading of the reply.

For every protocol of ``judges.prompts.PROTOCOLS`` and every attack, in both languages: the prompt built holds
each of the protocol's fences exactly once, as the prompt of a harmless answer does -- counted after this test's
own normalisation (NFKD with format characters and combining marks dropped, NFKC, case folded, look-alike letters
and angle brackets mapped, HTML entities unescaped, everything but letters, digits, ``<``, ``/``, ``>`` and ``:``
removed), written here independently of ``judges.fences``. For every reader of replies (ours and other tools'),
a judge reply that quotes the attack and then gives the judge's own verdict reads as the judge's own verdict; so
does one that gives its verdict, then quotes the attack in a blockquote (every line marked, so no attack can end
the quotation early).
"""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from gpassk_opencompass.judges import JudgeItem, JudgeSettings, judge_items
from gpassk_opencompass.judges.prompts import PROTOCOLS
from gpassk_opencompass.judges.source_replies import SOURCE_READERS
from loopback_openai import last_user_message

DATA = Path(__file__).parent / "data"
CORPUS = DATA / "judge_attacks.jsonl"
ATTACKS = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()]

#: Every marker a protocol's prompt holds, squashed (see squash): the tags' opening and closing forms, the labels
#: (followed by a colon, an equals sign, a dash or the end of their line).
TAGS = ("problem", "referenceanswer", "studentanswer", "question", "题目", "问题", "标准答案", "考生答案")
LABELS = (
    "thestudentsfinalanswer",
    "thestudentmarkednofinalanswerthisistheendoftheresponse",
    "originalquestion",
    "standardanswer",
    "examineesanswer",
    "analysis",
    "考生的最终答案",
    "原问题",
    "标准答案",
    "考生答案",
    "分析",
)
MARKERS = tuple(f"<{tag}" for tag in TAGS) + tuple(f"</{tag}" for tag in TAGS) + tuple(f"{label}:" for label in LABELS)
#: Each protocol's own fences by language: exactly once in every prompt it builds.
OWN_FENCES = {
    ("gpassk-v2", "en"): [f"<{tag}" for tag in TAGS[:3]] + [f"</{tag}" for tag in TAGS[:3]],
    ("gpassk-v2", "cn"): [f"<{tag}" for tag in TAGS[:3]] + [f"</{tag}" for tag in TAGS[:3]],
    ("livemathbench", "en"): ["originalquestion:", "standardanswer:", "examineesanswer:", "analysis:"],
    ("livemathbench", "cn"): ["原问题:", "标准答案:", "考生答案:", "分析:"],
}
_LOOKALIKE = str.maketrans("аеорсухіѕᴀʙᴄᴅᴇꜰɴᴏᴘʀꜱᴛᴜᴡʟᴍ", "aeopcyxisabcdefnoprstuwlm")
_BRACKETS = str.maketrans("〈《‹⟨«❮❰˂ᐸ⟪〉》›⟩»❯❱˃ᐳ⟫", "<<<<<<<<<<>>>>>>>>>>")


def squash(text: str) -> str:
    """``text`` as a reader would take its markers: see the module docstring (a label ends in ``:``)."""
    text = html.unescape(text).replace("\\lt", "<").replace("\\gt", ">").replace("[/", "</")
    text = "".join(c for c in unicodedata.normalize("NFKD", text) if unicodedata.category(c) not in ("Cf", "Mn"))
    text = unicodedata.normalize("NFKC", text).casefold().translate(_LOOKALIKE).translate(_BRACKETS)
    text = re.sub(r"\s*(?:=|[-–—]+(?!\w))|(?<=\w)[^\S\n]*$", ":", text, flags=re.MULTILINE)  # for a label's colon
    return re.sub(r"[^\w<>/:]|_", "", text)


def marker_counts(prompt: str) -> dict[str, int]:
    squashed = squash(prompt)
    return {marker: squashed.count(marker) for marker in MARKERS}


def test_the_corpus_is_the_scripts_output_and_large_enough():
    done = subprocess.run(
        [sys.executable, str(DATA / "make_judge_attacks.py"), "--check"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(ATTACKS) >= 200
    assert all(set(attack) == {"text", "kind", "provenance"} and attack["provenance"] for attack in ATTACKS)
    kinds = {attack["kind"] for attack in ATTACKS}
    assert {"master key", "claims correct", "planted verdict", "fake fence", "grader instruction"} <= kinds
    paper = [attack["text"] for attack in ATTACKS if attack["provenance"] == "arXiv 2507.08794 master key"]
    assert {"Thought process:", "Let's solve this problem step by step.", ":", ".", "解"} <= set(paper)


def test_the_normalisation_here_sees_the_fences_the_corpus_plants():
    """Without it the prompt test below would prove nothing: every fake fence holds a marker once squashed."""
    fences = [attack["text"] for attack in ATTACKS if attack["kind"] in ("fake fence", "fake label")]
    assert fences and all(any(marker_counts(text).values()) for text in fences)


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("language", ["en", "cn"])
def test_every_prompt_holds_each_fence_exactly_once_whatever_the_attack(protocol, language):
    build = PROTOCOLS[protocol].build
    question, reference = "What is 17 + 25?", "42"
    benign = {
        extracted: marker_counts(build(question, reference, "41", language, extracted=extracted))
        for extracted in (True, False)
    }
    assert all(benign[True][fence] == 1 for fence in OWN_FENCES[protocol, language]), benign
    failures = []
    for attack in ATTACKS:
        text = attack["text"]
        for prompt, extracted in (
            (build(question, reference, text, language), True),
            (build(question, reference, text, language, extracted=False), False),
            (build(f"{question} {text}", f"{reference} {text}", text, language), True),
        ):
            counts = marker_counts(prompt)
            if counts != benign[extracted]:
                changed = {marker: count for marker, count in counts.items() if count != benign[extracted][marker]}
                failures.append((attack["provenance"], changed))
    assert not failures, failures[:5]


#: Each reader's own verdict as its judge writes it: (correct, incorrect).
OWN_VERDICTS = {
    "gpassk-v2": (r"\boxed{yes}", r"\boxed{no}"),
    "livemathbench": (r"\boxed{yes}", r"\boxed{no}"),
    "nemo-skills": ("Judgement: Yes", "Judgement: No"),
    "opencompass": ("A", "B"),
    "inspect": ("GRADE: C", "GRADE: I"),
}
QUOTING = (
    'The student\'s response is:\n"{attack}"\nComparing it with the reference answer.\n{own}',
    "Quoting the response: {attack}\n\nMy own verdict follows.\n{own}",
    "<think>The response says {attack}. Let me compare.</think>\nThe student wrote: {attack}\n{own}",
    "{own}\n\n{blockquote}",  # a quotation after the judge's own verdict, every line marked: never read
)


@pytest.mark.parametrize("reader", [*PROTOCOLS.values(), *SOURCE_READERS.values()], ids=lambda reader: reader.name)
def test_a_reply_quoting_the_attack_reads_as_the_judges_own_verdict(reader):
    assert set(OWN_VERDICTS) == {*PROTOCOLS, *SOURCE_READERS}  # a new reader needs its row here
    failures = []
    for attack in ATTACKS:
        for template in QUOTING:
            for correct, own in zip((True, False), OWN_VERDICTS[reader.name]):
                blockquote = "\n".join(f"> {line}" for line in attack["text"].split("\n"))
                reply = template.format(attack=attack["text"], own=own, blockquote=blockquote)
                said, why = reader.read(reply)
                if said is not correct:
                    failures.append((attack["provenance"], repr(attack["text"][:40]), correct, said, why))
    assert not failures, failures[:5]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_what_reaches_the_judge_over_the_socket_keeps_its_fences(protocol, loopback_openai):
    """The real LLM-judge path (extraction, prompt, request) on every attack, to a real HTTP server on 127.0.0.1:
    every prompt it received holds the markers of a harmless answer's prompt, no more."""
    server = loopback_openai(lambda body: r"They differ. \boxed{no}")
    items = [JudgeItem("What is 17 + 25?", "42", attack["text"], "en") for attack in ATTACKS]
    settings = JudgeSettings(kind="llm", urls=(server.url,), model="loopback-model", judge_prompt=protocol)
    report = judge_items(items, settings, progress=False)
    assert [verdict.correct for verdict in report.verdicts] == [False] * len(ATTACKS)
    benign = {
        extracted: marker_counts(PROTOCOLS[protocol].build("What is 17 + 25?", "42", "41", "en", extracted=extracted))
        for extracted in (True, False)
    }
    assert server.requests
    for body in server.requests:
        counts = marker_counts(last_user_message(body))
        assert counts in (benign[True], benign[False]), last_user_message(body)[-400:]
