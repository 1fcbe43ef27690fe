//! The optimizer update kernel: its description (`OptimStep`), its program (`optim.wgsl`, with
//! `cpu.rs` its CPU twin) and its dispatch, one per run of parameters (`mod.rs`).

use crate::backend::program::{grid_for, put, Dispatch, Program};
use crate::backend::{Backend, BufId};
use crate::bail;
use crate::error::Result;
use crate::ops::wgsl::fill;

const OPTIM: &str = include_str!("optim.wgsl");

/// Uniform words of the update (the header of `optim.wgsl`): [0] first element, [1] elements,
/// [2] n, [3] invocations per grid row, [4] flags, [5..8) role bases, [8..24) f32 scalars
/// (float64 groups, CPU-only: [8..40), f64 scalars, two words each, low first).
pub(super) const SCALARS: usize = 8;
pub(super) const MAX_SCALARS: usize = 16;
/// The variant bit of a float64 group's update (CPU-only; the low bits are the kind).
pub(super) const FLOAT64: u32 = 1 << 8;

/// The update an `OptimStep` applies: PyTorch's single-tensor algorithm of each optimizer
/// (`torch/optim/*.py`, `foreach=False`), op for op in f32 (`optim.wgsl` and `cpu.rs` are
/// twins).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OptimKind {
    Sgd,
    /// Adam and AdamW (`OPT_DECOUPLED`).
    Adam,
    RmsProp,
    Adagrad,
    Adamax,
    NAdam,
    RAdam,
    Asgd,
    Adadelta,
    Rprop,
}

/// `OptimStep::flags` bits.
pub const OPT_MAXIMIZE: u32 = 1;
pub const OPT_WEIGHT_DECAY: u32 = 2;
/// Weight decay multiplies the parameter (AdamW, NAdam/RAdam `decoupled_weight_decay`).
pub const OPT_DECOUPLED: u32 = 4;
pub const OPT_MOMENTUM: u32 = 8;
pub const OPT_NESTEROV: u32 = 16;
pub const OPT_AMSGRAD: u32 = 32;
pub const OPT_CENTERED: u32 = 64;
/// The parameters' state is new this step (SGD's momentum buffer is the gradient itself;
/// Rprop's step sizes start at `lr`).
pub const OPT_FIRST: u32 = 128;
/// RAdam's rectified branch (rho_t > 5); ASGD's averaging with mu != 1.
pub const OPT_BRANCH: u32 = 256;

/// One optimizer update over elements `start .. start + len` of a parameter group's flat
/// buffers: `x` holds the parameters (words `0..n`) and their gradients (words `n..2n`), both
/// float32 and updated in place (the new parameters overwrite the old); `state` holds the
/// optimizer's state tensors, role `r` of element `e` at word `bases[r] + e`. `scalars` are the
/// update's host-computed constants (learning rate, bias corrections, …), per kind as
/// `mod.rs` documents.
#[derive(Clone, Debug)]
pub struct OptimStep {
    pub kind: OptimKind,
    pub flags: u32,
    pub x: BufId,
    pub state: BufId,
    pub n: usize,
    pub start: usize,
    pub len: usize,
    pub bases: [usize; 3],
    pub scalars: Vec<f64>,
    /// The buffers hold float64 (two words an element; offsets, `n` and `bases` count
    /// elements) and the update computes in f64 with the scalars unrounded: float64
    /// parameters, on the CPU backend alone. Else float32, the scalars rounded to f32.
    pub float64: bool,
}

impl OptimKind {
    /// Every kind, in declaration order: a kind's variant is its index here.
    const ALL: [OptimKind; 10] = [
        OptimKind::Sgd,
        OptimKind::Adam,
        OptimKind::RmsProp,
        OptimKind::Adagrad,
        OptimKind::Adamax,
        OptimKind::NAdam,
        OptimKind::RAdam,
        OptimKind::Asgd,
        OptimKind::Adadelta,
        OptimKind::Rprop,
    ];

    pub(super) fn from_variant(v: u32) -> OptimKind {
        OptimKind::ALL[(v & !FLOAT64) as usize]
    }

    fn variant(self) -> u32 {
        self as u32
    }

    /// Its update function in `optim.wgsl`.
    fn wgsl_fn(self) -> &'static str {
        match self {
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
        }
    }
}

/// The update kernel, one invocation per element; its variant is the kind. It writes the
/// parameters (in `x`) and the state.
pub static UPDATE: Program = Program {
    name: "optim",
    wgsl: update_wgsl,
    label: update_label,
    writes: 2,
    writes_whole_output: false,
    cpu: super::cpu::update,
};

fn update_wgsl(variant: u32) -> String {
    fill(OPTIM, &[("UPDATE", OptimKind::from_variant(variant).wgsl_fn())])
}

fn update_label(variant: u32) -> String {
    let dtype = if variant & FLOAT64 != 0 { "float64" } else { "float32" };
    format!("webtorch:optim_{:?}:{dtype}", OptimKind::from_variant(variant)).to_lowercase()
}

/// Runs one update.
pub fn run(backend: &dyn Backend, k: &OptimStep) -> Result<()> {
    if k.scalars.len() > MAX_SCALARS {
        bail!(Torch, "an optimizer update takes at most {MAX_SCALARS} scalars");
    }
    let (gx, gy, per_row) = grid_for(k.len)?;
    let mut meta = [0u32; SCALARS + 2 * MAX_SCALARS];
    put(&mut meta, 0, &[k.start, k.len, k.n, per_row, k.flags as usize])?;
    put(&mut meta, 5, &k.bases)?;
    for (i, &v) in k.scalars.iter().enumerate() {
        if k.float64 {
            meta[SCALARS + 2 * i] = v.to_bits() as u32;
            meta[SCALARS + 2 * i + 1] = (v.to_bits() >> 32) as u32;
        } else {
            meta[SCALARS + i] = (v as f32).to_bits();
        }
    }
    let words = if k.float64 { SCALARS + 2 * MAX_SCALARS } else { SCALARS + MAX_SCALARS };
    backend.dispatch(&Dispatch {
        program: &UPDATE,
        variant: k.kind.variant() | if k.float64 { FLOAT64 } else { 0 },
        buffers: &[k.x, k.state],
        uniforms: &meta[..words],
        groups: (gx, gy, 1),
    })
}
