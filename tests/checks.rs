#![cfg(not(target_arch = "wasm32"))]
//! Device-side value checks on the GPU (wgpu over Vulkan): an out-of-range index given to
//! index_select / gather / scatter on the GPU raises PyTorch's IndexError at the next read or
//! sync (the CPU raises it at the call, with the same words); the engine keeps working, the error
//! is raised once, value checks let `except` through and fail NaN, and reads pay for fetching
//! the error buffer only after a check ran.

mod common;

use common::{devices, values};
use webtorch::backend::CheckMessage;
use webtorch::error::ErrorKind;
use webtorch::{DType, Device, Tensor};

fn stats() -> webtorch::backend::Stats {
    webtorch::engine::backend(Device::WebGpu).unwrap().stats()
}

fn t(v: &[f64], shape: &[usize], dtype: DType, dev: Device) -> Tensor {
    Tensor::from_f64(v, shape, dtype, dev).unwrap()
}

/// An op on a device, for the table of cases.
type Case<'a> = (&'static str, Box<dyn Fn(Device) -> webtorch::Result<Tensor> + 'a>);

fn sync(dev: Device) -> webtorch::Result<()> {
    pollster::block_on(webtorch::engine::backend(dev).unwrap().sync())
}

/// The op's error: at the call on the CPU, at the next sync on the GPU.
fn error_of(dev: Device, f: impl Fn(Device) -> webtorch::Result<Tensor>) -> webtorch::error::Error {
    match f(dev) {
        Err(e) => {
            assert_eq!(dev, Device::Cpu, "the GPU raises at the sync, not the call: {e}");
            e
        }
        Ok(_) => sync(dev).expect_err("the sync raises the device-side check"),
    }
}

#[test]
fn out_of_range_indices_raise_pytorch_errors() {
    for dev in devices() {
        let x = t(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3], DType::Float32, dev);
        let cases: [Case; 4] = [
            ("index out of range in self", Box::new(|d| x.index_select(0, &t(&[0.0, 2.0], &[2], DType::Int64, d)))),
            (
                "index 5 is out of bounds for dimension 1 with size 3",
                Box::new(|d| x.gather(1, &t(&[0.0, 5.0, 0.0, 0.0], &[2, 2], DType::Int64, d))),
            ),
            (
                "index -1 is out of bounds for dimension 1 with size 3",
                Box::new(|d| x.gather(-1, &t(&[-1.0], &[1, 1], DType::Int64, d))),
            ),
            (
                "index 4 is out of bounds for dimension 1 with size 3",
                Box::new(|d| {
                    x.scatter(1, &t(&[4.0], &[1, 1], DType::Int64, d), &t(&[9.0], &[1, 1], DType::Float32, d))
                }),
            ),
        ];
        for (want, f) in &cases {
            let e = error_of(dev, f);
            assert_eq!(e.kind, ErrorKind::Index, "{dev:?}: {e}");
            assert_eq!(e.message, *want, "{dev:?}");
            // Raised once; the engine still computes.
            if dev == Device::WebGpu {
                sync(dev).expect("the error was cleared");
            }
            let y = x.index_select(1, &t(&[2.0, 0.0], &[2], DType::Int64, dev)).unwrap();
            assert_eq!(values(&y), [3.0, 1.0, 6.0, 4.0], "{dev:?}");
        }
    }
}

#[test]
fn value_checks_fail_nan_and_let_except_through() {
    let msg = CheckMessage { kind: ErrorKind::Torch, low: "low {}".into(), high: "high {}".into() };
    for dev in devices() {
        let ok = t(&[0.0, 1.0, -100.0, 0.5], &[4], DType::Float32, dev);
        ok.check_values(0.0, 1.0, Some(-100.0), &msg).unwrap();
        if dev == Device::WebGpu {
            sync(dev).expect("all in range");
        }
        for (v, want) in [(f64::NAN, "low NaN"), (2.0, "high 2"), (-0.5, "low -0.5")] {
            let bad = t(&[0.5, v], &[2], DType::Float32, dev);
            let e = match bad.check_values(0.0, 1.0, None, &msg) {
                Err(e) => e,
                Ok(()) => sync(dev).expect_err("device check"),
            };
            assert_eq!(e.message, want, "{dev:?}");
        }
        // int32 values compare as integers, through a strided view.
        let ints = t(&[0.0, 7.0, 1.0, 2.0], &[2, 2], DType::Int32, dev).transpose(0, 1).unwrap();
        let e = match ints.check_values(0.0, 2.0, None, &msg) {
            Err(e) => e,
            Ok(()) => sync(dev).expect_err("device check"),
        };
        assert_eq!(e.message, "high 7", "{dev:?}");
    }
}

