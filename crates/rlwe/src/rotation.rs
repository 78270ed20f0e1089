//! Rotations of the batching rows by any number of slots: the Galois keys to generate for a
//! list of steps (or the compact default, SEAL's: the power-of-two steps both ways and the row
//! swap), and the plan that applies a step with the keys held, composed from the fewest of
//! them when the step has no key of its own.
//!
//! In the layout of `x^N + 1` (two rows of `N/2` slots), the element `3^k mod 2N` rotates both
//! rows left by `k`; rotations compose by adding their steps modulo `N/2`. A plan is a shortest
//! path in that cyclic group from `0` to the step, the held rotations as the edges (a
//! breadth-first search over at most `N/2` nodes, made only when the step has no key).

use std::collections::{HashSet, VecDeque};

use poly::{RingKind, Seed};

use crate::galois_key::{galois_element_for_row_rotation, galois_element_for_row_swap};
use crate::{GaloisKeys, Result, RlweBackend, RlweContext, RlweError, SecretKey};

/// SEAL's default rotation steps for degree `degree`: `2^k` and `-2^k` for `2^k < N/2` (one
/// key each; `N/4` and `-N/4` are one element). Any step is a sum of at most `log2(N/2)` of
/// them, and [`sum_slots`](crate::Evaluator::sum_slots) needs exactly the positive ones.
pub fn default_rotation_steps(degree: usize) -> Vec<i64> {
    let row = degree / 2;
    let mut steps = Vec::new();
    let mut power = 1usize;
    while power < row {
        let step = i64::try_from(power).unwrap_or(i64::MAX);
        steps.push(step);
        if 2 * power != row {
            steps.push(-step);
        }
        power *= 2;
    }
    steps
}

/// The Galois elements of the row rotations by `steps` (duplicates and the identity dropped),
/// with the row swap `2N - 1` when `row_swap` is set: what to pass to key generation.
pub fn rotation_elements(degree: usize, steps: &[i64], row_swap: bool) -> Vec<u64> {
    let mut elements: Vec<u64> = steps.iter().map(|&s| galois_element_for_row_rotation(degree, s)).collect();
    if row_swap {
        elements.push(galois_element_for_row_swap(degree));
    }
    elements.retain(|&g| g != 1);
    elements.sort_unstable();
    elements.dedup();
    elements
}

/// The steps (in `[0, N/2)`) of the held elements that rotate rows: the discrete logarithms
/// base 3 modulo `2N` of those in the subgroup `<3>` (the row swap and its products are not).
fn held_steps(degree: usize, held: &[u64]) -> Vec<(usize, u64)> {
    let row = degree / 2;
    let two_n = (degree as u64).saturating_mul(2);
    let wanted: HashSet<u64> = held.iter().copied().collect();
    let mut steps = Vec::new();
    let mut power = 1u64;
    for k in 0..row {
        if k > 0 && wanted.contains(&power) {
            steps.push((k, power));
        }
        power = (u128::from(power) * 3 % u128::from(two_n)) as u64;
    }
    steps
}

/// The fewest held rotations whose steps add up to `target` modulo `row` (`None` when none
/// do): a breadth-first search from 0 in the cyclic group of order `row`, the edges
/// `(step, element)` (also the hypercube's dimensions, [`crate::hypercube_ops`]).
pub(crate) fn shortest_plan(row: usize, edges: &[(usize, u64)], target: usize) -> Option<Vec<u64>> {
    // via[x] = the edge that first reached x (usize::MAX: not reached).
    let mut via = vec![usize::MAX; row];
    let mut queue = VecDeque::from([0usize]);
    via[0] = edges.len();
    while let Some(node) = queue.pop_front() {
        if node == target {
            break;
        }
        for (index, &(step, _)) in edges.iter().enumerate() {
            let next = (node + step) % row;
            if via[next] == usize::MAX {
                via[next] = index;
                queue.push_back(next);
            }
        }
    }
    if via[target] == usize::MAX {
        return None;
    }
    let mut plan = Vec::new();
    let mut node = target;
    while node != 0 {
        let (step, element) = edges[via[node]];
        plan.push(element);
        node = (node + row - step) % row;
    }
    Some(plan)
}

