//! Thin wrappers over [`poly::Poly<Coeff>`](poly::Poly): the same operations as the slice
//! methods, taking and returning polynomials of ring contexts whose primes (in limb order)
//! and degree must be the bases the operation expects (for example `q u B_sk` for
//! [`BehzContext::extend_poly`]); [`RnsError::ContextMismatch`] otherwise.

use std::sync::Arc;

use poly::{Coeff, Poly, RingContext};

use crate::{BehzContext, Extension, HpsContext, KeySwitchContext, Result, RnsBase, RnsError};

/// Errors unless `context` has this degree and exactly the primes of `base`, in order.
fn check_context(context: &RingContext, base: &RnsBase, degree: usize, what: &'static str) -> Result<()> {
    let matches = context.degree() == degree
        && context.moduli().len() == base.len()
        && context.moduli().iter().zip(base.moduli()).all(|(a, b)| a.value() == b.value());
    if matches {
        return Ok(());
    }
    Err(RnsError::ContextMismatch {
        what,
        expected_degree: degree,
        expected_moduli: base.values(),
        actual_degree: context.degree(),
        actual_moduli: context.moduli().iter().map(|m| m.value()).collect(),
    })
}

impl BehzContext {
    /// [`extend_to_bsk`](Self::extend_to_bsk) as a polynomial: `input` over `q`, the result
    /// over `q_bsk` (the ring of [`q_bsk`](Self::q_bsk)), with `input`'s limbs copied.
    pub fn extend_poly(&self, input: &Poly<Coeff>, q_bsk: &Arc<RingContext>) -> Result<Poly<Coeff>> {
        check_context(input.context(), self.q(), self.degree(), "BEHZ extension input")?;
        check_context(q_bsk, &self.q_bsk()?, self.degree(), "BEHZ extension output")?;
        let q_len = input.as_slice().len();
        let mut data = vec![0u64; q_bsk.poly_len()];
        data[..q_len].copy_from_slice(input.as_slice());
        self.extend_to_bsk(input.as_slice(), &mut data[q_len..])?;
        Ok(Poly::from_limbs(q_bsk, data)?)
    }

    /// [`fast_floor`](Self::fast_floor) then [`bsk_to_q`](Self::bsk_to_q): `input` over
    /// `q u B_sk`, the result over `q` (the ring `q`).
    pub fn scale_down_poly(&self, input: &Poly<Coeff>, q: &Arc<RingContext>) -> Result<Poly<Coeff>> {
        check_context(input.context(), &self.q_bsk()?, self.degree(), "BEHZ scaling input")?;
        check_context(q, self.q(), self.degree(), "BEHZ scaling output")?;
        let mut floored = vec![0u64; self.bsk().len() * self.degree()];
        self.fast_floor(input.as_slice(), &mut floored)?;
        let mut data = vec![0u64; q.poly_len()];
        self.bsk_to_q(&floored, &mut data)?;
        Ok(Poly::from_limbs(q, data)?)
    }

    /// [`decrypt_scale_round`](Self::decrypt_scale_round) of a polynomial over `q`: `N`
    /// values in `[0, t)`.
    pub fn decrypt_poly(&self, input: &Poly<Coeff>) -> Result<Vec<u64>> {
        check_context(input.context(), self.q(), self.degree(), "BEHZ decryption input")?;
        let mut out = vec![0u64; self.degree()];
        self.decrypt_scale_round(input.as_slice(), &mut out)?;
        Ok(out)
    }
}

impl HpsContext {
    /// [`extend_q_to_p`](Self::extend_q_to_p) as a polynomial: `input` over `q`, the result
    /// over `q_p` (the ring of [`q_p`](Self::q_p)), with `input`'s limbs copied.
    pub fn extend_poly(&self, input: &Poly<Coeff>, q_p: &Arc<RingContext>) -> Result<Poly<Coeff>> {
        check_context(input.context(), self.q(), self.degree(), "HPS extension input")?;
        check_context(q_p, &self.q_p()?, self.degree(), "HPS extension output")?;
        let q_len = input.as_slice().len();
        let mut data = vec![0u64; q_p.poly_len()];
        data[..q_len].copy_from_slice(input.as_slice());
        self.extend_q_to_p(input.as_slice(), &mut data[q_len..])?;
        Ok(Poly::from_limbs(q_p, data)?)
    }

    /// [`scale_round_to_p`](Self::scale_round_to_p) then
    /// [`extend_p_to_q`](Self::extend_p_to_q): `input` over `q u P`, the result
    /// `round(t x / q)` over `q` (the ring `q`).
    pub fn scale_down_poly(&self, input: &Poly<Coeff>, q: &Arc<RingContext>) -> Result<Poly<Coeff>> {
        check_context(input.context(), &self.q_p()?, self.degree(), "HPS scaling input")?;
        check_context(q, self.q(), self.degree(), "HPS scaling output")?;
        let mut scaled = vec![0u64; self.p().len() * self.degree()];
        self.scale_round_to_p(input.as_slice(), &mut scaled)?;
        let mut data = vec![0u64; q.poly_len()];
        self.extend_p_to_q(&scaled, &mut data)?;
        Ok(Poly::from_limbs(q, data)?)
    }

    /// [`decrypt_scale_round`](Self::decrypt_scale_round) of a polynomial over `q`: `N`
    /// values in `[0, t)`.
    pub fn decrypt_poly(&self, input: &Poly<Coeff>) -> Result<Vec<u64>> {
        check_context(input.context(), self.q(), self.degree(), "HPS decryption input")?;
        let mut out = vec![0u64; self.degree()];
        self.decrypt_scale_round(input.as_slice(), &mut out)?;
        Ok(out)
    }
}

impl KeySwitchContext {
    /// [`mod_up`](Self::mod_up) as a polynomial: `input` over `q`, the result over `q_p`
    /// (the ring of [`q_p`](Self::q_p)).
    pub fn mod_up_poly(
        &self,
        input: &Poly<Coeff>,
        digit: usize,
        extension: Extension,
        q_p: &Arc<RingContext>,
    ) -> Result<Poly<Coeff>> {
        check_context(input.context(), self.q(), self.degree(), "ModUp input")?;
        check_context(q_p, &self.q_p()?, self.degree(), "ModUp output")?;
        let mut data = vec![0u64; q_p.poly_len()];
        self.mod_up(input.as_slice(), digit, extension, &mut data)?;
        Ok(Poly::from_limbs(q_p, data)?)
    }

    /// [`mod_down`](Self::mod_down) as a polynomial: `input` over `q u P`, the result over
    /// `q` (the ring `q`).
    pub fn mod_down_poly(&self, input: &Poly<Coeff>, q: &Arc<RingContext>) -> Result<Poly<Coeff>> {
        check_context(input.context(), &self.q_p()?, self.degree(), "ModDown input")?;
        check_context(q, self.q(), self.degree(), "ModDown output")?;
        let mut data = vec![0u64; q.poly_len()];
        self.mod_down(input.as_slice(), &mut data)?;
        Ok(Poly::from_limbs(q, data)?)
    }
}
