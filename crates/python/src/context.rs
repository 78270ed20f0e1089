//! `hegpu.Context`: a scheme's parameters prepared on a backend (the CPU, or a GPU when the
//! extension is built with `cuda` and a device exists), with every operation of the scheme.
//! Every call that computes releases the GIL, so other Python threads run meanwhile.

use std::sync::{Arc, Mutex, PoisonError};

use bfv::BfvContext;
use bgv_encrypt::{BgvContext, ModSwitching};
use numpy::PyArray1;
use poly::CpuBackend;
use pyo3::prelude::*;
use rlwe::SlotSum;

use crate::engine::{CipherOp, Engine, Kind, Object, PlainOp, SchemeEngine, Values};
use crate::error::{BindingError, Result};
use crate::objects::{Ciphertext, GaloisKeys, Plaintext, PublicKey, RelinKey, SecretKey};
use crate::params::{Parameters, Params};
use crate::values::{residues, scalar_residue};

/// Where a context computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Device {
    Cpu,
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    Gpu(usize),
}

impl Device {
    pub(crate) fn label(self) -> String {
        match self {
            Device::Cpu => "cpu".to_owned(),
            Device::Gpu(ordinal) => format!("gpu:{ordinal}"),
        }
    }
}

/// The number of CUDA devices the extension can use: 0 without `cuda` or without a driver.
pub(crate) fn gpu_count() -> usize {
    #[cfg(feature = "cuda")]
    {
        poly_cuda::device_count().unwrap_or(0)
    }
    #[cfg(not(feature = "cuda"))]
    {
        0
    }
}

/// The first GPU when there is one, else the CPU.
fn auto_device() -> Device {
    if gpu_count() > 0 { Device::Gpu(0) } else { Device::Cpu }
}

/// `"auto"` (the first GPU when there is one, else the CPU), `"cpu"`, `"gpu"` (the first GPU)
/// or `"gpu:K"`, or an ordinal.
fn parse_device(device: &Bound<'_, PyAny>) -> Result<Device> {
    if let Ok(ordinal) = device.extract::<usize>() {
        return Ok(Device::Gpu(ordinal));
    }
    let text: String = device
        .extract()
        .map_err(|_| BindingError::Argument("device: 'auto', 'cpu', 'gpu', 'gpu:K' or an ordinal".into()))?;
    match text.as_str() {
        "auto" => Ok(auto_device()),
        "cpu" => Ok(Device::Cpu),
        "gpu" => Ok(Device::Gpu(0)),
        other => other.strip_prefix("gpu:").and_then(|k| k.parse().ok()).map(Device::Gpu).ok_or_else(|| {
            BindingError::Argument(format!("unknown device '{other}': 'auto', 'cpu', 'gpu' or 'gpu:K'"))
        }),
    }
}

fn scheme_engine<B>(params: &Params, backend: B, manual: bool) -> Result<Arc<dyn Engine>>
where
    B: bfv::BfvBackend + bgv_encrypt::BgvBackend + 'static,
    SchemeEngine<BfvContext<B>>: Engine,
    SchemeEngine<BgvContext<B>>: Engine,
{
    Ok(match params {
        Params::Bfv(p) => Arc::new(SchemeEngine::new(BfvContext::new(backend, p)?)),
        Params::Bgv(p) => {
            let mode = if manual { ModSwitching::Manual } else { ModSwitching::Auto };
            Arc::new(SchemeEngine::new(BgvContext::new(backend, p)?.with_mod_switching(mode)))
        }
    })
}

/// The engine of `params` on `device`.
pub(crate) fn make_engine(params: &Params, device: Device, manual: bool) -> Result<Arc<dyn Engine>> {
    match device {
        Device::Cpu => scheme_engine(params, CpuBackend, manual),
        #[cfg(feature = "cuda")]
        Device::Gpu(ordinal) => {
            let backend = poly_cuda::GpuBackend::new(ordinal).map_err(|e| BindingError::Device(e.to_string()))?;
            scheme_engine(params, backend, manual)
        }
        #[cfg(not(feature = "cuda"))]
        Device::Gpu(_) => Err(BindingError::Device(
            "this hegpu was built without CUDA (build the extension with the `cuda` feature); use device='cpu' or 'auto'"
                .into(),
        )),
    }
}

