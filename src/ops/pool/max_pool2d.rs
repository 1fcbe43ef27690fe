//! Max pooling's kernels: their programs (`max_pool2d.wgsl`, `max_pool2d_backward.wgsl`, with
//! their CPU twins in `cpu.rs`) and their dispatches (the uniform words are the shaders'
//! headers).

use super::{MaxPool2d, MaxPool2dBackward, PoolGeometry};
use crate::backend::program::{grid_for, put, Dispatch, Program};
use crate::backend::Backend;
use crate::error::Result;
use crate::ops::wgsl::fill;

const FORWARD_WGSL: &str = include_str!("max_pool2d.wgsl");
const BACKWARD_WGSL: &str = include_str!("max_pool2d_backward.wgsl");

/// The forward: writes the values and the indices; reads the input.
pub static FORWARD: Program = Program {
    name: "max_pool2d",
    wgsl: |_| fill(FORWARD_WGSL, &[]),
    label: |_| "webtorch:max_pool2d:float32".to_string(),
    writes: 2,
    writes_whole_output: false,
    cpu: super::cpu::forward,
};

/// The input gradient: writes it; reads the output's gradient and the indices.
pub static BACKWARD: Program = Program {
    name: "max_pool2d_backward",
    wgsl: |_| fill(BACKWARD_WGSL, &[]),
    label: |_| "webtorch:max_pool2d_backward:float32".to_string(),
    writes: 1,
    writes_whole_output: false,
    cpu: super::cpu::backward,
};

/// One invocation per output.
pub fn forward(backend: &dyn Backend, k: &MaxPool2d) -> Result<()> {
    let g = &k.g;
    let n = g.input[0] * g.input[1] * g.out_hw[0] * g.out_hw[1];
    let (gx, gy, per_row) = grid_for(n)?;
    let mut meta = [0u32; 24];
    put(&mut meta, 0, &[n, g.input[1], g.input[2], g.input[3], g.out_hw[0], g.out_hw[1]])?;
    geometry(&mut meta, 6, g)?;
    put(&mut meta, 14, &[k.x.offset])?;
    put(&mut meta, 15, &k.x.strides)?;
    put(&mut meta, 19, &[per_row, k.indices as usize])?;
    backend.dispatch(&Dispatch {
        program: &FORWARD,
        variant: 0,
        buffers: &[k.out, k.idx, k.x.buf],
        uniforms: &meta,
        groups: (gx, gy, 1),
    })
}

/// One invocation per input element.
pub fn backward(backend: &dyn Backend, k: &MaxPool2dBackward) -> Result<()> {
    let g = &k.g;
    let n: usize = g.input.iter().product();
    let (gx, gy, per_row) = grid_for(n)?;
    let mut meta = [0u32; 24];
    put(&mut meta, 0, &[n, g.input[2], g.input[3], g.out_hw[0], g.out_hw[1]])?;
    geometry(&mut meta, 5, g)?;
    put(&mut meta, 13, &[k.grad.offset])?;
    put(&mut meta, 14, &k.grad.strides)?;
    put(&mut meta, 18, &[g.input[1], per_row])?;
    backend.dispatch(&Dispatch {
        program: &BACKWARD,
        variant: 0,
        buffers: &[k.out, k.grad.buf, k.idx],
        uniforms: &meta,
        groups: (gx, gy, 1),
    })
}

/// A pooling's kernel, stride, padding and dilation (h, w each) from word `at` of `meta`.
fn geometry(meta: &mut [u32], at: usize, g: &PoolGeometry) -> Result<()> {
    let words: Vec<usize> = [g.kernel, g.stride, g.pad, g.dilation].concat();
    put(meta, at, &words)
}
