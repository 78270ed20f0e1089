//! The core's scheme-generic plaintexts, encoders and plaintext codec under a stand-in scheme
//! (the schemes' own tests cover them under BFV and BGV, with their contexts).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use rlwe::framing::Scheme;
use rlwe::{
    BatchEncoder, CoefficientEncoder, ModuliChoice, Plaintext, RlweError, RlweParameters, RlweParametersBuilder,
    SchemeParameters,
};

/// A scheme of the core's parameters and `t` alone, tagged as `SCHEME`.
#[derive(Debug, PartialEq, Eq)]
struct Stand<const BGV: bool> {
    core: Arc<RlweParameters>,
    t: u64,
}

impl<const BGV: bool> SchemeParameters for Stand<BGV> {
    const SCHEME: Scheme = if BGV { Scheme::Bgv } else { Scheme::Bfv };
    type Form = poly::Coeff;
    type CiphertextState = ();

    fn core(&self) -> &Arc<RlweParameters> {
        &self.core
    }

    fn plaintext_modulus(&self) -> u64 {
        self.t
    }
}

fn params<const BGV: bool>(t: u64) -> Arc<Stand<BGV>> {
    let core = RlweParametersBuilder::new(1024)
        .ciphertext(ModuliChoice::Bits(vec![40, 40]))
        .special(ModuliChoice::Bits(vec![41]))
        .allow_insecure(true)
        .build()
        .unwrap();
    Arc::new(Stand { core, t })
}

#[test]
fn encoders_round_trip_and_refuse_with_the_core_errors() {
    let batching = params::<false>(12289); // prime, 1 mod 2048
    let encoder = BatchEncoder::new(&batching).unwrap();
    let values: Vec<u64> = (0..1024).map(|i| i * 7 % 12289).collect();
    assert_eq!(encoder.decode(&encoder.encode(&values).unwrap()).unwrap(), values);
    let signed = vec![-6144, 6144, -1, 0, 1];
    assert_eq!(&encoder.decode_signed(&encoder.encode_signed(&signed).unwrap()).unwrap()[..5], &signed[..]);
    assert!(matches!(encoder.encode(&[12289]), Err(RlweError::PlaintextOutOfRange { index: 0, .. })));
    assert!(matches!(
        encoder.encode(&vec![0; 1025]),
        Err(RlweError::TooManyValues { what: "batch slots", max: 1024, actual: 1025 })
    ));
    assert!(matches!(BatchEncoder::new(&params::<false>(256)), Err(RlweError::BatchingUnsupported { .. })));

    let other = params::<false>(256);
    let coefficients = CoefficientEncoder::new(&other);
    let plaintext = coefficients.encode_signed(&[-1, 2, 128]).unwrap();
    assert_eq!(&plaintext.coefficients()[..3], &[255, 2, 128]);
    assert_eq!(&coefficients.decode_signed(&plaintext).unwrap()[..3], &[-1, 2, 128]);
    assert!(matches!(
        coefficients.encode_signed(&[0, -128]),
        Err(RlweError::SignedPlaintextOutOfRange { index: 1, value: -128, modulus: 256 })
    ));
    assert!(matches!(encoder.decode(&plaintext), Err(RlweError::ParameterMismatch { what: "plaintext", .. })));
}

#[test]
fn plaintext_bytes_carry_the_scheme_tag_and_are_checked() {
    let bfv = params::<false>(257);
    let plaintext = Plaintext::from_coefficients(&bfv, &[1, 2, 256]).unwrap();
    let bytes = plaintext.to_bytes().unwrap();
    assert_eq!(&bytes[..8], b"HEGPUBFV");
    assert_eq!(Plaintext::from_bytes(&bfv, &bytes).unwrap(), plaintext);
    // The same values under the other tag are refused, and so are other parameters.
    let bgv = params::<true>(257);
    assert!(matches!(Plaintext::from_bytes(&bgv, &bytes), Err(RlweError::Malformed { .. })));
    assert!(matches!(Plaintext::from_bytes(&params::<false>(263), &bytes), Err(RlweError::ParameterMismatch { .. })));
    // A coefficient not below t.
    let mut tampered = bytes.clone();
    // The coefficients are packed to 9 bits (the width of t - 1 = 256): the first is the low 8
    // bits of the first byte and the low bit of the second.
    let first = tampered.len() - 8 - (1024 * 9) / 8;
    tampered[first] = 0x01;
    tampered[first + 1] |= 0x01;
    assert!(matches!(Plaintext::from_bytes(&bfv, &tampered), Err(RlweError::PlaintextOutOfRange { index: 0, .. })));
    assert!(matches!(Plaintext::from_bytes(&bfv, &bytes[..bytes.len() - 1]), Err(RlweError::Malformed { .. })));
}