#[cfg(feature = "cuda")]
pub(crate) fn engine_on_device(
    params: &Params,
    device: &Arc<poly_cuda::GpuDevice>,
    manual: bool,
) -> Result<Arc<dyn Engine>> {
    scheme_engine(params, poly_cuda::GpuBackend::from_device(Arc::clone(device)), manual)
}

/// The keys the operators use.
#[derive(Default)]
struct BoundKeys {
    relin: Option<Object>,
    galois: Option<Object>,
}

/// A scheme's parameters on a backend, with its operations. `device` is `"auto"` (the first
/// GPU when the extension has CUDA and a device exists, else the CPU), `"cpu"`, `"gpu"`,
/// `"gpu:K"` or an ordinal; `Context.device` says which was chosen. BGV switches modulus
/// automatically unless `mod_switching="manual"`.
#[pyclass(module = "hegpu", frozen)]
pub struct Context {
    pub(crate) engine: Arc<dyn Engine>,
    pub(crate) params: Params,
    pub(crate) device: Device,
    bound: Mutex<BoundKeys>,
}

impl Context {
    pub(crate) fn from_engine(engine: Arc<dyn Engine>, params: Params, device: Device) -> Self {
        Self { engine, params, device, bound: Mutex::new(BoundKeys::default()) }
    }

    fn bound(&self) -> std::sync::MutexGuard<'_, BoundKeys> {
        self.bound.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `key`, or the bound relinearization key.
    fn relin(&self, key: Option<&RelinKey>) -> Result<Object> {
        match key {
            Some(key) => Ok(Arc::clone(&key.object)),
            None => self.bound().relin.clone().ok_or_else(|| {
                BindingError::Argument("no relinearization key given and none bound (Context.bind)".into())
            }),
        }
    }

    /// `keys`, or the bound Galois keys.
    fn galois(&self, keys: Option<&GaloisKeys>) -> Result<Object> {
        match keys {
            Some(keys) => Ok(Arc::clone(&keys.object)),
            None => self
                .bound()
                .galois
                .clone()
                .ok_or_else(|| BindingError::Argument("no Galois keys given and none bound (Context.bind)".into())),
        }
    }

    /// What an object prints: its kind, scheme, ring and backend; a ciphertext's level and size.
    pub(crate) fn describe_object(&self, kind: Kind, object: &Object) -> String {
        let scheme = self.engine.scheme().name();
        let degree = match &self.params {
            Params::Bfv(p) => p.degree(),
            Params::Bgv(p) => p.degree(),
        };
        let device = self.device.label();
        match kind {
            Kind::Ciphertext => match self.engine.shape(object) {
                Ok((level, size)) => format!(
                    "Ciphertext({scheme}, degree {degree}, level {level} of {}, size {size}, {device})",
                    self.engine.top_level()
                ),
                Err(_) => format!("Ciphertext({scheme}, degree {degree}, {device})"),
            },
            Kind::GaloisKeys => match self.engine.galois_elements(object) {
                Ok(elements) => format!("GaloisKeys({scheme}, degree {degree}, {} elements, {device})", elements.len()),
                Err(_) => format!("GaloisKeys({scheme}, degree {degree}, {device})"),
            },
            Kind::Plaintext => format!("Plaintext({scheme}, degree {degree}, t = {})", self.engine.plaintext_modulus()),
            Kind::SecretKey => format!("SecretKey({scheme}, degree {degree}, {device})"),
            Kind::PublicKey => format!("PublicKey({scheme}, degree {degree}, {device})"),
            Kind::RelinKey => format!("RelinKey({scheme}, degree {degree}, {device})"),
        }
    }
}

/// Runs `f` on the engine with the GIL released and wraps its object for `slf`'s context.
fn compute<T>(
    slf: &Bound<'_, Context>,
    f: impl FnOnce(&dyn Engine) -> Result<Object> + Send,
    make: impl FnOnce(Object, Py<Context>) -> T,
) -> PyResult<T> {
    let engine = &slf.get().engine;
    let object = slf.py().detach(|| f(engine.as_ref()))?;
    Ok(make(object, slf.clone().unbind()))
}

fn ciphertext(slf: &Bound<'_, Context>, f: impl FnOnce(&dyn Engine) -> Result<Object> + Send) -> PyResult<Ciphertext> {
    compute(slf, f, Ciphertext::new)
}

