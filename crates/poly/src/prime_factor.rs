//! The DFT of length `m` at the primitive `m`-th roots by the prime-factor (Good-Thomas)
//! algorithm: [`PrimeFactorPlan`], the fast path of [`crate::bluestein::CyclotomicPlan`] (and of
//! the GPU's transform) for the `m` whose factors allow it (HElib's `21845 = 5 * 17 * 257`),
//! with Bluestein's convolution of length `M >= 2m - 1` for the others. Both give the same
//! words: the DFT is one function. Its arithmetic is `modarith`'s, branch-free: on random words
//! a mispredicted branch per butterfly made this transform five times slower.
//!
//! With `m = m_1 ... m_r` (pairwise coprime prime powers), `N_i = m / m_i`, an input index
//! `j = sum_i j_i N_i mod m` (Ruritanian map) and an output index `k = k_i mod m_i` (CRT map),
//! `w^(jk) = prod_i w_i^(j_i k_i)` with `w_i = w^(N_i)`: the DFT is the tensor product of the
//! DFTs of length `m_i`, with no twiddle factors. `k` is a primitive index exactly when every
//! `k_i` is a unit modulo `m_i`, so each axis computes only those `phi(m_i)` outputs (forward),
//! or starts from them (inverse, the other values zero: the interpolant of degree `< m` that
//! [`crate::phi_reduction`] reduces).
//!
//! An axis is a prime `p` with `p - 1 = 2^s`, `64 <= p - 1 <= 1024` (the Fermat prime 257),
//! transformed by Rader's algorithm (on the CPU also 5 and 17, over whole rows): with a
//! generator `r` of `Z_p^*`, `X_(r^-b) = x_0 + sum_a x_(r^a) w_p^(r^(a - b))`, a cyclic
//! convolution of length `p - 1` done with a power-of-two NTT. Any other prime power up to [`MAX_DIRECT`] is a direct product with the DFT matrix. An
//! `m` with a factor that is neither has no plan.

use modarith::Modulus;

use crate::Result;
use crate::bluestein::primitive_root_of_order;
use crate::cyclotomic::{gcd, prime_factors};

/// The largest prime power transformed by its DFT matrix.
pub const MAX_DIRECT: usize = 64;

/// The largest `p - 1` of a Rader axis (a block's convolution on the GPU).
pub const MAX_RADER: usize = 1024;

/// The smallest `p - 1` of a Rader axis: smaller primes (5, 17) go by their matrix, a few
/// products per output, which the GPU does in one pass.
pub const MIN_RADER: usize = 64;

/// A cyclic NTT of length `2^s` (Gentleman-Sande forward, natural order in, bit-reversed out;
/// Cooley-Tukey inverse, bit-reversed in, natural out): a Rader axis's convolution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CyclicNtt {
    len: usize,
    /// `psi^j` and `psi^-j`, `j < len / 2`, `psi` a primitive `len`-th root, and their Shoup
    /// quotients.
    twiddles: Vec<u64>,
    twiddles_inv: Vec<u64>,
    twiddles_shoup: Vec<u64>,
    twiddles_inv_shoup: Vec<u64>,
}

impl CyclicNtt {
    fn new(q: &Modulus, len: usize) -> Result<Self> {
        let psi = primitive_root_of_order(q, len as u64)?;
        let psi_inv = q.inv(psi)?;
        let powers = |base: u64| -> Vec<u64> { (0..len as u64 / 2).map(|j| q.pow(base, j)).collect() };
        let (twiddles, twiddles_inv) = (powers(psi), powers(psi_inv));
        let shoup = |words: &[u64]| words.iter().map(|&w| q.shoup(w)).collect();
        Ok(Self {
            len,
            twiddles_shoup: shoup(&twiddles),
            twiddles_inv_shoup: shoup(&twiddles_inv),
            twiddles,
            twiddles_inv,
        })
    }

    /// The length.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the length is 0 (never).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// `psi^j`, `j < len / 2`.
    pub fn twiddles(&self) -> &[u64] {
        &self.twiddles
    }

