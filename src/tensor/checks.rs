//! Checks of a tensor's values that PyTorch makes before an op (indices in range, class ids,
//! probabilities). A CPU tensor's values are on the host: they are checked at the call. On a GPU
//! the check is a kernel whose failure the next read or sync raises (backend/webgpu/checks.rs),
//! with the same error.

use super::indexing::host_values;
use super::Tensor;
use crate::backend::{CheckMessage, Kernel, ValueCheck};
use crate::error::Result;

impl Tensor {
    /// Every value must lie in `[lo, hi]` (NaN fails) unless it equals `except`; else `message`'s
    /// error (its `{}` replaced by the first bad value), at once on the CPU, at the next read or
    /// sync on a device whose values stay there.
    pub fn check_values(&self, lo: f64, hi: f64, except: Option<f64>, message: &CheckMessage) -> Result<()> {
        if self.numel() == 0 {
            return Ok(());
        }
        if let Some(values) = host_values(self)? {
            if let Some(&bad) = values.iter().find(|&&v| !(v >= lo && v <= hi) && Some(v) != except) {
                let shown = if self.dtype.is_float() { bad.to_string() } else { (bad as i64).to_string() };
                // Below `lo`, or NaN: the low side.
                let low = bad.is_nan() || bad < lo;
                return Err(message.error(low, &shown));
            }
            return Ok(());
        }
        let x = self.operand(self.shape())?;
        self.backend().launch(Kernel::Check(&ValueCheck {
            x,
            shape: self.shape().to_vec(),
            lo,
            hi,
            except,
            message: message.clone(),
        }))
    }
}
