//! Recrypt: the squashed decryption circuit evaluated homomorphically (Gentry and Halevi,
//! "Implementing Gentry's fully-homomorphic encryption scheme", EUROCRYPT 2011, sections 6
//! and 7; the GPU organisation of Wang, Hu, Chen, Huang and Sunar, "Accelerating fully
//! homomorphic encryption using GPU", HPEC 2012).
//!
//! **Squashing.** The secret `w` (the odd coefficient `w_i` of [`crate::SecretKey`]) is split as
//! `w = sum_{k < s} x_k R^{l_k} mod d`: the public key carries `s` random `x_k` (the last one
//! solved for), a small odd prime `R` prime to `d`, and for each block `k` the encrypted
//! indicator of `l_k` in `0 .. S`, in the two-hot encoding: `m` bits `eta_{k,0 .. m-1}` with
//! `C(m, 2) >= S`, exactly two set, `eta_a = eta_b = 1` for the `l_k`-th pair `a < b` (pairs in
//! lexicographic order), so that `sigma_{k,l} = eta_a eta_b`.
//!
//! **Decryption, squashed.** With `z_k = c x_k R^{l_k} mod d` (in `[0, d)`),
//! `sum_k z_k = c w mod d`, and `[c w]_d = sum_k z_k - d N` with `N = round(sum_k z_k / d)`, so
//! the bit is `parity(sum_k z_k) xor (d odd and N odd)`. `N` is rounded from the roundings
//! `f_k = round(2^p z_k / d)` in `[0, 2^p]` (`p` fraction bits and a units bit, set only for
//! `f_k = 2^p`): their sum differs from the true one by at most `s 2^-(p+1) <= 1/2 - 2^-(p+1)`
//! (`p = bits(s)`, Gentry and Halevi's `ceil(log2(s + 1))`), and the true sum is within
//! `|[c w]_d| / d` of `N`; so `N = floor(sum_k f_k 2^-p + 1/2)` while the noise `|[c w]_d|` is
//! below `d 2^-(p+1)`.
//!
//! **Recrypt.** For every block `k` and every `l < S` the factor `y_{k,l} = c x_k R^l mod d`
//! is computed in the clear (one product `c x_k`, then products by the small `R`), with its
//! low bit and its rounding `round(2^p y / d)` (`p + 1` bits). Each bit of `z_k` is then
//! `sum_l sigma_{k,l} bit(y_{k,l}) = sum_a eta_a (sum_{b > a, bit(y_{k,(a,b)}) = 1} eta_b)`,
//! one homomorphic product per `a` (all of them independent: one batch). The `s` numbers
//! `f_k 2^-p` and the constant `1/2` are added by the grade-school method, column by column from
//! the lowest: bit `j` of a column's Hamming weight is its elementary symmetric polynomial
//! `e_{2^j}` modulo 2 and goes to the column `j` places up; of the units column only the parity
//! (a sum) is needed. The result, `sum_k lsb(z_k) + [d odd] N`, is a fresh-ish encryption of
//! the bit whose noise depends only on the circuit, not on the input's.
//!
//! The circuit is written once over [`Evaluator`]: the CPU's ciphertexts ([`PublicKey`]), the
//! GPU's ([`crate::gpu::GpuGh`]), and in tests plain bits and polynomial degrees.

use bigint::BigNat;
use num_bigint::{BigUint, RandBigInt};
use num_traits::{ToPrimitive, Zero};
use rand::Rng;

use crate::error::{GhError, Result};
use crate::params::GhParams;
use crate::scheme::{Ciphertext, PublicKey, SecretKey};

/// The squashing parameters: `s` blocks (the sparse subset's size), `S` values per block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RecryptParams {
    s: usize,
    big_s: usize,
    m: usize,
    precision: u32,
    one_hot: bool,
}

impl RecryptParams {
    /// `s` in `2 ..= 64`, `S` in `2 ..= 4096`.
    pub fn new(s: usize, big_s: usize) -> Result<Self> {
        if !(2..=64).contains(&s) {
            return Err(GhError::BadParameters { reason: format!("s = {s} is outside 2 ..= 64") });
        }
        if !(2..=4096).contains(&big_s) {
            return Err(GhError::BadParameters { reason: format!("S = {big_s} is outside 2 ..= 4096") });
        }
        let mut m = 2;
        while m * (m - 1) / 2 < big_s {
            m += 1;
        }
        let precision = usize::BITS - s.leading_zeros();
        Ok(Self { s, big_s, m, precision, one_hot: false })
    }