    /// `psi^-j`, `j < len / 2`.
    pub fn twiddles_inv(&self) -> &[u64] {
        &self.twiddles_inv
    }

    /// Forward, in place: `a` in natural order, the result in bit-reversed order.
    pub fn forward(&self, q: &Modulus, a: &mut [u64]) {
        self.forward_rows(q, a, 1);
    }

    /// Inverse without the factor `len^-1`, in place: `a` in bit-reversed order, the result in
    /// natural order.
    pub fn inverse(&self, q: &Modulus, a: &mut [u64]) {
        self.inverse_rows(q, a, 1);
    }

    /// [`forward`](Self::forward) of `row` interleaved sequences: `a` is `len` rows of `row`
    /// words, and every butterfly acts on whole rows (entry `e` of each row is one sequence).
    pub fn forward_rows(&self, q: &Modulus, a: &mut [u64], row: usize) {
        let mut half = self.len / 2;
        while half >= 1 {
            let step = self.len / (2 * half);
            for block in a.chunks_exact_mut(2 * half * row) {
                let (low, high) = block.split_at_mut(half * row);
                for (j, (u_row, v_row)) in low.chunks_exact_mut(row).zip(high.chunks_exact_mut(row)).enumerate() {
                    let (w, ws) = (self.twiddles[j * step], self.twiddles_shoup[j * step]);
                    for (u, v) in u_row.iter_mut().zip(v_row.iter_mut()) {
                        let (x, y) = (*u, *v);
                        *u = q.add(x, y);
                        *v = q.mul_shoup(q.sub(x, y), w, ws);
                    }
                }
            }
            half /= 2;
        }
    }

    /// [`inverse`](Self::inverse) of `row` interleaved sequences (as
    /// [`forward_rows`](Self::forward_rows)).
    pub fn inverse_rows(&self, q: &Modulus, a: &mut [u64], row: usize) {
        let mut half = 1;
        while half < self.len {
            let step = self.len / (2 * half);
            for block in a.chunks_exact_mut(2 * half * row) {
                let (low, high) = block.split_at_mut(half * row);
                for (j, (u_row, v_row)) in low.chunks_exact_mut(row).zip(high.chunks_exact_mut(row)).enumerate() {
                    let (w, ws) = (self.twiddles_inv[j * step], self.twiddles_inv_shoup[j * step]);
                    for (u, v) in u_row.iter_mut().zip(v_row.iter_mut()) {
                        let (x, y) = (*u, q.mul_shoup(*v, w, ws));
                        *u = q.add(x, y);
                        *v = q.sub(x, y);
                    }
                }
            }
            half *= 2;
        }
    }
}

/// How one axis is transformed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AxisTransform {
    /// The DFT matrix: forward `phi(m_i) x m_i` (`W[k'][j] = w_i^(j u_k')`, `u` the units
    /// increasing), inverse `m_i x phi(m_i)` (`V[j][k'] = m_i^-1 w_i^(-j u_k')`), row-major.
    Direct {
        /// `W`, `phi(m_i) x m_i`.
        forward: Vec<u64>,
        /// `V`, `m_i x phi(m_i)`.
        inverse: Vec<u64>,
    },
    /// Rader's algorithm for a prime `p`.
    Rader(Box<RaderAxis>),
}

/// The tables of a Rader axis (prime `p`, generator `r` of `Z_p^*`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RaderAxis {
    /// `r^a mod p`, `a < p - 1`.
    pub generator_powers: Vec<u32>,
    /// `r^-b mod p - 1`, `b < p - 1`: the output slot of convolution term `b`.
    pub outputs: Vec<u32>,
    /// The convolution's NTT, of length `p - 1`.
    pub ntt: CyclicNtt,
    /// The forward kernel `C_c = w_p^(r^-c)`, transformed (bit-reversed), times `(p - 1)^-1`.
    pub kernel: Vec<u64>,
    /// The inverse kernel `C'_c = w_p^(-r^c)`, transformed, times `(p - 1)^-1 p^-1`.
    pub kernel_inv: Vec<u64>,
    /// The Shoup quotients of `kernel` and `kernel_inv`.
    pub kernel_shoup: Vec<u64>,
    /// See `kernel_shoup`.
    pub kernel_inv_shoup: Vec<u64>,
    /// `p^-1`.
    pub p_inv: u64,
}

