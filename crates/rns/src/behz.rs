//! The RNS pieces of BEHZ-BFV (Bajard, Eynard, Hasan, Zucca, "A Full RNS Variant of FV like
//! Somewhat Homomorphic Encryption Schemes", SAC 2016), as laid out in Algorithms 2 and 3 of
//! Al Badawi et al. (GPU-FV):
//!
//! - decryption's scale-and-round by `t/q` with the redundant modulus `gamma`
//!   ([`BehzContext::decrypt_scale_round`], Algorithm 2);
//! - multiplication's extension `q -> B_sk` through `B_sk u {m~}` followed by the small
//!   Montgomery reduction by `m~` ([`BehzContext::extend_to_bsk`], steps S0 and S1);
//! - the fast floor `floor(t x / q)` computed in `B_sk` ([`BehzContext::fast_floor`], S3);
//! - the Shenoy-Kumaresan conversion `B_sk -> q` ([`BehzContext::bsk_to_q`], S4).
//!
//! Here `B_sk = B u {m_sk}`, limbs of `B` first; a polynomial over `q u B_sk` has the limbs of
//! `q`, then those of `B`, then `m_sk`.

use modarith::{Modulus, generate_ntt_primes};
use num_bigint::BigUint;
use num_integer::Integer;

use crate::base::RnsBase;
use crate::convert::{BaseConverter, ShenoyKumaresan};
use crate::word::PlainModulus;
use crate::{GENERATED_EXTRA_PRIMES, Result, RnsError, check_degree, check_len};

/// The auxiliary moduli of BEHZ: the base `B`, the redundant `m_sk` (both `= 1 mod 2N`, as
/// the tensor product is computed over `q u B_sk` with the transforms), the Montgomery
/// modulus `m~` and decryption's `gamma` (any primes not in `q u B_sk`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BehzModuli {
    /// The base `B`.
    pub b: Vec<u64>,
    /// The redundant modulus of the Shenoy-Kumaresan conversion `B_sk -> q`.
    pub m_sk: u64,
    /// The modulus of the small Montgomery reduction.
    pub m_tilde: u64,
    /// Decryption's redundant modulus.
    pub gamma: u64,
}

/// The tables of a [`BehzContext`] (`k = |q|`; `B_sk` in limb order). Shoup companions are
/// `floor(w 2^64 / m)` for the modulus the value is reduced by. The fast conversions'
/// tables are in [`BehzContext::q_to_bsk_mtilde`], [`BehzContext::q_to_bsk`] and
/// [`BehzContext::shenoy_kumaresan`].
#[derive(Debug, Clone, Copy)]
pub struct BehzTables<'a> {
    /// Decryption: `gamma t q~_i mod q_i`.
    pub dec_scale: &'a [u64],
    /// Shoup companions of `dec_scale`.
    pub dec_scale_shoup: &'a [u64],
    /// Decryption: `-q_i^-1 mod t` (`= (q / q_i)(-q^-1) mod t`).
    pub dec_row_t: &'a [u64],
    /// Shoup companions of `dec_row_t` modulo `t`.
    pub dec_row_t_shoup: &'a [u64],
    /// Decryption: `-q_i^-1 mod gamma`.
    pub dec_row_gamma: &'a [u64],
    /// Shoup companions of `dec_row_gamma`.
    pub dec_row_gamma_shoup: &'a [u64],
    /// Decryption: `gamma^-1 mod t` and its Shoup companion modulo `t`.
    pub gamma_inv_t: (u64, u64),
    /// S0: `m~ q~_i mod q_i`.
    pub mtilde_scale: &'a [u64],
    /// Shoup companions of `mtilde_scale`.
    pub mtilde_scale_shoup: &'a [u64],
    /// S1: `-q^-1 mod m~` and its Shoup companion.
    pub neg_q_inv_mtilde: (u64, u64),
    /// S1: `q mod m` for `m` in `B_sk`.
    pub q_mod_bsk: &'a [u64],
    /// Shoup companions of `q_mod_bsk`.
    pub q_mod_bsk_shoup: &'a [u64],
    /// S1: `m~^-1 mod m` for `m` in `B_sk`.
    pub mtilde_inv_bsk: &'a [u64],
    /// Shoup companions of `mtilde_inv_bsk`.
    pub mtilde_inv_bsk_shoup: &'a [u64],
    /// S3: `t q~_i mod q_i`.
    pub t_scale: &'a [u64],
    /// Shoup companions of `t_scale`.
    pub t_scale_shoup: &'a [u64],
    /// S3: `t q^-1 mod m` for `m` in `B_sk`.
    pub t_q_inv_bsk: &'a [u64],
    /// Shoup companions of `t_q_inv_bsk`.
    pub t_q_inv_bsk_shoup: &'a [u64],
    /// S3: `q^-1 mod m` for `m` in `B_sk`.
    pub q_inv_bsk: &'a [u64],
    /// Shoup companions of `q_inv_bsk`.
    pub q_inv_bsk_shoup: &'a [u64],
}

