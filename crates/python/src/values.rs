//! Python values into residues modulo `t`: numpy integer arrays (any integer dtype), sequences
//! of integers, and single integers. A value in `(-t, t)` is taken modulo `t` (so `-1` is
//! `t - 1`); anything else is refused with `ValueRangeError`, floats with `TypeError`.

use numpy::PyReadonlyArray1;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::error::BindingError;

/// The residue of `value` modulo `t`, for `value` in `(-t, t)`.
fn residue(value: i128, t: u64, index: usize) -> Result<u64, BindingError> {
    let t = i128::from(t);
    if value <= -t || value >= t {
        return Err(BindingError::Range(format!("value {value} at index {index} is outside (-t, t) for t = {t}")));
    }
    // In [0, t) and below 2^64, since t is.
    Ok(u64::try_from(value.rem_euclid(t)).unwrap_or(0))
}

/// `values` (a 1-D integer array or a sequence of integers) as residues modulo `t`.
pub(crate) fn residues(values: &Bound<'_, PyAny>, t: u64) -> PyResult<Vec<u64>> {
    let py = values.py();
    let array = py.import("numpy")?.call_method1("asarray", (values,))?;
    let ndim: usize = array.getattr("ndim")?.extract()?;
    if ndim != 1 {
        return Err(BindingError::Argument(format!("expected a 1-D array of integers, got {ndim} dimensions")).into());
    }
    let dtype = array.getattr("dtype")?;
    let kind: String = dtype.getattr("kind")?.extract()?;
    match kind.as_str() {
        "u" => {
            let array = array.call_method1("astype", ("uint64",))?;
            let array: PyReadonlyArray1<'_, u64> = array.extract()?;
            let slice = array.as_slice()?;
            slice.iter().enumerate().map(|(i, &v)| Ok(residue(i128::from(v), t, i)?)).collect()
        }
        "i" | "b" => {
            let array = array.call_method1("astype", ("int64",))?;
            let array: PyReadonlyArray1<'_, i64> = array.extract()?;
            let slice = array.as_slice()?;
            slice.iter().enumerate().map(|(i, &v)| Ok(residue(i128::from(v), t, i)?)).collect()
        }
        _ => Err(PyTypeError::new_err(format!("expected integer values, got an array of dtype {}", dtype.str()?))),
    }
}

/// A single integer `c` in `(-t, t)` as its residue modulo `t`.
pub(crate) fn scalar_residue(c: &Bound<'_, PyAny>, t: u64) -> PyResult<u64> {
    let Ok(value) = c.extract::<i128>() else {
        let type_name = c.get_type().name()?;
        return Err(PyTypeError::new_err(format!("expected a ciphertext, a plaintext or an integer, got {type_name}")));
    };
    Ok(residue(value, t, 0)?)
}
