//! The WebGPU backend (wgpu): the browser's WebGPU through wasm, Dawn in Node, Vulkan natively.
//!
//! Work is recorded into one open compute pass and submitted when `batch_threshold` dispatches
//! are pending, when the 16 ms timer fires (wasm), or on read/sync (DESIGN.md "path of one call").
//! Kernel parameters go into a uniform arena (a 256-byte slot per dispatch, bound with a dynamic
//! offset) written once per submit, so recording a dispatch allocates no GPU memory.

mod codegen;
mod custom;
mod device;
pub mod matmul;
mod pool;
mod sort;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::{Rc, Weak};
use std::sync::{Arc, Mutex};

use self::codegen::KernelKey;
use self::pool::{size_class, Pool};
use super::{
    Backend, BufId, Device, Elementwise, Gather, LocalFuture, Matmul, Reduce, Rowwise, Scan, Scatter, ScatterSrc,
    SearchSorted, Sort, Stats,
};
use crate::error::Result;
use crate::shape::{coalesce, contiguous_strides};
use crate::{bail, err};

const SLOT_BYTES: u64 = 512;
const SLOT_WORDS: usize = 128;
const ARENA_SLOTS: usize = 128;
const MAX_RANK: usize = 8;
/// Bind-group cache bound: past it the cache starts over.
const MAX_BIND_GROUPS: usize = 4096;
const WG: u32 = 256;
const MAX_GROUPS: u32 = 65_535;
const STORAGE_USAGE: wgpu::BufferUsages =
    wgpu::BufferUsages::STORAGE.union(wgpu::BufferUsages::COPY_SRC).union(wgpu::BufferUsages::COPY_DST);

/// What `torch.webgpu.getCapabilities()` reports.
#[derive(Clone, Debug, serde::Serialize)]
pub struct AdapterSummary {
    pub name: String,
    pub vendor: String,
    pub architecture: String,
    pub description: String,
    pub backend: String,
    pub features: Vec<String>,
    pub limits: HashMap<String, u64>,
}

struct Kernel {
    pipeline: wgpu::ComputePipeline,
    layout: Rc<wgpu::BindGroupLayout>,
}

struct State {
    bufs: Vec<Option<(wgpu::Buffer, u64)>>,
    free_ids: Vec<BufId>,
    pool: Pool<wgpu::Buffer>,
    staging: Pool<wgpu::Buffer>,
    kernels: HashMap<KernelKey, Rc<Kernel>>,
    /// Bind groups by the buffers they bind (bounded; cleared with the pool).
    bind_groups: HashMap<Vec<wgpu::Buffer>, wgpu::BindGroup>,
    layouts: HashMap<usize, (Rc<wgpu::BindGroupLayout>, Rc<wgpu::PipelineLayout>)>,
    encoder: Option<wgpu::CommandEncoder>,
    pass: Option<wgpu::ComputePass<'static>>,
    arena: Vec<u32>,
    slots_used: usize,
    threshold: usize,
    hold: bool,
    stats: Stats,
}

pub struct WebGpuBackend {
    device: wgpu::Device,
    queue: wgpu::Queue,
    arena_buf: wgpu::Buffer,
    summary: AdapterSummary,
    errors: Arc<Mutex<Vec<String>>>,
    /// Set by the device-lost callback: every later call fails with a `DeviceError`.
    lost: Arc<Mutex<Option<String>>>,
    me: Weak<WebGpuBackend>,
    st: RefCell<State>,
}

impl WebGpuBackend {
    pub fn summary(&self) -> &AdapterSummary {
        &self.summary
    }

    /// A `DeviceError` once the device is lost (then `torch.webgpu.initialize_device()` makes a
    /// new one).
    fn check_lost(&self) -> Result<()> {
        if let Some(why) = self.lost.lock().ok().and_then(|l| l.clone()) {
            bail!(Device, "WebGPU device was lost ({why}); call torch.webgpu.initialize_device() to start a new one");
        }
        Ok(())
    }

