//! The modulus chain: level `l` (`0 <= l <= L - 1`) is the ring `R_{q_l}` with the ciphertext
//! primes `q_0, ..., q_l`; the top level `L - 1` is the parameters' `R_q`. A ciphertext moves
//! down the chain by rescaling by its last prime ([`RlweContext::mod_switch_to_next_poly`]:
//! `c -> round(c / q_l)` over `q_0 ... q_{l-1}`, exact) or, for a secret key, by dropping limbs
//! ([`RlweContext::drop_to_level`]; keys are in the evaluation representation, which is per
//! prime, so the limbs of the smaller ring are a prefix).
//!
//! With an error scale `E` (the plaintext modulus `t` in BGV) rescaling keeps the error a
//! multiple of `E`: `c -> (c - E r) / q_l` with `r` the centered `[c E^-1]_{q_l}`, so that
//! `c - E r = 0 mod q_l` and the message is multiplied by `q_l^-1 mod E` (the scheme tracks
//! that factor). `E = 1` is the rounded quotient.
//!
//! Key switching at level `l` ([`LevelKeySwitch`]) uses the tables of `q_l` and `P` with the
//! top level's digits cut at `l`: a key's gadget factors restricted to `q_l P` are exactly
//! those of the smaller ring, so a key serves every level once its limbs above `l` are left
//! out (key_switching_key.rs).
//!
//! The rings of the lower levels (and their backend contexts) are built on first use: the
//! tables of every level at once would cost `O(L^2 N)` words.

use std::sync::Arc;

use poly::{Coeff, Eval, Poly, RingContext};

use crate::backend::RlweBackend;
use crate::context::RlweContext;
use crate::error::BackendResult;
use crate::{Result, RlweError, RlweParameters};

/// The key-switching tables of one level: ModUp/ModDown over `q_l` and `P`, digits of the top
/// level's size (the last one cut at `l`), and the ring `R_{q_l P}` of the keys' limbs there.
#[derive(Debug)]
pub struct LevelKeySwitch {
    /// The tables over `q_l` and `P`.
    pub tables: rns::KeySwitchContext,
    /// `R_{q_l P}`: `q_0 .. q_l`, then the special primes.
    pub ring_qp: Arc<RingContext>,
}

impl RlweParameters {
    /// The key-switching tables of level `level` (built on first use; the top level's are
    /// [`key_switch_tables`](Self::key_switch_tables) and [`ring_qp`](Self::ring_qp)).
    pub fn key_switch_at_level(&self, level: usize) -> Result<&LevelKeySwitch> {
        self.check_level(level)?;
        let cell = &self.key_switch_levels[level];
        if let Some(tables) = cell.get() {
            return Ok(tables);
        }
        let q = &self.ciphertext_moduli()[..=level];
        let digit_size = self.digit_size().min(q.len());
        let tables = rns::KeySwitchContext::new(self.degree(), q, self.special_moduli(), digit_size)?;
        let qp: Vec<u64> = q.iter().chain(self.special_moduli()).copied().collect();
        let ring_qp = self.ring_context(&qp)?;
        // Another thread may have built it meanwhile: keep the first.
        let _ = cell.set(LevelKeySwitch { tables, ring_qp });
        cell.get().ok_or(RlweError::InvalidParameter {
            name: "level",
            value: level as u64,
            requirement: "its key-switching tables could not be built".to_string(),
        })
    }

    /// The number of key-switching digits at level `level`: `ceil((level + 1) / digit_size)`.
    pub fn digit_count_at_level(&self, level: usize) -> usize {
        level.saturating_add(1).div_ceil(self.digit_size())
    }

    /// The top level `L - 1` (`L` ciphertext primes).
    pub fn max_level(&self) -> usize {
        self.ciphertext_moduli().len() - 1
    }

    /// The ring of level `level`: the first `level + 1` ciphertext primes, this parameters'
    /// transform. Errors with [`RlweError::InvalidParameter`] above the top level.
    pub fn ring_at_level(&self, level: usize) -> Result<Arc<RingContext>> {
        self.check_level(level)?;
        if level == self.max_level() {
            return Ok(Arc::clone(self.ring_q()));
        }
        if let Some(ring) = self.levels[level].get() {
            return Ok(Arc::clone(ring));
        }
        let ring = self.ring_context(&self.ciphertext_moduli()[..=level])?;
        // Another thread may have built it meanwhile: keep the first.
        let _ = self.levels[level].set(Arc::clone(&ring));
        Ok(self.levels[level].get().map_or(ring, Arc::clone))
    }

