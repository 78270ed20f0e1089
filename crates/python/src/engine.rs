//! One scheme's context on one backend behind an object-safe trait, so that the Python classes
//! hold an `Arc<dyn Engine>` and type-erased objects whatever the scheme (BFV, BGV) and the
//! backend (CPU, GPU). The generic implementation is written once, over the core's traits
//! ([`rlwe::Evaluator`], [`rlwe::SchemeContext`], [`rlwe::codec::Codec`]); the few operations
//! the core's traits do not carry are [`SchemeOps`], a short delegation per scheme.

use std::any::Any;
use std::sync::Arc;

use poly::Seed;
use rlwe::BackendResult;
use rlwe::codec::Codec;
use rlwe::{
    Ciphertext, Evaluator, GaloisKeys, Plaintext, PublicKey, RelinearizationKey, RlweError, SchemeContext, SecretKey,
    SlotSum,
};

use crate::error::{BindingError, Result};

/// A type-erased object of an engine (a key, plaintext or ciphertext), shared by the Python
/// object that wraps it.
pub(crate) type Object = Arc<dyn Any + Send + Sync>;

/// The two schemes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SchemeKind {
    Bfv,
    Bgv,
}

impl SchemeKind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            SchemeKind::Bfv => "BFV",
            SchemeKind::Bgv => "BGV",
        }
    }
}

/// What an [`Object`] is, for bytes and messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Ciphertext,
    Plaintext,
    SecretKey,
    PublicKey,
    RelinKey,
    GaloisKeys,
}

impl Kind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Ciphertext => "ciphertext",
            Kind::Plaintext => "plaintext",
            Kind::SecretKey => "secret key",
            Kind::PublicKey => "public key",
            Kind::RelinKey => "relinearization key",
            Kind::GaloisKeys => "Galois keys",
        }
    }
}

/// Slot or coefficient values out of a plaintext.
#[derive(Debug)]
pub(crate) enum Values {
    Unsigned(Vec<u64>),
    Signed(Vec<i64>),
}

/// Binary operations on two ciphertexts.
#[derive(Debug, Clone, Copy)]
pub(crate) enum CipherOp {
    Add,
    Sub,
    /// The product without relinearization (three polynomials).
    Mul,
}

/// Operations of a ciphertext with a plaintext or an integer.
#[derive(Debug, Clone, Copy)]
pub(crate) enum PlainOp {
    Add,
    Sub,
    Mul,
}

/// Everything the Python classes call (module docs). Objects of another engine's type are
/// refused with [`BindingError::WrongObject`]; objects of other parameters with the library's
/// own [`RlweError::ParameterMismatch`].
pub(crate) trait Engine: Send + Sync {
    fn as_any(&self) -> &dyn Any;
    fn scheme(&self) -> SchemeKind;
    fn plaintext_modulus(&self) -> u64;
    fn top_level(&self) -> usize;
    /// Waits for the device's queued work (a no-op on the CPU).
    fn synchronize(&self) -> Result<()>;

    fn secret_key(&self, seed: Option<[u8; 32]>) -> Result<Object>;
    fn public_key(&self, secret: &Object) -> Result<Object>;
    fn relin_key(&self, secret: &Object) -> Result<Object>;
    fn galois_keys(&self, secret: &Object, elements: &[u64]) -> Result<Object>;
    /// The keys of `steps` (and the row swap when `row_swap`), or SEAL's compact set (the
    /// powers of two and the row swap).
    fn rotation_keys(&self, secret: &Object, steps: Option<&[i64]>, row_swap: bool) -> Result<Object>;
    fn galois_elements(&self, keys: &Object) -> Result<Vec<u64>>;

    fn slot_count(&self) -> Result<usize>;
    fn encode(&self, values: &[u64], batch: bool) -> Result<Object>;
    fn decode(&self, plaintext: &Object, batch: bool, signed: bool) -> Result<Values>;