    /// Destroys the device (tests use it to prove that loss is reported, not hung on).
    pub fn destroy_device(&self) {
        self.device.destroy();
        if let Ok(mut l) = self.lost.lock() {
            l.get_or_insert_with(|| "Destroyed: destroyed by the application".into());
        }
    }

    /// Validation errors reported by the device since the last check, as a `DeviceError`.
    fn take_errors(&self) -> Result<()> {
        self.check_lost()?;
        let mut v = self.errors.lock().map_err(|_| err!(Device, "WebGPU error log poisoned"))?;
        if v.is_empty() {
            return Ok(());
        }
        let msg = v.join("\n");
        v.clear();
        bail!(Device, "WebGPU error: {msg}")
    }

    fn kernel(&self, st: &mut State, key: &KernelKey, n_storage: usize) -> Rc<Kernel> {
        if let Some(k) = st.kernels.get(key) {
            return k.clone();
        }
        let (bgl, pl) = st
            .layouts
            .entry(n_storage)
            .or_insert_with(|| {
                let mut entries = vec![wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: true,
                        min_binding_size: wgpu::BufferSize::new(SLOT_BYTES),
                    },
                    count: None,
                }];
                for i in 0..n_storage {
                    entries.push(wgpu::BindGroupLayoutEntry {
                        binding: 1 + i as u32,
                        visibility: wgpu::ShaderStages::COMPUTE,
                        ty: wgpu::BindingType::Buffer {
                            ty: wgpu::BufferBindingType::Storage { read_only: i > 0 },
                            has_dynamic_offset: false,
                            min_binding_size: None,
                        },
                        count: None,
                    });
                }
                let bgl = self.device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: Some("webtorch:layout"),
                    entries: &entries,
                });
                let pl = self.device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                    label: Some("webtorch:pipeline-layout"),
                    bind_group_layouts: &[Some(&bgl)],
                    immediate_size: 0,
                });
                (Rc::new(bgl), Rc::new(pl))
            })
            .clone();
        let label = codegen::label(key);
        let src = codegen::source(key);
        if crate::debug::dump_shaders() {
            crate::debug::log(&format!("// {label}\n{src}"));
        }
        let module = self.device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(&label),
            source: wgpu::ShaderSource::Wgsl(src.into()),
        });
        let pipeline = self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(&label),
            layout: Some(&pl),
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        st.stats.pipelines += 1;
        let k = Rc::new(Kernel { pipeline, layout: bgl });
        st.kernels.insert(key.clone(), k.clone());
        k
    }

    fn buffer(st: &State, id: BufId) -> wgpu::Buffer {
        st.bufs[id as usize].as_ref().expect("live buffer").0.clone()
    }

    /// Records one dispatch into the open pass; flushes when the batch is full.
    fn dispatch(&self, key: &KernelKey, meta: &[u32], buffers: &[BufId], groups: (u32, u32, u32)) -> Result<()> {
        self.check_lost()?;
        let mut st = self.st.borrow_mut();
        if st.slots_used == ARENA_SLOTS {
            self.flush_locked(&mut st);
        }
        let kernel = self.kernel(&mut st, key, buffers.len());
        let slot = st.slots_used;
        st.slots_used += 1;
        st.arena[slot * SLOT_WORDS..slot * SLOT_WORDS + meta.len()].copy_from_slice(meta);
        let bufs: Vec<wgpu::Buffer> = buffers.iter().map(|&b| Self::buffer(&st, b)).collect();
        // Bind groups are cached by the buffers they bind (the uniform slot is a dynamic offset):
        // pooled buffers come back, so a model's steady state creates none.
        let bind_group = match st.bind_groups.get(&bufs) {
            Some(bg) => bg.clone(),
            None => {
                let mut entries = vec![wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: &self.arena_buf,
                        offset: 0,
                        size: wgpu::BufferSize::new(SLOT_BYTES),
                    }),
                }];
                for (i, b) in bufs.iter().enumerate() {
                    entries.push(wgpu::BindGroupEntry { binding: 1 + i as u32, resource: b.as_entire_binding() });
                }
                let bg = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: None,
                    layout: &kernel.layout,
                    entries: &entries,
                });
                if st.bind_groups.len() >= MAX_BIND_GROUPS {
                    st.bind_groups.clear();
                }
                st.stats.bind_groups += 1;
                st.bind_groups.insert(bufs, bg.clone());
                bg
            }
        };
        if st.pass.is_none() {
            let mut encoder =
                self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("webtorch:batch") });
            let pass = encoder
                .begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("webtorch:pass"),
                    timestamp_writes: None,
                })
                .forget_lifetime();
            st.encoder = Some(encoder);
            st.pass = Some(pass);
        }
        let pass = st.pass.as_mut().expect("open pass");
        pass.set_pipeline(&kernel.pipeline);
        pass.set_bind_group(0, &bind_group, &[(slot as u64 * SLOT_BYTES) as u32]);
        pass.dispatch_workgroups(groups.0, groups.1, groups.2);
        st.stats.dispatches += 1;
        st.stats.pending += 1;
        if st.stats.pending as usize >= st.threshold && !st.hold {
            self.flush_locked(&mut st);
        }
        Ok(())
    }

    /// Ends the open pass and submits it, with `extra` commands appended (reads' copies).
    fn flush_locked(&self, st: &mut State) {
        self.submit_with(st, |_| {});
    }

    fn submit_with(&self, st: &mut State, extra: impl FnOnce(&mut wgpu::CommandEncoder)) {
        st.pass = None; // ends the pass
        let mut encoder = match st.encoder.take() {
            Some(e) => e,
            None => {
                self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("webtorch:batch") })
            }
        };
        extra(&mut encoder);
        if st.slots_used > 0 {
            let words = &st.arena[..st.slots_used * SLOT_WORDS];
            self.queue.write_buffer(&self.arena_buf, 0, bytemuck::cast_slice(words));
        }
        self.queue.submit([encoder.finish()]);
        st.slots_used = 0;
        st.stats.pending = 0;
        st.stats.submits += 1;
        st.pool.on_submit();
    }

    fn alloc_buffer(&self, class: u64, usage: wgpu::BufferUsages, label: &str) -> Result<wgpu::Buffer> {
        if class > self.device.limits().max_buffer_size {
            bail!(
                OutOfMemory,
                "WebGPU: tried to allocate {class} bytes, more than this adapter's maxBufferSize ({})",
                self.device.limits().max_buffer_size
            );
        }
        Ok(self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: class,
            usage,
            mapped_at_creation: false,
        }))
    }

    /// Dispatch grid for `n` workgroups (2-D when `n` exceeds one dimension's limit).
    fn grid(n: u32) -> (u32, u32) {
        if n <= MAX_GROUPS {
            (n.max(1), 1)
        } else {
            let y = n.div_ceil(MAX_GROUPS);
            (n.div_ceil(y), y)
        }
    }
}

