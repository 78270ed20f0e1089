//! The GPU RNS operations (`rns::gpu`) against the CPU code of this crate, word for word:
//! fast, exact and Shenoy-Kumaresan conversions, every BEHZ and HPS step, ModUp (both
//! extensions, every digit, several digit sizes) and ModDown, over random parameter sets drawn
//! by proptest (`hegpu_test_support::gpu_cases`; N = 2^10 .. 2^16, 1 .. 32 primes of
//! 20 .. 62 bits, random plaintext moduli, digit sizes, transforms, extensions) and fixed edge
//! shapes (degrees that are not multiples of the kernels' tile, sources of up to 200 primes), random
//! inputs, inputs with extreme residues and inputs inside the fixed-point windows. Then the
//! polynomial methods against the CPU wrappers, bad inputs (lengths, digits, rings, streams:
//! errors, outputs untouched) and the table cache. Batched key switching (`kernels/keyswitch.cu`:
//! ModUp of all one-prime digits in one launch, the key inner product) against the CPU's
//! per-digit ModUp, transforms and products, on NTT, DGT and hierarchical DGT rings, in one
//! chunk and in several, and its bad inputs.
//!
//! Skips, saying why, when there is no CUDA driver or device.
#![cfg(feature = "cuda")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use hegpu_test_support::gpu_cases;

use std::sync::Arc;

use common::{big, primes, random_poly};
use gpu_cases::{Regressions, device};
use num_bigint::{BigInt, BigUint};
use num_integer::Integer;
use poly::{Coeff, Eval, Poly, RingContext, TransformKind};
use poly_cuda::cudarc::driver::CudaSlice;
use poly_cuda::{DevicePoly, DevicePolyBatch, GpuContext, GpuDevice, GpuError, GpuTuning};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rns::gpu::{GpuBaseConverter, GpuBehz, GpuDecryption, GpuHps, GpuKeySwitch, GpuRnsError, GpuShenoyKumaresan};
use rns::{BaseConverter, BehzContext, Extension, HpsContext, KeySwitchContext, RnsBase, RnsError, ShenoyKumaresan};

/// Committed failing cases of this file's random tests (see `gpu_cases`).
const REGRESSIONS: Regressions = Regressions { text: include_str!("gpu.proptest-regressions"), source: file!() };

fn upload(device: &GpuDevice, values: &[u64]) -> CudaSlice<u64> {
    device.stream().clone_htod(values).unwrap()
}

fn download(device: &GpuDevice, buffer: &CudaSlice<u64>) -> Vec<u64> {
    let values = device.stream().clone_dtoh(buffer).unwrap();
    device.synchronize().unwrap();
    values
}

/// A device buffer of `len` copies of a word no residue of these tests takes.
const SENTINEL: u64 = 0xdead_beef_dead_beef;
fn sentinel(device: &GpuDevice, len: usize) -> CudaSlice<u64> {
    upload(device, &vec![SENTINEL; len])
}

/// Panics at the first word where the device's output differs from the CPU's.
fn assert_same(label: &str, gpu: &[u64], cpu: &[u64], degree: usize) {
    assert_eq!(gpu.len(), cpu.len(), "{label}: lengths differ");
    if let Some(at) = gpu.iter().zip(cpu).position(|(g, c)| g != c) {
        let differing = gpu.iter().zip(cpu).filter(|(g, c)| g != c).count();
        panic!(
            "{label}: {differing} of {} words differ; first at limb {}, index {}: GPU {}, CPU {}",
            gpu.len(),
            at / degree,
            at % degree,
            gpu[at],
            cpu[at]
        );
    }
}

/// `count` distinct NTT primes for degree `degree` of `bits` bits (more when there are not
/// enough of that size), none in `exclude`.
fn primes_of(bits: u32, degree: usize, count: usize, exclude: &[u64]) -> Vec<u64> {
    let mut bits = bits;
    loop {
        match modarith::generate_ntt_primes(bits, 2 * degree as u64, count, exclude) {
            Ok(found) => return found,
            Err(_) if bits < 62 => bits = (bits + 6).min(62),
            Err(error) => panic!("no {count} primes for N = {degree}: {error}"),
        }
    }
}

/// As [`primes_of`], of a random size in 20..=62 bits.
fn random_primes(rng: &mut StdRng, degree: usize, count: usize, exclude: &[u64]) -> Vec<u64> {
    primes_of(rng.gen_range(20..=62u32), degree, count, exclude)
}

/// Prime sizes of the random cases.
fn prime_bits() -> impl Strategy<Value = u32> {
    20u32..=62
}

/// A random polynomial over `base` with extreme residues (0, 1, m - 1) planted.
fn edgy_poly(base: &RnsBase, degree: usize, rng: &mut StdRng) -> Vec<u64> {
    let mut data = random_poly(base, degree, rng);
    for (limb, m) in base.moduli().iter().enumerate() {
        for (slot, value) in [0, 1, m.value() - 1, m.value() - 1, 0].into_iter().enumerate() {
            data[limb * degree + (slot * 131 + limb * 7) % degree] = value;
        }
    }
    data
}

/// Places the integers `values` (below the base product) at the first coefficients of `data`.
fn plant(base: &RnsBase, degree: usize, data: &mut [u64], values: &[BigUint]) {
    plant_from(base, degree, data, 0, values);
}

/// Places the integers `values` (below the base product) at coefficients `first..` of `data`.
fn plant_from(base: &RnsBase, degree: usize, data: &mut [u64], first: usize, values: &[BigUint]) {
    for (index, value) in values.iter().enumerate().take(degree.saturating_sub(first)) {
        for (limb, residue) in base.residues(value).into_iter().enumerate() {
            data[limb * degree + first + index] = residue;
        }
    }
}

/// Integers `A/2 + d` for small `d` (inside the exact conversion's fixed-point window) and
/// `A/2 - 1 - d`, alternating: `x / A` within `count / A` of 1/2 on both sides, where an
/// estimate of the overflow in floating point cannot decide the rounding.
fn near_half(product: &BigUint, count: usize) -> Vec<BigUint> {
    let half = product / 2u32;
    (0..count as u64).map(|i| if i % 2 == 0 { &half + i / 2 } else { &half - 1u32 - i / 2 }).collect()
}

/// Integers `A/2 + e` and `A/2 - e`, alternating, for `e` from `A 2^-30 - 2` upwards: `x / A`
/// about 2^-30 from 1/2, the edge of the window in which the exact conversion's FP64 estimate
/// of its overflow hands over to fixed-point sums, on both sides of it and of 1/2.
fn near_the_estimate_window(product: &BigUint, count: usize) -> Vec<BigUint> {
    let half = product / 2u32;
    let edge = product >> 30u32;
    let first = if edge > BigUint::from(2u32) { edge - 2u32 } else { BigUint::from(0u32) };
    (0..count as u64)
        .map(|i| {
            let offset = (&first + i / 2).min(half.clone());
            if i % 2 == 0 { &half + offset } else { &half - offset }
        })
        .collect()
}

/// Degrees: powers of two 2^10..2^16, the smaller ones more often.
fn degree() -> impl Strategy<Value = usize> {
    prop_oneof![
        1 => Just(1usize << 16),
        2 => (13u32..=15).prop_map(|log_n| 1usize << log_n),
        5 => (10u32..=12).prop_map(|log_n| 1usize << log_n),
        2 => Just(1usize << 10),
    ]
}

/// Fast and exact conversion of an input with extremes and values near `A/2` planted.
fn check_conversion(
    device: &GpuDevice,
    degree: usize,
    (from_len, from_bits): (usize, u32),
    (to_len, to_bits): (usize, u32),
    rng: &mut StdRng,
) {
    let ntt_degree = degree.next_power_of_two().max(8);
    let from = RnsBase::new(&primes_of(from_bits, ntt_degree, from_len, &[])).unwrap();
    let to = RnsBase::new(&primes_of(to_bits, ntt_degree, to_len, &from.values())).unwrap();
    let converter = BaseConverter::new(&from, &to).unwrap();
    let gpu = GpuBaseConverter::new(device, &converter).unwrap();
    assert_eq!((gpu.from_len(), gpu.to_len()), (from_len, to_len));
    let mut input = edgy_poly(&from, degree, rng);
    plant(&from, degree, &mut input, &near_half(from.product(), 8.min(degree)));
    // The window's values in the second half, away from the warps of those near 1/2 (a warp
    // with one coefficient near 1/2 takes the fixed-point sums for all of its coefficients).
    if degree >= 16 {
        let window = near_the_estimate_window(from.product(), 8);
        let half = degree / 2;
        plant_from(&from, degree, &mut input, half, &window);
    }
    let label = format!("N = {degree}, {from_len} primes of {from_bits} bits -> {to_len} of {to_bits}");
    let device_input = upload(device, &input);
    let mut expected = vec![0u64; to_len * degree];
    let mut output = sentinel(device, to_len * degree);
    converter.fast_convert(&input, &mut expected).unwrap();
    gpu.fast_convert(&device_input, &mut output).unwrap();
    assert_same(&format!("{label}, fast"), &download(device, &output), &expected, degree);
    converter.exact_convert(&input, &mut expected).unwrap();
    gpu.exact_convert(&device_input, &mut output).unwrap();
    assert_same(&format!("{label}, exact"), &download(device, &output), &expected, degree);
}

/// 16 random cases: `(degree, |A|, |C|)` with 1..32 and 1..33 primes of random sizes.
#[test]
fn base_conversions_match_the_cpu() {
    let Some(device) = device() else { return };
    let strategy = (degree(), (1usize..=32, prime_bits()), (1usize..=33, prime_bits()), any::<u64>());
    gpu_cases::check(16, REGRESSIONS, strategy, |(degree, from, to, seed)| {
        check_conversion(&device, degree, from, to, &mut StdRng::seed_from_u64(seed));
    });
}

/// Sources that take the smaller tiles of the kernels (more than 62 and more than 126 primes)
/// and degrees that are not multiples of the tile.
#[test]
fn base_conversions_of_edge_shapes_match_the_cpu() {
    let Some(device) = device() else { return };
    let mut rng = StdRng::seed_from_u64(1);
    let shapes = [(1 << 10, 100, 40), (1 << 10, 200, 56), (100, 5, 7), (8, 3, 2), (1000, 70, 3), (1 << 16, 32, 33)];
    for (degree, from_len, to_len) in shapes {
        let (from_bits, to_bits) = (rng.gen_range(20..=62), rng.gen_range(20..=62));
        check_conversion(&device, degree, (from_len, from_bits), (to_len, to_bits), &mut rng);
    }
}

