"""A bounded run of the coverage-guided fuzzer (bench/fuzz.py, atheris) on the frame decoder and
every game's `apply`: a fixed number of inputs from a fixed seed, so the run is the same each time."""
from __future__ import annotations

import importlib.util
import subprocess
import sys

from tests.conftest import ROOT, need

RUNS = 10000


def test_decoder_and_validators_survive_a_bounded_fuzz_run() -> None:
    need(importlib.util.find_spec("atheris") is not None, "atheris (pip install atheris)")
    run = subprocess.run([sys.executable, "-m", "bench.fuzz", "--runs", str(RUNS), "--seed", "1"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    tail = (run.stdout + run.stderr)[-3000:]
    print(tail)
    assert run.returncode == 0, tail
    assert f"Done {RUNS} runs" in run.stderr, tail
