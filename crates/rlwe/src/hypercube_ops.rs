//! Data movement on extension-field slots along the hypercube (HElib's `EncryptedArray`
//! rotations; Halevi and Shoup, "Algorithms in HElib", CRYPTO 2014, section 4), for every
//! scheme through its [`Evaluator`]: rotation and shift along one dimension, the Frobenius,
//! sums over a dimension and over all slots, replication, linear maps along a dimension (the
//! diagonal method over hoisted automorphisms, or prepared once and applied by baby-step
//! giant-step) and on the whole slot vector.
//!
//! Keys: each operation names the Galois elements it applies (`rotation_elements`,
//! `total_sum_elements`, `matrix_elements`, `bsgs_elements`); with fewer keys, such as the
//! compact default set (`compact_elements`), rotations and Frobenius powers are composed from
//! the fewest held powers of their generator. Masks are encoded once per interval and kept.
//!
//! Along a good dimension `i` (`g_i^{o_i} = 1`), a rotation by `k` is the automorphism
//! `x -> x^{g_i^k}`. Along a bad one, the slots whose exponent wraps around would come back
//! under a Frobenius; they take `x -> x^{g_i^{k - o_i}}` instead, selected by a mask:
//! `M sigma_{g^k}(c) + (1 - M) sigma_{g^{k - o}}(c)`, two automorphisms and two plaintext
//! products. A shift is a rotation whose wrapped slots are masked to zero. Slot `e` of the
//! result of a rotation by `k` holds slot `e + k 1_i` of the input (the dimension's exponent
//! taken modulo `o_i`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::evaluator::Evaluator;
use crate::extension_slots::ExtensionSlots;
use crate::hypercube::{Hypercube, pow};
use crate::{Ciphertext, GaloisKeys, Plaintext, Result, RlweBackend, RlweError, SchemeParameters};

/// An [`Evaluator`] whose ciphertexts and plaintexts are the core's (both schemes'): what the
/// operations below run on.
pub trait SlotEvaluator<B: RlweBackend, P: SchemeParameters>:
    Evaluator<B, Ciphertext = Ciphertext<P, B>, Plaintext = Plaintext<P>>
{
}

impl<B: RlweBackend, P: SchemeParameters, S> SlotEvaluator<B, P> for S where
    S: Evaluator<B, Ciphertext = Ciphertext<P, B>, Plaintext = Plaintext<P>>
{
}

/// The hypercube operations of one parameter set (module docs).
#[derive(Debug, Clone)]
pub struct HypercubeOps {
    slots: ExtensionSlots,
    /// Encoded masks by (dimension, low, high) ([`HypercubeOps::mask`]), shared by clones.
    masks: Arc<Mutex<MaskCache>>,
}

/// Mask coefficients by (dimension, low, high).
type MaskCache = HashMap<(usize, usize, usize), Vec<u64>>;

/// How many masks a [`HypercubeOps`] keeps (`phi(m)` words each).
const MAX_CACHED_MASKS: usize = 256;

impl HypercubeOps {
    /// The operations on the slots of `params` (`t = p^r`): errors as
    /// [`ExtensionSlots::for_params`].
    pub fn for_params<P: SchemeParameters>(params: &P) -> Result<Self> {
        Ok(Self { slots: ExtensionSlots::for_params(params)?, masks: Arc::default() })
    }

    /// The slots (encoding and decoding).
    pub fn slots(&self) -> &ExtensionSlots {
        &self.slots
    }

    /// The hypercube.
    pub fn hypercube(&self) -> &Hypercube {
        self.slots.hypercube()
    }

    /// The Galois elements a rotation by `k` along dimension `dimension` applies (one for a
    /// good dimension or `k = 0 mod o`, two for a bad one): generate keys for these.
    pub fn rotation_elements(&self, dimension: usize, k: i64) -> Result<Vec<u64>> {
        let (g, o) = self.dimension(dimension)?;
        let m = self.hypercube().m;
        let k = k.rem_euclid(o as i64) as u64;
        if k == 0 {
            return Ok(Vec::new());
        }
        let first = pow(g, k, m);
        if self.hypercube().good[dimension] {
            return Ok(vec![first]);
        }
        Ok(vec![first, pow(g, k + (self.order_in_units(g) - o as u64), m)])
    }

