//! [`GpuContext`]: a [`RingContext`] prepared on one device, with every table its kernels
//! read uploaded once.

use std::sync::Arc;

use cudarc::driver::CudaSlice;
use poly::{RingContext, TransformKind};

use crate::bluestein::GpuCyclotomic;
use crate::device::GpuDevice;
use crate::dgt::GpuDgtPlan;
use crate::error::{GpuError, Result};

/// Device tables of the negacyclic NTT of every limb (see `kernels/ntt.cu`).
#[derive(Debug)]
pub(crate) struct NttTables {
    /// `[limb][N]` pairs `{psi^bitrev(k), shoup}`: `NttPlan::twiddles()` and companions.
    pub(crate) forward: CudaSlice<u64>,
    /// `[limb][N]` pairs `{psi^-bitrev(k), shoup}`: `NttPlan::inverse_twiddles()` and companions.
    pub(crate) inverse: CudaSlice<u64>,
    /// `[limb]` quadruples `{N^-1, shoup, inverse_twiddles[1] * N^-1, shoup}` for the last
    /// inverse stage.
    pub(crate) inverse_scale: CudaSlice<u64>,
    /// `[limb][N/M][log M]` roots `A(c, r)` from which the contiguous pass of `M` points
    /// generates its twiddles (`stage_twiddles` in `kernels/ntt.cu`), forward and inverse.
    /// One zero word when the transform runs as a single pass.
    pub(crate) forward_chunk_roots: CudaSlice<u64>,
    pub(crate) inverse_chunk_roots: CudaSlice<u64>,
    /// How the kernels split the transform (fixed when the tables are made).
    pub(crate) schedule: crate::ntt::NttSchedule,
    /// The pipe of the two-pass kernels' butterflies (from the tuning and the primes).
    pub(crate) pipe: crate::ntt::ButterflyPipe,
}

#[derive(Debug)]
struct Inner {
    device: Arc<GpuDevice>,
    ring: Arc<RingContext>,
    /// `[limb]` triples `{p, floor(2^128/p) high, low}`: `modarith::Modulus` as
    /// `kernels/include/modarith.cuh` declares it.
    moduli: CudaSlice<u64>,
    ntt: Option<NttTables>,
    /// DGT and HDGT contexts: their tables and launches (`crate::dgt`).
    dgt: Option<GpuDgtPlan>,
    /// Contexts of a ring `Z_q[x]/Phi_m`: Bluestein's transform (`crate::bluestein`).
    bluestein: Option<Arc<GpuCyclotomic>>,
}

/// A ring context on one GPU: the host [`RingContext`] and device copies of its moduli and
/// transform tables, uploaded once when the context is made. Cheap to clone (shared).
#[derive(Debug, Clone)]
pub struct GpuContext {
    inner: Arc<Inner>,
}

impl GpuContext {
    /// Prepares `ring` on `device`: uploads the moduli and, for an NTT context, the forward
    /// and inverse twiddles with their Shoup companions; for a DGT or HDGT context, the
    /// tables of a [`GpuDgtPlan`]; for a ring `Z_q[x]/Phi_m`, those of a [`GpuCyclotomic`]
    /// (its convolution length `M` at least `2^10`: `m >= 257`).
    pub fn new(device: &Arc<GpuDevice>, ring: &Arc<RingContext>) -> Result<Self> {
        let mut moduli = Vec::with_capacity(3 * ring.num_limbs());
        for m in ring.moduli() {
            let (hi, lo) = m.barrett_constant();
            moduli.extend_from_slice(&[m.value(), hi, lo]);
        }
        let moduli = device.upload(&moduli)?;
        let (ntt, dgt, bluestein) = match ring.transform() {
            TransformKind::Ntt => (Some(upload_ntt_tables(device, ring)?), None, None),
            TransformKind::Dgt | TransformKind::HierarchicalDgt => {
                (None, Some(GpuDgtPlan::from_ring(device, ring)?), None)
            }
            TransformKind::Bluestein => (None, None, Some(Arc::new(GpuCyclotomic::from_ring(device, ring)?))),
        };
        let inner = Inner { device: Arc::clone(device), ring: Arc::clone(ring), moduli, ntt, dgt, bluestein };
        Ok(Self { inner: Arc::new(inner) })
    }

    /// The device.
    pub fn device(&self) -> &Arc<GpuDevice> {
        &self.inner.device
    }

    /// A number naming this context (and its clones) for as long as one of them lives: the
    /// address of the shared tables. Graph signatures use it (`crate::graph`).
    pub fn id(&self) -> u64 {
        Arc::as_ptr(&self.inner) as u64
    }

