//! The centered CRT lift modulo a small `t`, fused into the inverse transform.
//!
//! For a polynomial `x` over `q = q_0 ... q_{L-1}` in coefficient form, the lift of coefficient
//! `j` is `[x_c]_t`, `x_c` the representative of `x_j` in `(-q/2, q/2]`: BGV decryption's
//! last step (`m = [c_0 + c_1 s]_q mod t`). The arithmetic (kernels/include/centered_lift.cuh)
//! takes `y_i = x_i (q/q_i)^{-1} mod q_i`, which the inverse transform's last stage produces
//! for free ([`InverseScale`]), and sums `y_i (q/q_i) mod t` and `y_i / q_i` over the limbs.
//! [`DevicePoly::inverse_of_mul_add_lifted`](crate::DevicePoly::inverse_of_mul_add_lifted)
//! computes `inverse(c + a b)` and its lift in two kernels for `N <= 2^12`, the phase never
//! written: the transform's last pass runs in thread block clusters whose blocks hold every
//! limb of a column group and lift from each other's shared memory (compute capability 9.0
//! and up; at larger `N` this was slower than the separate lift on an H100).

use cudarc::driver::CudaSlice;
use poly::PolyError;

use crate::error::{GpuError, Result};
use crate::{GpuContext, InverseScale};

/// Largest `t` of a lift (`t < 2^60`: the kernels' sums and Barrett reductions assume it).
pub const LIFT_MAX_T_BITS: u32 = 60;

/// The constants of the centered lift modulo `t` over one context: `(q/q_i)^{-1} mod q_i`
/// folded into an [`InverseScale`], `(q/q_i) mod t` per limb on the device, `t` with its
/// Barrett constant, and `q mod t`.
#[derive(Debug)]
pub struct CenteredLift {
    scale: InverseScale,
    terms: CudaSlice<u64>,
    t: u64,
    t_barrett: (u64, u64),
    q_mod_t: u64,
}

impl CenteredLift {
    /// The lift over `context` with `inverse_factors[i] = (q/q_i)^{-1} mod q_i`,
    /// `terms[i] = (q/q_i) mod t` and `q_mod_t = q mod t` (the caller computes them; the lift
    /// is exact only for these values). Errors with [`GpuError::Unsupported`] unless
    /// `2 <= t < 2^60`, with [`GpuError::LengthMismatch`] unless there is one factor and one
    /// term per limb, with [`PolyError::CoefficientOutOfRange`] for a factor not below its
    /// prime or a term (index 1) or `q_mod_t` (index 2) not below `t`.
    pub fn new(context: &GpuContext, inverse_factors: &[u64], terms: &[u64], t: u64, q_mod_t: u64) -> Result<Self> {
        if !(2..1u64 << LIFT_MAX_T_BITS).contains(&t) {
            return Err(GpuError::Unsupported { what: format!("a centered lift modulo t = {t} (2 <= t < 2^60)") });
        }
        let limbs = context.num_limbs();
        if terms.len() != limbs {
            return Err(GpuError::LengthMismatch { expected: limbs, actual: terms.len() });
        }
        for (limb, &value) in terms.iter().enumerate() {
            if value >= t {
                return Err(PolyError::CoefficientOutOfRange { limb, index: 1, value, modulus: t }.into());
            }
        }
        if q_mod_t >= t {
            return Err(PolyError::CoefficientOutOfRange { limb: 0, index: 2, value: q_mod_t, modulus: t }.into());
        }
        let scale = InverseScale::new(context, inverse_factors)?;
        let terms = context.device().upload(terms)?;
        // floor(2^128 / t); one more than floor((2^128 - 1) / t) exactly when t divides 2^128.
        let wide = u128::from(t);
        let barrett = u128::MAX / wide + u128::from(u128::MAX % wide == wide - 1);
        Ok(Self { scale, terms, t, t_barrett: ((barrett >> 64) as u64, barrett as u64), q_mod_t })
    }

    /// The context the lift is over.
    pub fn context(&self) -> &GpuContext {
        self.scale.context()
    }

    /// The inverse transform's scale by `(q/q_i)^{-1}`: the transform whose output the lift
    /// takes, also on its own ([`DevicePoly::inverse_of_mul_add_scaled`](crate::DevicePoly::inverse_of_mul_add_scaled)).
    pub fn scale(&self) -> &InverseScale {
        &self.scale
    }

    /// `t`.
    pub fn plaintext_modulus(&self) -> u64 {
        self.t
    }

    /// The operands of one launch writing to device address `out`.
    pub(crate) fn operands(&self, factor: u64, out: u64) -> crate::launch::LiftOperands<'_> {
        crate::launch::LiftOperands {
            terms: &self.terms,
            t: self.t,
            t_barrett: self.t_barrett,
            q_mod_t: self.q_mod_t,
            factor,
            out,
        }
    }
}