    /// A compact default set of Galois elements: along every dimension `g^{2^i}` for
    /// `2^i < o` (and `g^{-o}` on a bad dimension), and the Frobenius `p`; about
    /// `log2(slots) + dimensions + 1` keys (SEAL's power-of-two steps, per dimension). Every
    /// rotation, shift, sum over a dimension or all slots, replication and Frobenius power
    /// composes from them (a rotation by `k`: one key switch per bit of `k`, on a bad
    /// dimension one more for the wrapped slots); linear maps ask for their own
    /// ([`bsgs_elements`](Self::bsgs_elements)).
    pub fn compact_elements(&self) -> Vec<u64> {
        let cube = self.hypercube();
        let m = cube.m;
        let mut elements = vec![cube.p % m];
        for (dimension, (&g, &o)) in cube.generators.iter().zip(&cube.orders).enumerate() {
            let mut power = 1usize;
            while power < o {
                elements.push(pow(g, power as u64, m));
                power *= 2;
            }
            if !cube.good[dimension] {
                elements.push(pow(g, self.order_in_units(g) - o as u64, m));
            }
        }
        elements.retain(|&e| e != 1);
        elements.sort_unstable();
        elements.dedup();
        elements
    }

    /// The Galois elements to apply one after the other for `x -> x^{g^exponent}` with the
    /// keys held: none for the identity, the element itself when held, else the fewest held
    /// powers of `g` whose exponents add up (a breadth-first search in `<g>`,
    /// [`crate::rotation`]). Errors with [`RlweError::MissingGaloisKey`] when none do.
    fn plan<B: RlweBackend>(&self, g: u64, exponent: u64, keys: &GaloisKeys<B>) -> Result<Vec<u64>> {
        let m = self.hypercube().m;
        let element = pow(g, exponent, m);
        if element == 1 {
            return Ok(Vec::new());
        }
        if keys.contains(element) {
            return Ok(vec![element]);
        }
        let order = self.order_in_units(g);
        let mut logarithms = std::collections::HashMap::with_capacity(order as usize);
        let mut x = 1u64;
        for k in 0..order {
            logarithms.insert(x, k as usize);
            x = (u128::from(x) * u128::from(g) % u128::from(m)) as u64;
        }
        let edges: Vec<(usize, u64)> = keys
            .elements()
            .into_iter()
            .filter_map(|e| logarithms.get(&e).filter(|&&k| k > 0).map(|&k| (k, e)))
            .collect();
        crate::rotation::shortest_plan(order as usize, &edges, (exponent % order) as usize)
            .ok_or(RlweError::MissingGaloisKey { operation: "hypercube rotation", element })
    }

    /// `ct` under `x -> x^{g^exponent}` by [`plan`](Self::plan).
    fn apply_power<B: RlweBackend, P: SchemeParameters, S>(
        &self,
        evaluator: &S,
        ct: &Ciphertext<P, B>,
        g: u64,
        exponent: u64,
        keys: &GaloisKeys<B>,
    ) -> Result<Ciphertext<P, B>>
    where
        S: SlotEvaluator<B, P>,
    {
        let plan = self.plan(g, exponent, keys)?;
        crate::rotation::apply_plan(ct, &plan, |c, e| evaluator.apply_galois(c, e, keys))
    }

    /// The Galois elements of every rotation [`total_sum`](Self::total_sum) applies.
    pub fn total_sum_elements(&self) -> Result<Vec<u64>> {
        let mut elements = Vec::new();
        for (dimension, &o) in self.hypercube().orders.iter().enumerate() {
            for k in sum_steps(o) {
                elements.extend(self.rotation_elements(dimension, k as i64)?);
            }
        }
        elements.sort_unstable();
        elements.dedup();
        Ok(elements)
    }

    /// `ct` rotated by `k` along `dimension` (module docs): slot `e` receives slot `e + k 1_i`.
    /// Errors for a dimension that does not exist, a missing Galois key (the scheme's error),
    /// and as the scheme's automorphisms and plaintext products.
    pub fn rotate<B: RlweBackend, P: SchemeParameters, S>(
        &self,
        evaluator: &S,
        ct: &Ciphertext<P, B>,
        dimension: usize,
        k: i64,
        keys: &GaloisKeys<B>,
    ) -> Result<Ciphertext<P, B>>
    where
        S: SlotEvaluator<B, P>,
    {
        let (g, o) = self.dimension(dimension)?;
        let m = self.hypercube().m;
        let k = k.rem_euclid(o as i64) as usize;
        if k == 0 {
            return evaluator.apply_galois(ct, 1, keys);
        }
        if self.hypercube().good[dimension] {
            return self.apply_power(evaluator, ct, g, k as u64, keys);
        }
        // Slots whose exponent stays below o: sigma_{g^k}; the others: sigma_{g^{k - o}}; both
        // automorphisms of one hoisted c_1 when their keys are held, else composed.
        let wrap_exponent = k as u64 + self.order_in_units(g) - o as u64;
        let (first, wrap) = (pow(g, k as u64, m), pow(g, wrap_exponent, m));
        let (moved, wrapped) = if keys.contains(first) && keys.contains(wrap) {
            let both: [Ciphertext<P, B>; 2] = evaluator
                .apply_galois_many(ct, &[first, wrap], keys)?
                .try_into()
                .map_err(|_| RlweError::InvalidParameter {
                    name: "automorphisms",
                    value: 2,
                    requirement: "apply_galois_many must return one ciphertext per element (internal error)"
                        .to_string(),
                })?;
            let [a, b] = both;
            (a, b)
        } else {
            (
                self.apply_power(evaluator, ct, g, k as u64, keys)?,
                self.apply_power(evaluator, ct, g, wrap_exponent, keys)?,
            )
        };
        let params = ct.params();
        let stays = self.mask(params, dimension, 0, o - k)?;
        let wraps = self.mask(params, dimension, o - k, o)?;
        evaluator.add(&evaluator.mul_plain(&moved, &stays)?, &evaluator.mul_plain(&wrapped, &wraps)?)
    }