/// One axis of the tensor: a prime power `m_i` of `m`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Axis {
    /// `m_i`.
    pub size: usize,
    /// `phi(m_i)`.
    pub units: usize,
    /// The transform of this axis (the GPU's: Rader's only from [`MIN_RADER`] on, a few
    /// products per output being one cheap pass there).
    pub transform: AxisTransform,
    /// Rader's tables also for a small Rader prime (5, 17) that `transform` takes by its
    /// matrix: the CPU's choice there (16 + 64 butterflies a column of 17 against 272 products).
    pub small_rader: Option<Box<RaderAxis>>,
}

/// The prime-factor DFT of one `m` over one prime (module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrimeFactorPlan {
    modulus: Modulus,
    m: usize,
    n: usize,
    axes: Vec<Axis>,
    /// Per tensor position of the input (axis 0 slowest): its coefficient index `j`.
    sources: Vec<u32>,
    /// Per primitive index in increasing order (evaluation `s`): its position in the output
    /// tensor of unit indices.
    evaluation_positions: Vec<u32>,
}

impl PrimeFactorPlan {
    /// The plan for `m` modulo `q` with the primitive `m`-th root `root` (the Bluestein plan's,
    /// for the same words), or `None` when a factor of `m` is neither a Rader prime nor at most
    /// [`MAX_DIRECT`]. Errors with [`crate::PolyError::InvalidParameter`] when `q` lacks a root of
    /// unity a Rader axis needs.
    pub fn new(modulus: Modulus, m: usize, root: u64) -> Result<Option<Self>> {
        let q = &modulus;
        let powers: Vec<usize> = prime_factors(m as u64)
            .into_iter()
            .map(|p| {
                let mut power = 1usize;
                while m.is_multiple_of(power * p as usize) {
                    power *= p as usize;
                }
                power
            })
            .collect();
        let mut axes = Vec::with_capacity(powers.len());
        for &size in &powers {
            let w = q.pow(root, (m / size) as u64);
            let units: Vec<usize> = (1..size).filter(|&k| gcd(k, size) == 1).collect();
            let rader_prime =
                units.len() == size - 1 && (size - 1).is_power_of_two() && (4..=MAX_RADER).contains(&(size - 1));
            let rader = rader_prime && size > MIN_RADER;
            let transform = if rader {
                rader_axis(q, size, w)?
            } else if size <= MAX_DIRECT {
                let size_inv = q.inv(q.reduce(size as u64))?;
                let w_inv = q.inv(w)?;
                let forward = units
                    .iter()
                    .flat_map(|&k| (0..size).map(move |j| (j, k)))
                    .map(|(j, k)| q.pow(w, (j * k) as u64))
                    .collect();
                let inverse = (0..size)
                    .flat_map(|j| units.iter().map(move |&k| (j, k)))
                    .map(|(j, k)| q.mul(size_inv, q.pow(w_inv, (j * k % size) as u64)))
                    .collect();
                AxisTransform::Direct { forward, inverse }
            } else {
                return Ok(None);
            };
            let small_rader = match (rader_prime && !rader).then(|| rader_axis(q, size, w)).transpose()? {
                Some(AxisTransform::Rader(tables)) => Some(tables),
                _ => None,
            };
            axes.push(Axis { size, units: units.len(), transform, small_rader });
        }
        // Input tensor position (j_0, .., j_(r-1)), axis 0 slowest: j = sum j_i N_i mod m.
        let mut sources = vec![0u32; m];
        for (t, slot) in sources.iter_mut().enumerate() {
            let (mut rest, mut j) = (t, 0usize);
            for axis in axes.iter().rev() {
                j = (j + (rest % axis.size) * (m / axis.size)) % m;
                rest /= axis.size;
            }
            *slot = j as u32;
        }
        // Output position (unit ranks u_0, .., u_(r-1)) of each primitive k: k mod m_i.
        let unit_rank = |size: usize, k: usize| (1..k).filter(|&u| gcd(u, size) == 1).count();
        let rank_tables: Vec<Vec<usize>> =
            axes.iter().map(|axis| (0..axis.size).map(|k| unit_rank(axis.size, k)).collect()).collect();
        let evaluation_positions: Vec<u32> = (1..m)
            .filter(|&k| gcd(k, m) == 1)
            .map(|k| {
                axes.iter().zip(&rank_tables).fold(0usize, |acc, (axis, ranks)| acc * axis.units + ranks[k % axis.size])
                    as u32
            })
            .collect();
        let n = evaluation_positions.len();
        Ok(Some(Self { modulus, m, n, axes, sources, evaluation_positions }))
    }

