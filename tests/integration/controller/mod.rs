//! The controller: reads and mutations through real HTTP, to mockito and
//! to the embedded demo API.

mod demo_api;
mod derived;
mod handoff;
mod inference;
mod mutations;
mod nested_records;
mod observer_fetches;
mod observers;
mod offline;
mod outside;
mod persist;
mod polls;
mod reads;
mod saved_mutations;
mod strict_reads;
mod tab_fields;
mod tabs;
mod updaters;
