//! [`BfvBackend`] on the CPU reference backend: the RNS steps in place on its host polynomials
//! (the trait's host code without the copies).

use poly::{Coeff, CpuBackend, Eval, Poly};

use super::{BfvBackend, RnsStep, decrypt_scale_host};
use crate::Result;
use crate::params::MulTables;

impl BfvBackend for CpuBackend {
    type MulTables = ();

    fn prepare_mul(&self, _tables: &MulTables) -> Result<()> {
        Ok(())
    }

    fn decrypt_scale_sum_resident(
        &self,
        tables: &MulTables,
        prepared: &(),
        c0: &Poly<Coeff>,
        value: Poly<Eval>,
        factor: &Poly<Eval>,
    ) -> Result<Vec<u64>> {
        // The host is where this backend keeps its data: no copy.
        self.decrypt_scale_sum(tables, prepared, c0, value, factor)
    }

    fn rns_step(
        &self,
        step: RnsStep<'_>,
        _prepared: &(),
        input: &Poly<Coeff>,
        target: &Self::Context,
    ) -> Result<Poly<Coeff>> {
        step.apply_poly(input, target)
    }

    fn decrypt_scale(&self, tables: &MulTables, _prepared: &(), input: &Poly<Coeff>) -> Result<Vec<u64>> {
        decrypt_scale_host(tables, input.context().degree(), input.as_slice())
    }
}
