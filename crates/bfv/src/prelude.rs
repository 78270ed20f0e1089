//! What a BFV program uses, in one import (`use bfv::prelude::*;`, or `hegpu::bfv::prelude`):
//! parameters and presets, the context, keys, plaintexts, encoders, ciphertexts, the core's
//! traits for circuits written once for every scheme ([`Evaluator`], [`SlotEncoding`]), the
//! operators ([`BoundEvaluator`]) and the CPU backend. `bgv_encrypt::prelude` has the same
//! names for BGV.
//!
//! Operators through a [`BoundEvaluator`] (each returns a `Result`; chain with `?`):
//!
//! ```
//! use bfv::prelude::*;
//!
//! # fn main() -> Result<(), BfvError> {
//! let params = Preset::Secure { log_degree: 12 }.build()?;
//! let context = BfvContext::new(CpuBackend, &params)?;
//! let secret = context.generate_secret_key()?;
//! let public = context.generate_public_key(&secret)?;
//! let relin = context.generate_relin_key(&secret)?;
//! let encoder = BatchEncoder::new(&params)?;
//!
//! let evaluator = BoundEvaluator::new(&context).with_relinearization_key(&relin);
//! let x = evaluator.encrypt(&encoder.encode(&[1, 2, 3])?, &public)?;
//! let y = evaluator.encrypt(&encoder.encode(&[4, 5, 6])?, &public)?;
//! let z = (&(&(&x * &y)? + &x)? * 2)?; // 2 (x y + x)
//! assert_eq!(&encoder.decode(&z.decrypt(&secret)?)?[..3], &[10, 24, 42]);
//! # Ok(())
//! # }
//! ```

pub use poly::{CpuBackend, Seed};
pub use rlwe::{BoundCiphertext, BoundEvaluator, Evaluator, SlotEncoding, SlotSum};

pub use crate::{
    BatchEncoder, BfvContext, BfvError, BfvParameters, BfvParametersBuilder, Ciphertext, CoefficientEncoder,
    GaloisKeys, MulVariant, Plaintext, Preset, PublicKey, RelinKey, ResidentPlaintext, SecretKey, SeededCiphertext,
};

#[cfg(feature = "cuda")]
pub use poly_cuda::{GpuBackend, GpuDevice};