    /// `m`.
    pub fn m(&self) -> usize {
        self.m
    }

    /// The prime.
    pub fn modulus(&self) -> &Modulus {
        &self.modulus
    }

    /// The axes, slowest first.
    pub fn axes(&self) -> &[Axis] {
        &self.axes
    }

    /// Per input tensor position, its coefficient index.
    pub fn sources(&self) -> &[u32] {
        &self.sources
    }

    /// Per evaluation (primitive index increasing), its output tensor position.
    pub fn evaluation_positions(&self) -> &[u32] {
        &self.evaluation_positions
    }

    /// The evaluations at the primitive roots (increasing index) of the polynomial with these
    /// coefficients (at most `m` canonical values, the rest zero).
    pub fn forward(&self, coefficients: &[u64]) -> Vec<u64> {
        let mut tensor: Vec<u64> =
            self.sources.iter().map(|&j| coefficients.get(j as usize).copied().unwrap_or(0)).collect();
        let mut dims: Vec<usize> = self.axes.iter().map(|a| a.size).collect();
        for (i, axis) in self.axes.iter().enumerate() {
            tensor = self.apply_axis(&tensor, &mut dims, i, axis, false);
        }
        self.evaluation_positions.iter().map(|&t| tensor[t as usize]).collect()
    }

    /// The interpolant of degree `< m` (`m` words) with these values at the primitive roots
    /// (`phi(m)` evaluations, increasing index) and zero at the other `m`-th roots: the inverse
    /// DFT, `m^-1 sum_k X_k w^(-jk)`.
    pub fn inverse(&self, evaluations: &[u64]) -> Vec<u64> {
        let mut tensor = vec![0u64; self.n];
        for (&t, &v) in self.evaluation_positions.iter().zip(evaluations) {
            tensor[t as usize] = v;
        }
        let mut dims: Vec<usize> = self.axes.iter().map(|a| a.units).collect();
        for (i, axis) in self.axes.iter().enumerate() {
            tensor = self.apply_axis(&tensor, &mut dims, i, axis, true);
        }
        let mut out = vec![0u64; self.m];
        for (&j, &v) in self.sources.iter().zip(&tensor) {
            out[j as usize] = v;
        }
        out
    }