fn put(meta: &mut [u32], at: usize, values: &[usize]) -> Result<()> {
    for (i, v) in values.iter().enumerate() {
        meta[at + i] = u32::try_from(*v).map_err(|_| err!(OutOfMemory, "index {v} does not fit in 32 bits"))?;
    }
    Ok(())
}

impl Backend for WebGpuBackend {
    fn device(&self) -> Device {
        Device::WebGpu
    }

    fn alloc(&self, bytes: u64) -> Result<BufId> {
        self.alloc_from_pool(bytes, false)
    }

    fn upload(&self, words: &[u32]) -> Result<BufId> {
        let id = self.alloc_from_pool(words.len() as u64 * 4, true)?;
        let st = self.st.borrow();
        self.queue.write_buffer(&Self::buffer(&st, id), 0, bytemuck::cast_slice(words));
        Ok(id)
    }

    fn release(&self, id: BufId) {
        let mut st = self.st.borrow_mut();
        if let Some((buf, class)) = st.bufs[id as usize].take() {
            st.stats.active_bytes -= class;
            st.stats.live_buffers -= 1;
            st.free_ids.push(id);
            if st.pass.is_some() {
                st.pool.give_deferred(class, buf);
            } else {
                st.pool.give(class, buf);
            }
        }
    }

