//! Benchmarks live in `benches/` (CPU, criterion) and `src/bin` (GPU); this library holds what
//! the GPU binaries share.

#[cfg(feature = "cuda")]
pub mod gpu_timing;
#[cfg(feature = "cuda")]
pub mod tuning;
