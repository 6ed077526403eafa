//! Chapter 21: a TCP echo on compio, a completion-based, thread-per-core runtime. Two
//! threads, each with its own runtime and so its own ring (io_uring on Linux, an IOCP
//! port on Windows, a poller elsewhere): the server thread accepts one connection on
//! 127.0.0.1 and echoes it; the client thread sends `MESSAGES` messages and checks every
//! byte that comes back. It ends by itself; a watchdog turns a hang into a failure.
//!
//! On Linux it asserts that the runtime really drives io_uring. Where the kernel refuses
//! io_uring (`kernel.io_uring_disabled`, a container's seccomp filter), it prints one line
//! saying why and exits successfully: a skip, not a failure.
//!
//! Run: `cd solutions && cargo run -p io-uring-echo` (scripts/test does, as a smoke).

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::Duration;
use std::{io, thread};

use compio::BufResult;
use compio::buf::{IntoInner, IoBuf};
use compio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use compio::net::{TcpListener, TcpStream};
use compio::runtime::Runtime;

/// How many messages the client sends; each comes back before the next goes out.
const MESSAGES: usize = 1000;

fn main() -> ExitCode {
    // The one thing that may legitimately stop this example: no io_uring here.
    if let Err(reason) = Runtime::new() {
        println!("skipped: {}", why_no_ring(&reason));
        return ExitCode::SUCCESS;
    }
    watchdog(Duration::from_secs(30));

    let (addr_tx, addr_rx) = mpsc::channel();
    let server = thread::spawn(move || {
        let runtime = ring_on_this_thread();
        runtime.block_on(serve_one(addr_tx))
    });
    let addr = addr_rx.recv().expect("the server thread sends its address");
    let runtime = ring_on_this_thread();
    let driver = runtime.driver_type();
    let bytes = runtime.block_on(client(addr)).expect("the client's echoes");
    let echoed = server
        .join()
        .expect("the server thread")
        .expect("the server");
    assert_eq!(echoed, bytes, "the server echoed what the client sent");
    println!("echo over {driver:?}: {MESSAGES} messages, {bytes} bytes, every byte came back");
    ExitCode::SUCCESS
}

// ANCHOR: runtime
/// One runtime per thread, and with it one ring: nothing here is shared between threads.
fn ring_on_this_thread() -> Runtime {
    let runtime = Runtime::new().expect("a compio runtime");
    #[cfg(target_os = "linux")]
    assert!(
        runtime.driver_type().is_iouring(),
        "compio runs on io_uring on Linux (its default features have no fallback)"
    );
    runtime
}
// ANCHOR_END: runtime

// ANCHOR: serve
/// Accepts one connection and echoes it until the client closes; returns the bytes echoed.
async fn serve_one(addr_tx: mpsc::Sender<SocketAddr>) -> io::Result<usize> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    addr_tx
        .send(listener.local_addr()?)
        .expect("the client waits for the address");
    let (mut stream, _) = listener.accept().await?;
    let mut buffer = Vec::with_capacity(4096);
    let mut total = 0;
    loop {
        // The buffer goes to the kernel with the read and comes back with the result:
        // while the read is in flight, nobody else can touch it.
        let BufResult(n, back) = stream.read(buffer).await;
        let n = n?;
        if n == 0 {
            return Ok(total); // the client closed its side
        }
        let BufResult(written, back) = stream.write_all(back).await;
        written?;
        total += n;
        buffer = back;
        buffer.clear();
    }
}
// ANCHOR_END: serve

/// Sends `MESSAGES` messages of different lengths and checks each echo byte for byte.
async fn client(addr: SocketAddr) -> io::Result<usize> {
    let mut stream = TcpStream::connect(addr).await?;
    let mut total = 0;
    let mut reply = Vec::new();
    for i in 0..MESSAGES {
        let message = format!("message {i}{}\n", "!".repeat(i % 40)).into_bytes();
        let BufResult(sent, message) = stream.write_all(message).await;
        sent?;
        // Read exactly one message's length back: a slice of the buffer limits the read.
        reply.clear();
        reply.reserve(message.len());
        let BufResult(read, back) = stream.read_exact(reply.slice(..message.len())).await;
        read?;
        reply = back.into_inner();
        assert_eq!(reply, message, "message {i} came back changed");
        total += message.len();
    }
    Ok(total)
}

/// A one-line reason for a skip, from the error of the first ring this process asked for.
fn why_no_ring(error: &io::Error) -> String {
    let sysctl = std::fs::read_to_string("/proc/sys/kernel/io_uring_disabled")
        .map(|v| format!(" (kernel.io_uring_disabled = {})", v.trim()))
        .unwrap_or_default();
    format!("the kernel refused io_uring: {error}{sysctl}")
}

/// Ends the process with a failure if the example has not finished within `limit`.
fn watchdog(limit: Duration) {
    thread::spawn(move || {
        thread::sleep(limit);
        eprintln!("io-uring-echo: still running after {limit:?}; giving up");
        std::process::exit(1);
    });
}
