//! Benchmarks live in benches/ (CPU, criterion) and src/bin (GPU).
