//! Plaintexts and encoders: the core's (`rlwe::Plaintext`, `rlwe::BatchEncoder`,
//! `rlwe::CoefficientEncoder`; the slot layout and its automorphisms are described there)
//! under BFV's parameters. The batch encoder's transform also runs on a [`BfvContext`]'s
//! backend ([`BatchEncoder::encode_resident`], [`BatchEncoder::decode_resident`]).

#[cfg(doc)]
use crate::BfvContext;
use crate::BfvParameters;

/// An element of `R_t = Z_t[x]/(x^N + 1)`: `N` coefficients in `[0, t)`, on the host, tied to
/// its BFV parameters.
pub type Plaintext = rlwe::Plaintext<BfvParameters>;

/// Values as plaintext coefficients, for any `t >= 2`.
pub type CoefficientEncoder = rlwe::CoefficientEncoder<BfvParameters>;

/// SIMD encoding into `N` slots (two rows of `N/2`, SEAL's layout), for a prime `t = 1 mod 2N`.
pub type BatchEncoder = rlwe::BatchEncoder<BfvParameters>;

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng, rngs::StdRng};

    use std::sync::Arc;

    use super::*;
    use crate::{BfvError, BfvParametersBuilder, Preset};
    use modarith::Modulus;
    use rlwe::slots::center;

    fn small_params(t: u64) -> Arc<BfvParameters> {
        BfvParametersBuilder::new(1024)
            .ciphertext_moduli_bits(&[60, 60])
            .special_moduli_bits(&[60])
            .plaintext_modulus(t)
            .allow_insecure(true)
            .build()
            .unwrap()
    }

    /// `a(x) -> a(x^g)` on coefficients modulo `t`.
    fn automorphism(a: &[u64], g: usize, t: u64) -> Vec<u64> {
        let n = a.len();
        let mut out = vec![0u64; n];
        for (j, &c) in a.iter().enumerate() {
            let k = j * g % (2 * n);
            if k < n {
                out[k] = c;
            } else {
                out[k - n] = (t - c) % t;
            }
        }
        out
    }

    fn evaluate(a: &[u64], x: u64, m: &Modulus) -> u64 {
        a.iter().rev().fold(0, |acc, &c| m.add(m.mul(acc, x), c))
    }

    #[test]
    fn batch_slots_are_evaluations_at_powers_of_three() {
        let params = Preset::Secure { log_degree: 12 }.build().unwrap();
        let t = params.plaintext_modulus();
        let m = Modulus::new(t).unwrap();
        let encoder = BatchEncoder::new(&params).unwrap();
        let mut rng = StdRng::seed_from_u64(1);
        let values: Vec<u64> = (0..4096).map(|_| rng.gen_range(0..t)).collect();
        let pt = encoder.encode(&values).unwrap();
        let psi = modarith::primitive_root_of_unity(&m, 8192).unwrap();
        let psi_inv = m.inv(psi).unwrap();
        for i in [0usize, 1, 2, 77, 2047] {
            let exponent = (0..i).fold(1u64, |acc, _| acc * 3 % 8192); // 3^i mod 2N
            assert_eq!(evaluate(pt.coefficients(), m.pow(psi, exponent), &m), values[i], "row 0 slot {i}");
            assert_eq!(evaluate(pt.coefficients(), m.pow(psi_inv, exponent), &m), values[2048 + i], "row 1 slot {i}");
        }
        assert_eq!(encoder.decode(&pt).unwrap(), values);
    }

    #[test]
    fn batch_products_are_slotwise_and_automorphisms_rotate() {
        let params = Preset::Secure { log_degree: 12 }.build().unwrap();
        let t = params.plaintext_modulus();
        let m = Modulus::new(t).unwrap();
        let encoder = BatchEncoder::new(&params).unwrap();
        let mut rng = StdRng::seed_from_u64(2);
        let a: Vec<u64> = (0..4096).map(|_| rng.gen_range(0..t)).collect();
        let b: Vec<u64> = (0..4096).map(|_| rng.gen_range(0..t)).collect();
        let (pa, pb) = (encoder.encode(&a).unwrap(), encoder.encode(&b).unwrap());
        let product = poly::reference::negacyclic_convolution(&m, pa.coefficients(), pb.coefficients()).unwrap();
        let decoded = encoder.decode(&Plaintext::from_coefficients(&params, &product).unwrap()).unwrap();
        let expected: Vec<u64> = a.iter().zip(&b).map(|(&x, &y)| m.mul(x, y)).collect();
        assert_eq!(decoded, expected);

        let row = 2048;
        let rotated = encoder
            .decode(&Plaintext::from_coefficients(&params, &automorphism(pa.coefficients(), 3, t)).unwrap())
            .unwrap();
        for i in 0..row {
            assert_eq!(rotated[i], a[(i + 1) % row]);
            assert_eq!(rotated[row + i], a[row + (i + 1) % row]);
        }
        let swapped = encoder
            .decode(&Plaintext::from_coefficients(&params, &automorphism(pa.coefficients(), 8191, t)).unwrap())
            .unwrap();
        assert_eq!(&swapped[..row], &a[row..]);
        assert_eq!(&swapped[row..], &a[..row]);
    }

    #[test]
    fn batch_encoder_checks_its_input() {
        let params = Preset::Secure { log_degree: 12 }.build().unwrap();
        let t = params.plaintext_modulus();
        let encoder = BatchEncoder::new(&params).unwrap();
        assert!(matches!(
            encoder.encode(&[1, t]),
            Err(BfvError::PlaintextOutOfRange { index: 1, value, modulus }) if value == t && modulus == t
        ));
        assert!(matches!(encoder.encode(&vec![0; 4097]), Err(BfvError::TooManyValues { max: 4096, actual: 4097, .. })));
        let half = (t / 2) as i64;
        assert!(matches!(
            encoder.encode_signed(&[half + 1]),
            Err(BfvError::SignedPlaintextOutOfRange { index: 0, .. })
        ));
        let signed = vec![-half, half, -1, 0, 1];
        assert_eq!(&encoder.decode_signed(&encoder.encode_signed(&signed).unwrap()).unwrap()[..5], &signed[..]);
        // Short inputs fill the other slots with zero.
        let decoded = encoder.decode(&encoder.encode(&[5, 6]).unwrap()).unwrap();
        assert_eq!(&decoded[..2], &[5, 6]);
        assert!(decoded[2..].iter().all(|&v| v == 0));
        // t = 256 and composite or wrong-residue t cannot batch.
        for t in [256u64, 65537 * 3, 12289, 40961, 12289 * 2 - 1] {
            let p = small_params(t);
            let unsupported = matches!(BatchEncoder::new(&p), Err(BfvError::BatchingUnsupported { .. }));
            assert_eq!(unsupported, !(modarith::is_prime(t) && t % 2048 == 1), "t = {t}");
        }
    }

    #[test]
    fn coefficient_encoder_round_trips_for_any_t() {
        for t in [2u64, 3, 256, 1 << 20, (1 << 40) + 7] {
            let params = small_params(t);
            let encoder = CoefficientEncoder::new(&params);
            let mut rng = StdRng::seed_from_u64(t);
            let values: Vec<u64> = (0..1000).map(|_| rng.gen_range(0..t)).collect();
            let decoded = encoder.decode(&encoder.encode(&values).unwrap()).unwrap();
            assert_eq!(&decoded[..1000], &values[..]);
            assert!(decoded[1000..].iter().all(|&v| v == 0));
            let signed: Vec<i64> = values.iter().map(|&v| center(v, t)).collect();
            assert_eq!(&encoder.decode_signed(&encoder.encode_signed(&signed).unwrap()).unwrap()[..1000], &signed[..]);
            assert!(matches!(encoder.encode(&[t]), Err(BfvError::PlaintextOutOfRange { index: 0, .. })));
        }
        let other = small_params(3);
        let encoder = CoefficientEncoder::new(&small_params(2));
        assert!(matches!(
            encoder.decode(&Plaintext::zero(&other)),
            Err(BfvError::ParameterMismatch { what: "plaintext", .. })
        ));
    }
}
