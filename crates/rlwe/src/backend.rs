//! [`RlweBackend`]: what every RLWE scheme needs from a backend beyond [`poly::Backend`]:
//! the two halves of key switching (ModUp with the inner product against a key, and ModDown,
//! from the `rns` crate's tables), a few fused ring operations, and the zeroization of secret
//! polynomials. The key-switching algorithm itself is written once, in [`crate::keyswitch`].
//!
//! A backend prepares what it needs of the key-switching tables once per context
//! ([`RlweBackend::prepare_key_switch`]: device copies of the tables on the GPU, nothing on the
//! CPU), so no operation looks tables up.

use poly::{Backend, Coeff, CpuBackend, Eval, Poly, Representation};
use rns::KeySwitchContext;

use crate::Result;
use crate::error::BackendResult;

/// One digit `(b_j, a_j)` of a key-switching key on backend `B`, evaluation representation.
pub type EvalPair<B> = (<B as Backend>::Poly<Eval>, <B as Backend>::Poly<Eval>);

/// A [`Backend`] the RLWE schemes run on.
pub trait RlweBackend: Backend + Clone {
    /// The key-switching tables as this backend uses them, prepared once per context.
    type KeySwitchTables: Send + Sync;

    /// The two key-switching sums over `q u P` (coefficient representation) between ModUp and
    /// ModDown: two host polynomials on the CPU, one two-polynomial device buffer on the GPU.
    type KeySwitchSums;

    /// The extended, transformed digits of one polynomial ([`mod_up_digits`](Self::mod_up_digits)),
    /// kept for several key switches: host polynomials on the CPU, one device batch on the GPU.
    type ExtendedDigits;

    /// Prepares `tables` for this backend (uploads them on a device), for key switching over
    /// `ring_qp` (the backend's context of `q u P`) whose errors are multiples of `error_scale`
    /// (1 for BFV, `t` for BGV).
    fn prepare_key_switch(
        &self,
        tables: &KeySwitchContext,
        ring_qp: &Self::Context,
        error_scale: u64,
    ) -> Result<Self::KeySwitchTables>;

    /// A whole key switch with the result in the evaluation representation, each output
    /// added to its addend where given: `[addend_b + F(ks_b), addend_a + F(ks_a)]`, `F` the
    /// forward transform and `(ks_b, ks_a)` what `mod_up_inner_product`, `E^-1` on the sums,
    /// `mod_down_sums` and `E` on the result give ([`switch_key_eval_by_steps`], the provided
    /// method). A device backend keeps the sums in the evaluation representation and
    /// transforms only their special limbs back (ModDown in the evaluation representation);
    /// the words are the same.
    fn switch_key_eval(&self, request: &EvalKeySwitch<'_, Self>) -> Result<[Self::Poly<Eval>; 2]> {
        switch_key_eval_by_steps(self, request)
    }

    /// A whole key switch with error scale 1 (BFV): `mod_up_inner_product` then
    /// `mod_down_sums` (the provided method). A device backend may run the same launches as
    /// one recorded sequence; the words are the same.
    fn switch_key_coeff(
        &self,
        tables: &KeySwitchContext,
        prepared: &Self::KeySwitchTables,
        input: &Self::Poly<Coeff>,
        key: &[EvalPair<Self>],
        ring_qp: &Self::Context,
        ring_q: &Self::Context,
    ) -> Result<[Self::Poly<Coeff>; 2]> {
        let sums = self.mod_up_inner_product(tables, prepared, input, key, ring_qp)?;
        self.mod_down_sums(tables, prepared, sums, ring_q)
    }

    /// ModUp and inner product: with `d_j` the exact extension of digit `j` of `input` (over
    /// `q`, coefficient representation) to `q u P`, the sums `sum_j d_j b_j` and
    /// `sum_j d_j a_j` over `ring_qp`, in the coefficient representation. `key` has one pair
    /// per digit (the caller checks).
    fn mod_up_inner_product(
        &self,
        tables: &KeySwitchContext,
        prepared: &Self::KeySwitchTables,
        input: &Self::Poly<Coeff>,
        key: &[EvalPair<Self>],
        ring_qp: &Self::Context,
    ) -> Result<Self::KeySwitchSums>;

    /// Every digit of `input` (over `q`, coefficient representation) extended exactly to
    /// `q u P` and forward transformed, kept for several key switches of the same input
    /// (hoisting: [`crate::hoisting`]). The words of the extensions `mod_up_inner_product`
    /// forms.
    fn mod_up_digits(
        &self,
        tables: &KeySwitchContext,
        prepared: &Self::KeySwitchTables,
        input: &Self::Poly<Coeff>,
        ring_qp: &Self::Context,
    ) -> Result<Self::ExtendedDigits>;

    /// The inner product of the hoisted `digits` with `key` after the automorphism
    /// `sigma_element` of each: `sum_j sigma(d_j) b_j` and `sum_j sigma(d_j) a_j` over
    /// `ring_qp`, coefficient representation (the sums `mod_up_inner_product` gives, with
    /// `sigma(d_j)` for `d_j`). `key` has one pair per digit (the caller checks).
    fn permuted_inner_product(
        &self,
        tables: &KeySwitchContext,
        prepared: &Self::KeySwitchTables,
        digits: &Self::ExtendedDigits,
        element: u64,
        key: &[EvalPair<Self>],
        ring_qp: &Self::Context,
    ) -> Result<Self::KeySwitchSums>;

    /// Whether several key switches of one input over `ring_qp` gain from sharing its ModUp
    /// ([`crate::hoisting`]): always on the CPU; on a device, from a tuned degree up (below it
    /// the plain key switch replays as one CUDA graph). The words are the same either way.
    fn hoisting_pays(&self, _ring_qp: &Self::Context) -> bool {
        true
    }

    /// A whole hoisted key switch with the result in the evaluation representation, the
    /// addend added to the first output: `[addend + F(ks_b), F(ks_a)]` with `(ks_b, ks_a)` what
    /// `permuted_inner_product`, `E^-1` on the sums, `mod_down_sums` and `E` give
    /// ([`switch_key_hoisted_eval_by_steps`], the provided method). A device backend keeps the
    /// sums in the evaluation representation and runs ModDown there, as
    /// [`switch_key_eval`](Self::switch_key_eval) does; the words are the same.
    fn switch_key_hoisted_eval(&self, request: &HoistedKeySwitch<'_, Self>) -> Result<[Self::Poly<Eval>; 2]> {
        switch_key_hoisted_eval_by_steps(self, request)
    }