    /// Axis `i` of the tensor of shape `dims` transformed (forward: `m_i` -> `phi(m_i)`
    /// entries; inverse: back), `dims[i]` updated.
    fn apply_axis(&self, tensor: &[u64], dims: &mut [usize], i: usize, axis: &Axis, inverse: bool) -> Vec<u64> {
        let q = &self.modulus;
        let before: usize = dims[..i].iter().product();
        let after: usize = dims[i + 1..].iter().product();
        let (len_in, len_out) = if inverse { (axis.units, axis.size) } else { (axis.size, axis.units) };
        let mut out = vec![0u64; before * len_out * after];
        if let Some(rader) = &axis.small_rader {
            rader_rows(q, rader, tensor, &mut out, before, after, inverse);
            dims[i] = len_out;
            return out;
        }
        if let (AxisTransform::Direct { forward, inverse: inverse_matrix }, true) = (&axis.transform, after > 1) {
            // Row by row: out[a][k][..] += W[k][j] in[a][j][..] over contiguous rows of `after`
            // words, Shoup products.
            let matrix = if inverse { inverse_matrix } else { forward };
            let quotients: Vec<u64> = matrix.iter().map(|&w| q.shoup(w)).collect();
            for a in 0..before {
                let x = &tensor[a * len_in * after..(a + 1) * len_in * after];
                let y = &mut out[a * len_out * after..(a + 1) * len_out * after];
                for (k, y_row) in y.chunks_exact_mut(after).enumerate() {
                    for (j, x_row) in x.chunks_exact(after).enumerate() {
                        let (w, ws) = (matrix[k * len_in + j], quotients[k * len_in + j]);
                        for (acc, &v) in y_row.iter_mut().zip(x_row) {
                            *acc = q.add(*acc, q.mul_shoup(v, w, ws));
                        }
                    }
                }
            }
            dims[i] = len_out;
            return out;
        }
        let mut column = vec![0u64; len_in];
        for a in 0..before {
            for b in 0..after {
                for (j, slot) in column.iter_mut().enumerate() {
                    *slot = tensor[(a * len_in + j) * after + b];
                }
                let result = transform_column(q, &axis.transform, &column, len_out, inverse);
                for (k, v) in result.into_iter().enumerate() {
                    out[(a * len_out + k) * after + b] = v;
                }
            }
        }
        dims[i] = len_out;
        out
    }
}

/// One column through an axis transform (`len_out` values).
fn transform_column(q: &Modulus, transform: &AxisTransform, column: &[u64], len_out: usize, inverse: bool) -> Vec<u64> {
    match transform {
        AxisTransform::Direct { forward, inverse: inverse_matrix } => {
            let matrix = if inverse { inverse_matrix } else { forward };
            matrix
                .chunks_exact(column.len())
                .take(len_out)
                .map(|row| row.iter().zip(column).fold(0u64, |acc, (&w, &x)| q.add(acc, q.mul(w, x))))
                .collect()
        }
        AxisTransform::Rader(rader) => {
            let RaderAxis { generator_powers, outputs, ntt, kernel, kernel_inv, kernel_shoup, kernel_inv_shoup, p_inv } =
                &**rader;
            let mut a: Vec<u64> = if inverse {
                // A'_b = X_(r^-b).
                outputs.iter().map(|&slot| column[slot as usize]).collect()
            } else {
                // A_a = x_(r^a).
                generator_powers.iter().map(|&j| column[j as usize]).collect()
            };
            ntt.forward(q, &mut a);
            let (c, cs) = if inverse { (kernel_inv, kernel_inv_shoup) } else { (kernel, kernel_shoup) };
            for ((v, &w), &ws) in a.iter_mut().zip(c).zip(cs) {
                *v = q.mul_shoup(*v, w, ws);
            }
            ntt.inverse(q, &mut a);
            let mut out = vec![0u64; len_out];
            if inverse {
                // x_(r^a) = p^-1 (A' * C')_a, x_0 = p^-1 sum_k X_k.
                out[0] = q.mul(column.iter().fold(0u64, |acc, &x| q.add(acc, x)), *p_inv);
                for (&j, &v) in generator_powers.iter().zip(&a) {
                    out[j as usize] = v;
                }
            } else {
                // X_(r^-b) = x_0 + (A * C)_b.
                for (&slot, &v) in outputs.iter().zip(&a) {
                    out[slot as usize] = q.add(column[0], v);
                }
            }
            out
        }
    }
}