    /// Errors with [`RlweError::InvalidParameter`] unless `level <= max_level()`.
    pub fn check_level(&self, level: usize) -> Result<()> {
        if level <= self.max_level() {
            return Ok(());
        }
        Err(RlweError::InvalidParameter {
            name: "level",
            value: level as u64,
            requirement: format!("must be at most the top level {}", self.max_level()),
        })
    }
}

/// `(input - E r) / q_l` over `q_0 ... q_{l-1}` for `input` over `q_0 ... q_l` (coefficient
/// representation, host), `E = error_scale`: per coefficient, with `r` the centered residue
/// of `x_l E^-1` modulo the last prime `q_l`, limb `i` becomes `(x_i - E r) q_l^{-1} mod q_i`.
/// For `E = 1` that is exactly the rounded quotient `round(input / q_l)` (ties, impossible for
/// odd `q_l`, aside). Errors with [`poly::PolyError::ContextMismatch`] unless `target`'s primes
/// are those of `input` but the last, at the same degree, and with
/// [`RlweError::InvalidParameter`] for an `E` not invertible modulo `q_l`.
pub fn rescale_by_last_prime_host(
    input: &Poly<Coeff>,
    target: &Arc<RingContext>,
    error_scale: u64,
) -> Result<Poly<Coeff>> {
    let ring = input.context();
    let n = ring.degree();
    let limbs = ring.num_limbs();
    let matches = limbs >= 2
        && target.degree() == n
        && target.num_limbs() == limbs - 1
        && target.moduli().iter().zip(ring.moduli()).all(|(a, b)| a.value() == b.value());
    if !matches {
        return Err(RlweError::Poly(poly::PolyError::ContextMismatch));
    }
    let last = &ring.moduli()[limbs - 1];
    let scale_inv = scale_inverse(last, error_scale)?;
    let data = input.as_slice();
    let last_limb: Vec<i64> = data[(limbs - 1) * n..]
        .iter()
        .map(|&x| last.center(if error_scale == 1 { x } else { last.mul(x, scale_inv) }))
        .collect();
    let mut out = Vec::with_capacity(target.poly_len());
    for (i, qi) in target.moduli().iter().enumerate() {
        let inv = qi.inv(qi.reduce(last.value()))?;
        let inv_shoup = qi.shoup(inv);
        let scale = qi.reduce(error_scale);
        let limb = &data[i * n..(i + 1) * n];
        out.extend(limb.iter().zip(&last_limb).map(|(&x, &r)| {
            let r = qi.mul(qi.from_i64(r), scale);
            qi.mul_shoup(qi.sub(x, r), inv, inv_shoup)
        }));
    }
    Ok(Poly::from_limbs(target, out)?)
}

/// `scale^-1 mod modulus`, or [`RlweError::InvalidParameter`] when it does not exist.
pub(crate) fn scale_inverse(modulus: &modarith::Modulus, scale: u64) -> Result<u64> {
    modulus.inv(modulus.reduce(scale)).map_err(|_| RlweError::InvalidParameter {
        name: "error scale",
        value: scale,
        requirement: format!("must be invertible modulo {}", modulus.value()),
    })
}

impl<B: RlweBackend> RlweContext<B> {
    /// The backend context of level `level` (built on first use; the top level is
    /// [`ring_q`](Self::ring_q)).
    pub fn context_at_level(&self, level: usize) -> Result<&B::Context> {
        self.params.check_level(level)?;
        if level == self.params.max_level() {
            return Ok(&self.ring_q);
        }
        let cell = &self.levels[level];
        if cell.get().is_none() {
            let context = self.backend.context(&self.params.ring_at_level(level)?).be()?;
            let _ = cell.set(context);
        }
        cell.get().ok_or(RlweError::InvalidParameter {
            name: "level",
            value: level as u64,
            requirement: "its context could not be prepared".to_string(),
        })
    }

