//! [`ResidentPlaintext`]: a decrypted plaintext whose `N` coefficients stay where the backend
//! keeps its data (device memory on the GPU) until a decoder needs them on the host, so a
//! decryption need not wait for the device or cross the bus
//! ([`BgvContext::decrypt_resident`](crate::BgvContext::decrypt_resident)).

use crate::BgvParameters;

/// A plaintext of `N` coefficients in `[0, t)` held by a backend (the core's
/// [`rlwe::ResidentPlaintext`]): a host vector on the CPU, a device buffer on the GPU. Made by
/// decryption, whose kernel reduces modulo `t`, so its words are always in range.
pub type ResidentPlaintext<B> = rlwe::ResidentPlaintext<BgvParameters, B>;