/// Both sides of the kernels' 128-bit bound (`k (max a - 1)(max c - 1) + (k + 1) 2^62 < 2^128`
/// selects 128-bit sums): 16 and 17 primes of 62 bits (128-bit, then 192-bit sums), 17 of 62
/// into 60 bits (192-bit), 64 of 61 bits (192-bit), 200 of 56 bits (128-bit).
#[test]
fn base_conversions_on_both_sides_of_the_128_bit_bound_match_the_cpu() {
    let Some(device) = device() else { return };
    let mut rng = StdRng::seed_from_u64(2);
    for (from, to) in
        [((16, 62), (17, 62)), ((17, 62), (17, 62)), ((17, 62), (9, 60)), ((64, 61), (5, 61)), ((200, 56), (3, 56))]
    {
        check_conversion(&device, 1 << 12, from, to, &mut rng);
    }
}

/// Both sides of the kernels' 40-bit bound (every modulus at most 2^40, at most 64 source limbs
/// and target moduli of at least 2^28 select products on the FP64 pipe): 40-bit primes into
/// 40-bit ones (8 into 16), the BGV presets' 36-bit ciphertext primes into 39-bit special primes
/// and back; then integer products: 200 40-bit limbs into 3, and 41 bits on either side.
#[test]
fn base_conversions_on_both_sides_of_the_40_bit_bound_match_the_cpu() {
    let Some(device) = device() else { return };
    let mut rng = StdRng::seed_from_u64(3);
    for (from, to) in [
        ((8, 40), (16, 40)),
        ((200, 40), (3, 40)),
        ((16, 36), (24, 39)),
        ((8, 39), (16, 36)),
        ((8, 41), (16, 40)),
        ((8, 40), (16, 41)),
    ] {
        check_conversion(&device, 1 << 12, from, to, &mut rng);
    }
}

/// The FP64 products on the tensor cores and on the FP64 pipe (the device's
/// `RnsTuning::tensor_core_products`), each against the CPU: every source count from 1 to 64
/// (the MMAs take 4 limbs at a time; the transposed tile's padding changes at multiples of 4
/// and 8), output counts that leave partial 8-limb fragments, tiles of 16 to 64 coefficients,
/// degrees that are not multiples of the tile, and 29- to 40-bit primes on either side.
#[test]
fn split_products_on_tensor_cores_and_fp64_pipe_match_the_cpu() {
    let Some(_) = device() else { return };
    let mut rng = StdRng::seed_from_u64(7);
    for tensor_cores in [true, false] {
        let mut tuning = GpuTuning::default();
        tuning.rns.tensor_core_products = tensor_cores;
        let device = GpuDevice::with_tuning(0, tuning).unwrap();
        eprintln!("tensor cores: {tensor_cores}");
        for from_len in 1..=64usize {
            let to_len = [1, 3, 8, 9, 17, 33, 48][from_len % 7];
            let degree = [1 << 12, 1000, 1 << 10, 4100][from_len % 4];
            let (from_bits, to_bits) = (rng.gen_range(29..=40), rng.gen_range(29..=40));
            check_conversion(&device, degree, (from_len, from_bits), (to_len, to_bits), &mut rng);
        }
        check_conversion(&device, 1 << 16, (16, 36), (32, 39), &mut rng);
        // ModUp of digits in one launch where one digit (65 sources, over the MMAs' 64) takes
        // integer products and the last (2 sources) could take the tensor cores: one kernel
        // for both.
        let degree = 1 << 12;
        let q = primes_of(36, degree, 67, &[]);
        let special = primes_of(38, degree, 3, &q);
        let device = Arc::new(device);
        let KeySwitchSetup { key_switch, gpu, q_p_ring, q_gpu, .. } =
            key_switch_setup(&device, degree, (&q, &special, 65), TransformKind::Ntt);
        let input = lift_edges(key_switch.q(), degree, &mut rng);
        let device_input = DevicePoly::<Coeff>::from_limbs(&q_gpu, &input).unwrap();
        let len = key_switch.num_digits() * q_p_ring.poly_len();
        let (mut expected, mut output) = (vec![0u64; len], sentinel(&device, len));
        key_switch.mod_up_all(&input, Extension::Exact, &mut expected).unwrap();
        gpu.mod_up_all(device_input.device_buffer(), Extension::Exact, &mut output).unwrap();
        assert_same("digits of 65 and 2 primes, ModUp all", &download(&device, &output), &expected, degree);
    }
}

/// 12 random cases: `|B|` 1..34 and `|C|` 1..32 primes of random sizes, degrees that are
/// powers of two or not (300).
#[test]
fn shenoy_kumaresan_matches_the_cpu() {
    let Some(device) = device() else { return };
    let degrees = prop_oneof![9 => degree(), 1 => Just(300usize)];
    let strategy = (degrees, (1usize..=34, prime_bits()), (1usize..=32, prime_bits()), any::<u64>());
    gpu_cases::check(12, REGRESSIONS, strategy, |(degree, (b_len, b_bits), (c_len, c_bits), seed)| {
        let mut rng = StdRng::seed_from_u64(seed);
        let ntt_degree = degree.next_power_of_two();
        let b = RnsBase::new(&primes_of(b_bits, ntt_degree, b_len, &[])).unwrap();
        let c = RnsBase::new(&primes_of(c_bits, ntt_degree, c_len, &b.values())).unwrap();
        let mut taken = b.values();
        taken.extend(c.values());
        let m_sk = modarith::Modulus::new(primes(62, ntt_degree, 1, &taken)[0]).unwrap();
        let conversion = ShenoyKumaresan::new(&b, m_sk, &c).unwrap();
        let gpu = GpuShenoyKumaresan::new(&device, &conversion).unwrap();
        // Uniform residues over B u {m_sk}: most are outside the exact range, where the CPU's
        // words are still a deterministic function the device must reproduce.
        let b_sk = b.union(&RnsBase::new(&[m_sk.value()]).unwrap()).unwrap();
        let input = edgy_poly(&b_sk, degree, &mut rng);
        let mut expected = vec![0u64; c_len * degree];
        conversion.convert(&input, &mut expected).unwrap();
        let mut output = sentinel(&device, c_len * degree);
        gpu.convert(&upload(&device, &input), &mut output).unwrap();
        let label = format!("N = {degree}, |B| = {b_len}, |C| = {c_len}");
        assert_same(&label, &download(&device, &output), &expected, degree);
    });
}

/// A random plaintext modulus: small, a power of two, word-sized, or a batching-sized prime.
fn plain_modulus() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(2u64),
        (1u32..=30).prop_map(|bits| 1u64 << bits),
        (2u32..=40).prop_flat_map(|bits| 2u64..1 << bits),
        Just(65537u64),
        (3u64..1 << 20).prop_map(|t| t | 1),
    ]
}

/// `t`, or the next value coprime to every prime of `q`.
fn coprime_to(q: &[u64], mut t: u64) -> u64 {
    while !q.iter().all(|&p| p.gcd(&t) == 1) {
        t += 1;
    }
    t
}

/// A random BEHZ/HPS case: degree, `q` (1..24 primes, 1..32 at 2^16, of one random size), `t`,
/// data seed.
fn scaling_case() -> impl Strategy<Value = (usize, usize, u32, u64, u64)> {
    degree().prop_flat_map(|degree| {
        let max_primes = if degree == 1 << 16 { 32usize } else { 24 };
        (Just(degree), 1..=max_primes, prime_bits(), plain_modulus(), any::<u64>())
    })
}

/// 12 random cases (`scaling_case`): every step of BEHZ.
#[test]
fn behz_steps_match_the_cpu() {
    let Some(device) = device() else { return };
    gpu_cases::check(12, REGRESSIONS, scaling_case(), |(degree, count, bits, t, seed)| {
        let mut rng = StdRng::seed_from_u64(seed);
        let q = primes_of(bits, degree, count, &[]);
        let t = coprime_to(&q, t);
        let behz = BehzContext::with_generated_moduli(degree, &q, t).unwrap();
        let gpu = GpuBehz::new(&device, &behz).unwrap();
        let (q_base, bsk) = (behz.q(), behz.bsk());
        let (k, l) = (q_base.len(), bsk.len());
        let label = format!("N = {degree}, {k} primes of {bits} bits, t = {t}, |B_sk| = {l}");
        let input = edgy_poly(q_base, degree, &mut rng);
        let device_input = upload(&device, &input);

        let mut expected = vec![0u64; degree];
        let mut output = sentinel(&device, degree);
        behz.decrypt_scale_round(&input, &mut expected).unwrap();
        gpu.decrypt_scale_round(&device_input, &mut output).unwrap();
        assert_same(&format!("{label}, decryption"), &download(&device, &output), &expected, degree);

        let mut s0 = vec![0u64; (l + 1) * degree];
        let mut output = sentinel(&device, (l + 1) * degree);
        behz.fast_convert_to_bsk_mtilde(&input, &mut s0).unwrap();
        gpu.fast_convert_to_bsk_mtilde(&device_input, &mut output).unwrap();
        assert_same(&format!("{label}, S0"), &download(&device, &output), &s0, degree);

        let mut s1 = vec![0u64; l * degree];
        let mut output = sentinel(&device, l * degree);
        behz.small_montgomery_reduce(&s0, &mut s1).unwrap();
        gpu.small_montgomery_reduce(&upload(&device, &s0), &mut output).unwrap();
        assert_same(&format!("{label}, S1"), &download(&device, &output), &s1, degree);

        let mut extended = vec![0u64; l * degree];
        let mut output = sentinel(&device, l * degree);
        behz.extend_to_bsk(&input, &mut extended).unwrap();
        gpu.extend_to_bsk(&device_input, &mut output).unwrap();
        assert_same(&format!("{label}, S0 + S1"), &download(&device, &output), &extended, degree);
        assert_eq!(extended, s1, "{label}: fused and separate S0, S1 differ on the CPU");

        // The floor of a random element of q u B_sk (any residues), then S4 of its result
        // and of random residues.
        let q_bsk = behz.q_bsk().unwrap();
        let tensor = edgy_poly(&q_bsk, degree, &mut rng);
        let mut floored = vec![0u64; l * degree];
        let mut output = sentinel(&device, l * degree);
        behz.fast_floor(&tensor, &mut floored).unwrap();
        gpu.fast_floor(&upload(&device, &tensor), &mut output).unwrap();
        assert_same(&format!("{label}, floor"), &download(&device, &output), &floored, degree);

        for (what, source) in
            [("S4 of the floor", floored), ("S4 of random residues", edgy_poly(bsk, degree, &mut rng))]
        {
            let mut expected = vec![0u64; k * degree];
            let mut output = sentinel(&device, k * degree);
            behz.bsk_to_q(&source, &mut expected).unwrap();
            gpu.bsk_to_q(&upload(&device, &source), &mut output).unwrap();
            assert_same(&format!("{label}, {what}"), &download(&device, &output), &expected, degree);
        }
    });
}

