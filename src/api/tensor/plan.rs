//! `Plan`: a recorded sequence of `RawTensor` calls replayed in one call across the wasm boundary
//! (`torch.compile`, docs/compile.md). The TS tracer records a step's core calls with tensor
//! arguments as slots; a stable trace whose calls are all in the set below becomes a plan: each
//! step calls the same `RawTensor` method the TS layer called, on Rust-side handles, so a replay
//! has the eager semantics without JS in between. Externals (parameters, optimizer state) are
//! held as handles to the same tensors.

use wasm_bindgen::prelude::*;

use super::{JsResult, RawTensor};
use crate::{bail, Result};

#[derive(Clone, Debug)]
enum Arg {
    Slot(usize),
    Num(f64),
    Bool(bool),
    Ints(Vec<i32>),
    Floats(Vec<f64>),
    None,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Method {
    Unary,
    Binary,
    BinaryScalar,
    AddAlpha,
    AddAlphaScalar,
    T,
    Sum,
    Mean,
    Matmul,
    Reshape,
    View,
    Permute,
    Transpose,
    Expand,
    Contiguous,
    ToDtype,
    Clone,
    Unary_,
    Binary_,
    BinaryScalar_,
    AddAlpha_,
    Copy_,
    Fill_,
    Backward,
    Grad,
    SetGrad,
    Detach,
    Handle,
    Free,
    /// `RawTensor.optim_step(group, hyper)`, a static call (no `this`).
    OptimStep,
}

impl Method {
    fn by_name(name: &str) -> Option<Method> {
        use Method::*;
        Some(match name {
            "unary" => Unary,
            "binary" => Binary,
            "binary_scalar" => BinaryScalar,
            "add_alpha" => AddAlpha,
            "add_alpha_scalar" => AddAlphaScalar,
            "t" => T,
            "sum" => Sum,
            "mean" => Mean,
            "matmul" => Matmul,
            "reshape" => Reshape,
            "view" => View,
            "permute" => Permute,
            "transpose" => Transpose,
            "expand" => Expand,
            "contiguous" => Contiguous,
            "to_dtype" => ToDtype,
            "clone_" => Clone,
            "unary_" => Unary_,
            "binary_" => Binary_,
            "binary_scalar_" => BinaryScalar_,
            "add_alpha_" => AddAlpha_,
            "copy_" => Copy_,
            "fill_" => Fill_,
            "backward" => Backward,
            "grad" => Grad,
            "set_grad" => SetGrad,
            "detach" => Detach,
            "handle" => Handle,
            "free" => Free,
            "optim_step" => OptimStep,
            _ => return None,
        })
    }
}

#[derive(Debug)]
struct Step {
    method: Method,
    this: usize,
    args: Vec<Arg>,
    /// The slot of the returned tensor, if any.
    out: Option<usize>,
    grad: bool,
}

/// A replayable sequence of core calls over numbered tensor slots.
#[wasm_bindgen]
#[derive(Default)]
pub struct Plan {
    inputs: usize,
    externals: Vec<(usize, RawTensor)>,
    slots: usize,
    steps: Vec<Step>,
    pending: Vec<Arg>,
    outputs: Vec<usize>,
}

fn num(a: &Arg) -> Result<f64> {
    match a {
        Arg::Num(v) => Ok(*v),
        _ => bail!(Torch, "plan: expected a number argument, got {a:?}"),
    }
}

fn flag(a: &Arg) -> Result<bool> {
    match a {
        Arg::Bool(v) => Ok(*v),
        _ => bail!(Torch, "plan: expected a boolean argument, got {a:?}"),
    }
}

fn ints(a: &Arg) -> Result<&[i32]> {
    match a {
        Arg::Ints(v) => Ok(v),
        _ => bail!(Torch, "plan: expected an integer array argument, got {a:?}"),
    }
}

#[wasm_bindgen]
impl Plan {
    /// A plan whose first `inputs` slots are the replay's inputs.
    #[wasm_bindgen(constructor)]
    pub fn new(inputs: u32) -> Plan {
        Plan { inputs: inputs as usize, slots: inputs as usize, ..Plan::default() }
    }

