//! The book's code blocks, as doc tests: one empty module per chapter, documented by
//! the chapter itself (see build.rs). Run by scripts/test.
#![allow(rustdoc::all)]

pub mod quiz;

include!(concat!(env!("OUT_DIR"), "/chapters.rs"));