    fn read(&self, id: BufId, offset: usize, len: usize) -> LocalFuture<Result<Vec<u32>>> {
        if let Err(e) = self.check_lost() {
            return Box::pin(async move { Err(e) });
        }
        let bytes = len as u64 * 4;
        let class = size_class(bytes);
        let staging = {
            let mut st = self.st.borrow_mut();
            let staging = match st.staging.take(class) {
                Some(b) => b,
                None => match self.alloc_buffer(
                    class,
                    wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    "webtorch:staging",
                ) {
                    Ok(b) => b,
                    Err(e) => return Box::pin(async move { Err(e) }),
                },
            };
            let src = Self::buffer(&st, id);
            self.submit_with(&mut st, |enc| enc.copy_buffer_to_buffer(&src, offset as u64 * 4, &staging, 0, bytes));
            staging
        };
        let (tx, rx) = futures_channel::oneshot::channel();
        staging.map_async(wgpu::MapMode::Read, 0..bytes, move |r| {
            let _ = tx.send(r);
        });
        #[cfg(not(target_arch = "wasm32"))]
        let _ = self.device.poll(wgpu::PollType::wait_indefinitely());
        let me = self.me.upgrade();
        Box::pin(async move {
            let mapped = rx.await;
            let me = me.ok_or_else(|| err!(Device, "WebGPU backend was dropped during a read"))?;
            me.take_errors()?;
            match mapped {
                Ok(Ok(())) => {}
                Ok(Err(e)) => bail!(Device, "WebGPU buffer mapping failed: {e}"),
                Err(_) => bail!(Device, "WebGPU device was lost during a read"),
            }
            let words: Vec<u32> = {
                let view = staging.get_mapped_range(0..bytes).map_err(|e| err!(Device, "WebGPU map range: {e:?}"))?;
                bytemuck::cast_slice(&view).to_vec()
            };
            staging.unmap();
            me.st.borrow_mut().staging.give(class, staging);
            Ok(words)
        })
    }

    fn elementwise(&self, k: &Elementwise) -> Result<()> {
        use codegen::{
            EW_MAX_LEAVES, EW_MAX_SCALARS, EW_OFFSETS, EW_OUT_OFFSET, EW_OUT_STRIDES, EW_SCALARS, EW_SHAPE, EW_STRIDES,
        };
        if k.leaves.len() > EW_MAX_LEAVES {
            bail!(Torch, "webgpu: an elementwise kernel reads at most {EW_MAX_LEAVES} tensors");
        }
        let contiguous = contiguous_strides(&k.shape);
        let mut strides: Vec<Vec<usize>> = k.leaves.iter().map(|o| o.strides.clone()).collect();
        let is_contig: Vec<bool> = strides.iter().map(|s| *s == contiguous).collect();
        // A strided output joins the index computation as one more operand.
        if let Some((_, out_strides)) = &k.out_view {
            strides.push(out_strides.clone());
        }
        let (key, scalars) = codegen::elementwise_key(k, &is_contig);
        if scalars.len() > EW_MAX_SCALARS {
            bail!(Torch, "webgpu: an elementwise kernel takes at most {EW_MAX_SCALARS} scalars");
        }
        let mut meta = [0u32; EW_OUT_STRIDES + 8];
        let n = k.shape.iter().product::<usize>();
        if k.out_view.is_some() || !is_contig.iter().all(|c| *c) {
            let (shape, strides) = coalesce(&k.shape, &strides);
            if shape.len() > MAX_RANK {
                bail!(
                    Shape,
                    "webgpu: elementwise views with more than {MAX_RANK} non-mergeable dims are not supported"
                );
            }
            meta[1] = shape.len() as u32;
            put(&mut meta, EW_SHAPE, &shape)?;
            for (i, s) in strides.iter().enumerate().take(k.leaves.len()) {
                put(&mut meta, EW_STRIDES + 8 * i, s)?;
            }
            if let Some((offset, _)) = &k.out_view {
                put(&mut meta, EW_OUT_OFFSET, &[*offset])?;
                put(&mut meta, EW_OUT_STRIDES, &strides[k.leaves.len()])?;
            }
        }
        let groups = u32::try_from(n.div_ceil(WG as usize)).map_err(|_| err!(OutOfMemory, "tensor too large"))?;
        let (gx, gy) = Self::grid(groups);
        put(&mut meta, 0, &[n])?;
        meta[2] = gx * WG;
        let mut buffers = vec![k.out];
        for (i, o) in k.leaves.iter().enumerate() {
            put(&mut meta, EW_OFFSETS + i, &[o.offset])?;
            buffers.push(o.buf);
        }
        for (q, (x, c)) in scalars.iter().enumerate() {
            meta[EW_SCALARS + q] = match c {
                crate::dtype::Compute::F32 => (*x as f32).to_bits(),
                _ => *x as i32 as u32,
            };
        }
        self.dispatch(&key, &meta, &buffers, (gx, gy, 1))
    }