/// Integers `x` with `t x mod q = (q + 1)/2 + d`: just above one half after scaling, inside
/// the fixed-point window of HPS rounding when `q > 2^65 / k`.
fn near_half_scaled(q: &RnsBase, t: u64, count: usize) -> Vec<BigUint> {
    let q_big = big(q.product());
    let t_inv = BigInt::from(t).modinv(&q_big).unwrap();
    (0..count as u64)
        .map(|d| {
            let target: BigInt = (&q_big + 1) / 2 + d;
            (target * &t_inv).mod_floor(&q_big).to_biguint().unwrap()
        })
        .collect()
}

/// 12 random cases (`scaling_case`): every step of HPS.
#[test]
fn hps_steps_match_the_cpu() {
    let Some(device) = device() else { return };
    gpu_cases::check(12, REGRESSIONS, scaling_case(), |(degree, count, bits, t, seed)| {
        let mut rng = StdRng::seed_from_u64(seed);
        let q = primes_of(bits, degree, count, &[]);
        let t = coprime_to(&q, t);
        let hps = HpsContext::with_generated_moduli(degree, &q, t).unwrap();
        let gpu = GpuHps::new(&device, &hps).unwrap();
        let (q_base, p_base) = (hps.q(), hps.p());
        let (k, l) = (q_base.len(), p_base.len());
        let label = format!("N = {degree}, {k} primes of {bits} bits, t = {t}, |P| = {l}");

        let mut input = edgy_poly(q_base, degree, &mut rng);
        plant(q_base, degree, &mut input, &near_half_scaled(q_base, t, 16));
        let device_input = upload(&device, &input);
        let mut expected = vec![0u64; degree];
        let mut output = sentinel(&device, degree);
        hps.decrypt_scale_round(&input, &mut expected).unwrap();
        gpu.decrypt_scale_round(&device_input, &mut output).unwrap();
        assert_same(&format!("{label}, decryption"), &download(&device, &output), &expected, degree);

        let mut input = edgy_poly(q_base, degree, &mut rng);
        plant(q_base, degree, &mut input, &near_half(q_base.product(), 16));
        let mut expected = vec![0u64; l * degree];
        let mut output = sentinel(&device, l * degree);
        hps.extend_q_to_p(&input, &mut expected).unwrap();
        gpu.extend_q_to_p(&upload(&device, &input), &mut output).unwrap();
        assert_same(&format!("{label}, q -> P"), &download(&device, &output), &expected, degree);

        let mut input = edgy_poly(p_base, degree, &mut rng);
        plant(p_base, degree, &mut input, &near_half(p_base.product(), 16));
        let mut expected = vec![0u64; k * degree];
        let mut output = sentinel(&device, k * degree);
        hps.extend_p_to_q(&input, &mut expected).unwrap();
        gpu.extend_p_to_q(&upload(&device, &input), &mut output).unwrap();
        assert_same(&format!("{label}, P -> q"), &download(&device, &output), &expected, degree);

        let q_p = hps.q_p().unwrap();
        let mut input = edgy_poly(&q_p, degree, &mut rng);
        plant(&q_p, degree, &mut input, &near_half_scaled(&q_p, t, 16));
        let mut expected = vec![0u64; l * degree];
        let mut output = sentinel(&device, l * degree);
        hps.scale_round_to_p(&input, &mut expected).unwrap();
        gpu.scale_round_to_p(&upload(&device, &input), &mut output).unwrap();
        assert_same(&format!("{label}, scale into P"), &download(&device, &output), &expected, degree);
    });
}

/// How a random key-switching case sizes its digits.
#[derive(Debug, Clone, Copy)]
enum Digits {
    /// One prime per digit (SEAL's method).
    OnePrime,
    /// A random digit size (the raw draw, reduced modulo the number of primes).
    Random(usize),
    /// Digits of as many primes as there are special primes (hybrid key switching).
    OfSpecialSize,
}

fn digits() -> impl Strategy<Value = Digits> {
    prop_oneof![Just(Digits::OnePrime), any::<usize>().prop_map(Digits::Random), Just(Digits::OfSpecialSize)]
}

impl Digits {
    fn size(self, primes: usize, special: usize) -> usize {
        match self {
            Digits::OnePrime => 1,
            Digits::Random(raw) => 1 + raw % primes,
            Digits::OfSpecialSize => special.min(primes),
        }
    }
}

/// 10 random cases: 1..32 primes, 1..8 special primes, random sizes and digits; ModUp of every
/// digit (both extensions), of all digits at once, and ModDown.
#[test]
fn key_switching_matches_the_cpu() {
    let Some(device) = device() else { return };
    let strategy = (degree(), (1usize..=32, prime_bits()), (1usize..=8, prime_bits()), digits(), any::<u64>());
    gpu_cases::check(
        10,
        REGRESSIONS,
        strategy,
        |(degree, (k, q_bits), (special_count, special_bits), digits, seed)| {
            let mut rng = StdRng::seed_from_u64(seed);
            let q = primes_of(q_bits, degree, k, &[]);
            let special = primes_of(special_bits, degree, special_count, &q);
            let digit_size = digits.size(k, special.len());
            let key_switch = KeySwitchContext::new(degree, &q, &special, digit_size).unwrap();
            let gpu = GpuKeySwitch::new(&device, &key_switch).unwrap();
            assert_eq!(gpu.num_digits(), key_switch.num_digits());
            let q_base = key_switch.q();
            let q_p = key_switch.q_p().unwrap();
            let l = special.len();
            let label = format!("N = {degree}, {k} primes, {l} special, digits of {digit_size}");

            let mut input = edgy_poly(q_base, degree, &mut rng);
            let digit_product: BigUint =
                q[key_switch.digit_range(0).unwrap()].iter().map(|&p| BigUint::from(p)).product();
            let first_digit = RnsBase::new(&q[key_switch.digit_range(0).unwrap()]).unwrap();
            // Digit 0 next to Q_0 / 2 (the exact extension's window), as integers below q.
            let near: Vec<BigUint> = near_half(&digit_product, 8);
            let mut digit_input = vec![0u64; first_digit.len() * degree];
            plant(&first_digit, degree, &mut digit_input, &near);
            for index in 0..near.len().min(degree) {
                for limb in 0..first_digit.len() {
                    input[limb * degree + index] = digit_input[limb * degree + index];
                }
            }
            let device_input = upload(&device, &input);
            for extension in [Extension::Fast, Extension::Exact] {
                for digit in 0..key_switch.num_digits() {
                    let mut expected = vec![0u64; q_p.len() * degree];
                    let mut output = sentinel(&device, q_p.len() * degree);
                    key_switch.mod_up(&input, digit, extension, &mut expected).unwrap();
                    gpu.mod_up(&device_input, digit, extension, &mut output).unwrap();
                    let what = format!("{label}, ModUp {extension:?} digit {digit}");
                    assert_same(&what, &download(&device, &output), &expected, degree);
                }
                let all = key_switch.num_digits() * q_p.len() * degree;
                let mut expected = vec![0u64; all];
                let mut output = sentinel(&device, all);
                key_switch.mod_up_all(&input, extension, &mut expected).unwrap();
                gpu.mod_up_all(&device_input, extension, &mut output).unwrap();
                assert_same(
                    &format!("{label}, ModUp {extension:?} all"),
                    &download(&device, &output),
                    &expected,
                    degree,
                );
            }

            let mut input = edgy_poly(&q_p, degree, &mut rng);
            // P limbs next to P / 2 (the exact conversion's window).
            let p_base = key_switch.p();
            let mut p_part = input[k * degree..].to_vec();
            plant(p_base, degree, &mut p_part, &near_half(p_base.product(), 8));
            input[k * degree..].copy_from_slice(&p_part);
            let mut expected = vec![0u64; k * degree];
            let mut output = sentinel(&device, k * degree);
            key_switch.mod_down(&input, &mut expected).unwrap();
            gpu.mod_down(&upload(&device, &input), &mut output).unwrap();
            assert_same(&format!("{label}, ModDown"), &download(&device, &output), &expected, degree);
        },
    );
}

/// A polynomial of `ring` with uniform residues.
fn random_ring_poly(ring: &Arc<RingContext>, rng: &mut StdRng) -> Poly<Coeff> {
    let base = RnsBase::new(&ring.moduli().iter().map(|m| m.value()).collect::<Vec<_>>()).unwrap();
    Poly::from_limbs(ring, random_poly(&base, ring.degree(), rng)).unwrap()
}

fn ring_over(base: &RnsBase, degree: usize) -> Arc<RingContext> {
    RingContext::new(degree, &base.values(), TransformKind::Ntt).unwrap()
}

/// `extend_batch` and `scale_down_batch` (given as closures over one variant's GPU context) on
/// batches of 1 to 4 random polynomials: every member equals the CPU's step of it.
#[allow(clippy::type_complexity)]
fn check_batches(
    label: &str,
    rng: &mut StdRng,
    (q_ring, q_gpu, wide_ring): (&Arc<RingContext>, &GpuContext, &Arc<RingContext>),
    extend_batch: impl Fn(&[&DevicePoly<Coeff>]) -> Vec<Poly<Coeff>>,
    scale_down_batch: impl Fn(&[Poly<Coeff>]) -> Vec<Poly<Coeff>>,
    cpu_extend: impl Fn(&Poly<Coeff>) -> Poly<Coeff>,
    cpu_scale_down: impl Fn(&Poly<Coeff>) -> Poly<Coeff>,
) {
    let hosts: Vec<Poly<Coeff>> = (0..4).map(|_| random_ring_poly(q_ring, rng)).collect();
    let inputs: Vec<DevicePoly<Coeff>> = hosts.iter().map(|h| DevicePoly::upload(q_gpu, h).unwrap()).collect();
    let tensors: Vec<Poly<Coeff>> = (0..4).map(|_| random_ring_poly(wide_ring, rng)).collect();
    for count in 1..=4 {
        let refs: Vec<&DevicePoly<Coeff>> = inputs[..count].iter().collect();
        let extended = extend_batch(&refs);
        let scaled = scale_down_batch(&tensors[..count]);
        assert_eq!((extended.len(), scaled.len()), (count, count), "{label}: batch of {count}");
        for z in 0..count {
            assert_eq!(extended[z], cpu_extend(&hosts[z]), "{label}: extend, member {z} of {count}");
            assert_eq!(scaled[z], cpu_scale_down(&tensors[z]), "{label}: scale down, member {z} of {count}");
        }
    }
}

