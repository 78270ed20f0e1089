//! What a BGV program uses, in one import (`use bgv_encrypt::prelude::*;`, or
//! `hegpu::bgv::prelude`): parameters and presets, the context and its modes, keys,
//! plaintexts, encoders, ciphertexts, the core's traits for circuits written once for every
//! scheme ([`Evaluator`], [`SlotEncoding`]), the operators ([`BoundEvaluator`]) and the CPU
//! backend. `bfv::prelude` has the same names for BFV.

pub use poly::{CpuBackend, Seed};
pub use rlwe::{BoundCiphertext, BoundEvaluator, Evaluator, SlotEncoding, SlotSum};

pub use crate::{
    BatchEncoder, BgvContext, BgvError, BgvParameters, BgvParametersBuilder, Ciphertext, CoefficientEncoder,
    GaloisKeys, LevelPolicy, ModSwitching, Plaintext, Preset, PublicKey, RelinKey, ResidentPlaintext, SecretKey,
    SeededCiphertext,
};

#[cfg(feature = "cuda")]
pub use poly_cuda::{GpuBackend, GpuDevice};
