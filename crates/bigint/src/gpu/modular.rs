//! Modular arithmetic on the device: [`GpuModulus`] (a Barrett modulus with the transforms of
//! `m` and `mu`), [`GpuResidue`] (a value below one, tagged with it), tables of residues, and
//! the reductions, products, sums and linear combinations of [`GpuBigInt`] over them.

use std::sync::atomic::{AtomicU64, Ordering};

use poly_cuda::cudarc::driver::CudaSlice;

use super::*;

static NEXT_MODULUS_ID: AtomicU64 = AtomicU64::new(1);

/// A Barrett modulus on the device.
#[derive(Debug)]
pub struct GpuModulus {
    id: u64,
    host: BarrettModulus,
    m: CudaSlice<u64>,
    m_hat: CudaSlice<u64>,
    mu_hat: CudaSlice<u64>,
}

impl GpuModulus {
    /// The host modulus.
    pub fn host(&self) -> &BarrettModulus {
        &self.host
    }

    /// Limbs of a residue.
    pub fn limbs(&self) -> usize {
        self.host.limbs()
    }
}

/// A value below a [`GpuModulus`], `limbs()` limbs on the device, tagged with its modulus.
#[derive(Debug)]
pub struct GpuResidue {
    value: GpuNat,
    modulus: u64,
}

impl GpuResidue {
    /// The value's limbs.
    pub fn value(&self) -> &GpuNat {
        &self.value
    }
}

/// A table of residues of one modulus on the device (`count` rows of `limbs()` limbs), for
/// [`GpuBigInt::linear_combinations_mod`].
#[derive(Debug)]
pub struct GpuTable {
    data: CudaSlice<u64>,
    count: usize,
    modulus: u64,
}

impl GpuTable {
    /// Rows.
    pub fn count(&self) -> usize {
        self.count
    }
}

impl GpuBigInt {
    /// `m` on the device: its limbs and the transforms of `m` and `mu`.
    pub fn modulus(&self, m: &BarrettModulus) -> Result<GpuModulus> {
        Ok(GpuModulus {
            id: NEXT_MODULUS_ID.fetch_add(1, Ordering::Relaxed),
            host: m.clone(),
            m: self.upload_words(&m.modulus().limbs_padded(m.limbs()))?,
            m_hat: self.upload_words(m.m_hat())?,
            mu_hat: self.upload_words(m.mu_hat())?,
        })
    }

    /// `x < m` on the device. Errors: [`BigIntError::NotReduced`] unless `x < m`.
    pub fn upload_residue(&self, m: &GpuModulus, x: &BigNat) -> Result<GpuResidue> {
        m.host.check_reduced("x", x)?;
        Ok(GpuResidue { value: self.upload(x, m.limbs())?, modulus: m.id })
    }

    /// The value of `x`.
    pub fn download_residue(&self, x: &GpuResidue) -> Result<BigNat> {
        self.download(&x.value)
    }

    fn check(&self, m: &GpuModulus, what: &'static str, x: &GpuResidue) -> Result<()> {
        if x.modulus != m.id {
            return Err(BigIntError::WrongModulus { what });
        }
        if x.value.len() != m.limbs() {
            return Err(BigIntError::LimbCount { what, found: x.value.len(), expected: m.limbs() });
        }
        Ok(())
    }

