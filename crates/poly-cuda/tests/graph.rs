//! Graphs recorded once and re-pointed at other buffers (`poly_cuda::graph::RelocatableGraph`)
//! against the CPU, word for word: an NTT-ring multiply-add and the scaled inverse of a
//! multiply-add (an out-of-place transform of two passes) replayed on fresh operands many
//! times back to back, with the results read only at the end, also with programmatic
//! dependencies between the transform's passes (there each set also runs again on the same
//! buffers and into a second output: no update, and an update of some kernels only);
//! recordings that cannot be re-pointed (an allocation inside the body) fail with
//! `Unsupported`. Skips, saying why, without a CUDA device.
#![cfg(feature = "cuda")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::Arc;

use poly::{Coeff, Eval, Poly, TransformKind};
use poly_cuda::graph::{BufferSpan, RelocatableGraph};
use poly_cuda::raw::InverseScale;
use poly_cuda::{DevicePoly, GpuContext, GpuDevice, GpuError, GpuTuning};

use common::{device, ring};

/// The operands of one replay: `[x, a, b]` and the output.
type Operands = ([DevicePoly<Eval>; 3], DevicePoly<Coeff>);

fn spans_of(device: &GpuDevice, (polys, out): &Operands) -> Vec<BufferSpan> {
    let mut spans: Vec<BufferSpan> = polys.iter().map(|p| BufferSpan::of(p.device_buffer(), device)).collect();
    spans.push(BufferSpan::of(out.device_buffer(), device));
    spans
}

/// Records `out <- inverse(x + a b)` scaled by per-limb factors (preceded by `x <- x + a b`,
/// an element-wise kernel, unless `programmatic`: the programmatic graph holds the decryption's
/// kernels only, the transform's passes) on two template sets,
/// replays it on eight fresh operand sets without waiting in between, and checks every result
/// against the CPU; then buffers of other sizes are refused with nothing queued.
fn check_replays(device: &Arc<GpuDevice>, log_n: u32, limbs: usize, bits: u32, programmatic: bool) {
    let ring = ring(log_n, limbs, bits, TransformKind::Ntt);
    let context = GpuContext::new(device, &ring).unwrap();
    let label = format!("N = 2^{log_n}, {limbs} limbs, programmatic {programmatic}");
    let mut rng = common::rng("replays_follow_their_own_buffers", u64::from(log_n) + u64::from(programmatic));
    let factors: Vec<u64> = ring.moduli().iter().map(|m| 3 % m.value() + 2).collect();
    let scale = InverseScale::new(&context, &factors).unwrap();
    let zero_set = || -> Operands {
        ([(); 3].map(|()| DevicePoly::<Eval>::zero(&context).unwrap()), DevicePoly::<Coeff>::zero(&context).unwrap())
    };
    let mut templates = [zero_set(), zero_set()];
    let (first, second) = (spans_of(device, &templates[0]), spans_of(device, &templates[1]));
    let body = |k: usize| -> Result<(), GpuError> {
        let ([x, a, b], out) = &mut templates[k];
        if !programmatic {
            x.mul_add_assign(a, b)?;
        }
        x.inverse_of_mul_add_scaled_into(a, b, &scale, out)
    };
    let mut graph = if programmatic {
        RelocatableGraph::record_programmatic(device, &first, &second, body).unwrap()
    } else {
        RelocatableGraph::record(device, &first, &second, body).unwrap()
    };
    drop(templates);
    if programmatic && device.name().contains("H100") && device.tuning().graphs.programmatic {
        assert!(graph.is_programmatic(), "{label}: the H100 refused programmatic dependencies");
    }
    if !device.tuning().graphs.programmatic {
        assert!(!graph.is_programmatic(), "{label}: the tuning asks for ordinary edges");
    }

    let mut sets = Vec::new();
    for _ in 0..8 {
        let host: [Poly<Eval>; 3] = [(); 3].map(|()| common::random_poly(&ring, &mut rng));
        let operands = (host.clone().map(|p| DevicePoly::upload(&context, &p).unwrap()), zero_set().1);
        sets.push((host, operands));
    }
    // The programmatic body reads its inputs only, so a set may run again: once on the same
    // buffers (no kernel re-pointed) and once into a second output (only the output's kernel
    // re-pointed), both checked below.
    let mut seconds = Vec::new();
    for (_, operands) in &sets {
        graph.launch(device, &spans_of(device, operands)).unwrap();
        if programmatic {
            graph.launch(device, &spans_of(device, operands)).unwrap();
            let second = DevicePoly::<Coeff>::zero(&context).unwrap();
            let mut spans = spans_of(device, operands);
            spans[3] = BufferSpan::of(second.device_buffer(), device);
            graph.launch(device, &spans).unwrap();
            seconds.push(second);
        }
    }
    for (i, (host, (polys, out))) in sets.iter().enumerate() {
        let [x, a, b] = host;
        let mut sum = x.clone();
        if !programmatic {
            sum.mul_add_assign(a, b).unwrap();
        }
        assert_eq!(polys[0].download().unwrap(), sum, "{label}: set {i}: x");
        let mut phase = sum.clone();
        phase.mul_add_assign(a, b).unwrap();
        let mut want = phase.inverse().unwrap();
        want.scalar_mul_per_limb_assign(&factors).unwrap();
        assert_eq!(out.download().unwrap(), want, "{label}: set {i}: scaled inverse");
        if let Some(second) = seconds.get(i) {
            assert_eq!(second.download().unwrap(), want, "{label}: set {i}: scaled inverse, second output");
        }
        assert_eq!(polys[1].download().unwrap(), *a, "{label}: set {i}: an input changed");
    }

    // Buffers of other sizes than the templates': refused, nothing queued.
    let one_limb = GpuContext::new(device, &common::ring(log_n, 1, bits, TransformKind::Ntt)).unwrap();
    let short = DevicePoly::<Eval>::zero(&one_limb).unwrap();
    let mut spans = spans_of(device, &sets[0].1);
    spans[0] = BufferSpan::of(short.device_buffer(), device);
    assert!(matches!(graph.launch(device, &spans), Err(GpuError::LengthMismatch { .. })), "{label}");
    assert!(matches!(graph.launch(device, &spans[..3]), Err(GpuError::LengthMismatch { .. })), "{label}");
}

