//! Wrong: a failed accept is retried at once, in silence, as the starter does
//! (`Err(_) => continue`). The server does not stop, which is right; but while the process
//! is out of file descriptors, every accept fails again at once, and the acceptor spins a
//! core at 100% until a descriptor is free, with nothing in the logs to say why. The tests
//! make every accept fail and watch the acceptor's thread (it is never asleep), and make
//! two accepts fail and look for the error on stderr (there is none).
//! expect-fail: failing_accepts_are_retried_after_a_pause, a_failed_accept_is_reported_on_stderr
//! may-also-fail: a_panicking_handler_is_reported
//! replaces: pause

/// After a failed accept: nothing to do, accept again at once.
async fn pause_after(_: &io::Error) {}
