//! The byte-counting allocator, installed as this test binary's global allocator.

use lab_support::byte_alloc::{
    ByteCountingAllocator, allocated_bytes, bytes_during, live_blocks, live_bytes,
};

#[global_allocator]
static GLOBAL: ByteCountingAllocator = ByteCountingAllocator;

#[test]
fn a_vec_that_grows_is_one_block_and_many_bytes() {
    let (blocks, bytes) = (live_blocks(), live_bytes());
    let mut log: Vec<u64> = Vec::with_capacity(1);
    for n in 0..1000 {
        log.push(n);
    }
    assert_eq!(
        live_blocks() - blocks,
        1,
        "a Vec is one block, however long"
    );
    let grew = live_bytes() - bytes;
    assert_eq!(grew, (log.capacity() * 8) as isize, "its bytes are counted");
    drop(log);
    assert_eq!((live_blocks(), live_bytes()), (blocks, bytes), "all freed");
}

#[test]
fn bytes_during_counts_what_was_asked_for_freed_or_not() {
    let before = allocated_bytes();
    let ((), asked) = bytes_during(|| {
        for _ in 0..10 {
            drop(vec![0u8; 100]);
        }
    });
    assert_eq!(asked, 1000);
    assert_eq!(allocated_bytes() - before, 1000);
}