/// Precomputed tables for BEHZ-BFV decryption and multiplication with ciphertext modulus
/// `q`, plaintext modulus `t` and ring degree `N`.
///
/// The constructor checks that the bases are large enough for the multiplication of two
/// ciphertexts of degree one (see [`BehzContext::new`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BehzContext {
    degree: usize,
    t: PlainModulus,
    q: RnsBase,
    b: RnsBase,
    bsk: RnsBase,
    m_sk: Modulus,
    m_tilde: Modulus,
    gamma: Modulus,
    // Decryption (Algorithm 2).
    /// `gamma t q~_i mod q_i`.
    dec_scale: Vec<u64>,
    dec_scale_shoup: Vec<u64>,
    /// `-q_i^-1 mod t` (`= (q / q_i) (-q^-1) mod t`).
    dec_row_t: Vec<u64>,
    dec_row_t_shoup: Vec<u64>,
    /// `-q_i^-1 mod gamma`.
    dec_row_gamma: Vec<u64>,
    dec_row_gamma_shoup: Vec<u64>,
    /// `gamma^-1 mod t`.
    gamma_inv_t: u64,
    gamma_inv_t_shoup: u64,
    // S0 + S1.
    /// `q -> B_sk u {m~}` (the `m~` row last).
    q_to_bsk_mtilde: BaseConverter,
    /// `m~ q~_i mod q_i`.
    mtilde_scale: Vec<u64>,
    mtilde_scale_shoup: Vec<u64>,
    /// `-q^-1 mod m~`.
    neg_q_inv_mtilde: u64,
    neg_q_inv_mtilde_shoup: u64,
    /// `q mod m` for `m` in `B_sk`.
    q_mod_bsk: Vec<u64>,
    q_mod_bsk_shoup: Vec<u64>,
    /// `m~^-1 mod m` for `m` in `B_sk`.
    mtilde_inv_bsk: Vec<u64>,
    mtilde_inv_bsk_shoup: Vec<u64>,
    // S3.
    q_to_bsk: BaseConverter,
    /// `t q~_i mod q_i`.
    t_scale: Vec<u64>,
    t_scale_shoup: Vec<u64>,
    /// `t q^-1 mod m` and `q^-1 mod m` for `m` in `B_sk`.
    t_q_inv_bsk: Vec<u64>,
    t_q_inv_bsk_shoup: Vec<u64>,
    q_inv_bsk: Vec<u64>,
    q_inv_bsk_shoup: Vec<u64>,
    // S4.
    bsk_to_q: ShenoyKumaresan,
}

