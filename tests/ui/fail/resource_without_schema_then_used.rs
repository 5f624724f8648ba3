use restcache::prelude::*;

// No schema to expand: the resource's type still exists, so naming it
// adds no error.
resource!(pub TodoResource { path: "/todos/:id" });

fn main() {
    let _ = TodoResource;
}
