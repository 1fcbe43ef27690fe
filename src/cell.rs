//! The engine's `RefCell`: `std::cell::RefCell`'s API, but a trap cannot leave it borrowed.
//!
//! On wasm32 a panic aborts: the module traps, no destructor of the frames it leaves runs, and a
//! `std::cell::RefCell` borrowed by one of them stays borrowed for good — every later call that
//! touches it fails with "already borrowed", and the engine is dead until a reload. This cell
//! stamps its borrow count with the recovery epoch. When a call into the core traps, the TS layer
//! calls `recover()` (no frame of the core is running then, so no borrow can be live); that
//! advances the epoch, and each cell treats a count from an older epoch as zero the next time it
//! is borrowed; a guard from an older epoch no longer touches the count when it is dropped. Every
//! engine-wide and per-tensor cell is one of these.
//!
//! The price is one thread-local read per borrow. Holding a guard across an `.await` would be
//! wrong (a trap elsewhere would release it); clippy.toml makes clippy reject it.

use std::cell::{Cell, UnsafeCell};
use std::fmt;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

thread_local! {
    static EPOCH: Cell<u32> = const { Cell::new(0) };
}

fn epoch() -> u32 {
    EPOCH.with(Cell::get)
}

/// Releases every borrow taken before now.
///
/// # Safety
/// No frame that holds a borrow may run again: call it only when no frame of the core is on the
/// stack (after a trap, once the outermost call into the core has ended) and no future holds a
/// guard across an `.await`. Otherwise two live `&mut` to one value could exist.
pub unsafe fn recover() {
    EPOCH.with(|e| e.set(e.get().wrapping_add(1)));
}

/// Borrow state: 0 free, n > 0 shared by n readers, −1 borrowed mutably.
pub struct RefCell<T: ?Sized> {
    count: Cell<isize>,
    epoch: Cell<u32>,
    value: UnsafeCell<T>,
}

impl<T> RefCell<T> {
    pub const fn new(value: T) -> Self {
        RefCell { count: Cell::new(0), epoch: Cell::new(0), value: UnsafeCell::new(value) }
    }

    pub fn into_inner(self) -> T {
        self.value.into_inner()
    }

    pub fn replace(&self, value: T) -> T {
        std::mem::replace(&mut *self.borrow_mut(), value)
    }

    pub fn take(&self) -> T
    where
        T: Default,
    {
        self.replace(T::default())
    }
}

impl<T: ?Sized> RefCell<T> {
    /// The borrow count, zeroed first when it was left by an epoch a trap ended.
    fn count(&self) -> isize {
        let now = epoch();
        if self.epoch.get() != now {
            self.epoch.set(now);
            self.count.set(0);
        }
        self.count.get()
    }

    #[track_caller]
    pub fn borrow(&self) -> Ref<'_, T> {
        let n = self.count();
        if n < 0 {
            panic!("already mutably borrowed");
        }
        self.count.set(n + 1);
        // SAFETY: the count now records a shared borrow; no mutable one exists.
        let value = unsafe { NonNull::new_unchecked(self.value.get()) };
        Ref { value, count: &self.count, epoch: &self.epoch, at: self.epoch.get(), _p: PhantomData }
    }

    #[track_caller]
    pub fn borrow_mut(&self) -> RefMut<'_, T> {
        if self.count() != 0 {
            panic!("already borrowed");
        }
        self.count.set(-1);
        // SAFETY: the count now records the one mutable borrow; no other borrow exists.
        let value = unsafe { NonNull::new_unchecked(self.value.get()) };
        RefMut { value, count: &self.count, epoch: &self.epoch, at: self.epoch.get(), _p: PhantomData }
    }

    pub fn get_mut(&mut self) -> &mut T {
        self.value.get_mut()
    }
}

impl<T: Default> Default for RefCell<T> {
    fn default() -> Self {
        RefCell::new(T::default())
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RefCell<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RefCell").field("value", &&*self.borrow()).finish()
    }
}

/// A shared borrow of a `RefCell`'s value.
pub struct Ref<'a, T: ?Sized> {
    value: NonNull<T>,
    count: &'a Cell<isize>,
    /// The cell's epoch, and the epoch this borrow was counted in.
    epoch: &'a Cell<u32>,
    at: u32,
    _p: PhantomData<&'a T>,
}

impl<T: ?Sized> Deref for Ref<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the cell's count holds a shared borrow for the guard's lifetime.
        unsafe { self.value.as_ref() }
    }
}

impl<T: ?Sized> Drop for Ref<'_, T> {
    fn drop(&mut self) {
        // A count from an older epoch was already released by `recover`.
        if self.epoch.get() == self.at {
            self.count.set(self.count.get() - 1);
        }
    }
}

/// The mutable borrow of a `RefCell`'s value.
pub struct RefMut<'a, T: ?Sized> {
    value: NonNull<T>,
    count: &'a Cell<isize>,
    epoch: &'a Cell<u32>,
    at: u32,
    _p: PhantomData<&'a mut T>,
}

impl<T: ?Sized> Deref for RefMut<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the cell's count holds the one mutable borrow for the guard's lifetime.
        unsafe { self.value.as_ref() }
    }
}

impl<T: ?Sized> DerefMut for RefMut<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as in `deref`.
        unsafe { self.value.as_mut() }
    }
}

impl<T: ?Sized> Drop for RefMut<'_, T> {
    fn drop(&mut self) {
        if self.epoch.get() == self.at {
            self.count.set(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn borrows_count_and_release() {
        let c = RefCell::new(5);
        {
            let a = c.borrow();
            let b = c.borrow();
            assert_eq!(*a + *b, 10);
        }
        *c.borrow_mut() += 1;
        assert_eq!(c.replace(9), 6);
        assert_eq!(c.take(), 9);
    }

    #[test]
    #[should_panic(expected = "already borrowed")]
    fn a_second_mutable_borrow_panics() {
        let c = RefCell::new(0);
        let _a = c.borrow_mut();
        let _b = c.borrow_mut();
    }

    #[test]
    fn recover_releases_borrows_a_trap_left() {
        let c = RefCell::new(vec![1]);
        // What a trap does: the guards' frames end without running their destructors.
        std::mem::forget(c.borrow_mut());
        // SAFETY: the only guard was forgotten, as a trap would leave it.
        unsafe { recover() };
        c.borrow_mut().push(2);
        assert_eq!(*c.borrow(), [1, 2]);
        // A shared borrow left behind is released the same way.
        std::mem::forget(c.borrow());
        // SAFETY: as above.
        unsafe { recover() };
        c.borrow_mut().push(3);
        assert_eq!(c.into_inner(), [1, 2, 3]);
    }

    #[test]
    fn a_guard_from_before_a_recovery_leaves_the_count_alone() {
        let c = RefCell::new(0);
        let stale = c.borrow();
        // SAFETY: `stale` is not used again, only dropped (what the epoch stamp is for).
        unsafe { recover() };
        let mut now = c.borrow_mut();
        *now += 1;
        drop(stale);
        drop(now);
        assert_eq!(*c.borrow(), 1);
        *c.borrow_mut() += 1;
    }
}
