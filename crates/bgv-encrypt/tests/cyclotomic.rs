//! BGV over the rings `Z_q[x]/Phi_m` on the CPU (`BgvParametersBuilder::new_cyclotomic`):
//! encryption and decryption, additions, plaintext operations, multiplication with
//! relinearization, modulus switching down the chain, operations between levels and
//! automorphisms by units of `Z_m^*`, each checked against plaintext arithmetic modulo
//! `(Phi_m, t)` computed here independently (schoolbook products and reduction by `Phi_m` in
//! `u128`/`i128`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use bgv_encrypt::{BatchEncoder, BgvContext, BgvError, BgvParameters, BgvParametersBuilder, CoefficientEncoder};
use std::sync::Arc;

use poly::cyclotomic::gcd;
use poly::{CpuBackend, RingKind};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

mod common;

use common::phi_m::{PlainRing, helib_ring_circuit, params, phi_m_circuit};
use common::seed;

/// The rings of the brief: small and composite `m` (63, 105, 315: `Phi_m` with coefficients
/// beyond `+-1` for 105 and 315), a prime (127), `2^k - 1` (255, 1023).
const RINGS: [usize; 6] = [63, 105, 127, 255, 315, 1023];

#[test]
fn parameters_over_phi_m_carry_the_ring() {
    for m in RINGS {
        let p = params(m, &[50, 50], &[55], 65537);
        let kind = RingKind::Cyclotomic { m };
        assert_eq!(p.ring_kind(), kind);
        assert_eq!(p.degree(), kind.degree());
        assert_eq!(p.ring_q().ring_kind(), kind);
        assert_eq!(p.plaintext_modulus(), 65537);
    }
    // The core's refusals reach the BGV builder as typed errors.
    for m in [2usize, 64, 0] {
        let result = BgvParametersBuilder::new_cyclotomic(m)
            .ciphertext_moduli_bits(&[50])
            .special_moduli_bits(&[55])
            .plaintext_modulus(257)
            .allow_insecure(true)
            .build();
        assert!(matches!(result, Err(BgvError::InvalidParameter { name: "m", .. })), "m = {m}");
    }
    // t sharing a factor with a prime, and q too small for t.
    let p = params(63, &[50], &[55], 257);
    let prime = p.ciphertext_moduli()[0];
    let shared = BgvParametersBuilder::new_cyclotomic(63)
        .ciphertext_moduli(&[prime])
        .special_moduli_bits(&[55])
        .plaintext_modulus(prime)
        .allow_insecure(true)
        .build();
    assert!(matches!(shared, Err(BgvError::InvalidParameter { name: "plaintext modulus t", .. })));
    let small_q = BgvParametersBuilder::new_cyclotomic(63)
        .ciphertext_moduli_bits(&[30])
        .special_moduli_bits(&[55])
        .plaintext_modulus((1 << 20) + 7)
        .allow_insecure(true)
        .build();
    assert!(matches!(small_q, Err(BgvError::InvalidParameter { name: "plaintext modulus t", .. })));
    // Over an existing core (the scheme-switching path), and a set within the table at
    // dimension phi(21845) = 2^14 (438 bits) without allow_insecure.
    let p = params(105, &[50, 50], &[55], 65537);
    let again = BgvParameters::from_core(p.core(), 65537).unwrap();
    assert_eq!(*again, *p);
    assert_eq!(again.ring_kind(), RingKind::Cyclotomic { m: 105 });
    let secure = BgvParametersBuilder::new_cyclotomic(21845)
        .ciphertext_moduli_bits(&[55; 6])
        .special_moduli_bits(&[60])
        .plaintext_modulus(65537)
        .build()
        .unwrap();
    assert!(secure.is_secure_128());
    assert!(secure.estimated_depth() >= 1);
    // Beyond the table at dimension phi(m) without allow_insecure.
    let insecure = BgvParametersBuilder::new_cyclotomic(1023)
        .ciphertext_moduli_bits(&[50, 50])
        .special_moduli_bits(&[55])
        .plaintext_modulus(257)
        .build();
    assert!(matches!(insecure, Err(BgvError::Insecure { .. })), "{insecure:?}");
}

