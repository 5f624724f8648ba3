//! Meeting real REST servers, against the demo API (which behaves as
//! popular off-the-shelf servers do): response headers, pagination in
//! both styles, partial records, filtered lists that follow creates and
//! deletes, params named as the server names them, ids as servers send
//! them, live streams (server-sent events, websockets) and binary data.

mod binary;
mod feeds;
mod graphql;
mod headers;
mod ids;
mod lists;
mod live;
mod live_faults;
mod live_lists;
mod page_totals;
mod page_upkeep;
mod pages;
mod params;
mod partial;