    /// These parameters with the one-hot encoding: `m = S` encrypted bits per block, one set,
    /// `sigma_{k,l} = eta_{k,l}` (degree 1, no products in the selection; the circuit's
    /// degree halves, the key is `S / m` times larger).
    pub fn one_hot(self) -> Self {
        Self { m: self.big_s, one_hot: true, ..self }
    }

    /// Whether the encoding is one-hot (else two-hot).
    pub fn is_one_hot(&self) -> bool {
        self.one_hot
    }

    /// Gentry and Halevi's choice for [`GhParams::small`] and larger: `s = 15`, `S = 512`
    /// (`m = 33`, `p = 4`; the circuit has degree 30 in the indicator bits); below (CI)
    /// `s = 4`, `S = 16` (`m = 7`, `p = 3`, degree 14).
    pub fn for_setting(params: &GhParams) -> Self {
        if params.n() >= 2048 {
            Self { s: 15, big_s: 512, m: 33, precision: 4, one_hot: false }
        } else {
            Self { s: 4, big_s: 16, m: 7, precision: 3, one_hot: false }
        }
    }

    /// Bits kept of each factor: the low bit, `p` fraction bits, the units bit of the rounding.
    pub fn factor_bits(&self) -> usize {
        self.precision as usize + 2
    }

    /// Blocks `s`.
    pub fn s(&self) -> usize {
        self.s
    }

    /// Values per block `S`.
    pub fn big_s(&self) -> usize {
        self.big_s
    }

    /// Bits `m` of the two-hot encoding of a position.
    pub fn m(&self) -> usize {
        self.m
    }

    /// Fraction bits `p` of the rounding of each `z_k / d`.
    pub fn precision(&self) -> u32 {
        self.precision
    }

    /// The pair `(a, b)`, `a < b`, of position `l` (lexicographic order) in the two-hot
    /// encoding.
    pub fn pair(&self, l: usize) -> (usize, usize) {
        let mut rest = l;
        for a in 0..self.m {
            let row = self.m - 1 - a;
            if rest < row {
                return (a, a + 1 + rest);
            }
            rest -= row;
        }
        (self.m, self.m)
    }
}

/// The public part of the squashed key: `R`, the `x_k` and the encrypted two-hot indicators.
#[derive(Debug, Clone)]
pub struct RecryptKey {
    key: u64,
    params: RecryptParams,
    radix: u32,
    x: Vec<BigUint>,
    eta: Vec<Vec<Ciphertext>>,
}

impl RecryptKey {
    /// The id of the key pair.
    pub fn key_id(&self) -> u64 {
        self.key
    }

    /// The squashing parameters.
    pub fn params(&self) -> &RecryptParams {
        &self.params
    }

    /// `R`.
    pub fn radix(&self) -> u32 {
        self.radix
    }

    /// The `x_k`.
    pub fn x(&self) -> &[BigUint] {
        &self.x
    }

    /// The encrypted indicator bits, `s` rows of `m`.
    pub fn eta(&self) -> &[Vec<Ciphertext>] {
        &self.eta
    }
}

/// Generates the squashed key of `(pk, sk)` with fresh randomness (the indicator bits
/// encrypted by [`PublicKey::encrypt`]). Errors: a secret key of another pair, a `d` with no
/// small prime `R` prime to it.
pub fn recrypt_keygen<G: Rng>(
    pk: &PublicKey,
    sk: &SecretKey,
    params: RecryptParams,
    rng: &mut G,
) -> Result<RecryptKey> {
    recrypt_keygen_with(pk, sk, params, rng, |bit, rng| pk.encrypt(bit, rng))
}

/// [`recrypt_keygen`] with the `s m` indicator bits encrypted by `encrypt` (for instance on
/// the GPU, whose Encrypt is the CPU's bit for bit; it must return ciphertexts of `pk`).
pub fn recrypt_keygen_with<G: Rng>(
    pk: &PublicKey,
    sk: &SecretKey,
    params: RecryptParams,
    rng: &mut G,
    encrypt: impl FnMut(u8, &mut G) -> Result<Ciphertext>,
) -> Result<RecryptKey> {
    let positions: Vec<usize> = (0..params.s).map(|_| rng.gen_range(0..params.big_s)).collect();
    recrypt_keygen_at(pk, sk, params, &positions, rng, encrypt)
}

