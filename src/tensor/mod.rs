//! `Tensor`: a storage handle plus layout and dtype (DESIGN.md §3–4). Ops are split by family:
//! `elementwise.rs`, `reduce.rs`, `linalg.rs`, `view.rs`; creation and reads live here.

mod elementwise;
mod linalg;
mod reduce;
mod view;

use std::rc::Rc;

use crate::backend::{Backend, BufId, Device, Elementwise, Func, Input, Operand};
use crate::dtype::DType;
use crate::engine;
use crate::error::Result;
use crate::shape::{self, Layout};
use crate::{bail, random};

/// One buffer on one backend; freed (back to the pool) when the last view of it goes.
pub struct Storage {
    backend: Rc<dyn Backend>,
    buf: BufId,
}

impl Drop for Storage {
    fn drop(&mut self) {
        self.backend.release(self.buf);
    }
}

/// A tensor: a view (`layout`) of a storage, with a dtype. Cloning makes another view of the same
/// storage, never a copy.
#[derive(Clone)]
pub struct Tensor {
    storage: Rc<Storage>,
    pub layout: Layout,
    pub dtype: DType,
}

impl std::fmt::Debug for Tensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Tensor({:?}, {}, {})",
            self.layout.shape,
            self.dtype.name(),
            self.device().name()
        )
    }
}

impl Tensor {
    /// An uninitialised contiguous tensor on `backend`.
    pub(crate) fn empty_on(
        backend: &Rc<dyn Backend>,
        shape: &[usize],
        dtype: DType,
    ) -> Result<Tensor> {
        let n = shape::numel(shape) as u64;
        let buf = backend.alloc((n * dtype.word_bytes()).max(4))?;
        Ok(Tensor {
            storage: Rc::new(Storage {
                backend: backend.clone(),
                buf,
            }),
            layout: Layout::contiguous(shape),
            dtype,
        })
    }

    pub fn empty(shape: &[usize], dtype: DType, device: Device) -> Result<Tensor> {
        Tensor::empty_on(&engine::backend(device)?, shape, dtype)
    }

    /// A tensor holding `words` (already in `dtype`'s storage form).
    pub fn from_words(
        words: &[u32],
        shape: &[usize],
        dtype: DType,
        device: Device,
    ) -> Result<Tensor> {
        if words.len() != shape::numel(shape) {
            bail!(
                Shape,
                "shape {} is invalid for input of size {}",
                shape::fmt_shape(shape),
                words.len()
            );
        }
        let backend = engine::backend(device)?;
        let buf = if words.is_empty() {
            backend.alloc(4)?
        } else {
            backend.upload(words)?
        };
        Ok(Tensor {
            storage: Rc::new(Storage { backend, buf }),
            layout: Layout::contiguous(shape),
            dtype,
        })
    }

    /// `torch.tensor(data, dtype=…)` from numbers (JS numbers are f64).
    pub fn from_f64(data: &[f64], shape: &[usize], dtype: DType, device: Device) -> Result<Tensor> {
        let words = data
            .iter()
            .map(|&x| to_word(x, dtype))
            .collect::<Result<Vec<u32>>>()?;
        Tensor::from_words(&words, shape, dtype, device)
    }

    pub fn from_f32(data: &[f32], shape: &[usize], device: Device) -> Result<Tensor> {
        let words: Vec<u32> = data.iter().map(|x| x.to_bits()).collect();
        Tensor::from_words(&words, shape, DType::Float32, device)
    }

    /// `torch.full(shape, value)`, filled by a kernel (no upload).
    pub fn full(shape: &[usize], value: f64, dtype: DType, device: Device) -> Result<Tensor> {
        to_word(value, dtype)?;
        let backend = engine::backend(device)?;
        let out = Tensor::empty_on(&backend, shape, dtype)?;
        if out.numel() > 0 {
            backend.elementwise(&Elementwise {
                func: Func::Cast,
                compute: if dtype.is_float() || value.fract() != 0.0 {
                    crate::dtype::Compute::F32
                } else {
                    crate::dtype::Compute::I32
                },
                inputs: vec![Input::Scalar(value)],
                shape: shape.to_vec(),
                out: out.storage.buf,
                out_dtype: dtype,
            })?;
        }
        Ok(out)
    }

