//! `OptimGroup`: one parameter group's fused optimizer step (`ops/optim/`) for the TS optimizers,
//! and `RawTensor.optim_step(id, hyper)`, the one call a step makes per group. The step is a
//! `RawTensor` static so that `torch.compile` records and replays it like any core call; groups
//! are found by id (a number the trace can hold).

use crate::cell::RefCell;
use std::collections::HashMap;
use std::rc::{Rc, Weak};

use wasm_bindgen::prelude::*;

use super::kernels::RawTensorList;
use super::{js, JsResult, RawTensor};
use crate::ops::optim::{hyper_names, Group, OptimKind, ParamScalars};

thread_local! {
    static GROUPS: RefCell<HashMap<u32, Weak<RefCell<Group>>>> = RefCell::new(HashMap::new());
    static NEXT_ID: std::cell::Cell<u32> = const { std::cell::Cell::new(1) };
}

/// A parameter group's fused step and its state (freed with the JS object).
#[wasm_bindgen]
pub struct OptimGroup {
    inner: Rc<RefCell<Group>>,
    id: u32,
}

/// The hyperparameter names `optim_step` takes for optimizer class `name`, in order.
#[wasm_bindgen]
pub fn optim_hyper_names(name: &str) -> JsResult<Vec<String>> {
    let kind = js(OptimKind::from_name(name))?;
    Ok(hyper_names(kind).iter().map(|s| s.to_string()).collect())
}

#[wasm_bindgen]
impl OptimGroup {
    /// A group of optimizer class `name` over `params` with options `hyper`.
    #[wasm_bindgen(constructor)]
    pub fn new(name: &str, params: &RawTensorList, hyper: &[f64]) -> JsResult<OptimGroup> {
        let kind = js(OptimKind::from_name(name))?;
        let group = js(Group::new(kind, params.tensors().to_vec(), hyper))?;
        let inner = Rc::new(RefCell::new(group));
        let id = NEXT_ID.with(|n| {
            let id = n.get();
            n.set(id + 1);
            id
        });
        GROUPS.with(|g| g.borrow_mut().insert(id, Rc::downgrade(&inner)));
        Ok(OptimGroup { inner, id })
    }

    /// The id `RawTensor.optim_step` takes.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// The state tensors' names (empty until a step or `ensure_state`).
    pub fn slot_names(&self) -> Vec<String> {
        self.inner.borrow().slots().iter().map(|s| s.to_string()).collect()
    }

    /// Makes the flat state for options `hyper` (before loading a state dict).
    pub fn ensure_state(&self, hyper: &[f64]) -> JsResult<()> {
        js(self.inner.borrow_mut().ensure_state(hyper))
    }

    /// State tensor `slot` of parameter `i`, a view of the group's flat state.
    pub fn state_view(&self, i: u32, slot: u32) -> Option<RawTensor> {
        self.inner.borrow().state_view(i as usize, slot as usize).map(RawTensor::wrap)
    }

    /// `[initialized, step, mu_product, eta, mu]` of parameter `i`.
    pub fn param_scalars(&self, i: u32) -> Vec<f64> {
        match self.inner.borrow().scalars(i as usize) {
            Some(s) => vec![s.initialized as u8 as f64, s.step, s.mu_product as f64, s.eta as f64, s.mu as f64],
            None => vec![],
        }
    }

    /// Sets what `param_scalars` reads (`load_state_dict`).
    pub fn set_param_scalars(&self, i: u32, v: &[f64]) -> JsResult<()> {
        if v.len() != 5 {
            return Err(super::super::to_js(crate::err!(Torch, "set_param_scalars takes 5 numbers")));
        }
        let s = ParamScalars {
            initialized: v[0] != 0.0,
            step: v[1],
            mu_product: v[2] as f32,
            eta: v[3] as f32,
            mu: v[4] as f32,
        };
        js(self.inner.borrow_mut().set_scalars(i as usize, s))
    }
}

impl Drop for OptimGroup {
    fn drop(&mut self) {
        GROUPS.with(|g| g.borrow_mut().remove(&self.id));
    }
}

#[wasm_bindgen]
impl RawTensor {
    /// One fused step of optimizer group `group` (an `OptimGroup` id) with options `hyper`.
    pub fn optim_step(group: u32, hyper: &[f64]) -> JsResult<()> {
        let g = GROUPS.with(|g| g.borrow().get(&group).and_then(Weak::upgrade));
        let Some(g) = g else {
            return Err(super::super::to_js(crate::err!(Torch, "optimizer group {group} was freed")));
        };
        let r = super::super::profiler::time("optim_step", || g.borrow_mut().step(hyper));
        js(r)
    }
}