/// [`recrypt_keygen_with`] with the secret positions `l_k` given (tests).
pub(crate) fn recrypt_keygen_at<G: Rng>(
    pk: &PublicKey,
    sk: &SecretKey,
    params: RecryptParams,
    positions: &[usize],
    rng: &mut G,
    mut encrypt: impl FnMut(u8, &mut G) -> Result<Ciphertext>,
) -> Result<RecryptKey> {
    if sk.id() != pk.id() {
        return Err(GhError::WrongKey { what: "secret key", found: sk.id(), expected: pk.id() });
    }
    if positions.len() != params.s || positions.iter().any(|&l| l >= params.big_s) {
        return Err(GhError::BadParameters { reason: format!("{} positions below S needed", params.s) });
    }
    let d = BigUint::from(pk.modulus().modulus());
    let radix =
        [3u32, 5, 7, 11, 13, 17, 19, 23, 29, 31].into_iter().find(|&r| !(&d % r).is_zero()).ok_or_else(|| {
            GhError::KeyGeneration { attempts: 1, reason: "d is divisible by every prime R <= 31".to_string() }
        })?;
    let w = BigUint::from(sk.w());
    let mut x = Vec::with_capacity(params.s);
    let mut sum = BigUint::zero();
    // R^l has at most S log2(R) bits: products by it reduce with a short quotient.
    for &l in &positions[..params.s - 1] {
        let xk = rng.gen_biguint_below(&d);
        sum = (sum + &xk * BigUint::from(radix).pow(l as u32) % &d) % &d;
        x.push(xk);
    }
    let last = positions[params.s - 1];
    let rest = BigNat::from(&((&w + &d - sum) % &d));
    let inv = BigNat::from(&small_inverse(&BigUint::from(radix).pow(last as u32), &d)?);
    x.push(BigUint::from(&pk.modulus().mul_mod(&rest, &inv)?));
    let mut eta = Vec::with_capacity(params.s);
    for &l in positions {
        let (a, b) = if params.one_hot { (l, l) } else { params.pair(l) };
        let mut row = Vec::with_capacity(params.m);
        for i in 0..params.m {
            let ct = encrypt(u8::from(i == a || i == b), rng)?;
            pk.check("indicator ciphertext", &ct)?;
            row.push(ct);
        }
        eta.push(row);
    }
    Ok(RecryptKey { key: pk.id(), params, radix, x, eta })
}

/// `q^-1 mod d` for a `q` much shorter than `d` and prime to it: `(j d + 1) / q` with
/// `j = -d^-1 mod q` (an inverse modulo the short `q`).
fn small_inverse(q: &BigUint, d: &BigUint) -> Result<BigUint> {
    let not_prime = || GhError::BadParameters { reason: "R is not prime to d".to_string() };
    if q == &BigUint::from(1u32) {
        return Ok(BigUint::from(1u32) % d);
    }
    let d_inv = crate::keygen::inverse(&(d % q), q).ok_or_else(not_prime)?;
    let j = (q - d_inv) % q;
    Ok((d * j + 1u32) / q)
}

/// What the circuit needs of the ciphertext, in the clear: for each block `k` and position `l`,
/// the low bit and the rounding `round(2^p y / d)` of `y_{k,l} = c x_k R^l mod d`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Factors {
    /// `s` rows of `S` values: bit 0 the low bit of `y`, bits `1 ..= p + 1` `round(2^p y / d)`.
    pub bits: Vec<Vec<u32>>,
}

/// The factors of ciphertext value `c` (below `d`) under `key` (CPU): the starts `c x_k mod d`
/// by Barrett products, then [`factors_from_starts`].
pub fn factors(pk: &PublicKey, key: &RecryptKey, c: &BigNat) -> Result<Factors> {
    let starts = key
        .x
        .iter()
        .map(|xk| pk.modulus().mul_mod(c, &BigNat::from(xk)))
        .collect::<core::result::Result<Vec<_>, _>>()?;
    factors_from_starts(pk, key, &starts)
}

