fn main() {
    println!("quickstart: being built");
}