    /// ModDown of both sums: `round(x / P)` from `q u P` to `q` (`ring_q`).
    fn mod_down_sums(
        &self,
        tables: &KeySwitchContext,
        prepared: &Self::KeySwitchTables,
        sums: Self::KeySwitchSums,
        ring_q: &Self::Context,
    ) -> Result<[Self::Poly<Coeff>; 2]>;

    /// The tensor product of the pairs `c = (c_0, c_1)` and `d = (d_0, d_1)` (evaluation
    /// representation): `[c_0 d_0, c_0 d_1 + c_1 d_0, c_1 d_1]`. The provided method runs three
    /// products and a multiply-add; a device backend one kernel. Same values either way.
    fn tensor_product(&self, c: [&Self::Poly<Eval>; 2], d: [&Self::Poly<Eval>; 2]) -> Result<[Self::Poly<Eval>; 3]> {
        let mut middle = self.mul(c[0], d[1]).be()?;
        self.mul_add_assign(&mut middle, c[1], d[0]).be()?;
        Ok([self.mul(c[0], d[0]).be()?, middle, self.mul(c[1], d[1]).be()?])
    }

    /// The forward transform of a copy of `poly` (which stays as it is). The provided method
    /// duplicates and transforms; a device backend transforms straight into new memory.
    fn forward_copy(&self, poly: &Self::Poly<Coeff>) -> Result<Self::Poly<Eval>> {
        let copy = self.duplicate(poly).be()?;
        self.forward(copy).be()
    }

    /// The inverse transform of a copy of `poly` (which stays as it is). The provided method
    /// duplicates and transforms; a device backend transforms straight into new memory.
    fn inverse_copy(&self, poly: &Self::Poly<Eval>) -> Result<Self::Poly<Coeff>> {
        let copy = self.duplicate(poly).be()?;
        self.inverse(copy).be()
    }

    /// The inverse transform of `a * b` (evaluation representation). The provided method
    /// multiplies, then transforms; a device backend multiplies inside the transform's first
    /// pass. Same values either way.
    fn inverse_of_product(&self, mut a: Self::Poly<Eval>, b: &Self::Poly<Eval>) -> Result<Self::Poly<Coeff>> {
        self.mul_assign(&mut a, b).be()?;
        self.inverse(a).be()
    }

    /// The inverse transform of `addend + a * b` (evaluation representation; the three stay as
    /// they are): a decryption's phase `c_0 + c_1 s`. The provided method copies, multiplies
    /// and adds, then transforms; a device backend loads the multiply-add in the transform's
    /// first pass. Same values either way.
    fn inverse_of_mul_add(
        &self,
        addend: &Self::Poly<Eval>,
        a: &Self::Poly<Eval>,
        b: &Self::Poly<Eval>,
    ) -> Result<Self::Poly<Coeff>> {
        let mut value = self.duplicate(addend).be()?;
        self.mul_add_assign(&mut value, a, b).be()?;
        self.inverse(value).be()
    }

    /// `(input - E r) / q_l` over `target` (the primes of `input` but its last one, `q_l`),
    /// `E = error_scale` (`round(input / q_l)` for `E = 1`), coefficient representation:
    /// [`crate::chain::rescale_by_last_prime_host`]'s words. The provided method computes them
    /// on the host (download, compute, upload).
    fn rescale_by_last_prime(
        &self,
        input: &Self::Poly<Coeff>,
        target: &Self::Context,
        error_scale: u64,
    ) -> Result<Self::Poly<Coeff>> {
        let host = self.download(input).be()?;
        let output = crate::chain::rescale_by_last_prime_host(&host, self.ring(target), error_scale)?;
        self.upload(target, &output).be()
    }

    /// [`rescale_by_last_prime`](Self::rescale_by_last_prime) of each of `inputs` (evaluation
    /// representation, one ring), with the results in the evaluation representation: the
    /// forward transforms of the same words. `last_prime` is the one-prime context of the
    /// inputs' last prime `q_l`. The provided method transforms each input back, rescales and
    /// transforms forward; a device backend transforms back only the last limb.
    fn rescale_by_last_prime_eval(
        &self,
        inputs: &[&Self::Poly<Eval>],
        target: &Self::Context,
        last_prime: &Self::Context,
        error_scale: u64,
    ) -> Result<Vec<Self::Poly<Eval>>> {
        let _ = last_prime;
        inputs
            .iter()
            .map(|input| {
                let coefficients = self.inverse(self.duplicate(input).be()?).be()?;
                let rescaled = self.rescale_by_last_prime(&coefficients, target, error_scale)?;
                self.forward(rescaled).be()
            })
            .collect()
    }

    /// The limbs of `input` whose primes are `target`'s, as a polynomial of `target`, whose
    /// primes must be a subsequence of `input`'s (in order): a key over `q P` restricted to
    /// `q_l P`. Either representation (both are per prime). The provided method goes through
    /// the host; errors with [`poly::PolyError::ContextMismatch`] for another degree or a prime
    /// of `target` not found in order.
    fn select_limbs<R: Representation>(&self, input: &Self::Poly<R>, target: &Self::Context) -> Result<Self::Poly<R>> {
        let host = self.download(input).be()?;
        let ring = self.ring(target);
        let runs = limb_runs(host.context(), ring)?;
        let n = ring.degree();
        let mut words = Vec::with_capacity(ring.poly_len());
        for (from, _, count) in runs {
            words.extend_from_slice(&host.as_slice()[from * n..(from + count) * n]);
        }
        let selected = Poly::<R>::from_limbs(ring, words)?;
        self.upload(target, &selected).be()
    }

    /// Multiplies limb `i` of both key-switching sums by `scalars[i]` (one per prime of
    /// `q u P`, each below its prime): the `E^-1` of a ModDown that keeps the error a
    /// multiple of `E` (keyswitch.rs).
    fn scale_sums(&self, sums: &mut Self::KeySwitchSums, scalars: &[u64]) -> Result<()>;

