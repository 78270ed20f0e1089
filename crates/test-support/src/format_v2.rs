//! Objects recorded in byte-format version 2 (every polynomial word in 8 bytes, before the
//! packed words and seeded keys of version 3), which the decoders must still load: BGV and
//! BFV at `N = 1024` with one 50-bit ciphertext prime, one 55-bit special prime and
//! `t = 65537`, from fixed seeds (the objects of `bgv-encrypt`'s `tests/common/wire.rs`).

/// The recorded bytes of `name` (`bgv_secret_key.bin`, `bgv_public_key.bin`,
/// `bgv_relin_key.bin`, `bgv_galois_keys.bin`, `bgv_ciphertext.bin`, `bgv_seeded.bin`,
/// `bgv_plaintext.bin`, `bfv_public_key.bin`, `bfv_ciphertext.bin`, `bfv_seeded.bin`), or
/// `None` for another name.
pub fn recorded(name: &str) -> Option<&'static [u8]> {
    Some(match name {
        "bgv_secret_key.bin" => include_bytes!("../data/format_v2/bgv_secret_key.bin"),
        "bgv_public_key.bin" => include_bytes!("../data/format_v2/bgv_public_key.bin"),
        "bgv_relin_key.bin" => include_bytes!("../data/format_v2/bgv_relin_key.bin"),
        "bgv_galois_keys.bin" => include_bytes!("../data/format_v2/bgv_galois_keys.bin"),
        "bgv_ciphertext.bin" => include_bytes!("../data/format_v2/bgv_ciphertext.bin"),
        "bgv_seeded.bin" => include_bytes!("../data/format_v2/bgv_seeded.bin"),
        "bgv_plaintext.bin" => include_bytes!("../data/format_v2/bgv_plaintext.bin"),
        "bfv_public_key.bin" => include_bytes!("../data/format_v2/bfv_public_key.bin"),
        "bfv_ciphertext.bin" => include_bytes!("../data/format_v2/bfv_ciphertext.bin"),
        "bfv_seeded.bin" => include_bytes!("../data/format_v2/bfv_seeded.bin"),
        _ => return None,
    })
}
