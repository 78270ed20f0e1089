"""The numbered examples run to their end and print "ok" (the GPU pool's says it is skipped
without a device; the Dask cluster's is skipped where Dask is not installed)."""

import importlib.util
import pathlib
import subprocess
import sys

import pytest

import hegpu

EXAMPLES = sorted((pathlib.Path(__file__).parent.parent / "examples").glob("*.py"))


def test_the_examples_are_found():
    assert len(EXAMPLES) >= 6


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_example_runs(example):
    if example.stem == "06_dask_cluster" and importlib.util.find_spec("distributed") is None:
        pytest.skip("Dask's 'distributed' is not installed")
    out = subprocess.run([sys.executable, str(example)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    last = out.stdout.strip().splitlines()[-1]
    if example.stem == "05_gpu_pool" and hegpu.gpu_count() == 0:
        assert "skipped" in last
    else:
        assert last == "ok", out.stdout
