//! Locating nvcc, reading the shared nvcc flags and compiling the CUDA kernels.
//!
//! Standard library only: `crates/poly-cuda/build.rs` includes this file as a module,
//! and so does `xtask` (through `#[path = "../../crates/poly-cuda/build_support.rs"]`),
//! so that `cargo build --features cuda` and `cargo xtask kernels` compile the kernels
//! with the same compiler and the same flags.
//!
//! API (all errors are human-readable `String`s):
//! - [`find_nvcc`]: the nvcc to use, searched in a fixed order.
//! - [`nvcc_flags`]: the arguments listed in `kernels/nvcc.flags`, include paths made absolute.
//! - [`kernel_sources`]: every `kernels/*.cu`, sorted by file name.
//! - [`module_name`]: the module name of a kernel source (`kernels/ntt.cu` -> `ntt`).
//! - [`compile_fatbin`]: one `.cu` file to one fatbin (SASS and PTX for the targets in the flags).
//!
//! Layout decision: every `kernels/<name>.cu` is compiled on its own into
//! `<name>.fatbin` and becomes one CUDA module called `<name>`. Separate modules need no
//! device linking (`-dc`/`nvlink`), keep `extern "C"` names of different files apart and
//! let a change in one file recompile only that file.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The file, relative to the workspace root, that lists nvcc's arguments.
pub const FLAGS_FILE: &str = "kernels/nvcc.flags";

/// The folder, relative to the workspace root, that holds the `.cu` sources.
pub const KERNELS_DIR: &str = "kernels";

/// Where `cargo xtask setup-cuda` installs the pinned pip nvcc, relative to the workspace root.
pub const PIP_NVCC: &str = ".cuda/pip/nvidia/cu13/bin/nvcc";

/// The workspace root, two levels above a crate's manifest directory (`crates/<name>`).
pub fn workspace_root_from_manifest_dir(manifest_dir: &Path) -> Result<PathBuf, String> {
    let root = manifest_dir
        .parent()
        .and_then(Path::parent)
        .ok_or_else(|| format!("{} has no grandparent directory", manifest_dir.display()))?;
    if !root.join(FLAGS_FILE).is_file() {
        return Err(format!(
            "{} not found: is {} the workspace root?",
            root.join(FLAGS_FILE).display(),
            root.display()
        ));
    }
    Ok(root.to_path_buf())
}

/// The nvcc to use, the first of:
/// 1. `$NVCC` (must exist),
/// 2. `$CUDA_PATH/bin/nvcc`,
/// 3. `nvcc` on `PATH`,
/// 4. `/usr/local/cuda/bin/nvcc`,
/// 5. `<workspace_root>/.cuda/pip/nvidia/cu13/bin/nvcc` (made by `cargo xtask setup-cuda`).
///
/// The error lists every place looked at and names `cargo xtask setup-cuda`.
pub fn find_nvcc(workspace_root: &Path) -> Result<PathBuf, String> {
    let mut tried = Vec::new();
    if let Some(explicit) = std::env::var_os("NVCC") {
        let path = PathBuf::from(explicit);
        if path.is_file() {
            return Ok(path);
        }
        return Err(format!(
            "NVCC={} does not exist; unset it to search the usual places, or run `cargo xtask setup-cuda`",
            path.display()
        ));
    }
    tried.push("$NVCC (unset)".to_string());
    if let Some(cuda_path) = std::env::var_os("CUDA_PATH") {
        let path = PathBuf::from(cuda_path).join("bin").join("nvcc");
        if path.is_file() {
            return Ok(path);
        }
        tried.push(path.display().to_string());
    } else {
        tried.push("$CUDA_PATH/bin/nvcc (CUDA_PATH unset)".to_string());
    }
    if let Some(path_var) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path_var) {
            let path = dir.join("nvcc");
            if path.is_file() {
                return Ok(path);
            }
        }
    }
    tried.push("nvcc on PATH".to_string());
    for path in [PathBuf::from("/usr/local/cuda/bin/nvcc"), workspace_root.join(PIP_NVCC)] {
        if path.is_file() {
            return Ok(path);
        }
        tried.push(path.display().to_string());
    }
    Err(format!(
        "no CUDA compiler (nvcc) found; looked at: {}. Run `cargo xtask setup-cuda` to install the pinned \
         nvcc 13.0.88, or set NVCC to an nvcc binary",
        tried.join(", ")
    ))
}

/// The arguments in `kernels/nvcc.flags`: one argument per line, blank lines and
/// everything after `#` ignored, surrounding whitespace trimmed. Relative include
/// directories (`-I<dir>` or `-I <dir>`) are taken relative to the workspace root and
/// returned absolute, so nvcc can run from any directory.
pub fn nvcc_flags(workspace_root: &Path) -> Result<Vec<String>, String> {
    let path = workspace_root.join(FLAGS_FILE);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    parse_flags(&text, workspace_root)
}

