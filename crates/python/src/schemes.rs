//! [`SchemeOps`] for the two schemes: one-line delegations to their contexts, and scheme
//! switching (`scheme-switching`) between engines of one backend.

use std::any::Any;
use std::sync::Arc;

use bfv::{BfvBackend, BfvContext};
use bgv_encrypt::{BgvBackend, BgvContext};
use rlwe::{RelinearizationKey, SecretKey};
use scheme_switching::SchemeSwitching;

use crate::engine::{Object, SchemeEngine, SchemeKind, SchemeOps};
use crate::error::{BindingError, Result};

impl<B: BfvBackend + BgvBackend + 'static> SchemeOps for BfvContext<B>
where
    bgv_encrypt::Ciphertext<B>: Send + Sync,
{
    const KIND: SchemeKind = SchemeKind::Bfv;

    fn mul(&self, a: &Self::Ciphertext, b: &Self::Ciphertext) -> rlwe::Result<Self::Ciphertext> {
        BfvContext::mul(self, a, b)
    }

    fn relinearize(&self, a: &Self::Ciphertext, key: &RelinearizationKey<B>) -> rlwe::Result<Self::Ciphertext> {
        BfvContext::relinearize(self, a, key)
    }

    fn sub_plain(&self, a: &Self::Ciphertext, plaintext: &Self::Plaintext) -> rlwe::Result<Self::Ciphertext> {
        BfvContext::sub_plain(self, a, plaintext)
    }

    fn mod_switch_to(&self, a: &Self::Ciphertext, level: usize) -> rlwe::Result<Self::Ciphertext> {
        BfvContext::mod_switch_to(self, a, level)
    }

    fn encrypt_symmetric(&self, plaintext: &Self::Plaintext, secret: &SecretKey<B>) -> rlwe::Result<Self::Ciphertext> {
        self.expand(&BfvContext::encrypt_symmetric(self, plaintext, secret)?)
    }

    fn top_level(&self) -> usize {
        BfvContext::top_level(self)
    }

    fn switch_scheme(&self, ciphertext: &Self::Ciphertext, target: &dyn Any) -> Result<Object> {
        let bgv = target.downcast_ref::<SchemeEngine<BgvContext<B>>>().ok_or(BindingError::SchemeSwitch)?;
        Ok(Arc::new(bgv.context.from_bfv(self, ciphertext)?))
    }
}

impl<B: BfvBackend + BgvBackend + 'static> SchemeOps for BgvContext<B>
where
    bfv::Ciphertext<B>: Send + Sync,
{
    const KIND: SchemeKind = SchemeKind::Bgv;

    fn mul(&self, a: &Self::Ciphertext, b: &Self::Ciphertext) -> rlwe::Result<Self::Ciphertext> {
        BgvContext::mul(self, a, b)
    }

    fn relinearize(&self, a: &Self::Ciphertext, key: &RelinearizationKey<B>) -> rlwe::Result<Self::Ciphertext> {
        BgvContext::relinearize(self, a, key)
    }

    fn sub_plain(&self, a: &Self::Ciphertext, plaintext: &Self::Plaintext) -> rlwe::Result<Self::Ciphertext> {
        BgvContext::sub_plain(self, a, plaintext)
    }

    fn mod_switch_to(&self, a: &Self::Ciphertext, level: usize) -> rlwe::Result<Self::Ciphertext> {
        BgvContext::mod_switch_to(self, a, level)
    }

    fn encrypt_symmetric(&self, plaintext: &Self::Plaintext, secret: &SecretKey<B>) -> rlwe::Result<Self::Ciphertext> {
        self.expand(&BgvContext::encrypt_symmetric(self, plaintext, secret)?)
    }

    fn top_level(&self) -> usize {
        BgvContext::top_level(self)
    }

    fn switch_scheme(&self, ciphertext: &Self::Ciphertext, target: &dyn Any) -> Result<Object> {
        let bfv = target.downcast_ref::<SchemeEngine<BfvContext<B>>>().ok_or(BindingError::SchemeSwitch)?;
        Ok(Arc::new(self.to_bfv(&bfv.context, ciphertext)?))
    }
}