/// A slot-sum direction by name.
fn slot_sum(name: &str) -> Result<SlotSum> {
    match name {
        "rows" => Ok(SlotSum::Rows),
        "columns" => Ok(SlotSum::Columns),
        "all" => Ok(SlotSum::All),
        other => Err(BindingError::Argument(format!("unknown sum '{other}': 'rows', 'columns' or 'all'"))),
    }
}

fn values_array<'py>(py: Python<'py>, values: Values) -> Bound<'py, PyAny> {
    match values {
        Values::Unsigned(v) => PyArray1::from_vec(py, v).into_any(),
        Values::Signed(v) => PyArray1::from_vec(py, v).into_any(),
    }
}

#[pymethods]
impl Context {
    #[new]
    #[pyo3(signature = (params, device = None, mod_switching = "auto"))]
    fn py_new(params: &Parameters, device: Option<&Bound<'_, PyAny>>, mod_switching: &str) -> PyResult<Self> {
        let device = match device {
            Some(device) => parse_device(device)?,
            None => auto_device(),
        };
        let manual = match mod_switching {
            "auto" => false,
            "manual" => true,
            other => {
                return Err(BindingError::Argument(format!("mod_switching '{other}': 'auto' or 'manual'")).into());
            }
        };
        let engine = make_engine(&params.inner, device, manual)?;
        Ok(Self::from_engine(engine, params.inner.clone(), device))
    }

    /// The parameters.
    #[getter]
    fn params(&self) -> Parameters {
        Parameters { inner: self.params.clone() }
    }

