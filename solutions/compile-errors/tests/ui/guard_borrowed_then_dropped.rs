// `guard` is borrowed (`*guard += 1`) and then dropped before the `.await`: the future is
// still not `Send`, because a local that was borrowed counts as live to the end of its
// scope (rust-lang/rust#128095).
use std::sync::{Arc, Mutex};

async fn save(_visits: u64) {}

fn main() {
    let visits = Arc::new(Mutex::new(0));
    tokio::spawn(async move {
        let mut guard = visits.lock().unwrap();
        *guard += 1;
        let now = *guard;
        drop(guard);
        save(now).await;
    });
}