    /// `round(poly / q_level)` at level `level - 1` for `poly` at level `level` (coefficient
    /// representation; module docs), with this context's error scale (for `E != 1` the
    /// quotient keeps the error a multiple of `E`). Errors with [`RlweError::InvalidParameter`] at level 0 or
    /// above the top.
    pub fn mod_switch_to_next_poly(&self, poly: &B::Poly<Coeff>, level: usize) -> Result<B::Poly<Coeff>> {
        self.check_switchable(level)?;
        let target = self.context_at_level(level - 1)?;
        self.backend.rescale_by_last_prime(poly, target, self.error_scale)
    }

    /// [`mod_switch_to_next_poly`](Self::mod_switch_to_next_poly) of each of `polys` (one level,
    /// evaluation representation), the results in the evaluation representation: the forward
    /// transforms of the same words ([`RlweBackend::rescale_by_last_prime_eval`]; a device
    /// backend transforms back only the last limb). Errors as `mod_switch_to_next_poly`.
    pub fn mod_switch_to_next_eval(&self, polys: &[&B::Poly<Eval>], level: usize) -> Result<Vec<B::Poly<Eval>>> {
        self.check_switchable(level)?;
        if matches!(self.params.transform(), poly::TransformKind::Dgt | poly::TransformKind::HierarchicalDgt) {
            // The DGTs transform whole limbs of Gaussian pairs: every limb goes back and forth.
            return polys
                .iter()
                .map(|poly| {
                    let coefficients = self.backend.inverse(self.backend.duplicate(poly).be()?).be()?;
                    self.backend.forward(self.mod_switch_to_next_poly(&coefficients, level)?).be()
                })
                .collect();
        }
        let target = self.context_at_level(level - 1)?;
        let cell = &self.last_primes[level];
        if cell.get().is_none() {
            let prime = self.params.ciphertext_moduli()[level];
            let ring = self.params.ring_context(&[prime])?;
            let _ = cell.set(self.backend.context(&ring).be()?);
        }
        let last_prime = cell.get().ok_or(RlweError::InvalidParameter {
            name: "level",
            value: level as u64,
            requirement: "its last prime's context could not be prepared".to_string(),
        })?;
        self.backend.rescale_by_last_prime_eval(polys, target, last_prime, self.error_scale)
    }

    /// Errors unless `level` is a level of these parameters above 0 (a level to switch down from).
    fn check_switchable(&self, level: usize) -> Result<()> {
        self.params.check_level(level)?;
        if level == 0 {
            return Err(RlweError::InvalidParameter {
                name: "level",
                value: 0,
                requirement: "level 0 has one prime left: there is no next level".to_string(),
            });
        }
        Ok(())
    }

    /// The first `level + 1` limbs of `poly` (a polynomial over `q` or of a higher level, either
    /// representation) as a polynomial of level `level`.
    pub fn drop_to_level<R: poly::Representation>(&self, poly: &B::Poly<R>, level: usize) -> Result<B::Poly<R>> {
        let target = self.context_at_level(level)?;
        self.backend.drop_limbs(poly, target)
    }
}

#[cfg(test)]
mod tests {
    use num_bigint::BigUint;
    use poly::{Coeff, Poly, TransformKind};
    use rand::{Rng, SeedableRng, rngs::StdRng};

    use super::rescale_by_last_prime_host;
    use crate::{ModuliChoice, RlweParametersBuilder};