    /// `"BFV"` or `"BGV"`.
    #[getter]
    fn scheme(&self) -> &'static str {
        self.engine.scheme().name()
    }

    /// Where the context computes: `"cpu"` or `"gpu:K"`.
    #[getter]
    fn device(&self) -> String {
        self.device.label()
    }

    /// A fresh ciphertext's level.
    #[getter]
    fn top_level(&self) -> usize {
        self.engine.top_level()
    }

    /// The number of batching slots.
    #[getter]
    fn slot_count(&self) -> PyResult<usize> {
        Ok(self.engine.slot_count()?)
    }

    fn __repr__(&self) -> String {
        format!("Context({}, {})", Parameters { inner: self.params.clone() }.describe(), self.device.label())
    }

    /// Waits until the device has finished the work queued so far (no-op on the CPU): for timing.
    fn synchronize(&self, py: Python<'_>) -> PyResult<()> {
        let engine = &self.engine;
        Ok(py.detach(|| engine.synchronize())?)
    }

    // ---- keys

    /// A secret key from fresh OS randomness, or from a 32-byte `seed` (reproducible runs).
    #[pyo3(signature = (seed = None))]
    fn secret_key(slf: &Bound<'_, Self>, seed: Option<[u8; 32]>) -> PyResult<SecretKey> {
        compute(slf, |e| e.secret_key(seed), SecretKey::new)
    }

    /// A public key for `secret`.
    fn public_key(slf: &Bound<'_, Self>, secret: &SecretKey) -> PyResult<PublicKey> {
        compute(slf, |e| e.public_key(&secret.object), PublicKey::new)
    }

    /// A relinearization key for `secret`.
    fn relin_key(slf: &Bound<'_, Self>, secret: &SecretKey) -> PyResult<RelinKey> {
        compute(slf, |e| e.relin_key(&secret.object), RelinKey::new)
    }

    /// Keys for the automorphisms `x -> x^g`, `g` in `elements` (units modulo `m`).
    fn galois_keys(slf: &Bound<'_, Self>, secret: &SecretKey, elements: Vec<u64>) -> PyResult<GaloisKeys> {
        compute(slf, |e| e.galois_keys(&secret.object, &elements), GaloisKeys::new)
    }

    /// Keys for the row rotations by `steps` (and the row swap with `row_swap`), or, without
    /// `steps`, SEAL's compact set (the powers of two both ways and the row swap; any step is
    /// composed from them).
    #[pyo3(signature = (secret, steps = None, row_swap = false))]
    fn rotation_keys(
        slf: &Bound<'_, Self>,
        secret: &SecretKey,
        steps: Option<Vec<i64>>,
        row_swap: bool,
    ) -> PyResult<GaloisKeys> {
        compute(slf, |e| e.rotation_keys(&secret.object, steps.as_deref(), row_swap), GaloisKeys::new)
    }

    /// Binds the keys the operators (`a * b`) and the key arguments left out use.
    #[pyo3(signature = (relin_key = None, galois_keys = None))]
    fn bind(&self, relin_key: Option<&RelinKey>, galois_keys: Option<&GaloisKeys>) -> PyResult<()> {
        let relin = relin_key.map(|k| self.own(&k.context, &k.object, Kind::RelinKey)).transpose()?;
        let galois = galois_keys.map(|k| self.own(&k.context, &k.object, Kind::GaloisKeys)).transpose()?;
        let mut bound = self.bound();
        if relin.is_some() {
            bound.relin = relin;
        }
        if galois.is_some() {
            bound.galois = galois;
        }
        Ok(())
    }

    // ---- encoding

    /// A plaintext holding `values` in its slots (a 1-D integer array or sequence, at most
    /// `slot_count` values in `(-t, t)`: a negative value is its residue; the other slots hold 0).
    fn encode(slf: &Bound<'_, Self>, values: &Bound<'_, PyAny>) -> PyResult<Plaintext> {
        let residues = residues(values, slf.get().engine.plaintext_modulus())?;
        compute(slf, |e| e.encode(&residues, true), Plaintext::new)
    }

    /// A plaintext whose coefficients are `values` (as `encode`, at most `degree` values).
    fn encode_coefficients(slf: &Bound<'_, Self>, values: &Bound<'_, PyAny>) -> PyResult<Plaintext> {
        let residues = residues(values, slf.get().engine.plaintext_modulus())?;
        compute(slf, |e| e.encode(&residues, false), Plaintext::new)
    }

    /// The slot values of `plaintext` as a numpy array: `uint64` in `[0, t)`, or with `signed`
    /// `int64` in `(-t/2, t/2]`.
    #[pyo3(signature = (plaintext, signed = false))]
    fn decode<'py>(&self, py: Python<'py>, plaintext: &Plaintext, signed: bool) -> PyResult<Bound<'py, PyAny>> {
        let (engine, object) = (&self.engine, &plaintext.object);
        let values = py.detach(|| engine.decode(object, true, signed))?;
        Ok(values_array(py, values))
    }

    /// The coefficients of `plaintext` as a numpy array (as `decode`).
    #[pyo3(signature = (plaintext, signed = false))]
    fn decode_coefficients<'py>(
        &self,
        py: Python<'py>,
        plaintext: &Plaintext,
        signed: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (engine, object) = (&self.engine, &plaintext.object);
        let values = py.detach(|| engine.decode(object, false, signed))?;
        Ok(values_array(py, values))
    }

    // ---- encryption

    /// Encrypts a plaintext, or values (batch-encoded first), under a public key, or under a
    /// secret key (symmetric encryption).
    fn encrypt(slf: &Bound<'_, Self>, plaintext: &Bound<'_, PyAny>, key: &Bound<'_, PyAny>) -> PyResult<Ciphertext> {
        let plaintext = match plaintext.cast::<Plaintext>() {
            Ok(p) => Arc::clone(&p.get().object),
            Err(_) => Self::encode(slf, plaintext)?.object,
        };
        if let Ok(public) = key.cast::<PublicKey>() {
            let public = Arc::clone(&public.get().object);
            ciphertext(slf, |e| e.encrypt(&plaintext, &public))
        } else if let Ok(secret) = key.cast::<SecretKey>() {
            let secret = Arc::clone(&secret.get().object);
            ciphertext(slf, |e| e.encrypt_symmetric(&plaintext, &secret))
        } else {
            Err(BindingError::Argument("encrypt: the key must be a PublicKey or a SecretKey".into()).into())
        }
    }

    /// The plaintext of `ciphertext`; with `checked`, first measures the noise and raises
    /// `NoiseError` instead of returning garbage when the budget is spent.
    #[pyo3(signature = (ciphertext, secret, checked = false))]
    fn decrypt(
        slf: &Bound<'_, Self>,
        ciphertext: &Ciphertext,
        secret: &SecretKey,
        checked: bool,
    ) -> PyResult<Plaintext> {
        compute(slf, |e| e.decrypt(&ciphertext.object, &secret.object, checked), Plaintext::new)
    }

    /// The bits of noise budget left in `ciphertext` (needs the secret key).
    fn noise_budget(&self, py: Python<'_>, ciphertext: &Ciphertext, secret: &SecretKey) -> PyResult<u32> {
        let engine = &self.engine;
        Ok(py.detach(|| engine.noise_budget(&ciphertext.object, &secret.object))?)
    }

    // ---- evaluation

    /// `a + b`.
    fn add(slf: &Bound<'_, Self>, a: &Ciphertext, b: &Ciphertext) -> PyResult<Ciphertext> {
        ciphertext(slf, |e| e.cipher_op(CipherOp::Add, &a.object, &b.object))
    }

    /// `a - b`.
    fn sub(slf: &Bound<'_, Self>, a: &Ciphertext, b: &Ciphertext) -> PyResult<Ciphertext> {
        ciphertext(slf, |e| e.cipher_op(CipherOp::Sub, &a.object, &b.object))
    }

    /// `-a`.
    fn negate(slf: &Bound<'_, Self>, a: &Ciphertext) -> PyResult<Ciphertext> {
        ciphertext(slf, |e| e.negate(&a.object))
    }

    /// `a * b` without relinearization (three polynomials).
    fn multiply(slf: &Bound<'_, Self>, a: &Ciphertext, b: &Ciphertext) -> PyResult<Ciphertext> {
        ciphertext(slf, |e| e.cipher_op(CipherOp::Mul, &a.object, &b.object))
    }

    /// `a` relinearized with `key` (or the bound key).
    #[pyo3(signature = (a, key = None))]
    fn relinearize(slf: &Bound<'_, Self>, a: &Ciphertext, key: Option<&RelinKey>) -> PyResult<Ciphertext> {
        let key = slf.get().relin(key)?;
        ciphertext(slf, |e| e.relinearize(&a.object, &key))
    }

    /// `a * b` relinearized with `key` (or the bound key).
    #[pyo3(signature = (a, b, key = None))]
    fn mul_relin(
        slf: &Bound<'_, Self>,
        a: &Ciphertext,
        b: &Ciphertext,
        key: Option<&RelinKey>,
    ) -> PyResult<Ciphertext> {
        let key = slf.get().relin(key)?;
        ciphertext(slf, |e| e.mul_relin(&a.object, &b.object, &key))
    }

    /// `f(a)` slot by slot for `f = sum_i coefficients[i] x^i` over `Z_t` (coefficients as
    /// non-negative integers, reduced modulo `t`), by Paterson-Stockmeyer: about `2 sqrt(2d)`
    /// products relinearized with `key` (or the bound key) for degree `d`.
    #[pyo3(signature = (a, coefficients, key = None))]
    fn evaluate_polynomial(
        slf: &Bound<'_, Self>,
        a: &Ciphertext,
        coefficients: Vec<u64>,
        key: Option<&RelinKey>,
    ) -> PyResult<Ciphertext> {
        let key = slf.get().relin(key)?;
        ciphertext(slf, |e| e.evaluate_polynomial(&a.object, &coefficients, &key))
    }

    /// `a + m` for a plaintext `m`.
    fn add_plain(slf: &Bound<'_, Self>, a: &Ciphertext, plaintext: &Plaintext) -> PyResult<Ciphertext> {
        ciphertext(slf, |e| e.plain_op(PlainOp::Add, &a.object, &plaintext.object))
    }

    /// `a - m` for a plaintext `m`.
    fn sub_plain(slf: &Bound<'_, Self>, a: &Ciphertext, plaintext: &Plaintext) -> PyResult<Ciphertext> {
        ciphertext(slf, |e| e.plain_op(PlainOp::Sub, &a.object, &plaintext.object))
    }

    /// `a * m` for a plaintext `m`.
    fn mul_plain(slf: &Bound<'_, Self>, a: &Ciphertext, plaintext: &Plaintext) -> PyResult<Ciphertext> {
        ciphertext(slf, |e| e.plain_op(PlainOp::Mul, &a.object, &plaintext.object))
    }

    /// `a + c` for an integer `c` (in `(-t, t)`), added to every slot.
    fn add_scalar(slf: &Bound<'_, Self>, a: &Ciphertext, c: &Bound<'_, PyAny>) -> PyResult<Ciphertext> {
        let c = scalar_residue(c, slf.get().engine.plaintext_modulus())?;
        ciphertext(slf, |e| e.scalar_op(PlainOp::Add, &a.object, c))
    }

    /// `a - c` for an integer `c`.
    fn sub_scalar(slf: &Bound<'_, Self>, a: &Ciphertext, c: &Bound<'_, PyAny>) -> PyResult<Ciphertext> {
        let c = scalar_residue(c, slf.get().engine.plaintext_modulus())?;
        ciphertext(slf, |e| e.scalar_op(PlainOp::Sub, &a.object, c))
    }

    /// `a * c` for an integer `c`.
    fn mul_scalar(slf: &Bound<'_, Self>, a: &Ciphertext, c: &Bound<'_, PyAny>) -> PyResult<Ciphertext> {
        let c = scalar_residue(c, slf.get().engine.plaintext_modulus())?;
        ciphertext(slf, |e| e.scalar_op(PlainOp::Mul, &a.object, c))
    }

    /// Both rows of the slots rotated left by `steps` (right for negative), with `keys` (or the
    /// bound Galois keys; a step without its own key is composed from the keys held).
    #[pyo3(signature = (a, steps, keys = None))]
    fn rotate_rows(
        slf: &Bound<'_, Self>,
        a: &Ciphertext,
        steps: i64,
        keys: Option<&GaloisKeys>,
    ) -> PyResult<Ciphertext> {
        let keys = slf.get().galois(keys)?;
        ciphertext(slf, |e| e.rotate_rows(&a.object, steps, &keys))
    }

    /// The two rows of the slots swapped.
    #[pyo3(signature = (a, keys = None))]
    fn rotate_columns(slf: &Bound<'_, Self>, a: &Ciphertext, keys: Option<&GaloisKeys>) -> PyResult<Ciphertext> {
        let keys = slf.get().galois(keys)?;
        ciphertext(slf, |e| e.rotate_columns(&a.object, &keys))
    }

    /// `a(x^g)`: the automorphism of the Galois element `g`.
    #[pyo3(signature = (a, element, keys = None))]
    fn apply_galois(
        slf: &Bound<'_, Self>,
        a: &Ciphertext,
        element: u64,
        keys: Option<&GaloisKeys>,
    ) -> PyResult<Ciphertext> {
        let keys = slf.get().galois(keys)?;
        ciphertext(slf, |e| e.apply_galois(&a.object, element, &keys))
    }

    /// Every slot set to the sum of its row (`"rows"`), its column (`"columns"`) or all slots.
    #[pyo3(signature = (a, over = "all", keys = None))]
    fn sum_slots(slf: &Bound<'_, Self>, a: &Ciphertext, over: &str, keys: Option<&GaloisKeys>) -> PyResult<Ciphertext> {
        let sum = slot_sum(over)?;
        let keys = slf.get().galois(keys)?;
        ciphertext(slf, |e| e.sum_slots(&a.object, sum, &keys))
    }

    /// `a` one level down the modulus chain.
    fn mod_switch_to_next(slf: &Bound<'_, Self>, a: &Ciphertext) -> PyResult<Ciphertext> {
        ciphertext(slf, |e| e.mod_switch_to_next(&a.object))
    }

    /// `a` switched down to `level`.
    fn mod_switch_to(slf: &Bound<'_, Self>, a: &Ciphertext, level: usize) -> PyResult<Ciphertext> {
        ciphertext(slf, |e| e.mod_switch_to(&a.object, level))
    }

    /// `a` (a ciphertext of this context) as a ciphertext of `target`: the other scheme over
    /// the same ring, plaintext modulus and device, under the same secret key.
    fn switch_scheme(slf: &Bound<'_, Self>, a: &Ciphertext, target: &Bound<'_, Context>) -> PyResult<Ciphertext> {
        let (engine, target_engine) = (&slf.get().engine, &target.get().engine);
        let object = slf.py().detach(|| engine.switch_scheme(&a.object, target_engine.as_ref()))?;
        Ok(Ciphertext::new(object, target.clone().unbind()))
    }

    // ---- bytes

    /// A ciphertext from bytes, validated against this context.
    fn load_ciphertext(slf: &Bound<'_, Self>, data: &[u8]) -> PyResult<Ciphertext> {
        compute(slf, |e| e.load(Kind::Ciphertext, data), Ciphertext::new)
    }

    /// A plaintext from bytes.
    fn load_plaintext(slf: &Bound<'_, Self>, data: &[u8]) -> PyResult<Plaintext> {
        compute(slf, |e| e.load(Kind::Plaintext, data), Plaintext::new)
    }

    /// A secret key from bytes.
    fn load_secret_key(slf: &Bound<'_, Self>, data: &[u8]) -> PyResult<SecretKey> {
        compute(slf, |e| e.load(Kind::SecretKey, data), SecretKey::new)
    }

    /// A public key from bytes.
    fn load_public_key(slf: &Bound<'_, Self>, data: &[u8]) -> PyResult<PublicKey> {
        compute(slf, |e| e.load(Kind::PublicKey, data), PublicKey::new)
    }

    /// A relinearization key from bytes.
    fn load_relin_key(slf: &Bound<'_, Self>, data: &[u8]) -> PyResult<RelinKey> {
        compute(slf, |e| e.load(Kind::RelinKey, data), RelinKey::new)
    }

    /// Galois keys from bytes.
    fn load_galois_keys(slf: &Bound<'_, Self>, data: &[u8]) -> PyResult<GaloisKeys> {
        compute(slf, |e| e.load(Kind::GaloisKeys, data), GaloisKeys::new)
    }
}

