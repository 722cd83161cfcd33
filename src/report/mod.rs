//! Everything that turns result data into something to read: terminal tables, the published
//! figures beside them. Reports are made from result files, never the other way round.

pub mod chart;
pub mod compare;
pub mod html;
pub mod published;
pub mod table;
pub mod terminal;
