//! Launches of `kernels/ntt.cu` on limb-major device buffers `[poly][limb][N]` of one
//! [`GpuContext`]. Callers check lengths and contexts; these functions only queue work.
//!
//! - [`schedule`]: how a transform of `2^log_n` splits into passes, and each pass's kernel and
//!   shape by the launch's size (the tuned thresholds).
//! - [`passes`]: the kernel tables (names, loading per device) and one pass's launch geometry.
//! - [`forward`]: forward transforms, with the fused first-pass loads and last-pass epilogues
//!   (ModDown, key switching's inner product).
//! - [`inverse`]: inverse transforms, with the fused first-pass loads (product, multiply-add)
//!   and the last pass fused with the centered lift.

mod forward;
mod inverse;
mod passes;
mod schedule;
#[cfg(test)]
mod tests;

pub(crate) use forward::{
    ForwardInput, forward_inner_product_supported, forward_mod_down_supported, ntt_forward, ntt_forward_extending,
    ntt_forward_from, ntt_forward_inner_product, ntt_forward_mod_down,
};
pub use forward::{InnerProductKeys, ModDownTarget, OwnLimbs};
pub(crate) use inverse::{
    LiftOperands, LiftPlan, lift_plan, ntt_inverse, ntt_inverse_from, ntt_inverse_of_mul_add,
    ntt_inverse_of_mul_add_lifted, ntt_inverse_of_mul_add_scaled, ntt_inverse_of_product,
};
pub use passes::FP64_NTT_MAX_PRIME_BITS;
pub(crate) use passes::{ButterflyPipe, NttKernels};
pub(crate) use schedule::NttSchedule;

use crate::context::GpuContext;
use crate::error::{GpuError, Result};
use crate::kernel::MAX_GRID_Y;

fn total_limbs(context: &GpuContext, polys: usize) -> Result<u32> {
    let limbs = polys * context.num_limbs();
    if limbs == 0 || limbs > MAX_GRID_Y {
        return Err(GpuError::Unsupported {
            what: format!("a transform launch over {limbs} limbs (1..={MAX_GRID_Y} per launch)"),
        });
    }
    Ok(limbs as u32)
}
