// trait-variant's `Send` twin: `SendStore` is written, and `Store` comes with it through
// a blanket impl. With both traits in scope, `.get()` names two methods.
#[trait_variant::make(SendStore: Send)]
trait Store {
    async fn get(&self, key: u32) -> Option<u64>;
}

struct Remote;

impl SendStore for Remote {
    async fn get(&self, key: u32) -> Option<u64> {
        Some(u64::from(key))
    }
}

async fn lookup(remote: &Remote) -> Option<u64> {
    remote.get(1).await
}

fn main() {}