    fn reduce(&self, k: &Reduce) -> Result<()> {
        if k.outer.len() > MAX_RANK || k.inner.len() > MAX_RANK {
            bail!(
                Shape,
                "webgpu: reductions over views with more than {MAX_RANK} non-mergeable dims are not supported"
            );
        }
        let n_out: usize = k.outer.iter().product();
        let count: usize = k.inner.iter().product();
        let n32 = u32::try_from(n_out).map_err(|_| err!(OutOfMemory, "too many outputs"))?;
        // One workgroup per output, or one invocation per output for short rows.
        let groups = if codegen::rows_kernel(k) { n32.div_ceil(codegen::ROWS_WG) } else { n32 };
        let (gx, gy) = Self::grid(groups);
        use codegen::{RD_MAX_LEAVES, RD_MAX_SCALARS, RD_OFFSETS, RD_SCALARS, RD_STRIDES};
        // Leaf 0 is the input (or the prologue's first leaf); a prologue's others follow it.
        let leaves: Vec<&crate::backend::Operand> = match &k.prologue {
            Some(p) => p.leaves.iter().collect(),
            None => vec![&k.input],
        };
        let (key, scalars) = codegen::reduce_key(k);
        if leaves.len() > RD_MAX_LEAVES || scalars.len() > RD_MAX_SCALARS {
            bail!(
                Torch,
                "webgpu: a fused reduction reads at most {RD_MAX_LEAVES} tensors and {RD_MAX_SCALARS} scalars"
            );
        }
        let mut meta = [0u32; RD_STRIDES + 16 * (RD_MAX_LEAVES - 1)];
        put(&mut meta, 0, &[n_out, k.outer.len(), k.inner.len(), count, leaves[0].offset, gx as usize])?;
        meta[6] = (k.param as f32).to_bits();
        let no = k.outer.len();
        put(&mut meta, 8, &k.outer)?;
        put(&mut meta, 24, &k.inner)?;
        let mut buffers = vec![k.out];
        for (i, o) in leaves.iter().enumerate() {
            let (off, outer_st, inner_st) = if i == 0 {
                (4, 16, 32)
            } else {
                (RD_OFFSETS + i, RD_STRIDES + 16 * (i - 1), RD_STRIDES + 16 * (i - 1) + 8)
            };
            put(&mut meta, off, &[o.offset])?;
            put(&mut meta, outer_st, &o.strides[..no])?;
            put(&mut meta, inner_st, &o.strides[no..])?;
            buffers.push(o.buf);
        }
        for (q, (x, c)) in scalars.iter().enumerate() {
            meta[RD_SCALARS + q] = match c {
                crate::dtype::Compute::F32 => (*x as f32).to_bits(),
                _ => *x as i32 as u32,
            };
        }
        self.dispatch(&key, &meta, &buffers, (gx, gy, 1))
    }