#[test]
fn polynomial_methods_match_the_cpu_wrappers() {
    let Some(device) = device() else { return };
    let mut rng = StdRng::seed_from_u64(6);
    for (degree, k) in [(1 << 10, 1), (1 << 12, 3), (1 << 13, 4), (1 << 14, 8), (1 << 15, 16)] {
        let q = random_primes(&mut rng, degree, k, &[]);
        let t = 65537;
        let label = format!("N = {degree}, {k} primes");
        let q_ring = ring_over(&RnsBase::new(&q).unwrap(), degree);
        let q_gpu = GpuContext::new(&device, &q_ring).unwrap();
        let host = random_ring_poly(&q_ring, &mut rng);
        let input = DevicePoly::upload(&q_gpu, &host).unwrap();

        let behz = BehzContext::with_generated_moduli(degree, &q, t).unwrap();
        let gpu = GpuBehz::new(&device, &behz).unwrap();
        let q_bsk_ring = ring_over(&behz.q_bsk().unwrap(), degree);
        let q_bsk_gpu = GpuContext::new(&device, &q_bsk_ring).unwrap();
        let extended = gpu.extend_poly(&input, &q_bsk_gpu).unwrap();
        let expected = behz.extend_poly(&host, &q_bsk_ring).unwrap();
        assert_same(&format!("{label}, BEHZ extend"), &extended.to_vec().unwrap(), expected.as_slice(), degree);
        let tensor = random_ring_poly(&q_bsk_ring, &mut rng);
        let scaled = gpu.scale_down_poly(&DevicePoly::upload(&q_bsk_gpu, &tensor).unwrap(), &q_gpu).unwrap();
        let expected = behz.scale_down_poly(&tensor, &q_ring).unwrap();
        assert_same(&format!("{label}, BEHZ scale down"), &scaled.to_vec().unwrap(), expected.as_slice(), degree);
        let decrypted = gpu.decrypt_poly(&input).unwrap();
        assert_eq!(decrypted, behz.decrypt_poly(&host).unwrap(), "{label}: BEHZ decryption");
        // Batches of 1 to 4 in one launch per step: each member as the CPU's step of it.
        check_batches(
            &format!("{label}, BEHZ"),
            &mut rng,
            (&q_ring, &q_gpu, &q_bsk_ring),
            |inputs| gpu.extend_batch(inputs, &q_bsk_gpu).unwrap().download().unwrap(),
            |batch| {
                let uploaded = DevicePolyBatch::upload(&q_bsk_gpu, batch).unwrap();
                gpu.scale_down_batch(&uploaded, &q_gpu).unwrap().iter().map(|p| p.download().unwrap()).collect()
            },
            |host| behz.extend_poly(host, &q_bsk_ring).unwrap(),
            |tensor| behz.scale_down_poly(tensor, &q_ring).unwrap(),
        );

        let hps = HpsContext::with_generated_moduli(degree, &q, t).unwrap();
        let gpu = GpuHps::new(&device, &hps).unwrap();
        let q_p_ring = ring_over(&hps.q_p().unwrap(), degree);
        let q_p_gpu = GpuContext::new(&device, &q_p_ring).unwrap();
        let extended = gpu.extend_poly(&input, &q_p_gpu).unwrap();
        let expected = hps.extend_poly(&host, &q_p_ring).unwrap();
        assert_same(&format!("{label}, HPS extend"), &extended.to_vec().unwrap(), expected.as_slice(), degree);
        let tensor = random_ring_poly(&q_p_ring, &mut rng);
        let scaled = gpu.scale_down_poly(&DevicePoly::upload(&q_p_gpu, &tensor).unwrap(), &q_gpu).unwrap();
        let expected = hps.scale_down_poly(&tensor, &q_ring).unwrap();
        assert_same(&format!("{label}, HPS scale down"), &scaled.to_vec().unwrap(), expected.as_slice(), degree);
        let decrypted = gpu.decrypt_poly(&input).unwrap();
        assert_eq!(decrypted, hps.decrypt_poly(&host).unwrap(), "{label}: HPS decryption");
        // Batches of 1 to 4 in one launch per step: each member as the CPU's step of it.
        check_batches(
            &format!("{label}, HPS"),
            &mut rng,
            (&q_ring, &q_gpu, &q_p_ring),
            |inputs| gpu.extend_batch(inputs, &q_p_gpu).unwrap().download().unwrap(),
            |batch| {
                let uploaded = DevicePolyBatch::upload(&q_p_gpu, batch).unwrap();
                gpu.scale_down_batch(&uploaded, &q_gpu).unwrap().iter().map(|p| p.download().unwrap()).collect()
            },
            |host| hps.extend_poly(host, &q_p_ring).unwrap(),
            |tensor| hps.scale_down_poly(tensor, &q_ring).unwrap(),
        );
        let inputs: Vec<DevicePoly<Coeff>> =
            (0..4).map(|_| DevicePoly::upload(&q_gpu, &random_ring_poly(&q_ring, &mut rng)).unwrap()).collect();
        let none: [&DevicePoly<Coeff>; 0] = [];
        assert!(gpu.extend_batch(&none, &q_p_gpu).is_err(), "{label}: empty batch");
        let five: Vec<&DevicePoly<Coeff>> = inputs.iter().chain(inputs.iter().take(1)).collect();
        assert!(gpu.extend_batch(&five, &q_p_gpu).is_err(), "{label}: batch of 5");

        let special = random_primes(&mut rng, degree, (k / 2).max(1), &q);
        let key_switch = KeySwitchContext::new(degree, &q, &special, special.len().min(k)).unwrap();
        let gpu = GpuKeySwitch::new(&device, &key_switch).unwrap();
        let ks_ring = ring_over(&key_switch.q_p().unwrap(), degree);
        let ks_gpu = GpuContext::new(&device, &ks_ring).unwrap();
        for digit in 0..key_switch.num_digits() {
            let up = gpu.mod_up_poly(&input, digit, Extension::Exact, &ks_gpu).unwrap();
            let expected = key_switch.mod_up_poly(&host, digit, Extension::Exact, &ks_ring).unwrap();
            assert_same(&format!("{label}, ModUp digit {digit}"), &up.to_vec().unwrap(), expected.as_slice(), degree);
        }
        let wide = random_ring_poly(&ks_ring, &mut rng);
        let down = gpu.mod_down_poly(&DevicePoly::upload(&ks_gpu, &wide).unwrap(), &q_gpu).unwrap();
        let expected = key_switch.mod_down_poly(&wide, &q_ring).unwrap();
        assert_same(&format!("{label}, ModDown"), &down.to_vec().unwrap(), expected.as_slice(), degree);
    }
}

/// A slice operation under test: input buffer, output buffer.
type SliceOperation<'a> = &'a dyn Fn(&CudaSlice<u64>, &mut CudaSlice<u64>) -> Result<(), GpuRnsError>;

fn is_length_error(error: &GpuRnsError) -> bool {
    matches!(error, GpuRnsError::Rns(RnsError::LengthMismatch { .. } | RnsError::LengthNotMultiple { .. }))
}

