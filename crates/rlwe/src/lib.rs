//! The RLWE core under the schemes (BFV, BGV): what they share, written once over any
//! [`poly::Backend`] that implements [`RlweBackend`] (the CPU reference and the GPU).
//!
//! - [`params`]: [`RlweParameters`] (degree, ciphertext and special primes, transform,
//!   key-switching tables) and its builder; [`security`]: the HE Standard's 128-bit table;
//! - [`RlweContext`]: parameters prepared on a backend (rings, gadget factors, the backend's
//!   key-switching tables, prepared once);
//! - keys: [`SecretKey`], [`PublicKey`] (keys.rs), [`KeySwitchingKey`]
//!   (key_switching_key.rs), [`RelinearizationKey`] (relinearization_key.rs), [`GaloisKeys`]
//!   and the Galois elements (galois_key.rs);
//! - [`Evaluator`] and [`SlotEncoding`]: what a circuit needs from a scheme (one circuit,
//!   either scheme, either backend);
//! - [`rotation`]: rotations by any step (keys for a list of steps, the compact default, and
//!   compositions of the keys held);
//! - [`digit_extraction`]: the lowest base-`p` digit over `Z_{p^e}` as a polynomial of degree
//!   `(e - 1)(p - 1) + 1` (Chen-Han), for bootstrapping's digit extraction;
//! - [`polynomial_eval`]: a polynomial over `Z_t` evaluated on ciphertexts slot by slot
//!   (Paterson-Stockmeyer: about `2 sqrt(2d)` products and depth `log2 d` for degree `d`);
//! - [`operators`]: `&a + &b`, `&a * &b`, `&a * 3`, ... through a [`BoundEvaluator`] that
//!   holds a scheme's context and its evaluation keys;
//! - [`keyswitch`]: the one key-switching algorithm (ModUp, inner product, ModDown);
//! - [`chain`]: the modulus chain (levels, rescaling by the last prime, dropping limbs);
//! - encryption (encrypt.rs): an encryption of zero plus the scheme's message term, with an
//!   error scale of 1 (BFV) or `t` (BGV);
//! - [`plaintext_lift`]: a plaintext as a polynomial over `q` (scaled or lifted), plaintext
//!   words kept on the backend ([`PlaintextBackend`]);
//! - the small scheme traits ([`SchemeParameters`], [`SchemeContext`]; scheme.rs): what a
//!   scheme (BFV, BGV) adds to the core, over which the rest of this list is written once;
//! - plaintexts and encoders: [`Plaintext`], [`CoefficientEncoder`], [`BatchEncoder`]
//!   (encoding.rs), [`ResidentPlaintext`] and the batch transform on a backend
//!   ([`BatchingContext`]; resident.rs); [`slots`]: the SIMD slot layout;
//! - [`Ciphertext`]: every scheme's full ciphertext (polynomials, level, key set, the scheme's
//!   state); [`SeededCiphertext`]: a symmetric ciphertext whose uniform half travels as its seed;
//! - [`framing`]: the byte-encoding header (with the scheme tag) and its reader; [`codec`]:
//!   the byte encodings of plaintexts and ciphertexts (with what a scheme's ciphertext adds:
//!   [`codec::CiphertextCodec`]), [`key_bytes`]: those of the keys;
//! - `serde_support` (feature `serde`, on by default): serde through the byte encodings
//!   (objects travel as them, validated by the same decoders on load), for every scheme.
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

pub mod backend;
pub mod chain;
pub mod ciphertext;
pub mod codec;
mod context;
pub mod cyclotomic_factors;
pub mod digit_extraction;
pub mod digit_removal;
mod encoding;
mod encrypt;
mod error;
pub mod evaluator;
pub mod extension_slots;
pub mod framing;
pub mod galois_key;
pub mod hoisting;
pub mod hypercube;
pub mod hypercube_ops;
pub mod key_bytes;
pub mod key_set;
pub mod key_switching_key;
mod keys;
pub mod keyswitch;
pub mod operators;
pub mod params;
pub mod plaintext_lift;
pub mod polynomial_eval;
mod relinearization_key;
mod resident;
pub mod rotation;
mod scheme;
pub mod security;
mod seeded;
#[cfg(feature = "serde")]
pub mod serde_support;
pub mod slots;
mod zn_poly;

pub use backend::{
    EvalKeySwitch, EvalPair, HoistedKeySwitch, RlweBackend, switch_key_eval_by_steps, switch_key_hoisted_eval_by_steps,
};
pub use ciphertext::Ciphertext;
pub use context::RlweContext;
pub use encoding::{BatchEncoder, CoefficientEncoder, Plaintext};
pub use error::{BackendResult, RlweError};
pub use evaluator::{Evaluator, SlotEncoding, SlotSum};
pub use galois_key::GaloisKeys;
pub use key_set::KeySetId;
pub use key_switching_key::KeySwitchingKey;
pub use keys::{PublicKey, SecretKey, SecretScratch};
pub use operators::{BoundCiphertext, BoundEvaluator};
pub use params::{ModuliChoice, ResolvedModuli, RlweParameters, RlweParametersBuilder};
pub use plaintext_lift::{PlaintextBackend, PlaintextEmbedding, PlaintextScaling, PlaintextWords};
pub use relinearization_key::RelinearizationKey;
pub use resident::{BatchingContext, ResidentPlaintext};
pub use scheme::{SchemeContext, SchemeParameters};
pub use seeded::SeededCiphertext;

/// Result type of this crate.
pub type Result<T> = core::result::Result<T, RlweError>;