    /// `ct` shifted by `k` along `dimension`: slot `e` receives slot `e + k 1_i` where that
    /// exponent is in range (`0 <= e_i + k < o_i`), zero elsewhere. `k` may be negative.
    pub fn shift<B: RlweBackend, P: SchemeParameters, S>(
        &self,
        evaluator: &S,
        ct: &Ciphertext<P, B>,
        dimension: usize,
        k: i64,
        keys: &GaloisKeys<B>,
    ) -> Result<Ciphertext<P, B>>
    where
        S: SlotEvaluator<B, P>,
    {
        let (_, o) = self.dimension(dimension)?;
        let rotated = self.rotate(evaluator, ct, dimension, k, keys)?;
        // Slots whose source 0 <= digit + k < o exists.
        let (low, high) = (k.min(0).unsigned_abs() as usize, (o as i64 - k.max(0)).max(0) as usize);
        evaluator.mul_plain(&rotated, &self.mask(ct.params(), dimension, low.min(o), high.max(low.min(o)))?)
    }

    /// The Frobenius `X -> X^(p^j)` of every slot: the automorphism `x -> x^(p^j)`.
    pub fn frobenius<B: RlweBackend, P: SchemeParameters, S>(
        &self,
        evaluator: &S,
        ct: &Ciphertext<P, B>,
        j: u32,
        keys: &GaloisKeys<B>,
    ) -> Result<Ciphertext<P, B>>
    where
        S: SlotEvaluator<B, P>,
    {
        self.apply_power(evaluator, ct, self.hypercube().p % self.hypercube().m, u64::from(j), keys)
    }

    /// Every slot set to the sum of the slots along `dimension` through it (HElib's
    /// `runningSums` doubling: about `2 log2 o_i` rotations).
    pub fn sum_dimension<B: RlweBackend, P: SchemeParameters, S>(
        &self,
        evaluator: &S,
        ct: &Ciphertext<P, B>,
        dimension: usize,
        keys: &GaloisKeys<B>,
    ) -> Result<Ciphertext<P, B>>
    where
        S: SlotEvaluator<B, P>,
    {
        let (_, o) = self.dimension(dimension)?;
        // sums of the first `length` rotations, length grown along the bits of o.
        let mut acc = evaluator.apply_galois(ct, 1, keys)?;
        let mut length = 1usize;
        for bit in (0..usize::BITS - o.leading_zeros() - 1).rev() {
            acc = evaluator.add(&acc, &self.rotate(evaluator, &acc, dimension, length as i64, keys)?)?;
            length *= 2;
            if (o >> bit) & 1 == 1 {
                acc = evaluator.add(ct, &self.rotate(evaluator, &acc, dimension, 1, keys)?)?;
                length += 1;
            }
        }
        Ok(acc)
    }

    /// Every slot set to the sum of all slots: [`sum_dimension`](Self::sum_dimension) along
    /// every dimension.
    pub fn total_sum<B: RlweBackend, P: SchemeParameters, S>(
        &self,
        evaluator: &S,
        ct: &Ciphertext<P, B>,
        keys: &GaloisKeys<B>,
    ) -> Result<Ciphertext<P, B>>
    where
        S: SlotEvaluator<B, P>,
    {
        let mut acc = evaluator.apply_galois(ct, 1, keys)?;
        for dimension in 0..self.hypercube().orders.len() {
            acc = self.sum_dimension(evaluator, &acc, dimension, keys)?;
        }
        Ok(acc)
    }

