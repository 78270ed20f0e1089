//! Encryption, the part every RLWE scheme shares: an encryption of zero to which the scheme's
//! encoding of its message is added in `c_0` (BFV: `round(q m / t)`; BGV: `m` itself, with the
//! error scale `t`).
//!
//! Randomness (indices of the seeds): public-key encryption: ternary 0 (`u`), binomial 0 and 1
//! (`e_1`, `e_2`); secret-key encryption: uniform 0 of the public seed (`a`, coefficient
//! representation), binomial 0 of the error seed.

use poly::{Coeff, Eval, Seed};

use crate::Result;
use crate::backend::RlweBackend;
use crate::context::RlweContext;
use crate::error::BackendResult;
use crate::keys::{PublicKey, SecretKey};

impl<B: RlweBackend> RlweContext<B> {
    /// A public-key encryption with the randomness of `seed` (keep it secret):
    /// `(c_0, c_1) = (b u + E e_1 + M, a u + E e_2)` over `q`, coefficient representation, where
    /// `M` is `message` (the scheme's encoding of its plaintext over `q`: BFV's `round(q m / t)`,
    /// BGV's `m`), or zero for `None`. `M` is added right after `c_0` is formed, while `c_0` is
    /// still in cache. Errors with [`crate::RlweError::ParameterMismatch`] for a key of other
    /// parameters or another error scale.
    pub fn encrypt_with_seed(
        &self,
        public_key: &PublicKey<B>,
        message: Option<&B::Poly<Coeff>>,
        seed: &Seed,
    ) -> Result<[B::Poly<Coeff>; 2]> {
        let u = self.public_key_randomness(public_key, seed)?;
        let backend = &self.backend;
        let (b, a) = public_key.polys();
        let mut c0 = backend.inverse(backend.mul(b, &u).be()?).be()?;
        backend.add_assign(&mut c0, &self.sample_error(&self.ring_q, seed, 0)?).be()?;
        if let Some(message) = message {
            backend.add_assign(&mut c0, message).be()?;
        }
        let mut c1 = backend.inverse(backend.mul(a, &u).be()?).be()?;
        backend.add_assign(&mut c1, &self.sample_error(&self.ring_q, seed, 1)?).be()?;
        Ok([c0, c1])
    }

    /// [`encrypt_with_seed`](Self::encrypt_with_seed) with the pair in the evaluation
    /// representation: `b u + NTT(E e_1 + M)` and `a u + NTT(E e_2)`, three forward transforms
    /// (`u` and the two noises) and no inverse. The same randomness, so the evaluations of the
    /// coefficient-form pair, word for word.
    pub fn encrypt_with_seed_eval(
        &self,
        public_key: &PublicKey<B>,
        message: Option<&B::Poly<Coeff>>,
        seed: &Seed,
    ) -> Result<[B::Poly<Eval>; 2]> {
        let u = self.public_key_randomness(public_key, seed)?;
        let backend = &self.backend;
        let (b, a) = public_key.polys();
        let mut noise = self.sample_error(&self.ring_q, seed, 0)?;
        if let Some(message) = message {
            backend.add_assign(&mut noise, message).be()?;
        }
        let mut c0 = backend.forward(noise).be()?;
        backend.mul_add_assign(&mut c0, b, &u).be()?;
        let mut c1 = backend.forward(self.sample_error(&self.ring_q, seed, 1)?).be()?;
        backend.mul_add_assign(&mut c1, a, &u).be()?;
        Ok([c0, c1])
    }

    /// Checks `public_key` against this context (parameters, error scale) and returns the
    /// ternary `u` of `seed` (index 0) in the evaluation representation.
    fn public_key_randomness(&self, public_key: &PublicKey<B>, seed: &Seed) -> Result<B::Poly<Eval>> {
        self.check(public_key.params(), "public key")?;
        if public_key.error_scale() != self.error_scale {
            return Err(crate::RlweError::ParameterMismatch {
                what: "public key",
                field: "error scale (a BGV key's is its plaintext modulus, a BFV key's 1)",
            });
        }
        let backend = &self.backend;
        backend.forward(backend.sample_ternary(&self.ring_q, seed, 0).be()?).be()
    }

    /// The `c_0 = M + E e - a s` of a secret-key encryption (`c_1 = a`, uniform from
    /// `public_seed`, travels as that seed: [`expand_uniform`](Self::expand_uniform)), `e` from
    /// `error_seed` (keep it secret), `M` the scheme's encoding of its plaintext over `q` (taken
    /// over as `c_0`'s storage) or zero for `None`. Over `q`, coefficient representation.
    pub fn encrypt_symmetric(
        &self,
        secret: &SecretKey<B>,
        message: Option<B::Poly<Coeff>>,
        public_seed: &Seed,
        error_seed: &Seed,
    ) -> Result<B::Poly<Coeff>> {
        self.check(secret.params(), "secret key")?;
        let backend = &self.backend;
        let a_eval = backend.forward(self.expand_uniform(public_seed)?).be()?;
        let a_s = backend.inverse_of_product(a_eval, secret.s_q())?;
        let error = self.sample_error(&self.ring_q, error_seed, 0)?;
        let mut c0 = match message {
            Some(mut message) => {
                backend.add_assign(&mut message, &error).be()?;
                message
            }
            None => error,
        };
        backend.sub_assign(&mut c0, &a_s).be()?;
        Ok(c0)
    }

    /// The uniform `a` of a seeded ciphertext: index 0 of `public_seed` over `q`, coefficient
    /// representation.
    pub fn expand_uniform(&self, public_seed: &Seed) -> Result<B::Poly<Coeff>> {
        self.backend.sample_uniform(&self.ring_q, public_seed, 0).be()
    }
}

#[cfg(test)]
mod tests {
    use poly::{CpuBackend, Seed, TransformKind};

    use crate::{ModuliChoice, RlweContext, RlweParametersBuilder};

    /// The evaluation-form encryption is the forward transform of the coefficient-form one,
    /// word for word, with and without a message, for error scales 1 and `t`, NTT and DGT.
    #[test]
    fn evaluation_form_encryption_is_the_transformed_pair() {
        for (transform, scale) in [(TransformKind::Ntt, 1u64), (TransformKind::Ntt, 65537), (TransformKind::Dgt, 257)] {
            let params = RlweParametersBuilder::new(1024)
                .ciphertext(ModuliChoice::Bits(vec![40; 3]))
                .special(ModuliChoice::Bits(vec![41]))
                .transform(transform)
                .allow_insecure(true)
                .build()
                .unwrap();
            let context = RlweContext::new(CpuBackend, &params, scale).unwrap();
            let sk = context.secret_key_from_seed(&Seed::from([1; 32])).unwrap();
            let pk = context.public_key_from_seed(&sk, &Seed::from([2; 32])).unwrap();
            let message = context.expand_uniform(&Seed::from([3; 32])).unwrap();
            for m in [None, Some(&message)] {
                let seed = Seed::from([4; 32]);
                let [c0, c1] = context.encrypt_with_seed(&pk, m, &seed).unwrap();
                let [e0, e1] = context.encrypt_with_seed_eval(&pk, m, &seed).unwrap();
                assert_eq!(e0, c0.forward().unwrap(), "{transform:?}, scale {scale}: c0");
                assert_eq!(e1, c1.forward().unwrap(), "{transform:?}, scale {scale}: c1");
            }
        }
    }
}