    /// The host ring context.
    pub fn ring(&self) -> &Arc<RingContext> {
        &self.inner.ring
    }

    /// The length of one limb's row on the device: the ring degree `N`; for a ring
    /// `Z_q[x]/Phi_m`, `phi(m)` rounded up to a power of two (`RingContext::sampling_degree`),
    /// the words past `phi(m)` zero (`crate::bluestein`'s layout), so that the element-wise
    /// kernels see power-of-two rows.
    pub fn degree(&self) -> usize {
        self.inner.ring.sampling_degree()
    }

    /// `L` rows of [`degree`](Self::degree) words: the device length of one polynomial.
    pub fn poly_len(&self) -> usize {
        self.degree() * self.num_limbs()
    }

    /// Host limb-major values (`L` limbs of the ring's degree) in the device layout: as they
    /// are, or with each limb padded by zeros to [`degree`](Self::degree).
    pub(crate) fn to_device_layout<'a>(&self, values: &'a [u64]) -> std::borrow::Cow<'a, [u64]> {
        let (n, stride) = (self.inner.ring.degree(), self.degree());
        if n == stride {
            return std::borrow::Cow::Borrowed(values);
        }
        let mut padded = vec![0u64; values.len() / n * stride];
        for (row, limb) in padded.chunks_exact_mut(stride).zip(values.chunks_exact(n)) {
            row[..n].copy_from_slice(limb);
        }
        std::borrow::Cow::Owned(padded)
    }

    /// Device-layout words back to host limbs (the padding dropped).
    pub(crate) fn host_layout(&self, words: Vec<u64>) -> Vec<u64> {
        let (n, stride) = (self.inner.ring.degree(), self.degree());
        if n == stride {
            return words;
        }
        words.chunks_exact(stride).flat_map(|row| &row[..n]).copied().collect()
    }

    /// One row of the ring's degree in words (`N`, or `phi(m)`: a plaintext's words) as one
    /// limb row of this context's layout, zeros past the ring's degree: `None` where the two
    /// lengths agree (the words are already a row). Errors with [`GpuError::LengthMismatch`]
    /// for another number of words.
    pub fn padded_row(&self, words: &CudaSlice<u64>) -> Result<Option<CudaSlice<u64>>> {
        let (n, row) = (self.inner.ring.degree(), self.degree());
        if words.len() != n {
            return Err(GpuError::LengthMismatch { expected: n, actual: words.len() });
        }
        if n == row {
            return Ok(None);
        }
        let stream = self.inner.device.stream();
        let mut padded = stream.alloc_zeros::<u64>(row).map_err(|e| GpuError::alloc(row * 8, e))?;
        stream.memcpy_dtod(words, &mut padded.slice_mut(..n)).map_err(|e| GpuError::driver("cuMemcpyDtoDAsync", e))?;
        Ok(Some(padded))
    }

    /// The ring's words (`N`, or `phi(m)`) of one limb row of this context's layout: the row
    /// itself where the lengths agree, else a copy of its prefix. Errors with
    /// [`GpuError::LengthMismatch`] for a buffer that is not one row.
    pub fn row_words(&self, row: CudaSlice<u64>) -> Result<CudaSlice<u64>> {
        let (n, stride) = (self.inner.ring.degree(), self.degree());
        if row.len() != stride {
            return Err(GpuError::LengthMismatch { expected: stride, actual: row.len() });
        }
        if n == stride {
            return Ok(row);
        }
        self.inner.device.stream().clone_dtod(&row.slice(..n)).map_err(|e| GpuError::driver("cuMemcpyDtoDAsync", e))
    }

    /// Bluestein's transform of a ring `Z_q[x]/Phi_m` (`None` for the power-of-two ring).
    pub fn bluestein(&self) -> Option<&GpuCyclotomic> {
        self.inner.bluestein.as_deref()
    }

    /// The number of limbs `L`.
    pub fn num_limbs(&self) -> usize {
        self.inner.ring.num_limbs()
    }

    /// `[limb]` triples `{p, floor(2^128/p) high word, low word}` on the device: the layout of
    /// `modarith::Modulus` in `kernels/include/modarith.cuh`, for kernels of other modules.
    pub fn moduli_table(&self) -> &CudaSlice<u64> {
        &self.inner.moduli
    }

    /// The DGT plan of a DGT or HDGT context (`None` for an NTT context).
    pub fn dgt_plan(&self) -> Option<&GpuDgtPlan> {
        self.inner.dgt.as_ref()
    }

    /// The context's forward transform, in place, of `polys` polynomials in `data`.
    pub(crate) fn forward_transform(&self, data: &mut CudaSlice<u64>, polys: usize) -> Result<()> {
        if let Some(bluestein) = self.bluestein() {
            *data = bluestein.forward_rows(data, self.degree(), polys)?;
            return Ok(());
        }
        match &self.inner.dgt {
            Some(dgt) => dgt.forward(data),
            None => crate::ntt::ntt_forward(self, data, polys),
        }
    }

    /// The context's inverse transform, in place, of `polys` polynomials in `data`.
    pub(crate) fn inverse_transform(&self, data: &mut CudaSlice<u64>, polys: usize) -> Result<()> {
        if let Some(bluestein) = self.bluestein() {
            *data = bluestein.inverse_rows(data, self.degree(), polys)?;
            return Ok(());
        }
        match &self.inner.dgt {
            Some(dgt) => dgt.inverse(data),
            None => crate::ntt::ntt_inverse(self, data, polys),
        }
    }

    /// The context's forward transform of `polys` polynomials of `source` into fresh device
    /// memory; `source` is untouched. NTT: the first pass reads `source` and writes the new
    /// buffer (no copy); DGT and HDGT: a device copy, then the transform in place.
    pub(crate) fn forward_transform_to_new(&self, source: &CudaSlice<u64>, polys: usize) -> Result<CudaSlice<u64>> {
        if let Some(bluestein) = self.bluestein() {
            return bluestein.forward_rows(source, self.degree(), polys);
        }
        match &self.inner.dgt {
            Some(dgt) => {
                let mut data = self.inner.device.duplicate(source)?;
                dgt.forward(&mut data)?;
                Ok(data)
            }
            None => {
                // SAFETY: the transform's first pass writes every value of `data` before any
                // pass reads it (ntt::ntt_forward_from).
                let mut data = unsafe { self.inner.device.alloc::<u64>(source.len()) }?;
                crate::ntt::ntt_forward_from(self, source, &mut data, polys)?;
                Ok(data)
            }
        }
    }

    /// The inverse transform of `polys` polynomials of `source` into fresh device memory
    /// (`source` untouched): NTT contexts read `source` in the first inverse pass; DGT
    /// contexts copy, then transform.
    pub(crate) fn inverse_transform_to_new(&self, source: &CudaSlice<u64>, polys: usize) -> Result<CudaSlice<u64>> {
        if let Some(bluestein) = self.bluestein() {
            return bluestein.inverse_rows(source, self.degree(), polys);
        }
        match &self.inner.dgt {
            Some(dgt) => {
                let mut data = self.inner.device.duplicate(source)?;
                dgt.inverse(&mut data)?;
                Ok(data)
            }
            None => {
                // SAFETY: the first inverse pass writes every value of `data` before any pass
                // reads it (ntt::ntt_inverse_from).
                let mut data = unsafe { self.inner.device.alloc::<u64>(source.len()) }?;
                crate::ntt::ntt_inverse_from(self, &mut data, source, polys)?;
                Ok(data)
            }
        }
    }

    /// `data <- inverse(data * factor)` for `polys` polynomials, the product element-wise in the
    /// evaluation domain (as `DevicePoly::mul_assign`). NTT: the first inverse pass takes the
    /// product as it loads (no element-wise kernel); DGT and HDGT: the Gaussian product kernel,
    /// then the inverse. Errors with [`GpuError::LengthMismatch`] (nothing queued, `data`
    /// untouched) unless `factor` has the length of `data`.
    pub(crate) fn inverse_transform_of_product(
        &self,
        data: &mut CudaSlice<u64>,
        factor: &CudaSlice<u64>,
        polys: usize,
    ) -> Result<()> {
        if factor.len() != data.len() {
            return Err(GpuError::LengthMismatch { expected: data.len(), actual: factor.len() });
        }
        if let Some(bluestein) = self.bluestein() {
            crate::elementwise::binary(self, crate::elementwise::BinaryOp::Mul, data, None, factor)?;
            *data = bluestein.inverse_rows(data, self.degree(), polys)?;
            return Ok(());
        }
        match &self.inner.dgt {
            Some(dgt) => {
                crate::elementwise::binary(self, crate::elementwise::BinaryOp::GaussMul, data, None, factor)?;
                dgt.inverse(data)
            }
            None => crate::ntt::ntt_inverse_of_product(self, data, factor, polys),
        }
    }

    /// `inverse(addend + source * factor)` of `polys` polynomials into new memory, the
    /// operation element-wise in the evaluation domain (as a copy of `addend` after
    /// `DevicePoly::mul_add_assign`). NTT: the first inverse pass loads it (no copy, no
    /// element-wise kernel); DGT and HDGT: a copy, the Gaussian multiply-add kernel, the
    /// inverse. Errors with [`GpuError::LengthMismatch`] (nothing queued) unless the three
    /// inputs have one length.
    pub(crate) fn inverse_transform_of_mul_add(
        &self,
        addend: &CudaSlice<u64>,
        source: &CudaSlice<u64>,
        factor: &CudaSlice<u64>,
        polys: usize,
    ) -> Result<CudaSlice<u64>> {
        for other in [source, factor] {
            if other.len() != addend.len() {
                return Err(GpuError::LengthMismatch { expected: addend.len(), actual: other.len() });
            }
        }
        if let Some(bluestein) = self.bluestein() {
            let mut data = self.inner.device.duplicate(addend)?;
            crate::elementwise::binary(self, crate::elementwise::BinaryOp::MulAdd, &mut data, Some(source), factor)?;
            return bluestein.inverse_rows(&data, self.degree(), polys);
        }
        match &self.inner.dgt {
            Some(dgt) => {
                let mut data = self.inner.device.duplicate(addend)?;
                crate::elementwise::binary(
                    self,
                    crate::elementwise::BinaryOp::GaussMulAdd,
                    &mut data,
                    Some(source),
                    factor,
                )?;
                dgt.inverse(&mut data)?;
                Ok(data)
            }
            None => {
                // SAFETY: the first inverse pass writes every value of `data` before any pass
                // reads it (ntt::ntt_inverse_of_mul_add).
                let mut data = unsafe { self.inner.device.alloc::<u64>(addend.len()) }?;
                crate::ntt::ntt_inverse_of_mul_add(self, &mut data, source, factor, addend, polys)?;
                Ok(data)
            }
        }
    }

    /// [`inverse_transform_of_mul_add`](Self::inverse_transform_of_mul_add) with each output
    /// limb times `scale`'s factor (folded into the last stage over NTT rings; a per-limb scalar
    /// multiplication after the inverse over DGT rings). The caller checks that `scale` is of
    /// this context.
    pub(crate) fn inverse_transform_of_mul_add_scaled(
        &self,
        addend: &CudaSlice<u64>,
        source: &CudaSlice<u64>,
        factor: &CudaSlice<u64>,
        scale: &crate::raw::InverseScale,
    ) -> Result<CudaSlice<u64>> {
        if scale.table().is_none() {
            let data = self.inverse_transform_of_mul_add(addend, source, factor, 1)?;
            let mut poly = crate::DevicePoly::<poly::Coeff>::from_device_buffer(self, data)?;
            poly.scalar_mul_per_limb_assign(scale.factors())?;
            return Ok(poly.into_device_buffer());
        }
        // SAFETY: the first inverse pass writes every value of `data` before any pass reads it
        // (the lengths are checked before anything is queued).
        let mut data = unsafe { self.inner.device.alloc::<u64>(addend.len()) }?;
        self.inverse_transform_of_mul_add_scaled_into(&mut data, addend, source, factor, scale)?;
        Ok(data)
    }

    /// [`inverse_transform_of_mul_add_scaled`](Self::inverse_transform_of_mul_add_scaled) into
    /// `data` (the same length as the inputs, overwritten), allocating nothing; a scale
    /// without an NTT table (DGT contexts) is [`GpuError::Unsupported`].
    pub(crate) fn inverse_transform_of_mul_add_scaled_into(
        &self,
        data: &mut CudaSlice<u64>,
        addend: &CudaSlice<u64>,
        source: &CudaSlice<u64>,
        factor: &CudaSlice<u64>,
        scale: &crate::raw::InverseScale,
    ) -> Result<()> {
        let table = scale.table().ok_or_else(|| GpuError::Unsupported {
            what: "an inverse transform scaled in place without an NTT scale table".to_string(),
        })?;
        for other in [source, factor, &*data] {
            if other.len() != addend.len() {
                return Err(GpuError::LengthMismatch { expected: addend.len(), actual: other.len() });
            }
        }
        crate::ntt::ntt_inverse_of_mul_add_scaled(self, data, (source, factor, addend), table, 1)
    }

    pub(crate) fn ntt_tables(&self) -> Result<&NttTables> {
        self.inner.ntt.as_ref().ok_or_else(|| GpuError::Unsupported {
            what: format!(
                "{} transforms on the GPU (only the NTT has kernels so far)",
                self.inner.ring.transform().name()
            ),
        })
    }

    /// Errors unless `other` is on the same device ([`GpuError::WrongContext`]) and describes a
    /// compatible ring ([`poly::PolyError::ContextMismatch`]).
    pub fn check_compatible(&self, other: &GpuContext) -> Result<()> {
        if Arc::ptr_eq(&self.inner, &other.inner) {
            return Ok(());
        }
        if !Arc::ptr_eq(&self.inner.device, &other.inner.device) {
            return Err(GpuError::WrongContext);
        }
        if !self.inner.ring.is_compatible(&other.inner.ring) {
            return Err(poly::PolyError::ContextMismatch.into());
        }
        Ok(())
    }
}

