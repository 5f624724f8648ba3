//! A response that does not fit its schema: the error names the field
//! path where decoding stopped, the innermost entity around it, and
//! quotes the record at fault, however the text is laid out.

use std::rc::Rc;

use restcache::{SchemaError, from_json};

use crate::common::{Comment, Todo, TodoList};

/// The error of decoding `text` as `S`: its path, entity and the record
/// it quotes.
fn failure<S: restcache::Schema + serde::de::DeserializeOwned>(
    text: &str,
) -> (String, Option<&'static str>, Option<String>) {
    match from_json::<S>(text) {
        Ok(_) => panic!("{text} decoded"),
        Err(SchemaError::Decode {
            path,
            entity,
            record,
            ..
        }) => (path.to_string(), entity, record),
        Err(other) => panic!("not a decode error: {other}"),
    }
}

#[test]
fn a_wrong_type_names_its_field_and_quotes_its_record() {
    let text = r#"[{"id": 1, "title": "ok"}, {"id": 2, "title": 7, "completed": false}]"#;
    let (path, entity, record) = failure::<Vec<Rc<Todo>>>(text);
    assert_eq!(path, "[1].title");
    assert_eq!(entity, Some("Todo"));
    assert_eq!(
        record.as_deref(),
        Some(r#"{"id":2,"title":7,"completed":false}"#)
    );
}

#[test]
fn a_missing_field_names_the_record_that_lacks_it() {
    let text = r#"[
        {"postId": 1, "id": 1, "name": "a", "email": "a@x", "body": "b"},
        {"postId": 1, "id": 2, "name": "b", "email": "b@x"}
    ]"#;
    let (path, entity, record) = failure::<Vec<Rc<Comment>>>(text);
    assert_eq!(path, "[1]");
    assert_eq!(entity, Some("Comment"));
    assert_eq!(
        record.as_deref(),
        Some(r#"{"postId":1,"id":2,"name":"b","email":"b@x"}"#)
    );
}

#[test]
fn strings_holding_brackets_quotes_and_commas_do_not_mislead_the_path() {
    let text = r#"{"data": [
        {"id": 1, "title": "a \"quoted\", {braced} [listed]: title"},
        {"id": 2, "title": "b",
         "completed": "yes"}
    ]}"#;
    let (path, entity, record) = failure::<TodoList>(text);
    assert_eq!(path, "data[1].completed");
    assert_eq!(entity, Some("Todo"));
    assert_eq!(
        record.as_deref(),
        Some(r#"{"id":2,"title":"b","completed":"yes"}"#)
    );
}

#[test]
fn text_past_a_whole_value_and_text_cut_short_name_no_field() {
    let (path, _, record) = failure::<Vec<Rc<Todo>>>(r#"[{"id": 1}] trailing"#);
    assert_eq!((path.as_str(), record), ("(the response itself)", None));
    let (path, _, record) = failure::<Vec<Rc<Todo>>>(r#"[{"id": 1}, {"id": 2, "title": "cut"#);
    assert_eq!(path, "[1].title");
    assert_eq!(record, None, "a record cut short is not quoted");
}