    /// Barrett reduction of `members` values `t` (`t_limbs` each, every one below `2^(2k)`):
    /// `m.limbs()` limbs per member.
    fn reduce_members(
        &self,
        m: &GpuModulus,
        t: &CudaSlice<u64>,
        t_limbs: usize,
        members: usize,
    ) -> Result<CudaSlice<u64>> {
        let host = &m.host;
        let (k, shape) = (host.bits(), host.shape());
        let plan = self.plan(shape.log_n())?;
        let n = shape.len();
        let mut q1 = self.split(t, t_limbs, t_limbs, k - 1, shape, shape.digits(k + 1), members)?;
        self.ntt(&mut q1, &plan, members, false)?;
        self.pointwise(&mut q1, &m.mu_hat, 0, plan.n_inv, n, members)?;
        self.ntt(&mut q1, &plan, members, true)?;
        let q2_limbs = (2 * k + 3).div_ceil(64) as usize;
        let (lo, hi) = self.gather(&q1, n, shape.digit_bits(), q2_limbs, None, members)?;
        let (q2, _) = self.resolve(&lo, &hi, q2_limbs, members)?;
        let mut q3 = self.split(&q2, q2_limbs, q2_limbs, k + 1, shape, shape.digits(k + 1), members)?;
        self.ntt(&mut q3, &plan, members, false)?;
        self.pointwise(&mut q3, &m.m_hat, 0, plan.n_inv, n, members)?;
        self.ntt(&mut q3, &plan, members, true)?;
        let r_limbs = (k + 2).div_ceil(64) as usize;
        let (lo, hi) = self.gather(&q3, n, shape.digit_bits(), r_limbs, Some((t, t_limbs, t_limbs)), members)?;
        let (mut r, _) = self.resolve(&lo, &hi, r_limbs, members)?;
        let m_limbs = m.limbs();
        for round in 0..2 {
            let (lo, hi) = self.sum((&r, r_limbs, r_limbs), (&m.m, m_limbs, 0), r_limbs, -1, members)?;
            let (diff, top) = self.resolve(&lo, &hi, r_limbs, members)?;
            let out_limbs = if round == 1 { m_limbs } else { r_limbs };
            r = self.select(&r, &diff, &top, r_limbs, out_limbs, members)?;
        }
        Ok(r)
    }

    /// `t mod m` for a `t` of at most `2 m.limbs()` limbs whose value is below `2^(2k)` (`k` the
    /// modulus' bits; a product of two residues is). Errors: [`BigIntError::LimbCount`] for a
    /// longer `t`.
    pub fn reduce(&self, m: &GpuModulus, t: &GpuNat) -> Result<GpuResidue> {
        if t.len() > 2 * m.limbs() {
            return Err(BigIntError::LimbCount { what: "t", found: t.len(), expected: 2 * m.limbs() });
        }
        let r = self.reduce_members(m, &t.limbs, t.len(), 1)?;
        Ok(GpuResidue { value: GpuNat { limbs: r }, modulus: m.id })
    }

    /// `a b mod m`. Errors: operands of another modulus or length.
    pub fn mul_mod(&self, m: &GpuModulus, a: &GpuResidue, b: &GpuResidue) -> Result<GpuResidue> {
        self.check(m, "a", a)?;
        self.check(m, "b", b)?;
        let t = self.modular_products(m, &a.value.limbs, Some(&b.value.limbs), 1)?;
        Ok(GpuResidue { value: GpuNat { limbs: t }, modulus: m.id })
    }

    /// `a^2 mod m`.
    pub fn square_mod(&self, m: &GpuModulus, a: &GpuResidue) -> Result<GpuResidue> {
        self.check(m, "a", a)?;
        let t = self.modular_products(m, &a.value.limbs, None, 1)?;
        Ok(GpuResidue { value: GpuNat { limbs: t }, modulus: m.id })
    }

    /// `a_i b_i mod m` for every `i`, in one launch sequence. Errors: lists of different or
    /// zero lengths, operands of another modulus.
    pub fn mul_mod_batch(&self, m: &GpuModulus, a: &[&GpuResidue], b: &[&GpuResidue]) -> Result<Vec<GpuResidue>> {
        if a.len() != b.len() || a.is_empty() {
            return Err(BigIntError::Batch { reason: format!("{} members times {}", a.len(), b.len()) });
        }
        for x in a.iter().chain(b) {
            self.check(m, "batch member", x)?;
        }
        let limbs = m.limbs();
        let gather = |xs: &[&GpuResidue]| -> Result<CudaSlice<u64>> {
            // SAFETY: every member is copied in below.
            let mut all = unsafe { self.alloc::<u64>(xs.len() * limbs) }?;
            for (i, x) in xs.iter().enumerate() {
                self.copy_into(&x.value.limbs, &mut all, i * limbs)?;
            }
            Ok(all)
        };
        let (all_a, all_b) = (gather(a)?, gather(b)?);
        let out = self.modular_products(m, &all_a, Some(&all_b), a.len())?;
        (0..a.len())
            .map(|i| Ok(GpuResidue { value: GpuNat { limbs: self.copy_out(&out, i * limbs, limbs)? }, modulus: m.id }))
            .collect()
    }