/// The factors from the starts `y_{k,0} = c x_k mod d` (one per block, below `d`): the steps
/// `y <- y R mod d` (a product by the small `R` and at most `R - 1` subtractions) and the
/// rounding `floor((2^(p+1) y + d) / 2d)` (a division with a quotient below `2^(p+1)`), the
/// blocks on scoped threads, as many at a time as the machine has cores.
pub fn factors_from_starts(pk: &PublicKey, key: &RecryptKey, starts: &[BigNat]) -> Result<Factors> {
    let d = BigUint::from(pk.modulus().modulus());
    if starts.len() != key.params.s || starts.iter().any(|y| y >= pk.modulus().modulus()) {
        return Err(GhError::BadParameters { reason: format!("{} starts below d needed", key.params.s) });
    }
    let (p, big_s, radix) = (key.params.precision, key.params.big_s, key.radix);
    let rounding = Rounding::new(&d, p);
    let block = |start: &BigNat| -> Vec<u32> {
        let mut y = BigUint::from(start);
        let mut row = Vec::with_capacity(big_s);
        for _ in 0..big_s {
            let fraction = rounding.round(&y);
            row.push(u32::from(y.bit(0)) | (fraction << 1));
            y *= radix;
            // y R < R d: a small quotient, by subtraction.
            while y >= d {
                y -= &d;
            }
        }
        row
    };
    let threads = std::thread::available_parallelism().map(usize::from).unwrap_or(1).max(1);
    let mut bits = Vec::with_capacity(key.params.s);
    for chunk in starts.chunks(threads) {
        let rows: Vec<Option<Vec<u32>>> = std::thread::scope(|scope| {
            let handles: Vec<_> = chunk.iter().map(|start| scope.spawn(|| block(start))).collect();
            handles.into_iter().map(|h| h.join().ok()).collect()
        });
        for row in rows {
            bits.push(row.ok_or_else(|| GhError::BadParameters { reason: "a factor thread failed".to_string() })?);
        }
    }
    Ok(Factors { bits })
}

/// `round(2^p y / d) = floor((2^(p+1) y + d) / 2d)` for `y < d`, from the leading 120 bits of
/// `y` and `d` when they decide it, else by a division.
struct Rounding {
    d: BigUint,
    twice_d: BigUint,
    p: u32,
    /// Bits dropped from `y` and `d`, and `d`'s leading bits.
    shift: u64,
    d_top: u128,
}

impl Rounding {
    fn new(d: &BigUint, p: u32) -> Self {
        let shift = d.bits().saturating_sub(120);
        let d_top = (d >> shift).to_u128().unwrap_or(0);
        Self { d: d.clone(), twice_d: d << 1u32, p, shift, d_top }
    }

    /// With `A = 2^(p+1) y + d = 2^h A' + a`, `B = 2d = 2^h B' + b` (`h` the shift, `A'`, `B'`
    /// from the leading bits, `0 <= a < 2^h (2^(p+1) + 1)`, `0 <= b < 2^(h+1)`) and
    /// `A' = q B' + r`: `A - q B = 2^h r + a - q b` lies in `[0, B)` when
    /// `2^(p+1) <= r` and `r + 2^(p+1) + 1 <= B'` (as `q <= 2^p`); then `q` is exact.
    fn round(&self, y: &BigUint) -> u32 {
        if self.d_top >= 1 << 100 {
            let y_top = (y >> self.shift).to_u128().unwrap_or(u128::MAX);
            let a = (y_top << (self.p + 1)) + self.d_top;
            let b = 2 * self.d_top;
            let (q, r) = (a / b, a % b);
            let margin = 1u128 << (self.p + 2);
            if r >= margin && r + margin <= b {
                return u32::try_from(q).unwrap_or(u32::MAX);
            }
        }
        (((y << (self.p + 1)) + &self.d) / &self.twice_d).to_u32().unwrap_or(0)
    }
}

/// Homomorphic bit operations the circuit is written over.
pub trait Evaluator {
    /// An encrypted (or plain) bit.
    type Bit;
    /// XOR.
    fn add(&self, a: &Self::Bit, b: &Self::Bit) -> Result<Self::Bit>;
    /// AND of each pair, independent products (a batch).
    fn mul_many(&self, pairs: &[(&Self::Bit, &Self::Bit)]) -> Result<Vec<Self::Bit>>;
    /// The noiseless encryption of a constant bit.
    fn constant(&self, bit: u8) -> Result<Self::Bit>;
}

