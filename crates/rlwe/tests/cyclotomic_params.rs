#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Core parameters over a ring `Z_q[x]/Phi_m` (`RlweParametersBuilder::new_cyclotomic`): the
//! rings of every level carry the ring kind, the primes meet its congruence, the security check
//! reads the table at dimension `phi(m)`, illegal combinations are typed errors, and the
//! power-of-two builder is unchanged.

use poly::bluestein::bluestein_length;
use poly::{RingKind, TransformKind};
use rlwe::params::{ModuliChoice, RlweParametersBuilder};
use rlwe::security::{SECURITY_TABLE_128, max_modulus_bits_128, max_modulus_bits_128_dimension};

#[test]
fn cyclotomic_parameters_carry_the_ring() {
    for (m, bits) in [(63usize, vec![40u32, 40]), (1023, vec![50, 50, 50]), (21845, vec![55, 55])] {
        let params = RlweParametersBuilder::new_cyclotomic(m)
            .ciphertext(ModuliChoice::Bits(bits.clone()))
            .special(ModuliChoice::Bits(vec![60]))
            .allow_insecure(true)
            .build()
            .unwrap();
        let kind = RingKind::Cyclotomic { m };
        assert_eq!(params.ring_kind(), kind);
        assert_eq!(params.degree(), kind.degree());
        assert_eq!(params.transform(), TransformKind::Bluestein);
        let step = m as u64 * 2 * bluestein_length(m) as u64;
        for &p in params.ciphertext_moduli().iter().chain(params.special_moduli()) {
            assert_eq!(p % step, 1, "m = {m}, p = {p}");
        }
        for (&p, &b) in params.ciphertext_moduli().iter().zip(&bits) {
            assert_eq!(64 - p.leading_zeros(), b, "m = {m}");
        }
        for ring in [params.ring_q(), params.ring_qp(), &params.ring_context(params.special_moduli()).unwrap()] {
            assert_eq!(ring.ring_kind(), kind);
            assert_eq!(ring.degree(), params.degree());
        }
        for level in 0..params.ciphertext_moduli().len() {
            assert_eq!(params.ring_at_level(level).unwrap().ring_kind(), kind, "m = {m}, level {level}");
        }
        let again = RlweParametersBuilder::new_cyclotomic(m)
            .ciphertext(ModuliChoice::Explicit(params.ciphertext_moduli().to_vec()))
            .special(ModuliChoice::Explicit(params.special_moduli().to_vec()))
            .allow_insecure(true)
            .build()
            .unwrap();
        assert_eq!(*again, *params);
    }
    // HElib's m = 21845 has phi(m) = 2^14: the table's row, 438 bits.
    let secure = RlweParametersBuilder::new_cyclotomic(21845)
        .ciphertext(ModuliChoice::Bits(vec![55; 6]))
        .special(ModuliChoice::Bits(vec![60]))
        .build()
        .unwrap();
    assert!(secure.is_secure_128());
    let too_big = RlweParametersBuilder::new_cyclotomic(21845)
        .ciphertext(ModuliChoice::Bits(vec![60; 8]))
        .special(ModuliChoice::Bits(vec![60]))
        .build();
    assert!(matches!(too_big, Err(rlwe::RlweError::Insecure { degree: 16384, max_bits: 438, .. })));
}

#[test]
fn illegal_cyclotomic_parameters_are_errors() {
    let bits = |b: Vec<u32>| ModuliChoice::Bits(b);
    for m in [0usize, 1, 2, 64, (1 << 17) + 1] {
        let result = RlweParametersBuilder::new_cyclotomic(m)
            .ciphertext(bits(vec![50]))
            .special(bits(vec![55]))
            .allow_insecure(true)
            .build();
        assert!(matches!(result, Err(rlwe::RlweError::InvalidParameter { name: "m", .. })), "m = {m}");
    }
    // A power-of-two NTT prime is not 1 mod 63 * 256.
    let ntt = modarith::generate_ntt_primes(50, 2048, 1, &[]).unwrap();
    let wrong = RlweParametersBuilder::new_cyclotomic(63)
        .ciphertext(ModuliChoice::Explicit(vec![12289]))
        .special(bits(vec![55]))
        .allow_insecure(true)
        .build();
    assert!(matches!(wrong, Err(rlwe::RlweError::InvalidParameter { .. })));
    // The transforms of the power-of-two ring on Phi_m, and Bluestein's on x^N + 1.
    for transform in TransformKind::ALL {
        let result = RlweParametersBuilder::new_cyclotomic(63)
            .ciphertext(bits(vec![50]))
            .special(bits(vec![55]))
            .transform(transform)
            .allow_insecure(true)
            .build();
        assert!(result.is_err(), "{transform:?}");
    }
    let result = RlweParametersBuilder::new(1024)
        .ciphertext(ModuliChoice::Explicit(ntt))
        .special(bits(vec![55]))
        .transform(TransformKind::Bluestein)
        .allow_insecure(true)
        .build();
    assert!(result.is_err());
}

/// The power-of-two builder is what it was: the NTT, primes 1 mod 2N, the table's exact rows.
#[test]
fn power_of_two_parameters_are_unchanged() {
    let params = RlweParametersBuilder::new(4096)
        .ciphertext(ModuliChoice::Bits(vec![36, 36]))
        .special(ModuliChoice::Bits(vec![37]))
        .build()
        .unwrap();
    assert_eq!(params.ring_kind(), RingKind::NegacyclicPowerOfTwo { degree: 4096 });
    assert_eq!(params.transform(), TransformKind::Ntt);
    let want = modarith::generate_ntt_primes(36, 8192, 2, &[]).unwrap();
    assert_eq!(params.ciphertext_moduli(), &want[..]);
    for &(n, bits) in &SECURITY_TABLE_128 {
        assert_eq!(max_modulus_bits_128(n), Some(bits));
        assert_eq!(max_modulus_bits_128_dimension(n), Some(bits));
    }
    assert_eq!(max_modulus_bits_128(27000), None);
    assert_eq!(max_modulus_bits_128_dimension(27000), Some(721));
}

/// A core parameter record over `Phi_m` names `m` (in the degree field, under Bluestein's
/// transform) and comes back equal through JSON and postcard; rings of one `phi(m)` stay apart.
#[cfg(feature = "serde")]
#[test]
fn cyclotomic_parameter_records_round_trip() {
    for m in [35usize, 39, 45, 1023] {
        let params = RlweParametersBuilder::new_cyclotomic(m)
            .ciphertext(ModuliChoice::Bits(vec![50, 50]))
            .special(ModuliChoice::Bits(vec![55]))
            .allow_insecure(true)
            .build()
            .unwrap();
        let json = serde_json::to_string(&*params).unwrap();
        assert!(json.contains(&format!("\"degree\":{m}")), "{json}");
        let back: rlwe::RlweParameters = serde_json::from_str(&json).unwrap();
        assert_eq!(back, *params);
        assert_eq!(back.ring_kind(), RingKind::Cyclotomic { m });
        let binary = postcard::to_allocvec(&*params).unwrap();
        let back: rlwe::RlweParameters = postcard::from_bytes(&binary).unwrap();
        assert_eq!(back, *params);
    }
}
