"""The GIL is released while the library computes: contexts used from several Python threads
at once give the results of one thread."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np


def test_threads_share_a_context(setup, rng):
    ctx, t = setup.ctx, setup.t
    inputs = [setup.random(rng) for _ in range(6)]
    ciphertexts = [ctx.encrypt(x, setup.pk) for x in inputs]

    def work(ct):
        return ctx.rotate_rows(ct * ct + 1, 1)

    with ThreadPoolExecutor(max_workers=3) as pool:
        results = list(pool.map(work, ciphertexts))
    serial = [work(ct) for ct in ciphertexts]
    for x, got, again in zip(inputs, results, serial):
        assert got.to_bytes() == again.to_bytes()
        rows = ((x.astype(object) ** 2 + 1) % t).reshape(2, -1)
        assert np.array_equal(setup.slots(got), np.roll(rows, -1, axis=1).reshape(-1))