impl BehzContext {
    /// Tables for degree `N`, ciphertext primes `q`, plaintext modulus `t` and the
    /// auxiliary moduli.
    ///
    /// Errors if `N` is not a power of two up to `2^17`; a modulus is not a prime below
    /// `2^62` or appears twice across `q`, `B`, `m_sk`, `m~`, `gamma`; `t` is not in
    /// `[2, 2^62)` or shares a factor with `q` or `gamma`; `gamma <= 2k` (decryption would be
    /// wrong for most inputs); or the bases are too small for the product of two
    /// ciphertexts: with `c = q (1/2 + k/m~)` (the bound after S1) and `X = 2 N c^2` (a tensor
    /// coefficient), `q M m_sk > 2X` must hold (the tensor fits `q u B_sk`) and
    /// `R = t X / q + k` must satisfy `R < lambda M` with `m_sk >= 2(|B| + lambda)` (the
    /// floor result converts exactly to `q`), where `M = prod B`.
    pub fn new(degree: usize, q: &[u64], t: u64, aux: &BehzModuli) -> Result<Self> {
        check_degree(degree)?;
        let t = PlainModulus::new(t)?;
        let q = RnsBase::new(q)?;
        let b = RnsBase::new(&aux.b)?;
        let m_sk = Modulus::new(aux.m_sk)?;
        let m_tilde = Modulus::new(aux.m_tilde)?;
        let gamma = Modulus::new(aux.gamma)?;
        let sk_base = RnsBase::from_moduli(vec![m_sk])?;
        let bsk = b.union(&sk_base)?;
        let q_bsk = q.union(&bsk)?;
        let everything = q_bsk.union(&RnsBase::from_moduli(vec![m_tilde, gamma])?)?;
        debug_assert_eq!(everything.len(), q.len() + b.len() + 3);
        for m in q.moduli() {
            if m.value().gcd(&t.value()) != 1 {
                return Err(RnsError::NotCoprime { what: "t", value: t.value(), other_name: "q_i", other: m.value() });
            }
        }
        if gamma.value().gcd(&t.value()) != 1 {
            return Err(RnsError::NotCoprime {
                what: "t",
                value: t.value(),
                other_name: "gamma",
                other: gamma.value(),
            });
        }
        let k = q.len();
        let minimum_gamma = 2 * k as u64 + 1;
        if gamma.value() < minimum_gamma {
            return Err(RnsError::ModulusTooSmall { name: "gamma", value: gamma.value(), minimum: minimum_gamma });
        }
        let bsk_to_q = ShenoyKumaresan::new(&b, m_sk, &q)?;
        debug_assert_eq!(bsk_to_q.max_lambda(), m_sk.value() / 2 - b.len() as u64);
        Self::check_multiplication_bounds(degree, &q, &b, m_sk, m_tilde, t)?;

        // Decryption tables.
        let gamma_t = |m: &Modulus| m.mul(m.reduce(gamma.value()), m.reduce(t.value()));
        let mut dec_scale = Vec::with_capacity(k);
        let mut dec_scale_shoup = Vec::with_capacity(k);
        let mut dec_row_t = Vec::with_capacity(k);
        let mut dec_row_t_shoup = Vec::with_capacity(k);
        let mut dec_row_gamma = Vec::with_capacity(k);
        let mut dec_row_gamma_shoup = Vec::with_capacity(k);
        for (m, &q_tilde) in q.moduli().iter().zip(q.punctured_inverses()) {
            let w = m.mul(gamma_t(m), q_tilde);
            dec_scale.push(w);
            dec_scale_shoup.push(m.shoup(w));
            let inv_t = t.inv(m.value() % t.value()).ok_or(RnsError::NotCoprime {
                what: "t",
                value: t.value(),
                other_name: "q_i",
                other: m.value(),
            })?;
            let w = t.sub(0, inv_t);
            dec_row_t.push(w);
            dec_row_t_shoup.push(t.shoup(w));
            let w = gamma.neg(gamma.inv(m.value())?);
            dec_row_gamma.push(w);
            dec_row_gamma_shoup.push(gamma.shoup(w));
        }
        let gamma_inv_t = t.inv(gamma.value() % t.value()).ok_or(RnsError::NotCoprime {
            what: "t",
            value: t.value(),
            other_name: "gamma",
            other: gamma.value(),
        })?;

        // S0 + S1 tables.
        let q_to_bsk_mtilde = BaseConverter::new(&q, &bsk.union(&RnsBase::from_moduli(vec![m_tilde])?)?)?;
        let (mtilde_scale, mtilde_scale_shoup) = scaled_inverses(&q, |m| m.reduce(m_tilde.value()));
        let neg_q_inv_mtilde = m_tilde.neg(q.product_inverse_mod(&m_tilde)?);
        let mut q_mod_bsk = Vec::with_capacity(bsk.len());
        let mut q_mod_bsk_shoup = Vec::with_capacity(bsk.len());
        let mut mtilde_inv_bsk = Vec::with_capacity(bsk.len());
        let mut mtilde_inv_bsk_shoup = Vec::with_capacity(bsk.len());
        let mut t_q_inv_bsk = Vec::with_capacity(bsk.len());
        let mut t_q_inv_bsk_shoup = Vec::with_capacity(bsk.len());
        let mut q_inv_bsk = Vec::with_capacity(bsk.len());
        let mut q_inv_bsk_shoup = Vec::with_capacity(bsk.len());
        for m in bsk.moduli() {
            let w = q.product_mod(m.value());
            q_mod_bsk.push(w);
            q_mod_bsk_shoup.push(m.shoup(w));
            let w = m.inv(m_tilde.value())?;
            mtilde_inv_bsk.push(w);
            mtilde_inv_bsk_shoup.push(m.shoup(w));
            let q_inv = q.product_inverse_mod(m)?;
            q_inv_bsk.push(q_inv);
            q_inv_bsk_shoup.push(m.shoup(q_inv));
            let w = m.mul(m.reduce(t.value()), q_inv);
            t_q_inv_bsk.push(w);
            t_q_inv_bsk_shoup.push(m.shoup(w));
        }
        // S3 tables.
        let q_to_bsk = BaseConverter::new(&q, &bsk)?;
        let (t_scale, t_scale_shoup) = scaled_inverses(&q, |m| m.reduce(t.value()));

        Ok(Self {
            degree,
            t,
            q,
            b,
            bsk,
            m_sk,
            m_tilde,
            gamma,
            dec_scale,
            dec_scale_shoup,
            dec_row_t,
            dec_row_t_shoup,
            dec_row_gamma,
            dec_row_gamma_shoup,
            gamma_inv_t,
            gamma_inv_t_shoup: t.shoup(gamma_inv_t),
            q_to_bsk_mtilde,
            mtilde_scale,
            mtilde_scale_shoup,
            neg_q_inv_mtilde,
            neg_q_inv_mtilde_shoup: m_tilde.shoup(neg_q_inv_mtilde),
            q_mod_bsk,
            q_mod_bsk_shoup,
            mtilde_inv_bsk,
            mtilde_inv_bsk_shoup,
            q_to_bsk,
            t_scale,
            t_scale_shoup,
            t_q_inv_bsk,
            t_q_inv_bsk_shoup,
            q_inv_bsk,
            q_inv_bsk_shoup,
            bsk_to_q,
        })
    }

