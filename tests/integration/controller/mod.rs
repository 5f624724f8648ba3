//! The controller: reads and mutations through real HTTP, to mockito and
//! to the embedded demo API.

mod demo_api;
mod derived;
mod inference;
mod mutations;
mod observers;
mod offline;
mod outside;
mod persist;
mod reads;
mod tabs;
mod updaters;
