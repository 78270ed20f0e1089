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

use crate::GpuContext;
use crate::error::{GpuError, Result};
use crate::raw::InverseScale;

/// Largest `t` of a lift (`t < 2^60`: the kernels' sums and Shoup products assume it).
pub const LIFT_MAX_T_BITS: u32 = 60;

/// Mirror of `centered_lift::Finish` (kernels/include/centered_lift.cuh): the constants of the
/// lift's last step modulo `t`, each `w` with its Shoup companion `floor(w 2^64 / t)`: `w = 1`,
/// `2^64 mod t`, `2^128 mod t`, `q mod t`, and the factor the lifted value is multiplied by.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct LiftFinish {
    t: u64,
    one_shoup: u64,
    w64: u64,
    w64_shoup: u64,
    w128: u64,
    w128_shoup: u64,
    q_mod_t: u64,
    q_mod_t_shoup: u64,
    factor: u64,
    factor_shoup: u64,
}
const _: () = assert!(size_of::<LiftFinish>() == 10 * 8);

impl LiftFinish {
    /// The constants for `t`, `q mod t` and `factor`. Errors with [`GpuError::Unsupported`]
    /// unless `2 <= t < 2^60`, and with [`PolyError::CoefficientOutOfRange`] for `q_mod_t`
    /// (index 2) or `factor` (index 3) not below `t`.
    pub fn new(t: u64, q_mod_t: u64, factor: u64) -> Result<Self> {
        if !(2..1u64 << LIFT_MAX_T_BITS).contains(&t) {
            return Err(GpuError::Unsupported { what: format!("a centered lift modulo t = {t} (2 <= t < 2^60)") });
        }
        for (index, value) in [(2, q_mod_t), (3, factor)] {
            if value >= t {
                return Err(PolyError::CoefficientOutOfRange { limb: 0, index, value, modulus: t }.into());
            }
        }
        let wide = u128::from(t);
        // floor(w 2^64 / t) < 2^64 for w < t.
        let shoup = |w: u64| ((u128::from(w) << 64) / wide) as u64;
        let w64 = ((1u128 << 64) % wide) as u64;
        let w128 = (u128::from(w64) * u128::from(w64) % wide) as u64;
        Ok(Self {
            t,
            one_shoup: shoup(1),
            w64,
            w64_shoup: shoup(w64),
            w128,
            w128_shoup: shoup(w128),
            q_mod_t,
            q_mod_t_shoup: shoup(q_mod_t),
            factor,
            factor_shoup: shoup(factor),
        })
    }
}

/// The constants of the centered lift modulo `t` over one context: `(q/q_i)^{-1} mod q_i`
/// folded into an [`InverseScale`], `(q/q_i) mod t` per limb on the device, `t` and `q mod t`.
#[derive(Debug)]
pub struct CenteredLift {
    scale: InverseScale,
    terms: CudaSlice<u64>,
    t: u64,
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
        Ok(Self { scale, terms, t, q_mod_t })
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

    /// The operands of one launch writing to device address `out`. Errors as
    /// [`LiftFinish::new`] for a factor not below `t`.
    pub(crate) fn operands(&self, factor: u64, out: u64) -> Result<crate::ntt::LiftOperands<'_>> {
        Ok(crate::ntt::LiftOperands { terms: &self.terms, finish: LiftFinish::new(self.t, self.q_mod_t, factor)?, out })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The constants against u128 arithmetic, and the typed errors for bad operands.
    #[test]
    fn lift_finish_constants_and_errors() {
        for t in [2u64, 3, 65_537, 1 << 59, (1 << 60) - 1] {
            let c = LiftFinish::new(t, t - 1, t / 2).unwrap();
            let wide = u128::from(t);
            assert_eq!(u128::from(c.w64), (1u128 << 64) % wide);
            assert_eq!(u128::from(c.w128), (u128::from(c.w64) * u128::from(c.w64)) % wide);
            for (w, shoup) in
                [(1, c.one_shoup), (c.w64, c.w64_shoup), (c.q_mod_t, c.q_mod_t_shoup), (c.factor, c.factor_shoup)]
            {
                // floor(w 2^64 / t): shoup t <= w 2^64 < (shoup + 1) t.
                let scaled = u128::from(w) << 64;
                assert!(u128::from(shoup) * wide <= scaled && scaled < (u128::from(shoup) + 1) * wide, "t = {t}");
            }
        }
        assert!(matches!(LiftFinish::new(1, 0, 0), Err(GpuError::Unsupported { .. })));
        assert!(matches!(LiftFinish::new(1 << 60, 0, 0), Err(GpuError::Unsupported { .. })));
        assert!(matches!(
            LiftFinish::new(17, 17, 1),
            Err(GpuError::Poly(PolyError::CoefficientOutOfRange { index: 2, value: 17, .. }))
        ));
        assert!(matches!(
            LiftFinish::new(17, 3, 20),
            Err(GpuError::Poly(PolyError::CoefficientOutOfRange { index: 3, value: 20, .. }))
        ));
    }
}