/// Sums a list; `None` when empty (a single item is added to the constant 0: an owned copy).
fn sum<E: Evaluator>(e: &E, items: &[&E::Bit]) -> Result<Option<E::Bit>> {
    let mut acc = match items {
        [] => return Ok(None),
        [only] => return Ok(Some(e.add(only, &e.constant(0)?)?)),
        [a, b, ..] => e.add(a, b)?,
    };
    for item in &items[2..] {
        acc = e.add(&acc, item)?;
    }
    Ok(Some(acc))
}

/// The squashed decryption circuit over `e`: `eta` the `s x m` encrypted indicator bits,
/// `factors` the ciphertext's clear factors, `d_odd` whether `d` is odd.
/// [`selected_bits`], then [`add_up`].
pub fn evaluate<E: Evaluator>(
    e: &E,
    params: &RecryptParams,
    eta: &[Vec<E::Bit>],
    factors: &Factors,
    d_odd: bool,
) -> Result<E::Bit> {
    let bits = selected_bits(e, params, eta, factors)?;
    add_up(e, params, bits, d_odd)
}

fn check_factors(params: &RecryptParams, factors: &Factors) -> Result<()> {
    if factors.bits.len() != params.s || factors.bits.iter().any(|row| row.len() != params.big_s) {
        return Err(GhError::BadParameters { reason: "factors of another shape".to_string() });
    }
    Ok(())
}

/// Which positions `l` have bit `q` of their factor set (`q = 0` the low bit, `q = 1 ..= p`
/// the fraction bits of weight `2^-q`, `q = p + 1` the units bit), for one block.
pub fn positions_with_bit(params: &RecryptParams, row: &[u32], q: usize) -> Vec<usize> {
    let p = params.precision as usize;
    let shift = match q {
        0 => 0,
        q if q <= p => p + 1 - q,
        _ => p + 1,
    };
    (0..row.len().min(params.big_s)).filter(|&l| (row[l] >> shift) & 1 == 1).collect()
}

/// The encrypted bits of each `z_k`: `s` rows of `p + 2` (`None` for a known zero), bit `q`
/// as in [`positions_with_bit`]; each `sum_a eta_a (sum_{b > a, bit set} eta_b)`, the products
/// of all blocks in one batch.
pub fn selected_bits<E: Evaluator>(
    e: &E,
    params: &RecryptParams,
    eta: &[Vec<E::Bit>],
    factors: &Factors,
) -> Result<Vec<Vec<Option<E::Bit>>>> {
    let (s, m) = (params.s, params.m);
    if eta.len() != s || eta.iter().any(|row| row.len() != m) {
        return Err(GhError::BadParameters { reason: "an indicator of another shape".to_string() });
    }
    check_factors(params, factors)?;
    if params.one_hot {
        return factors
            .bits
            .iter()
            .zip(eta)
            .map(|(row, eta_k)| {
                (0..params.factor_bits())
                    .map(|q| {
                        let chosen: Vec<&E::Bit> =
                            positions_with_bit(params, row, q).into_iter().map(|l| &eta_k[l]).collect();
                        sum(e, &chosen)
                    })
                    .collect()
            })
            .collect();
    }
    let mut inner: Vec<(usize, usize, usize, E::Bit)> = Vec::new();
    for (k, row) in factors.bits.iter().enumerate() {
        for q in 0..params.factor_bits() {
            let mut by_a: Vec<Vec<&E::Bit>> = vec![Vec::new(); m];
            for l in positions_with_bit(params, row, q) {
                let (a, b) = params.pair(l);
                by_a[a].push(&eta[k][b]);
            }
            for (a, chosen) in by_a.iter().enumerate() {
                if let Some(x) = sum(e, chosen)? {
                    inner.push((k, q, a, x));
                }
            }
        }
    }
    let pairs: Vec<(&E::Bit, &E::Bit)> = inner.iter().map(|(k, _, a, x)| (&eta[*k][*a], x)).collect();
    let products = if pairs.is_empty() { Vec::new() } else { e.mul_many(&pairs)? };
    let mut grouped: Vec<Vec<Vec<&E::Bit>>> = vec![vec![Vec::new(); params.factor_bits()]; s];
    for ((k, q, _, _), x) in inner.iter().zip(&products) {
        grouped[*k][*q].push(x);
    }
    grouped.iter().map(|block| block.iter().map(|items| sum(e, items)).collect()).collect()
}