impl Context {
    /// `object` when its context's engine is this one (or one of the same scheme and backend:
    /// the library checks the parameters); bytes move objects between contexts otherwise.
    fn own(&self, context: &Py<Context>, object: &Object, kind: Kind) -> Result<Object> {
        let other = context.get();
        if other.device != self.device || other.engine.scheme() != self.engine.scheme() {
            return Err(BindingError::WrongObject { kind: kind.name(), scheme: self.engine.scheme().name() });
        }
        Ok(Arc::clone(object))
    }
}

/// The Python operators of ciphertexts, over the context's methods.
#[pymethods]
impl Ciphertext {
    /// The level in the modulus chain (the top level is a fresh ciphertext's).
    #[getter]
    fn level(&self) -> PyResult<usize> {
        Ok(self.context.get().engine.shape(&self.object)?.0)
    }

    /// The number of polynomials (2; 3 after a product before relinearization).
    #[getter]
    fn size(&self) -> PyResult<usize> {
        Ok(self.context.get().engine.shape(&self.object)?.1)
    }

    fn __add__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Ciphertext> {
        self.binary(py, other, CipherOp::Add, PlainOp::Add)
    }

    fn __radd__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Ciphertext> {
        self.binary(py, other, CipherOp::Add, PlainOp::Add)
    }