#[test]
fn bad_inputs_are_rejected_and_leave_outputs_untouched() {
    let Some(device) = device() else { return };
    let mut rng = StdRng::seed_from_u64(7);
    let degree = 1 << 10;
    let q = random_primes(&mut rng, degree, 3, &[]);
    let behz = BehzContext::with_generated_moduli(degree, &q, 256).unwrap();
    let hps = HpsContext::with_generated_moduli(degree, &q, 256).unwrap();
    let special = random_primes(&mut rng, degree, 2, &q);
    let key_switch = KeySwitchContext::new(degree, &q, &special, 2).unwrap();
    let (gpu_behz, gpu_hps) = (GpuBehz::new(&device, &behz).unwrap(), GpuHps::new(&device, &hps).unwrap());
    let gpu_ks = GpuKeySwitch::new(&device, &key_switch).unwrap();
    let (k, bsk, p) = (q.len(), behz.bsk().len(), hps.p().len());
    let good_input = upload(&device, &random_poly(behz.q(), degree, &mut rng));
    let short_input = upload(&device, &vec![1u64; k * degree - 1]);

    // (operation, output length): each called with a short input, then a wrong output length.
    let untouched = |output: &CudaSlice<u64>| download(&device, output).iter().all(|&w| w == SENTINEL);
    let check = |label: &str, output_len: usize, run: SliceOperation<'_>| {
        for (input, len) in [(&short_input, output_len), (&good_input, output_len + 1), (&good_input, output_len - 1)] {
            let mut output = sentinel(&device, len);
            let error = run(input, &mut output).expect_err(label);
            assert!(is_length_error(&error), "{label}: {error}");
            assert!(untouched(&output), "{label}: output written on error");
        }
    };
    check("BEHZ decryption", degree, &|i, o| gpu_behz.decrypt_scale_round(i, o));
    check("BEHZ extension", bsk * degree, &|i, o| gpu_behz.extend_to_bsk(i, o));
    check("BEHZ S0", (bsk + 1) * degree, &|i, o| gpu_behz.fast_convert_to_bsk_mtilde(i, o));
    check("HPS decryption", degree, &|i, o| gpu_hps.decrypt_scale_round(i, o));
    check("HPS q -> P", p * degree, &|i, o| gpu_hps.extend_q_to_p(i, o));
    check("ModUp", (k + 2) * degree, &|i, o| gpu_ks.mod_up(i, 0, Extension::Exact, o));
    check("ModUp all", 2 * (k + 2) * degree, &|i, o| gpu_ks.mod_up_all(i, Extension::Fast, o));

    // Wrong input lengths of the steps that take wider inputs.
    let mut output = sentinel(&device, bsk * degree);
    assert!(is_length_error(&gpu_behz.fast_floor(&short_input, &mut output).unwrap_err()));
    assert!(is_length_error(&gpu_behz.small_montgomery_reduce(&short_input, &mut output).unwrap_err()));
    assert!(untouched(&output));
    let mut output = sentinel(&device, k * degree);
    assert!(is_length_error(&gpu_behz.bsk_to_q(&short_input, &mut output).unwrap_err()));
    assert!(is_length_error(&gpu_ks.mod_down(&short_input, &mut output).unwrap_err()));
    assert!(is_length_error(&gpu_hps.extend_p_to_q(&short_input, &mut output).unwrap_err()));
    assert!(untouched(&output));
    let mut output = sentinel(&device, p * degree);
    assert!(is_length_error(&gpu_hps.scale_round_to_p(&short_input, &mut output).unwrap_err()));
    assert!(untouched(&output));

    // A digit that does not exist.
    let mut output = sentinel(&device, (k + 2) * degree);
    let error = gpu_ks.mod_up(&good_input, 2, Extension::Exact, &mut output).unwrap_err();
    assert_eq!(error, GpuRnsError::Rns(RnsError::DigitOutOfRange { digit: 2, count: 2 }));
    assert!(untouched(&output));

    // Converters: a length that is not a multiple of the source's limbs.
    let converter = BaseConverter::new(behz.q(), behz.b()).unwrap();
    let gpu_converter = GpuBaseConverter::new(&device, &converter).unwrap();
    let mut output = sentinel(&device, behz.b().len() * degree);
    assert!(is_length_error(&gpu_converter.fast_convert(&short_input, &mut output).unwrap_err()));
    assert!(untouched(&output));

    // A buffer on another stream of the same context.
    let other_stream = device.cuda_context().new_stream().unwrap();
    let mut foreign = other_stream.clone_htod(&vec![SENTINEL; degree]).unwrap();
    other_stream.synchronize().unwrap();
    let error = gpu_hps.decrypt_scale_round(&good_input, &mut foreign).unwrap_err();
    assert_eq!(error, GpuRnsError::Gpu(GpuError::WrongContext));
    let foreign_values = other_stream.clone_dtoh(&foreign).unwrap();
    other_stream.synchronize().unwrap();
    assert!(foreign_values.iter().all(|&w| w == SENTINEL));

    // Polynomials over the wrong rings.
    let q_ring = ring_over(behz.q(), degree);
    let q_gpu = GpuContext::new(&device, &q_ring).unwrap();
    let poly = DevicePoly::upload(&q_gpu, &random_ring_poly(&q_ring, &mut rng)).unwrap();
    let mismatch = |error: GpuRnsError| matches!(error, GpuRnsError::Rns(RnsError::ContextMismatch { .. }));
    assert!(mismatch(gpu_behz.extend_poly(&poly, &q_gpu).unwrap_err()), "target ring is q, not q u B_sk");
    assert!(mismatch(gpu_behz.scale_down_poly(&poly, &q_gpu).unwrap_err()), "input ring is q, not q u B_sk");
    assert!(mismatch(gpu_hps.scale_down_poly(&poly, &q_gpu).unwrap_err()));
    assert!(mismatch(gpu_ks.mod_down_poly(&poly, &q_gpu).unwrap_err()));
    let q_p_ring = ring_over(&hps.q_p().unwrap(), degree);
    let q_p_gpu = GpuContext::new(&device, &q_p_ring).unwrap();
    assert!(mismatch(
        gpu_hps
            .decrypt_poly(&DevicePoly::upload(&q_p_gpu, &random_ring_poly(&q_p_ring, &mut rng)).unwrap())
            .unwrap_err()
    ));
    let other_degree = ring_over(&RnsBase::new(&primes(50, 2 * degree, 3, &[])).unwrap(), 2 * degree);
    let other_gpu = GpuContext::new(&device, &other_degree).unwrap();
    let other_poly = DevicePoly::upload(&other_gpu, &random_ring_poly(&other_degree, &mut rng)).unwrap();
    assert!(mismatch(gpu_hps.decrypt_poly(&other_poly).unwrap_err()), "degree 2N");
    let ks_ring = ring_over(&key_switch.q_p().unwrap(), degree);
    let ks_gpu = GpuContext::new(&device, &ks_ring).unwrap();
    let error = gpu_ks.mod_up_poly(&poly, 5, Extension::Exact, &ks_gpu).unwrap_err();
    assert_eq!(error, GpuRnsError::Rns(RnsError::DigitOutOfRange { digit: 5, count: 2 }));
}

/// Every kernel once on small shapes (partial tiles, one limb, many limbs): the run for
/// `compute-sanitizer --tool memcheck`.
#[test]
fn sanitizer_small_shapes() {
    let Some(device) = device() else { return };
    let mut rng = StdRng::seed_from_u64(9);
    for (degree, k) in [(8usize, 1usize), (32, 2), (1 << 10, 5)] {
        let ntt_degree = degree.next_power_of_two();
        let q = random_primes(&mut rng, ntt_degree, k, &[]);
        let t = 3;
        let behz = BehzContext::with_generated_moduli(degree, &q, t).unwrap();
        let hps = HpsContext::with_generated_moduli(degree, &q, t).unwrap();
        let special = random_primes(&mut rng, ntt_degree, 2, &q);
        let key_switch = KeySwitchContext::new(degree, &q, &special, 1).unwrap();
        let (gb, gh, gk) = (
            GpuBehz::new(&device, &behz).unwrap(),
            GpuHps::new(&device, &hps).unwrap(),
            GpuKeySwitch::new(&device, &key_switch).unwrap(),
        );
        let input = random_poly(behz.q(), degree, &mut rng);
        let device_input = upload(&device, &input);
        let (bsk, p, q_p) = (behz.bsk().len(), hps.p().len(), k + special.len());
        let mut out = sentinel(&device, degree);
        gb.decrypt_scale_round(&device_input, &mut out).unwrap();
        gh.decrypt_scale_round(&device_input, &mut out).unwrap();
        let mut out = sentinel(&device, (bsk + 1) * degree);
        gb.fast_convert_to_bsk_mtilde(&device_input, &mut out).unwrap();
        let mut s1 = sentinel(&device, bsk * degree);
        gb.small_montgomery_reduce(&out, &mut s1).unwrap();
        gb.extend_to_bsk(&device_input, &mut s1).unwrap();
        let wide = upload(&device, &random_poly(&behz.q_bsk().unwrap(), degree, &mut rng));
        gb.fast_floor(&wide, &mut s1).unwrap();
        let mut back = sentinel(&device, k * degree);
        gb.bsk_to_q(&s1, &mut back).unwrap();
        let mut in_p = sentinel(&device, p * degree);
        gh.extend_q_to_p(&device_input, &mut in_p).unwrap();
        gh.extend_p_to_q(&in_p, &mut back).unwrap();
        let wide = upload(&device, &random_poly(&hps.q_p().unwrap(), degree, &mut rng));
        gh.scale_round_to_p(&wide, &mut in_p).unwrap();
        let mut up = sentinel(&device, q_p * degree);
        gk.mod_up(&device_input, k - 1, Extension::Fast, &mut up).unwrap();
        gk.mod_up(&device_input, 0, Extension::Exact, &mut up).unwrap();
        gk.mod_down(&up, &mut back).unwrap();
        assert!(download(&device, &back).iter().all(|&w| w != SENTINEL));
        let mut all = sentinel(&device, k * q_p * degree);
        gk.mod_up_all(&device_input, Extension::Exact, &mut all).unwrap();
        let key = upload(&device, &random_poly(&key_switch.q_p().unwrap(), degree, &mut rng));
        let mut sums = sentinel(&device, 2 * q_p * degree);
        let keys = vec![(&key, &key); k];
        gk.inner_product(TransformKind::Ntt, &all, &keys, false, &mut sums).unwrap();
        gk.inner_product(TransformKind::Dgt, &all, &keys, true, &mut sums).unwrap();
        assert!(download(&device, &sums).iter().all(|&w| w != SENTINEL));
    }
}

/// `input` over `q` with the edges of the one-prime digits' centered lift planted in every
/// limb: `0, 1, q_i / 2, q_i / 2 + 1, q_i - 1` (the last value kept, the first negated).
fn lift_edges(q: &RnsBase, degree: usize, rng: &mut StdRng) -> Vec<u64> {
    let mut data = edgy_poly(q, degree, rng);
    for (limb, m) in q.moduli().iter().enumerate() {
        let half = m.value() / 2;
        for (slot, value) in [0, 1, half, half + 1, m.value() - 1, half - 1].into_iter().enumerate() {
            data[limb * degree + (slot * 37 + limb * 11 + 3) % degree] = value;
        }
    }
    data
}

/// The CPU's key-switching sums: per digit, ModUp (`KeySwitchContext::mod_up`), the forward
/// transform of the `q u P` ring, and `mul_add_assign` into the two accumulators (starting from
/// `initial`, or zero).
fn cpu_key_switch_sums(
    key_switch: &KeySwitchContext,
    ring: &Arc<RingContext>,
    input: &[u64],
    extension: Extension,
    key: &[(Poly<Eval>, Poly<Eval>)],
    initial: Option<(Poly<Eval>, Poly<Eval>)>,
) -> Vec<u64> {
    let (mut acc_b, mut acc_a) = initial.unwrap_or_else(|| (Poly::zero(ring), Poly::zero(ring)));
    for (digit, (key_b, key_a)) in key.iter().enumerate() {
        let mut extended = vec![0u64; ring.poly_len()];
        key_switch.mod_up(input, digit, extension, &mut extended).unwrap();
        let extended = Poly::<Coeff>::from_limbs(ring, extended).unwrap().forward().unwrap();
        acc_b.mul_add_assign(&extended, key_b).unwrap();
        acc_a.mul_add_assign(&extended, key_a).unwrap();
    }
    let mut words = acc_b.into_vec();
    words.extend(acc_a.into_vec());
    words
}

fn random_eval_poly(ring: &Arc<RingContext>, rng: &mut StdRng) -> Poly<Eval> {
    let base = RnsBase::new(&ring.moduli().iter().map(|m| m.value()).collect::<Vec<_>>()).unwrap();
    Poly::from_limbs(ring, random_poly(&base, ring.degree(), rng)).unwrap()
}

/// A random key of `digits` pairs over `ring` (evaluation representation), on the host and on
/// the device.
#[allow(clippy::type_complexity)]
fn random_key(
    ring: &Arc<RingContext>,
    gpu: &GpuContext,
    digits: usize,
    rng: &mut StdRng,
) -> (Vec<(Poly<Eval>, Poly<Eval>)>, Vec<(DevicePoly<Eval>, DevicePoly<Eval>)>) {
    let key: Vec<(Poly<Eval>, Poly<Eval>)> =
        (0..digits).map(|_| (random_eval_poly(ring, rng), random_eval_poly(ring, rng))).collect();
    let device_key =
        key.iter().map(|(b, a)| (DevicePoly::upload(gpu, b).unwrap(), DevicePoly::upload(gpu, a).unwrap())).collect();
    (key, device_key)
}

fn batch_words(batch: &DevicePolyBatch<Eval>) -> Vec<u64> {
    batch.download().unwrap().into_iter().flat_map(Poly::into_vec).collect()
}