    /// A context whose auxiliary moduli are generated: `B` and `m_sk` are the largest 62-bit
    /// primes `= 1 mod 2N` not in `q` (nor equal to `t`), with `|B|` the smallest count that
    /// passes the bounds of [`new`](Self::new); `m~` and `gamma` are the next two such primes.
    pub fn with_generated_moduli(degree: usize, q: &[u64], t: u64) -> Result<Self> {
        check_degree(degree)?;
        let plain = PlainModulus::new(t)?;
        let q_base = RnsBase::new(q)?;
        let mut exclude = q.to_vec();
        exclude.push(t);
        let max_len = q.len() + GENERATED_EXTRA_PRIMES;
        let primes = generate_ntt_primes(62, 2 * degree as u64, max_len + 3, &exclude)?;
        let mut last_error = None;
        for b_len in 1..=max_len {
            let b = RnsBase::new(&primes[..b_len])?;
            let m_sk = Modulus::new(primes[b_len])?;
            let m_tilde = Modulus::new(primes[b_len + 1])?;
            match Self::check_multiplication_bounds(degree, &q_base, &b, m_sk, m_tilde, plain) {
                Err(error) => last_error = Some(error),
                Ok(()) => {
                    let aux = BehzModuli {
                        b: b.values(),
                        m_sk: m_sk.value(),
                        m_tilde: m_tilde.value(),
                        gamma: primes[b_len + 2],
                    };
                    return Self::new(degree, q, t, &aux);
                }
            }
        }
        Err(last_error.unwrap_or(RnsError::InvalidParameter {
            name: "number of q primes",
            value: q.len() as u64,
            reason: "no auxiliary base found",
        }))
    }