/// A Rader axis over whole rows: `before` blocks of `len_in` rows of `after` words (the axis's
/// inputs) to `len_out` rows each, every butterfly of the convolution's NTT acting on a row.
fn rader_rows(
    q: &Modulus,
    rader: &RaderAxis,
    tensor: &[u64],
    out: &mut [u64],
    before: usize,
    after: usize,
    inverse: bool,
) {
    let len = rader.generator_powers.len();
    let (len_in, len_out) = if inverse { (len, len + 1) } else { (len + 1, len) };
    let (kernel, kernel_shoup) =
        if inverse { (&rader.kernel_inv, &rader.kernel_inv_shoup) } else { (&rader.kernel, &rader.kernel_shoup) };
    let ntt = &rader.ntt;
    let mut a = vec![0u64; len * after];
    for block in 0..before {
        let x = &tensor[block * len_in * after..(block + 1) * len_in * after];
        let y = &mut out[block * len_out * after..(block + 1) * len_out * after];
        let load = if inverse { &rader.outputs } else { &rader.generator_powers };
        for (row, &source) in a.chunks_exact_mut(after).zip(load) {
            row.copy_from_slice(&x[source as usize * after..(source as usize + 1) * after]);
        }
        // Gentleman-Sande over rows (bit-reversed out), the kernel, Cooley-Tukey back.
        ntt.forward_rows(q, &mut a, after);
        for ((row, &c), &cs) in a.chunks_exact_mut(after).zip(kernel).zip(kernel_shoup) {
            for v in row.iter_mut() {
                *v = q.mul_shoup(*v, c, cs);
            }
        }
        ntt.inverse_rows(q, &mut a, after);
        if inverse {
            // x_(r^a) = p^-1 (A' * C')_a; x_0 = p^-1 sum_k X_k.
            for (row, &target) in a.chunks_exact(after).zip(&rader.generator_powers) {
                y[target as usize * after..(target as usize + 1) * after].copy_from_slice(row);
            }
            let (first, _) = y.split_at_mut(after);
            first.fill(0);
            for row in x.chunks_exact(after) {
                for (acc, &v) in first.iter_mut().zip(row) {
                    *acc = q.add(*acc, v);
                }
            }
            for v in first.iter_mut() {
                *v = q.mul(*v, rader.p_inv);
            }
        } else {
            // X_(r^-b) = x_0 + (A * C)_b.
            let x0 = &x[..after];
            for (row, &slot) in a.chunks_exact(after).zip(&rader.outputs) {
                let target = &mut y[slot as usize * after..(slot as usize + 1) * after];
                for ((t, &v), &base) in target.iter_mut().zip(row).zip(x0) {
                    *t = q.add(base, v);
                }
            }
        }
    }
}

