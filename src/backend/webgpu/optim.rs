//! The WebGPU side of the fused optimizer step (`optim.rs`): buffer-to-buffer copies, recorded
//! between compute passes of the open encoder (a copy is a command, not a dispatch), and the
//! update kernel of `shaders/optim.wgsl`, one dispatch per run of parameters.

use super::codegen::{fill, KernelKey};
use super::launch::put;
use super::{WebGpuBackend, WG};
use crate::backend::{BufId, OptimKind, OptimStep};
use crate::err;
use crate::error::Result;

const OPTIM: &str = include_str!("../../../shaders/optim.wgsl");

/// The update kernel of `kind`.
pub(super) fn source(kind: OptimKind) -> String {
    let f = match kind {
        OptimKind::Sgd => "sgd",
        OptimKind::Adam => "adam",
        OptimKind::RmsProp => "rmsprop",
        OptimKind::Adagrad => "adagrad",
        OptimKind::Adamax => "adamax",
        OptimKind::NAdam => "nadam",
        OptimKind::RAdam => "radam",
        OptimKind::Asgd => "asgd",
        OptimKind::Adadelta => "adadelta",
        OptimKind::Rprop => "rprop",
    };
    fill(OPTIM, &[("UPDATE", f)])
}

impl WebGpuBackend {
    pub(super) fn copy_impl(
        &self,
        src: BufId,
        src_offset: usize,
        dst: BufId,
        dst_offset: usize,
        words: usize,
    ) -> Result<()> {
        self.check_lost()?;
        if words == 0 {
            return Ok(());
        }
        let mut st = self.st.borrow_mut();
        let (from, to) = (Self::buffer(&st, src), Self::buffer(&st, dst));
        st.checks.propagate(std::slice::from_ref(&to), std::slice::from_ref(&from));
        let encoder = self.command_encoder(&mut st);
        let (src_bytes, dst_bytes, bytes) = (src_offset as u64 * 4, dst_offset as u64 * 4, words as u64 * 4);
        encoder.copy_buffer_to_buffer(&from, src_bytes, &to, dst_bytes, bytes);
        if let Some(cap) = st.capture.as_mut() {
            let at = cap.dispatches.len();
            cap.copies.push(super::graph::RecordedCopy { at, src: from, src_bytes, dst: to, dst_bytes, bytes });
        }
        st.stats.copies += 1;
        Ok(())
    }

    pub(super) fn optim_step_impl(&self, k: &OptimStep) -> Result<()> {
        if k.scalars.len() > 16 {
            return Err(err!(Torch, "webgpu: an optimizer update takes at most 16 scalars"));
        }
        let groups = Self::groups_for(k.len)?;
        let (gx, gy) = Self::grid(groups);
        let mut meta = [0u32; 24];
        put(&mut meta, 0, &[k.start, k.len, k.n, (gx * WG) as usize, k.flags as usize])?;
        put(&mut meta, 5, &k.bases)?;
        for (i, v) in k.scalars.iter().enumerate() {
            meta[8 + i] = v.to_bits();
        }
        self.dispatch(&KernelKey::Optim(k.kind), &meta, &[k.x, k.state], (gx, gy, 1))
    }
}
