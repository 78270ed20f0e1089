//! Host-side checks of the transform plans: kernel tables, pass shapes, shared-memory layout.

use super::passes::{
    ButterflyPipe, KernelTable, PASS_KERNELS, PassFunction, PassKind, SINGLE_KERNELS, SINGLE_LOG_RADIX,
};
use super::schedule::{NttSchedule, NttTransform, SHORT_STRIDED_MIN_POINTS, ntt_passes, pass_launch};
use crate::tuning::{NttSplit, NttTuning};

/// A tuning's splits and single-pass bound set the schedule where valid, else the defaults.
#[test]
fn schedule_takes_the_tuning_splits() {
    let default = NttTuning::default();
    let tuned = NttTuning {
        splits: vec![
            NttSplit { log_n: 15, strided: 7, contiguous: 8 },
            NttSplit { log_n: 16, strided: 7, contiguous: 10 },
        ],
        single_pass_max_log_n: Some(11),
        ..NttTuning::default()
    };
    assert_eq!(NttSchedule::for_log_degree(15, &default).unwrap(), NttSchedule::TwoPass { strided: 6, contiguous: 9 });
    assert_eq!(NttSchedule::for_log_degree(15, &tuned).unwrap(), NttSchedule::TwoPass { strided: 7, contiguous: 8 });
    // No kernel of 2^10 contiguous points: the default split.
    assert_eq!(NttSchedule::for_log_degree(16, &tuned).unwrap(), NttSchedule::TwoPass { strided: 7, contiguous: 9 });
    assert_eq!(NttSchedule::for_log_degree(11, &tuned).unwrap(), NttSchedule::Single { log_n: 11 });
    assert_eq!(NttSchedule::for_log_degree(12, &tuned).unwrap(), NttSchedule::TwoPass { strided: 6, contiguous: 6 });
}

/// A tuning's forced radix and medium bounds change the passes' kernels, where they exist.
#[test]
fn pass_shapes_follow_the_tuning() {
    let tuned = NttTuning { strided_log_radix: Some(3), medium_launch_points: 0, ..NttTuning::default() };
    let schedule = NttSchedule::for_log_degree(16, &tuned).unwrap();
    for grid_y in [4u32, 32] {
        let default =
            ntt_passes(&NttTuning::default(), NttTransform::Forward, &schedule, 16, grid_y, ButterflyPipe::Integer)
                .unwrap();
        let passes = ntt_passes(&tuned, NttTransform::Forward, &schedule, 16, grid_y, ButterflyPipe::Integer).unwrap();
        assert_eq!(passes[0].name, "ntt_fwd_strided_7_lr3", "{grid_y} limbs: default {}", default[0].name);
        assert_ne!(passes[0].name, default[0].name, "{grid_y} limbs");
        assert_eq!(passes[1].name, default[1].name, "{grid_y} limbs");
    }
}

/// A two-pass contiguous pass never spans the whole transform (its inverse kernels have no
/// stage-0 scale): such a launch is refused, not run.
#[test]
fn contiguous_pass_of_the_whole_transform_is_refused() {
    assert!(
        pass_launch(
            &NttTuning::default(),
            PassFunction::Inverse,
            PassKind::Contiguous,
            1 << 9,
            9,
            1,
            true,
            ButterflyPipe::Integer
        )
        .is_err()
    );
    assert!(
        pass_launch(
            &NttTuning::default(),
            PassFunction::Inverse,
            PassKind::Contiguous,
            1 << 10,
            9,
            1,
            true,
            ButterflyPipe::Integer
        )
        .is_ok()
    );
}

