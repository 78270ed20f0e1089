//! Per-limb factors folded into the inverse transform's last stage.
//!
//! The inverse NTT multiplies by `N^-1` in its last stage (`gs_butterfly_scaled` in
//! `kernels/ntt.cu`, from a `[limb]` table `{N^-1, w_1 N^-1}` with Shoup companions). An
//! [`InverseScale`] is that table with each limb's entries times a factor `f_i`, so the
//! transform's outputs come out as `x_i f_i mod p_i`, canonical: the words an element-wise
//! multiplication by `f_i` after the transform would write, without its pass over memory. A
//! decryption uses it for `(q/q_i)^{-1}` (BGV's exact phase reduction).

use cudarc::driver::CudaSlice;
use poly::{PolyError, TransformKind};

use crate::GpuContext;
use crate::error::{GpuError, Result};

/// The factors `f_i` (one per limb of a context, each below its prime) and, for an NTT
/// context, its inverse-scale table multiplied by them (see the module documentation).
#[derive(Debug)]
pub struct InverseScale {
    context: GpuContext,
    factors: Vec<u64>,
    /// `[limb]` quadruples `{N^-1 f, shoup, w_1 N^-1 f, shoup}`; `None` for DGT contexts,
    /// whose inverse is followed by a per-limb scalar multiplication instead.
    table: Option<CudaSlice<u64>>,
}

impl InverseScale {
    /// The scale of `factors` (limb `i`'s below prime `i`) for inverse transforms over
    /// `context`. Errors with [`GpuError::LengthMismatch`] unless there is one factor per limb,
    /// and with [`PolyError::CoefficientOutOfRange`] (index 0) for a factor not below its prime.
    pub fn new(context: &GpuContext, factors: &[u64]) -> Result<Self> {
        let ring = context.ring();
        if factors.len() != ring.num_limbs() {
            return Err(GpuError::LengthMismatch { expected: ring.num_limbs(), actual: factors.len() });
        }
        for (limb, (&value, modulus)) in factors.iter().zip(ring.moduli()).enumerate() {
            if value >= modulus.value() {
                return Err(PolyError::CoefficientOutOfRange { limb, index: 0, value, modulus: modulus.value() }.into());
            }
        }
        let table = match ring.transform() {
            TransformKind::Ntt => {
                let mut words = Vec::with_capacity(4 * factors.len());
                for (limb, (&f, modulus)) in factors.iter().zip(ring.moduli()).enumerate() {
                    let plan = ring.plan(limb).and_then(|p| p.as_ntt()).ok_or_else(|| GpuError::Unsupported {
                        what: format!("limb {limb} of an NTT context has no NTT plan"),
                    })?;
                    // The same w_1 and N^-1 as the context's own table (context.rs).
                    let w1 = plan.inverse_twiddles().get(1).copied().unwrap_or(1);
                    let n_inv = modulus.mul(plan.degree_inverse(), f);
                    let w1_n_inv = modulus.mul(modulus.mul(w1, plan.degree_inverse()), f);
                    words.extend_from_slice(&[n_inv, modulus.shoup(n_inv), w1_n_inv, modulus.shoup(w1_n_inv)]);
                }
                Some(context.device().upload(&words)?)
            }
            TransformKind::Dgt | TransformKind::HierarchicalDgt | TransformKind::Bluestein => None,
        };
        Ok(Self { context: context.clone(), factors: factors.to_vec(), table })
    }

    /// The context whose inverse transforms this scales.
    pub fn context(&self) -> &GpuContext {
        &self.context
    }

    /// The factors, one per limb.
    pub fn factors(&self) -> &[u64] {
        &self.factors
    }

    /// The scaled table, for NTT contexts.
    pub(crate) fn table(&self) -> Option<&CudaSlice<u64>> {
        self.table.as_ref()
    }
}