/// The circuit of the brief (`common::phi_m::phi_m_circuit`) for every ring and two plaintext
/// moduli (a 17-bit prime and `t = 2`), checked against plaintext arithmetic modulo `(Phi_m, t)`;
/// and with two special primes (hybrid key switching, digits of two primes) for a prime and a
/// composite `m`.
#[test]
fn circuits_over_phi_m_match_plaintext_arithmetic() {
    for m in RINGS {
        for t in [65537u64, 2] {
            phi_m_circuit(CpuBackend, m, t, &[60]);
        }
    }
    for m in [127, 315] {
        phi_m_circuit(CpuBackend, m, 65537, &[60, 60]);
    }
}

/// Galois elements are the ring's: units of `Z_m^*` below `m`. A non-unit, `m` itself and an
/// element beyond `m` (valid for a power-of-two ring of that size) are refused, for key
/// generation and for `apply_galois`, before any work.
#[test]
fn galois_elements_are_the_units_of_the_ring() {
    let m = 63usize;
    let p = params(m, &[50, 50], &[55], 65537);
    let context = BgvContext::new(CpuBackend, &p).unwrap();
    let secret = context.secret_key_from_seed(&seed(1)).unwrap();
    let public = context.public_key_from_seed(&secret, &seed(2)).unwrap();
    for bad in [3u64, 7, 21, 63, 65, 0] {
        let result = context.galois_keys_from_seed(&secret, &[bad], &seed(4));
        assert!(
            matches!(result, Err(BgvError::InvalidGaloisElement { element, two_n: 63 }) if element == bad),
            "g = {bad}: {result:?}"
        );
    }
    let keys = context.galois_keys_from_seed(&secret, &[2, 5], &seed(4)).unwrap();
    let ct =
        context.encrypt_with_seed(&CoefficientEncoder::new(&p).encode(&[1, 2, 3]).unwrap(), &public, &seed(5)).unwrap();
    assert!(matches!(context.apply_galois(&ct, 9, &keys), Err(BgvError::InvalidGaloisElement { element: 9, .. })));
    assert!(matches!(context.apply_galois(&ct, 4, &keys), Err(BgvError::MissingGaloisKey { element: 4, .. })));
    // No rows over Phi_m.
    assert!(matches!(context.rotate_rows(&ct, 1, &keys), Err(BgvError::InvalidParameter { name: "m", value: 63, .. })));
    assert!(matches!(context.rotate_columns(&ct, &keys), Err(BgvError::InvalidParameter { name: "m", value: 63, .. })));
}

/// Coefficient encoding round trips (unsigned and signed, phi(m) coefficients, too many values
/// refused); batch slots are refused for a `t` that is not a prime `= 1 mod m`.
#[test]
fn coefficient_encoding_over_phi_m() {
    for m in RINGS {
        let t = 65537u64;
        let p = params(m, &[50, 50], &[55], t);
        let n = p.degree();
        let encoder = CoefficientEncoder::new(&p);
        let mut rng = StdRng::seed_from_u64(m as u64);
        let values: Vec<u64> = (0..n).map(|_| rng.gen_range(0..t)).collect();
        assert_eq!(encoder.decode(&encoder.encode(&values).unwrap()).unwrap(), values);
        let signed: Vec<i64> = (0..n).map(|_| rng.gen_range(-32768..=32768)).collect();
        assert_eq!(encoder.decode_signed(&encoder.encode_signed(&signed).unwrap()).unwrap(), signed);
        let short = encoder.encode(&[5, 6]).unwrap();
        assert_eq!(short.coefficients().len(), n);
        assert!(matches!(encoder.encode(&vec![0; n + 1]), Err(BgvError::TooManyValues { max, .. }) if max == n));
        // 65537 - 1 = 2^16 has no odd factor: no slots in Z_t for any odd m.
        assert!(matches!(BatchEncoder::new(&p), Err(BgvError::BatchingUnsupported { plaintext_modulus: 65537, .. })));
    }
    for (m, t) in [(63usize, 2u64), (63, 257), (105, 211 * 2)] {
        let p = params(m, &[50, 50], &[55], t);
        assert!(
            matches!(BatchEncoder::new(&p), Err(BgvError::BatchingUnsupported { plaintext_modulus, .. }) if plaintext_modulus == t)
        );
    }
}

/// The smallest prime `t = 1 mod m` above `2^bits` (`step = m`), or `= 1 mod step`.
fn prime_one_mod(step: u64, bits: u32) -> u64 {
    let mut c = ((1u64 << bits) / step + 1) * step + 1;
    while !modarith::is_prime(c) {
        c += step;
    }
    c
}

