"""Throughput of a batch over several GPUs from Python: the multi-GPU pool (`hegpu.GpuPool`,
threads in one process) and Dask (`hegpu.distributed`, one worker process per GPU), each on one
GPU and on every GPU of the host, in one run. Every result is checked against the bytes one
process computes.

The task per ciphertext (BFV, `--log-degree`, default 15): one Mul+Relin, then `--rotations`
row rotations by one (each its own key switch), so a task is milliseconds of GPU work and the
bytes of one ciphertext in and out.

    python crates/python/bench/scale_out.py [--log-degree 15] [--tasks 64] [--rotations 16] [--streams 2]

Prints `engine gpus tasks seconds tasks_per_second speedup`.
"""

import argparse
import time

import numpy as np

import hegpu
from hegpu.distributed import Evaluator, local_cluster


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--log-degree", type=int, default=15)
    parser.add_argument("--tasks", type=int, default=64)
    parser.add_argument("--rotations", type=int, default=16)
    parser.add_argument("--streams", type=int, default=2, help="GpuPool workers per device")
    args = parser.parse_args()
    gpus = hegpu.gpu_count()
    if gpus == 0:
        raise SystemExit("scale_out.py needs a CUDA device")
    params = hegpu.Parameters.preset("bfv", "secure", log_degree=args.log_degree)
    client_ctx = hegpu.Context(params, device="cpu")
    sk = client_ctx.secret_key()
    rk, gk = client_ctx.relin_key(sk), client_ctx.rotation_keys(sk, steps=[1])
    rk_bytes, gk_bytes = rk.to_bytes(), gk.to_bytes()
    rng = np.random.default_rng(5)
    requests = [
        client_ctx.encrypt(rng.integers(0, 1000, client_ctx.slot_count, dtype=np.uint64), sk).to_bytes()
        for _ in range(args.tasks)
    ]
    rotations = args.rotations

    def circuit(ctx, ct):
        out = ct * ct
        for _ in range(rotations):
            out = ctx.rotate_rows(out, 1)
        return out

    # The reference: one process, one GPU.
    ref_ctx = hegpu.Context(params, device="gpu:0")
    ref_ctx.bind(relin_key=ref_ctx.load_relin_key(rk_bytes), galois_keys=ref_ctx.load_galois_keys(gk_bytes))
    reference = [circuit(ref_ctx, ref_ctx.load_ciphertext(r)).to_bytes() for r in requests[:4]]

    print(f"# BFV N = {params.degree}, {len(params.ciphertext_moduli)} primes; task: Mul+Relin + {rotations} rotations")
    print("engine gpus tasks seconds tasks_per_second speedup")

    def setup(ctx):
        ctx.bind(relin_key=ctx.load_relin_key(rk_bytes), galois_keys=ctx.load_galois_keys(gk_bytes))

    def pool_task(ctx, state, data):
        return circuit(ctx, ctx.load_ciphertext(data)).to_bytes()

    base = None
    for devices in sorted({1, gpus}):
        pool = hegpu.GpuPool(params, streams_per_device=args.streams, setup=setup, devices=list(range(devices)))
        pool.map(pool_task, requests[: 2 * devices * args.streams])  # warm-up
        start = time.perf_counter()
        results = pool.map(pool_task, requests)
        seconds = time.perf_counter() - start
        assert results[:4] == reference, "GpuPool: results differ from one process"
        base = base or seconds
        print(f"GpuPool {devices} {args.tasks} {seconds:.3f} {args.tasks / seconds:.1f} {base / seconds:.2f}")
        del pool

    base = None
    for workers in sorted({1, gpus}):
        client = local_cluster(workers=workers, dashboard_address=None)
        try:
            evaluator = Evaluator(client, params, relin_key=rk_bytes, galois_keys=gk_bytes, device="per-worker")
            evaluator.map(circuit, requests[: 2 * workers])  # warm-up
            start = time.perf_counter()
            results = evaluator.map(circuit, requests)
            seconds = time.perf_counter() - start
            assert results[:4] == reference, "Dask: results differ from one process"
            base = base or seconds
            print(f"Dask {workers} {args.tasks} {seconds:.3f} {args.tasks / seconds:.1f} {base / seconds:.2f}")
            evaluator.close()
        finally:
            client.close()
            client.cluster.close()


if __name__ == "__main__":
    main()
