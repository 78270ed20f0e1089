//! [`GpuKeySwitch`]: ModUp and ModDown of [`KeySwitchContext`](crate::KeySwitchContext) on the device, word for word,
//! and the batched key switching of `kernels/keyswitch.cu` (ModUp of every digit into one
//! buffer, one forward transform of the batch, one inner-product kernel with the key).
//!
//! - [`tables`]: the tables on the device, built once per key-switching context.
//! - [`mod_up`]: ModUp of each digit (conversion kernels, one-prime digits, the batch).
//! - [`inner_product`]: the batched inner product with the key (plain, fused with the
//!   forward transform, in chunks).
//! - [`hoisting`]: the extended digits of one input kept for several automorphisms, and the
//!   inner product of their automorphism with a key.
//! - [`mod_down`]: ModDown in the coefficient and evaluation representations.
//! - [`replay`]: whole key switches recorded as CUDA graphs and replayed.

mod hoisting;
mod inner_product;
mod mod_down;
mod mod_up;
mod replay;
mod tables;

use core::ops::Range;

use std::sync::Arc;

use poly::TransformKind;
use poly_cuda::GpuError;
use poly_cuda::graph::GraphCache;

use super::GpuRnsError;
use super::launch::{ConvertKernel, ConverterLayout, DeviceTables, RnsKernels};
use crate::Extension;

use replay::Staging;

/// `KS_MAX_DIGITS` in `kernels/keyswitch.cu` ([`GpuKeySwitch::MAX_DIGITS_PER_LAUNCH`]).
const MAX_DIGITS_PER_LAUNCH: usize = 128;

// Threads per block of the kernels of `kernels/keyswitch.cu`: `poly_cuda::kernel::THREADS`,
// which `KS_THREADS` there equals. `MAX_GRID_Y` bounds the digits per ModUp launch and
// `digits * limbs` per transform launch of the batch.

poly_cuda::kernel_set! {
    /// The kernels of `kernels/keyswitch.cu`, loaded once per device.
    struct BatchKernels(hegpu_kernels::KEYSWITCH) {
        keyswitch_mod_up_one_prime,
        keyswitch_inner_product,
        keyswitch_inner_product_gaussian,
        keyswitch_mod_down_eval,
    }
}

/// The conversion kernel of a ModUp by `extension`.
fn conversion_kernel(extension: Extension) -> ConvertKernel {
    match extension {
        Extension::Fast => ConvertKernel::Fast,
        Extension::Exact => ConvertKernel::Exact,
    }
}

/// Whether products in the evaluation domain of `transform` are Gaussian (the DGTs) rather
/// than coordinate-wise (the NTT).
fn is_gaussian(transform: TransformKind) -> bool {
    matches!(transform, TransformKind::Dgt | TransformKind::HierarchicalDgt)
}

/// Whether the recorded (replayed) launch sequences serve `transform`: the NTT's, whose launches
/// allocate nothing between them. Bluestein's transform allocates its padded buffers per call.
fn replayable(transform: TransformKind) -> bool {
    transform == TransformKind::Ntt
}

/// A ModUp or inner-product buffer address that the kernels' 16-byte accesses cannot use.
fn misaligned(what: &str, address: u64) -> GpuRnsError {
    GpuError::Unsupported { what: format!("{what} at device address {address:#x} (16-byte alignment needed)") }.into()
}

/// A [`KeySwitchContext`](crate::KeySwitchContext) with its tables on one device: ModUp of each digit (fast or exact
/// extension; the digit's own limbs are copied by the same kernel) and ModDown (the exact
/// conversion `P -> q` fused with the subtraction and the multiplication by `P^-1`). Every
/// output equals the CPU's word for word.
///
/// Digits of one prime (one special prime: SEAL's method) are extended by one launch of
/// `keyswitch_mod_up_one_prime` for all of them (the centered lift of the digit's limb reduced
/// modulo every other prime, which is what the exact conversion of a one-limb base computes);
/// digits of several primes (hybrid key switching) by one conversion launch each.
///
/// [`key_switch_accumulate`](Self::key_switch_accumulate) is the batched inner product of key
/// switching: ModUp of every digit into one buffer `[digits][q u P][N]`, one forward transform
/// of the whole buffer, and one kernel forming `sum_j ext_j key_b_j` and `sum_j ext_j key_a_j`.
///
/// Buffer rules and error behaviour as for [`GpuBehz`](super::GpuBehz).
#[derive(Debug)]
pub struct GpuKeySwitch {
    kernels: RnsKernels,
    batch: Arc<BatchKernels>,
    tables: DeviceTables,
    /// Per digit: its limbs of `q` and the converter `D_j -> (q \ D_j) u P`.
    digits: Vec<(Range<usize>, ConverterLayout)>,
    p_to_q: ConverterLayout,
    /// With an error scale `E != 1` ([`with_error_scale`](Self::with_error_scale)): `E` and
    /// the converter `P -> q` with `E^-1` folded into its per-limb scale, for
    /// [`mod_down_eval`](Self::mod_down_eval).
    p_to_q_scaled: Option<(u64, ConverterLayout)>,
    p_inv_q: usize,
    p_inv_q_shoup: usize,
    /// `E P^-1 mod q_i` and its Shoup companions (`E` the error scale, 1 by default).
    e_p_inv_q: (usize, usize),
    /// The moduli of `q u P` as `{p, barrett_hi, barrett_lo}` triples.
    q_p_moduli: usize,
    /// The words of one limb's row on the device: the ring degree `N`, or for a ring
    /// `Z_q[x]/Phi_m` its padded row (`poly_cuda::GpuContext::degree`); the kernels' stride.
    row: usize,
    /// The ring's degree (`N`, or `phi(m)`), which the contexts of the inputs must have.
    degree: usize,
    q: Vec<u64>,
    p: Vec<u64>,
    q_p: Vec<u64>,
    /// Recorded [`switch_key`](Self::switch_key) and [`switch_key_eval`](Self::switch_key_eval)
    /// launches, by signature.
    replays: GraphCache<Staging>,
}