    /// The first limbs of `input` as a polynomial of `target` (whose primes are a prefix of
    /// `input`'s), in either representation (both are per prime). The provided method goes
    /// through the host.
    fn drop_limbs<R: Representation>(&self, input: &Self::Poly<R>, target: &Self::Context) -> Result<Self::Poly<R>> {
        let host = self.download(input).be()?;
        let ring = self.ring(target);
        let prefix = host.context().moduli().iter().zip(ring.moduli()).all(|(a, b)| a.value() == b.value());
        if !prefix || ring.num_limbs() > host.context().num_limbs() || ring.degree() != host.context().degree() {
            return Err(crate::RlweError::Poly(poly::PolyError::ContextMismatch));
        }
        let truncated = Poly::<R>::from_slice(ring, &host.as_slice()[..ring.poly_len()])?;
        self.upload(target, &truncated).be()
    }

    /// Overwrites `poly` with zeros in a way the compiler cannot elide (secret keys call it
    /// when dropped). The provided method multiplies by zero through the backend, which on a
    /// device is a kernel write.
    fn zeroize<R: Representation>(&self, poly: &mut Self::Poly<R>) -> Result<()> {
        self.scalar_mul_assign(poly, 0).be()?;
        self.synchronize().be()
    }
}

/// What [`RlweBackend::switch_key_eval`] works on: the input and key of one key switch at
/// one level, the rings it spans, its error scale and the addends of its two outputs.
pub struct EvalKeySwitch<'a, B: RlweBackend> {
    /// The level's key-switching tables.
    pub tables: &'a KeySwitchContext,
    /// The same, prepared on the backend.
    pub prepared: &'a B::KeySwitchTables,
    /// The polynomial to switch, over `q_l`, coefficient representation.
    pub input: &'a B::Poly<Coeff>,
    /// The same in the evaluation representation, where the caller has it: a device backend
    /// reads the digits' own limbs there instead of transforming them (the words are the
    /// same). `None`: every limb is transformed.
    pub input_eval: Option<&'a B::Poly<Eval>>,
    /// The key's digits restricted to `q_l P`.
    pub key: &'a [EvalPair<B>],
    /// `R_{q_l P}`, `R_{q_l}` and `R_P`.
    pub ring_qp: &'a B::Context,
    /// `R_{q_l}`.
    pub ring_q: &'a B::Context,
    /// `R_P`.
    pub ring_p: &'a B::Context,
    /// `E` (1 for BFV, `t` for BGV) and `E^-1` modulo each prime of `q_l u P` (empty for 1).
    pub error_scale: u64,
    /// `E^-1` modulo each prime of `q_l u P` (empty for `E = 1`).
    pub scale_inverses: &'a [u64],
    /// Added to the two outputs where given (over `q_l`, evaluation representation).
    pub addends: [Option<&'a B::Poly<Eval>>; 2],
}

impl<B: RlweBackend> core::fmt::Debug for EvalKeySwitch<'_, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("EvalKeySwitch")
            .field("error_scale", &self.error_scale)
            .field("digits", &self.key.len())
            .field("addends", &self.addends.map(|a| a.is_some()))
            .finish()
    }
}

/// What [`RlweBackend::switch_key_hoisted_eval`] works with: the level's tables and rings,
/// the hoisted digits, the automorphism, the key's digits and the addend.
pub struct HoistedKeySwitch<'a, B: RlweBackend> {
    /// The key-switching tables of the level (host).
    pub tables: &'a KeySwitchContext,
    /// The same, prepared by the backend.
    pub prepared: &'a B::KeySwitchTables,
    /// The input's extended, transformed digits ([`RlweBackend::mod_up_digits`]).
    pub digits: &'a B::ExtendedDigits,
    /// The Galois element whose automorphism the digits take.
    pub element: u64,
    /// The key's digits restricted to `q_l P`.
    pub key: &'a [EvalPair<B>],
    /// `R_{q_l P}`.
    pub ring_qp: &'a B::Context,
    /// `R_{q_l}`.
    pub ring_q: &'a B::Context,
    /// `R_P`.
    pub ring_p: &'a B::Context,
    /// `E` (1 for BFV, `t` for BGV).
    pub error_scale: u64,
    /// `E^-1` modulo each prime of `q_l u P` (empty for `E = 1`).
    pub scale_inverses: &'a [u64],
    /// Added to the first output (over `q_l`, evaluation representation).
    pub addend: &'a B::Poly<Eval>,
}

impl<B: RlweBackend> core::fmt::Debug for HoistedKeySwitch<'_, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("HoistedKeySwitch")
            .field("element", &self.element)
            .field("error_scale", &self.error_scale)
            .field("digits", &self.key.len())
            .finish()
    }
}

/// [`RlweBackend::switch_key_hoisted_eval`] from the coefficient-representation steps:
/// permuted inner product, `E^-1` on the sums, ModDown, `E` on the result, forward
/// transforms, the addend.
pub fn switch_key_hoisted_eval_by_steps<B: RlweBackend>(
    backend: &B,
    request: &HoistedKeySwitch<'_, B>,
) -> Result<[B::Poly<Eval>; 2]> {
    let mut sums = backend.permuted_inner_product(
        request.tables,
        request.prepared,
        request.digits,
        request.element,
        request.key,
        request.ring_qp,
    )?;
    if request.error_scale != 1 {
        backend.scale_sums(&mut sums, request.scale_inverses)?;
    }
    let [down_b, down_a] = backend.mod_down_sums(request.tables, request.prepared, sums, request.ring_q)?;
    let finish = |mut down: B::Poly<Coeff>| -> Result<B::Poly<Eval>> {
        if request.error_scale != 1 {
            backend.scalar_mul_assign(&mut down, request.error_scale).be()?;
        }
        backend.forward(down).be()
    };
    let mut out_b = finish(down_b)?;
    backend.add_assign(&mut out_b, request.addend).be()?;
    Ok([out_b, finish(down_a)?])
}

