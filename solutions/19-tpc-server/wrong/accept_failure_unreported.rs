//! Wrong: a failed accept is paused after, but in silence. The server copes, and nobody
//! learns why it answers slowly: while the process is out of file descriptors, the one
//! line on stderr that says so is what its operator needs. The test runs in a process of
//! its own, makes two accepts fail, and looks for the error's text on stderr.
//! expect-fail: a_failed_accept_is_reported_on_stderr
//! replaces: pause

/// After a failed accept: go on at once if only that connection failed; if the process
/// is out of something (file descriptors, memory), wait a little, rather than spin on an
/// accept that fails again at once.
async fn pause_after(error: &io::Error) {
    use io::ErrorKind::{ConnectionAborted, ConnectionReset, Interrupted};
    if !matches!(
        error.kind(),
        ConnectionAborted | ConnectionReset | Interrupted
    ) {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}