impl<B: RlweBackend> RlweContext<B> {
    /// Errors with [`RlweError::InvalidParameter`] unless the ring is `x^N + 1`: the two rows
    /// of `N/2` slots are its layout; the slots of `Phi_m` are indexed by `Z_m^*`, not two
    /// cycles of one generator in general (there, apply a unit of `Z_m^*` as a Galois element).
    pub fn check_rows(&self, operation: &'static str) -> Result<()> {
        match self.params.ring_kind() {
            RingKind::NegacyclicPowerOfTwo { .. } => Ok(()),
            RingKind::Cyclotomic { m } => Err(RlweError::InvalidParameter {
                name: "m",
                value: m as u64,
                requirement: format!(
                    "{operation} needs the two rows of x^N + 1; over Phi_m apply a unit of Z_m^* as a Galois element"
                ),
            }),
        }
    }

    /// Galois keys of `secret` for the row rotations by `steps` (each step's own key; other
    /// steps are composed from them), with the row swap when `row_swap` is set, from a fresh
    /// OS seed. Over `Phi_m`: [`RlweError::InvalidParameter`] ([`check_rows`](Self::check_rows)).
    pub fn generate_rotation_keys(
        &self,
        secret: &SecretKey<B>,
        steps: &[i64],
        row_swap: bool,
    ) -> Result<GaloisKeys<B>> {
        self.check_rows("rotation keys")?;
        self.generate_galois_keys(secret, &rotation_elements(self.params.degree(), steps, row_swap))
    }

    /// [`generate_rotation_keys`](Self::generate_rotation_keys) from `seed`: the keys of
    /// [`galois_keys_from_seed`](Self::galois_keys_from_seed) for the steps' elements.
    pub fn rotation_keys_from_seed(
        &self,
        secret: &SecretKey<B>,
        steps: &[i64],
        row_swap: bool,
        seed: &Seed,
    ) -> Result<GaloisKeys<B>> {
        self.check_rows("rotation keys")?;
        let elements = rotation_elements(self.params.degree(), steps, row_swap);
        self.galois_keys_from_seed(secret, &elements, seed)
    }

    /// The compact default set of rotation keys: [`default_rotation_steps`] (`2 log2(N/2) - 1`
    /// keys) and the row swap, which make every rotation (at most `log2(N/2)` key switches
    /// each), [`sum_slots`](crate::Evaluator::sum_slots) and
    /// [`replicate`](crate::Evaluator::replicate).
    pub fn generate_default_rotation_keys(&self, secret: &SecretKey<B>) -> Result<GaloisKeys<B>> {
        self.generate_rotation_keys(secret, &default_rotation_steps(self.params.degree()), true)
    }

    /// The Galois elements to apply, one after the other, to rotate both rows left by `steps`
    /// with `keys`: none for a multiple of `N/2`, the step's own element when `keys` hold it,
    /// else the fewest held row rotations whose steps add up to `steps` modulo `N/2`.
    ///
    /// Errors with [`RlweError::InvalidParameter`] over `Phi_m` ([`check_rows`](Self::check_rows))
    /// and with [`RlweError::MissingRotationKey`] (naming `operation`, the step and its element)
    /// when no composition of the held keys makes the step.
    pub fn row_rotation_plan(&self, keys: &GaloisKeys<B>, steps: i64, operation: &'static str) -> Result<Vec<u64>> {
        self.check_rows(operation)?;
        let degree = self.params.degree();
        let element = galois_element_for_row_rotation(degree, steps);
        if element == 1 {
            return Ok(Vec::new());
        }
        if keys.contains(element) {
            return Ok(vec![element]);
        }
        let row = degree / 2;
        let target = steps.rem_euclid(i64::try_from(row).unwrap_or(i64::MAX)) as usize;
        let edges = held_steps(degree, &keys.elements());
        shortest_plan(row, &edges, target).ok_or(RlweError::MissingRotationKey { operation, steps, element })
    }
}

