//! The random family: `torch.poisson`, a draw per element from its own Philox stream
//! (`src/random.rs` is the generator), on the tensor's device; the draws do not depend on the
//! device. This file holds the rule and the entry; `poisson.rs` the kernel's description, program
//! and dispatch; `poisson.wgsl` its WGSL and `cpu.rs` its CPU twin.

mod cpu;
pub mod poisson;

pub use poisson::Poisson;

use crate::backend::CheckMessage;
use crate::bail;
use crate::error::{ErrorKind, Result};
use crate::random;
use crate::tensor::Tensor;

impl Tensor {
    /// `torch.poisson(rates)`: a Poisson draw with each rate (a float tensor, rates >= 0), of the
    /// rates' shape and dtype. PyTorch's error for a negative or NaN rate on the CPU backend,
    /// where the rates can be read at once; on WebGPU such a rate draws NaN.
    pub fn poisson(&self) -> Result<Tensor> {
        if !self.dtype.is_float() {
            bail!(DType, "\"poisson_cpu\" not implemented for '{}'", self.dtype.scalar_name());
        }
        if self.device() == crate::Device::Cpu {
            // The rates are on the host: checked now, or, while they are on their way from the
            // GPU (`backend/cpu/deferred.rs`), before the draw runs.
            let message = CheckMessage::new(ErrorKind::Torch, "invalid Poisson rate, expected rate to be non-negative");
            self.check_values(0.0, f64::INFINITY, None, &message)?;
        }
        let out = Tensor::empty_on(self.backend(), self.shape(), self.dtype)?;
        if out.numel() == 0 {
            return Ok(out);
        }
        let src = self.contiguous()?;
        let rate = src.operand(src.shape())?;
        let (key, call) = random::poisson_call();
        let k = Poisson {
            rate: rate.buf,
            offset: rate.offset,
            n: out.numel(),
            out: out.buf()?,
            dtype: self.dtype,
            key,
            call,
        };
        poisson::run(&**self.backend(), &k)?;
        Ok(out)
    }
}
