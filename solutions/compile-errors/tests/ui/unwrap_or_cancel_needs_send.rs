// moro-local's `unwrap_or_cancel` asks for `T: Send`, where the scope's result is
// `Result<T, E>`: a scope whose `Ok` value is an `Rc` cannot use it.
use std::rc::Rc;

use moro_local::prelude::UnwrapOrCancel;

async fn lookup(id: u32) -> Result<u32, String> {
    Ok(id)
}

fn main() {
    let _scope = moro_local::async_scope!(|scope| -> Result<Rc<str>, String> {
        let n = lookup(7).await.unwrap_or_cancel(scope).await;
        Ok(Rc::from(n.to_string()))
    });
}
