//! Golden vectors: 64-bit FNV-1a hashes of the words of keys and ciphertexts made from fixed
//! seeds, and the comparison of a table of them with the recorded one (every scheme's
//! `tests/common/golden.rs` builds its table on any backend and checks it here).

/// The FNV-1a offset basis: the hash of nothing.
pub const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// 64-bit FNV-1a over `bytes`, continuing from `hash`.
pub fn fnv1a_bytes(mut hash: u64, bytes: impl IntoIterator<Item = u8>) -> u64 {
    for byte in bytes {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// 64-bit FNV-1a over the little-endian bytes of `words`, continuing from `hash`.
pub fn fnv1a(hash: u64, words: &[u64]) -> u64 {
    fnv1a_bytes(hash, words.iter().flat_map(|w| w.to_le_bytes()))
}

/// Prints `got` (one row per set, so a deliberate change can be pasted into the table) and
/// panics naming every `(set, object)` whose hash differs from `expected`.
pub fn check_table<const K: usize>(sets: &[&str], objects: &[&str; K], got: &[[u64; K]], expected: &[[u64; K]]) {
    assert_eq!(sets.len(), expected.len(), "one recorded row per set");
    assert_eq!(got.len(), expected.len(), "one computed row per set");
    let mut mismatches = Vec::new();
    for ((set, got), expected) in sets.iter().zip(got).zip(expected) {
        println!("{set}: [{}],", got.map(|h| format!("{h:#018x}")).join(", "));
        for ((object, got), expected) in objects.iter().zip(got).zip(expected) {
            if got != expected {
                mismatches.push(format!("{set} / {object}: got {got:#018x}, expected {expected:#018x}"));
            }
        }
    }
    assert!(mismatches.is_empty(), "golden vectors changed:\n{}", mismatches.join("\n"));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The published FNV-1a 64 test vectors ("" and "a").
    #[test]
    fn fnv1a_matches_the_reference_vectors() {
        assert_eq!(fnv1a_bytes(FNV_OFFSET, []), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a_bytes(FNV_OFFSET, *b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(FNV_OFFSET, &[0x61]), fnv1a_bytes(FNV_OFFSET, [0x61, 0, 0, 0, 0, 0, 0, 0]));
    }

    #[test]
    #[should_panic(expected = "golden vectors changed")]
    fn a_changed_hash_is_named() {
        check_table(&["set"], &["object"], &[[1]], &[[2]]);
    }
}
