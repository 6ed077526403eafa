//! hyper on compio: hyper reads and writes through its own `rt::Read`/`rt::Write` traits,
//! compio through owned buffers. compio's `AsyncStream` buffers a stream behind the
//! `futures` I/O traits; this adapter passes hyper's calls on to it.

use std::io;
use std::mem::MaybeUninit;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use compio::io::compat::AsyncStream;
use compio::net::TcpStream;
use futures::io::AsyncWrite;

/// A compio `TcpStream` as hyper I/O. `AsyncStream` is `!Unpin`, hence the box.
pub struct HyperStream(Pin<Box<AsyncStream<TcpStream>>>);

impl HyperStream {
    pub fn new(stream: TcpStream) -> Self {
        HyperStream(Box::pin(AsyncStream::new(stream)))
    }
}

impl hyper::rt::Read for HyperStream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        mut buf: hyper::rt::ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        // SAFETY: `poll_read_uninit` only writes into the slice, and reports how many of
        // its first bytes it initialized; only those are marked filled below.
        let uninit: &mut [MaybeUninit<u8>] = unsafe { buf.as_mut() };
        let n = ready!(self.0.as_mut().poll_read_uninit(cx, uninit))?;
        // SAFETY: the first `n` bytes were just initialized by the read.
        unsafe { buf.advance(n) };
        Poll::Ready(Ok(()))
    }
}

impl hyper::rt::Write for HyperStream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.0.as_mut().poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.0.as_mut().poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.0.as_mut().poll_close(cx)
    }
}