/// The contiguous blocks' shared-memory layout of kernels/ntt.cu (`Pass::swizzle`, mirrored
/// here): a permutation of each block's words, and in every round's window (and in the
/// coalesced row loops) the 16 threads of a half-warp reach 16 distinct banks of 64-bit
/// words, for every contiguous and single-block kernel built.
#[test]
fn contiguous_shared_layout_is_conflict_free() {
    const SWIZZLE_NIBBLES: u32 = 0x369C_FA50; // kernels/ntt.cu
    let swizzle = |a: usize| a ^ ((SWIZZLE_NIBBLES >> ((a >> 2) & 28)) & 15) as usize;
    let mut shapes: Vec<(u32, u32, u32)> = PASS_KERNELS
        .iter()
        .filter(|k| k.kind == PassKind::Contiguous)
        .map(|k| (k.log_m, k.log_radix, k.columns))
        .collect();
    shapes.extend((10..=12).map(|log_n| (log_n, SINGLE_LOG_RADIX, 1)));
    for (log_m, log_r, columns) in shapes {
        let (m, r) = (1usize << log_m, 1usize << log_r);
        let words = columns as usize * m;
        let threads = words / r;
        let mut seen = vec![false; words];
        for a in 0..words {
            assert!(swizzle(a) < words && !std::mem::replace(&mut seen[swizzle(a)], true), "2^{log_m}: {a}");
        }
        // Round windows, as Pass::window: the top round owns the highest bits.
        let rounds = log_m.div_ceil(log_r);
        let short = log_m - (rounds - 1) * log_r;
        let windows = (0..rounds).map(|q| if q == 0 { log_m - log_r } else { log_m - short - q * log_r });
        let mut accesses: Vec<Vec<usize>> = Vec::new();
        for w in windows {
            for u in 0..r {
                accesses.push(
                    (0..threads)
                        .map(|tid| {
                            let (f, column) = (tid % (m / r), tid / (m / r));
                            let base = (f & ((1 << w) - 1)) | ((f >> w) << (w + log_r));
                            column * m + base + (u << w)
                        })
                        .collect(),
                );
            }
        }
        for t in 0..r {
            accesses.push((0..threads).map(|tid| tid + t * threads).collect());
        }
        for access in accesses {
            for half_warp in access.chunks(16) {
                let mut banks: Vec<usize> = half_warp.iter().map(|&a| swizzle(a) % 16).collect();
                banks.sort_unstable();
                banks.dedup();
                assert_eq!(banks.len(), half_warp.len(), "2^{log_m}, radix 2^{log_r}, {columns} columns");
            }
        }
    }
}

/// With the default knobs, the passes of each launch size take the shapes `pass_shape`
/// documents (small launches: radix-4 contiguous pass; medium ones: radix 4 with 8-column
/// strided and 512-point contiguous blocks where those kernels exist, and radix-4 strided
/// passes of 2^6 points above 2^18 and up to 2^19 points; larger ones radix 16 strided, radix 8
/// contiguous), and every launch covers each limb's `N` points exactly once.
#[test]
fn pass_shapes_follow_the_launch_size() {
    let tuning = NttTuning::default();
    for log_n in 13u32..=17 {
        let schedule = NttSchedule::for_log_degree(log_n, &NttTuning::default()).unwrap();
        let NttSchedule::TwoPass { strided, contiguous } = schedule else { unreachable!() };
        for grid_y in [1u32, 2, 4, 5, 8, 9, 12, 16, 17, 24, 25, 32, 48, 64] {
            let points = (grid_y as usize) << log_n;
            let label = format!("N = 2^{log_n}, {grid_y} limbs ({points} points)");
            let passes = ntt_passes(
                &NttTuning::default(),
                NttTransform::Forward,
                &schedule,
                log_n,
                grid_y,
                ButterflyPipe::Integer,
            )
            .unwrap();
            let [first, last] = passes.as_slice() else { panic!("{label}: {} passes", passes.len()) };
            let small = points <= NttTuning::default().small_launch_points;
            let medium_strided = !small && points <= tuning.medium_launch_points && (7..=8).contains(&strided);
            let short_strided =
                points > SHORT_STRIDED_MIN_POINTS && points <= tuning.short_strided_launch_points && strided <= 6;
            let medium_contiguous =
                !small && points <= tuning.medium_contiguous_launch_points && (7..=9).contains(&contiguous);
            let strided_suffix = if medium_strided {
                "_lr2_c8".to_string()
            } else if short_strided {
                "_lr2".to_string()
            } else {
                format!("_lr{}", if strided > 6 { 4 } else { 3 })
            };
            assert!(first.name.ends_with(&strided_suffix), "{label}: {}", first.name);
            let contiguous_suffix = match (small && contiguous <= 6, medium_contiguous) {
                (true, _) => "_lr2",
                (false, true) => "_lr2_w512",
                (false, false) => "_lr3",
            };
            assert!(last.name.ends_with(contiguous_suffix), "{label}: {}", last.name);
            for pass in [first, last] {
                let kernel = PASS_KERNELS.get(pass.index).unwrap();
                let (grid, block) = (pass.config.grid_dim, pass.config.block_dim);
                assert_eq!(grid.1, grid_y, "{label}: {}", pass.name);
                assert_eq!((grid.0 * kernel.columns) << kernel.log_m, 1 << log_n, "{label}: {}", pass.name);
                assert_eq!(block.0 << kernel.log_radix, kernel.columns << kernel.log_m, "{label}: {}", pass.name);
            }
        }
    }
}

