"""The Python layer's overhead on Mul+Relin: the same loop timed from Python (this package) and
from Rust (the `binding_overhead` benchmark binary), alternated, in one run.

Each measurement: `calls` Mul+Relin calls back to back, then one device synchronization, wall
clock; the median per call over `rounds` rounds after a warm-up round. The two sides alternate
`repeats` times; each side's figure is the median of its repeats.

    python crates/python/bench/overhead.py --rust target/release/binding_overhead \
        [--set bfv:13:cpu --set bgv:12:gpu] [--calls 50] [--rounds 15] [--repeats 3]

Prints one row per set: `scheme N device rust_us python_us overhead_percent`.
"""

import argparse
import statistics
import subprocess
import time

import hegpu


def python_median(scheme, log_degree, device, calls, rounds):
    params = hegpu.Parameters.preset(scheme, "secure", log_degree=log_degree)
    ctx = hegpu.Context(params, device=device)
    sk = ctx.secret_key()
    pk = ctx.public_key(sk)
    rk = ctx.relin_key(sk)
    a, b = ctx.encrypt([1, 2, 3], pk), ctx.encrypt([4, 5, 6], pk)
    per_call = []
    for round in range(rounds + 1):
        start = time.perf_counter()
        for _ in range(calls):
            ctx.mul_relin(a, b, rk)
        ctx.synchronize()
        if round > 0:
            per_call.append((time.perf_counter() - start) * 1e6 / calls)
    return statistics.median(per_call)


def rust_median(binary, scheme, log_degree, device, calls, rounds):
    out = subprocess.run(
        [binary, "--scheme", scheme, "--log-degree", str(log_degree), "--device", device,
         "--calls", str(calls), "--rounds", str(rounds)],
        check=True, capture_output=True, text=True,
    ).stdout.split()
    return float(out[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rust", required=True, help="path of the binding_overhead binary")
    parser.add_argument("--set", action="append", help="scheme:log_degree:device")
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    sets = args.set or ["bfv:13:cpu", "bgv:12:gpu"]
    print("scheme N device rust_us python_us overhead_percent")
    for spec in sets:
        scheme, log_degree, device = spec.split(":")
        log_degree = int(log_degree)
        rust, python = [], []
        for _ in range(args.repeats):
            rust.append(rust_median(args.rust, scheme, log_degree, device, args.calls, args.rounds))
            python.append(python_median(scheme, log_degree, device, args.calls, args.rounds))
        r, p = statistics.median(rust), statistics.median(python)
        print(f"{scheme} {1 << log_degree} {device} {r:.2f} {p:.2f} {100 * (p - r) / r:+.1f}")


if __name__ == "__main__":
    main()