/// [`RlweBackend::switch_key_eval`] from the coefficient-representation steps: ModUp and
/// inner product, `E^-1` on the sums, ModDown, `E` on the result, forward transforms, addends.
pub fn switch_key_eval_by_steps<B: RlweBackend>(
    backend: &B,
    request: &EvalKeySwitch<'_, B>,
) -> Result<[B::Poly<Eval>; 2]> {
    let mut sums =
        backend.mod_up_inner_product(request.tables, request.prepared, request.input, request.key, request.ring_qp)?;
    if request.error_scale != 1 {
        backend.scale_sums(&mut sums, request.scale_inverses)?;
    }
    let [down_b, down_a] = backend.mod_down_sums(request.tables, request.prepared, sums, request.ring_q)?;
    let finish = |mut down: B::Poly<Coeff>, addend: Option<&B::Poly<Eval>>| -> Result<B::Poly<Eval>> {
        if request.error_scale != 1 {
            backend.scalar_mul_assign(&mut down, request.error_scale).be()?;
        }
        let mut out = backend.forward(down).be()?;
        if let Some(addend) = addend {
            backend.add_assign(&mut out, addend).be()?;
        }
        Ok(out)
    };
    Ok([finish(down_b, request.addends[0])?, finish(down_a, request.addends[1])?])
}

/// The reference: one digit at a time, on the host.
impl RlweBackend for CpuBackend {
    type KeySwitchTables = ();
    type KeySwitchSums = [Poly<Coeff>; 2];
    type ExtendedDigits = Vec<Poly<Eval>>;

    fn prepare_key_switch(
        &self,
        _tables: &KeySwitchContext,
        _ring_qp: &Self::Context,
        _error_scale: u64,
    ) -> Result<()> {
        Ok(())
    }

    /// Per digit: exact ModUp, one forward transform, two `mul_add_assign`; then one inverse
    /// transform per sum.
    fn mod_up_inner_product(
        &self,
        tables: &KeySwitchContext,
        _prepared: &(),
        input: &Poly<Coeff>,
        key: &[EvalPair<Self>],
        ring_qp: &Self::Context,
    ) -> Result<[Poly<Coeff>; 2]> {
        let mut acc_b: Poly<Eval> = Poly::zero(ring_qp);
        let mut acc_a: Poly<Eval> = Poly::zero(ring_qp);
        for (digit, (key_b, key_a)) in key.iter().enumerate() {
            let mut extended = vec![0u64; ring_qp.poly_len()];
            tables.mod_up(input.as_slice(), digit, rns::Extension::Exact, &mut extended)?;
            let extended = Poly::<Coeff>::from_limbs(ring_qp, extended)?.forward()?;
            acc_b.mul_add_assign(&extended, key_b)?;
            acc_a.mul_add_assign(&extended, key_a)?;
        }
        Ok([acc_b.inverse()?, acc_a.inverse()?])
    }

    /// Per digit: exact ModUp, one forward transform.
    fn mod_up_digits(
        &self,
        tables: &KeySwitchContext,
        _prepared: &(),
        input: &Poly<Coeff>,
        ring_qp: &Self::Context,
    ) -> Result<Vec<Poly<Eval>>> {
        let mut digits = Vec::with_capacity(tables.num_digits());
        for digit in 0..tables.num_digits() {
            let mut extended = vec![0u64; ring_qp.poly_len()];
            tables.mod_up(input.as_slice(), digit, rns::Extension::Exact, &mut extended)?;
            digits.push(Poly::<Coeff>::from_limbs(ring_qp, extended)?.forward()?);
        }
        Ok(digits)
    }

    /// Per digit: the automorphism of its evaluations, two `mul_add_assign`; then one inverse
    /// transform per sum.
    fn permuted_inner_product(
        &self,
        _tables: &KeySwitchContext,
        _prepared: &(),
        digits: &Vec<Poly<Eval>>,
        element: u64,
        key: &[EvalPair<Self>],
        ring_qp: &Self::Context,
    ) -> Result<[Poly<Coeff>; 2]> {
        let mut acc_b: Poly<Eval> = Poly::zero(ring_qp);
        let mut acc_a: Poly<Eval> = Poly::zero(ring_qp);
        for (digit, (key_b, key_a)) in digits.iter().zip(key) {
            let permuted = self.automorphism_eval(digit, element)?;
            acc_b.mul_add_assign(&permuted, key_b)?;
            acc_a.mul_add_assign(&permuted, key_a)?;
        }
        Ok([acc_b.inverse()?, acc_a.inverse()?])
    }

    fn mod_down_sums(
        &self,
        tables: &KeySwitchContext,
        _prepared: &(),
        sums: [Poly<Coeff>; 2],
        ring_q: &Self::Context,
    ) -> Result<[Poly<Coeff>; 2]> {
        let down = |sum: &Poly<Coeff>| -> Result<Poly<Coeff>> {
            let mut output = vec![0u64; ring_q.poly_len()];
            tables.mod_down(sum.as_slice(), &mut output)?;
            Ok(Poly::from_limbs(ring_q, output)?)
        };
        Ok([down(&sums[0])?, down(&sums[1])?])
    }

    fn scale_sums(&self, sums: &mut [Poly<Coeff>; 2], scalars: &[u64]) -> Result<()> {
        for sum in sums {
            sum.scalar_mul_per_limb_assign(scalars)?;
        }
        Ok(())
    }

    fn zeroize<R: Representation>(&self, poly: &mut Poly<R>) -> Result<()> {
        use zeroize::Zeroize;
        // Take the storage out and clear it with volatile writes (the zeroize crate).
        let context = std::sync::Arc::clone(poly.context());
        let mut words = core::mem::replace(poly, Poly::zero(&context)).into_vec();
        words.zeroize();
        Ok(())
    }
}

/// Batched on the device (`rns::gpu::GpuKeySwitch`): ModUp of every digit into one buffer, one
/// forward transform of it, one inner-product kernel writing both sums into one
/// two-polynomial buffer, one inverse transform of both, then ModDown of each. The same words
/// as the CPU.
#[cfg(feature = "cuda")]
impl RlweBackend for poly_cuda::GpuBackend {
    type KeySwitchTables = rns::gpu::GpuKeySwitch;
    type KeySwitchSums = poly_cuda::DevicePolyBatch<Coeff>;
    type ExtendedDigits = poly_cuda::DevicePolyBatch<Eval>;

