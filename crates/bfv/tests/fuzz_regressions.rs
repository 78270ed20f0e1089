#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Fuzz regressions on stable (`cargo xtask test`): every input kept in
//! `fuzz/regressions/decode_bfv/` (a libFuzzer input of the `decode_bfv` target, whose first
//! byte even means "the rest, raw") goes through every BFV decoder, which must return (an
//! error or an object), never panic. And the limits before allocation: short inputs whose
//! headers declare huge counts are refused at once.

use std::sync::Arc;

use bfv::{BfvContext, BfvError, BfvParameters, BfvParametersBuilder};
use poly::CpuBackend;

fn context() -> BfvContext<CpuBackend> {
    let params: Arc<BfvParameters> = BfvParametersBuilder::new(1024)
        .ciphertext_moduli_bits(&[30, 30])
        .special_moduli_bits(&[31])
        .plaintext_modulus(65537)
        .allow_insecure(true)
        .build()
        .unwrap();
    BfvContext::new(CpuBackend, &params).unwrap()
}

fn decode_everything(context: &BfvContext<CpuBackend>, bytes: &[u8]) {
    let _ = context.ciphertext_from_bytes(bytes);
    let _ = context.seeded_from_bytes(bytes);
    let _ = context.public_key_from_bytes(bytes);
    let _ = context.relin_key_from_bytes(bytes);
    let _ = context.galois_keys_from_bytes(bytes);
    let _ = context.secret_key_from_bytes(bytes);
}

#[test]
fn kept_fuzz_inputs_decode_without_panicking() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions/decode_bfv");
    let context = context();
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let data = std::fs::read(entry.unwrap().path()).unwrap();
        decode_everything(&context, data.get(1..).unwrap_or_default());
        decode_everything(&context, &data);
        count += 1;
    }
    assert!(count > 0, "no inputs in {}", dir.display());
}

/// A header with the context's fields and a count of `u32::MAX` polynomials (or Galois
/// elements), in a few dozen bytes: refused as malformed before anything is allocated.
#[test]
fn short_inputs_cannot_ask_for_gigabytes() {
    let context = context();
    let params = context.params();
    let encoding = |kind: u8, key: bool| {
        let mut bytes = b"HEGPUBFV".to_vec();
        bytes.extend_from_slice(&[rlwe::framing::VERSION, kind]);
        bytes.extend_from_slice(&(params.degree() as u32).to_le_bytes());
        bytes.extend_from_slice(&(params.ciphertext_moduli().len() as u32).to_le_bytes());
        for &q in params.ciphertext_moduli() {
            bytes.extend_from_slice(&q.to_le_bytes());
        }
        bytes.extend_from_slice(&params.plaintext_modulus().to_le_bytes());
        bytes.extend_from_slice(&u32::MAX.to_le_bytes());
        if key {
            bytes.extend_from_slice(&(params.special_moduli().len() as u32).to_le_bytes());
            for &p in params.special_moduli() {
                bytes.extend_from_slice(&p.to_le_bytes());
            }
            bytes.push(0);
        }
        bytes
    };
    let start = std::time::Instant::now();
    let ciphertext = encoding(1, false);
    assert!(ciphertext.len() < 64);
    assert!(matches!(context.ciphertext_from_bytes(&ciphertext), Err(BfvError::Malformed { .. })));
    assert!(matches!(context.seeded_from_bytes(&encoding(2, false)), Err(BfvError::Malformed { .. })));
    assert!(matches!(context.relin_key_from_bytes(&encoding(4, true)), Err(BfvError::Malformed { .. })));
    assert!(matches!(context.galois_keys_from_bytes(&encoding(5, true)), Err(BfvError::Malformed { .. })));
    assert!(matches!(context.public_key_from_bytes(&encoding(3, true)), Err(BfvError::Malformed { .. })));
    assert!(matches!(context.secret_key_from_bytes(&encoding(6, true)), Err(BfvError::Malformed { .. })));
    assert!(start.elapsed() < std::time::Duration::from_secs(2));
}
