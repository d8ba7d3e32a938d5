pub mod embed;
pub mod events;