    /// `torch.arange(start, end, step)`.
    pub fn arange(start: f64, end: f64, step: f64, dtype: DType, device: Device) -> Result<Tensor> {
        if step == 0.0 {
            bail!(Torch, "step must be nonzero");
        }
        if !(start.is_finite() && end.is_finite()) {
            bail!(Torch, "unsupported range: {start} -> {end}");
        }
        if (step > 0.0 && start > end) || (step < 0.0 && start < end) {
            bail!(
                Torch,
                "upper bound and lower bound inconsistent with step sign"
            );
        }
        let n = ((end - start) / step).ceil().max(0.0);
        if n > u32::MAX as f64 {
            bail!(OutOfMemory, "arange of {n} elements is too large");
        }
        let data: Vec<f64> = (0..n as usize).map(|i| start + i as f64 * step).collect();
        Tensor::from_f64(&data, &[data.len()], dtype, device)
    }

    /// `torch.rand(shape)`: uniform [0, 1) from the seeded Philox stream.
    pub fn rand(shape: &[usize], dtype: DType, device: Device) -> Result<Tensor> {
        require_float(dtype, "\"check_uniform_bounds\"")?;
        Tensor::from_f32(&random::uniform(shape::numel(shape)), shape, device)
    }

    /// `torch.randn(shape)`: standard normal from the seeded Philox stream.
    pub fn randn(shape: &[usize], dtype: DType, device: Device) -> Result<Tensor> {
        require_float(dtype, "\"normal_kernel_cpu\"")?;
        Tensor::from_f32(&random::normal(shape::numel(shape)), shape, device)
    }

    pub fn backend(&self) -> &Rc<dyn Backend> {
        &self.storage.backend
    }

    pub fn device(&self) -> Device {
        self.storage.backend.device()
    }

    pub fn shape(&self) -> &[usize] {
        &self.layout.shape
    }

    pub fn ndim(&self) -> usize {
        self.layout.ndim()
    }

    pub fn numel(&self) -> usize {
        self.layout.numel()
    }

    /// How a kernel reads this tensor over an index space of `shape` (broadcasting).
    pub(crate) fn operand(&self, shape: &[usize]) -> Operand {
        Operand {
            buf: self.storage.buf,
            dtype: self.dtype,
            offset: self.layout.offset,
            strides: self.layout.broadcast_strides(shape),
        }
    }

    pub(crate) fn buf(&self) -> BufId {
        self.storage.buf
    }

    /// A view of the same storage with another layout.
    pub(crate) fn with_layout(&self, layout: Layout) -> Tensor {
        Tensor {
            storage: self.storage.clone(),
            layout,
            dtype: self.dtype,
        }
    }

    /// Whether two tensors share storage (views of one another).
    pub fn same_storage(&self, other: &Tensor) -> bool {
        Rc::ptr_eq(&self.storage, &other.storage)
    }

    /// The values in row-major order, as storage words (flushes pending work).
    pub async fn read_words(&self) -> Result<Vec<u32>> {
        let t = self.contiguous()?;
        let n = t.numel();
        if n == 0 {
            return Ok(vec![]);
        }
        let fut = t.backend().read(t.storage.buf, t.layout.offset, n);
        fut.await
    }

    /// The values as f64 (tests and printing).
    pub async fn to_f64(&self) -> Result<Vec<f64>> {
        let words = self.read_words().await?;
        Ok(words
            .into_iter()
            .map(|w| from_word(w, self.dtype))
            .collect())
    }
}

fn require_float(dtype: DType, kernel: &str) -> Result<()> {
    if !dtype.is_float() {
        bail!(
            DType,
            "{kernel} not implemented for '{}'",
            dtype.scalar_name()
        );
    }
    Ok(())
}

/// A JS number as `dtype`'s storage word; integer dtypes reject values they cannot hold.
pub fn to_word(x: f64, dtype: DType) -> Result<u32> {
    let int_range = |lo: f64, hi: f64, name: &str| -> Result<i64> {
        if x.is_nan() || x < lo || x > hi {
            bail!(
                Torch,
                "value cannot be converted to type {name} without overflow"
            );
        }
        Ok(x.trunc() as i64)
    };
    Ok(match dtype {
        DType::Float32 => (x as f32).to_bits(),
        DType::Int32 => int_range(i32::MIN as f64, i32::MAX as f64, "int32_t")? as i32 as u32,
        // int64 is stored in 32 bits (docs/dtypes.md): out-of-range values are an error, not a wrap.
        DType::Int64 => int_range(
            i32::MIN as f64,
            i32::MAX as f64,
            "int64_t (webtorch stores int64 as 32-bit)",
        )? as i32 as u32,
        DType::UInt8 => (int_range(-(2f64.powi(63)), 2f64.powi(63), "uint8_t")? as u32) & 255,
        DType::Bool => (x != 0.0) as u32,
    })
}

pub fn from_word(w: u32, dtype: DType) -> f64 {
    match dtype {
        DType::Float32 => f32::from_bits(w) as f64,
        DType::Int32 | DType::Int64 => w as i32 as f64,
        DType::UInt8 | DType::Bool => w as f64,
    }
}