    /// Reduced products (squares for `b = None`) of `members` residues each.
    fn modular_products(
        &self,
        m: &GpuModulus,
        a: &CudaSlice<u64>,
        b: Option<&CudaSlice<u64>>,
        members: usize,
    ) -> Result<CudaSlice<u64>> {
        let host = &m.host;
        let (k, shape, limbs) = (host.bits(), host.shape(), m.limbs());
        let plan = self.plan(shape.log_n())?;
        let n = shape.len();
        let mut fa = self.split(a, limbs, limbs, 0, shape, shape.digits(k), members)?;
        self.ntt(&mut fa, &plan, members, false)?;
        match b {
            Some(b) => {
                let mut fb = self.split(b, limbs, limbs, 0, shape, shape.digits(k), members)?;
                self.ntt(&mut fb, &plan, members, false)?;
                self.pointwise(&mut fa, &fb, n, plan.n_inv, n, members)?;
            }
            None => {
                let copy = self.copy_out(&fa, 0, fa.len())?;
                self.pointwise(&mut fa, &copy, n, plan.n_inv, n, members)?;
            }
        }
        self.ntt(&mut fa, &plan, members, true)?;
        let t_limbs = 2 * limbs;
        let (lo, hi) = self.gather(&fa, n, shape.digit_bits(), t_limbs, None, members)?;
        let (t, _) = self.resolve(&lo, &hi, t_limbs, members)?;
        self.reduce_members(m, &t, t_limbs, members)
    }

    /// `a + b mod m`.
    pub fn add_mod(&self, m: &GpuModulus, a: &GpuResidue, b: &GpuResidue) -> Result<GpuResidue> {
        self.check(m, "a", a)?;
        self.check(m, "b", b)?;
        let limbs = m.limbs();
        let wide = (m.host.bits() + 1).div_ceil(64) as usize;
        let (lo, hi) = self.sum((&a.value.limbs, limbs, limbs), (&b.value.limbs, limbs, limbs), wide, 1, 1)?;
        let (s, _) = self.resolve(&lo, &hi, wide, 1)?;
        let (lo, hi) = self.sum((&s, wide, wide), (&m.m, limbs, 0), wide, -1, 1)?;
        let (diff, top) = self.resolve(&lo, &hi, wide, 1)?;
        let out = self.select(&s, &diff, &top, wide, limbs, 1)?;
        Ok(GpuResidue { value: GpuNat { limbs: out }, modulus: m.id })
    }

    /// `a - b mod m`.
    pub fn sub_mod(&self, m: &GpuModulus, a: &GpuResidue, b: &GpuResidue) -> Result<GpuResidue> {
        self.check(m, "a", a)?;
        self.check(m, "b", b)?;
        let limbs = m.limbs();
        let (lo, hi) = self.sum((&a.value.limbs, limbs, limbs), (&b.value.limbs, limbs, limbs), limbs, -1, 1)?;
        let (diff, top) = self.resolve(&lo, &hi, limbs, 1)?;
        let (lo, hi) = self.sum((&diff, limbs, limbs), (&m.m, limbs, 0), limbs, 1, 1)?;
        let (wrapped, _) = self.resolve(&lo, &hi, limbs, 1)?;
        let out = self.select(&wrapped, &diff, &top, limbs, limbs, 1)?;
        Ok(GpuResidue { value: GpuNat { limbs: out }, modulus: m.id })
    }

    /// `rows` (each below `m`) as a device table. Errors: [`BigIntError::NotReduced`],
    /// [`BigIntError::Batch`] for no rows.
    pub fn upload_table(&self, m: &GpuModulus, rows: &[BigNat]) -> Result<GpuTable> {
        if rows.is_empty() {
            return Err(BigIntError::Batch { reason: "an empty table".to_string() });
        }
        let limbs = m.limbs();
        let mut words = Vec::with_capacity(rows.len() * limbs);
        for row in rows {
            m.host.check_reduced("table row", row)?;
            words.extend(row.limbs_padded(limbs));
        }
        Ok(GpuTable { data: self.upload_words(&words)?, count: rows.len(), modulus: m.id })
    }