/// Parses the text of an nvcc flags file (see [`nvcc_flags`]).
pub fn parse_flags(text: &str, workspace_root: &Path) -> Result<Vec<String>, String> {
    let mut flags = Vec::new();
    let mut include_next = false;
    for (line_no, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if line.contains(char::is_whitespace) && !line.starts_with("-I") {
            return Err(format!("{FLAGS_FILE}:{}: one argument per line, got {line:?}", line_no + 1));
        }
        if include_next {
            flags.push(absolute(line, workspace_root));
            include_next = false;
        } else if line == "-I" {
            flags.push(line.to_string());
            include_next = true;
        } else if let Some(dir) = line.strip_prefix("-I") {
            flags.push(format!("-I{}", absolute(dir.trim(), workspace_root)));
        } else {
            flags.push(line.to_string());
        }
    }
    if include_next {
        return Err(format!("{FLAGS_FILE}: -I at the end of the file has no directory"));
    }
    Ok(flags)
}

fn absolute(dir: &str, workspace_root: &Path) -> String {
    let path = Path::new(dir);
    if path.is_absolute() { dir.to_string() } else { workspace_root.join(path).display().to_string() }
}

/// Every `kernels/*.cu` file, sorted by file name (headers under `kernels/include` are not sources).
pub fn kernel_sources(workspace_root: &Path) -> Result<Vec<PathBuf>, String> {
    let dir = workspace_root.join(KERNELS_DIR);
    let entries = std::fs::read_dir(&dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    let mut sources = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| format!("cannot list {}: {e}", dir.display()))?.path();
        if path.is_file() && path.extension().is_some_and(|ext| ext == "cu") {
            sources.push(path);
        }
    }
    sources.sort();
    Ok(sources)
}

/// The module name of a kernel source: its file stem (`kernels/ntt.cu` -> `ntt`). Errors
/// unless the stem is a valid identifier (ASCII letters, digits, `_`, not starting with a digit).
pub fn module_name(source: &Path) -> Result<String, String> {
    let stem = source
        .file_stem()
        .and_then(|s| s.to_str())
        .ok_or_else(|| format!("{} has no UTF-8 file stem", source.display()))?;
    let valid = !stem.is_empty()
        && !stem.starts_with(|c: char| c.is_ascii_digit())
        && stem.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        return Err(format!("kernel file name {stem:?} must be an identifier (letters, digits, _)"));
    }
    Ok(stem.to_string())
}

/// Compiles one `.cu` file to a fatbin at `output` with `nvcc -fatbin <flags> <source> -o <output>`.
/// The error holds nvcc's full diagnostic output.
pub fn compile_fatbin(nvcc: &Path, flags: &[String], source: &Path, output: &Path) -> Result<(), String> {
    let result = Command::new(nvcc)
        .arg("-fatbin")
        .args(flags)
        .arg(source)
        .arg("-o")
        .arg(output)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", nvcc.display()))?;
    if result.status.success() {
        return Ok(());
    }
    Err(format!(
        "{} failed on {} ({}):\n{}{}",
        nvcc.display(),
        source.display(),
        result.status,
        String::from_utf8_lossy(&result.stdout),
        String::from_utf8_lossy(&result.stderr)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_one_per_line_with_comments_and_absolute_includes() {
        let root = Path::new("/ws");
        let text = "# comment\n-O3   # trailing\n\n-I kernels/include\n-I\n/abs/inc\n-Irel\n--gencode=arch=compute_90,code=sm_90\n";
        let flags = parse_flags(text, root).unwrap();
        assert_eq!(
            flags,
            ["-O3", "-I/ws/kernels/include", "-I", "/abs/inc", "-I/ws/rel", "--gencode=arch=compute_90,code=sm_90"]
        );
        assert!(parse_flags("-O3 -lineinfo\n", root).unwrap_err().contains("one argument per line"));
        assert!(parse_flags("-I\n", root).unwrap_err().contains("no directory"));
    }

    #[test]
    fn module_names_are_identifiers() {
        assert_eq!(module_name(Path::new("kernels/ntt.cu")).unwrap(), "ntt");
        assert_eq!(module_name(Path::new("/x/modarith_test.cu")).unwrap(), "modarith_test");
        assert!(module_name(Path::new("kernels/2d.cu")).is_err());
        assert!(module_name(Path::new("kernels/a-b.cu")).is_err());
    }

    #[test]
    fn kernel_sources_are_the_sorted_cu_files() {
        let dir = std::env::temp_dir().join(format!("poly_cuda_build_support_{}", std::process::id()));
        std::fs::create_dir_all(dir.join("kernels/include")).unwrap();
        for name in ["b.cu", "a.cu", "notes.txt", "include/h.cuh"] {
            std::fs::write(dir.join("kernels").join(name), "").unwrap();
        }
        let sources = kernel_sources(&dir).unwrap();
        let names: Vec<_> = sources.iter().map(|p| p.file_name().unwrap().to_str().unwrap().to_string()).collect();
        assert_eq!(names, ["a.cu", "b.cu"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
