// A trait with an `async fn`, and a generic caller that spawns a call. The caller asks
// `S` for `Send + Sync + 'static`, but the future `get` returns is not `S`: it is a type
// the caller cannot name, so it cannot ask that type for `Send`.
trait Store {
    async fn get(&self, key: u32) -> Option<u64>;
}

fn spawn_lookup<S: Store + Send + Sync + 'static>(store: S) {
    tokio::spawn(async move { store.get(1).await });
}

fn main() {}