    /// The tables striding the rows of `ring_qp` (padded rows over a ring `Z_q[x]/Phi_m`).
    fn prepare_key_switch(
        &self,
        tables: &KeySwitchContext,
        ring_qp: &poly_cuda::GpuContext,
        error_scale: u64,
    ) -> Result<rns::gpu::GpuKeySwitch> {
        rns::gpu::GpuKeySwitch::for_context(ring_qp, tables, error_scale).map_err(gpu_rns_error)
    }

    fn mod_up_inner_product(
        &self,
        _tables: &KeySwitchContext,
        prepared: &rns::gpu::GpuKeySwitch,
        input: &poly_cuda::DevicePoly<Coeff>,
        key: &[EvalPair<Self>],
        ring_qp: &poly_cuda::GpuContext,
    ) -> Result<poly_cuda::DevicePolyBatch<Coeff>> {
        let sums = prepared.key_switch_accumulate(input, key, rns::Extension::Exact, ring_qp).map_err(gpu_rns_error)?;
        sums.inverse().be()
    }

    /// `GpuKeySwitch::extended_digits_all`: the ModUp kernels (or the transform's first pass
    /// for one-prime digits) into one batch, one forward transform of it.
    fn mod_up_digits(
        &self,
        _tables: &KeySwitchContext,
        prepared: &rns::gpu::GpuKeySwitch,
        input: &poly_cuda::DevicePoly<Coeff>,
        ring_qp: &poly_cuda::GpuContext,
    ) -> Result<poly_cuda::DevicePolyBatch<Eval>> {
        prepared.extended_digits_all(input, rns::Extension::Exact, ring_qp).map_err(gpu_rns_error)
    }

    /// `GpuKeySwitch::permuted_inner_product` (over NTT rings the inner-product kernel reads
    /// the digits permuted), one inverse transform of both sums.
    fn permuted_inner_product(
        &self,
        _tables: &KeySwitchContext,
        prepared: &rns::gpu::GpuKeySwitch,
        digits: &poly_cuda::DevicePolyBatch<Eval>,
        element: u64,
        key: &[EvalPair<Self>],
        ring_qp: &poly_cuda::GpuContext,
    ) -> Result<poly_cuda::DevicePolyBatch<Coeff>> {
        let sums = prepared.permuted_inner_product(digits, element, key, ring_qp).map_err(gpu_rns_error)?;
        sums.inverse().be()
    }

    fn mod_down_sums(
        &self,
        _tables: &KeySwitchContext,
        prepared: &rns::gpu::GpuKeySwitch,
        sums: poly_cuda::DevicePolyBatch<Coeff>,
        ring_q: &poly_cuda::GpuContext,
    ) -> Result<[poly_cuda::DevicePoly<Coeff>; 2]> {
        let mut down = prepared.mod_down_batch(&sums, ring_q).map_err(gpu_rns_error)?.into_iter();
        match (down.next(), down.next()) {
            (Some(down_b), Some(down_a)) => Ok([down_b, down_a]),
            _ => Err(crate::RlweError::from_backend(poly_cuda::GpuError::LengthMismatch {
                expected: 2,
                actual: sums.len(),
            })),
        }
    }

    /// `GpuKeySwitch::switch_key`: the same launches as the two steps, replayed as a CUDA graph
    /// at small `N`.
    fn switch_key_coeff(
        &self,
        _tables: &KeySwitchContext,
        prepared: &rns::gpu::GpuKeySwitch,
        input: &poly_cuda::DevicePoly<Coeff>,
        key: &[EvalPair<Self>],
        ring_qp: &poly_cuda::GpuContext,
        ring_q: &poly_cuda::GpuContext,
    ) -> Result<[poly_cuda::DevicePoly<Coeff>; 2]> {
        prepared.switch_key(input, key, rns::Extension::Exact, ring_qp, ring_q).map_err(gpu_rns_error)
    }

    /// NTT and `Phi_m` rings: `GpuKeySwitch::switch_key_eval` (the sums stay in the evaluation
    /// representation and ModDown transforms back only their special limbs, `E^-1` folded
    /// into its conversion when the tables were prepared; replayed as a CUDA graph at small
    /// `N` over NTT rings); DGT rings take the steps.
    fn switch_key_eval(&self, request: &EvalKeySwitch<'_, Self>) -> Result<[poly_cuda::DevicePoly<Eval>; 2]> {
        if gaussian(request.ring_q.ring().transform()) {
            return switch_key_eval_by_steps(self, request);
        }
        request
            .prepared
            .switch_key_eval(
                request.input,
                request.key,
                rns::Extension::Exact,
                request.ring_qp,
                request.ring_p,
                request.ring_q,
                request.error_scale,
                request.addends,
                request.input_eval,
            )
            .map_err(gpu_rns_error)
    }

    /// From `log2(N) >= GpuTuning::rns.hoisting_min_log_n` of the device.
    fn hoisting_pays(&self, ring_qp: &poly_cuda::GpuContext) -> bool {
        ring_qp.degree().trailing_zeros() >= ring_qp.device().tuning().rns.hoisting_min_log_n
    }

    /// NTT and `Phi_m` rings: `GpuKeySwitch::permuted_inner_product`, then ModDown in the
    /// evaluation representation (`GpuKeySwitch::mod_down_eval`, the addend added there), as
    /// `switch_key_eval`; DGT rings take the steps.
    fn switch_key_hoisted_eval(
        &self,
        request: &HoistedKeySwitch<'_, Self>,
    ) -> Result<[poly_cuda::DevicePoly<Eval>; 2]> {
        if gaussian(request.ring_q.ring().transform()) {
            return switch_key_hoisted_eval_by_steps(self, request);
        }
        let sums = request
            .prepared
            .permuted_inner_product(request.digits, request.element, request.key, request.ring_qp)
            .map_err(gpu_rns_error)?;
        request
            .prepared
            .mod_down_eval(&sums, request.ring_p, request.ring_q, request.error_scale, [Some(request.addend), None])
            .map_err(gpu_rns_error)
    }

    fn forward_copy(&self, poly: &poly_cuda::DevicePoly<Coeff>) -> Result<poly_cuda::DevicePoly<Eval>> {
        poly.forward_to_new().be()
    }