/// For every schedule and launch size: the inverse of a product launches the inverse's
/// kernels with the same shapes, its first kernel replaced by that kernel's product
/// variant; the inverse of a multiply-add too, but for its first pass's shape above the
/// small launches;
/// exactly the first pass of each transform is marked as the one that reads the source
/// (forward) or takes the product (inverse).
#[test]
fn inverse_of_product_replaces_only_the_first_inverse_kernel() {
    let mut schedules: Vec<(u32, NttSchedule)> =
        (10..=17).map(|log_n| (log_n, NttSchedule::for_log_degree(log_n, &NttTuning::default()).unwrap())).collect();
    schedules.extend((10..=12).map(|log_n| (log_n, NttSchedule::Single { log_n })));
    for (log_n, schedule) in schedules {
        for grid_y in [1u32, 3, 16, 17, 32, 33, 64, 300] {
            let label = format!("{schedule:?}, N = 2^{log_n}, {grid_y} limbs");
            let passes = |transform| {
                ntt_passes(&NttTuning::default(), transform, &schedule, log_n, grid_y, ButterflyPipe::Integer).unwrap()
            };
            let forward = passes(NttTransform::Forward);
            let inverse = passes(NttTransform::Inverse);
            let product = passes(NttTransform::InverseOfProduct);
            let mul_add = passes(NttTransform::InverseOfMulAdd);
            assert_eq!(inverse.len(), product.len(), "{label}");
            assert_eq!(inverse.len(), mul_add.len(), "{label}");
            assert_eq!(forward.len(), inverse.len(), "{label}");
            for passes in [&forward, &inverse, &product, &mul_add] {
                let firsts: Vec<bool> = passes.iter().map(|p| p.first).collect();
                assert_eq!(firsts.iter().filter(|&&f| f).count(), 1, "{label}");
                assert!(firsts[0], "{label}");
            }
            assert_eq!(product[0].name, inverse[0].name.replacen("ntt_inv_", "ntt_inv_product_", 1), "{label}");
            // The multiply-add pass is the inverse's first pass, or above the small launches
            // the medium contiguous shape (radix 4, 512 points a block: the same threads a
            // block, twice the blocks) where that kernel exists.
            let same = inverse[0].name.replacen("ntt_inv_", "ntt_inv_mul_add_", 1);
            if mul_add[0].name == same {
                assert_eq!(mul_add[0].config.grid_dim, inverse[0].config.grid_dim, "{label}");
            } else {
                let points = (grid_y as usize) << log_n;
                assert!(points > NttTuning::default().small_launch_points, "{label}");
                assert!(inverse[0].name.ends_with("_lr3"), "{label}: {}", inverse[0].name);
                assert_eq!(mul_add[0].name, same.replacen("_lr3", "_lr2_w512", 1), "{label}");
                let (g, i) = (mul_add[0].config.grid_dim, inverse[0].config.grid_dim);
                assert_eq!((g.0, g.1, g.2), (2 * i.0, i.1, i.2), "{label}");
            }
            assert_eq!(mul_add[0].config.block_dim, inverse[0].config.block_dim, "{label}");
            for (p, i) in product.iter().zip(&inverse).chain(mul_add.iter().zip(&inverse).skip(1)) {
                assert_eq!(p.config.grid_dim, i.config.grid_dim, "{label}");
                assert_eq!(p.config.block_dim, i.config.block_dim, "{label}");
            }
            for (p, i) in product.iter().zip(&inverse).skip(1).chain(mul_add.iter().zip(&inverse).skip(1)) {
                assert_eq!(p.name, i.name, "{label}");
            }
            // Each pass names the kernel table entry that its handle is taken from.
            for pass in forward.iter().chain(&inverse).chain(&product).chain(&mul_add) {
                let names = match pass.table {
                    KernelTable::Pass => PASS_KERNELS.get(pass.index).map(|k| k.names),
                    KernelTable::Single => SINGLE_KERNELS.get(pass.index).copied(),
                };
                assert_eq!(names.and_then(|n| n.get(pass.function)), Some(pass.name), "{label}");
            }
            // The forward's first pass is the strided one (or the single-block kernel).
            assert!(!forward[0].name.contains("contiguous"), "{label}: {}", forward[0].name);
            assert!(!product[0].name.contains("strided"), "{label}: {}", product[0].name);
            assert!(!mul_add[0].name.contains("strided"), "{label}: {}", mul_add[0].name);
        }
    }
}