    /// Every slot set to the value of slot `slot`: a mask, then [`total_sum`](Self::total_sum).
    pub fn replicate<B: RlweBackend, P: SchemeParameters, S>(
        &self,
        evaluator: &S,
        ct: &Ciphertext<P, B>,
        slot: usize,
        keys: &GaloisKeys<B>,
    ) -> Result<Ciphertext<P, B>>
    where
        S: SlotEvaluator<B, P>,
    {
        let count = self.slots.slot_count();
        if slot >= count {
            return Err(RlweError::InvalidParameter {
                name: "slot",
                value: slot as u64,
                requirement: format!("must be below the slot count {count}"),
            });
        }
        let mut unit = vec![Vec::new(); slot + 1];
        unit[slot] = vec![1];
        let masked = evaluator.mul_plain(ct, &self.slots.encode_plaintext(ct.params(), &unit)?)?;
        self.total_sum(evaluator, &masked, keys)
    }

    /// The Galois element that brings slot `source` to slot `target` with no Frobenius:
    /// `prod_i g_i^{a_i}`, `a_i = d_i` where `e_i + d_i < o_i` and `d_i - o_i` where it wraps
    /// (`d_i = f_i - e_i mod o_i`), exponents taken in `Z_m^*` (`powers[i][a]` is
    /// `g_i^a`, negative `a` as `order - |a|`).
    fn element_between(&self, powers: &[Vec<u64>], target: usize, source: usize) -> u64 {
        let cube = self.hypercube();
        let m = cube.m;
        let mut element = 1u64;
        let mut stride: usize = cube.orders.iter().product();
        for (i, &o) in cube.orders.iter().enumerate() {
            stride /= o;
            let (e, f) = (target / stride % o, source / stride % o);
            let d = (f + o - e) % o;
            let order = powers[i].len();
            let a = if e + d < o { d } else { (d + order - o) % order };
            element = (u128::from(element) * u128::from(powers[i][a]) % u128::from(m)) as u64;
        }
        element
    }

    /// `g_i^a` for `a` below the order of `g_i` in `Z_m^*`, per dimension.
    fn generator_powers(&self) -> Vec<Vec<u64>> {
        let cube = self.hypercube();
        cube.generators
            .iter()
            .map(|&g| {
                let order = self.order_in_units(g);
                (0..order).map(|a| pow(g, a, cube.m)).collect()
            })
            .collect()
    }

    /// The Galois elements [`matrix_mul_full`](Self::matrix_mul_full) may apply: for every
    /// shift of the hypercube, the product of the per-dimension rotations and wraps (at most
    /// `slots * 2^(bad dimensions)`).
    pub fn full_elements(&self) -> Vec<u64> {
        let powers = self.generator_powers();
        let count = self.slots.slot_count();
        let mut elements: Vec<u64> = (0..count)
            .flat_map(|e| (0..count).map(move |f| (e, f)))
            .map(|(e, f)| self.element_between(&powers, e, f))
            .collect();
        elements.retain(|&h| h != 1);
        elements.sort_unstable();
        elements.dedup();
        elements
    }

    /// The linear map `matrix` on the whole slot vector (`n x n` entries for `n` slots, each an
    /// element of the slot ring given by at most `d` coefficients): slot `e` receives
    /// `sum_f matrix[e][f] x[f]` (HElib's `MatMulFull`). Every pair `(e, f)` is carried by the
    /// automorphism that brings slot `f` to slot `e` without a Frobenius
    /// (per dimension `g_i^{d_i}`, or `g_i^{d_i - o_i}` where the exponent wraps on a bad one);
    /// the entries are grouped by that automorphism into one plaintext each,
    /// `y = sum_h P_h sigma_h(x)`, every `sigma_h` from one hoisted `c_1`: at most
    /// `n 2^(bad dimensions)` automorphisms and as many plaintext products, one level. Keys:
    /// [`full_elements`](Self::full_elements) (those of the nonzero entries suffice). Errors
    /// with [`RlweError::InvalidParameter`] for a matrix of another shape or entries not in
    /// the slot ring, and as the scheme's automorphisms and products.
    pub fn matrix_mul_full<B: RlweBackend, P: SchemeParameters, S>(
        &self,
        evaluator: &S,
        ct: &Ciphertext<P, B>,
        matrix: &[Vec<Vec<u64>>],
        keys: &GaloisKeys<B>,
    ) -> Result<Ciphertext<P, B>>
    where
        S: SlotEvaluator<B, P>,
    {
        let count = self.slots.slot_count();
        if matrix.len() != count || matrix.iter().any(|row| row.len() != count) {
            return Err(RlweError::InvalidParameter {
                name: "matrix size",
                value: matrix.len() as u64,
                requirement: format!("must be {count} x {count}, the number of slots"),
            });
        }
        let powers = self.generator_powers();
        // Per automorphism, the slot values of its plaintext (in first-use order).
        let mut order: Vec<u64> = Vec::new();
        let mut terms: HashMap<u64, Vec<Vec<u64>>> = HashMap::new();
        for (e, row) in matrix.iter().enumerate() {
            for (f, entry) in row.iter().enumerate() {
                if entry.iter().all(|&c| c == 0) {
                    continue;
                }
                let h = self.element_between(&powers, e, f);
                let values = terms.entry(h).or_insert_with(|| {
                    order.push(h);
                    vec![Vec::new(); count]
                });
                // Two sources reaching one slot through one automorphism cannot happen: the
                // automorphism is a bijection of the slots.
                values[e] = entry.clone();
            }
        }
        if order.is_empty() {
            // The zero matrix: the input times the zero plaintext keeps its level and scale.
            return evaluator.mul_plain(ct, &Plaintext::from_coefficients(ct.params(), &[])?);
        }
        let moved = evaluator.apply_galois_many(ct, &order, keys)?;
        let mut acc: Option<Ciphertext<P, B>> = None;
        for (h, rotated) in order.iter().zip(&moved) {
            let values = terms.get(h).map_or(&[][..], Vec::as_slice);
            let plain = self.slots.encode_plaintext(ct.params(), values)?;
            accumulate(evaluator, &mut acc, evaluator.mul_plain(rotated, &plain)?)?;
        }
        acc.ok_or(RlweError::InvalidParameter {
            name: "matrix",
            value: 0,
            requirement: "a nonzero matrix has a term (internal error)".to_string(),
        })
    }