/// `p(z) mod t` by Horner in `u128`.
fn evaluate(p: &[u64], z: u64, t: u64) -> u64 {
    p.iter().rev().fold(0u128, |acc, &c| (acc * u128::from(z) + u128::from(c)) % u128::from(t)) as u64
}

/// Batch slots over `Phi_m` for a prime `t = 1 mod m`, by the direct evaluation and by
/// Bluestein's plan (`t = 1 mod 2mM`): slot `s` is the value at `w^(k_s)` (the units `k_s` of
/// `Z_m`, increasing; `w` the value of `x` in slot 0, a primitive `m`-th root), checked by
/// evaluating the plaintext polynomial here; round trips; slot-wise products and sums of
/// ciphertexts; and `x -> x^g` moving slot `g k` to slot `k`.
#[test]
fn batch_slots_over_phi_m() {
    for m in RINGS {
        let units: Vec<usize> = (1..m).filter(|&k| gcd(k, m) == 1).collect();
        let big_m = poly::bluestein::bluestein_length(m) as u64;
        let direct = {
            let mut t = prime_one_mod(m as u64, 20);
            while (t - 1).is_multiple_of(2 * big_m) {
                t = prime_one_mod(m as u64, 64 - t.leading_zeros());
            }
            t
        };
        let bluestein = prime_one_mod(m as u64 * 2 * big_m, 30);
        for t in [direct, bluestein] {
            let what = format!("m = {m}, t = {t}");
            let ring = PlainRing::new(m, t);
            let p = params(m, &[60, 50, 50], &[60], t);
            let batch = BatchEncoder::new(&p).unwrap();
            // Both ways of the core's encoder are exercised.
            let layout = rlwe::slots::CyclotomicSlots::new(t, m).unwrap();
            assert_eq!(layout.uses_bluestein(), t == bluestein, "{what}");
            assert_eq!(layout.exponents(), &units[..]);
            assert_eq!(batch.slot_count(), units.len(), "{what}");
            let coefficient = CoefficientEncoder::new(&p);
            let mut x = vec![0u64; p.degree()];
            x[1] = 1;
            let roots = batch.decode(&coefficient.encode(&x).unwrap()).unwrap();
            let w = roots[0];
            assert!((1..m as u64).all(|e| modpow(w, e, t) != 1), "{what}: w has order m");
            assert_eq!(modpow(w, m as u64, t), 1, "{what}");
            for (s, &k) in units.iter().enumerate() {
                assert_eq!(roots[s], modpow(w, k as u64, t), "{what}: slot {s}");
            }
            let mut rng = StdRng::seed_from_u64(t);
            let a = ring.random(&mut rng);
            let slots_a = batch.decode(&coefficient.encode(&a).unwrap()).unwrap();
            for (s, &k) in units.iter().enumerate() {
                assert_eq!(slots_a[s], evaluate(&a, modpow(w, k as u64, t), t), "{what}: evaluation at slot {s}");
            }
            let values: Vec<u64> = (0..units.len()).map(|_| rng.gen_range(0..t)).collect();
            let plain = batch.encode(&values).unwrap();
            assert_eq!(batch.decode(&plain).unwrap(), values, "{what}: round trip");
            // Fewer values: the other slots hold 0.
            let short = batch.decode(&batch.encode(&values[..3]).unwrap()).unwrap();
            assert_eq!(&short[..3], &values[..3]);
            assert!(short[3..].iter().all(|&v| v == 0));

            let context = BgvContext::new(CpuBackend, &p).unwrap();
            let secret = context.secret_key_from_seed(&seed(1)).unwrap();
            let public = context.public_key_from_seed(&secret, &seed(2)).unwrap();
            let relin = context.relin_key_from_seed(&secret, &seed(3)).unwrap();
            let other: Vec<u64> = (0..units.len()).map(|_| rng.gen_range(0..t)).collect();
            let ct = context.encrypt_with_seed(&plain, &public, &seed(10)).unwrap();
            let ct_other = context.encrypt_with_seed(&batch.encode(&other).unwrap(), &public, &seed(11)).unwrap();
            let slots_of = |ct: &bgv_encrypt::Ciphertext<CpuBackend>| {
                batch.decode(&context.decrypt(ct, &secret).unwrap()).unwrap()
            };
            let product = context.mul_relin(&ct, &ct_other, &relin).unwrap();
            let want: Vec<u64> = values
                .iter()
                .zip(&other)
                .map(|(&x, &y)| (u128::from(x) * u128::from(y) % u128::from(t)) as u64)
                .collect();
            assert_eq!(slots_of(&product), want, "{what}: slot-wise product");
            let sum = context.add(&ct, &ct_other).unwrap();
            let want: Vec<u64> = values.iter().zip(&other).map(|(&x, &y)| (x + y) % t).collect();
            assert_eq!(slots_of(&sum), want, "{what}: slot-wise sum");
            let g = 2u64;
            let galois = context.galois_keys_from_seed(&secret, &[g], &seed(4)).unwrap();
            let rotated = slots_of(&context.apply_galois(&ct, g, &galois).unwrap());
            for (s, &k) in units.iter().enumerate() {
                let from = units.binary_search(&(k * g as usize % m)).unwrap();
                assert_eq!(rotated[s], values[from], "{what}: sigma_2 at slot {s}");
            }
        }
    }
}

