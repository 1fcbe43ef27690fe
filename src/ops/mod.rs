//! Ops by family. The elementwise table and its math (`table.rs`, `math.rs`); the WGSL helpers the
//! families' programs share (`wgsl.rs`); and the families moved to the program-dispatch contract
//! (`backend/program.rs`), each a folder with its rule, its entry, its CPU twin and its WGSL. The
//! shape and dtype rules of the other hand-written families are in `tensor/`.

pub mod attention;
pub mod loss;
pub mod math;
pub mod optim;
pub mod pool;
pub mod random;
pub mod sort;
pub mod table;
pub mod wgsl;

pub use table::{Op, OpInfo, ResultKind, TABLE};
