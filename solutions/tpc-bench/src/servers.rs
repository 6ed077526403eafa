//! The same hyper service on five runtimes. Every variant sets `TCP_NODELAY`, serves
//! HTTP/1.1 with hyper's defaults (keep-alive on, no timer) and runs `work::handle`.

use std::net::TcpListener as StdListener;
use std::thread;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::runtime::{Builder, LocalOptions};

use crate::compio_io::HyperStream;
use crate::work::{Work, handle};

/// Serves one connection to its end; a client closing mid-request is not our error.
async fn serve_tokio(stream: tokio::net::TcpStream, work: Work) {
    let _ = stream.set_nodelay(true);
    let service = service_fn(move |request| handle(work, request));
    let _ = http1::Builder::new()
        .serve_connection(TokioIo::new(stream), service)
        .await;
}

/// tokio's multi-thread runtime: one listener, a task per connection, and workers that
/// steal each other's tasks at every `.await`. The accept loop runs in a task, so its
/// spawns come from a worker (not from `block_on`'s outside thread; see chapter 15).
#[expect(
    clippy::disallowed_methods,
    reason = "the work-stealing baseline: tokio::spawn onto the multi-thread runtime"
)]
pub fn work_stealing(threads: usize, listener: StdListener, work: Work) {
    let runtime = Builder::new_multi_thread()
        .worker_threads(threads)
        .enable_all()
        .build()
        .expect("a multi-thread runtime");
    runtime.block_on(async move {
        tokio::spawn(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("a listener");
            loop {
                match listener.accept().await {
                    Ok((stream, _)) => drop(tokio::spawn(serve_tokio(stream, work))),
                    Err(error) => eprintln!("accept: {error}"),
                }
            }
        })
        .await
        .expect("the accept loop")
    })
}

/// A local runtime on a thread of its own (no work-stealing, `spawn_local` works).
fn local_runtime() -> tokio::runtime::LocalRuntime {
    Builder::new_current_thread()
        .enable_all()
        .build_local(LocalOptions::default())
        .expect("a local runtime")
}

/// Round-robin done right: one acceptor thread hands each connection to the next worker.
/// The stream leaves the acceptor's reactor with `into_std` and joins the worker's with
/// `from_std`, so the worker's runtime alone drives it (chapter 19's pitfall).
pub fn round_robin(threads: usize, listener: StdListener, work: Work) {
    let mut workers = Vec::with_capacity(threads);
    for i in 0..threads {
        let (to_worker, mut inbox) = tokio::sync::mpsc::unbounded_channel::<std::net::TcpStream>();
        workers.push(to_worker);
        thread::Builder::new()
            .name(format!("worker-{i}"))
            .spawn(move || {
                local_runtime().block_on(async move {
                    while let Some(stream) = inbox.recv().await {
                        let stream = tokio::net::TcpStream::from_std(stream).expect("a stream");
                        drop(tokio::task::spawn_local(serve_tokio(stream, work)));
                    }
                })
            })
            .expect("a worker thread");
    }
    let acceptor = Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("the acceptor's runtime");
    acceptor.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener).expect("a listener");
        for next in (0..threads).cycle() {
            match listener.accept().await {
                Ok((stream, _)) => {
                    let stream = stream.into_std().expect("a std stream");
                    workers[next].send(stream).expect("the worker is alive");
                }
                Err(error) => eprintln!("accept: {error}"),
            }
        }
    })
}

/// Thread-per-core with `SO_REUSEPORT`: a thread per listener, each with its own local
/// runtime; the kernel spreads connections over the listeners, and a connection stays on
/// the thread that accepted it.
pub fn thread_per_core(listeners: Vec<StdListener>, work: Work) {
    one_thread_each(listeners, move |listener| {
        local_runtime().block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("a listener");
            loop {
                match listener.accept().await {
                    Ok((stream, _)) => drop(tokio::task::spawn_local(serve_tokio(stream, work))),
                    Err(error) => eprintln!("accept: {error}"),
                }
            }
        })
    })
}

/// Thread-per-core with `SO_REUSEPORT` again, but every connection of a thread a job of
/// one moro-local scope: one task per thread, as in lab 19. With `budget` false the
/// scope runs under `tokio::task::coop::unconstrained`, as lab 19's solution does; with true,
/// tokio's cooperative budget is shared by all of the thread's connections (chapter 19,
/// "One task, one budget").
pub fn scoped(listeners: Vec<StdListener>, work: Work, budget: bool) {
    one_thread_each(listeners, move |listener| {
        local_runtime().block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("a listener");
            let connections = moro_local::async_scope!(|scope| {
                loop {
                    match listener.accept().await {
                        Ok((stream, _)) => drop(scope.spawn(serve_tokio(stream, work))),
                        Err(error) => eprintln!("accept: {error}"),
                    }
                }
            });
            if budget {
                connections.await
            } else {
                tokio::task::coop::unconstrained(connections).await
            }
        })
    })
}

/// The same on compio: one runtime (one io_uring) per thread and listener.
pub fn compio(listeners: Vec<StdListener>, work: Work) {
    one_thread_each(listeners, move |listener| {
        let runtime = compio::runtime::Runtime::new().expect("a compio runtime");
        runtime.block_on(async move {
            let listener = compio::net::TcpListener::from_std(listener).expect("a listener");
            loop {
                match listener.accept().await {
                    Ok((stream, _)) => {
                        let _ = stream.set_nodelay(true);
                        let service = service_fn(move |request| handle(work, request));
                        // Dropping a compio JoinHandle cancels its task: detach.
                        compio::runtime::spawn(async move {
                            let _ = http1::Builder::new()
                                .serve_connection(HyperStream::new(stream), service)
                                .await;
                        })
                        .detach();
                    }
                    Err(error) => eprintln!("accept: {error}"),
                }
            }
        })
    })
}

/// Runs `serve` once per listener, each on a thread of its own; the last one on this
/// thread. Servers run until the process ends.
fn one_thread_each(
    listeners: Vec<StdListener>,
    serve: impl Fn(StdListener) + Copy + Send + 'static,
) {
    let mut listeners = listeners;
    let last = listeners.pop().expect("a listener");
    for (i, listener) in listeners.into_iter().enumerate() {
        thread::Builder::new()
            .name(format!("server-{i}"))
            .spawn(move || serve(listener))
            .expect("a server thread");
    }
    serve(last);
}
