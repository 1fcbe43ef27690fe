//! `torch.poisson`'s kernel: its description (`Poisson`), its program (`poisson.wgsl`, with its
//! CPU twin in `cpu.rs`) and its dispatch.

use crate::backend::program::{grid_for, put, Dispatch, Program};
use crate::backend::{Backend, BufId};
use crate::dtype::{Compute, DType};
use crate::error::Result;
use crate::ops::wgsl::{fill, store, MATH};

const POISSON: &str = include_str!("poisson.wgsl");

/// `out[i]` (contiguous, `dtype`) = a Poisson draw with the rate in word `offset + i` of `rate`,
/// from the stream `cpu::Stream::new(key, i, call)`: the same draws on every backend.
#[derive(Clone, Debug)]
pub struct Poisson {
    pub rate: BufId,
    pub offset: usize,
    pub n: usize,
    pub out: BufId,
    pub dtype: DType,
    pub key: [u32; 2],
    pub call: u32,
}

/// The draws, one invocation per element; the variant is the output dtype's code. Writes the
/// draws; reads the rates.
pub static DRAW: Program = Program {
    name: "poisson",
    wgsl: draw_wgsl,
    label: draw_label,
    writes: 1,
    writes_whole_output: false,
    cpu: super::cpu::draw,
};

fn out_dtype(variant: u32) -> DType {
    DType::from_code(variant).expect("a dtype code")
}

fn draw_wgsl(variant: u32) -> String {
    format!("{MATH}\n{}", fill(POISSON, &[("STORE", &store("v", Compute::F32, out_dtype(variant)))]))
}

fn draw_label(variant: u32) -> String {
    format!("webtorch:poisson:{}", out_dtype(variant).name())
}

/// Runs the draws (uniform words: the header of `poisson.wgsl`).
pub fn run(backend: &dyn Backend, k: &Poisson) -> Result<()> {
    let (gx, gy, per_row) = grid_for(k.n)?;
    let mut meta = [0u32; 8];
    put(&mut meta, 0, &[k.n, per_row, k.offset])?;
    meta[3..7].copy_from_slice(&[k.key[0], k.key[1], k.call, crate::random::POISSON_TAG]);
    backend.dispatch(&Dispatch {
        program: &DRAW,
        variant: k.dtype.code(),
        buffers: &[k.out, k.rate],
        uniforms: &meta,
        groups: (gx, gy, 1),
    })
}
