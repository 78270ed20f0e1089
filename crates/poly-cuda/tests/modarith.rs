//! Every helper of `kernels/include/modarith.cuh` against its `modarith::Modulus` namesake on
//! random inputs (kernel `modarith_test` in `kernels/modarith_test.cu`), for fixed primes and
//! random ones (proptest, `common::gpu_cases`). Skips, saying why,
//! without a CUDA device.
#![cfg(feature = "cuda")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::Arc;

use common::gpu_cases::{self, Regressions};
use modarith::Modulus;
use poly_cuda::GpuDevice;
use poly_cuda::cudarc::driver::{LaunchConfig, PushKernelArg};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const OUTPUTS: usize = 17;
const NAMES: [&str; OUTPUTS] = [
    "add",
    "sub",
    "neg",
    "reduce_u128",
    "reduce",
    "mul",
    "shoup",
    "mul_shoup_lazy",
    "mul_shoup",
    "add_lazy",
    "sub_lazy",
    "reduce_from_2p",
    "reduce_from_4p_to_2p",
    "reduce_from_4p",
    "mul_canonical",
    "mul_canonical (operands below 2^n)",
    "reduce_short (below 2^(n+63))",
];

/// `modarith::Modulus` as the kernels take it by value: `{p, floor(2^128/p) high, low}`.
#[repr(C)]
#[derive(Clone, Copy)]
struct DeviceModulus {
    p: u64,
    barrett_hi: u64,
    barrett_lo: u64,
}

// SAFETY: plain-old-data with the layout of `struct Modulus` in modarith.cuh.
unsafe impl poly_cuda::cudarc::driver::DeviceRepr for DeviceModulus {}

