// Return type notation names the future of `get` (`S::get(..)`), so a caller can ask it
// for `Send`. Still unstable on the pinned toolchain.
trait Store {
    async fn get(&self, key: u32) -> Option<u64>;
}

fn spawn_lookup<S>(store: S)
where
    S: Store + Send + Sync + 'static,
    S::get(..): Send,
{
    tokio::spawn(async move { store.get(1).await });
}

fn main() {}
