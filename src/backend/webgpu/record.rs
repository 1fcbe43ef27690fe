//! Recording work into the open batch: the pipeline cache (a kernel's WGSL compiled once per
//! key, with its bind-group layout), one dispatch into the open compute pass (its bind group and
//! uniform slot from `binding.rs`), and the submit that ends a batch.

use std::rc::Rc;

use super::codegen::{self, KernelKey};
use super::{graph, Kernel, State, WebGpuBackend, IDLE_FIRST, SLOT_BYTES};
use crate::backend::BufId;
use crate::err;
use crate::error::Result;

impl WebGpuBackend {
    pub(super) fn kernel(&self, st: &mut State, key: &KernelKey, n_storage: usize) -> Rc<Kernel> {
        if let Some(k) = st.kernels.get(key) {
            return k.clone();
        }
        let writable = key.writable();
        let (bgl, pl) = st
            .layouts
            .entry((n_storage, writable))
            .or_insert_with(|| {
                let mut entries = vec![wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: wgpu::BufferSize::new(SLOT_BYTES),
                    },
                    count: None,
                }];
                for i in 0..n_storage {
                    entries.push(wgpu::BindGroupLayoutEntry {
                        binding: 1 + i as u32,
                        visibility: wgpu::ShaderStages::COMPUTE,
                        ty: wgpu::BindingType::Buffer {
                            ty: wgpu::BufferBindingType::Storage { read_only: i >= writable },
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
        let k = Rc::new(Kernel { pipeline, layout: bgl, label });
        st.kernels.insert(key.clone(), k.clone());
        k
    }

    /// Records one dispatch into the open pass (after the batched tiny ops waiting, which come
    /// first); flushes when the batch is full.
    pub(super) fn record(
        &self,
        key: &KernelKey,
        meta: &[u32],
        buffers: &[BufId],
        groups: (u32, u32, u32),
    ) -> Result<()> {
        self.check_lost()?;
        let mut st = self.st.borrow_mut();
        let bufs: Vec<wgpu::Buffer> = buffers.iter().map(|&b| Self::buffer(&st, b)).collect();
        crate::debug::fault_point("webgpu.dispatch");
        self.emit_batched(&mut st, false)?;
        self.dispatch_locked(&mut st, key, meta, bufs, groups, true)
    }

    /// `record` with the state borrowed and the buffers resolved; `may_flush`: submit when
    /// the batch threshold is reached.
    pub(super) fn dispatch_locked(
        &self,
        st: &mut State,
        key: &KernelKey,
        meta: &[u32],
        bufs: Vec<wgpu::Buffer>,
        groups: (u32, u32, u32),
        may_flush: bool,
    ) -> Result<()> {
        if st.timing.as_ref().is_some_and(|t| t.full()) {
            self.flush_locked(st);
        }
        if !matches!(key, KernelKey::Check) {
            let w = key.writable().min(bufs.len());
            st.checks.propagate(&bufs[..w], &bufs[w..]);
        }
        let kernel = self.kernel(st, key, bufs.len());
        let recorded = st.capture.is_some().then(|| bufs.clone());
        // Bind groups are cached by the buffers and the uniform slot they bind: pooled buffers
        // come back, so a model's steady state creates none. A full arena submits the batch.
        let bg_key = (bufs, key.writable());
        let (bind_group, created) = match st.bind.bind(&self.device, &self.arena_buf, &kernel.layout, bg_key, meta) {
            Ok(b) => b,
            Err(bg_key) => {
                self.flush_locked(st);
                st.bind
                    .bind(&self.device, &self.arena_buf, &kernel.layout, bg_key, meta)
                    .map_err(|_| err!(Device, "WebGPU: no uniform slot free after a submit"))?
            }
        };
        if created {
            st.stats.bind_groups += 1;
        }
        self.open_encoder(st);
        // While the profiler times dispatches, each gets its own pass: WebGPU writes timestamps
        // only at a pass's beginning and end.
        let timed = st.timing.is_some();
        if st.pass.is_none() || timed {
            st.pass = None;
            let State { encoder, timing, .. } = &mut *st;
            let timestamp_writes = timing.as_mut().map(|t| t.next(codegen::label(key)));
            let pass = encoder
                .as_mut()
                .expect("open encoder")
                .begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("webtorch:pass"), timestamp_writes })
                .forget_lifetime();
            st.pass = Some(pass);
            st.pass_kernel = None;
        }
        if let (Some(cap), Some(buffers)) = (st.capture.as_mut(), recorded) {
            cap.dispatches.push(graph::Recorded {
                kernel: kernel.clone(),
                meta: meta.to_vec(),
                buffers,
                groups,
                writable: key.writable(),
                writes_whole_output: key.writes_whole_output(),
            });
        }
        let State { pass, pass_kernel, .. } = &mut *st;
        let pass = pass.as_mut().expect("open pass");
        if !pass_kernel.as_ref().is_some_and(|k| Rc::ptr_eq(k, &kernel)) {
            pass.set_pipeline(&kernel.pipeline);
            *pass_kernel = Some(kernel.clone());
        }
        pass.set_bind_group(0, &bind_group, &[]);
        pass.dispatch_workgroups(groups.0, groups.1, groups.2);
        if timed {
            st.pass = None;
        }
        st.stats.dispatches += 1;
        st.stats.pending += 1;
        let limit = if st.idle { st.threshold.min(IDLE_FIRST) } else { st.threshold };
        if may_flush && st.stats.pending as usize >= limit && !st.hold {
            self.flush_locked(st);
        }
        Ok(())
    }

    /// Records a buffer-to-buffer copy (`Backend::copy`) between compute passes of the open
    /// encoder: a command, not a dispatch.
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
        // A threshold of 1 (`disable_batching`) submits every command at once, copies too.
        if st.threshold <= 1 && !st.hold {
            self.flush_locked(&mut st);
        }
        Ok(())
    }

    /// The open batch's encoder for a command that is not a dispatch (a copy): the batched tiny
    /// ops waiting are recorded first and the open pass ends (the next dispatch opens another
    /// on the same encoder, so the order of work is kept).
    pub(super) fn command_encoder<'s>(&self, st: &'s mut State) -> &'s mut wgpu::CommandEncoder {
        if let Err(e) = self.emit_batched(st, false) {
            self.report(e);
        }
        st.pass = None;
        self.open_encoder(st)
    }

    /// The open batch's encoder, made if none is open.
    pub(super) fn open_encoder<'s>(&self, st: &'s mut State) -> &'s mut wgpu::CommandEncoder {
        st.encoder.get_or_insert_with(|| {
            self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("webtorch:batch") })
        })
    }

    /// Keeps an error of recording that has no caller to return it to (a submit's batched ops):
    /// the next read or sync reports it.
    fn report(&self, e: crate::error::Error) {
        if let Ok(mut v) = self.errors.lock() {
            v.push((e.kind, e.message));
        }
    }

    /// Ends the open pass and submits it, with `extra` commands appended (reads' copies).
    pub(super) fn flush_locked(&self, st: &mut State) {
        self.submit_with(st, |_| {});
    }

    pub(super) fn submit_with(&self, st: &mut State, extra: impl FnOnce(&mut wgpu::CommandEncoder)) {
        crate::debug::fault_point("webgpu.submit");
        // The waiting tiny ops are recorded and the pass ends.
        self.command_encoder(st);
        let mut encoder = st.encoder.take().expect("open encoder");
        self.resolve_timestamps(st, &mut encoder);
        extra(&mut encoder);
        if let Some((offset, words)) = st.bind.take_written() {
            self.queue.write_buffer(&self.arena_buf, offset, bytemuck::cast_slice(words));
        }
        self.queue.submit([encoder.finish()]);
        st.idle = false;
        st.stats.pending = 0;
        st.stats.submits += 1;
        st.pool.on_submit();
    }
}
