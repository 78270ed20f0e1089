"""Example 6: scale-out with Dask. A cluster's workers (here two local processes; on a GPU host
one per GPU; on many hosts, `dask worker` processes started there) hold the evaluation keys
once; ciphertexts travel as bytes; the results equal one process's, byte for byte.

Needs `pip install hegpu[distributed]`.

    python crates/python/examples/06_dask_cluster.py
"""

import numpy as np

import hegpu
from hegpu.distributed import Evaluator, local_cluster


def main():
    params = hegpu.Parameters.preset("bgv", "secure", log_degree=12)
    ctx = hegpu.Context(params, device="cpu")
    secret = ctx.secret_key()
    relin = ctx.relin_key(secret)
    inputs = [np.arange(ctx.slot_count, dtype=np.uint64) * (k + 1) % 1000 for k in range(8)]
    ciphertexts = [ctx.encrypt(x, secret) for x in inputs]

    client = local_cluster(workers=2, dashboard_address=None)
    try:
        evaluator = Evaluator(client, params, relin_key=relin, device="per-worker")
        results = evaluator.map(lambda c, ct: ct * ct + ct, ciphertexts)
        evaluator.close()
    finally:
        client.close()
        client.cluster.close()

    t = params.plaintext_modulus
    for x, data in zip(inputs, results):
        got = ctx.decode(ctx.decrypt(ctx.load_ciphertext(data), secret))
        assert np.array_equal(got, (x * x + x) % t)
    print(f"{len(results)} results from the cluster, each {len(results[0])} bytes")
    print("ok")


if __name__ == "__main__":  # Dask's worker processes import this file
    main()
