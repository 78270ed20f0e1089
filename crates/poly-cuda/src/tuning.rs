//! [`GpuTuning`]: the launch choices of one device, as data. A [`GpuDevice`](crate::GpuDevice)
//! holds one ([`GpuDevice::with_tuning`](crate::GpuDevice::with_tuning); [`GpuDevice::new`](crate::GpuDevice::new)
//! takes [`GpuTuning::default`]) and every launch reads its device's: two devices of one process
//! may run different choices side by side. The defaults are the measured best on an H100 (the
//! figures are on each field); every choice computes the same values, bit for bit, only the
//! kernels' shapes and launches differ. Library code reads no environment variable; the
//! benchmarks build a tuning from theirs (`benches/src/tuning.rs`).
//!
//! Values a device cannot take (a split or radix without kernels, a cluster above the device's
//! limit) fall back to the default for that launch, as documented per field.

/// The launch choices of one device: NTT shapes, graph replay, programmatic launches, and the
/// RNS conversions' block shape (read by the `rns` crate through the device).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct GpuTuning {
    /// Transform splits and pass shapes, and the fused passes' thresholds.
    pub ntt: NttTuning,
    /// CUDA graph replay of recorded operations.
    pub graphs: GraphTuning,
    /// Whether the kernels listed in [`crate::kernel::waits_for_inputs`] launch with a
    /// programmatic dependency on the kernel before them (outside graph capture; sm_90 and up,
    /// ignored below). Default on (docs/performance.md).
    pub programmatic_launches: bool,
    /// The RNS conversions of the `rns` crate.
    pub rns: RnsTuning,
    /// The transforms of the rings `Z_q[x]/Phi_m` (`crate::bluestein`).
    pub cyclotomic: CyclotomicTuning,
}

impl Default for GpuTuning {
    fn default() -> Self {
        Self {
            ntt: NttTuning::default(),
            graphs: GraphTuning::default(),
            programmatic_launches: true,
            rns: RnsTuning::default(),
            cyclotomic: CyclotomicTuning::default(),
        }
    }
}

/// The choices of the rings `Z_q[x]/Phi_m` on the device (`crate::bluestein::GpuCyclotomic`,
/// `crate::prime_factor`). The same words under every choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct CyclotomicTuning {
    /// The reduction modulo `Phi_m` runs as the binomial steps, a block per row in shared memory
    /// (`ReductionMethod::BinomialSteps`), where a row fits and `Phi_m`'s two step sequences
    /// have at most this many steps together; else as two products of NTTs. Default 6: H200,
    /// `gpu_cyclo_bgv`, four 50-bit limbs, the same call: at `m = 15709 = 23 * 683` (six steps)
    /// the inverse transform with the reduction 68.1 -> 58.7 us, relinearization 226 -> 211; at
    /// `m = 21845` (fourteen steps) 61.8 -> 93.8 us (docs/cyclotomic.md). 0: never.
    pub binomial_max_steps: usize,
    /// Two neighbouring direct axes of the prime-factor DFT run as one pass
    /// (`pf_direct_pair`) rather than one pass each. Default on (docs/cyclotomic.md).
    pub pair_direct_axes: bool,
}

impl Default for CyclotomicTuning {
    fn default() -> Self {
        Self { binomial_max_steps: 6, pair_direct_axes: true }
    }
}

/// A split of two-pass transforms of `2^log_n` points: the strided pass takes `strided`
/// stages, the contiguous pass `contiguous`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NttSplit {
    /// `log2(N)` of the transforms it applies to.
    pub log_n: u32,
    /// The stages of the strided pass.
    pub strided: u32,
    /// The stages of the contiguous pass.
    pub contiguous: u32,
}

