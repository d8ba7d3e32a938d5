pub mod deliver;
pub mod embed;
pub mod events;
pub mod housekeeping;
pub mod schedules;
pub mod similar;
pub mod upkeep;
