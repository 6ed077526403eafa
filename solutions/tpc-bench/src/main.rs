//! `tpc-server`: the servers `scripts/bench tpc` measures (Part IV). One hyper
//! hello-world service, optionally with the seed benchmark's skewed work, on:
//!
//! - `work-stealing`: tokio's multi-thread runtime, `tokio::spawn` per connection;
//! - `round-robin`: an acceptor thread handing connections to local runtimes, done right
//!   (`into_std` / `from_std`);
//! - `thread-per-core`: a local runtime per thread, each with its own `SO_REUSEPORT`
//!   listener (with `--threads 1`: the single-thread tokio baseline);
//! - `compio`: the same shape on compio, one io_uring per thread;
//! - `lab-19`: lab 19's server as the book teaches it (`tpc-server-solution`), with its
//!   acceptor; `lab-19-reuseport`: the same with one `SO_REUSEPORT` listener per worker;
//! - `scoped`: `thread-per-core` with each thread's connections in one moro-local scope
//!   (one task), outside tokio's budget as in lab 19; `scoped-budget`: the same inside it.
//!
//! Usage: `tpc-server --variant V --threads N --work plain|spin|sleep
//! [--spin-iterations I] [--max-seconds S]`, or `tpc-server --calibrate`.
//! It listens on 127.0.0.1 only, on a port the kernel picks, and prints
//! `listening 127.0.0.1:PORT`. It stops when its standard input closes, printing
//! `served N` (responses sent), or after `--max-seconds` (default 3600) whatever happens.

mod compio_io;
mod lab19;
mod servers;
mod work;

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::process::ExitCode;
use std::time::Duration;

use socket2::{Domain, Socket, Type};

use crate::work::{STEP, Work};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let option = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1).cloned())
    };
    if args.iter().any(|a| a == "--calibrate") {
        calibrate();
        return ExitCode::SUCCESS;
    }
    let variant = option("--variant").unwrap_or_default();
    let threads: usize = option("--threads").map_or(1, |t| t.parse().expect("--threads N"));
    let spin_iterations = option("--spin-iterations").map_or_else(work::calibrate_spin, |i| {
        i.parse().expect("--spin-iterations I")
    });
    let max_seconds: u64 =
        option("--max-seconds").map_or(3600, |s| s.parse().expect("--max-seconds S"));
    let Some(work) = Work::parse(&option("--work").unwrap_or_default(), spin_iterations) else {
        eprintln!("usage: tpc-server --variant V --threads N --work plain|spin|sleep");
        return ExitCode::FAILURE;
    };
    if variant == "compio"
        && let Err(error) = compio::runtime::Runtime::new()
    {
        // Where the kernel refuses io_uring this variant cannot run: say why, don't fail.
        println!("unavailable: the kernel refused io_uring: {error}");
        return ExitCode::SUCCESS;
    }

    if let Some(rest) = variant.strip_prefix("lab-19") {
        // Lab 19's server binds its own sockets.
        let (port, serve) = lab19::bind(threads, rest == "-reuseport");
        println!("listening 127.0.0.1:{port}");
        std::io::stdout().flush().expect("stdout");
        stop_when_stdin_closes();
        stop_after(Duration::from_secs(max_seconds));
        serve(work);
        return ExitCode::SUCCESS;
    }
    let reuseport = matches!(
        variant.as_str(),
        "thread-per-core" | "compio" | "scoped" | "scoped-budget"
    );
    let mut listeners = bind(if reuseport { threads } else { 1 }, variant != "compio");
    let port = listeners[0].local_addr().expect("an address").port();
    println!("listening 127.0.0.1:{port}");
    std::io::stdout().flush().expect("stdout");
    stop_when_stdin_closes();
    stop_after(Duration::from_secs(max_seconds));

    match variant.as_str() {
        "work-stealing" => servers::work_stealing(threads, listeners.remove(0), work),
        "round-robin" => servers::round_robin(threads, listeners.remove(0), work),
        "thread-per-core" => servers::thread_per_core(listeners, work),
        "compio" => servers::compio(listeners, work),
        "scoped" => servers::scoped(listeners, work, false),
        "scoped-budget" => servers::scoped(listeners, work, true),
        other => {
            eprintln!("unknown variant {other:?}");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

/// `count` listeners on one port of 127.0.0.1, every one with `SO_REUSEPORT` set before
/// `bind` (Linux then spreads connections over them). tokio wants them non-blocking;
/// compio's io_uring driver wants them as they are.
fn bind(count: usize, nonblocking: bool) -> Vec<TcpListener> {
    let mut port = 0;
    (0..count)
        .map(|_| {
            let socket = Socket::new(Domain::IPV4, Type::STREAM, None).expect("a socket");
            socket.set_reuse_address(true).expect("SO_REUSEADDR");
            // Windows has no SO_REUSEPORT; `scripts/bench tpc` runs on Linux only, and the
            // crate still type-checks for the learners' other systems.
            #[cfg(unix)]
            socket.set_reuse_port(true).expect("SO_REUSEPORT");
            let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
            socket.bind(&addr.into()).expect("bind 127.0.0.1");
            socket.listen(1024).expect("listen");
            socket.set_nonblocking(nonblocking).expect("O_NONBLOCK");
            let listener: TcpListener = socket.into();
            port = listener.local_addr().expect("an address").port();
            listener
        })
        .collect()
}

/// Prints what the skewed handlers cost on this machine: the spin's iterations for one
/// 10 µs step (the harness passes the same number to every server), and the real length
/// of one step of each kind.
fn calibrate() {
    let iterations = work::calibrate_spin();
    let spin = work::median_micros(201, || work::spin(iterations));
    let sleep = work::median_micros(201, || std::thread::sleep(STEP));
    println!("spin-iterations {iterations}");
    println!("spin-step-us {spin:.1}");
    println!("sleep-step-us {sleep:.1}");
}

/// The harness stops a server by closing its standard input.
fn stop_when_stdin_closes() {
    std::thread::spawn(|| {
        let mut sink = [0u8; 64];
        while matches!(std::io::stdin().read(&mut sink), Ok(n) if n > 0) {}
        println!("served {}", work::served());
        let _ = std::io::stdout().flush();
        std::process::exit(0);
    });
}

/// A server never outlives its budget, even if the harness died without closing stdin.
fn stop_after(limit: Duration) {
    std::thread::spawn(move || {
        std::thread::sleep(limit);
        eprintln!("tpc-server: stopping after {limit:?}");
        std::process::exit(2);
    });
}