/// How transforms split into passes and which shape each pass takes by the launch's size
/// (`points`: polynomials times limbs times `N`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct NttTuning {
    /// The largest `log2(N)` that runs as a single-block pass (`10..=12`) for every launch;
    /// `None` (default): every degree runs two passes (small launches excepted:
    /// [`single_launch_points`](Self::single_launch_points)).
    pub single_pass_max_log_n: Option<u32>,
    /// Splits of two-pass transforms in place of the defaults, each taken where both passes
    /// have kernels (strided 5..=8, contiguous 5..=9) and the two add up to `log_n` (the first
    /// such entry for a degree). Default: none. The default splits: at `2^15` and `2^16` the
    /// contiguous pass takes 9 of the stages: the strided pass, whose radix-16 blocks hold few
    /// warps, has fewer, and the contiguous one, which hides its latency better, more. H100,
    /// same call (against the 8 x 7 and 8 x 8 splits before): every kernel of `bgv_bench --sets
    /// 32768,65536` 1.9% less in all; BGV Mul+Relin at 2^16 514.8-520.1 -> 508.6-511.1 us,
    /// DecryptResident 61.0-64.5 -> 59.5-61.4 us; BFV Mul+Relin at `phantom-32768` 512-523 ->
    /// 501-503 us (docs/performance.md).
    pub splits: Vec<NttSplit>,
    /// `log2` of the points per thread of every strided pass (`2..=4`) where `kernels/ntt.cu`
    /// has such a kernel; `None` (default): by launch size, as below.
    pub strided_log_radix: Option<u32>,
    /// The same for the contiguous passes.
    pub contiguous_log_radix: Option<u32>,
    /// Launches of at most this many points run their contiguous pass with the radix-4 kernels
    /// (more threads, shorter per-thread chains) where they exist. Default 2^15: such launches
    /// fill few SMs, their latency, not their throughput, sets their time, so their contiguous
    /// pass (the longer chain: it also generates its twiddles) takes the radix-4 kernel. H100,
    /// N = 2^12 x 3 limbs, forward: 8.5 us against 8.9 with radix 8 and 8.8 with radix 4 in both
    /// passes.
    pub small_launch_points: usize,
    /// Launches with `N <= 2^11` of at most this many points run as one single-block pass per
    /// limb (one launch instead of two). Default 2^15: small launches are bound by launch
    /// latency, and one launch beats two where a single block per limb is quick. H100, forward /
    /// inverse us, two passes -> single block: N = 2^10 x 4 limbs 8.6 / 8.5 -> 6.8 / 6.7; 2^11 x
    /// 4: 8.6 / 8.7 -> 7.9 / 7.8; but 2^12 x 3: 8.5 / 8.8 -> 11.1 / 11.3, hence `N <= 2^11`.
    pub single_launch_points: usize,
    /// Launches of more than [`small_launch_points`](Self::small_launch_points) and at most
    /// this many points take the medium strided shape ([`medium_strided`](Self::medium_strided))
    /// where such a kernel exists; 0 turns it off. Default `3 * 2^17`: medium launches fill
    /// less than a wave of the default shapes: at N = 2^14 over 8 limbs the strided pass of 16
    /// columns had 64 blocks for 132 SMs. Radix 4 with 8 columns per block (twice the blocks,
    /// four times the threads) took the strided passes there from 4.9 to 3.8 us (inverse) and
    /// from 4.6 to 3.6 us (forward), and at 2^14 x 24 limbs (3 x 2^17 points) from 5.9 to 5.5
    /// us; at 2^15 x 16 limbs (2^19 points) it was slower, 7.6 against 7.3 us (H100, ncu,
    /// docs/performance.md).
    pub medium_launch_points: usize,
    /// The strided pass of medium launches: `(log2 points per thread, columns per block)`.
    /// Default `(2, 8)`.
    pub medium_strided: (u32, u32),
    /// [`medium_launch_points`](Self::medium_launch_points) for the contiguous pass. Default
    /// 2^18: the contiguous pass in radix 4 with blocks of 512 points: at 2^14 x 8 limbs 4.6 to
    /// 4.4 us (inverse), 5.6 to 4.9 us (the decryption's multiply-add pass), at 2^14 x 16 limbs
    /// 8.2 to 7.5 us (ModDown's pass); at 2^14 x 24 limbs no faster (6.8 us), hence 2^18.
    pub medium_contiguous_launch_points: usize,
    /// The contiguous pass of medium launches: `(log2 points per thread, points per block)`.
    /// Default `(2, 512)`.
    pub medium_contiguous: (u32, u32),
    /// [`medium_contiguous_launch_points`](Self::medium_contiguous_launch_points) for the
    /// decryption's multiply-add pass (the first inverse pass loading
    /// `addend + source * factor`); 0 leaves that pass to the general bound. Default
    /// `usize::MAX`: the multiply-add pass takes the medium contiguous shape at every size above
    /// the small launches: it loads three words a point, and with radix 8 its blocks left the
    /// SMs at 21% achieved occupancy (2^15 x 16 limbs). H100, ncu: 11.3 -> 10.0 us at 2^15 x 16
    /// limbs, 35.6 -> 32.5 us at 2^16 x 32 (docs/performance.md).
    pub mul_add_medium_launch_points: usize,
    /// Launches of more than 2^18 points (`SHORT_STRIDED_MIN_POINTS`) and at most this many run
    /// their strided passes of 2^5 and 2^6 points in radix 4 (16 columns a block, twice the
    /// threads of radix 8); 0 turns it off. Default 2^19: at 2^15 (strided passes of 2^6 points)
    /// over 16 limbs, 512 blocks of radix 8 hold 20% of the warps an H100 can (ncu). Radix 4 took
    /// BGV's decryption there from 19.8 to 19.3 us of kernels and its Mul+Relin from 137.2 to
    /// 136.0 us. Every strided pass of 2^6 points in radix 4 cost BFV's `phantom-32768`
    /// Mul+Relin 1-2% (its extended bases have more limbs), hence at most 2^19 points
    /// (docs/performance.md).
    pub short_strided_launch_points: usize,
    /// The largest cluster of the inverse transform's last pass fused with the centered lift
    /// (devices with thread block clusters, `N <= 2^12`); at most 16, 0 turns the fused lift
    /// off (the strided pass, then a separate reduction). Read when the device opens. Default
    /// 16 (H100's non-portable limit; the portable 8 where the driver refuses more). H100,
    /// DecryptResident: at 2^12 6.0 us of kernels against 7.2 for the strided pass and the
    /// separate reduction (docs/performance.md).
    pub lift_max_cluster: u32,
    /// The fewest blocks (`N / 1024` per limb, one grid row per limb) for which key switching's
    /// inner product is fused with the forward transform's last pass: with fewer, its grid
    /// leaves the GPU idle where the separate pass (one row per limb and digit) does not.
    /// Default 256. H100 A/B: BFV `phantom-16384` (8 limbs, 128 blocks) 3% slower fused,
    /// `phantom-32768` (16 limbs, 512 blocks) Rotate 17% faster.
    pub forward_ip_min_blocks: usize,
    /// Whether two-pass transforms whose primes are all below
    /// [`FP64_NTT_MAX_PRIME_BITS`](crate::FP64_NTT_MAX_PRIME_BITS) bits run their butterflies on the
    /// FP64 pipe (exact products from fused multiply-adds; kernels/ntt.cu) rather than as
    /// integer Shoup products. The same words either way. Default on.
    pub fp64_butterflies: bool,
}