/// The tables of Rader's algorithm for the prime `p` with the primitive `p`-th root `w`.
fn rader_axis(q: &Modulus, p: usize, w: u64) -> Result<AxisTransform> {
    let len = p - 1;
    let generator = (2..p)
        .find(|&r| {
            let mut x = 1usize;
            (1..len).all(|_| {
                x = x * r % p;
                x != 1
            })
        })
        .unwrap_or(2);
    let mut generator_powers = Vec::with_capacity(len);
    let mut x = 1usize;
    for _ in 0..len {
        generator_powers.push(x as u32);
        x = x * generator % p;
    }
    // r^-b = r^(len - b).
    let outputs: Vec<u32> = (0..len).map(|b| generator_powers[(len - b) % len] - 1).collect();
    let ntt = CyclicNtt::new(q, len)?;
    let len_inv = q.inv(q.reduce(len as u64))?;
    let p_inv = q.inv(q.reduce(p as u64))?;
    let w_inv = q.inv(w)?;
    // C_c = w^(r^-c), C'_c = w^(-r^c): the convolution kernels, transformed, with the factors.
    let kernel_of = |values: Vec<u64>, factor: u64| -> Vec<u64> {
        let mut c = values;
        ntt.forward(q, &mut c);
        c.iter().map(|&v| q.mul(v, factor)).collect()
    };
    let kernel = kernel_of((0..len).map(|c| q.pow(w, u64::from(outputs[c]) + 1)).collect(), len_inv);
    let kernel_inv =
        kernel_of((0..len).map(|c| q.pow(w_inv, u64::from(generator_powers[c]))).collect(), q.mul(len_inv, p_inv));
    let shoup = |words: &[u64]| words.iter().map(|&w| q.shoup(w)).collect();
    let (kernel_shoup, kernel_inv_shoup) = (shoup(&kernel), shoup(&kernel_inv));
    Ok(AxisTransform::Rader(Box::new(RaderAxis {
        generator_powers,
        outputs,
        ntt,
        kernel,
        kernel_inv,
        kernel_shoup,
        kernel_inv_shoup,
        p_inv,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bluestein::{BluesteinPlan, bluestein_primes};
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// The plan's forward and inverse equal Bluestein's DFT (the primitive outputs; the whole
    /// inverse with zeros at the other roots) for `m` with Rader axes (5, 17, 257), direct
    /// axes (prime powers up to 64), both, and one axis; `m` with a large non-Fermat factor has
    /// no plan.
    #[test]
    fn equals_bluestein() {
        let mut rng = StdRng::seed_from_u64(0x9fa);
        for m in [257usize, 4369, 21845, 771, 1105, 4095, 31775 / 5, 45, 1285] {
            let p = bluestein_primes(55, m as u64, 1).unwrap()[0];
            let q = Modulus::new(p).unwrap();
            let bluestein = BluesteinPlan::new(q, m).unwrap();
            let Some(plan) = PrimeFactorPlan::new(q, m, bluestein.root()).unwrap() else {
                panic!("m = {m}: no plan");
            };
            let n = plan.evaluation_positions().len();
            let primitive: Vec<usize> = (1..m).filter(|&k| gcd(k, m) == 1).collect();
            let coefficients: Vec<u64> = (0..n).map(|_| rng.gen_range(0..p)).collect();
            let mut padded = coefficients.clone();
            padded.resize(m, 0);
            let all = bluestein.forward(&padded).unwrap();
            let want: Vec<u64> = primitive.iter().map(|&k| all[k]).collect();
            assert_eq!(plan.forward(&coefficients), want, "m = {m}: forward");
            let evaluations: Vec<u64> = (0..n).map(|_| rng.gen_range(0..p)).collect();
            let mut zero_filled = vec![0u64; m];
            for (&k, &v) in primitive.iter().zip(&evaluations) {
                zero_filled[k] = v;
            }
            assert_eq!(plan.inverse(&evaluations), bluestein.inverse(&zero_filled).unwrap(), "m = {m}: inverse");
        }
        // 263 is prime and 262 = 2 * 131: neither Rader nor small.
        let p = bluestein_primes(55, 263, 1).unwrap()[0];
        let q = Modulus::new(p).unwrap();
        let root = BluesteinPlan::new(q, 263).unwrap().root();
        assert!(PrimeFactorPlan::new(q, 263, root).unwrap().is_none());
    }

    /// The cyclic NTT's convolution equals the schoolbook cyclic convolution.
    #[test]
    fn cyclic_ntt_convolves() {
        let p = bluestein_primes(50, 257, 1).unwrap()[0];
        let q = Modulus::new(p).unwrap();
        let mut rng = StdRng::seed_from_u64(3);
        for len in [4usize, 16, 256, 1024] {
            let ntt = CyclicNtt::new(&q, len).unwrap();
            let a: Vec<u64> = (0..len).map(|_| rng.gen_range(0..p)).collect();
            let b: Vec<u64> = (0..len).map(|_| rng.gen_range(0..p)).collect();
            let mut want = vec![0u64; len];
            for (i, &x) in a.iter().enumerate() {
                for (j, &y) in b.iter().enumerate() {
                    want[(i + j) % len] = q.add(want[(i + j) % len], q.mul(x, y));
                }
            }
            let (mut fa, mut fb) = (a.clone(), b.clone());
            ntt.forward(&q, &mut fa);
            ntt.forward(&q, &mut fb);
            let mut c: Vec<u64> = fa.iter().zip(&fb).map(|(&x, &y)| q.mul(x, y)).collect();
            ntt.inverse(&q, &mut c);
            let len_inv = q.inv(len as u64).unwrap();
            let got: Vec<u64> = c.iter().map(|&v| q.mul(v, len_inv)).collect();
            assert_eq!(got, want, "len {len}");
        }
    }
}