    fn encrypt(&self, plaintext: &Object, public: &Object) -> Result<Object>;
    fn encrypt_symmetric(&self, plaintext: &Object, secret: &Object) -> Result<Object>;
    fn decrypt(&self, ciphertext: &Object, secret: &Object, checked: bool) -> Result<Object>;
    fn noise_budget(&self, ciphertext: &Object, secret: &Object) -> Result<u32>;
    /// `(level, size)`.
    fn shape(&self, ciphertext: &Object) -> Result<(usize, usize)>;

    fn cipher_op(&self, op: CipherOp, a: &Object, b: &Object) -> Result<Object>;
    fn plain_op(&self, op: PlainOp, a: &Object, plaintext: &Object) -> Result<Object>;
    fn scalar_op(&self, op: PlainOp, a: &Object, c: u64) -> Result<Object>;
    fn negate(&self, a: &Object) -> Result<Object>;
    fn relinearize(&self, a: &Object, key: &Object) -> Result<Object>;
    fn mul_relin(&self, a: &Object, b: &Object, key: &Object) -> Result<Object>;
    fn evaluate_polynomial(&self, a: &Object, coefficients: &[u64], key: &Object) -> Result<Object>;
    fn rotate_rows(&self, a: &Object, steps: i64, keys: &Object) -> Result<Object>;
    fn rotate_columns(&self, a: &Object, keys: &Object) -> Result<Object>;
    fn apply_galois(&self, a: &Object, element: u64, keys: &Object) -> Result<Object>;
    fn sum_slots(&self, a: &Object, sum: SlotSum, keys: &Object) -> Result<Object>;
    fn mod_switch_to_next(&self, a: &Object) -> Result<Object>;
    fn mod_switch_to(&self, a: &Object, level: usize) -> Result<Object>;

    fn to_bytes(&self, kind: Kind, object: &Object) -> Result<Vec<u8>>;
    fn load(&self, kind: Kind, bytes: &[u8]) -> Result<Object>;

    /// `ciphertext` (of this engine) as a ciphertext of `target`, the other scheme over the
    /// same ring, plaintext modulus and backend.
    fn switch_scheme(&self, ciphertext: &Object, target: &dyn Engine) -> Result<Object>;
}

/// What a scheme's context offers beyond the core's traits, each a one-line delegation.
pub(crate) trait SchemeOps: SchemeContext + Evaluator<<Self as SchemeContext>::Backend> {
    const KIND: SchemeKind;
    fn mul(&self, a: &Self::Ciphertext, b: &Self::Ciphertext) -> rlwe::Result<Self::Ciphertext>;
    fn relinearize(
        &self,
        a: &Self::Ciphertext,
        key: &RelinearizationKey<<Self as SchemeContext>::Backend>,
    ) -> rlwe::Result<Self::Ciphertext>;
    fn sub_plain(&self, a: &Self::Ciphertext, plaintext: &Self::Plaintext) -> rlwe::Result<Self::Ciphertext>;
    fn mod_switch_to(&self, a: &Self::Ciphertext, level: usize) -> rlwe::Result<Self::Ciphertext>;
    /// A symmetric encryption, expanded (both polynomials).
    fn encrypt_symmetric(
        &self,
        plaintext: &Self::Plaintext,
        secret: &SecretKey<<Self as SchemeContext>::Backend>,
    ) -> rlwe::Result<Self::Ciphertext>;
    fn top_level(&self) -> usize;
    /// Scheme switching to `target` (an engine of the other scheme on the same backend).
    fn switch_scheme(&self, ciphertext: &Self::Ciphertext, target: &dyn Any) -> Result<Object>;
}

/// The one implementation of [`Engine`], over a scheme's context.
pub(crate) struct SchemeEngine<C: SchemeContext> {
    pub(crate) context: C,
    /// The batch encoder, made once (its slot tables cost more than an encoding); `None` when
    /// `t` does not allow batching.
    encoder: Option<rlwe::BatchEncoder<C::Params>>,
}

impl<C: SchemeContext> SchemeEngine<C> {
    pub(crate) fn new(context: C) -> Self {
        let encoder = rlwe::BatchEncoder::new(context.params()).ok();
        Self { context, encoder }
    }
}

