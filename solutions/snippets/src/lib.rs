//! The book's code blocks, as doc tests: one empty module per chapter, documented by
//! the chapter itself (see build.rs). Run by scripts/test.
#![allow(rustdoc::all)]

include!(concat!(env!("OUT_DIR"), "/chapters.rs"));
