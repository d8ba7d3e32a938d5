pub mod embed;
pub mod events;
pub mod housekeeping;
pub mod upkeep;
