//! The tables of a [`KeySwitchContext`](crate::KeySwitchContext) on the device (one allocation) and their accessors.

use core::ops::Range;

use poly_cuda::graph::GraphCache;
use poly_cuda::{GpuContext, GpuDevice};

use super::{BatchKernels, GpuKeySwitch, MAX_DIGITS_PER_LAUNCH};
use crate::gpu::Result;
use crate::gpu::launch::{ConverterLayout, HostTables, RnsKernels};
use crate::{KeySwitchContext, RnsError};

impl GpuKeySwitch {
    /// Most key digits one inner-product launch reads (`KS_MAX_DIGITS` in
    /// `kernels/keyswitch.cu`): their addresses travel in the kernel's by-value parameter
    /// struct. Longer keys take several launches, accumulating.
    pub const MAX_DIGITS_PER_LAUNCH: usize = MAX_DIGITS_PER_LAUNCH;

    /// The default bound, in bytes, on the buffer of extended digits of
    /// [`key_switch_accumulate`](Self::key_switch_accumulate) (1 GiB): digits beyond it are
    /// processed in chunks.
    pub const DEFAULT_BATCH_BYTES: usize = 1 << 30;

    /// Uploads the tables of `key_switch` to `device` (one allocation).
    pub fn new(device: &GpuDevice, key_switch: &KeySwitchContext) -> Result<Self> {
        Self::with_error_scale(device, key_switch, 1)
    }

    /// [`new`](Self::new) for key switching whose errors are multiples of `error_scale` (`E`;
    /// BGV's `t`): the tables also hold the ModDown converter `P -> q` with `E^-1 mod p_j`
    /// folded into the scale of each special limb, so [`mod_down_eval`](Self::mod_down_eval)
    /// converts `E^-1 x` without a pass over the limbs. Errors with
    /// [`RnsError::InvalidParameter`](crate::RnsError::InvalidParameter) for an `E` not invertible modulo a special prime.
    pub fn with_error_scale(device: &GpuDevice, key_switch: &KeySwitchContext, error_scale: u64) -> Result<Self> {
        Self::with_rows(device, key_switch, error_scale, key_switch.degree())
    }

    /// [`with_error_scale`](Self::with_error_scale) for the polynomials of `ring_qp` (the ring
    /// `q u P` on the device), whose limb rows may be longer than the ring's degree (a ring
    /// `Z_q[x]/Phi_m`: rows of `phi(m)` rounded up to a power of two, zeros past `phi(m)`): the
    /// kernels then run over whole rows, the padding staying zero (every step of key switching
    /// maps zero words to zero words). Errors with
    /// [`RnsError::ContextMismatch`](crate::RnsError::ContextMismatch) unless `ring_qp` is
    /// `q u P` at the tables' degree.
    pub fn for_context(ring_qp: &GpuContext, key_switch: &KeySwitchContext, error_scale: u64) -> Result<Self> {
        let ring = ring_qp.ring();
        let q_p = key_switch.q_p()?;
        let same = ring.degree() == key_switch.degree()
            && ring.moduli().iter().map(|m| m.value()).eq(q_p.moduli().iter().map(|m| m.value()));
        if !same {
            return Err(RnsError::ContextMismatch {
                what: "key-switching ring q u P",
                expected_degree: key_switch.degree(),
                expected_moduli: q_p.values(),
                actual_degree: ring.degree(),
                actual_moduli: ring.moduli().iter().map(|m| m.value()).collect(),
            }
            .into());
        }
        Self::with_rows(ring_qp.device(), key_switch, error_scale, ring_qp.degree())
    }

    /// The tables with kernels striding `row` words per limb (`row >= N`, a power of two).
    fn with_rows(device: &GpuDevice, key_switch: &KeySwitchContext, error_scale: u64, row: usize) -> Result<Self> {
        let mut host = HostTables::default();
        let mut digits = Vec::with_capacity(key_switch.num_digits());
        for digit in 0..key_switch.num_digits() {
            let range = key_switch.digit_range(digit)?;
            digits.push((range, ConverterLayout::push(&mut host, key_switch.mod_up_converter(digit)?)));
        }
        let (p_to_q, p_inv_q, p_inv_q_shoup) = key_switch.mod_down_tables();
        let p_to_q_scaled = match error_scale {
            1 => None,
            e => {
                let from = p_to_q.from_base();
                let mut scale = Vec::with_capacity(from.len());
                let mut scale_shoup = Vec::with_capacity(from.len());
                for (m, &w) in from.moduli().iter().zip(from.punctured_inverses()) {
                    let inverse = m.inv(m.reduce(e)).map_err(|_| RnsError::InvalidParameter {
                        name: "error scale",
                        value: e,
                        reason: "must be invertible modulo every special prime",
                    })?;
                    let folded = m.mul(w, inverse);
                    scale.push(folded);
                    scale_shoup.push(m.shoup(folded));
                }
                let layout = ConverterLayout::push(&mut host, p_to_q).with_scale(&mut host, &scale, &scale_shoup);
                Some((e, layout))
            }
        };
        // E P^-1 mod q_i (Shoup pairs), which ModDown's fused epilogue multiplies the remainder by.
        let q_moduli = key_switch.q().moduli();
        let (mut e_p_inv, mut e_p_inv_shoup) = (Vec::with_capacity(q_moduli.len()), Vec::with_capacity(q_moduli.len()));
        for (m, &w) in q_moduli.iter().zip(p_inv_q) {
            let folded = m.mul(m.reduce(error_scale), w);
            e_p_inv.push(folded);
            e_p_inv_shoup.push(m.shoup(folded));
        }
        let e_p_inv_q = (host.push(&e_p_inv), host.push(&e_p_inv_shoup));
        let p_to_q = ConverterLayout::push(&mut host, p_to_q);
        let p_inv_q = host.push(p_inv_q);
        let p_inv_q_shoup = host.push(p_inv_q_shoup);
        let q_p = key_switch.q_p()?;
        let q_p_moduli = host.push_moduli(q_p.moduli());
        Ok(Self {
            kernels: RnsKernels::load(device)?,
            batch: device.kernel_set::<BatchKernels>()?,
            tables: host.upload(device)?,
            digits,
            p_to_q,
            p_to_q_scaled,
            p_inv_q,
            p_inv_q_shoup,
            e_p_inv_q,
            q_p_moduli,
            row,
            degree: key_switch.degree(),
            q: key_switch.q().values(),
            p: key_switch.p().values(),
            q_p: q_p.values(),
            replays: GraphCache::default(),
        })
    }

    /// The ring degree `N` (`phi(m)` for a ring `Z_q[x]/Phi_m`).
    pub fn degree(&self) -> usize {
        self.degree
    }

    /// Number of digits.
    pub fn num_digits(&self) -> usize {
        self.digits.len()
    }

    pub(super) fn digit(&self, digit: usize) -> Result<&(Range<usize>, ConverterLayout)> {
        self.digits.get(digit).ok_or_else(|| RnsError::DigitOutOfRange { digit, count: self.digits.len() }.into())
    }

    /// Words of one polynomial over `q u P`.
    pub(super) fn stride(&self) -> usize {
        self.q_p.len() * self.row
    }
}