/// The object's value, or [`BindingError::WrongObject`].
pub(crate) fn cast<T: 'static>(object: &Object, kind: Kind, scheme: SchemeKind) -> Result<&T> {
    object.downcast_ref::<T>().ok_or(BindingError::WrongObject { kind: kind.name(), scheme: scheme.name() })
}

fn wrap<T: Send + Sync + 'static>(value: rlwe::Result<T>) -> Result<Object> {
    Ok(Arc::new(value?))
}

impl<C, B, P> SchemeEngine<C>
where
    C: SchemeOps<Backend = B, Params = P> + Evaluator<B, Plaintext = Plaintext<P>, Ciphertext = Ciphertext<P, B>>,
    B: rlwe::RlweBackend + 'static,
    P: rlwe::SchemeParameters + 'static,
{
    /// The batch encoder, or the library's error saying why `t` allows none.
    fn encoder(&self) -> Result<&rlwe::BatchEncoder<P>> {
        match &self.encoder {
            Some(encoder) => Ok(encoder),
            None => Err(rlwe::BatchEncoder::new(self.context.params())
                .err()
                .map_or(BindingError::Argument("no batch encoder for these parameters".into()), BindingError::from)),
        }
    }

    fn ct<'a>(&self, object: &'a Object) -> Result<&'a Ciphertext<P, B>> {
        cast(object, Kind::Ciphertext, C::KIND)
    }

    fn pt<'a>(&self, object: &'a Object) -> Result<&'a Plaintext<P>> {
        cast(object, Kind::Plaintext, C::KIND)
    }

    fn sk<'a>(&self, object: &'a Object) -> Result<&'a SecretKey<B>> {
        cast(object, Kind::SecretKey, C::KIND)
    }

    fn gk<'a>(&self, object: &'a Object) -> Result<&'a GaloisKeys<B>> {
        cast(object, Kind::GaloisKeys, C::KIND)
    }

    fn rk<'a>(&self, object: &'a Object) -> Result<&'a RelinearizationKey<B>> {
        cast(object, Kind::RelinKey, C::KIND)
    }
}