/// `x <- x + a b` and `out <- inverse(x + a b)` scaled, replayed (`check_replays`).
#[test]
fn replays_follow_their_own_buffers() {
    let Some(device) = device() else { return };
    for (log_n, limbs, bits) in [(12u32, 3usize, 50u32), (14, 8, 36)] {
        check_replays(&device, log_n, limbs, bits, false);
    }
}

/// The scaled inverse with programmatic dependencies between its two passes
/// (kernels/include/dependent_launch.cuh), replayed (`check_replays`). On the H100 (sm_90) the
/// dependencies must be programmatic; elsewhere the graph may fall back to ordinary ones. A
/// second device of the same process, tuned to record ordinary edges, replays the same body.
#[test]
fn programmatic_replays_follow_their_own_buffers() {
    let Some(device) = device() else { return };
    let mut ordinary = GpuTuning::default();
    ordinary.graphs.programmatic = false;
    let ordinary = GpuDevice::with_tuning(0, ordinary).unwrap();
    for device in [&device, &ordinary] {
        for (log_n, limbs, bits) in [(12u32, 2usize, 36u32), (14, 8, 36), (15, 16, 36)] {
            check_replays(device, log_n, limbs, bits, true);
        }
    }
}

/// A body that allocates (an out-of-place sum) records an address the graph owns: it cannot be
/// re-pointed, and recording says so.
#[test]
fn recordings_that_allocate_are_refused() {
    let Some(device) = device() else { return };
    let ring = ring(12, 2, 50, TransformKind::Ntt);
    let context = GpuContext::new(&device, &ring).unwrap();
    let templates = [(); 2].map(|()| DevicePoly::<Eval>::zero(&context).unwrap());
    let spans: Vec<BufferSpan> = templates.iter().map(|p| BufferSpan::of(p.device_buffer(), &device)).collect();
    let recorded = RelocatableGraph::record(&device, &spans[..1], &spans[1..], |k| -> Result<(), GpuError> {
        let sum = templates[k].add(&templates[k])?;
        drop(sum);
        Ok(())
    });
    assert!(matches!(recorded, Err(GpuError::Unsupported { .. })), "{recorded:?}");
}
