//! nvcc discovery, the shared nvcc flags and the kernel sources, for the commands that
//! build CUDA (`test`, `ci`, `kernels`, `test-gpu`, `bundle`).
//!
//! TEMPORARY: `crates/poly-cuda/build_support.rs` (the one place build.rs and xtask share)
//! does not exist yet; this module follows its announced contract (NVCC, CUDA_PATH, PATH,
//! /usr/local/cuda, .cuda/pip; `kernels/nvcc.flags`, one argument per line, `#` comments)
//! and will delegate to it once it lands.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};

/// The nvcc that `crates/poly-cuda/build.rs` would use.
pub fn find_nvcc(root: &Path) -> Result<PathBuf> {
    let is_file = |p: &Path| p.is_file();
    if let Some(explicit) = std::env::var_os("NVCC") {
        let path = PathBuf::from(explicit);
        return if is_file(&path) { Ok(path) } else { Err(anyhow!("NVCC={} is not a file", path.display())) };
    }
    let mut tried = Vec::new();
    let mut candidates = Vec::new();
    if let Some(cuda_path) = std::env::var_os("CUDA_PATH") {
        candidates.push(PathBuf::from(cuda_path).join("bin").join("nvcc"));
    }
    if let Some(path) = std::env::var_os("PATH") {
        candidates.extend(std::env::split_paths(&path).map(|dir| dir.join("nvcc")));
    }
    candidates.push(PathBuf::from("/usr/local/cuda/bin/nvcc"));
    candidates.push(crate::setup_cuda::pip_nvcc(root));
    for candidate in candidates {
        if is_file(&candidate) {
            return Ok(candidate);
        }
        tried.push(candidate.display().to_string());
    }
    Err(anyhow!("nvcc not found (NVCC unset; tried {})", tried.join(", ")))
}

/// The shared nvcc arguments from `kernels/nvcc.flags`, relative include paths made absolute.
pub fn nvcc_flags(root: &Path) -> Result<Vec<String>> {
    let path = root.join("kernels").join("nvcc.flags");
    let text = std::fs::read_to_string(&path).with_context(|| format!("could not read {}", path.display()))?;
    Ok(text
        .lines()
        .map(|line| line.split('#').next().unwrap_or("").trim())
        .filter(|line| !line.is_empty())
        .map(str::to_owned)
        .collect())
}

/// Every `kernels/*.cu`, sorted.
pub fn kernel_sources(root: &Path) -> Result<Vec<PathBuf>> {
    let dir = root.join("kernels");
    let mut sources = Vec::new();
    for entry in std::fs::read_dir(&dir).with_context(|| format!("could not list {}", dir.display()))? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "cu") {
            sources.push(path);
        }
    }
    sources.sort();
    Ok(sources)
}
