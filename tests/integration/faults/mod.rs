//! The controller under faults, races and churn: time limits, bounded
//! bodies and error texts, optimistic layers, ordering, mutations whose
//! answer does not decode, garbage collection, the heap a store holds,
//! failed writes, retries.

mod bodies;
mod errors;
mod heap;
mod memory;
mod mutation_timing;
mod mutations;
mod optimistic;
mod ordering;
mod registry;
mod retry;
mod timeouts;
