//! `cargo xtask setup-cuda`: installs the pinned CUDA compiler with pip into
//! `<workspace>/.cuda/pip` (git-ignored), where `build_support` finds it.
//!
//! The four packages are pinned together: a newer `nvidia-nvvm` emits PTX that the
//! CUDA 13.0 driver of the GPU machines rejects (docs/anchors.md, "The GPU machine").

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::util::{display, project_root, run, section};

/// (PyPI name, version), installed together.
pub const PINNED_PACKAGES: [(&str, &str); 4] = [
    ("nvidia-cuda-nvcc", "13.0.88"),
    ("nvidia-cuda-crt", "13.0.88"),
    ("nvidia-nvvm", "13.0.88"),
    ("nvidia-cuda-runtime", "13.0.96"),
];

/// The release string `nvcc --version` prints for the pinned compiler.
const PINNED_NVCC_RELEASE: &str = "V13.0.88";

#[derive(Debug, Default)]
pub struct Options {
    /// Reinstall even if the pinned packages are already there.
    pub force: bool,
}

/// `<root>/.cuda/pip`
pub fn install_dir(root: &Path) -> PathBuf {
    root.join(".cuda").join("pip")
}

/// Where the pip wheel puts nvcc.
pub fn pip_nvcc(root: &Path) -> PathBuf {
    install_dir(root).join("nvidia").join("cu13").join("bin").join("nvcc")
}

/// The `*.dist-info` directory name pip writes for a package.
fn dist_info_name(package: &str, version: &str) -> String {
    format!("{}-{version}.dist-info", package.replace('-', "_"))
}

/// Why the install directory does not hold exactly the pinned compiler, or `None` if it does.
fn missing_piece(root: &Path) -> Option<String> {
    let dir = install_dir(root);
    for (package, version) in PINNED_PACKAGES {
        let info = dir.join(dist_info_name(package, version));
        if !info.is_dir() {
            return Some(format!("{package}=={version} is not installed ({} missing)", info.display()));
        }
    }
    let nvcc = pip_nvcc(root);
    match Command::new(&nvcc).arg("--version").output() {
        Ok(out) if out.status.success() => {
            let text = String::from_utf8_lossy(&out.stdout);
            if text.contains(PINNED_NVCC_RELEASE) {
                None
            } else {
                Some(format!("{} is not release {PINNED_NVCC_RELEASE}", nvcc.display()))
            }
        }
        Ok(out) => Some(format!("`{} --version` failed ({})", nvcc.display(), out.status)),
        Err(err) => Some(format!("cannot run {}: {err}", nvcc.display())),
    }
}

pub fn run_command(options: &Options) -> Result<()> {
    let root = project_root();
    let dir = install_dir(&root);
    section("setup-cuda: pinned CUDA compiler (pip) in .cuda/pip");
    if !options.force {
        match missing_piece(&root) {
            None => {
                println!("already installed: {} ({PINNED_NVCC_RELEASE})", pip_nvcc(&root).display());
                return Ok(());
            }
            Some(reason) => println!("installing: {reason}"),
        }
    }
    // A partial or different install would mix versions: start from an empty directory.
    if dir.exists() {
        println!("removing {}", dir.display());
        std::fs::remove_dir_all(&dir).with_context(|| format!("could not remove {}", dir.display()))?;
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("could not create {}", dir.display()))?;

    let python = std::env::var_os("PYTHON").unwrap_or_else(|| "python3".into());
    let mut pip = Command::new(python);
    pip.args(["-m", "pip", "install", "--no-input", "--disable-pip-version-check", "--no-compile", "--target"])
        .arg(&dir)
        .args(PINNED_PACKAGES.iter().map(|(package, version)| format!("{package}=={version}")));
    run(&mut pip).with_context(|| {
        format!("pip could not install the pinned CUDA compiler; the command was `{}`", display(&pip))
    })?;

    if let Some(reason) = missing_piece(&root) {
        bail!("pip finished but the pinned compiler is not usable: {reason}");
    }
    println!("installed: {} ({PINNED_NVCC_RELEASE})", pip_nvcc(&root).display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dist_info_names_follow_pip() {
        assert_eq!(dist_info_name("nvidia-cuda-nvcc", "13.0.88"), "nvidia_cuda_nvcc-13.0.88.dist-info");
    }

    #[test]
    fn an_empty_directory_is_reported_missing() {
        let dir = std::env::temp_dir().join(format!("xtask-setup-cuda-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let reason = missing_piece(&dir).unwrap();
        assert!(reason.contains("nvidia-cuda-nvcc==13.0.88"), "{reason}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
