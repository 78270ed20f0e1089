#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Tests of deterministic sampling: the ChaCha20 block function against published test vectors
//! and an independent reference, the documented keystream layout of every distribution,
//! reproducibility, stream separation, and the empirical moments and histograms.

use modarith::{Modulus, generate_ntt_primes};
use poly::PolyError;
use poly::sampling::{
    CHACHA_BLOCK_WORDS, Distribution, MAX_POLY_INDEX, Seed, chacha20_block, reduce_signed_into_limbs, sample_cbd,
    sample_cbd_signed, sample_ternary, sample_ternary_signed, sample_uniform,
};

// ---------------------------------------------------------------------------------------------
// Reference ChaCha20 block function, written from RFC 8439 section 2.3 (djb's 64-bit counter and
// 64-bit nonce layout), independent of rand_chacha.

fn quarter_round(state: &mut [u32; 16], a: usize, b: usize, c: usize, d: usize) {
    state[a] = state[a].wrapping_add(state[b]);
    state[d] = (state[d] ^ state[a]).rotate_left(16);
    state[c] = state[c].wrapping_add(state[d]);
    state[b] = (state[b] ^ state[c]).rotate_left(12);
    state[a] = state[a].wrapping_add(state[b]);
    state[d] = (state[d] ^ state[a]).rotate_left(8);
    state[c] = state[c].wrapping_add(state[d]);
    state[b] = (state[b] ^ state[c]).rotate_left(7);
}

fn reference_block(key: &[u8; 32], counter: u64, stream: u64) -> [u32; 16] {
    let mut input = [0u32; 16];
    input[..4].copy_from_slice(&[0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574]);
    for k in 0..8 {
        input[4 + k] = u32::from_le_bytes(key[4 * k..4 * k + 4].try_into().unwrap());
    }
    input[12] = counter as u32;
    input[13] = (counter >> 32) as u32;
    input[14] = stream as u32;
    input[15] = (stream >> 32) as u32;
    let mut state = input;
    for _ in 0..10 {
        quarter_round(&mut state, 0, 4, 8, 12);
        quarter_round(&mut state, 1, 5, 9, 13);
        quarter_round(&mut state, 2, 6, 10, 14);
        quarter_round(&mut state, 3, 7, 11, 15);
        quarter_round(&mut state, 0, 5, 10, 15);
        quarter_round(&mut state, 1, 6, 11, 12);
        quarter_round(&mut state, 2, 7, 8, 13);
        quarter_round(&mut state, 3, 4, 9, 14);
    }
    core::array::from_fn(|k| state[k].wrapping_add(input[k]))
}

/// Keystream word `word` of stream `stream` by the reference block function.
fn reference_word(key: &[u8; 32], stream: u64, word: u64) -> u32 {
    reference_block(key, word / 16, stream)[(word % 16) as usize]
}

fn reference_u64(key: &[u8; 32], stream: u64, index: u64) -> u64 {
    u64::from(reference_word(key, stream, 2 * index)) | (u64::from(reference_word(key, stream, 2 * index + 1)) << 32)
}

