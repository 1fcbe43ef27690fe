//! Typed errors. Every failure the core can report is one of these kinds; `api` turns them into
//! instances of the TS layer's `TorchError` subclasses. Messages follow PyTorch's wording.

use std::fmt;

/// Which JS error class an error becomes (`TorchError` subclasses in `ts/src/errors.ts`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// PyTorch's generic `RuntimeError`/`ValueError`/`TypeError` family.
    Torch,
    Shape,
    DType,
    Index,
    Device,
    OutOfMemory,
    /// A value outside what its dtype can hold here (int64 beyond 32 bits).
    Overflow,
}

impl ErrorKind {
    pub fn class_name(self) -> &'static str {
        match self {
            ErrorKind::Torch => "TorchError",
            ErrorKind::Shape => "ShapeError",
            ErrorKind::DType => "DTypeError",
            ErrorKind::Index => "IndexError",
            ErrorKind::Device => "DeviceError",
            ErrorKind::OutOfMemory => "OutOfMemoryError",
            ErrorKind::Overflow => "OverflowError",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error { kind, message: message.into() }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.class_name(), self.message)
    }
}

impl std::error::Error for Error {}

/// `bail!(Shape, "...", args)` returns early with an error of that kind.
#[macro_export]
macro_rules! bail {
    ($kind:ident, $($fmt:tt)+) => {
        return Err($crate::error::Error::new($crate::error::ErrorKind::$kind, format!($($fmt)+)))
    };
}

/// `err!(Shape, "...")` builds an error of that kind without returning.
#[macro_export]
macro_rules! err {
    ($kind:ident, $($fmt:tt)+) => {
        $crate::error::Error::new($crate::error::ErrorKind::$kind, format!($($fmt)+))
    };
}
