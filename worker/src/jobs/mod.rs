pub mod embed;
pub mod events;
pub mod upkeep;