    /// Every level's rescale equals `floor((X + (q_l - 1) / 2) / q_l) mod q_i` on the
    /// big-integer value `X` of each coefficient (`round(X / q_l)`, `q_l` odd), for random words
    /// and the edge values 0, `(q_l - 1) / 2`, `(q_l + 1) / 2` and `Q - 1` in the last limb.
    #[test]
    fn rescale_is_the_rounded_quotient_by_the_last_prime() {
        let params = RlweParametersBuilder::new(1024)
            .ciphertext(ModuliChoice::Bits(vec![50, 40, 61, 30]))
            .special(ModuliChoice::Bits(vec![55]))
            .transform(TransformKind::Ntt)
            .allow_insecure(true)
            .build()
            .unwrap();
        let mut rng = StdRng::seed_from_u64(7);
        for level in (1..=params.max_level()).rev() {
            let ring = params.ring_at_level(level).unwrap();
            let target = params.ring_at_level(level - 1).unwrap();
            let n = ring.degree();
            let mut words = Vec::with_capacity(ring.poly_len());
            for m in ring.moduli() {
                words.extend((0..n).map(|_| rng.gen_range(0..m.value())));
            }
            let last = ring.moduli()[level].value();
            // Edge coefficients: X = 0, and X with the last residue at the rounding boundary.
            for (j, r) in [(0usize, 0u64), (1, (last - 1) / 2), (2, last.div_ceil(2)), (3, last - 1)] {
                for limb in 0..=level {
                    words[limb * n + j] = if limb == level {
                        r
                    } else if j == 0 {
                        0
                    } else {
                        words[limb * n + j]
                    };
                }
            }
            for limb in 0..=level {
                words[limb * n + 4] = ring.moduli()[limb].value() - 1; // X = Q - 1
            }
            let input = Poly::<Coeff>::from_limbs(&ring, words.clone()).unwrap();
            let output = rescale_by_last_prime_host(&input, &target, 1).unwrap();
            let base = rns::RnsBase::new(&ring.moduli().iter().map(|m| m.value()).collect::<Vec<_>>()).unwrap();
            let values = base.reconstruct_poly(&words).unwrap();
            let half = BigUint::from((last - 1) / 2);
            for (j, x) in values.iter().enumerate() {
                let expected = (x + &half) / last;
                for (i, m) in target.moduli().iter().enumerate() {
                    let want = (&expected % m.value()).iter_u64_digits().next().unwrap_or(0);
                    assert_eq!(output.as_slice()[i * n + j], want, "level {level}, limb {i}, coefficient {j}");
                }
            }
            // A wrong target is refused.
            assert!(rescale_by_last_prime_host(&input, &ring, 1).is_err());
        }
    }

    /// With an error scale `E`, each level's rescale equals `(X - E r) / q_l mod q_i` on the
    /// big-integer value `X`, `r` the centered `[X E^-1]_{q_l}`: the division is exact, and the
    /// result times `q_l` is `X` minus a multiple of `E`. Plaintext moduli of BGV (prime,
    /// power of two) and 1; random words and `X = 0`, `X = Q - 1`.
    #[test]
    fn scaled_rescale_is_the_exact_quotient_of_x_minus_a_multiple_of_e() {
        use num_bigint::BigInt;
        let params = RlweParametersBuilder::new(1024)
            .ciphertext(ModuliChoice::Bits(vec![50, 40, 61, 30]))
            .special(ModuliChoice::Bits(vec![55]))
            .transform(TransformKind::Ntt)
            .allow_insecure(true)
            .build()
            .unwrap();
        let mut rng = StdRng::seed_from_u64(8);
        for scale in [1u64, 65537, 1 << 16, 3, (1 << 59) - 55] {
            for level in (1..=params.max_level()).rev() {
                let ring = params.ring_at_level(level).unwrap();
                let target = params.ring_at_level(level - 1).unwrap();
                let n = ring.degree();
                let mut words = Vec::with_capacity(ring.poly_len());
                for m in ring.moduli() {
                    words.extend((0..n).map(|_| rng.gen_range(0..m.value())));
                }
                for limb in 0..=level {
                    words[limb * n] = 0;
                    words[limb * n + 1] = ring.moduli()[limb].value() - 1;
                }
                let input = Poly::<Coeff>::from_limbs(&ring, words.clone()).unwrap();
                let output = rescale_by_last_prime_host(&input, &target, scale).unwrap();
                let base = rns::RnsBase::new(&ring.moduli().iter().map(|m| m.value()).collect::<Vec<_>>()).unwrap();
                let last = ring.moduli()[level];
                let scale_inv = last.inv(last.reduce(scale)).unwrap();
                for (j, x) in base.reconstruct_poly(&words).unwrap().into_iter().enumerate() {
                    let x_last = (&x % last.value()).iter_u64_digits().next().unwrap_or(0);
                    let r = BigInt::from(last.center(last.mul(x_last, scale_inv)));
                    let numerator = BigInt::from(x) - BigInt::from(scale) * r;
                    let q_l = BigInt::from(last.value());
                    assert_eq!(&numerator % &q_l, BigInt::from(0), "scale {scale}, level {level}, coefficient {j}");
                    let quotient = numerator / q_l;
                    for (i, m) in target.moduli().iter().enumerate() {
                        let p = BigInt::from(m.value());
                        let want = ((&quotient % &p) + &p) % &p;
                        assert_eq!(
                            BigInt::from(output.as_slice()[i * n + j]),
                            want,
                            "scale {scale}, level {level}, limb {i}, coefficient {j}"
                        );
                    }
                }
            }
        }
    }
}