    /// Residues already on the device as a table (device-to-device copies). Errors:
    /// [`BigIntError::Batch`] for no rows, rows of another modulus.
    pub fn table_from_residues(&self, m: &GpuModulus, rows: &[&GpuResidue]) -> Result<GpuTable> {
        if rows.is_empty() {
            return Err(BigIntError::Batch { reason: "an empty table".to_string() });
        }
        for row in rows {
            self.check(m, "table row", row)?;
        }
        let limbs = m.limbs();
        // SAFETY: every row is copied in below.
        let mut data = unsafe { self.alloc::<u64>(rows.len() * limbs) }?;
        for (i, row) in rows.iter().enumerate() {
            self.copy_into(&row.value.limbs, &mut data, i * limbs)?;
        }
        Ok(GpuTable { data, count: rows.len(), modulus: m.id })
    }

    /// For each member `y`: `sum_{i < width} coeffs[y width + i] table[i] mod m`, `width =
    /// table.count()`, coefficients in `-127 ..= 127`, all members in one launch sequence.
    /// Errors: a table of another modulus, `coeffs` not a non-empty multiple of the width.
    pub fn linear_combinations_mod(&self, m: &GpuModulus, table: &GpuTable, coeffs: &[i8]) -> Result<Vec<GpuResidue>> {
        if table.modulus != m.id {
            return Err(BigIntError::WrongModulus { what: "table" });
        }
        let width = table.count;
        if coeffs.is_empty() || !coeffs.len().is_multiple_of(width) || coeffs.contains(&i8::MIN) {
            return Err(BigIntError::Batch {
                reason: format!("{} coefficients for rows of {width} (in -127..=127)", coeffs.len()),
            });
        }
        let members = coeffs.len() / width;
        let limbs = m.limbs();
        // The offset 127 width m keeps every sum non-negative; sums stay below 255 width m,
        // far below 2^(2k) for the Barrett reduction.
        let offset = m.host.modulus().mul_u64(127 * width as u64);
        let offset_limbs = offset.limbs().len().max(1);
        let out_limbs = limbs + 2;
        let offset_words = self.upload_words(&offset.limbs_padded(offset_limbs))?;
        let coefficient_bytes: Vec<u8> = coeffs.iter().map(|&c| c as u8).collect();
        let coefficient_words = self
            .device
            .stream()
            .clone_htod(&coefficient_bytes)
            .map_err(|e| BigIntError::Gpu(GpuError::driver("cuMemcpyHtoDAsync", e)))?;
        // SAFETY: bigint_lincomb writes out_limbs words per member of both.
        let lo = unsafe { self.alloc::<u64>(out_limbs * members) }?;
        // SAFETY: as above.
        let hi = unsafe { self.alloc::<i64>(out_limbs * members) }?;
        let stream = self.device.stream();
        let addresses = [
            address(&lo, stream),
            address(&hi, stream),
            address(&table.data, stream),
            address(&coefficient_words, stream),
            address(&offset_words, stream),
        ];
        let sizes = [
            u32_of(width, "width")?,
            u32_of(limbs, "limbs")?,
            u32_of(offset_limbs, "limbs")?,
            u32_of(out_limbs, "limbs")?,
        ];
        let config = self.grid(out_limbs, members)?;
        let mut launch = self.kernels.bigint_lincomb.builder(stream);
        for a in &addresses {
            launch.arg(a);
        }
        for s in &sizes {
            launch.arg(s);
        }
        // SAFETY: reads width coefficients per member (members * width bytes), rows i < width of
        // the table (width * limbs words) at limbs j < limbs, offset words < offset_limbs; writes
        // out_limbs words per member of lo and hi.
        unsafe { launch.launch(config) }?;
        let (sums, _) = self.resolve(&lo, &hi, out_limbs, members)?;
        let reduced = self.reduce_members(m, &sums, out_limbs, members)?;
        (0..members)
            .map(|i| {
                Ok(GpuResidue { value: GpuNat { limbs: self.copy_out(&reduced, i * limbs, limbs)? }, modulus: m.id })
            })
            .collect()
    }
}