    fn __sub__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Ciphertext> {
        self.binary(py, other, CipherOp::Sub, PlainOp::Sub)
    }

    /// `c - a` = `-(a - c)`.
    fn __rsub__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Ciphertext> {
        let difference = self.binary(py, other, CipherOp::Sub, PlainOp::Sub)?;
        difference.__neg__(py)
    }

    fn __mul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Ciphertext> {
        self.binary(py, other, CipherOp::Mul, PlainOp::Mul)
    }

    fn __rmul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Ciphertext> {
        self.binary(py, other, CipherOp::Mul, PlainOp::Mul)
    }

    fn __neg__(&self, py: Python<'_>) -> PyResult<Ciphertext> {
        let context = self.context.get();
        let object = py.detach(|| context.engine.negate(&self.object))?;
        Ok(Ciphertext::new(object, self.context.clone_ref(py)))
    }
}

impl Ciphertext {
    /// `self op other` for a ciphertext, plaintext or integer `other`; a product of two
    /// ciphertexts relinearizes with the bound key when one is bound.
    fn binary(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        cipher: CipherOp,
        plain: PlainOp,
    ) -> PyResult<Ciphertext> {
        let context = self.context.get();
        let engine = &context.engine;
        let a = &self.object;
        let object = if let Ok(b) = other.cast::<Ciphertext>() {
            let b = Arc::clone(&b.get().object);
            // The key is taken out of the lock first: holding it while computing without the
            // GIL would deadlock another thread that holds the GIL and waits for the lock.
            let relin = context.bound().relin.clone();
            match (cipher, relin) {
                (CipherOp::Mul, Some(key)) => py.detach(|| engine.mul_relin(a, &b, &key))?,
                _ => py.detach(|| engine.cipher_op(cipher, a, &b))?,
            }
        } else if let Ok(p) = other.cast::<Plaintext>() {
            let p = Arc::clone(&p.get().object);
            py.detach(|| engine.plain_op(plain, a, &p))?
        } else {
            let c = scalar_residue(other, engine.plaintext_modulus())?;
            py.detach(|| engine.scalar_op(plain, a, c))?
        };
        Ok(Ciphertext::new(object, self.context.clone_ref(py)))
    }
}