    /// The Galois elements [`matrix_mul_dimension`](Self::matrix_mul_dimension) applies along
    /// `dimension`: `g^k` for `0 < k < o`, and on a bad dimension `g^{k - o}` too.
    pub fn matrix_elements(&self, dimension: usize) -> Result<Vec<u64>> {
        let (_, o) = self.dimension(dimension)?;
        let mut elements = Vec::new();
        for k in 1..o {
            elements.extend(self.rotation_elements(dimension, k as i64)?);
        }
        Ok(elements)
    }

    /// The linear map `matrix` (`o x o` entries, each an element of the slot ring given by at
    /// most `d` coefficients) applied along `dimension` to every column of slots: slot `e`
    /// receives `sum_j matrix[e_i][j] x[e with e_i = j]` (HElib's `MatMul1D` with one matrix).
    /// The diagonal method: `y = sum_k D_k * rot_k(x)` with `D_k[e] = matrix[e_i][e_i + k]`,
    /// the rotations as automorphisms of one hoisted `c_1` (`apply_galois_many`; on a bad
    /// dimension both `sigma_{g^k}` and `sigma_{g^{k - o}}`, the masks folded into the
    /// diagonals), one plaintext product per automorphism, so one level.
    ///
    /// Errors with [`RlweError::InvalidParameter`] for a matrix of another shape or entries not
    /// in the slot ring, and as the scheme's automorphisms and products.
    pub fn matrix_mul_dimension<B: RlweBackend, P: SchemeParameters, S>(
        &self,
        evaluator: &S,
        ct: &Ciphertext<P, B>,
        dimension: usize,
        matrix: &[Vec<Vec<u64>>],
        keys: &GaloisKeys<B>,
    ) -> Result<Ciphertext<P, B>>
    where
        S: SlotEvaluator<B, P>,
    {
        let (g, o) = self.dimension(dimension)?;
        check_matrix(matrix, o, dimension)?;
        let m = self.hypercube().m;
        let good = self.hypercube().good[dimension];
        let wrap_back = self.order_in_units(g) - o as u64;
        // The automorphisms, in one hoisted call: g^k (k < o), then g^{k - o} (bad, 0 < k < o).
        let mut elements: Vec<u64> = (0..o as u64).map(|k| pow(g, k, m)).collect();
        if !good {
            elements.extend((1..o as u64).map(|k| pow(g, k + wrap_back, m)));
        }
        let moved = evaluator.apply_galois_many(ct, &elements, keys)?;
        let params = ct.params();
        let diagonal = |k: usize, wraps: bool| self.diagonal(matrix, dimension, k, wraps);
        let mut acc: Option<Ciphertext<P, B>> = None;
        for (k, rotated) in moved.iter().take(o).enumerate() {
            let plain = self.slots.encode_plaintext(params, &diagonal(k, false))?;
            accumulate(evaluator, &mut acc, evaluator.mul_plain(rotated, &plain)?)?;
        }
        for (k, rotated) in moved.iter().skip(o).enumerate().map(|(i, c)| (i + 1, c)) {
            let plain = self.slots.encode_plaintext(params, &diagonal(k, true))?;
            accumulate(evaluator, &mut acc, evaluator.mul_plain(rotated, &plain)?)?;
        }
        acc.ok_or(RlweError::InvalidParameter {
            name: "dimension order",
            value: o as u64,
            requirement: "must be at least 1".to_string(),
        })
    }

