//! Lazy links: a nested record stored but read only when asked. A cycle
//! (each user's best friend) stores and reads back; a change to the
//! linked record leaves the record that links to it as it was; the link
//! is read through the controller, and through its endpoint from the
//! cache with no request.

use std::rc::Rc;

use restcache::prelude::*;
use restcache::{ExpiryStatus, Lazy};
use serde_json::json;

#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct Person {
    id: u64,
    name: String,
    #[entity(nested)]
    best_friend: Option<Lazy<Person>>,
}

resource!(PersonResource {
    path: "/people/:id",
    schema: Person
});

fn friend_of(person: &Person) -> &Lazy<Person> {
    person.best_friend.as_ref().unwrap()
}

#[test]
fn a_cycle_of_lazy_links_stores_and_reads_back_one_step_at_a_time() {
    let mut store = Store::new();
    let text = json!([
        {"id": 1, "name": "Ada", "bestFriend": {"id": 2, "name": "Bob", "bestFriend": {"id": 3, "name": "Cy", "bestFriend": 1}}}
    ])
    .to_string();
    let people = store
        .set_json::<Vec<Rc<Person>>>("people", &text, Meta::default())
        .unwrap();
    assert_eq!(
        store.entity_count("Person"),
        3,
        "every linked record is stored"
    );
    let bob = friend_of(&people[0]).read(&store).into_value().unwrap();
    let cy = friend_of(&bob).read(&store).into_value().unwrap();
    assert_eq!((bob.name.as_str(), cy.name.as_str()), ("Bob", "Cy"));
    assert_eq!(friend_of(&cy).id::<u64>(), Some(1));

    // Bob changes: Ada's list, which links to him lazily, is as it was.
    let mut memo = Memo::new();
    let before = memo
        .read::<Vec<Rc<Person>>>(&store, "people")
        .into_value()
        .unwrap();
    store
        .set_entity(
            Person {
                id: 2,
                name: "Robert".into(),
                best_friend: Some(Lazy::new(3u64)),
            },
            Meta::default(),
        )
        .unwrap();
    let after = memo
        .read::<Vec<Rc<Person>>>(&store, "people")
        .into_value()
        .unwrap();
    assert!(
        Rc::ptr_eq(&before, &after),
        "a lazy link is not read with its record"
    );
    assert_eq!(
        friend_of(&after[0]).read(&store).into_value().unwrap().name,
        "Robert"
    );
}

#[tokio::test]
async fn a_lazy_link_is_read_through_the_controller_and_its_endpoint_with_no_request() {
    let mut server = mockito::Server::new_async().await;
    let ada = server
        .mock("GET", "/people/1")
        .with_header("content-type", "application/json")
        .with_body(
            json!({"id": 1, "name": "Ada", "bestFriend": {"id": 2, "name": "Bob", "bestFriend": 1}})
                .to_string(),
        )
        .expect(1)
        .create_async()
        .await;
    let bob_route = server
        .mock("GET", "/people/2")
        .expect(0)
        .create_async()
        .await;
    let ctrl = Controller::new(Client::new(server.url()));
    let ada_read = ctrl
        .fetch(
            &PersonResource::get(),
            &PersonResourceParams { id: 1 },
            None,
        )
        .await
        .unwrap();
    let link = friend_of(&ada_read);
    assert_eq!(ctrl.resolve(link).unwrap().name, "Bob");
    // A read of the linked record's endpoint is answered from the cache.
    let bob = ctrl.read(
        &PersonResource::get(),
        &PersonResourceParams {
            id: link.id().unwrap(),
        },
    );
    assert_eq!(bob.status, ExpiryStatus::Valid);
    assert_eq!(bob.data.unwrap().name, "Bob");
    ada.assert_async().await;
    bob_route.assert_async().await;
}

#[test]
fn a_record_a_lazy_link_brings_keeps_the_fields_its_json_left_out() {
    let mut store = Store::new();
    let bob = Person {
        id: 2,
        name: "Bob".into(),
        best_friend: None,
    };
    store.set_entity(bob, Meta::default()).unwrap();
    let text = json!([{"id": 1, "name": "Ada", "bestFriend": {"id": 2}}]).to_string();
    store
        .set_json::<Vec<Rc<Person>>>("people", &text, Meta::default())
        .unwrap();
    let bob = store.get_entity::<Person>(2u64).into_value().unwrap();
    assert_eq!(bob.name, "Bob", "the name the link's JSON left out stays");
}