/// A key-switching context over `q` and `special` (digits of `digit_size` primes), its GPU
/// twin, the ring `q u P` of `transform` on the host, and `q` and `q u P` on the device.
struct KeySwitchSetup {
    key_switch: KeySwitchContext,
    gpu: GpuKeySwitch,
    q_p_ring: Arc<RingContext>,
    q_gpu: GpuContext,
    q_p_gpu: GpuContext,
}

fn key_switch_setup(
    device: &Arc<GpuDevice>,
    degree: usize,
    (q, special, digit_size): (&[u64], &[u64], usize),
    transform: TransformKind,
) -> KeySwitchSetup {
    let key_switch = KeySwitchContext::new(degree, q, special, digit_size).unwrap();
    let gpu = GpuKeySwitch::new(device, &key_switch).unwrap();
    let q_ring = RingContext::new(degree, q, transform).unwrap();
    let q_p_ring = RingContext::new(degree, &key_switch.q_p().unwrap().values(), transform).unwrap();
    let (q_gpu, q_p_gpu) = (GpuContext::new(device, &q_ring).unwrap(), GpuContext::new(device, &q_p_ring).unwrap());
    KeySwitchSetup { key_switch, gpu, q_p_ring, q_gpu, q_p_gpu }
}

/// ModUp converts up to four consecutive digits of several primes in one launch: every digit
/// count around that limit (5 digits of 3 with a short last one of 2; 6 digits of 2 and a
/// one-prime digit last; 9 digits of 2), both extensions, `mod_up_all` and a key switch's sums
/// (chunks of 1, 3 and all) word for word against the CPU.
#[test]
fn mod_up_of_several_digits_per_launch_matches_the_cpu() {
    let Some(device) = device() else { return };
    let mut rng = StdRng::seed_from_u64(0x00d1_6175);
    for (degree, k, special_count, bits) in [(1usize << 12, 14, 3, 50), (1 << 13, 13, 2, 36), (1 << 12, 18, 2, 59)] {
        let q = primes_of(bits, degree, k, &[]);
        let special = random_primes(&mut rng, degree, special_count, &q);
        let KeySwitchSetup { key_switch, gpu, q_p_ring, q_gpu, q_p_gpu } =
            key_switch_setup(&device, degree, (&q, &special, special_count), TransformKind::Ntt);
        let digits = key_switch.num_digits();
        let input = lift_edges(key_switch.q(), degree, &mut rng);
        let device_input = DevicePoly::<Coeff>::from_limbs(&q_gpu, &input).unwrap();
        let stride = q_p_ring.poly_len();
        let (key, device_key) = random_key(&q_p_ring, &q_p_gpu, digits, &mut rng);
        for extension in [Extension::Exact, Extension::Fast] {
            let label = format!("N = {degree}, {k} primes, digits of {special_count} ({digits}), {extension:?}");
            let mut expected = vec![0u64; digits * stride];
            let mut output = sentinel(&device, digits * stride);
            key_switch.mod_up_all(&input, extension, &mut expected).unwrap();
            gpu.mod_up_all(device_input.device_buffer(), extension, &mut output).unwrap();
            assert_same(&format!("{label}, ModUp all"), &download(&device, &output), &expected, degree);
            let expected = cpu_key_switch_sums(&key_switch, &q_p_ring, &input, extension, &key, None);
            for chunk in [1, 3, digits] {
                let sums = gpu
                    .key_switch_accumulate_in_chunks(&device_input, &device_key, extension, &q_p_gpu, chunk)
                    .unwrap();
                assert_same(&format!("{label}, chunks of {chunk}"), &batch_words(&sums), &expected, degree);
            }
        }
    }
}

/// Batched key switching (`GpuKeySwitch::key_switch_accumulate`, its chunked form, the slice
/// inner product with and without accumulation, and `mod_up_all` through the one-prime kernel)
/// equals the CPU word for word: one special prime (every digit one prime) and hybrid digits
/// (some cases end with a one-prime digit), NTT, DGT and hierarchical DGT rings, random degrees,
/// prime counts and sizes, inputs with the lift's edge values, chunks of 1, of a random size
/// and all digits at once.
/// 12 random cases; the random draws: degree (2^14 and 2^15 among them), 1..12 primes, one
/// special prime (every digit one prime), hybrid digits, or random digits (some cases end with a
/// one-prime digit); transform; extension.
#[test]
fn batched_key_switching_matches_the_cpu() {
    let Some(device) = device() else { return };
    let degrees = prop_oneof![
        1 => Just(1usize << 15),
        1 => Just(1usize << 14),
        4 => (10u32..=13).prop_map(|log_n| 1usize << log_n),
    ];
    let shapes = (1usize..=12).prop_flat_map(|k| {
        let hybrid = (2usize..=4).prop_map(move |special| (special.min(k.max(2)), Digits::OfSpecialSize));
        let random = (1usize..=3, any::<usize>()).prop_map(|(special, raw)| (special, Digits::Random(raw)));
        (Just(k), prop_oneof![Just((1usize, Digits::OnePrime)), hybrid, random])
    });
    let transforms =
        prop_oneof![Just(TransformKind::Ntt), Just(TransformKind::Dgt), Just(TransformKind::HierarchicalDgt)];
    let extensions = prop_oneof![3 => Just(Extension::Exact), 1 => Just(Extension::Fast)];
    let strategy = (degrees, shapes, prime_bits(), transforms, extensions, any::<u64>());
    gpu_cases::check(
        12,
        REGRESSIONS,
        strategy,
        |(degree, (k, (special_count, digits)), bits, transform, extension, seed)| {
            let mut rng = StdRng::seed_from_u64(seed);
            let q = primes_of(bits, degree, k, &[]);
            let special = random_primes(&mut rng, degree, special_count, &q);
            let digit_size = digits.size(k, special_count);
            let KeySwitchSetup { key_switch, gpu, q_p_ring, q_gpu, q_p_gpu } =
                key_switch_setup(&device, degree, (&q, &special, digit_size), transform);
            let digits = key_switch.num_digits();
            let label = format!(
                "N = {degree}, {k} primes, {special_count} special, digits of {digit_size} ({digits}), \
             {transform:?}, {extension:?}"
            );

            let input = lift_edges(key_switch.q(), degree, &mut rng);
            let device_input = DevicePoly::<Coeff>::from_limbs(&q_gpu, &input).unwrap();
            let stride = q_p_ring.poly_len();

            let mut expected = vec![0u64; digits * stride];
            let mut output = sentinel(&device, digits * stride);
            key_switch.mod_up_all(&input, extension, &mut expected).unwrap();
            gpu.mod_up_all(device_input.device_buffer(), extension, &mut output).unwrap();
            assert_same(&format!("{label}, ModUp all"), &download(&device, &output), &expected, degree);

            let (key, device_key) = random_key(&q_p_ring, &q_p_gpu, digits, &mut rng);
            let expected = cpu_key_switch_sums(&key_switch, &q_p_ring, &input, extension, &key, None);
            let sums = gpu.key_switch_accumulate(&device_input, &device_key, extension, &q_p_gpu).unwrap();
            assert_eq!(sums.len(), 2);
            assert_same(&format!("{label}, key switching sums"), &batch_words(&sums), &expected, degree);
            for chunk in [1, rng.gen_range(1..=digits), digits + 3] {
                let sums = gpu
                    .key_switch_accumulate_in_chunks(&device_input, &device_key, extension, &q_p_gpu, chunk)
                    .unwrap();
                assert_same(&format!("{label}, chunks of {chunk}"), &batch_words(&sums), &expected, degree);
            }
            // Both sums back to coefficients (one inverse transform of the batch), then ModDown.
            let down = gpu.mod_down_batch(&sums.inverse().unwrap(), &q_gpu).unwrap();
            for (index, sum) in expected.chunks_exact(stride).enumerate() {
                let coefficients = Poly::<Eval>::from_slice(&q_p_ring, sum).unwrap().inverse().unwrap();
                let mut cpu = vec![0u64; key_switch.q().len() * degree];
                key_switch.mod_down(coefficients.as_slice(), &mut cpu).unwrap();
                assert_same(&format!("{label}, ModDown of sum {index}"), &down[index].to_vec().unwrap(), &cpu, degree);
            }

            // The slice inner product, adding to random sums, over the transformed ModUp above.
            let initial = (random_eval_poly(&q_p_ring, &mut rng), random_eval_poly(&q_p_ring, &mut rng));
            let expected = cpu_key_switch_sums(&key_switch, &q_p_ring, &input, extension, &key, Some(initial.clone()));
            let mut extended = vec![0u64; digits * stride];
            key_switch.mod_up_all(&input, extension, &mut extended).unwrap();
            let transformed: Vec<u64> = extended
                .chunks_exact(stride)
                .flat_map(|chunk| Poly::<Coeff>::from_slice(&q_p_ring, chunk).unwrap().forward().unwrap().into_vec())
                .collect();
            let mut initial_words = initial.0.into_vec();
            initial_words.extend(initial.1.into_vec());
            let mut sums = upload(&device, &initial_words);
            let keys: Vec<_> = device_key.iter().map(|(b, a)| (b.device_buffer(), a.device_buffer())).collect();
            gpu.inner_product(transform, &upload(&device, &transformed), &keys, true, &mut sums).unwrap();
            assert_same(
                &format!("{label}, inner product (accumulating)"),
                &download(&device, &sums),
                &expected,
                degree,
            );
        },
    );
}