    fn check_multiplication_bounds(
        degree: usize,
        q: &RnsBase,
        b: &RnsBase,
        m_sk: Modulus,
        m_tilde: Modulus,
        t: PlainModulus,
    ) -> Result<()> {
        let k = q.len() as u64;
        let q_value = q.product();
        // |c'| < q (1/2 + k/m~) after S1: bound it by ceil(q (m~ + 2k) / (2 m~)).
        let m_tilde_big = BigUint::from(m_tilde.value());
        let c_max: BigUint = (q_value * (&m_tilde_big + 2 * k)).div_ceil(&(&m_tilde_big * 2u32));
        let tensor_max: BigUint = &c_max * &c_max * (2 * degree as u64);
        let full: BigUint = q_value * b.product() * m_sk.value();
        let twice_tensor: BigUint = &tensor_max * 2u32;
        if full <= twice_tensor {
            return Err(RnsError::BaseTooSmall {
                operation: "BEHZ multiplication: the tensor product must fit q u B_sk",
                required_bits: twice_tensor.bits() + 1,
                actual_bits: full.bits(),
            });
        }
        // Shenoy-Kumaresan is exact for |x| < lambda M with lambda = floor(m_sk / 2) - |B|.
        let max_lambda = (m_sk.value() / 2).saturating_sub(b.len() as u64);
        let floor_max: BigUint = (&tensor_max * t.value()) / q_value + k + 1u32;
        let exact_limit: BigUint = b.product() * max_lambda;
        if floor_max >= exact_limit {
            return Err(RnsError::BaseTooSmall {
                operation: "BEHZ multiplication: the floor result must convert exactly from B_sk to q",
                required_bits: floor_max.bits() + 1,
                actual_bits: exact_limit.bits(),
            });
        }
        Ok(())
    }

    /// The ring degree `N`.
    pub fn degree(&self) -> usize {
        self.degree
    }

    /// The plaintext modulus `t`.
    pub fn plain_modulus(&self) -> PlainModulus {
        self.t
    }

    /// The ciphertext base `q`.
    pub fn q(&self) -> &RnsBase {
        &self.q
    }

    /// The auxiliary base `B`.
    pub fn b(&self) -> &RnsBase {
        &self.b
    }

    /// `B_sk = B u {m_sk}` (limbs of `B`, then `m_sk`).
    pub fn bsk(&self) -> &RnsBase {
        &self.bsk
    }

    /// `q u B_sk`, the base of the tensor product (a ring context over these primes
    /// multiplies the extended ciphertexts).
    pub fn q_bsk(&self) -> Result<RnsBase> {
        self.q.union(&self.bsk)
    }

    /// `m_sk`.
    pub fn m_sk(&self) -> Modulus {
        self.m_sk
    }

    /// `m~`.
    pub fn m_tilde(&self) -> Modulus {
        self.m_tilde
    }

    /// `gamma`.
    pub fn gamma(&self) -> Modulus {
        self.gamma
    }

