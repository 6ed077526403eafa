//! What happens to a tokio `TcpStream` handed from one runtime to another, run for real.
//! Chapter 19 includes this program's output (src/part4/data/reregistration.txt);
//! scripts/test checks that the committed file still matches:
//!
//!     cargo run -q -p tpc-server-solution --example reregistration
//!
//! Runtime A plays the acceptor: it accepts the connection. A `LocalRuntime` on another
//! thread plays the worker: it reads what the client sent. Run it as a debug build
//! (case 4 is a `debug_assert!` in tokio, on Unix).
#![expect(
    clippy::disallowed_types,
    reason = "an Arc around a std::sync::Mutex holding the panic message: the panic hook must be Send + Sync"
)]

use std::future::poll_fn;
use std::io::Write;
use std::net::SocketAddr;
use std::panic;
use std::pin::pin;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::thread;
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::runtime::{Builder, LocalRuntime, Runtime};

/// Runtime A, a connection accepted on it, and the std client at the other end.
fn accept_on_a() -> (Runtime, TcpStream, std::net::TcpStream) {
    let a = Builder::new_current_thread().enable_all().build().unwrap();
    let (stream, client) = a.block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (stream, _) = listener.accept().await.unwrap();
        (stream, client)
    });
    (a, stream, client)
}

/// On a fresh thread with its own `LocalRuntime` (the worker): make the stream with
/// `make`, start a read while the socket is still empty, and only then let the client
/// send "hello" (runtime A is not running meanwhile: its thread is busy here). Gives up
/// after 200 ms.
fn read_on_worker<S: Send>(
    stream: S,
    make: fn(S) -> TcpStream,
    client: &mut std::net::TcpStream,
) -> String {
    let (waiting, started) = mpsc::channel();
    thread::scope(|s| {
        let worker = s.spawn(move || {
            let worker = LocalRuntime::new().unwrap();
            worker.block_on(async {
                let mut stream = make(stream);
                let mut buf = [0u8; 16];
                let read = stream.read(&mut buf);
                let mut read = pin!(read);
                // One poll: the socket is empty, so the read waits for a readiness event.
                let first = poll_fn(|cx| Poll::Ready(read.as_mut().poll(cx))).await;
                waiting.send(()).unwrap();
                let read = match first {
                    Poll::Ready(done) => Ok(done),
                    Poll::Pending => tokio::time::timeout(Duration::from_millis(200), read).await,
                };
                match read {
                    Ok(Ok(n)) => {
                        format!("read {n} bytes, {:?}", String::from_utf8_lossy(&buf[..n]))
                    }
                    Ok(Err(error)) => format!("the read failed: {error:?}"),
                    Err(_) => "the read is still waiting after 200 ms".to_owned(),
                }
            })
        });
        if started.recv().is_ok() {
            client.write_all(b"hello").unwrap();
        }
        worker
            .join()
            .unwrap_or_else(|panic| panic::resume_unwind(panic))
    })
}

fn main() {
    // 1. The tokio stream itself moves; runtime A is alive but nobody runs it (this
    //    thread is waiting for the worker), so no readiness event ever comes.
    let (a, stream, mut client) = accept_on_a();
    let result = read_on_worker(stream, |stream| stream, &mut client);
    println!("1. moved as it is, runtime A idle: {result}");
    drop(a);

    // 2. The same, but runtime A has been dropped.
    let (a, stream, mut client) = accept_on_a();
    drop(a);
    let result = read_on_worker(stream, |stream| stream, &mut client);
    println!("2. moved as it is, runtime A dropped: {result}");

    // 3. The right way: leave A's reactor, join the worker's.
    let (a, stream, mut client) = accept_on_a();
    let std_stream = stream.into_std().unwrap();
    drop(a);
    let result = read_on_worker(std_stream, |s| TcpStream::from_std(s).unwrap(), &mut client);
    println!("3. into_std() on A, from_std() on the worker: {result}");

    // 4. A socket from std's (blocking) accept, given to from_std as it is.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    let mut client = std::net::TcpStream::connect(addr).unwrap();
    let (blocking, _) = listener.accept().unwrap();
    let message = Arc::new(Mutex::new(String::new()));
    let seen = Arc::clone(&message);
    panic::set_hook(Box::new(move |info| {
        let text = (info.payload().downcast_ref::<&str>().map(|s| s.to_string()))
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        *seen.lock().unwrap() = text;
    }));
    let result = panic::catch_unwind(panic::AssertUnwindSafe(|| {
        read_on_worker(blocking, |s| TcpStream::from_std(s).unwrap(), &mut client)
    }));
    let _ = panic::take_hook();
    match result {
        Ok(result) => println!("4. a blocking socket given to from_std(): {result}"),
        Err(_) => println!(
            "4. a blocking socket given to from_std(): panicked: {:?}",
            message.lock().unwrap()
        ),
    }
}
