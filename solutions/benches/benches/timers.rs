//! Chapter 24's benchmark: `timers VARIANT [TIMERS]` runs TIMERS (default 10,000) timers of
//! 20 ms on one runtime thread with one variant of src/timers.rs, in real time, and prints
//! `timers VARIANT COUNT MEAN P50 P99 MAX` (lateness in µs). `scripts/bench timers` runs it.

use benches::timers;

fn main() {
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    let variant = args.next().unwrap_or_else(|| {
        panic!(
            "usage: timers VARIANT [TIMERS]; variants: {:?}",
            timers::VARIANTS
        )
    });
    let count: usize = args
        .next()
        .map_or(10_000, |n| n.parse().expect("TIMERS is a number"));
    let late = timers::run(&variant, count);
    let [mean, p50, p99, max] = timers::summary(&late);
    println!("timers {variant} {} {mean} {p50} {p99} {max}", late.len());
}