    /// The per-step tables, for kernels that take them as they are.
    pub fn tables(&self) -> BehzTables<'_> {
        BehzTables {
            dec_scale: &self.dec_scale,
            dec_scale_shoup: &self.dec_scale_shoup,
            dec_row_t: &self.dec_row_t,
            dec_row_t_shoup: &self.dec_row_t_shoup,
            dec_row_gamma: &self.dec_row_gamma,
            dec_row_gamma_shoup: &self.dec_row_gamma_shoup,
            gamma_inv_t: (self.gamma_inv_t, self.gamma_inv_t_shoup),
            mtilde_scale: &self.mtilde_scale,
            mtilde_scale_shoup: &self.mtilde_scale_shoup,
            neg_q_inv_mtilde: (self.neg_q_inv_mtilde, self.neg_q_inv_mtilde_shoup),
            q_mod_bsk: &self.q_mod_bsk,
            q_mod_bsk_shoup: &self.q_mod_bsk_shoup,
            mtilde_inv_bsk: &self.mtilde_inv_bsk,
            mtilde_inv_bsk_shoup: &self.mtilde_inv_bsk_shoup,
            t_scale: &self.t_scale,
            t_scale_shoup: &self.t_scale_shoup,
            t_q_inv_bsk: &self.t_q_inv_bsk,
            t_q_inv_bsk_shoup: &self.t_q_inv_bsk_shoup,
            q_inv_bsk: &self.q_inv_bsk,
            q_inv_bsk_shoup: &self.q_inv_bsk_shoup,
        }
    }

    /// The fast converter `q -> B_sk u {m~}` of S0 (the `m~` row last).
    pub fn q_to_bsk_mtilde(&self) -> &BaseConverter {
        &self.q_to_bsk_mtilde
    }

    /// The fast converter `q -> B_sk` of S3.
    pub fn q_to_bsk(&self) -> &BaseConverter {
        &self.q_to_bsk
    }

    /// The Shenoy-Kumaresan converter `B_sk -> q` (S4).
    pub fn shenoy_kumaresan(&self) -> &ShenoyKumaresan {
        &self.bsk_to_q
    }

    /// Decryption's scale-and-round (Algorithm 2 of GPU-FV): for each coefficient `x` of
    /// `input` (over `q`; in BFV, `x = [c_0 + c_1 s]_q`) writes to `output` (`N` values in
    /// `[0, t)`)
    ///
    /// `m = [(s_t - [s_gamma]_gamma) gamma^-1]_t`, with
    /// `s_j = FastBconv(|gamma t x|_q, q, j) |-q^-1|_j` for `j in {t, gamma}`.
    ///
    /// Writing `t x / q = r + f` with `r = floor(t x / q + 1/2)` and `f in [-1/2, 1/2)`, the
    /// output is `r mod t` whenever `f >= -1/2 + k/gamma`; otherwise it is `r` or `r - 1`
    /// (`r - 1` when the fast conversion's overflow `u < k` pushes `floor(gamma f) - u` out of
    /// the centered range of `gamma`). So BFV decryption is correct under the usual condition
    /// with `|f| < 1/2` tightened to `|f| < 1/2 - k/gamma`, a negligible change for a 62-bit
    /// `gamma`.
    ///
    /// Errors on wrong lengths or non-canonical residues; `output` is untouched then.
    pub fn decrypt_scale_round(&self, input: &[u64], output: &mut [u64]) -> Result<()> {
        let n = self.degree;
        self.q.check_poly(input, n, "BEHZ decryption input")?;
        check_len("BEHZ decryption output", n, output.len())?;
        let k = self.q.len();
        let t = &self.t;
        let gamma = &self.gamma;
        let half_gamma = gamma.value() / 2;
        let mut y = vec![0u64; k];
        for (index, out) in output.iter_mut().enumerate() {
            for (i, m) in self.q.moduli().iter().enumerate() {
                y[i] = m.mul_shoup(input[i * n + index], self.dec_scale[i], self.dec_scale_shoup[i]);
            }
            let mut acc_t = 0u128;
            let mut acc_gamma = 0u128;
            for (i, &yi) in y.iter().enumerate() {
                acc_t += t.mul_shoup_lazy(yi, self.dec_row_t[i], self.dec_row_t_shoup[i]) as u128;
                acc_gamma += gamma.mul_shoup_lazy(yi, self.dec_row_gamma[i], self.dec_row_gamma_shoup[i]) as u128;
            }
            let s_t = t.reduce_u128(acc_t);
            let s_gamma = gamma.reduce_u128(acc_gamma);
            // s_t - [s_gamma]_gamma (centered), then times gamma^-1 mod t.
            let difference = if s_gamma > half_gamma {
                t.add(s_t, t.reduce_u128((gamma.value() - s_gamma) as u128))
            } else {
                t.sub(s_t, t.reduce_u128(s_gamma as u128))
            };
            *out = t.reduce_u128(t.mul_shoup_lazy(difference, self.gamma_inv_t, self.gamma_inv_t_shoup) as u128);
        }
        Ok(())
    }

    /// Steps S0 and S1 of Algorithm 3: extends each coefficient `x` of `input` (over `q`, the
    /// integer in `[0, q)`) to `B_sk`, writing `output` (`(|B| + 1) N` values, limbs of `B`
    /// then `m_sk`).
    ///
    /// S0 computes `c'' = FastBconv(|m~ x|_q, q, B_sk u {m~})`; S1 (small Montgomery
    /// reduction) computes `r = [-c''_{m~} q^-1]_{m~}` (centered) and `c' = (c'' + q r) m~^-1`
    /// in `B_sk`. The result is an integer `c' = x mod q` with `-q/2 < c' < q/2 + k q / m~`:
    /// the fast conversion's overflow is gone. Together with the unchanged limbs of `q`,
    /// `input || output` is `c'` over `q u B_sk`.
    ///
    /// Errors on wrong lengths or non-canonical residues; `output` is untouched then.
    pub fn extend_to_bsk(&self, input: &[u64], output: &mut [u64]) -> Result<()> {
        let n = self.degree;
        self.q.check_poly(input, n, "BEHZ extension input")?;
        check_len("BEHZ extension output", self.bsk.len() * n, output.len())?;
        let k = self.q.len();
        let tilde_row = self.bsk.len();
        let conv = &self.q_to_bsk_mtilde;
        let mut y = vec![0u64; k];
        for index in 0..n {
            conv.scaled_residues(input, n, index, &self.mtilde_scale, &self.mtilde_scale_shoup, &mut y);
            let correction = self.montgomery_correction(conv.dot_row(tilde_row, &y, &self.m_tilde));
            for (j, m) in self.bsk.moduli().iter().enumerate() {
                output[j * n + index] = self.montgomery_limb(j, m, conv.dot_row(j, &y, m), correction);
            }
        }
        Ok(())
    }

    /// Step S0 alone: `c'' = FastBconv(|m~ x|_q, q, B_sk u {m~})` for each coefficient of
    /// `input` (over `q`), written to `output` over `B_sk u {m~}` (limbs of `B`, `m_sk`, then
    /// `m~`). [`extend_to_bsk`](Self::extend_to_bsk) fuses it with S1.
    ///
    /// Errors on wrong lengths or non-canonical residues; `output` is untouched then.
    pub fn fast_convert_to_bsk_mtilde(&self, input: &[u64], output: &mut [u64]) -> Result<()> {
        let n = self.degree;
        self.q.check_poly(input, n, "BEHZ S0 input")?;
        check_len("BEHZ S0 output", (self.bsk.len() + 1) * n, output.len())?;
        self.q_to_bsk_mtilde.fast_convert_scaled(input, n, &self.mtilde_scale, &self.mtilde_scale_shoup, output);
        Ok(())
    }

    /// Step S1 alone, the small Montgomery reduction by `m~`: for each coefficient `c''` of
    /// `input` (over `B_sk u {m~}`, `m~` last) writes `c' = (c'' + q r) / m~` over `B_sk`,
    /// with `r = [-c'' q^-1]_{m~}` (centered) so that `m~` divides `c'' + q r`.
    ///
    /// Errors on wrong lengths or non-canonical residues; `output` is untouched then.
    pub fn small_montgomery_reduce(&self, input: &[u64], output: &mut [u64]) -> Result<()> {
        let n = self.degree;
        let l = self.bsk.len();
        check_len("BEHZ S1 input", (l + 1) * n, input.len())?;
        self.bsk.check_poly(&input[..l * n], n, "BEHZ S1 input")?;
        let m_tilde = self.m_tilde.value();
        if let Some(index) = input[l * n..].iter().position(|&v| v >= m_tilde) {
            return Err(RnsError::CoefficientOutOfRange {
                what: "BEHZ S1 input",
                limb: l,
                index,
                value: input[l * n + index],
                modulus: m_tilde,
            });
        }
        check_len("BEHZ S1 output", l * n, output.len())?;
        for index in 0..n {
            let correction = self.montgomery_correction(input[l * n + index]);
            for (j, m) in self.bsk.moduli().iter().enumerate() {
                output[j * n + index] = self.montgomery_limb(j, m, input[j * n + index], correction);
            }
        }
        Ok(())
    }

    /// `r = [-c_{m~} q^-1]_{m~}` as (is negative, magnitude).
    #[inline]
    fn montgomery_correction(&self, c_tilde: u64) -> (bool, u64) {
        let m_tilde = &self.m_tilde;
        let r = m_tilde.mul_shoup(c_tilde, self.neg_q_inv_mtilde, self.neg_q_inv_mtilde_shoup);
        if r > m_tilde.value() / 2 { (true, m_tilde.value() - r) } else { (false, r) }
    }

    /// `(c + q r) m~^-1 mod m` for limb `j` of `B_sk`.
    #[inline]
    fn montgomery_limb(&self, j: usize, m: &Modulus, c: u64, (negative, magnitude): (bool, u64)) -> u64 {
        let q_r = m.mul_shoup(magnitude, self.q_mod_bsk[j], self.q_mod_bsk_shoup[j]);
        let sum = if negative { m.sub(c, q_r) } else { m.add(c, q_r) };
        m.mul_shoup(sum, self.mtilde_inv_bsk[j], self.mtilde_inv_bsk_shoup[j])
    }

    /// Step S3 of Algorithm 3 (the fast floor, with the multiplication by `t`): for each
    /// coefficient `x` of `input` (over `q u B_sk`, limbs of `q` first) writes to `output`
    /// (over `B_sk`)
    ///
    /// `(t x_m - FastBconv(|t x|_q, q, m)) q^-1 mod m = floor(t x / q) - u`,
    ///
    /// with `u in [0, k - 1]` the fast conversion's overflow. `x` is any integer with these
    /// residues (all give the same result modulo `B_sk`).
    ///
    /// Errors on wrong lengths or non-canonical residues; `output` is untouched then.
    pub fn fast_floor(&self, input: &[u64], output: &mut [u64]) -> Result<()> {
        let n = self.degree;
        let k = self.q.len();
        check_len("BEHZ floor input", (k + self.bsk.len()) * n, input.len())?;
        self.q.check_poly(&input[..k * n], n, "BEHZ floor input (q limbs)")?;
        self.bsk.check_poly(&input[k * n..], n, "BEHZ floor input (B_sk limbs)")?;
        check_len("BEHZ floor output", self.bsk.len() * n, output.len())?;
        let mut y = vec![0u64; k];
        let conv = &self.q_to_bsk;
        for index in 0..n {
            conv.scaled_residues(input, n, index, &self.t_scale, &self.t_scale_shoup, &mut y);
            for (j, m) in self.bsk.moduli().iter().enumerate() {
                let fast = conv.dot_row(j, &y, m);
                let x = input[(k + j) * n + index];
                let scaled_x = m.mul_shoup(x, self.t_q_inv_bsk[j], self.t_q_inv_bsk_shoup[j]);
                let scaled_fast = m.mul_shoup(fast, self.q_inv_bsk[j], self.q_inv_bsk_shoup[j]);
                output[j * n + index] = m.sub(scaled_x, scaled_fast);
            }
        }
        Ok(())
    }

    /// Step S4 of Algorithm 3: the Shenoy-Kumaresan conversion of `input` (over `B_sk`) to
    /// `q`, exact for every integer in [`ShenoyKumaresan::exact_range`] (the constructor
    /// checked that the fast floor's results are in it).
    pub fn bsk_to_q(&self, input: &[u64], output: &mut [u64]) -> Result<()> {
        let n = self.degree;
        check_len("BEHZ Shenoy-Kumaresan input", self.bsk.len() * n, input.len())?;
        check_len("BEHZ Shenoy-Kumaresan output", self.q.len() * n, output.len())?;
        self.bsk_to_q.convert(input, output)
    }
}

/// `f(q_i) q~_i mod q_i` with Shoup companions.
fn scaled_inverses(q: &RnsBase, factor: impl Fn(&Modulus) -> u64) -> (Vec<u64>, Vec<u64>) {
    q.moduli()
        .iter()
        .zip(q.punctured_inverses())
        .map(|(m, &inverse)| {
            let w = m.mul(factor(m), inverse);
            (w, m.shoup(w))
        })
        .unzip()
}