    /// A new slot holding `t` (a handle to the same tensor) for every replay.
    pub fn external(&mut self, t: &RawTensor) -> u32 {
        let slot = self.slots;
        self.slots += 1;
        self.externals.push((slot, t.handle()));
        slot as u32
    }

    pub fn arg_slot(&mut self, slot: u32) {
        self.pending.push(Arg::Slot(slot as usize));
    }
    pub fn arg_num(&mut self, v: f64) {
        self.pending.push(Arg::Num(v));
    }
    pub fn arg_bool(&mut self, v: bool) {
        self.pending.push(Arg::Bool(v));
    }
    pub fn arg_ints(&mut self, v: &[i32]) {
        self.pending.push(Arg::Ints(v.to_vec()));
    }
    pub fn arg_floats(&mut self, v: &[f64]) {
        self.pending.push(Arg::Floats(v.to_vec()));
    }
    pub fn arg_none(&mut self) {
        self.pending.push(Arg::None);
    }

    /// Records `this.name(...pending args)` under grad mode `grad`; `has_out` when it returns a
    /// tensor (given the next slot, which is returned). False for a method plans do not have.
    pub fn call(&mut self, name: &str, this: u32, grad: bool, has_out: bool) -> i32 {
        let args = std::mem::take(&mut self.pending);
        let Some(method) = Method::by_name(name) else { return -1 };
        let out = has_out.then(|| {
            self.slots += 1;
            self.slots - 1
        });
        self.steps.push(Step { method, this: this as usize, args, out, grad });
        out.map_or(0, |s| s as i32)
    }

    /// Records the static call `RawTensor.name(...pending args)` (one without `this` or a result);
    /// false for one plans do not have.
    pub fn call_static(&mut self, name: &str, grad: bool) -> bool {
        let args = std::mem::take(&mut self.pending);
        if Method::by_name(name) != Some(Method::OptimStep) {
            return false;
        }
        self.steps.push(Step { method: Method::OptimStep, this: usize::MAX, args, out: None, grad });
        true
    }

    /// Marks `slot` as an output of the replay (in order).
    pub fn output(&mut self, slot: u32) {
        self.outputs.push(slot as usize);
    }