impl<B: RlweBackend> RlweContext<B> {
    /// One-element plans for the automorphisms `elements` (empty for the identity) of a
    /// ciphertext of `ciphertext_size` polynomials and key set `ciphertext_key_set`, every
    /// element checked as [`galois_key_for`](Self::galois_key_for) checks it before any
    /// automorphism runs: what `apply_galois_many` hands to
    /// [`crate::hoisting::hoisted_rotations`]. Errors as `galois_key_for`.
    pub fn galois_plans(
        &self,
        keys: &GaloisKeys<B>,
        elements: &[u64],
        ciphertext_size: usize,
        ciphertext_key_set: Option<crate::KeySetId>,
        operation: &'static str,
    ) -> Result<Vec<Vec<u64>>> {
        elements
            .iter()
            .map(|&element| {
                let (_, key) = self.galois_key_for(keys, element, ciphertext_size, ciphertext_key_set, operation)?;
                Ok(key.map_or_else(Vec::new, |_| vec![element]))
            })
            .collect()
    }

    /// [`row_rotation_plan`](Self::row_rotation_plan) of each of `steps`, all made (and every
    /// step checked) before any rotation runs.
    pub fn row_rotation_plans(
        &self,
        keys: &GaloisKeys<B>,
        steps: &[i64],
        operation: &'static str,
    ) -> Result<Vec<Vec<u64>>> {
        steps.iter().map(|&step| self.row_rotation_plan(keys, step, operation)).collect()
    }
}

/// `ciphertext` with the Galois elements of `plan` applied one after the other by `apply`
/// (an empty plan applies the identity, element 1, which still checks the operands).
pub fn apply_plan<C>(ciphertext: &C, plan: &[u64], mut apply: impl FnMut(&C, u64) -> Result<C>) -> Result<C> {
    let Some((&first, rest)) = plan.split_first() else {
        return apply(ciphertext, 1);
    };
    let mut current = apply(ciphertext, first)?;
    for &element in rest {
        current = apply(&current, element)?;
    }
    Ok(current)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The step of a row rotation by exhaustive search (the oracle of the discrete logarithm).
    fn step_of(degree: usize, element: u64) -> Option<usize> {
        (0..degree / 2).find(|&k| galois_element_for_row_rotation(degree, k as i64) == element)
    }

    #[test]
    fn default_steps_are_the_powers_of_two_both_ways() {
        assert_eq!(default_rotation_steps(16), vec![1, -1, 2, -2, 4]);
        assert!(default_rotation_steps(0).is_empty());
        assert!(default_rotation_steps(2).is_empty());
        let elements = rotation_elements(16, &default_rotation_steps(16), true);
        // 5 distinct rotations and the swap 31.
        assert_eq!(elements.len(), 6);
        assert!(elements.contains(&31));
    }

    #[test]
    fn plans_add_up_to_the_step_with_the_fewest_keys() {
        for degree in [8usize, 16, 64, 256] {
            let row = degree / 2;
            let held = rotation_elements(degree, &default_rotation_steps(degree), true);
            for target in 1..row {
                let edges = held_steps(degree, &held);
                let plan = shortest_plan(row, &edges, target).unwrap();
                let total: usize = plan.iter().map(|&g| step_of(degree, g).unwrap()).sum();
                assert_eq!(total % row, target, "degree {degree}, step {target}");
                // The non-adjacent form of the step (or of row - step) bounds the fewest keys.
                let naf = |mut x: i64| {
                    let mut count = 0;
                    while x != 0 {
                        if x & 1 == 1 {
                            x -= 2 - (x & 3);
                            count += 1;
                        }
                        x >>= 1;
                    }
                    count
                };
                let bound = naf(target as i64).min(naf(target as i64 - row as i64));
                assert!(plan.len() <= bound, "degree {degree}, step {target}: {} keys > {bound}", plan.len());
            }
        }
    }

    #[test]
    fn held_steps_are_discrete_logarithms() {
        let degree = 64;
        let held: Vec<u64> = (1..128).step_by(2).collect();
        for (step, element) in held_steps(degree, &held) {
            assert_eq!(step_of(degree, element), Some(step));
        }
        // The swap 2N - 1 is not a row rotation.
        assert!(held_steps(degree, &[127]).is_empty());
    }

    #[test]
    fn an_unreachable_step_has_no_plan() {
        // Only rotations by 2 held: odd steps are out of reach.
        let degree = 32;
        let edges = held_steps(degree, &[galois_element_for_row_rotation(degree, 2)]);
        assert!(shortest_plan(16, &edges, 3).is_none());
        assert_eq!(shortest_plan(16, &edges, 6).map(|p| p.len()), Some(3));
    }
}
