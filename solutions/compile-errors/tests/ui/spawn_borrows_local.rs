// E0373: the spawned future borrows `name`, a local of `greet`.
fn greet(name: String) {
    tokio::spawn(async {
        println!("hello, {name}");
    });
}

fn main() {
    greet("ada".to_string());
}