    fn inverse_copy(&self, poly: &poly_cuda::DevicePoly<Eval>) -> Result<poly_cuda::DevicePoly<Coeff>> {
        poly.inverse_to_new().be()
    }

    fn tensor_product(
        &self,
        c: [&poly_cuda::DevicePoly<Eval>; 2],
        d: [&poly_cuda::DevicePoly<Eval>; 2],
    ) -> Result<[poly_cuda::DevicePoly<Eval>; 3]> {
        c[0].tensor(c[1], d[0], d[1]).be()
    }

    /// One kernel (`kernels/rlwe.cu`), after a small upload of the inverses of the last prime.
    fn rescale_by_last_prime(
        &self,
        input: &poly_cuda::DevicePoly<Coeff>,
        target: &poly_cuda::GpuContext,
        error_scale: u64,
    ) -> Result<poly_cuda::DevicePoly<Coeff>> {
        gpu_rescale_by_last_prime(self, input, target, error_scale)
    }

    /// NTT and `Phi_m` rings: the last limb of each input goes back to coefficients (one
    /// transform over `last_prime`), one kernel forms the correction over `q_0 .. q_{l-1}`, one
    /// forward transform of it, one kernel adds `x q_l^-1` on the evaluations (two inputs per
    /// launch); instead of transforming every limb back and forth. DGT rings (whose evaluations
    /// are Gaussian pairs) take the provided steps.
    fn rescale_by_last_prime_eval(
        &self,
        inputs: &[&poly_cuda::DevicePoly<Eval>],
        target: &poly_cuda::GpuContext,
        last_prime: &poly_cuda::GpuContext,
        error_scale: u64,
    ) -> Result<Vec<poly_cuda::DevicePoly<Eval>>> {
        if gaussian(target.ring().transform()) {
            return inputs
                .iter()
                .map(|input| {
                    let coefficients = input.duplicate().be()?.inverse().be()?;
                    gpu_rescale_by_last_prime(self, &coefficients, target, error_scale)?.forward().be()
                })
                .collect();
        }
        let mut out = Vec::with_capacity(inputs.len());
        for pair in inputs.chunks(2) {
            out.extend(gpu_rescale_eval_pair(self, pair, target, last_prime, error_scale)?);
        }
        Ok(out)
    }

    /// One device-to-device copy per run of consecutive limbs (two for a key over `q P`
    /// restricted to `q_l P`).
    fn select_limbs<R: Representation>(
        &self,
        input: &poly_cuda::DevicePoly<R>,
        target: &poly_cuda::GpuContext,
    ) -> Result<poly_cuda::DevicePoly<R>> {
        use poly_cuda::GpuError;
        if !std::sync::Arc::ptr_eq(input.context().device(), target.device()) {
            return Err(crate::RlweError::from_backend(GpuError::WrongContext));
        }
        let runs = limb_runs(input.context().ring(), target.ring())?;
        // Device rows (padded over a ring Z_q[x]/Phi_m).
        let (n, len) = (target.degree(), target.poly_len());
        let stream = target.device().stream();
        // SAFETY: the runs cover every limb of the output (limb_runs checked that the target's
        // primes are found, in order), and each is written by a copy below before any read.
        let mut out = unsafe { stream.alloc::<u64>(len) }
            .map_err(|e| crate::RlweError::from_backend(GpuError::alloc(len * size_of::<u64>(), e)))?;
        for (from, to, count) in runs {
            let source = input.device_buffer().slice(from * n..(from + count) * n);
            let mut destination = out.slice_mut(to * n..(to + count) * n);
            stream
                .memcpy_dtod(&source, &mut destination)
                .map_err(|e| crate::RlweError::from_backend(GpuError::driver("cuMemcpyDtoDAsync", e)))?;
        }
        poly_cuda::DevicePoly::from_device_buffer(target, out).be()
    }

    /// One launch over both sums.
    fn scale_sums(&self, sums: &mut poly_cuda::DevicePolyBatch<Coeff>, scalars: &[u64]) -> Result<()> {
        sums.scalar_mul_per_limb_assign(scalars).be()
    }

    /// One device-to-device copy of the prefix.
    fn drop_limbs<R: Representation>(
        &self,
        input: &poly_cuda::DevicePoly<R>,
        target: &poly_cuda::GpuContext,
    ) -> Result<poly_cuda::DevicePoly<R>> {
        let (from, to) = (input.context().ring(), target.ring());
        let prefix = from.moduli().iter().zip(to.moduli()).all(|(a, b)| a.value() == b.value());
        if !prefix || to.num_limbs() > from.num_limbs() || to.degree() != from.degree() {
            return Err(crate::RlweError::Poly(poly::PolyError::ContextMismatch));
        }
        if !std::sync::Arc::ptr_eq(input.context().device(), target.device()) {
            return Err(crate::RlweError::from_backend(poly_cuda::GpuError::WrongContext));
        }
        let stream = target.device().stream();
        let copy = stream
            .clone_dtod(&input.device_buffer().slice(..target.poly_len()))
            .map_err(|e| crate::RlweError::from_backend(poly_cuda::GpuError::driver("cuMemcpyDtoDAsync", e)))?;
        poly_cuda::DevicePoly::from_device_buffer(target, copy).be()
    }

    fn inverse_of_product(
        &self,
        a: poly_cuda::DevicePoly<Eval>,
        b: &poly_cuda::DevicePoly<Eval>,
    ) -> Result<poly_cuda::DevicePoly<Coeff>> {
        a.inverse_of_product(b).be()
    }

    fn inverse_of_mul_add(
        &self,
        addend: &poly_cuda::DevicePoly<Eval>,
        a: &poly_cuda::DevicePoly<Eval>,
        b: &poly_cuda::DevicePoly<Eval>,
    ) -> Result<poly_cuda::DevicePoly<Coeff>> {
        addend.inverse_of_mul_add(a, b).be()
    }
}

#[cfg(feature = "cuda")]
poly_cuda::kernel_set! {
    /// The kernels of `kernels/rlwe.cu`, loaded once per device.
    struct RlweKernels(poly_cuda::hegpu_kernels::RLWE) {
        rlwe_rescale_by_last,
        rlwe_rescale_correction,
        rlwe_rescale_combine,
    }
}