#[test]
fn reads_fetch_the_error_buffer_only_after_a_check() {
    if !devices().contains(&Device::WebGpu) {
        return;
    }
    let dev = Device::WebGpu;
    let x = t(&[1.0, 2.0, 3.0], &[3], DType::Float32, dev);
    sync(dev).unwrap();
    let s0 = stats();
    let _ = values(&x.binary(webtorch::Op::Add, &x).unwrap());
    sync(dev).unwrap();
    assert_eq!(stats().check_reads, s0.check_reads, "no check ran: no fetch");
    let y = x.index_select(0, &t(&[2.0, 0.0], &[2], DType::Int64, dev)).unwrap();
    assert_eq!(stats().value_checks, s0.value_checks + 1, "one check dispatched");
    assert_eq!(values(&y), [3.0, 1.0]);
    assert_eq!(stats().check_reads, s0.check_reads + 1, "the read fetched it, once");
    let _ = values(&y);
    sync(dev).unwrap();
    assert_eq!(stats().check_reads, s0.check_reads + 1);
}

/// A failed check is raised by the reads of what was computed from the bad values, with that
/// check's own message, and not by reads of anything else (even the read that fetched it).
#[test]
fn a_failed_check_is_raised_by_the_reads_that_depend_on_it() {
    if !devices().contains(&Device::WebGpu) {
        return;
    }
    let dev = Device::WebGpu;
    let x = t(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3], DType::Float32, dev);
    sync(dev).unwrap();
    let read = |y: &Tensor| pollster::block_on(y.to_f64());
    let bad_gather = x.gather(1, &t(&[0.0, 5.0, 0.0, 0.0], &[2, 2], DType::Int64, dev)).unwrap();
    let good = x.index_select(1, &t(&[2.0, 0.0], &[2], DType::Int64, dev)).unwrap();
    let bad_select = x.index_select(1, &t(&[0.0, 3.0], &[2], DType::Int64, dev)).unwrap();
    let derived = bad_select
        .binary(webtorch::Op::Mul, &good)
        .unwrap()
        .binary(webtorch::Op::Add, &x.narrow(1, 0, 2).unwrap())
        .unwrap();
    // The first read fetches all three checks' results; it depends on none of the failures.
    assert_eq!(read(&good).unwrap(), [3.0, 1.0, 6.0, 4.0]);
    let e = read(&bad_select).expect_err("index_select's failure");
    assert_eq!(e.message, "INDICES element is out of DATA bounds, id=3 axis_dim=3");
    let e = read(&bad_gather).expect_err("gather's failure");
    assert_eq!(e.message, "index 5 is out of bounds for dimension 1 with size 3");
    // Computed from the bad values (a fused chain): raised again, every time.
    for _ in 0..2 {
        let e = read(&derived).expect_err("a result of the bad values");
        assert_eq!(e.message, "INDICES element is out of DATA bounds, id=3 axis_dim=3");
    }
    // The failures were reported by reads: a sync has nothing left to raise; the engine computes.
    sync(dev).unwrap();
    assert_eq!(read(&good).unwrap(), [3.0, 1.0, 6.0, 4.0]);
    let y = good.binary(webtorch::Op::Mul, &good).unwrap();
    assert_eq!(read(&y).unwrap(), [9.0, 1.0, 36.0, 16.0]);
    // A copy of the bad values carries the failure too.
    let copied = bad_gather.contiguous().unwrap().transpose(0, 1).unwrap().contiguous().unwrap();
    assert!(read(&copied).is_err(), "a copy of the bad values");
}