    /// Runs the plan on `inputs` (handles it takes) and returns the outputs (new handles).
    pub fn run(&self, inputs: Vec<RawTensor>) -> JsResult<Vec<RawTensor>> {
        if inputs.len() != self.inputs {
            return Err(super::super::to_js(crate::err!(
                Torch,
                "plan: expected {} inputs, got {}",
                self.inputs,
                inputs.len()
            )));
        }
        let mut slots: Vec<Option<RawTensor>> = Vec::with_capacity(self.slots);
        slots.extend(inputs.into_iter().map(Some));
        slots.resize_with(self.slots, || None);
        for (slot, t) in &self.externals {
            slots[*slot] = Some(t.handle());
        }
        let start = crate::autograd::is_grad_enabled();
        let result = self.steps.iter().try_for_each(|s| self.step(s, &mut slots));
        crate::autograd::set_grad_enabled(start);
        result?;
        self.outputs
            .iter()
            .map(|&i| match &slots[i] {
                Some(t) => Ok(t.handle()),
                None => Err(super::super::to_js(crate::err!(Torch, "plan: output slot {i} is empty"))),
            })
            .collect()
    }
}

impl Plan {
    fn step(&self, s: &Step, slots: &mut [Option<RawTensor>]) -> JsResult<()> {
        use Method::*;
        let e = super::super::to_js;
        crate::autograd::set_grad_enabled(s.grad);
        let get = |slots: &[Option<RawTensor>], i: usize| -> JsResult<RawTensor> {
            slots[i].as_ref().map(RawTensor::handle).ok_or_else(|| e(crate::err!(Torch, "plan: slot {i} is empty")))
        };
        let arg = |i: usize| -> JsResult<&Arg> {
            s.args.get(i).ok_or_else(|| e(crate::err!(Torch, "plan: {:?} is missing argument {i}", s.method)))
        };
        // Tensor arguments resolved before `this` is taken out of its slot (it may be one of them).
        let targs: Vec<Option<RawTensor>> = s
            .args
            .iter()
            .map(|a| match a {
                Arg::Slot(k) => get(slots, *k).map(Some),
                _ => Ok(None),
            })
            .collect::<JsResult<_>>()?;
        let slot_arg = |i: usize| -> JsResult<&RawTensor> {
            targs
                .get(i)
                .and_then(Option::as_ref)
                .ok_or_else(|| e(crate::err!(Torch, "plan: {:?} expects a tensor as argument {i}", s.method)))
        };
        let opt_slot = |i: usize| -> JsResult<Option<RawTensor>> {
            match arg(i)? {
                Arg::None => Ok(None),
                _ => slot_arg(i).map(|t| Some(t.handle())),
            }
        };
        let n = |i: usize| arg(i).and_then(|a| num(a).map_err(e));
        let b = |i: usize| arg(i).and_then(|a| flag(a).map_err(e));
        let v = |i: usize| arg(i).and_then(|a| ints(a).map_err(e));
        if s.method == Free {
            slots[s.this] = None;
            return Ok(());
        }
        if s.method == OptimStep {
            let hyper = match arg(1)? {
                Arg::Floats(v) => v,
                a => return Err(e(crate::err!(Torch, "plan: expected a number array argument, got {a:?}"))),
            };
            return RawTensor::optim_step(n(0)? as u32, hyper);
        }
        let mut this = slots[s.this].take().ok_or_else(|| e(crate::err!(Torch, "plan: slot {} is empty", s.this)))?;
        let out: Option<RawTensor> = match s.method {
            Unary => Some(this.unary(n(0)? as u32)?),
            Binary => Some(this.binary(n(0)? as u32, slot_arg(1)?)?),
            BinaryScalar => Some(this.binary_scalar(n(0)? as u32, n(1)?, b(2)?)?),
            AddAlpha => Some(this.add_alpha(n(0)? as u32, slot_arg(1)?, n(2)?)?),
            AddAlphaScalar => Some(this.add_alpha_scalar(n(0)? as u32, n(1)?, n(2)?)?),
            T => Some(this.t()?),
            Sum => Some(this.sum(v(0)?, b(1)?)?),
            Mean => Some(this.mean(v(0)?, b(1)?)?),
            Matmul => Some(this.matmul(slot_arg(0)?)?),
            Reshape => Some(this.reshape(v(0)?)?),
            View => Some(this.view(v(0)?)?),
            Permute => Some(this.permute(v(0)?)?),
            Transpose => Some(this.transpose(n(0)? as i32, n(1)? as i32)?),
            Expand => Some(this.expand(v(0)?)?),
            Contiguous => Some(this.contiguous()?),
            ToDtype => Some(this.to_dtype(n(0)? as u32)?),
            Clone => Some(this.clone_()?),
            Detach => Some(this.detach()),
            Handle => Some(this.handle()),
            Grad => this.grad(),
            Unary_ => {
                this.unary_(n(0)? as u32)?;
                None
            }
            Binary_ => {
                this.binary_(n(0)? as u32, slot_arg(1)?)?;
                None
            }
            BinaryScalar_ => {
                this.binary_scalar_(n(0)? as u32, n(1)?)?;
                None
            }
            AddAlpha_ => {
                this.add_alpha_(n(0)? as u32, slot_arg(1)?, n(2)?)?;
                None
            }
            Copy_ => {
                this.copy_(slot_arg(0)?)?;
                None
            }
            Fill_ => {
                this.fill_(n(0)?)?;
                None
            }
            SetGrad => {
                this.set_grad(opt_slot(0)?)?;
                None
            }
            Backward => {
                this.backward(opt_slot(0)?, b(1)?, b(2)?)?;
                None
            }
            Free | OptimStep => None,
        };
        slots[s.this] = Some(this);
        if let Some(o) = s.out {
            slots[o] = out;
        }
        Ok(())
    }
}