/// The slice inner product with more digits than one launch takes (`MAX_DIGITS_PER_LAUNCH`):
/// 130 one-prime digits, coordinate-wise and Gaussian products, against products formed with
/// `modarith` word by word.
#[test]
fn inner_product_over_many_digits_matches_the_cpu() {
    let Some(device) = device() else { return };
    let mut rng = StdRng::seed_from_u64(11);
    let degree = 1 << 10;
    let digits = GpuKeySwitch::MAX_DIGITS_PER_LAUNCH + 2;
    let q = random_primes(&mut rng, degree, digits, &[]);
    let special = random_primes(&mut rng, degree, 1, &q);
    let key_switch = KeySwitchContext::new(degree, &q, &special, 1).unwrap();
    let gpu = GpuKeySwitch::new(&device, &key_switch).unwrap();
    let q_p = key_switch.q_p().unwrap();
    let stride = q_p.len() * degree;
    let extended: Vec<u64> = (0..digits).flat_map(|_| random_poly(&q_p, degree, &mut rng)).collect();
    let key: Vec<(Vec<u64>, Vec<u64>)> =
        (0..digits).map(|_| (random_poly(&q_p, degree, &mut rng), random_poly(&q_p, degree, &mut rng))).collect();
    let device_key: Vec<_> = key.iter().map(|(b, a)| (upload(&device, b), upload(&device, a))).collect();
    let keys: Vec<_> = device_key.iter().map(|(b, a)| (b, a)).collect();
    let device_extended = upload(&device, &extended);
    for transform in [TransformKind::Ntt, TransformKind::Dgt] {
        let mut expected = vec![0u64; 2 * stride];
        for (limb, m) in q_p.moduli().iter().enumerate() {
            for pair in (limb * degree..(limb + 1) * degree).step_by(2) {
                for (output, which) in [(0, 0), (stride, 1)] {
                    let (mut x, mut y) = (0, 0);
                    for (t, (b, a)) in key.iter().enumerate() {
                        let factor = if which == 0 { b } else { a };
                        let e = (extended[t * stride + pair], extended[t * stride + pair + 1]);
                        let w = (factor[pair], factor[pair + 1]);
                        if transform == TransformKind::Ntt {
                            x = m.add(x, m.mul(e.0, w.0));
                            y = m.add(y, m.mul(e.1, w.1));
                        } else {
                            let product =
                                m.gauss_mul(modarith::GaussianInt::new(e.0, e.1), modarith::GaussianInt::new(w.0, w.1));
                            x = m.add(x, product.re);
                            y = m.add(y, product.im);
                        }
                    }
                    expected[output + pair] = x;
                    expected[output + pair + 1] = y;
                }
            }
        }
        let mut sums = sentinel(&device, 2 * stride);
        gpu.inner_product(transform, &device_extended, &keys, false, &mut sums).unwrap();
        assert_same(&format!("{digits} digits, {transform:?}"), &download(&device, &sums), &expected, degree);
    }
}

/// The key inner product fused into the forward transform's last pass
/// (`ntt_fwd_ip_contiguous_*`, taken by `key_switch_accumulate` over NTT rings transformed in two
/// passes) over more digits than its 128-bit sums take between reductions (15) and than one
/// launch takes (64): 70 one-prime digits and 70 primes in digits of 3 (24 digits), at
/// N = 2^12 and 2^13, whole and in chunks of 20 (the later chunks accumulating), against the
/// CPU's sums word for word.
#[test]
fn fused_inner_product_over_many_digits_matches_the_cpu() {
    let Some(device) = device() else { return };
    let mut rng = StdRng::seed_from_u64(21);
    for (degree, special_count, digit_size) in [(1usize << 12, 1usize, 1usize), (1 << 13, 3, 3)] {
        let k = 70;
        let q = primes_of(50, degree, k, &[]);
        let special = random_primes(&mut rng, degree, special_count, &q);
        let KeySwitchSetup { key_switch, gpu, q_p_ring, q_gpu, q_p_gpu } =
            key_switch_setup(&device, degree, (&q, &special, digit_size), TransformKind::Ntt);
        let digits = key_switch.num_digits();
        assert!(DevicePolyBatch::forward_inner_product_supported(&q_p_gpu, 20), "N = {degree}: fused path not taken");
        let input = lift_edges(key_switch.q(), degree, &mut rng);
        let device_input = DevicePoly::<Coeff>::from_limbs(&q_gpu, &input).unwrap();
        let (key, device_key) = random_key(&q_p_ring, &q_p_gpu, digits, &mut rng);
        let expected = cpu_key_switch_sums(&key_switch, &q_p_ring, &input, Extension::Exact, &key, None);
        let label = format!("N = {degree}, {k} primes, {digits} digits of {digit_size}");
        let sums = gpu.key_switch_accumulate(&device_input, &device_key, Extension::Exact, &q_p_gpu).unwrap();
        assert_same(&label, &batch_words(&sums), &expected, degree);
        let sums =
            gpu.key_switch_accumulate_in_chunks(&device_input, &device_key, Extension::Exact, &q_p_gpu, 20).unwrap();
        assert_same(&format!("{label}, chunks of 20"), &batch_words(&sums), &expected, degree);
    }
}

/// Key switching in the evaluation representation (`GpuKeySwitch::switch_key_eval`: the fused
/// inner product, reading the digits' own limbs from the input's evaluations or transforming
/// them, then ModDown with its epilogue in the transform's last pass) equals the CPU's steps
/// word for word: CPU sums, inverse transform, `E^-1`, `KeySwitchContext::mod_down`, `E`,
/// forward transform, addend. N = 2^15 (the direct path: the own limbs are read) and 2^14
/// (replayed as a graph), hybrid digits of 8 (the last one shorter in one case) and one-prime
/// digits, `E` = 1 and 65537, an addend on the first output only; evaluations of another ring
/// are refused on both paths.
#[test]
fn switch_key_eval_with_own_limbs_matches_the_cpu() {
    let Some(device) = device() else { return };
    let mut rng = StdRng::seed_from_u64(23);
    // 2^14 is replayed as a graph (GpuKeySwitch::EVAL_REPLAY_MAX_DEGREE: the own limbs are
    // checked, not read); 2^15 runs the direct path, which reads them.
    const { assert!(1 << 15 > GpuKeySwitch::EVAL_REPLAY_MAX_DEGREE) };
    for shape in [
        (1usize << 15, 24usize, 8usize, 8usize, 65537u64),
        (1 << 15, 20, 8, 8, 1),
        (1 << 15, 20, 8, 8, 65537),
        (1 << 15, 16, 1, 1, 65537),
        (1 << 14, 24, 8, 8, 65537),
        (1 << 14, 16, 1, 1, 1),
    ] {
        check_switch_key_eval(&device, &mut rng, shape, true);
    }
}

/// One case of [`switch_key_eval_with_own_limbs_matches_the_cpu`]: `(degree, primes of q,
/// special primes, digit size, error scale)`; `fused`: whether the inner product is fused with
/// the forward transform on `device` (its tuning decides).
fn check_switch_key_eval(
    device: &Arc<GpuDevice>,
    rng: &mut StdRng,
    (degree, k, special_count, digit_size, error_scale): (usize, usize, usize, usize, u64),
    fused: bool,
) {
    let q = primes_of(50, degree, k, &[]);
    let special = primes_of(55, degree, special_count, &q);
    let key_switch = KeySwitchContext::new(degree, &q, &special, digit_size).unwrap();
    let digits = key_switch.num_digits();
    let gpu = GpuKeySwitch::with_error_scale(device, &key_switch, error_scale).unwrap();
    let q_ring = RingContext::new(degree, &q, TransformKind::Ntt).unwrap();
    let p_ring = RingContext::new(degree, &special, TransformKind::Ntt).unwrap();
    let q_p_ring = RingContext::new(degree, &key_switch.q_p().unwrap().values(), TransformKind::Ntt).unwrap();
    let [q_gpu, p_gpu, q_p_gpu] = [&q_ring, &p_ring, &q_p_ring].map(|ring| GpuContext::new(device, ring).unwrap());
    let input = lift_edges(key_switch.q(), degree, rng);
    let input_eval = Poly::<Coeff>::from_limbs(&q_ring, input.clone()).unwrap().forward().unwrap();
    let addend = random_eval_poly(&q_ring, rng);
    let (key, device_key) = random_key(&q_p_ring, &q_p_gpu, digits, rng);

    // The CPU's steps.
    let sums = cpu_key_switch_sums(&key_switch, &q_p_ring, &input, Extension::Exact, &key, None);
    let stride = q_p_ring.poly_len();
    let mut expected = Vec::new();
    for (index, words) in sums.chunks(stride).enumerate() {
        let mut coefficients =
            Poly::<Eval>::from_limbs(&q_p_ring, words.to_vec()).unwrap().inverse().unwrap().into_vec();
        for (limb, m) in q_p_ring.moduli().iter().enumerate() {
            let e_inv = m.inv(m.reduce(error_scale)).unwrap();
            for x in &mut coefficients[limb * degree..(limb + 1) * degree] {
                *x = m.mul(*x, e_inv);
            }
        }
        let mut down = vec![0u64; k * degree];
        key_switch.mod_down(&coefficients, &mut down).unwrap();
        for (limb, m) in q_ring.moduli().iter().enumerate() {
            for x in &mut down[limb * degree..(limb + 1) * degree] {
                *x = m.mul(*x, m.reduce(error_scale));
            }
        }
        let mut out = Poly::<Coeff>::from_limbs(&q_ring, down).unwrap().forward().unwrap();
        if index == 0 {
            out.add_assign(&addend).unwrap();
        }
        expected.extend(out.into_vec());
    }

    let device_input = DevicePoly::<Coeff>::from_limbs(&q_gpu, &input).unwrap();
    let device_input_eval = DevicePoly::upload(&q_gpu, &input_eval).unwrap();
    let device_addend = DevicePoly::upload(&q_gpu, &addend).unwrap();
    assert_eq!(
        DevicePolyBatch::forward_inner_product_supported(&q_p_gpu, digits),
        fused,
        "N = {degree}: the fused path is taken where the tuning says"
    );
    let switch = |addend: Option<&DevicePoly<Eval>>, own: Option<&DevicePoly<Eval>>| {
        gpu.switch_key_eval(
            &device_input,
            &device_key,
            Extension::Exact,
            &q_p_gpu,
            &p_gpu,
            &q_gpu,
            error_scale,
            [addend, None],
            own,
        )
    };
    for own in [Some(&device_input_eval), None] {
        let label = format!(
            "N = {degree}, {k} primes, {special_count} special, digits of {digit_size}, E = {error_scale}, \
             own limbs given: {}",
            own.is_some()
        );
        let [b, a] = switch(Some(&device_addend), own).unwrap();
        let mut got = b.to_vec().unwrap();
        got.extend(a.to_vec().unwrap());
        assert_same(&label, &got, &expected, degree);
    }
    // The evaluations of another ring are refused.
    let error = switch(None, Some(&DevicePoly::upload(&q_p_gpu, &key[0].0).unwrap())).unwrap_err();
    assert!(matches!(error, GpuRnsError::Rns(RnsError::ContextMismatch { .. })), "{error}");
}