fn serialize(words: &[u32; 16]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn hex(text: &str) -> Vec<u8> {
    (0..text.len()).step_by(2).map(|k| u8::from_str_radix(&text[k..k + 2], 16).unwrap()).collect()
}

fn test_seed(tag: u8) -> Seed {
    Seed::from(core::array::from_fn(|k| (k as u8).wrapping_mul(37).wrapping_add(tag)))
}

fn moduli(bits: u32, two_n: u64, count: usize) -> Vec<Modulus> {
    generate_ntt_primes(bits, two_n, count, &[]).unwrap().into_iter().map(|p| Modulus::new(p).unwrap()).collect()
}

// ---------------------------------------------------------------------------------------------
// The block function.

/// RFC 8439 section 2.3.2: key 00..1f, 96-bit nonce 00:00:00:09:00:00:00:4a:00:00:00:00, block
/// count 1. In the djb layout the state words 12..16 are (1, 0x09000000, 0x4a000000, 0), i.e.
/// 64-bit counter `1 | 0x09000000 << 32` and stream id `0x4a000000`.
#[test]
fn block_function_matches_rfc8439_section_2_3_2() {
    let key: [u8; 32] = core::array::from_fn(|k| k as u8);
    let expected = hex(concat!(
        "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e",
        "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e"
    ));
    let counter = 1 | (0x0900_0000u64 << 32);
    let stream = 0x4a00_0000u64;
    assert_eq!(serialize(&reference_block(&key, counter, stream)), expected);
    assert_eq!(serialize(&chacha20_block(&Seed::from(key), stream, counter)), expected);
}

/// RFC 8439 appendix A.1, test vector #1 (also djb's / the IETF draft's first vector): zero key,
/// zero nonce, block 0.
#[test]
fn block_function_matches_zero_key_vector() {
    let expected = hex(concat!(
        "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7",
        "da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586"
    ));
    assert_eq!(serialize(&reference_block(&[0; 32], 0, 0)), expected);
    assert_eq!(serialize(&chacha20_block(&Seed::from([0; 32]), 0, 0)), expected);
}

/// rand_chacha agrees with the reference for many (seed, stream, block) triples, including
/// counters that carry into the high counter word and the largest counter.
#[test]
fn rand_chacha_blocks_match_the_reference() {
    let counters = [0u64, 1, 2, 3, 4, 5, 63, 0xffff_ffff, 0x1_0000_0000, 0x1234_5678_9abc_def0, u64::MAX];
    let streams = [0u64, 1, 0x4a00_0000, (3 << 56) | 42, u64::MAX];
    for tag in 0..4 {
        let seed = test_seed(tag);
        for &stream in &streams {
            for &counter in &counters {
                assert_eq!(
                    chacha20_block(&seed, stream, counter),
                    reference_block(seed.as_bytes(), counter, stream),
                    "seed tag {tag}, stream {stream:#x}, counter {counter:#x}"
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The documented layout of each distribution, recomputed from the reference block function with
// plain u128 remainders (independent of Barrett reduction and of rand_chacha).

#[test]
fn uniform_layout_is_wide_reduction_of_consecutive_words() {
    let degree = 64;
    let mut basis = moduli(61, 2 * degree as u64, 2);
    basis.extend(moduli(30, 2 * degree as u64, 1));
    basis.push(Modulus::new(3).unwrap());
    let seed = test_seed(1);
    let poly_index = 0x00ab_cdef_0123_4567;
    let stream = (1u64 << 56) | poly_index;
    let mut out = vec![0u64; basis.len() * degree];
    sample_uniform(&basis, degree, &seed, poly_index, &mut out).unwrap();
    for (i, modulus) in basis.iter().enumerate() {
        for j in 0..degree {
            let first = 4 * (i * degree + j) as u64;
            let x = (0..4).fold(0u128, |acc, t| {
                acc | (u128::from(reference_word(seed.as_bytes(), stream, first + t)) << (32 * t))
            });
            assert_eq!(out[i * degree + j], (x % u128::from(modulus.value())) as u64, "limb {i}, coefficient {j}");
        }
    }
}

#[test]
fn ternary_layout_is_u64_word_mod_3_minus_1() {
    let degree = 256;
    let seed = test_seed(2);
    let poly_index = 77;
    let stream = (2u64 << 56) | poly_index;
    let mut out = vec![0i64; degree];
    sample_ternary_signed(degree, &seed, poly_index, &mut out).unwrap();
    for (j, &value) in out.iter().enumerate() {
        let word = reference_u64(seed.as_bytes(), stream, j as u64);
        assert_eq!(value, (word % 3) as i64 - 1, "coefficient {j}");
    }
}

#[test]
fn cbd_layout_is_popcount_difference_of_21_bit_fields() {
    let degree = 256;
    let seed = test_seed(3);
    let poly_index = MAX_POLY_INDEX;
    let stream = (3u64 << 56) | poly_index;
    let mut out = vec![0i64; degree];
    sample_cbd_signed(degree, &seed, poly_index, &mut out).unwrap();
    for (j, &value) in out.iter().enumerate() {
        let word = reference_u64(seed.as_bytes(), stream, j as u64);
        // Bit by bit rather than by popcount, to be independent of the implementation.
        let expected: i64 = (0..21).map(|b| ((word >> b) & 1) as i64 - ((word >> (21 + b)) & 1) as i64).sum();
        assert_eq!(value, expected, "coefficient {j}");
    }
}

#[test]
fn limb_sampling_reduces_the_same_integer_into_every_limb() {
    let degree = 128;
    let mut basis = moduli(50, 2 * degree as u64, 3);
    basis.push(Modulus::new(17).unwrap());
    basis.push(Modulus::new(2).unwrap());
    let seed = test_seed(4);
    let mut signed = vec![0i64; degree];
    let mut limbs = vec![0u64; basis.len() * degree];
    type Signed = fn(usize, &Seed, u64, &mut [i64]) -> poly::Result<()>;
    type Limbs = fn(&[Modulus], usize, &Seed, u64, &mut [u64]) -> poly::Result<()>;
    let pairs: [(Signed, Limbs); 2] = [(sample_ternary_signed, sample_ternary), (sample_cbd_signed, sample_cbd)];
    for (signed_sampler, limb_sampler) in pairs {
        signed_sampler(degree, &seed, 9, &mut signed).unwrap();
        limb_sampler(&basis, degree, &seed, 9, &mut limbs).unwrap();
        for (i, modulus) in basis.iter().enumerate() {
            let q = i128::from(modulus.value());
            for j in 0..degree {
                assert_eq!(i128::from(limbs[i * degree + j]), i128::from(signed[j]).rem_euclid(q));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Reproducibility and separation.

#[test]
fn samples_are_pure_functions_of_seed_and_index() {
    let degree = 1 << 10;
    let basis = moduli(55, 2 * degree as u64, 3);
    let run = |seed_tag: u8, index: u64| {
        let seed = test_seed(seed_tag);
        let mut uniform = vec![0u64; basis.len() * degree];
        let mut ternary = vec![0i64; degree];
        let mut cbd = vec![0i64; degree];
        sample_uniform(&basis, degree, &seed, index, &mut uniform).unwrap();
        sample_ternary_signed(degree, &seed, index, &mut ternary).unwrap();
        sample_cbd_signed(degree, &seed, index, &mut cbd).unwrap();
        (uniform, ternary, cbd)
    };
    let base = run(5, 11);
    assert_eq!(base, run(5, 11), "same seed and index must reproduce");
    for other in [run(5, 12), run(6, 11)] {
        // 62-bit uniform values: a coincidence has probability about 2^-55 per coefficient.
        assert!(base.0.iter().zip(&other.0).all(|(a, b)| a != b));
        // A third of ternary coefficients agree by chance; far from all of them.
        let equal = base.1.iter().zip(&other.1).filter(|(a, b)| a == b).count();
        assert!(equal < degree / 2, "{equal} of {degree} ternary coefficients agree");
        let equal = base.2.iter().zip(&other.2).filter(|(a, b)| a == b).count();
        assert!(equal < degree / 4, "{equal} of {degree} binomial coefficients agree");
    }
}

#[test]
fn distributions_use_disjoint_streams() {
    let ids: Vec<u64> = [Distribution::Uniform, Distribution::Ternary, Distribution::CenteredBinomial]
        .iter()
        .flat_map(|d| [0, 1, MAX_POLY_INDEX].map(|index| d.stream_id(index).unwrap()))
        .collect();
    for (a, x) in ids.iter().enumerate() {
        for y in &ids[a + 1..] {
            assert_ne!(x, y);
        }
    }
    // Same index, different tags: different keystreams.
    let seed = test_seed(7);
    let ternary_stream = Distribution::Ternary.stream_id(3).unwrap();
    let cbd_stream = Distribution::CenteredBinomial.stream_id(3).unwrap();
    assert_ne!(chacha20_block(&seed, ternary_stream, 0), chacha20_block(&seed, cbd_stream, 0));
}

#[test]
fn a_prefix_of_the_basis_gives_a_prefix_of_the_limbs() {
    let degree = 256;
    let basis = moduli(60, 2 * degree as u64, 5);
    let seed = test_seed(8);
    let mut full = vec![0u64; basis.len() * degree];
    sample_uniform(&basis, degree, &seed, 4, &mut full).unwrap();
    for count in 1..basis.len() {
        let mut part = vec![0u64; count * degree];
        sample_uniform(&basis[..count], degree, &seed, 4, &mut part).unwrap();
        assert_eq!(part, full[..count * degree]);
    }
}

// ---------------------------------------------------------------------------------------------
// Errors leave the output untouched.

#[test]
fn bad_input_is_rejected_and_output_left_intact() {
    let degree = 64;
    let basis = moduli(40, 2 * degree as u64, 2);
    let seed = test_seed(9);
    let sentinel = 0xdead_beef_u64;
    let mut out = vec![sentinel; basis.len() * degree];
    let mut signed = vec![-5i64; degree];

    assert_eq!(
        sample_uniform(&basis, 48, &seed, 0, &mut out[..96]),
        Err(PolyError::InvalidDegree { degree: 48, reason: "sampling needs a power of two in 2^3..=2^17" })
    );
    assert!(matches!(
        sample_uniform(&basis, 4, &seed, 0, &mut out[..8]),
        Err(PolyError::InvalidDegree { degree: 4, .. })
    ));
    assert!(matches!(
        sample_uniform(&basis, 1 << 18, &seed, 0, &mut out),
        Err(PolyError::InvalidDegree { degree, .. }) if degree == 1 << 18
    ));
    assert_eq!(
        sample_uniform(&[], degree, &seed, 0, &mut out[..0]),
        Err(PolyError::InvalidModulusCount { count: 0, max: 128 })
    );
    let many = vec![basis[0]; 129];
    assert_eq!(
        sample_uniform(&many, degree, &seed, 0, &mut out),
        Err(PolyError::InvalidModulusCount { count: 129, max: 128 })
    );
    assert_eq!(
        sample_uniform(&basis, degree, &seed, 0, &mut out[..degree]),
        Err(PolyError::LengthMismatch { expected: 2 * degree, actual: degree })
    );
    assert!(matches!(
        sample_uniform(&basis, degree, &seed, MAX_POLY_INDEX + 1, &mut out),
        Err(PolyError::InvalidParameter { name: "poly_index", value, .. }) if value == MAX_POLY_INDEX + 1
    ));
    assert!(matches!(
        sample_ternary(&basis, degree, &seed, u64::MAX, &mut out),
        Err(PolyError::InvalidParameter { name: "poly_index", value: u64::MAX, .. })
    ));
    assert!(matches!(sample_cbd(&basis, degree, &seed, 0, &mut out[1..]), Err(PolyError::LengthMismatch { .. })));
    assert!(out.iter().all(|&v| v == sentinel));

    assert_eq!(
        sample_ternary_signed(degree, &seed, 0, &mut signed[1..]),
        Err(PolyError::LengthMismatch { expected: degree, actual: degree - 1 })
    );
    assert!(matches!(
        sample_cbd_signed(degree, &seed, 1 << 60, &mut signed),
        Err(PolyError::InvalidParameter { value, .. }) if value == 1 << 60
    ));
    assert!(matches!(sample_cbd_signed(12, &seed, 0, &mut signed[..12]), Err(PolyError::InvalidDegree { .. })));
    assert!(signed.iter().all(|&v| v == -5));

    assert_eq!(
        reduce_signed_into_limbs(&basis, &signed, &mut out[..degree]),
        Err(PolyError::LengthMismatch { expected: 2 * degree, actual: degree })
    );
    assert!(matches!(reduce_signed_into_limbs(&basis, &[], &mut out[..0]), Err(PolyError::InvalidDegree { .. })));
    assert!(out.iter().all(|&v| v == sentinel));
}

// ---------------------------------------------------------------------------------------------
// Statistics. Each bound is six standard deviations of the statistic at the sample size used
// (false-alarm probability about 1e-9); the seeds are fixed, so the tests are deterministic, and
// a wrong layout, reduction or bit mask moves the statistic by far more than the bound.

/// Upper bound for a chi-square statistic with `dof` degrees of freedom: the Wilson-Hilferty
/// normal approximation of its distribution, six standard deviations out.
fn chi_square_bound(dof: usize) -> f64 {
    let k = dof as f64;
    let v = 2.0 / (9.0 * k);
    k * (1.0 - v + 6.0 * v.sqrt()).powi(3)
}

fn chi_square(counts: &[u64], expected: &[f64]) -> f64 {
    counts.iter().zip(expected).map(|(&c, &e)| (c as f64 - e).powi(2) / e).sum()
}

#[test]
fn uniform_values_are_reduced_with_the_right_mean_and_variance() {
    let degree = 1 << 14;
    let mut basis = moduli(61, 2 * degree as u64, 2);
    basis.extend(moduli(36, 2 * degree as u64, 1));
    basis.push(Modulus::new(65537).unwrap());
    let polys = 4;
    let seed = test_seed(10);
    let mut out = vec![0u64; basis.len() * degree];
    let mut sums = vec![(0u128, 0f64, 0usize); basis.len()];
    for index in 0..polys {
        sample_uniform(&basis, degree, &seed, index, &mut out).unwrap();
        for (i, modulus) in basis.iter().enumerate() {
            for &v in &out[i * degree..(i + 1) * degree] {
                assert!(v < modulus.value(), "limb {i}: {v} is not below {}", modulus.value());
                // Normalized to [0, 1): mean 1/2, variance 1/12, and (u - 1/2)^2 has variance 1/180.
                let u = v as f64 / modulus.value() as f64;
                sums[i].0 += u128::from(v);
                sums[i].1 += (u - 0.5) * (u - 0.5);
                sums[i].2 += 1;
            }
        }
    }
    for (i, modulus) in basis.iter().enumerate() {
        let (sum, square_sum, n) = sums[i];
        let q = modulus.value() as f64;
        let n_f = n as f64;
        let mean = sum as f64 / n_f;
        let mean_sigma = ((q * q - 1.0) / 12.0 / n_f).sqrt();
        assert!((mean - (q - 1.0) / 2.0).abs() < 6.0 * mean_sigma, "limb {i}: mean {mean}, q {q}");
        let variance = square_sum / n_f;
        assert!((variance - 1.0 / 12.0).abs() < 6.0 * (1.0 / 180.0 / n_f).sqrt(), "limb {i}: variance {variance}");
    }
}

#[test]
fn uniform_residues_of_small_primes_pass_chi_square() {
    let degree = 1 << 13;
    let seed = test_seed(11);
    for q in [3u64, 17, 257] {
        let modulus = Modulus::new(q).unwrap();
        let mut counts = vec![0u64; q as usize];
        let mut out = vec![0u64; degree];
        let polys = 16;
        for index in 0..polys {
            sample_uniform(&[modulus], degree, &seed, index, &mut out).unwrap();
            for &v in &out {
                counts[v as usize] += 1;
            }
        }
        let expected = vec![(polys as usize * degree) as f64 / q as f64; q as usize];
        let statistic = chi_square(&counts, &expected);
        assert!(statistic < chi_square_bound(q as usize - 1), "q = {q}: chi-square {statistic}");
    }
}

#[test]
fn ternary_has_mean_zero_variance_two_thirds_and_equal_thirds() {
    let degree = 1 << 14;
    let polys = 32u64;
    let seed = test_seed(12);
    let mut out = vec![0i64; degree];
    let mut counts = [0u64; 3];
    let (mut sum, mut square_sum) = (0i64, 0i64);
    for index in 0..polys {
        sample_ternary_signed(degree, &seed, index, &mut out).unwrap();
        for &v in &out {
            assert!((-1..=1).contains(&v));
            counts[(v + 1) as usize] += 1;
            sum += v;
            square_sum += v * v;
        }
    }
    let n = (polys as usize * degree) as f64;
    let mean = sum as f64 / n;
    assert!(mean.abs() < 6.0 * (2.0 / 3.0 / n).sqrt(), "mean {mean}");
    // x^2 is Bernoulli(2/3): variance 2/9.
    let variance = square_sum as f64 / n;
    assert!((variance - 2.0 / 3.0).abs() < 6.0 * (2.0 / 9.0 / n).sqrt(), "variance {variance}");
    let statistic = chi_square(&counts, &[n / 3.0; 3]);
    assert!(statistic < chi_square_bound(2), "chi-square {statistic}");
}

#[test]
fn cbd_matches_the_binomial_distribution() {
    let degree = 1 << 14;
    let polys = 32u64;
    let seed = test_seed(13);
    let mut out = vec![0i64; degree];
    let mut counts = [0u64; 43];
    let (mut sum, mut square_sum) = (0i64, 0i64);
    for index in 0..polys {
        sample_cbd_signed(degree, &seed, index, &mut out).unwrap();
        for &v in &out {
            assert!((-21..=21).contains(&v));
            counts[(v + 21) as usize] += 1;
            sum += v;
            square_sum += v * v;
        }
    }
    let n = (polys as usize * degree) as f64;
    let mean = sum as f64 / n;
    assert!(mean.abs() < 6.0 * (10.5 / n).sqrt(), "mean {mean}");
    // x is a sum of 21 independent values in {-1, 0, 1} with probabilities 1/4, 1/2, 1/4 (second
    // and fourth moments 1/2): E[x^4] = 21/2 + 3 * 21 * 20 / 4 = 325.5, so Var(x^2) = 325.5 - 10.5^2.
    let variance = square_sum as f64 / n;
    assert!((variance - 10.5).abs() < 6.0 * ((325.5 - 110.25) / n).sqrt(), "variance {variance}");

    // Histogram against P(x = k) = C(42, 21 + k) / 2^42; tail bins with fewer than 5 expected
    // samples are merged into their neighbours.
    let mut binomial = [1f64; 43];
    for k in 1..43 {
        binomial[k] = binomial[k - 1] * (43 - k) as f64 / k as f64;
    }
    let expected: Vec<f64> = binomial.iter().map(|c| n * c / 2f64.powi(42)).collect();
    let first = expected.iter().position(|&e| e >= 5.0).unwrap();
    let last = 42 - first;
    let mut merged_counts = vec![counts[..=first].iter().sum::<u64>()];
    let mut merged_expected = vec![expected[..=first].iter().sum::<f64>()];
    merged_counts.extend_from_slice(&counts[first + 1..last]);
    merged_expected.extend_from_slice(&expected[first + 1..last]);
    merged_counts.push(counts[last..].iter().sum());
    merged_expected.push(expected[last..].iter().sum());
    let statistic = chi_square(&merged_counts, &merged_expected);
    assert!(
        statistic < chi_square_bound(merged_counts.len() - 1),
        "chi-square {statistic} over {} bins",
        merged_counts.len()
    );
}

#[test]
fn second_block_holds_ternary_coefficients_8_to_15() {
    // Eight ternary/binomial coefficients (two words each) per ChaCha block, four uniform ones
    // (four words each): the GPU kernels give each thread one block on this basis.
    let seed = test_seed(14);
    let block = chacha20_block(&seed, Distribution::Ternary.stream_id(0).unwrap(), 1);
    let mut out = vec![0i64; 16];
    sample_ternary_signed(16, &seed, 0, &mut out).unwrap();
    for k in 0..CHACHA_BLOCK_WORDS / 2 {
        let word = u64::from(block[2 * k]) | (u64::from(block[2 * k + 1]) << 32);
        assert_eq!(out[8 + k], (word % 3) as i64 - 1);
    }
}