#[cfg(feature = "cuda")]
fn gpu_rescale_by_last_prime(
    backend: &poly_cuda::GpuBackend,
    input: &poly_cuda::DevicePoly<Coeff>,
    target: &poly_cuda::GpuContext,
    error_scale: u64,
) -> Result<poly_cuda::DevicePoly<Coeff>> {
    use poly_cuda::GpuError;
    let device = backend.device();
    let inverses = rescale_constants(backend, input.context(), target, error_scale)?;
    let stream = device.stream();
    // N: the device row (padded over a ring Z_q[x]/Phi_m, whose zeros rescale to zeros).
    let (n, limbs_out) = (target.degree(), target.num_limbs());
    // SAFETY: the kernel writes every one of the limbs_out N words before anything reads them.
    let mut out = unsafe { stream.alloc::<u64>(n * limbs_out) }
        .map_err(|e| crate::RlweError::from_backend(GpuError::alloc(n * limbs_out * size_of::<u64>(), e)))?;
    let kernels = device.kernel_set::<RlweKernels>().be()?;
    let (log_n, limbs_arg, scaled) = (n.trailing_zeros() as i32, limbs_out as i32, i32::from(error_scale != 1));
    let mut builder = kernels.rlwe_rescale_by_last.builder(stream);
    builder
        .arg(&mut out)
        .arg(input.device_buffer())
        .arg(input.context().moduli_table())
        .arg(&inverses)
        .arg(&log_n)
        .arg(&limbs_arg)
        .arg(&scaled);
    // SAFETY: matches `rlwe_rescale_by_last` (u64* out, const u64* in, const Modulus* moduli,
    // const u64* constants, int log_n, int limbs_out, int scaled) in kernels/rlwe.cu: `out` holds
    // limbs_out N words, `in` (limbs_out + 1) N canonical words (a DevicePoly of the input ring,
    // checked by rescale_constants to be the output's primes plus one), the input's moduli table
    // limbs_out + 1 triples, `constants` 4 limbs_out + 2 words; N = 2^log_n. Every buffer is on
    // the device's one stream.
    unsafe { builder.launch(poly_cuda::kernel::linear_config(n, u32::MAX as usize)) }.be()?;
    poly_cuda::DevicePoly::from_device_buffer(target, out).be()
}

/// After checking that `from` (the input ring, on `backend`'s device) is `target`'s primes plus
/// one more, the constants of kernels/rlwe.cu's rescaling kernels on the device: limbs_out pairs
/// {q_l^-1 mod q_i, shoup}, then {E^-1 mod q_l, shoup}, then limbs_out pairs {E mod q_i, shoup}.
#[cfg(feature = "cuda")]
fn rescale_constants(
    backend: &poly_cuda::GpuBackend,
    from: &poly_cuda::GpuContext,
    target: &poly_cuda::GpuContext,
    error_scale: u64,
) -> Result<poly_cuda::cudarc::driver::CudaSlice<u64>> {
    use poly_cuda::GpuError;
    let device = backend.device();
    if !std::sync::Arc::ptr_eq(from.device(), device) || !std::sync::Arc::ptr_eq(target.device(), device) {
        return Err(crate::RlweError::from_backend(GpuError::WrongContext));
    }
    let (from, to) = (from.ring(), target.ring());
    let limbs_out = to.num_limbs();
    let prefix = from.moduli().iter().zip(to.moduli()).all(|(a, b)| a.value() == b.value());
    if !prefix || from.num_limbs() != limbs_out + 1 || from.degree() != to.degree() {
        return Err(crate::RlweError::Poly(poly::PolyError::ContextMismatch));
    }
    let last_modulus = &from.moduli()[limbs_out];
    let last = last_modulus.value();
    let scale_inv = crate::chain::scale_inverse(last_modulus, error_scale)?;
    let mut inverses = Vec::with_capacity(4 * limbs_out + 2);
    for qi in to.moduli() {
        let inv = qi.inv(qi.reduce(last))?;
        inverses.extend_from_slice(&[inv, qi.shoup(inv)]);
    }
    inverses.extend_from_slice(&[scale_inv, last_modulus.shoup(scale_inv)]);
    for qi in to.moduli() {
        let scale = qi.reduce(error_scale);
        inverses.extend_from_slice(&[scale, qi.shoup(scale)]);
    }
    device
        .stream()
        .clone_htod(&inverses)
        .map_err(|e| crate::RlweError::from_backend(GpuError::driver("cuMemcpyHtoDAsync", e)))
}

/// Whether evaluations of `transform` are Gaussian pairs (DGT, HDGT), which the evaluation-form
/// paths of key switching and rescaling do not serve.
#[cfg(feature = "cuda")]
fn gaussian(transform: poly::TransformKind) -> bool {
    matches!(transform, poly::TransformKind::Dgt | poly::TransformKind::HierarchicalDgt)
}

