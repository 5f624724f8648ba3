//! The records the demo API starts with: todos, users, comments,
//! profiles, birthdays and paginated posts.

use std::collections::{BTreeMap, HashMap};

use serde_json::{Value, json};

use super::{Collection, Shared};

/// Page size of `/post?page=N`.
pub const POSTS_PER_PAGE: usize = 10;

fn collection(string_ids: bool, records: Vec<Value>) -> Collection {
    let mut by_id = BTreeMap::new();
    for record in records {
        let id = match &record["id"] {
            Value::String(text) => text.parse().unwrap_or_default(),
            other => other.as_u64().unwrap_or_default(),
        };
        by_id.insert(id, record);
    }
    let next_id = by_id.keys().next_back().map_or(1, |last| last + 1);
    Collection {
        records: by_id,
        next_id,
        string_ids,
    }
}

/// A date `days` from now, as an ISO 8601 string.
fn in_days(days: i64) -> String {
    (chrono::Utc::now() + chrono::Duration::days(days)).to_rfc3339()
}

pub fn seeded() -> Shared {
    let todos = [
        (1, 1, "delectus aut autem", false),
        (2, 1, "quis ut nam facilis et officia qui", false),
        (3, 1, "fugiat veniam minus", true),
        (4, 2, "et porro tempora", true),
        (5, 2, "laboriosam mollitia et enim quasi", false),
    ]
    .map(|(id, user_id, title, completed)| {
        json!({"id": id, "userId": user_id, "title": title, "completed": completed})
    });
    let users = [
        (1, "Leanne Graham", "Bret", "Sincere@april.biz"),
        (2, "Ervin Howell", "Antonette", "Shanna@melissa.tv"),
        (3, "Clementine Bauch", "Samantha", "Nathan@yesenia.net"),
    ]
    .map(|(id, name, username, email)| {
        json!({"id": id, "name": name, "username": username, "email": email, "isManager": false})
    });
    let comments = [
        (1, 1, "id labore ex et quam laborum", "laudantium enim quasi est\nquidem magnam voluptate"),
        (1, 2, "quo vero reiciendis velit", "est natus enim nihil est dolore\nomnis voluptatem numquam"),
        (2, 3, "odio adipisci rerum aut animi", "quia molestiae reprehenderit\nquasi aspernatur\naut expedita"),
    ]
    .map(|(post_id, id, name, body)| {
        json!({"postId": post_id, "id": id, "name": name, "email": "Eliseo@gardner.biz", "body": body})
    });
    let profiles = [
        ("1", "Ada Lovelace", "Wrote the first program."),
        ("2", "Grace Hopper", "Found the first bug."),
    ]
    .map(|(id, name, bio)| {
        json!({"id": id, "img": format!("/img/{id}.png"), "fullName": name, "bio": bio})
    });
    let birthdays = [("1", "Ada", 3), ("2", "Grace", 6), ("3", "Alan", 20), ("4", "Edsger", 28)]
        .map(|(id, name, days)| {
            json!({"id": id, "name": name, "image": format!("/img/b{id}.png"), "source": "demo", "date": in_days(days)})
        });
    let posts = (1..=25)
        .map(|id| json!({"id": id, "userId": id % 3 + 1, "title": format!("Post {id}"), "content": format!("The text of post {id}.")}))
        .collect();

    let collections = HashMap::from([
        ("todos", collection(false, todos.to_vec())),
        ("users", collection(false, users.to_vec())),
        ("comments", collection(false, comments.to_vec())),
        ("profiles", collection(true, profiles.to_vec())),
        ("birthdays", collection(true, birthdays.to_vec())),
        ("posts", collection(false, posts)),
    ]);
    Shared {
        collections: std::sync::Mutex::new(collections),
        ..Shared::default()
    }
}