impl Default for NttTuning {
    fn default() -> Self {
        Self {
            single_pass_max_log_n: None,
            splits: Vec::new(),
            strided_log_radix: None,
            contiguous_log_radix: None,
            small_launch_points: 1 << 15,
            single_launch_points: 1 << 15,
            medium_launch_points: 3 << 17,
            medium_strided: (2, 8),
            medium_contiguous_launch_points: 1 << 18,
            medium_contiguous: (2, 512),
            mul_add_medium_launch_points: usize::MAX,
            short_strided_launch_points: 1 << 19,
            lift_max_cluster: 16,
            forward_ip_min_blocks: 256,
            fp64_butterflies: true,
        }
    }
}

impl NttTuning {
    /// The split of [`splits`](Self::splits) for `2^log_n`, if one is valid: both passes have
    /// kernels and add up to `log_n`.
    pub(crate) fn split_for(&self, log_n: u32) -> Option<(u32, u32)> {
        self.splits.iter().find_map(|split| {
            (split.log_n == log_n
                && (5..=8).contains(&split.strided)
                && (5..=9).contains(&split.contiguous)
                && split.strided + split.contiguous == log_n)
                .then_some((split.strided, split.contiguous))
        })
    }
}

/// Whether and up to which degree recorded operations are replayed as CUDA graphs
/// ([`crate::graph::replay_enabled`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct GraphTuning {
    /// Whether operations are replayed at all (off: every call launches its kernels
    /// directly). Default on.
    pub replay: bool,
    /// The largest ring degree replayed, for every operation; `None` (default): each
    /// operation's own bound ([`crate::graph::DEFAULT_MAX_DEGREE`], or a larger one where an
    /// operation measured faster replayed).
    pub max_degree: Option<usize>,
    /// Whether [`RelocatableGraph::record_programmatic`](crate::graph::RelocatableGraph::record_programmatic)
    /// records programmatic edges (off: ordinary edges). Default on.
    pub programmatic: bool,
}