    /// The Galois elements [`matrix_mul_dimension_bsgs`](Self::matrix_mul_dimension_bsgs)
    /// (and a [`PreparedDimensionMap`] with `baby` baby steps) applies along `dimension`: the
    /// baby steps `g^j` for `0 < j < baby` (on a bad dimension also `g^{j - o}` for
    /// `0 <= j < baby`) and the giant steps `g^{i baby}`.
    pub fn bsgs_elements(&self, dimension: usize, baby: usize) -> Result<Vec<u64>> {
        let (babies, giants) = self.bsgs_steps(dimension, baby)?;
        let mut elements: Vec<u64> = babies.into_iter().chain(giants).filter(|&e| e != 1).collect();
        elements.sort_unstable();
        elements.dedup();
        Ok(elements)
    }

    /// The baby-step automorphisms (`g^j`, then `g^{j - o}` on a bad dimension) and the giant
    /// steps' (`g^{i b}`, `i = 0` included) of `dimension` with `baby` (clamped) baby steps.
    fn bsgs_steps(&self, dimension: usize, baby: usize) -> Result<(Vec<u64>, Vec<u64>)> {
        let (g, o) = self.dimension(dimension)?;
        let baby = baby.clamp(1, o);
        let m = self.hypercube().m;
        let mut babies: Vec<u64> = (0..baby as u64).map(|j| pow(g, j, m)).collect();
        if !self.hypercube().good[dimension] {
            let wrap_back = self.order_in_units(g) - o as u64;
            babies.extend((0..baby as u64).map(|j| pow(g, j + wrap_back, m)));
        }
        let giants = (0..o.div_ceil(baby) as u64).map(|i| pow(g, i * baby as u64, m)).collect();
        Ok((babies, giants))
    }

    /// [`matrix_mul_dimension`](Self::matrix_mul_dimension) by the baby-step giant-step
    /// method: [`prepare_matrix_dimension`](Self::prepare_matrix_dimension), then
    /// [`apply_prepared`](Self::apply_prepared); the same messages with about
    /// `baby + o / baby` automorphisms (`2 baby + o / baby` on a bad dimension) instead of
    /// `o - 1` (`2 (o - 1)`). Errors as both.
    #[allow(clippy::too_many_arguments)]
    pub fn matrix_mul_dimension_bsgs<B: RlweBackend, P: SchemeParameters, S>(
        &self,
        evaluator: &S,
        ct: &Ciphertext<P, B>,
        dimension: usize,
        matrix: &[Vec<Vec<u64>>],
        baby: usize,
        keys: &GaloisKeys<B>,
    ) -> Result<Ciphertext<P, B>>
    where
        S: SlotEvaluator<B, P>,
    {
        let prepared = self.prepare_matrix_dimension(evaluator, ct.params(), dimension, matrix, baby)?;
        self.apply_prepared(evaluator, ct, &prepared, keys)
    }

