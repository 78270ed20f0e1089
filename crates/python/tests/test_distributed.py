"""Scale-out with Dask: a local cluster of two worker processes (CPU contexts in CI, one per GPU
on a GPU host) holds the evaluation keys once; the results are the bytes one process computes."""

import numpy as np
import pytest

import hegpu

distributed = pytest.importorskip("distributed")

from hegpu.distributed import Evaluator, local_cluster  # noqa: E402


@pytest.fixture(scope="module")
def client():
    client = local_cluster(workers=2, dashboard_address=None)
    yield client
    client.close()
    client.cluster.close()


@pytest.mark.parametrize("scheme", ["bfv", "bgv"])
def test_cluster_results_equal_one_process(client, scheme):
    params = hegpu.Parameters.preset(scheme, "secure", log_degree=12)
    ctx = hegpu.Context(params, device="cpu")
    sk = ctx.secret_key()
    rk, gk = ctx.relin_key(sk), ctx.rotation_keys(sk, steps=[1])
    rng = np.random.default_rng(7)
    inputs = [rng.integers(0, params.plaintext_modulus, ctx.slot_count, dtype=np.uint64) for _ in range(6)]
    ciphertexts = [ctx.encrypt(x, ctx.public_key(sk)) for x in inputs]

    def circuit(context, ct):  # sent by value to the workers
        return context.rotate_rows(ct * ct + 3, 1)

    evaluator = Evaluator(client, params, relin_key=rk, galois_keys=gk, device="cpu")
    try:
        results = evaluator.map(circuit, ciphertexts)
        one = evaluator.submit(circuit, ciphertexts[0].to_bytes()).result()
    finally:
        evaluator.close()

    ctx.bind(relin_key=rk, galois_keys=gk)
    local = [circuit(ctx, ct).to_bytes() for ct in ciphertexts]
    assert results == local
    assert one == local[0]
    t = params.plaintext_modulus
    for x, data in zip(inputs, results):
        rows = ((x.astype(object) ** 2 + 3) % t).reshape(2, -1)
        got = ctx.decode(ctx.decrypt(ctx.load_ciphertext(data), sk))
        assert np.array_equal(got, np.roll(rows, -1, axis=1).reshape(-1))
    # Both workers took part.
    assert len(client.scheduler_info()["workers"]) == 2


def test_worker_device_choice():
    from hegpu.distributed import worker_device

    class Worker:
        name = 3

    expected = 3 % hegpu.gpu_count() if hegpu.gpu_count() else "cpu"
    assert worker_device(Worker(), "per-worker") == expected
    assert worker_device(Worker(), "cpu") == "cpu"
