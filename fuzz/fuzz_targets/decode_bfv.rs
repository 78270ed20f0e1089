//! Every BFV byte decoder (ciphertext, seeded ciphertext, public, relinearization, Galois and
//! secret keys) on raw or mutated-valid bytes: errors are fine, panics and aborts are not; a
//! successful decode re-encodes to the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let fixture = hegpu_fuzz::bfv_fixture();
    hegpu_fuzz::with_input_bytes(data, &fixture.valid, |bytes| check(&fixture.context, bytes));
});

fn check(c: &bfv::BfvContext<poly::CpuBackend>, bytes: &[u8]) {
    // Older versions re-encode as the version written: compare only bytes already of it.
    let current = bytes.get(8) == Some(&rlwe::framing::VERSION);
    if let Ok(x) = c.ciphertext_from_bytes(bytes) {
        assert!(!current || c.ciphertext_to_bytes(&x).unwrap() == bytes);
    }
    if let Ok(x) = c.seeded_from_bytes(bytes) {
        assert!(!current || c.seeded_to_bytes(&x).unwrap() == bytes);
    }
    if let Ok(x) = c.public_key_from_bytes(bytes) {
        assert!(!current || c.public_key_to_bytes(&x).unwrap() == bytes);
    }
    if let Ok(x) = c.relin_key_from_bytes(bytes) {
        assert!(!current || c.relin_key_to_bytes(&x).unwrap() == bytes);
    }
    if let Ok(x) = c.galois_keys_from_bytes(bytes) {
        assert!(!current || c.galois_keys_to_bytes(&x).unwrap() == bytes);
    }
    if let Ok(x) = c.secret_key_from_bytes(bytes) {
        assert!(!current || c.secret_key_to_bytes(&x).unwrap() == bytes);
    }
}
