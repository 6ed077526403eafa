// A current-thread runtime runs every task on this one thread, yet `tokio::spawn` still
// asks for `Send`: the bound is on the function, which cannot know what runtime it finds.
use std::rc::Rc;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let visits = Rc::new(41);
    let task = tokio::spawn(async move {
        tokio::task::yield_now().await;
        println!("{}", visits);
    });
    task.await.unwrap();
}