fn upload_ntt_tables(device: &GpuDevice, ring: &RingContext) -> Result<NttTables> {
    let n = ring.degree();
    let limbs = ring.num_limbs();
    let mut forward = Vec::with_capacity(2 * n * limbs);
    let mut inverse = Vec::with_capacity(2 * n * limbs);
    let mut scale = Vec::with_capacity(4 * limbs);
    let schedule = crate::ntt::NttSchedule::for_log_degree(n.trailing_zeros(), &device.tuning().ntt)?;
    let contiguous_log_m = match schedule {
        crate::ntt::NttSchedule::TwoPass { contiguous, .. } => Some(contiguous),
        crate::ntt::NttSchedule::Single { .. } => None,
    };
    let (mut forward_roots, mut inverse_roots) = (Vec::new(), Vec::new());
    for (limb, modulus) in ring.moduli().iter().enumerate() {
        let plan = ring
            .plan(limb)
            .and_then(|p| p.as_ntt())
            .ok_or_else(|| GpuError::Unsupported { what: format!("limb {limb} of an NTT context has no NTT plan") })?;
        let interleave = |out: &mut Vec<u64>, values: &[u64], shoup: &[u64]| -> Result<()> {
            if values.len() != n || shoup.len() != n {
                return Err(GpuError::LengthMismatch { expected: n, actual: values.len().min(shoup.len()) });
            }
            for (&w, &ws) in values.iter().zip(shoup) {
                out.extend_from_slice(&[w, ws]);
            }
            Ok(())
        };
        interleave(&mut forward, plan.twiddles(), plan.twiddles_shoup())?;
        interleave(&mut inverse, plan.inverse_twiddles(), plan.inverse_twiddles_shoup())?;
        let w1 = plan.inverse_twiddles().get(1).copied().unwrap_or(1);
        let n_inv = plan.degree_inverse();
        let w1_n_inv = modulus.mul(w1, n_inv);
        scale.extend_from_slice(&[n_inv, plan.degree_inverse_shoup(), w1_n_inv, modulus.shoup(w1_n_inv)]);
        if let Some(log_m) = contiguous_log_m {
            chunk_roots(&mut forward_roots, modulus, plan.twiddles(), log_m)?;
            chunk_roots(&mut inverse_roots, modulus, plan.inverse_twiddles(), log_m)?;
        }
    }
    for roots in [&mut forward_roots, &mut inverse_roots] {
        if roots.is_empty() {
            roots.push(0);
        }
    }
    Ok(NttTables {
        forward: device.upload(&forward)?,
        inverse: device.upload(&inverse)?,
        inverse_scale: device.upload(&scale)?,
        forward_chunk_roots: device.upload(&forward_roots)?,
        inverse_chunk_roots: device.upload(&inverse_roots)?,
        schedule,
        pipe: crate::ntt::ButterflyPipe::for_primes(&device.tuning().ntt, ring.moduli().iter().map(|m| m.value())),
    })
}

/// Appends, for a contiguous pass over sub-transforms of `M = 2^log_m` points, the roots
/// `A(c, r) = table[N/2 + c M/2]^(2^(log M - 1 - r))` for `c < N/M`, `r < log M` (layout
/// `[c][r]`): the twiddle of stage `log N - log M + r`, sub-transform `c`, group `j` is
/// `A(c, r) * table[j]` (derivation at `stage_twiddles` in `kernels/ntt.cu`).
fn chunk_roots(out: &mut Vec<u64>, modulus: &modarith::Modulus, table: &[u64], log_m: u32) -> Result<()> {
    let n = table.len();
    let m = 1usize << log_m;
    for c in 0..n / m {
        let index = n / 2 + c * m / 2;
        let mut root = *table.get(index).ok_or(GpuError::LengthMismatch { expected: index + 1, actual: n })?;
        // powers[i] = root^(2^i); A(c, r) = powers[log M - 1 - r].
        let mut powers = Vec::with_capacity(log_m as usize);
        for _ in 0..log_m {
            powers.push(root);
            root = modulus.mul(root, root);
        }
        out.extend(powers.iter().rev());
    }
    Ok(())
}