fn modpow(base: u64, mut e: u64, t: u64) -> u64 {
    let (t, mut acc) = (u128::from(t), 1u128);
    let mut b = u128::from(base) % t;
    while e > 0 {
        if e & 1 == 1 {
            acc = acc * b % t;
        }
        b = b * b % t;
        e >>= 1;
    }
    acc as u64
}

/// Parameters over `Phi_m` travel with their `m` (in the record's degree, under Bluestein's
/// transform) and come back equal, in JSON and postcard; a record whose `m` is not an index is
/// the builder's error. Ciphertexts and keys round-trip through their byte encodings
/// (validated against the context).
#[test]
fn parameters_and_objects_over_phi_m_round_trip() {
    let p = params(105, &[50, 50], &[55], 65537);
    let json = serde_json::to_string(&*p).unwrap();
    assert!(json.contains("\"degree\":105"), "{json}");
    let back: Arc<BgvParameters> = serde_json::from_str(&json).unwrap();
    assert_eq!(*back, *p);
    let binary = postcard::to_allocvec(&*p).unwrap();
    let from_binary: BgvParameters = postcard::from_bytes(&binary).unwrap();
    assert_eq!(from_binary, *p);
    let wrong = json.replace("\"degree\":105", "\"degree\":104");
    assert!(matches!(
        BgvParameters::load(&mut serde_json::Deserializer::from_str(&wrong)),
        Err(BgvError::InvalidParameter { name: "m", .. })
    ));
    // The power-of-two record has no m.
    let pot = BgvParametersBuilder::new(1024)
        .ciphertext_moduli_bits(&[50])
        .special_moduli_bits(&[55])
        .plaintext_modulus(257)
        .allow_insecure(true)
        .build()
        .unwrap();
    assert!(serde_json::to_string(&*pot).unwrap().contains("\"degree\":1024"));

    let context = BgvContext::new(CpuBackend, &p).unwrap();
    let secret = context.secret_key_from_seed(&seed(1)).unwrap();
    let public = context.public_key_from_seed(&secret, &seed(2)).unwrap();
    let galois = context.galois_keys_from_seed(&secret, &[2, 104], &seed(4)).unwrap();
    let encoder = CoefficientEncoder::new(&p);
    let plain = encoder.encode(&[7, 8, 9]).unwrap();
    let ct = context.encrypt_with_seed(&plain, &public, &seed(5)).unwrap();
    let ct_back = context.ciphertext_from_bytes(&context.ciphertext_to_bytes(&ct).unwrap()).unwrap();
    assert_eq!(context.decrypt(&ct_back, &secret).unwrap(), plain);
    let galois_back = context.galois_keys_from_bytes(&context.galois_keys_to_bytes(&galois).unwrap()).unwrap();
    assert_eq!(galois_back.elements(), vec![2, 104]);
    let ring = PlainRing::new(105, 65537);
    let rotated = context.apply_galois(&ct_back, 104, &galois_back).unwrap();
    assert_eq!(
        context.decrypt(&rotated, &secret).unwrap().coefficients(),
        &ring.automorphism(plain.coefficients(), 104)[..]
    );
}

/// HElib's `m = 21845` (`phi(m) = 2^14`, not a power-of-two ring): encryption, a product with
/// relinearization, a modulus switch and `x -> x^2`, against the plaintext arithmetic (a few
/// seconds in the optimized test profile, so it runs with the others).
#[test]
fn helib_ring_21845() {
    helib_ring_circuit(CpuBackend);
}
