//! RNS bases and conversions for the RNS variants of BFV, on the CPU (GPU kernels take the
//! same tables).
//!
//! - [`RnsBase`]: products, punctured products and their inverses (precomputed with
//!   big integers); CRT reconstruction by Garner's mixed-radix algorithm.
//! - [`BaseConverter`]: fast base conversion (Bajard, Eynard, Hasan, Zucca, SAC 2016) and
//!   exact conversion with a 128-bit fixed-point overflow estimate (after Halevi, Polyakov,
//!   Shoup, CT-RSA 2019); [`ShenoyKumaresan`]: exact conversion with a redundant modulus.
//! - [`BehzContext`]: BEHZ-BFV decryption (scale-and-round with `gamma`) and the
//!   multiplication pipeline (`q -> B_sk` with the small Montgomery reduction by `m~`, the
//!   fast floor in `B_sk`, Shenoy-Kumaresan back to `q`).
//! - [`HpsContext`]: HPS-BFV basis extensions and scale-and-round by `t/q`, into `Z_t` and
//!   from `q u P` into `P`; the precision argument is in `docs/hps-precision.md`.
//! - [`KeySwitchContext`]: RNS digits, ModUp to `q u P`, gadget factors, ModDown.
//! - Thin wrappers over `poly::Poly<Coeff>` (`extend_poly`, `scale_down_poly`,
//!   `decrypt_poly`, `mod_up_poly`, `mod_down_poly`) for ring contexts over these bases.
//!
//! Data layout: every polynomial is a limb-major `&[u64]` of `N` coefficients per limb (limb
//! `i` is `data[i * N..(i + 1) * N]`, canonical residues), as in `poly`. Every operation
//! writes into a caller-provided `&mut [u64]`, maps one coefficient to one output coefficient
//! per limb (a GPU thread per coefficient), and checks lengths and residues first: on an
//! error the output is untouched. Tables are plain `Vec<u64>` with Shoup companions.
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

mod base;
mod behz;
mod convert;
mod error;
#[cfg(feature = "cuda")]
pub mod gpu;
mod hps;
mod keyswitch;
pub mod word;
mod wrappers;

pub use base::{MAX_BASE_MODULI, RnsBase};
pub use behz::{BehzContext, BehzModuli, BehzTables};
pub use convert::{BaseConverter, ShenoyKumaresan};
pub use error::RnsError;
pub use hps::{HpsContext, HpsTables};
pub use keyswitch::{Extension, KeySwitchContext};
pub use word::PlainModulus;

/// Result type of this crate.
pub type Result<T> = core::result::Result<T, RnsError>;

/// Largest ring degree the contexts accept.
pub const MAX_DEGREE: usize = 1 << 17;

/// The generated auxiliary bases (`with_generated_moduli`) try at most this many primes
/// more than `q` has.
const GENERATED_EXTRA_PRIMES: usize = 8;

/// Errors unless `degree` is in `1..=2^17`: key switching's tables work coefficient by
/// coefficient, so any ring degree serves (`phi(m)` for a ring `Z_q[x]/Phi_m`).
fn check_any_degree(degree: usize) -> Result<()> {
    if !(1..=MAX_DEGREE).contains(&degree) {
        return Err(RnsError::InvalidParameter { name: "degree", value: degree as u64, reason: "must be in 1..=2^17" });
    }
    Ok(())
}

/// Errors unless `degree` is a power of two in `1..=2^17` (tests use small degrees; the
/// ring contexts of `poly` ask for at least `2^10`).
fn check_degree(degree: usize) -> Result<()> {
    if !degree.is_power_of_two() || degree > MAX_DEGREE {
        return Err(RnsError::InvalidParameter {
            name: "degree",
            value: degree as u64,
            reason: "must be a power of two between 1 and 2^17",
        });
    }
    Ok(())
}

fn check_len(what: &'static str, expected: usize, actual: usize) -> Result<()> {
    if expected != actual {
        return Err(RnsError::LengthMismatch { what, expected, actual });
    }
    Ok(())
}