/// The grade-school addition: from the encrypted bits of the `z_k` (as [`selected_bits`]),
/// `sum_k lsb(z_k) + [d odd] N`, `N = floor(sum_k f_k 2^-p + 1/2)`: only the parity of `N`
/// is needed, so of the units column only the sum.
pub fn add_up<E: Evaluator>(
    e: &E,
    params: &RecryptParams,
    bits: Vec<Vec<Option<E::Bit>>>,
    d_odd: bool,
) -> Result<E::Bit> {
    let p = params.precision as usize;
    if bits.len() != params.s || bits.iter().any(|row| row.len() != params.factor_bits()) {
        return Err(GhError::BadParameters { reason: "bits of another shape".to_string() });
    }
    let mut low: Vec<E::Bit> = Vec::new();
    // columns[i]: bits of weight 2^-(p - i) for i < p, 2^0 at i = p.
    let mut columns: Vec<Vec<E::Bit>> = (0..=p).map(|_| Vec::new()).collect();
    for block in bits {
        for (q, x) in block.into_iter().enumerate() {
            if let Some(x) = x {
                // Bit q of f_k 2^-p has weight 2^-q (q <= p) or 1 (q = p + 1): column p - q or p.
                match q {
                    0 => low.push(x),
                    q if q <= p => columns[p - q].push(x),
                    _ => columns[p].push(x),
                }
            }
        }
    }
    // + 1/2.
    columns[p - 1].push(e.constant(1)?);
    for i in 0..p {
        let column = std::mem::take(&mut columns[i]);
        // Bits j of the Hamming weight with i + j <= p.
        let max_j = p - i;
        let mut top = 1usize;
        while top * 2 <= column.len() && (top * 2).trailing_zeros() as usize <= max_j {
            top *= 2;
        }
        let symmetric = elementary_symmetric(e, &column, top)?;
        for (j, x) in symmetric.into_iter().enumerate() {
            if let Some(x) = x {
                columns[i + j].push(x);
            }
        }
    }
    let units: Vec<&E::Bit> = columns[p].iter().collect();
    let n_odd = sum(e, &units)?;
    let mut result: Vec<&E::Bit> = low.iter().collect();
    if d_odd && let Some(n) = &n_odd {
        result.push(n);
    }
    match sum(e, &result)? {
        Some(x) => Ok(x),
        None => e.constant(0),
    }
}

/// `e_1, e_2, e_4, .., e_top` of `xs` (entry `j` is `e_{2^j}`; `None` where it is zero).
fn elementary_symmetric<E: Evaluator>(e: &E, xs: &[E::Bit], top: usize) -> Result<Vec<Option<E::Bit>>> {
    // table[k] = e_k of the prefix, k = 1 ..= top.
    let mut table: Vec<Option<E::Bit>> = (0..=top).map(|_| None).collect();
    for x in xs {
        let ks: Vec<usize> = (2..=top).rev().filter(|&k| table[k - 1].is_some()).collect();
        let pairs: Vec<(&E::Bit, &E::Bit)> =
            ks.iter().filter_map(|&k| table[k - 1].as_ref().map(|prev| (x, prev))).collect();
        let products = if pairs.is_empty() { Vec::new() } else { e.mul_many(&pairs)? };
        for (&k, product) in ks.iter().zip(products) {
            table[k] = Some(match table[k].take() {
                Some(old) => e.add(&old, &product)?,
                None => product,
            });
        }
        table[1] = Some(match table[1].take() {
            Some(old) => e.add(&old, x)?,
            None => sum(e, &[x])?.ok_or_else(|| GhError::BadParameters { reason: "empty sum".to_string() })?,
        });
    }
    let mut out = Vec::new();
    let mut k = 1;
    while k <= top {
        out.push(table[k].take());
        k *= 2;
    }
    Ok(out)
}

impl Evaluator for PublicKey {
    type Bit = Ciphertext;

    fn add(&self, a: &Ciphertext, b: &Ciphertext) -> Result<Ciphertext> {
        PublicKey::add(self, a, b)
    }

    fn mul_many(&self, pairs: &[(&Ciphertext, &Ciphertext)]) -> Result<Vec<Ciphertext>> {
        pairs.iter().map(|(a, b)| self.mul(a, b)).collect()
    }

    fn constant(&self, bit: u8) -> Result<Ciphertext> {
        if bit > 1 {
            return Err(GhError::NotABit { value: bit });
        }
        self.ciphertext(BigNat::from_u64(u64::from(bit)))
    }
}