    /// The linear map `matrix` along `dimension` (as
    /// [`matrix_mul_dimension`](Self::matrix_mul_dimension)) with its diagonals encoded once,
    /// for the baby-step giant-step method (Halevi and Shoup, CRYPTO 2018, section 4; HElib's
    /// `MatMul1DExec`): `y = sum_i sigma_{g^{i b}}(S_i)` with
    /// `S_i = sum_j sigma_{g^{-i b}}(A_{i b + j}) sigma_{g^j}(x) + sigma_{g^{-i b}}(B_{i b + j}) sigma_{g^{j - o}}(x)`,
    /// `A_k` the diagonal `D_k` on the
    /// slots whose exponent stays below `o` after adding `k` (all of them on a good
    /// dimension), `B_k` on those that wrap (bad dimensions only), the automorphisms
    /// `sigma_{g^{-i b}}` applied to the encoded diagonals in the clear. Zero terms are
    /// dropped. `baby` is clamped to `1 ..= o` (about `sqrt(o)`, or `sqrt(o / 2)` on a bad
    /// dimension, balances the steps). Errors with [`RlweError::InvalidParameter`] for a bad
    /// dimension index, a matrix of another shape or entries not in the slot ring.
    pub fn prepare_matrix_dimension<B: RlweBackend, P: SchemeParameters, S>(
        &self,
        evaluator: &S,
        params: &Arc<P>,
        dimension: usize,
        matrix: &[Vec<Vec<u64>>],
        baby: usize,
    ) -> Result<PreparedDimensionMap<S::PreparedPlaintext>>
    where
        S: SlotEvaluator<B, P>,
    {
        let (g, o) = self.dimension(dimension)?;
        check_matrix(matrix, o, dimension)?;
        let baby = baby.clamp(1, o);
        let (babies, giant_elements) = self.bsgs_steps(dimension, baby)?;
        let m = self.hypercube().m;
        let order = self.order_in_units(g);
        let good = self.hypercube().good[dimension];
        let diagonal = |k: usize, wraps: bool| self.diagonal(matrix, dimension, k, wraps);
        let mut giants = Vec::with_capacity(giant_elements.len());
        for (i, &element) in giant_elements.iter().enumerate() {
            let shift = (i * baby) as u64;
            let back = pow(g, (order - shift % order) % order, m);
            let mut terms = Vec::new();
            for j in 0..baby {
                let k = i * baby + j;
                if k >= o {
                    break;
                }
                let parts: &[(usize, bool)] = if good { &[(j, false)] } else { &[(j, false), (baby + j, true)] };
                for &(index, wraps) in parts {
                    let values = diagonal(k, wraps);
                    if values.iter().all(|v| v.iter().all(|&c| c == 0)) {
                        continue;
                    }
                    let encoded = self.slots.encode(&values)?;
                    let rotated = if shift == 0 { encoded } else { self.slots.automorphism(&encoded, back)? };
                    let plain = Plaintext::from_coefficients(params, &rotated)?;
                    terms.push((index, evaluator.prepare_plain(&plain)?));
                }
            }
            giants.push((element, terms));
        }
        Ok(PreparedDimensionMap { dimension, babies, giants })
    }

    /// `ct` times a prepared map ([`prepare_matrix_dimension`](Self::prepare_matrix_dimension)):
    /// the baby steps as automorphisms of one hoisted `c_1`, one plaintext product per term,
    /// one automorphism per giant step. Errors as the scheme's automorphisms (a missing key:
    /// [`bsgs_elements`](Self::bsgs_elements) lists them) and products.
    pub fn apply_prepared<B: RlweBackend, P: SchemeParameters, S>(
        &self,
        evaluator: &S,
        ct: &Ciphertext<P, B>,
        prepared: &PreparedDimensionMap<S::PreparedPlaintext>,
        keys: &GaloisKeys<B>,
    ) -> Result<Ciphertext<P, B>>
    where
        S: SlotEvaluator<B, P>,
    {
        let rotated = evaluator.apply_galois_many(ct, &prepared.babies, keys)?;
        let mut acc: Option<Ciphertext<P, B>> = None;
        for (element, terms) in &prepared.giants {
            let mut inner: Option<Ciphertext<P, B>> = None;
            for (index, plain) in terms {
                let baby = rotated.get(*index).ok_or(RlweError::InvalidParameter {
                    name: "baby step",
                    value: *index as u64,
                    requirement: "a prepared map's term must name one of its baby steps (internal error)".to_string(),
                })?;
                accumulate(evaluator, &mut inner, evaluator.mul_plain_prepared(baby, plain)?)?;
            }
            let Some(inner) = inner else { continue };
            let moved = if *element == 1 { inner } else { evaluator.apply_galois(&inner, *element, keys)? };
            accumulate(evaluator, &mut acc, moved)?;
        }
        match acc {
            Some(y) => Ok(y),
            // The zero matrix: the input times the zero plaintext keeps its level and scale.
            None => evaluator.mul_plain(ct, &Plaintext::from_coefficients(ct.params(), &[])?),
        }
    }

    /// The diagonal `D_k[e] = matrix[e_i][e_i + k]` of a map along `dimension` (entries per
    /// slot), restricted to the slots whose exponent wraps past `o` after adding `k` when
    /// `wraps`, to those that stay below it otherwise; on a good dimension every slot stays.
    fn diagonal(&self, matrix: &[Vec<Vec<u64>>], dimension: usize, k: usize, wraps: bool) -> Vec<Vec<u64>> {
        let cube = self.hypercube();
        let o = cube.orders[dimension];
        let stride: usize = cube.orders[dimension + 1..].iter().product();
        let good = cube.good[dimension];
        (0..self.slots.slot_count())
            .map(|e| {
                let digit = e / stride % o;
                if (!good && (digit + k >= o) != wraps) || (good && wraps) {
                    return Vec::new();
                }
                matrix[digit][(digit + k) % o].clone()
            })
            .collect()
    }

