// A trait with an `async fn` cannot be a trait object: each implementor's `get` returns a
// future of a different type (and size), so there is no one signature for a vtable.
trait Store {
    async fn get(&self, key: u32) -> Option<u64>;
}

struct Tiers<'a> {
    stores: Vec<&'a dyn Store>,
}

fn main() {}