/// Runs kernel `modarith_test` on `COUNT` random inputs for `p` (extremes planted) and compares
/// every output with `modarith::Modulus`.
fn check_prime(device: &Arc<GpuDevice>, p: u64, rng: &mut StdRng) {
    let stream = device.stream();
    let kernel =
        device.kernel_set::<poly_cuda::kernel::ModarithTestKernels>().unwrap().modarith_test.function().clone();
    let Ok(m) = Modulus::new(p) else { panic!("{p} is not a prime") };
    let below = |rng: &mut StdRng, bound: u64| -> Vec<u64> {
        let mut v: Vec<u64> = (0..COUNT).map(|_| rng.gen_range(0..bound)).collect();
        // Extremes first.
        v[0] = 0;
        v[1] = bound - 1;
        v
    };
    let canon_a = below(rng, p);
    let canon_b = below(rng, p);
    let mut lazy_a = below(rng, 2 * p);
    let mut lazy_b = below(rng, 2 * p);
    // 2^n - 1 (n = bit length of p; below 2p): mul_canonical's largest operand.
    lazy_a[2] = u64::MAX >> p.leading_zeros();
    lazy_b[2] = u64::MAX >> p.leading_zeros();
    let lazy4 = below(rng, 4 * p);
    let mut raw_x: Vec<u64> = (0..COUNT).map(|_| rng.r#gen()).collect();
    let mut raw_y: Vec<u64> = (0..COUNT).map(|_| rng.r#gen()).collect();
    // Products of canonical values (the case mul is used for) and u64::MAX extremes.
    for i in 0..COUNT / 4 {
        raw_x[i] %= p;
        raw_y[i] %= p;
    }
    raw_x[COUNT - 1] = u64::MAX;
    raw_y[COUNT - 1] = u64::MAX;
    // reduce_short's largest input, 2^(n+63) - 1 (its high word is y mod 2^(n-1)).
    (raw_x[COUNT - 2], raw_y[COUNT - 2]) = (u64::MAX, u64::MAX);

    let upload = |v: &Vec<u64>| stream.clone_htod(v).unwrap();
    let (ca, cb, la, lb, l4, x, y) = (
        upload(&canon_a),
        upload(&canon_b),
        upload(&lazy_a),
        upload(&lazy_b),
        upload(&lazy4),
        upload(&raw_x),
        upload(&raw_y),
    );
    let mut out = stream.alloc_zeros::<u64>(COUNT * OUTPUTS).unwrap();
    let (hi, lo) = m.barrett_constant();
    let dm = DeviceModulus { p, barrett_hi: hi, barrett_lo: lo };
    let count = COUNT as i32;
    let mut launch = stream.launch_builder(&kernel);
    launch.arg(&ca).arg(&cb).arg(&la).arg(&lb).arg(&l4).arg(&x).arg(&y).arg(&dm).arg(&mut out).arg(&count);
    unsafe { launch.launch(LaunchConfig::for_num_elems(COUNT as u32)) }.unwrap();
    let got = stream.clone_dtoh(&out).unwrap();
    stream.synchronize().unwrap();

    for i in 0..COUNT {
        let (a, b, la, lb, l4, x, y) = (canon_a[i], canon_b[i], lazy_a[i], lazy_b[i], lazy4[i], raw_x[i], raw_y[i]);
        let ws = m.shoup(b);
        let wide = (y as u128) << 64 | x as u128;
        // mul_canonical's operands below 2^n (n = bit length of p), and its oracle: u128.
        let below_2n = u64::MAX >> p.leading_zeros();
        let (wa, wb) = (la & below_2n, lb & below_2n);
        let exact = |u: u64, v: u64| ((u as u128 * v as u128) % p as u128) as u64;
        let expected = [
            m.add(a, b),
            m.sub(a, b),
            m.neg(a),
            m.reduce_u128(wide),
            m.reduce(x),
            m.mul(x, y),
            ws,
            m.mul_shoup_lazy(x, b, ws),
            m.mul_shoup(x, b, ws),
            m.add_lazy(la, lb),
            m.sub_lazy(la, lb),
            m.reduce_from_2p(la),
            m.reduce_from_4p_to_2p(l4),
            m.reduce_from_4p(l4),
            exact(a, b),
            exact(wa, wb),
            ((((y & (below_2n >> 1)) as u128) << 64 | x as u128) % p as u128) as u64,
        ];
        // The reference itself against exact arithmetic, so that a shared mistake shows.
        assert_eq!(expected[3] as u128, wide % p as u128);
        assert_eq!(expected[6], ((b as u128) << 64).div_euclid(p as u128) as u64);
        for (f, name) in NAMES.iter().enumerate() {
            assert_eq!(
                got[i * OUTPUTS + f],
                expected[f],
                "{name} differs for p = {p}, input {i}: a={a} b={b} la={la} lb={lb} l4={l4} x={x} y={y}"
            );
        }
    }
}

const COUNT: usize = 1 << 14;

#[test]
fn device_helpers_match_modarith() {
    let Some(device) = common::device() else { return };
    let mut rng = common::rng("device_helpers_match_modarith", 0x3a1_0001);
    let primes = [
        3u64,
        65537,
        modarith::generate_ntt_primes(31, 1 << 11, 1, &[]).unwrap()[0],
        modarith::generate_ntt_primes(36, 1 << 13, 1, &[]).unwrap()[0],
        modarith::generate_ntt_primes(40, 1 << 17, 1, &[]).unwrap()[0],
        modarith::generate_ntt_primes(50, 1 << 18, 1, &[]).unwrap()[0],
        modarith::generate_ntt_primes(62, 1 << 18, 1, &[]).unwrap()[0],
        4_611_686_018_427_387_847, // the largest prime below 2^62
    ];
    for p in primes {
        check_prime(&device, p, &mut rng);
    }
}

/// Committed failing cases of this file's random tests (see `common::gpu_cases`).
const REGRESSIONS: Regressions = Regressions { text: include_str!("modarith.proptest-regressions"), source: file!() };

/// 16 random primes of 2 to 62 bits (the first prime at or above a random value of that size).
#[test]
fn device_helpers_match_modarith_for_random_primes() {
    let Some(device) = common::device() else { return };
    gpu_cases::check(16, REGRESSIONS, (2u32..=62, any::<u64>(), any::<u64>()), |(bits, start, seed)| {
        let low = 1u64 << (bits - 1);
        let mut p = low | (start & (low - 1)) | 1;
        while !modarith::is_prime(p) {
            // Past the top of this size, continue from its bottom (a prime exists in between).
            p = if p + 2 >= low << 1 { low | 1 } else { p + 2 };
        }
        check_prime(&device, p, &mut StdRng::seed_from_u64(seed));
    });
}