    /// `(g_i, o_i)`, or an error for a dimension that does not exist.
    fn dimension(&self, dimension: usize) -> Result<(u64, usize)> {
        match (self.hypercube().generators.get(dimension), self.hypercube().orders.get(dimension)) {
            (Some(&g), Some(&o)) => Ok((g, o)),
            _ => Err(RlweError::InvalidParameter {
                name: "dimension",
                value: dimension as u64,
                requirement: format!("must be below the hypercube's {} dimensions", self.hypercube().orders.len()),
            }),
        }
    }

    /// The order of `g` in `Z_m^*` (so `g^{k - o}` is `g^{k - o + order}`, a positive power).
    fn order_in_units(&self, g: u64) -> u64 {
        let m = self.hypercube().m;
        let mut x = g % m;
        let mut order = 1;
        while x != 1 % m {
            x = (u128::from(x) * u128::from(g) % u128::from(m)) as u64;
            order += 1;
        }
        order
    }

    /// The plaintext with 1 in the slots whose exponent along `dimension` lies in
    /// `low..high`, 0 elsewhere; its coefficients encoded once per interval and kept (the
    /// rotations along a bad dimension and the shifts multiply by these at every call).
    fn mask<P: SchemeParameters>(
        &self,
        params: &Arc<P>,
        dimension: usize,
        low: usize,
        high: usize,
    ) -> Result<Plaintext<P>> {
        let key = (dimension, low, high);
        if let Some(coefficients) = self.masks.lock().ok().and_then(|masks| masks.get(&key).cloned()) {
            return Plaintext::from_coefficients(params, &coefficients);
        }
        let stride: usize = self.hypercube().orders[dimension + 1..].iter().product();
        let o = self.hypercube().orders[dimension];
        let values: Vec<Vec<u64>> = (0..self.slots.slot_count())
            .map(|e| if (low..high).contains(&(e / stride % o)) { vec![1] } else { Vec::new() })
            .collect();
        let coefficients = self.slots.encode(&values)?;
        if let Ok(mut masks) = self.masks.lock()
            && masks.len() < MAX_CACHED_MASKS
        {
            masks.insert(key, coefficients.clone());
        }
        Plaintext::from_coefficients(params, &coefficients)
    }
}

/// `sum += term` (`sum = term` when empty).
fn accumulate<B: RlweBackend, P: SchemeParameters, S: SlotEvaluator<B, P>>(
    evaluator: &S,
    sum: &mut Option<Ciphertext<P, B>>,
    term: Ciphertext<P, B>,
) -> Result<()> {
    *sum = Some(match sum.take() {
        Some(acc) => evaluator.add(&acc, &term)?,
        None => term,
    });
    Ok(())
}

/// The rotation amounts [`HypercubeOps::sum_dimension`] applies for a dimension of order `o`.
fn sum_steps(o: usize) -> Vec<usize> {
    let mut steps = Vec::new();
    let mut length = 1usize;
    for bit in (0..usize::BITS - o.leading_zeros() - 1).rev() {
        steps.push(length);
        length *= 2;
        if (o >> bit) & 1 == 1 {
            steps.push(1);
            length += 1;
        }
    }
    steps
}

/// A linear map along one dimension with its diagonals encoded and prepared by the scheme
/// (`T`, its [`Evaluator::PreparedPlaintext`]: on the GPU, lifted and transformed on the
/// device) for the baby-step giant-step method ([`HypercubeOps::prepare_matrix_dimension`]):
/// prepare once, apply to many ciphertexts of the same parameters.
#[derive(Debug, Clone)]
pub struct PreparedDimensionMap<T> {
    dimension: usize,
    /// The baby-step automorphisms, applied to the input in one hoisted call.
    babies: Vec<u64>,
    /// Per giant step: its automorphism and its terms.
    giants: Vec<GiantStep<T>>,
}

/// One giant step of a [`PreparedDimensionMap`]: its Galois element and its terms (the index
/// of a baby step, the prepared diagonal that multiplies it).
type GiantStep<T> = (u64, Vec<(usize, T)>);

impl<T> PreparedDimensionMap<T> {
    /// The dimension the map runs along.
    pub fn dimension(&self) -> usize {
        self.dimension
    }

    /// The number of plaintext products one application costs.
    pub fn plaintext_products(&self) -> usize {
        self.giants.iter().map(|(_, terms)| terms.len()).sum()
    }
}

/// Errors unless `matrix` is `o x o`.
fn check_matrix(matrix: &[Vec<Vec<u64>>], o: usize, dimension: usize) -> Result<()> {
    if matrix.len() != o || matrix.iter().any(|row| row.len() != o) {
        return Err(RlweError::InvalidParameter {
            name: "matrix size",
            value: matrix.len() as u64,
            requirement: format!("must be {o} x {o}, the order of dimension {dimension}"),
        });
    }
    Ok(())
}