impl Default for GraphTuning {
    fn default() -> Self {
        Self { replay: true, max_degree: None, programmatic: true }
    }
}

/// The block shape of the RNS conversions of the `rns` crate (`kernels/rns.cu`), and where
/// key switching is hoisted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct RnsTuning {
    /// The fewest outputs (output limbs times tile coefficients) a conversion block takes
    /// where the limbs allow; `None` (default): 1024, or 2048 for launches of 1024 tiles or
    /// more (`rns`'s `min_block_outputs` gives the measurements).
    pub min_block_outputs: Option<usize>,
    /// The smallest `log2(N)` at which several rotations of one ciphertext share one ModUp
    /// (`rlwe::hoisting`); below, each runs as a plain rotation, whose launches replay as one
    /// CUDA graph. Default 14: eight rotations on an H200 took 0.69x as long one by one at
    /// `N = 2^12` as hoisted, 1.10x at `2^14`, 1.38x at `2^15`, 1.46x at `2^16`
    /// (docs/performance.md). The words are the same either way.
    pub hoisting_min_log_n: u32,
    /// Whether the conversions whose factors are all below 2^40 (the FP64 products of
    /// `kernels/rns.cu`) form their sums with the FP64 tensor cores' MMAs rather than FP64
    /// multiply-adds, one per part product. The same exact sums either way.
    pub tensor_core_products: bool,
}

impl Default for RnsTuning {
    fn default() -> Self {
        Self { min_block_outputs: None, hoisting_min_log_n: 14, tensor_core_products: true }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The defaults are the values the knobs had before they were fields (the measured best).
    #[test]
    fn defaults_are_the_measured_choices() {
        let tuning = GpuTuning::default();
        assert!(tuning.programmatic_launches);
        assert_eq!(tuning.graphs, GraphTuning { replay: true, max_degree: None, programmatic: true });
        assert_eq!((tuning.rns.min_block_outputs, tuning.rns.hoisting_min_log_n), (None, 14));
        assert!(tuning.rns.tensor_core_products);
        let ntt = tuning.ntt;
        assert_eq!((ntt.single_pass_max_log_n, ntt.splits.len()), (None, 0));
        assert_eq!((ntt.strided_log_radix, ntt.contiguous_log_radix), (None, None));
        assert_eq!((ntt.small_launch_points, ntt.single_launch_points), (1 << 15, 1 << 15));
        assert_eq!((ntt.medium_launch_points, ntt.medium_strided), (3 << 17, (2, 8)));
        assert_eq!((ntt.medium_contiguous_launch_points, ntt.medium_contiguous), (1 << 18, (2, 512)));
        assert_eq!((ntt.mul_add_medium_launch_points, ntt.short_strided_launch_points), (usize::MAX, 1 << 19));
        assert_eq!((ntt.lift_max_cluster, ntt.forward_ip_min_blocks), (16, 256));
        assert!(ntt.fp64_butterflies);
        assert_eq!(tuning.cyclotomic, CyclotomicTuning { binomial_max_steps: 6, pair_direct_axes: true });
    }

    #[test]
    fn split_takes_valid_entries_only() {
        let tuning = |splits: &[(u32, u32, u32)]| NttTuning {
            splits: splits
                .iter()
                .map(|&(log_n, strided, contiguous)| NttSplit { log_n, strided, contiguous })
                .collect(),
            ..NttTuning::default()
        };
        assert_eq!(tuning(&[(15, 7, 8)]).split_for(15), Some((7, 8)));
        assert_eq!(tuning(&[(16, 8, 8), (15, 7, 8)]).split_for(15), Some((7, 8)));
        assert_eq!(tuning(&[(15, 7, 8)]).split_for(16), None);
        // The passes must add up to log_n and have kernels.
        assert_eq!(tuning(&[(15, 7, 9)]).split_for(15), None);
        assert_eq!(tuning(&[(17, 7, 10)]).split_for(17), None);
        assert_eq!(tuning(&[(14, 4, 10)]).split_for(14), None);
        // An invalid entry for the degree leaves a later valid one.
        assert_eq!(tuning(&[(15, 7, 9), (15, 6, 9)]).split_for(15), Some((6, 9)));
        assert_eq!(tuning(&[]).split_for(15), None);
    }
}