impl PublicKey {
    fn check_recrypt_key(&self, key: &RecryptKey) -> Result<()> {
        if key.key != self.id() {
            return Err(GhError::WrongKey { what: "recrypt key", found: key.key, expected: self.id() });
        }
        Ok(())
    }

    /// Recrypt (CPU): a ciphertext of the same bit as `ct` with the noise of the decryption
    /// circuit. Errors: a ciphertext or recrypt key of another key pair.
    pub fn recrypt(&self, key: &RecryptKey, ct: &Ciphertext) -> Result<Ciphertext> {
        self.check("ciphertext", ct)?;
        self.check_recrypt_key(key)?;
        let factors = factors(self, key, ct.value())?;
        evaluate(self, &key.params, &key.eta, &factors, self.modulus().modulus().bit(0))
    }

    /// The factors of `ct` for `key` (checked as [`PublicKey::recrypt`]).
    pub fn recrypt_factors(&self, key: &RecryptKey, ct: &Ciphertext) -> Result<Factors> {
        self.check("ciphertext", ct)?;
        self.check_recrypt_key(key)?;
        factors(self, key, ct.value())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keygen;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// Plain bits.
    struct Plain;
    impl Evaluator for Plain {
        type Bit = u8;
        fn add(&self, a: &u8, b: &u8) -> Result<u8> {
            Ok(a ^ b)
        }
        fn mul_many(&self, pairs: &[(&u8, &u8)]) -> Result<Vec<u8>> {
            Ok(pairs.iter().map(|(a, b)| *a & *b).collect())
        }
        fn constant(&self, bit: u8) -> Result<u8> {
            Ok(bit)
        }
    }

    /// Polynomial degrees (0 for constants).
    struct Degree;
    impl Evaluator for Degree {
        type Bit = u32;
        fn add(&self, a: &u32, b: &u32) -> Result<u32> {
            Ok(*a.max(b))
        }
        fn mul_many(&self, pairs: &[(&u32, &u32)]) -> Result<Vec<u32>> {
            Ok(pairs.iter().map(|(a, b)| *a + *b).collect())
        }
        fn constant(&self, _: u8) -> Result<u32> {
            Ok(0)
        }
    }

    /// Counts products and additions.
    #[derive(Default)]
    struct Count {
        products: std::cell::Cell<usize>,
        batches: std::cell::Cell<usize>,
        additions: std::cell::Cell<usize>,
    }
    impl Evaluator for Count {
        type Bit = ();
        fn add(&self, _: &(), _: &()) -> Result<()> {
            self.additions.set(self.additions.get() + 1);
            Ok(())
        }
        fn mul_many(&self, pairs: &[(&(), &())]) -> Result<Vec<()>> {
            self.products.set(self.products.get() + pairs.len());
            self.batches.set(self.batches.get() + 1);
            Ok(vec![(); pairs.len()])
        }
        fn constant(&self, _: u8) -> Result<()> {
            Ok(())
        }
    }

    /// The grade-school addition's cost with every bit present (the small setting's shape).
    #[test]
    fn grade_school_cost_of_the_small_setting() {
        let rp = RecryptParams::for_setting(&GhParams::small());
        let count = Count::default();
        let bits = vec![vec![Some(()); rp.factor_bits()]; rp.s()];
        add_up(&count, &rp, bits, true).unwrap();
        eprintln!(
            "s = 15, p = 4: {} products in {} batches, {} additions",
            count.products.get(),
            count.batches.get(),
            count.additions.get()
        );
        assert!(count.products.get() > 100 && count.products.get() < 2000);
        let degree = add_up(&Degree, &rp, vec![vec![Some(2u32); 6]; 15], true).unwrap();
        eprintln!("degree {degree}");
        assert_eq!(degree, 2 * 15);
    }

    #[test]
    fn leading_bit_rounding_equals_division() {
        let mut rng = ChaCha8Rng::seed_from_u64(41);
        for bits in [64u64, 119, 121, 200, 5000] {
            let d = rng.gen_biguint(bits) | (BigUint::from(1u32) << (bits - 1)) | BigUint::from(1u32);
            for p in [3u32, 4, 6] {
                let rounding = Rounding::new(&d, p);
                let exact = |y: &BigUint| ((y << (p + 1)) + &d) / (&d << 1u32);
                let mut cases: Vec<BigUint> = (0..300).map(|_| rng.gen_biguint_below(&d)).collect();
                // Near the boundaries: y close to (2j - 1) d / 2^(p+1) from both sides.
                for j in 1..(1u32 << p) {
                    let centre = (&d * (2 * j - 1)) >> (p + 1);
                    for delta in 0..3u32 {
                        cases.push(&centre + delta);
                        cases.push(&centre - delta);
                    }
                }
                cases.push(&d - 1u32);
                cases.push(BigUint::zero());
                for y in &cases {
                    assert_eq!(BigUint::from(rounding.round(y)), exact(y), "{bits} bits, p {p}");
                }
            }
        }
    }

    #[test]
    fn pairs_enumerate_distinct_two_hot_codes() {
        for (s, big_s) in [(4, 16), (15, 512), (2, 2)] {
            let p = RecryptParams::new(s, big_s).unwrap();
            let mut seen = std::collections::HashSet::new();
            for l in 0..big_s {
                let (a, b) = p.pair(l);
                assert!(a < b && b < p.m(), "{l}: {a} {b}");
                assert!(seen.insert((a, b)));
            }
            assert!(s < 1 << p.precision(), "s 2^-(p+1) < 1/2");
        }
        assert_eq!(RecryptParams::new(15, 512).unwrap(), RecryptParams::for_setting(&GhParams::small()));
        assert_eq!(RecryptParams::new(4, 16).unwrap(), RecryptParams::for_setting(&GhParams::toy()));
    }

    /// The circuit over plain bits, with the true indicator, is Decrypt (toy setting): this
    /// checks the squashing and the grade-school addition independently of the noise.
    #[test]
    fn the_circuit_in_the_clear_is_decryption() {
        let params = GhParams::toy();
        let (pk, sk) = keygen(&params, 5).unwrap();
        for (s, big_s, one_hot) in [(4, 16, false), (7, 40, false), (15, 60, false), (4, 16, true), (15, 60, true)] {
            let rp = RecryptParams::new(s, big_s).unwrap();
            let rp = if one_hot { rp.one_hot() } else { rp };
            let mut rng = ChaCha8Rng::seed_from_u64(s as u64);
            let positions: Vec<usize> = (0..s).map(|_| rng.gen_range(0..big_s)).collect();
            let key = recrypt_keygen_at(&pk, &sk, rp, &positions, &mut rng, |bit, rng| pk.encrypt(bit, rng)).unwrap();
            // sum x_k R^l_k = w mod d, checked with num-bigint.
            let d = BigUint::from(pk.modulus().modulus());
            let total = key.x.iter().zip(&positions).fold(BigUint::zero(), |acc, (x, &l)| {
                (acc + x * BigUint::from(key.radix).modpow(&BigUint::from(l), &d)) % &d
            });
            assert_eq!(total, BigUint::from(sk.w()));
            let eta: Vec<Vec<u8>> = positions
                .iter()
                .map(|&l| {
                    let (a, b) = if one_hot { (l, l) } else { rp.pair(l) };
                    (0..rp.m()).map(|i| u8::from(i == a || i == b)).collect()
                })
                .collect();
            for case in 0..40 {
                let bit = (case % 2) as u8;
                let mut ct = pk.encrypt(bit, &mut rng).unwrap();
                if case % 3 == 0 {
                    let other = pk.encrypt(1, &mut rng).unwrap();
                    ct = pk.mul(&ct, &other).unwrap();
                }
                let f = factors(&pk, &key, ct.value()).unwrap();
                let got = evaluate(&Plain, &rp, &eta, &f, d.bit(0)).unwrap();
                assert_eq!(got, bit, "s {s}, case {case}");
            }
            let degree_eta = vec![vec![1u32; rp.m()]; s];
            let ct = pk.encrypt(1, &mut rng).unwrap();
            let f = factors(&pk, &key, ct.value()).unwrap();
            let degree = evaluate(&Degree, &rp, &degree_eta, &f, true).unwrap();
            eprintln!("s = {s}, S = {big_s}, one-hot {one_hot}: degree {degree}");
            // At most 2 (2^p - 1) (two-hot): 14 for s = 4 and 7, 30 for s = 15; half one-hot.
            let bound = if one_hot { (1 << rp.precision()) - 1 } else { 2 * ((1 << rp.precision()) - 1) };
            assert!(degree >= bound / 2 && degree <= bound, "degree {degree}");
        }
    }
}
