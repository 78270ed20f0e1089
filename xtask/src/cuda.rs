//! nvcc discovery, the shared nvcc flags and the kernel sources, for the commands that
//! build CUDA (`test`, `ci`, `kernels`, `test-gpu`, `bundle`). They come from
//! `kernels/build_support.rs`, the one place that the `hegpu-kernels` build script
//! (`kernels/build.rs`) also uses, so xtask and the build find the same nvcc and pass the
//! same flags.

use std::path::{Path, PathBuf};

use anyhow::{Result, anyhow};

#[path = "../../kernels/build_support.rs"]
mod build_support;

/// The kernels directory (the `hegpu-kernels` crate) of the workspace at `root`.
pub fn kernels_dir(root: &Path) -> PathBuf {
    root.join(build_support::KERNELS_DIR)
}

/// The nvcc that `kernels/build.rs` uses (`NVCC`, `CUDA_PATH`, PATH, `/usr/local/cuda`, then
/// the `cargo xtask setup-cuda` install).
pub fn find_nvcc(root: &Path) -> Result<PathBuf> {
    build_support::find_nvcc(&kernels_dir(root)).map_err(|e| anyhow!(e))
}

/// The arguments in `kernels/nvcc.flags`, include directories made absolute.
pub fn nvcc_flags(root: &Path) -> Result<Vec<String>> {
    build_support::nvcc_flags(&kernels_dir(root)).map_err(|e| anyhow!(e))
}

/// Every `kernels/*.cu`, sorted by file name.
pub fn kernel_sources(root: &Path) -> Result<Vec<PathBuf>> {
    build_support::kernel_sources(&kernels_dir(root)).map_err(|e| anyhow!(e))
}
