//! One person's todos: a form to add one, and each todo with a checkbox,
//! a rename and a delete. Every change shows at once and is taken back,
//! with a notice, if the server refuses it.

use std::rc::Rc;

use restcache::yew::{use_controller, use_suspense};
use yew::prelude::*;

use crate::actions;
use crate::api::{Todo, TodoResource, TodoResourceOfUserParams, UserResource};
use crate::app::Shell;

#[derive(Properties, PartialEq)]
pub struct TodoListProps {
    /// Whose todos.
    pub user: u64,
}

/// The todos of one person, with the form that adds one.
#[component]
pub fn TodoList(props: &TodoListProps) -> HtmlResult {
    let users = use_suspense(&UserResource::get_list(), ());
    let params = TodoResourceOfUserParams {
        user_id: props.user,
    };
    let todos = use_suspense(&TodoResource::of_user(), params);
    let (users, todos) = (users?, todos?);
    let Some(user) = users.iter().find(|u| u.id == props.user) else {
        return Ok(html! { <p>{ format!("There is no person {} here.", props.user) }</p> });
    };
    let open = todos.iter().filter(|t| !t.completed).count();
    Ok(html! {
        <section aria-labelledby="todos-heading">
            <h2 id="todos-heading">{ format!("{}’s todos", user.name) }</h2>
            <p class="summary">{ format!("{open} open of {}", todos.len()) }</p>
            <AddTodo user={props.user} />
            if todos.is_empty() {
                <p class="empty">{ "Nothing to do." }</p>
            } else {
                <ul class="items">
                    { for todos.iter().map(|todo| html! { <TodoItem key={todo.id} todo={Rc::clone(todo)} /> }) }
                </ul>
            }
        </section>
    })
}

#[derive(Properties, PartialEq)]
struct AddTodoProps {
    user: u64,
}

/// A labelled field and a button; Enter adds too.
#[component]
fn AddTodo(props: &AddTodoProps) -> Html {
    let ctrl = use_controller();
    let shell = use_context::<Shell>().expect("the app gives a shell");
    let title = use_state(String::new);
    let oninput = {
        let title = title.clone();
        Callback::from(move |event: InputEvent| {
            title.set(
                event
                    .target_unchecked_into::<web_sys::HtmlInputElement>()
                    .value(),
            );
        })
    };
    let onsubmit = {
        let (title, user) = (title.clone(), props.user);
        Callback::from(move |event: SubmitEvent| {
            event.prevent_default();
            let text = title.trim();
            if !text.is_empty() {
                actions::add(&ctrl, user, text.to_owned(), &shell.notify);
                title.set(String::new());
            }
        })
    };
    html! {
        <form class="add" {onsubmit}>
            <label for="new-todo">{ "New todo" }</label>
            <input id="new-todo" type="text" autocomplete="off" placeholder="What needs doing?"
                value={(*title).clone()} {oninput} />
            <button type="submit" disabled={title.trim().is_empty()}>{ "Add" }</button>
        </form>
    }
}

#[derive(Properties, PartialEq)]
struct TodoItemProps {
    todo: Rc<Todo>,
}

/// A todo: its checkbox (labelled by its title), and Rename and Delete;
/// renaming swaps the title for a field (Enter saves, Escape cancels).
#[component]
fn TodoItem(props: &TodoItemProps) -> Html {
    let ctrl = use_controller();
    let shell = use_context::<Shell>().expect("the app gives a shell");
    let editing = use_state(|| false);
    let field = use_node_ref();
    let todo = &props.todo;
    let id = format!("todo-{}", todo.id);
    {
        // The field takes the focus when it opens.
        let field = field.clone();
        use_effect_with(*editing, move |&editing| {
            if editing && let Some(input) = field.cast::<web_sys::HtmlInputElement>() {
                let _ = input.focus();
                input.select();
            }
        });
    }
    let toggle = {
        let (ctrl, todo, notify) = (ctrl.clone(), Rc::clone(todo), shell.notify.clone());
        Callback::from(move |_: Event| actions::toggle(&ctrl, &todo, &notify))
    };
    let delete = {
        let (ctrl, todo, notify) = (ctrl.clone(), Rc::clone(todo), shell.notify.clone());
        Callback::from(move |_: MouseEvent| actions::delete(&ctrl, &todo, &notify))
    };
    let start = {
        let editing = editing.clone();
        Callback::from(move |_: MouseEvent| editing.set(true))
    };
    let draft = todo.is_draft();
    let class = classes!(
        "item",
        todo.completed.then_some("done"),
        draft.then_some("draft")
    );
    if *editing {
        let save = {
            let (editing, field, todo) = (editing.clone(), field.clone(), Rc::clone(todo));
            Callback::from(move |event: SubmitEvent| {
                event.prevent_default();
                let title = field
                    .cast::<web_sys::HtmlInputElement>()
                    .map(|input| input.value().trim().to_owned())
                    .unwrap_or_default();
                if !title.is_empty() && title != todo.title {
                    actions::rename(&ctrl, &todo, title, &shell.notify);
                }
                editing.set(false);
            })
        };
        let cancel = {
            let editing = editing.clone();
            Callback::from(move |event: KeyboardEvent| {
                if event.key() == "Escape" {
                    editing.set(false);
                }
            })
        };
        let stop = {
            let editing = editing.clone();
            Callback::from(move |_: MouseEvent| editing.set(false))
        };
        return html! {
            <li {class}>
                <form class="rename" onsubmit={save}>
                    <label for={id.clone()} class="visually-hidden">{ format!("New title for “{}”", todo.title) }</label>
                    <input {id} ref={field} type="text" value={todo.title.clone()} onkeydown={cancel} />
                    <button type="submit">{ "Save" }</button>
                    <button type="button" onclick={stop}>{ "Cancel" }</button>
                </form>
            </li>
        };
    }
    html! {
        <li {class}>
            <input type="checkbox" id={id.clone()} checked={todo.completed} disabled={draft} onchange={toggle} />
            <label for={id} class="title">{ &todo.title }</label>
            if draft {
                <span class="saving">{ "saving…" }</span>
            } else {
                <button type="button" class="quiet" onclick={start}
                    aria-label={format!("Rename “{}”", todo.title)}>{ "Rename" }</button>
                <button type="button" class="quiet danger" onclick={delete}
                    aria-label={format!("Delete “{}”", todo.title)}>{ "Delete" }</button>
            }
        </li>
    }
}