    fn matmul(&self, k: &Matmul) -> Result<()> {
        let nb = k.batch.len();
        let (batch, strides) = coalesce(&k.batch, &[k.a.strides[..nb].to_vec(), k.b.strides[..nb].to_vec()]);
        if batch.len() > 4 {
            bail!(Shape, "webgpu: matmul with more than 4 non-mergeable batch dims is not supported");
        }
        let batches: usize = batch.iter().product();
        if batches > MAX_GROUPS as usize {
            bail!(Shape, "webgpu: matmul over {batches} batches exceeds {MAX_GROUPS}");
        }
        let mut meta = [0u32; 24];
        put(&mut meta, 0, &[k.m, k.n, k.k, batch.len(), k.a.offset, k.b.offset])?;
        put(&mut meta, 6, &[k.a.strides[nb], k.a.strides[nb + 1], k.b.strides[nb], k.b.strides[nb + 1]])?;
        put(&mut meta, 12, &batch)?;
        put(&mut meta, 16, &strides[0])?;
        put(&mut meta, 20, &strides[1])?;
        let (key, groups) = match matmul::choose(k, batches, &strides) {
            Some(t) => (KernelKey::MatmulTiled(t), matmul::groups(&t, k.m, k.n, batches)),
            None => (codegen::matmul_key(k), ((k.n as u32).div_ceil(16), (k.m as u32).div_ceil(16), batches as u32)),
        };
        if groups.0 > MAX_GROUPS || groups.1 > MAX_GROUPS {
            bail!(Shape, "webgpu: matmul of {}x{} outputs exceeds the dispatch grid", k.m, k.n);
        }
        self.dispatch(&key, &meta, &[k.out, k.a.buf, k.b.buf], groups)
    }

    fn rowwise(&self, k: &Rowwise) -> Result<()> {
        if k.outer.len() > MAX_RANK || k.inner.len() > MAX_RANK {
            bail!(
                Shape,
                "webgpu: row-wise kernels over views with more than {MAX_RANK} non-mergeable dims are not supported"
            );
        }
        let rows: usize = k.outer.iter().product();
        let n: usize = k.inner.iter().product();
        let (gx, gy) = Self::grid(u32::try_from(rows).map_err(|_| err!(OutOfMemory, "too many rows"))?);
        let (no, ni) = (k.outer.len(), k.inner.len());
        let mut meta = [0u32; 64];
        put(&mut meta, 0, &[rows, no, ni, n, k.input.offset, gx as usize])?;
        meta[6] = (k.eps as f32).to_bits();
        put(&mut meta, 8, &k.outer)?;
        put(&mut meta, 16, &k.input.strides[..no])?;
        put(&mut meta, 24, &k.inner)?;
        put(&mut meta, 32, &k.input.strides[no..])?;
        put(&mut meta, 40, &k.out_strides[..no])?;
        put(&mut meta, 48, &k.out_strides[no..])?;
        let mut buffers = vec![k.out, k.input.buf];
        if let Some(w) = &k.weight {
            put(&mut meta, 7, &[w.offset])?;
            buffers.push(w.buf);
        }
        if let Some(b) = &k.bias {
            put(&mut meta, 56, &[b.offset])?;
            buffers.push(b.buf);
        }
        self.dispatch(&codegen::rowwise_key(k), &meta, &buffers, (gx, gy, 1))
    }

    fn gather(&self, k: &Gather) -> Result<()> {
        if k.shape.len() > MAX_RANK {
            bail!(Shape, "webgpu: gathers over more than {MAX_RANK} dims are not supported");
        }
        let n: usize = k.shape.iter().product();
        let groups = u32::try_from(n.div_ceil(WG as usize)).map_err(|_| err!(OutOfMemory, "tensor too large"))?;
        let (gx, gy) = Self::grid(groups);
        let mut meta = [0u32; 32];
        put(
            &mut meta,
            0,
            &[n, k.shape.len(), (gx * WG) as usize, k.dim, k.src.offset, k.index.offset, k.src_dim_size],
        )?;
        put(&mut meta, 8, &k.shape)?;
        put(&mut meta, 16, &k.src.strides)?;
        put(&mut meta, 24, &k.index.strides)?;
        let key = KernelKey::Gather { dtype: k.src.dtype };
        self.dispatch(&key, &meta, &[k.out, k.src.buf, k.index.buf], (gx, gy, 1))
    }

