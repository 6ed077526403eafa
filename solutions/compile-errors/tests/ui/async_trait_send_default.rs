// async-trait's default form boxes every call's future as `dyn Future + Send`, so an
// implementation that keeps an `Rc` across an `.await` is refused.
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

#[async_trait::async_trait]
trait Store {
    async fn get(&self, key: u32) -> Option<u64>;
}

struct Cache {
    entries: Rc<RefCell<HashMap<u32, u64>>>,
}

#[async_trait::async_trait]
impl Store for Cache {
    async fn get(&self, key: u32) -> Option<u64> {
        let entries = Rc::clone(&self.entries);
        tokio::task::yield_now().await;
        entries.borrow().get(&key).copied()
    }
}

fn main() {}