/// On the FP64 pipe every two-pass launch takes the `_f64` twin of the integer pass's kernel,
/// with the same shape; single-block launches stay on the integer kernels.
#[test]
fn fp64_passes_are_the_integer_passes_twins() {
    let tuning = NttTuning::default();
    let transforms = [
        NttTransform::Forward,
        NttTransform::Inverse,
        NttTransform::InverseOfProduct,
        NttTransform::InverseOfMulAdd,
        NttTransform::InverseFrom,
        NttTransform::ForwardOfExtension,
    ];
    for log_n in 10..=17 {
        let schedule = NttSchedule::for_log_degree(log_n, &tuning).unwrap();
        for grid_y in [1u32, 3, 16, 32, 64] {
            for transform in transforms {
                let integer = ntt_passes(&tuning, transform, &schedule, log_n, grid_y, ButterflyPipe::Integer).unwrap();
                let fp64 = ntt_passes(&tuning, transform, &schedule, log_n, grid_y, ButterflyPipe::Fp64).unwrap();
                assert_eq!(integer.len(), fp64.len());
                for (i, f) in integer.iter().zip(&fp64) {
                    let label = format!("2^{log_n} x {grid_y}, {transform:?}: {} / {}", i.name, f.name);
                    assert_eq!((i.index, i.function, i.first), (f.index, f.function, f.first), "{label}");
                    assert_eq!((i.config.grid_dim, i.config.block_dim), (f.config.grid_dim, f.config.block_dim));
                    match f.table {
                        KernelTable::Pass => {
                            assert_eq!(f.name, format!("{}_f64", i.name), "{label}");
                            assert_eq!(f.pipe, ButterflyPipe::Fp64, "{label}");
                        }
                        KernelTable::Single => assert_eq!((f.name, f.pipe), (i.name, ButterflyPipe::Integer)),
                    }
                }
            }
        }
    }
}

/// The FP64 pipe is taken only where the tuning asks for it and every prime is short enough.
#[test]
fn fp64_pipe_needs_short_primes_and_the_tuning() {
    let on = NttTuning::default();
    let off = NttTuning { fp64_butterflies: false, ..NttTuning::default() };
    let below = (1u64 << super::passes::FP64_NTT_MAX_PRIME_BITS) - 1;
    let above = 1u64 << super::passes::FP64_NTT_MAX_PRIME_BITS;
    assert_eq!(ButterflyPipe::for_primes(&on, [65537, below].into_iter()), ButterflyPipe::Fp64);
    assert_eq!(ButterflyPipe::for_primes(&on, [65537, above].into_iter()), ButterflyPipe::Integer);
    assert_eq!(ButterflyPipe::for_primes(&off, [65537].into_iter()), ButterflyPipe::Integer);
}
