//! Zeroed atomic bytes on anonymous pages, asked for on transparent huge
//! pages: the storage of a level's whole cache ([`super::reader`]).
//!
//! A search probes a whole cache at random, one byte at a time, so each
//! probe is a cache miss and, on 4 KiB pages, a TLB miss too; on 2 MiB
//! pages the TLB covers the small levels that take most probes (as the
//! builder's copies of the lower levels, [`crate::tables::Table::into_memory`]).
//! The pages are still given by the kernel only when first written, so a
//! cache costs the huge pages of the blocks it holds.

use std::ops::Deref;
use std::sync::atomic::AtomicU8;

/// `len` atomic bytes, zero until written.
pub(super) enum AtomicBytes {
    /// An anonymous map of at least one byte (a map of none is refused).
    Mapped(memmap2::MmapMut, usize),
    /// The fallback where the system gives no map: a zeroed allocation.
    Boxed(Box<[AtomicU8]>),
}

impl AtomicBytes {
    /// `len` zeroed bytes: mapped and advised onto huge pages, or
    /// allocated where no map can be had.
    pub(super) fn zeroed(len: usize) -> AtomicBytes {
        match memmap2::MmapMut::map_anon(len.max(1)) {
            Ok(map) => {
                #[cfg(target_os = "linux")]
                let _ = map.advise(memmap2::Advice::HugePage);
                AtomicBytes::Mapped(map, len)
            }
            Err(_) => AtomicBytes::Boxed((0..len).map(|_| AtomicU8::new(0)).collect()),
        }
    }
}

impl Deref for AtomicBytes {
    type Target = [AtomicU8];

    fn deref(&self) -> &[AtomicU8] {
        match self {
            // SAFETY: the map is at least `len` bytes, page-aligned, and
            // owned by `self` for the slice's lifetime; `AtomicU8` has the
            // size, alignment and bit validity of `u8`, and the bytes are
            // only ever read and written through these atomics (the map is
            // never handed out as `&mut [u8]`).
            AtomicBytes::Mapped(map, len) => unsafe {
                std::slice::from_raw_parts(map.as_ptr() as *const AtomicU8, *len)
            },
            AtomicBytes::Boxed(b) => b,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::AtomicBytes;
    use std::sync::atomic::Ordering::Relaxed;

    /// The bytes start at zero, keep what is stored, and a cache of no
    /// bytes is an empty slice.
    #[test]
    fn zeroed_bytes_read_back_what_is_stored() {
        let b = AtomicBytes::zeroed(5000);
        assert_eq!(b.len(), 5000);
        assert!(b.iter().all(|x| x.load(Relaxed) == 0));
        b[4999].store(7, Relaxed);
        b[0].store(200, Relaxed);
        assert_eq!((b[0].load(Relaxed), b[4999].load(Relaxed)), (200, 7));
        assert!(AtomicBytes::zeroed(0).is_empty());
    }
}
