// `sqlx::migrate!` embeds the migrations when core compiles; a new file in the folder must
// rebuild core, or a binary built incrementally runs without it (sqlx's advice for the macro).
fn main() {
    println!("cargo:rerun-if-changed=../migrations");
}