/// `RlweBackend::rescale_by_last_prime_eval` of one or two inputs of one NTT or `Phi_m` ring on
/// the device.
#[cfg(feature = "cuda")]
fn gpu_rescale_eval_pair(
    backend: &poly_cuda::GpuBackend,
    inputs: &[&poly_cuda::DevicePoly<Eval>],
    target: &poly_cuda::GpuContext,
    last_prime: &poly_cuda::GpuContext,
    error_scale: u64,
) -> Result<Vec<poly_cuda::DevicePoly<Eval>>> {
    use poly_cuda::GpuError;
    let (Some(first), true) = (inputs.first(), inputs.len() <= 2) else {
        return Err(crate::RlweError::from_backend(GpuError::LengthMismatch { expected: 2, actual: inputs.len() }));
    };
    let from = first.context();
    for input in inputs {
        from.check_compatible(input.context()).be()?;
    }
    let constants = rescale_constants(backend, from, target, error_scale)?;
    // N: the device row (padded over a ring Z_q[x]/Phi_m).
    let (n, limbs_out) = (target.degree(), target.num_limbs());
    let last_ring = last_prime.ring();
    if last_ring.num_limbs() != 1
        || last_prime.degree() != n
        || last_ring.degree() != target.ring().degree()
        || last_ring.moduli()[0].value() != from.ring().moduli()[limbs_out].value()
        || !std::sync::Arc::ptr_eq(last_prime.device(), backend.device())
    {
        return Err(crate::RlweError::Poly(poly::PolyError::ContextMismatch));
    }
    let device = backend.device();
    let stream = device.stream();
    let count = inputs.len();
    let alloc = |len: usize| {
        // SAFETY: every caller below fills all `len` words before anything reads them.
        unsafe { stream.alloc::<u64>(len) }
            .map_err(|e| crate::RlweError::from_backend(GpuError::alloc(len * size_of::<u64>(), e)))
    };
    // The last limb of each input, [count][N], back to coefficients over q_l.
    let mut last = alloc(count * n)?;
    for (k, input) in inputs.iter().enumerate() {
        let source = input.device_buffer().slice(limbs_out * n..(limbs_out + 1) * n);
        let mut destination = last.slice_mut(k * n..(k + 1) * n);
        stream
            .memcpy_dtod(&source, &mut destination)
            .map_err(|e| crate::RlweError::from_backend(GpuError::driver("cuMemcpyDtoDAsync", e)))?;
    }
    let last = poly_cuda::DevicePolyBatch::<Eval>::from_device_buffer(last_prime, count, last).be()?.inverse().be()?;
    let kernels = device.kernel_set::<RlweKernels>().be()?;
    let (log_n, limbs_arg, scaled) = (n.trailing_zeros() as i32, limbs_out as i32, i32::from(error_scale != 1));
    let mut correction = alloc(count * limbs_out * n)?;
    let mut builder = kernels.rlwe_rescale_correction.builder(stream);
    builder
        .arg(&mut correction)
        .arg(last.device_buffer())
        .arg(from.moduli_table())
        .arg(&constants)
        .arg(&log_n)
        .arg(&limbs_arg)
        .arg(&scaled);
    let mut config = poly_cuda::kernel::linear_config(n, u32::MAX as usize);
    config.grid_dim.1 = count as u32;
    // SAFETY: matches `rlwe_rescale_correction(u64* out, const u64* last_limb, const Modulus*
    // moduli, const u64* constants, int log_n, int limbs_out, int scaled)` in kernels/rlwe.cu:
    // grid y = count polynomials; `out` holds count limbs_out N words (all written), `last_limb`
    // count N canonical words over q_l, the input ring's moduli table limbs_out + 1 triples (the
    // last q_l, checked by rescale_constants), `constants` 4 limbs_out + 2 words. Every buffer
    // is on the device's one stream.
    unsafe { builder.launch(config) }.be()?;
    let correction =
        poly_cuda::DevicePolyBatch::<Coeff>::from_device_buffer(target, count, correction).be()?.forward().be()?;
    let mut out0 = alloc(limbs_out * n)?;
    let mut out1 = if count == 2 { Some(alloc(limbs_out * n)?) } else { None };
    let second_input = inputs.get(1).unwrap_or(first);
    let mut builder = kernels.rlwe_rescale_combine.builder(stream);
    builder.arg(&mut out0);
    match out1.as_mut() {
        Some(out1) => builder.arg(out1),
        // One polynomial: the second output is never written (grid y = 1); any valid address.
        None => builder.arg(correction.device_buffer()),
    };
    builder
        .arg(first.device_buffer())
        .arg(second_input.device_buffer())
        .arg(correction.device_buffer())
        .arg(target.moduli_table())
        .arg(&constants)
        .arg(&log_n)
        .arg(&limbs_arg);
    let mut config = poly_cuda::kernel::linear_config(limbs_out * n, u32::MAX as usize);
    config.grid_dim.1 = count as u32;
    // SAFETY: matches `rlwe_rescale_combine(u64* out0, u64* out1, const u64* in0, const u64* in1,
    // const u64* corr, const Modulus* moduli, const u64* constants, int log_n, int limbs_out)` in
    // kernels/rlwe.cu: grid y = count (1 or 2) picks (out_k, in_k); each out_k holds limbs_out N
    // words (all written), each in_k (limbs_out + 1) N (the first limbs_out N read), `corr`
    // count limbs_out N, the target's moduli table limbs_out triples, `constants` as above. With
    // one polynomial the kernel never touches its second output, which aliases `corr` only as
    // an address. Every buffer is on the device's one stream.
    unsafe { builder.launch(config) }.be()?;
    let mut out = vec![poly_cuda::DevicePoly::from_device_buffer(target, out0).be()?];
    if let Some(out1) = out1 {
        out.push(poly_cuda::DevicePoly::from_device_buffer(target, out1).be()?);
    }
    Ok(out)
}

/// The runs of consecutive limbs that take `target`'s primes out of `from`'s: `(first limb in
/// from, first limb in target, count)`. Errors with [`poly::PolyError::ContextMismatch`] for
/// another degree or a prime of `target` not found in `from` after the previous one.
fn limb_runs(from: &poly::RingContext, target: &poly::RingContext) -> Result<Vec<(usize, usize, usize)>> {
    let mismatch = || crate::RlweError::Poly(poly::PolyError::ContextMismatch);
    if from.degree() != target.degree() {
        return Err(mismatch());
    }
    let mut runs: Vec<(usize, usize, usize)> = Vec::new();
    let mut next = 0usize;
    for (to, m) in target.moduli().iter().enumerate() {
        let offset = from.moduli()[next..].iter().position(|f| f.value() == m.value()).ok_or_else(mismatch)?;
        let at = next + offset;
        match runs.last_mut() {
            Some((start, first_to, count)) if *start + *count == at && *first_to + *count == to => *count += 1,
            _ => runs.push((at, to, 1)),
        }
        next = at + 1;
    }
    Ok(runs)
}

/// The RNS layer's own errors as [`crate::RlweError::Rns`], device errors as [`crate::RlweError::Backend`].
#[cfg(feature = "cuda")]
pub fn gpu_rns_error(error: rns::gpu::GpuRnsError) -> crate::RlweError {
    match error {
        rns::gpu::GpuRnsError::Rns(rns_error) => crate::RlweError::Rns(rns_error),
        other => crate::RlweError::from_backend(other),
    }
}