impl<C, B, P> Engine for SchemeEngine<C>
where
    C: SchemeOps<Backend = B, Params = P>
        + Evaluator<B, Plaintext = Plaintext<P>, Ciphertext = Ciphertext<P, B>>
        + Codec<Ciphertext<P, B>, Error = RlweError>
        + Codec<Plaintext<P>, Error = RlweError>
        + Codec<SecretKey<B>, Error = RlweError>
        + Codec<PublicKey<B>, Error = RlweError>
        + Codec<RelinearizationKey<B>, Error = RlweError>
        + Codec<GaloisKeys<B>, Error = RlweError>
        + Send
        + Sync
        + 'static,
    B: rlwe::RlweBackend + 'static,
    P: rlwe::SchemeParameters + 'static,
    Ciphertext<P, B>: Send + Sync,
    SecretKey<B>: Send + Sync,
    PublicKey<B>: Send + Sync,
    RelinearizationKey<B>: Send + Sync,
    GaloisKeys<B>: Send + Sync,
{
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn scheme(&self) -> SchemeKind {
        C::KIND
    }

    fn plaintext_modulus(&self) -> u64 {
        self.context.params().plaintext_modulus()
    }

    fn top_level(&self) -> usize {
        SchemeOps::top_level(&self.context)
    }

    fn synchronize(&self) -> Result<()> {
        SchemeContext::core(&self.context).backend().synchronize().be()?;
        Ok(())
    }

    fn secret_key(&self, seed: Option<[u8; 32]>) -> Result<Object> {
        let core = SchemeContext::core(&self.context);
        match seed {
            Some(bytes) => wrap(core.secret_key_from_seed(&Seed::from(bytes))),
            None => wrap(core.generate_secret_key()),
        }
    }

    fn public_key(&self, secret: &Object) -> Result<Object> {
        wrap(SchemeContext::core(&self.context).generate_public_key(self.sk(secret)?))
    }

    fn relin_key(&self, secret: &Object) -> Result<Object> {
        wrap(SchemeContext::core(&self.context).generate_relinearization_key(self.sk(secret)?))
    }

    fn galois_keys(&self, secret: &Object, elements: &[u64]) -> Result<Object> {
        wrap(SchemeContext::core(&self.context).generate_galois_keys(self.sk(secret)?, elements))
    }

    fn rotation_keys(&self, secret: &Object, steps: Option<&[i64]>, row_swap: bool) -> Result<Object> {
        let core = SchemeContext::core(&self.context);
        let secret = self.sk(secret)?;
        match steps {
            Some(steps) => wrap(core.generate_rotation_keys(secret, steps, row_swap)),
            None => wrap(core.generate_default_rotation_keys(secret)),
        }
    }

    fn galois_elements(&self, keys: &Object) -> Result<Vec<u64>> {
        Ok(self.gk(keys)?.elements())
    }

    fn slot_count(&self) -> Result<usize> {
        Ok(self.encoder()?.slot_count())
    }

    fn encode(&self, values: &[u64], batch: bool) -> Result<Object> {
        if batch {
            wrap(self.encoder()?.encode(values))
        } else {
            wrap(rlwe::CoefficientEncoder::new(self.context.params()).encode(values))
        }
    }

    fn decode(&self, plaintext: &Object, batch: bool, signed: bool) -> Result<Values> {
        let plaintext = self.pt(plaintext)?;
        let params = self.context.params();
        Ok(match (batch, signed) {
            (true, false) => Values::Unsigned(self.encoder()?.decode(plaintext)?),
            (true, true) => Values::Signed(self.encoder()?.decode_signed(plaintext)?),
            (false, false) => Values::Unsigned(rlwe::CoefficientEncoder::new(params).decode(plaintext)?),
            (false, true) => Values::Signed(rlwe::CoefficientEncoder::new(params).decode_signed(plaintext)?),
        })
    }

    fn encrypt(&self, plaintext: &Object, public: &Object) -> Result<Object> {
        let public = cast::<PublicKey<B>>(public, Kind::PublicKey, C::KIND)?;
        wrap(self.context.encrypt(self.pt(plaintext)?, public))
    }

    fn encrypt_symmetric(&self, plaintext: &Object, secret: &Object) -> Result<Object> {
        wrap(SchemeOps::encrypt_symmetric(&self.context, self.pt(plaintext)?, self.sk(secret)?))
    }

    fn decrypt(&self, ciphertext: &Object, secret: &Object, checked: bool) -> Result<Object> {
        let (ciphertext, secret) = (self.ct(ciphertext)?, self.sk(secret)?);
        if checked {
            wrap(self.context.decrypt_checked(ciphertext, secret))
        } else {
            wrap(self.context.decrypt(ciphertext, secret))
        }
    }

    fn noise_budget(&self, ciphertext: &Object, secret: &Object) -> Result<u32> {
        Ok(self.context.noise_budget(self.ct(ciphertext)?, self.sk(secret)?)?)
    }

    fn shape(&self, ciphertext: &Object) -> Result<(usize, usize)> {
        let ciphertext = self.ct(ciphertext)?;
        Ok((ciphertext.level(), ciphertext.size()))
    }

    fn cipher_op(&self, op: CipherOp, a: &Object, b: &Object) -> Result<Object> {
        let (a, b) = (self.ct(a)?, self.ct(b)?);
        wrap(match op {
            CipherOp::Add => self.context.add(a, b),
            CipherOp::Sub => self.context.sub(a, b),
            CipherOp::Mul => SchemeOps::mul(&self.context, a, b),
        })
    }

    fn plain_op(&self, op: PlainOp, a: &Object, plaintext: &Object) -> Result<Object> {
        let (a, plaintext) = (self.ct(a)?, self.pt(plaintext)?);
        wrap(match op {
            PlainOp::Add => self.context.add_plain(a, plaintext),
            PlainOp::Sub => SchemeOps::sub_plain(&self.context, a, plaintext),
            PlainOp::Mul => self.context.mul_plain(a, plaintext),
        })
    }

    fn scalar_op(&self, op: PlainOp, a: &Object, c: u64) -> Result<Object> {
        let a = self.ct(a)?;
        wrap(match op {
            PlainOp::Add => self.context.add_scalar(a, c),
            PlainOp::Sub => self.context.sub_scalar(a, c),
            PlainOp::Mul => self.context.mul_scalar(a, c),
        })
    }

    fn negate(&self, a: &Object) -> Result<Object> {
        wrap(self.context.negate(self.ct(a)?))
    }

    fn relinearize(&self, a: &Object, key: &Object) -> Result<Object> {
        wrap(SchemeOps::relinearize(&self.context, self.ct(a)?, self.rk(key)?))
    }

    fn mul_relin(&self, a: &Object, b: &Object, key: &Object) -> Result<Object> {
        wrap(self.context.mul_relin(self.ct(a)?, self.ct(b)?, self.rk(key)?))
    }

    fn evaluate_polynomial(&self, a: &Object, coefficients: &[u64], key: &Object) -> Result<Object> {
        wrap(self.context.evaluate_polynomial(self.ct(a)?, coefficients, self.rk(key)?))
    }

    fn rotate_rows(&self, a: &Object, steps: i64, keys: &Object) -> Result<Object> {
        wrap(self.context.rotate_rows(self.ct(a)?, steps, self.gk(keys)?))
    }

    fn rotate_columns(&self, a: &Object, keys: &Object) -> Result<Object> {
        wrap(self.context.rotate_columns(self.ct(a)?, self.gk(keys)?))
    }

    fn apply_galois(&self, a: &Object, element: u64, keys: &Object) -> Result<Object> {
        wrap(self.context.apply_galois(self.ct(a)?, element, self.gk(keys)?))
    }

    fn sum_slots(&self, a: &Object, sum: SlotSum, keys: &Object) -> Result<Object> {
        wrap(self.context.sum_slots(self.ct(a)?, sum, self.gk(keys)?))
    }

    fn mod_switch_to_next(&self, a: &Object) -> Result<Object> {
        wrap(self.context.mod_switch_to_next(self.ct(a)?))
    }

    fn mod_switch_to(&self, a: &Object, level: usize) -> Result<Object> {
        wrap(SchemeOps::mod_switch_to(&self.context, self.ct(a)?, level))
    }

    fn to_bytes(&self, kind: Kind, object: &Object) -> Result<Vec<u8>> {
        let context = &self.context;
        let scheme = C::KIND;
        Ok(match kind {
            Kind::Ciphertext => Codec::<Ciphertext<P, B>>::encode(context, self.ct(object)?)?,
            Kind::Plaintext => Codec::<Plaintext<P>>::encode(context, self.pt(object)?)?,
            Kind::SecretKey => Codec::<SecretKey<B>>::encode(context, self.sk(object)?)?,
            Kind::PublicKey => Codec::<PublicKey<B>>::encode(context, cast(object, kind, scheme)?)?,
            Kind::RelinKey => Codec::<RelinearizationKey<B>>::encode(context, self.rk(object)?)?,
            Kind::GaloisKeys => Codec::<GaloisKeys<B>>::encode(context, self.gk(object)?)?,
        })
    }

    fn load(&self, kind: Kind, bytes: &[u8]) -> Result<Object> {
        let context = &self.context;
        match kind {
            Kind::Ciphertext => wrap(Codec::<Ciphertext<P, B>>::decode(context, bytes)),
            Kind::Plaintext => wrap(Codec::<Plaintext<P>>::decode(context, bytes)),
            Kind::SecretKey => wrap(Codec::<SecretKey<B>>::decode(context, bytes)),
            Kind::PublicKey => wrap(Codec::<PublicKey<B>>::decode(context, bytes)),
            Kind::RelinKey => wrap(Codec::<RelinearizationKey<B>>::decode(context, bytes)),
            Kind::GaloisKeys => wrap(Codec::<GaloisKeys<B>>::decode(context, bytes)),
        }
    }

    fn switch_scheme(&self, ciphertext: &Object, target: &dyn Engine) -> Result<Object> {
        SchemeOps::switch_scheme(&self.context, self.ct(ciphertext)?, target.as_any())
    }
}
