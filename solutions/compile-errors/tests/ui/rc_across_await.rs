// An `Rc` is alive across the `.await`, so the future is not `Send`.
use std::rc::Rc;

async fn save(_visits: usize) {}

fn main() {
    tokio::spawn(async {
        let visits = Rc::new(41);
        save(*visits).await;
        println!("{}", visits);
    });
}