    fn scatter(&self, k: &Scatter) -> Result<()> {
        if k.shape.len() > MAX_RANK {
            bail!(Shape, "webgpu: scatters over more than {MAX_RANK} dims are not supported");
        }
        let n: usize = k.shape.iter().product();
        let groups = u32::try_from(n.div_ceil(WG as usize)).map_err(|_| err!(OutOfMemory, "tensor too large"))?;
        let (gx, gy) = Self::grid(groups);
        let mut meta = [0u32; 40];
        put(&mut meta, 0, &[n, k.shape.len(), (gx * WG) as usize, k.dim])?;
        put(&mut meta, 5, &[k.index.offset, k.dim_size])?;
        put(&mut meta, 8, &k.shape)?;
        put(&mut meta, 16, &k.out_strides)?;
        put(&mut meta, 24, &k.index.strides)?;
        let mut buffers = vec![k.out, k.index.buf];
        match &k.src {
            ScatterSrc::Tensor(s) => {
                put(&mut meta, 4, &[s.offset])?;
                put(&mut meta, 32, &s.strides)?;
                buffers.push(s.buf);
            }
            ScatterSrc::Scalar(v) => meta[7] = crate::tensor::to_word(*v, k.dtype)?,
        }
        let key = KernelKey::Scatter { dtype: k.dtype, tensor_src: matches!(k.src, ScatterSrc::Tensor(_)), add: k.add };
        self.dispatch(&key, &meta, &buffers, (gx, gy, 1))
    }

    fn scan(&self, k: &Scan) -> Result<()> {
        self.scan_impl(k)
    }

    fn sort(&self, k: &Sort) -> Result<()> {
        self.sort_impl(k)
    }

    fn search_sorted(&self, k: &SearchSorted) -> Result<()> {
        self.search_sorted_impl(k)
    }

    fn compile_user(&self, name: &str, source: Rc<str>, n_inputs: usize) -> LocalFuture<Result<()>> {
        custom::compile(self.me.upgrade(), name, source, n_inputs)
    }

    fn user_kernel(&self, k: &super::UserKernel) -> Result<()> {
        custom::dispatch(self, k)
    }

    fn flush(&self) {
        let mut st = self.st.borrow_mut();
        if st.pass.is_some() || st.encoder.is_some() {
            self.flush_locked(&mut st);
        }
    }

    fn sync(&self) -> LocalFuture<Result<()>> {
        self.flush();
        let (tx, rx) = futures_channel::oneshot::channel();
        self.queue.on_submitted_work_done(move || {
            let _ = tx.send(());
        });
        #[cfg(not(target_arch = "wasm32"))]
        let _ = self.device.poll(wgpu::PollType::wait_indefinitely());
        let me = self.me.upgrade();
        Box::pin(async move {
            rx.await.map_err(|_| err!(Device, "WebGPU device was lost during sync"))?;
            match me {
                Some(me) => me.take_errors(),
                None => Ok(()),
            }
        })
    }

    fn stats(&self) -> Stats {
        let st = self.st.borrow();
        let mut s = st.stats.clone();
        s.pooled_bytes = st.pool.pooled_bytes;
        s
    }

    fn supports_fusion(&self) -> bool {
        true
    }

    fn set_batch_threshold(&self, n: usize) {
        let mut st = self.st.borrow_mut();
        st.threshold = n.max(1);
        if st.stats.pending as usize >= st.threshold {
            self.flush_locked(&mut st);
        }
    }

    fn reset_peak(&self) {
        let mut st = self.st.borrow_mut();
        st.stats.peak_bytes = st.stats.active_bytes;
    }

    fn lose_device(&self) {
        self.destroy_device();
    }

    fn set_batch_hold(&self, hold: bool) {
        self.st.borrow_mut().hold = hold;
    }

    fn empty_cache(&self) {
        let mut st = self.st.borrow_mut();
        st.pool.clear();
        st.staging.clear();
        // Cached bind groups hold their buffers: drop them so the memory is really freed.
        st.bind_groups.clear();
    }
}