/// The key-switching choices a device may be tuned to, each on a device of its own in this
/// process, against the CPU word for word: the inner product never fused with the forward
/// transform, no graph replay and the conversions' old block shape (no minimum of outputs); and
/// the inner product fused at every size, replay up to 2^15 and blocks of at least 4096
/// outputs. Evaluation-form key switching (`switch_key_eval`, as in
/// `switch_key_eval_with_own_limbs_matches_the_cpu`), and coefficient-form sums (whole and in
/// chunks) with ModDown.
#[test]
fn tuned_key_switching_matches_the_cpu() {
    let Some(_default) = device() else { return };
    let mut rng = StdRng::seed_from_u64(29);
    let mut unfused = GpuTuning::default();
    unfused.ntt.forward_ip_min_blocks = usize::MAX;
    unfused.graphs.replay = false;
    unfused.rns.min_block_outputs = Some(0);
    let mut fused = GpuTuning::default();
    fused.ntt.forward_ip_min_blocks = 0;
    fused.graphs.max_degree = Some(1 << 15);
    fused.rns.min_block_outputs = Some(4096);
    for (name, tuning, fuses) in [("unfused, direct", unfused, false), ("fused, replayed", fused, true)] {
        let device = GpuDevice::with_tuning(0, tuning).unwrap();
        eprintln!("tuning: {name}");
        for shape in
            [(1usize << 15, 20usize, 8usize, 8usize, 65537u64), (1 << 14, 16, 1, 1, 1), (1 << 13, 8, 2, 2, 65537)]
        {
            check_switch_key_eval(&device, &mut rng, shape, fuses);
        }
        for (degree, special_count, digit_size) in [(1usize << 12, 1usize, 1usize), (1 << 13, 3, 3)] {
            let q = primes_of(50, degree, 12, &[]);
            let special = random_primes(&mut rng, degree, special_count, &q);
            let KeySwitchSetup { key_switch, gpu, q_p_ring, q_gpu, q_p_gpu } =
                key_switch_setup(&device, degree, (&q, &special, digit_size), TransformKind::Ntt);
            let digits = key_switch.num_digits();
            let input = lift_edges(key_switch.q(), degree, &mut rng);
            let device_input = DevicePoly::<Coeff>::from_limbs(&q_gpu, &input).unwrap();
            let (key, device_key) = random_key(&q_p_ring, &q_p_gpu, digits, &mut rng);
            let expected = cpu_key_switch_sums(&key_switch, &q_p_ring, &input, Extension::Exact, &key, None);
            let label = format!("{name}: N = {degree}, {digits} digits of {digit_size}");
            let sums = gpu.key_switch_accumulate(&device_input, &device_key, Extension::Exact, &q_p_gpu).unwrap();
            assert_same(&label, &batch_words(&sums), &expected, degree);
            let chunked =
                gpu.key_switch_accumulate_in_chunks(&device_input, &device_key, Extension::Exact, &q_p_gpu, 5).unwrap();
            assert_same(&format!("{label}, chunks of 5"), &batch_words(&chunked), &expected, degree);
            let stride = q_p_ring.poly_len();
            let down = gpu.mod_down_batch(&sums.inverse().unwrap(), &q_gpu).unwrap();
            for (index, sum) in expected.chunks_exact(stride).enumerate() {
                let coefficients = Poly::<Eval>::from_slice(&q_p_ring, sum).unwrap().inverse().unwrap();
                let mut cpu = vec![0u64; key_switch.q().len() * degree];
                key_switch.mod_down(coefficients.as_slice(), &mut cpu).unwrap();
                assert_same(&format!("{label}, ModDown of sum {index}"), &down[index].to_vec().unwrap(), &cpu, degree);
            }
            // The whole key switch (replayed as a graph where the tuning says so).
            let [b, a] = gpu.switch_key(&device_input, &device_key, Extension::Exact, &q_p_gpu, &q_gpu).unwrap();
            let mut got = b.to_vec().unwrap();
            got.extend(a.to_vec().unwrap());
            let want: Vec<u64> = down.iter().flat_map(|p| p.to_vec().unwrap()).collect();
            assert_same(&format!("{label}, switch_key"), &got, &want, degree);
        }
    }
}

/// Bad inputs of the batched key switching: wrong lengths of the extended digits, a key digit
/// or the sums, an empty key, a misaligned view, a key with one digit too few, rings that are
/// not `q` and `q u P`, a key over another ring, a chunk size of 0. Each is an error; outputs
/// are untouched and nothing is written to the inputs.
#[test]
fn batched_key_switching_rejects_bad_inputs() {
    let Some(device) = device() else { return };
    let mut rng = StdRng::seed_from_u64(12);
    let degree = 1 << 10;
    let q = random_primes(&mut rng, degree, 3, &[]);
    let special = random_primes(&mut rng, degree, 1, &q);
    let key_switch = KeySwitchContext::new(degree, &q, &special, 1).unwrap();
    let gpu = GpuKeySwitch::new(&device, &key_switch).unwrap();
    let q_p = key_switch.q_p().unwrap();
    let (digits, stride) = (key_switch.num_digits(), q_p.len() * degree);
    let untouched = |output: &CudaSlice<u64>| download(&device, output).iter().all(|&w| w == SENTINEL);

    let extended = upload(&device, &(0..digits).flat_map(|_| random_poly(&q_p, degree, &mut rng)).collect::<Vec<_>>());
    let key_words: Vec<u64> = random_poly(&q_p, degree, &mut rng);
    let key_digit = upload(&device, &key_words);
    let short_digit = upload(&device, &key_words[1..]);
    let keys = vec![(&key_digit, &key_digit); digits];
    let length = |error: GpuRnsError| matches!(error, GpuRnsError::Rns(RnsError::LengthMismatch { .. }));
    let mut sums = sentinel(&device, 2 * stride);
    let short_extended = upload(&device, &vec![0u64; digits * stride - 1]);
    assert!(length(gpu.inner_product(TransformKind::Ntt, &short_extended, &keys, false, &mut sums).unwrap_err()));
    let mut bad_keys = keys.clone();
    bad_keys[1] = (&key_digit, &short_digit);
    assert!(length(gpu.inner_product(TransformKind::Ntt, &extended, &bad_keys, false, &mut sums).unwrap_err()));
    assert!(length(gpu.inner_product(TransformKind::Ntt, &extended, &keys[1..], false, &mut sums).unwrap_err()));
    let error = gpu.inner_product(TransformKind::Dgt, &extended, &keys[..0], true, &mut sums).unwrap_err();
    assert!(matches!(error, GpuRnsError::Rns(RnsError::InvalidParameter { .. })), "{error}");
    assert!(untouched(&sums));
    let mut long_sums = sentinel(&device, 2 * stride + 1);
    assert!(length(gpu.inner_product(TransformKind::Ntt, &extended, &keys, false, &mut long_sums).unwrap_err()));
    assert!(untouched(&long_sums));
    // The right length at an odd word offset: not 16-byte aligned.
    let mut padded = sentinel(&device, 2 * stride + 1);
    let mut view = padded.slice_mut(1..);
    let error = gpu.inner_product(TransformKind::Ntt, &extended, &keys, false, &mut view).unwrap_err();
    assert!(matches!(error, GpuRnsError::Gpu(GpuError::Unsupported { .. })), "{error}");
    assert!(untouched(&padded));

    // Polynomial form.
    let q_ring = RingContext::new(degree, &q, TransformKind::Ntt).unwrap();
    let q_p_ring = RingContext::new(degree, &q_p.values(), TransformKind::Ntt).unwrap();
    let (q_gpu, q_p_gpu) = (GpuContext::new(&device, &q_ring).unwrap(), GpuContext::new(&device, &q_p_ring).unwrap());
    let input_host = random_ring_poly(&q_ring, &mut rng);
    let input = DevicePoly::upload(&q_gpu, &input_host).unwrap();
    let key: Vec<(DevicePoly<Eval>, DevicePoly<Eval>)> = (0..digits)
        .map(|_| {
            let b = random_eval_poly(&q_p_ring, &mut rng);
            let a = random_eval_poly(&q_p_ring, &mut rng);
            (DevicePoly::upload(&q_p_gpu, &b).unwrap(), DevicePoly::upload(&q_p_gpu, &a).unwrap())
        })
        .collect();
    let key_before: Vec<Vec<u64>> = key.iter().flat_map(|(b, a)| [b.to_vec().unwrap(), a.to_vec().unwrap()]).collect();
    let exact = Extension::Exact;
    let error = gpu.key_switch_accumulate(&input, &key[1..], exact, &q_p_gpu).unwrap_err();
    assert_eq!(
        error,
        GpuRnsError::Rns(RnsError::LengthMismatch {
            what: "key-switching key digits",
            expected: digits,
            actual: digits - 1
        })
    );
    let mismatch = |error: GpuRnsError| matches!(error, GpuRnsError::Rns(RnsError::ContextMismatch { .. }));
    assert!(mismatch(gpu.key_switch_accumulate(&input, &key, exact, &q_gpu).unwrap_err()), "sums over q");
    let wide_input = DevicePoly::upload(&q_p_gpu, &random_ring_poly(&q_p_ring, &mut rng)).unwrap();
    assert!(mismatch(gpu.key_switch_accumulate(&wide_input, &key, exact, &q_p_gpu).unwrap_err()), "input over q u P");
    // A key digit over q u P with the DGT: another ring.
    let dgt_ring = RingContext::new(degree, &q_p.values(), TransformKind::Dgt).unwrap();
    let dgt_gpu = GpuContext::new(&device, &dgt_ring).unwrap();
    let mut mixed_key: Vec<_> = key.iter().map(|(b, a)| (b.duplicate().unwrap(), a.duplicate().unwrap())).collect();
    mixed_key[0].1 = DevicePoly::upload(&dgt_gpu, &random_eval_poly(&dgt_ring, &mut rng)).unwrap();
    let error = gpu.key_switch_accumulate(&input, &mixed_key, exact, &q_p_gpu).unwrap_err();
    assert!(matches!(error, GpuRnsError::Gpu(GpuError::Poly(poly::PolyError::ContextMismatch))), "{error}");
    let error = gpu.key_switch_accumulate_in_chunks(&input, &key, exact, &q_p_gpu, 0).unwrap_err();
    assert!(matches!(error, GpuRnsError::Rns(RnsError::InvalidParameter { .. })), "{error}");
    assert_eq!(input.to_vec().unwrap(), input_host.as_slice(), "input written");
    let key_after: Vec<Vec<u64>> = key.iter().flat_map(|(b, a)| [b.to_vec().unwrap(), a.to_vec().unwrap()]).collect();
    assert_eq!(key_after, key_before, "key written");

    // ModDown of a batch over the wrong ring.
    let sums = gpu.key_switch_accumulate(&input, &key, exact, &q_p_gpu).unwrap().inverse().unwrap();
    assert!(mismatch(gpu.mod_down_batch(&sums, &q_p_gpu).unwrap_err()), "ModDown into q u P");
    let down = gpu.mod_down_batch(&sums, &q_gpu).unwrap();
    assert_eq!(down.len(), 2);
}
