//! One person's todos: a form to add one, and each todo with a checkbox,
//! a rename and a delete. Every change shows at once and is taken back,
//! with a notice, if the server refuses it.

use std::rc::Rc;

use restcache::yew::{use_controller, use_suspense};
use yew::prelude::*;

use crate::actions;
use crate::api::{Todo, TodoResource, TodoResourceOfUserParams, UserResource};
use crate::app::{HEADING_ID, Shell, focus_heading};

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
        <section aria-labelledby={HEADING_ID}>
            <h2 id={HEADING_ID} tabindex="-1">{ format!("{}’s todos", user.name) }</h2>
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

/// A labelled field and a button; Enter adds too. An empty title adds
/// nothing (the button stays enabled, so it keeps the focus).
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
            <button type="submit">{ "Add" }</button>
        </form>
    }
}

#[derive(Properties, PartialEq)]
struct TodoItemProps {
    todo: Rc<Todo>,
}

/// A todo: its checkbox (labelled by its title), and Rename and Delete;
/// renaming swaps the title for a field (Enter saves, Escape cancels),
/// and the focus returns to Rename when it closes.
#[component]
fn TodoItem(props: &TodoItemProps) -> Html {
    let ctrl = use_controller();
    let shell = use_context::<Shell>().expect("the app gives a shell");
    // The new title while renaming; `None` when not renaming.
    let editing = use_state(|| None::<String>);
    // Whether the field just closed, so the focus goes back to Rename.
    let closed = use_mut_ref(|| false);
    let field = use_node_ref();
    let rename_button = use_node_ref();
    let todo = &props.todo;
    let id = format!("todo-{}", todo.id);
    {
        let (field, rename_button, closed) = (field.clone(), rename_button.clone(), closed.clone());
        use_effect_with(editing.is_some(), move |&open| {
            if open && let Some(input) = field.cast::<web_sys::HtmlInputElement>() {
                let _ = input.focus();
                input.select();
            }
            if !open
                && std::mem::take(&mut *closed.borrow_mut())
                && let Some(button) = rename_button.cast::<web_sys::HtmlElement>()
            {
                let _ = button.focus();
            }
        });
    }
    let close = {
        let (editing, closed) = (editing.clone(), closed.clone());
        Callback::from(move |()| {
            *closed.borrow_mut() = true;
            editing.set(None);
        })
    };
    let toggle = {
        let (ctrl, todo, notify) = (ctrl.clone(), Rc::clone(todo), shell.notify.clone());
        Callback::from(move |_: Event| actions::toggle(&ctrl, &todo, &notify))
    };
    let delete = {
        let (ctrl, todo, notify) = (ctrl.clone(), Rc::clone(todo), shell.notify.clone());
        Callback::from(move |_: MouseEvent| {
            actions::delete(&ctrl, &todo, &notify);
            focus_heading();
        })
    };
    let open_field = {
        let (editing, title) = (editing.clone(), todo.title.clone());
        Callback::from(move |_: MouseEvent| editing.set(Some(title.clone())))
    };
    let draft = todo.is_draft();
    let class = classes!(
        "item",
        todo.completed.then_some("done"),
        draft.then_some("draft")
    );
    if let Some(title) = (*editing).clone() {
        let oninput = {
            let editing = editing.clone();
            Callback::from(move |event: InputEvent| {
                let input = event.target_unchecked_into::<web_sys::HtmlInputElement>();
                editing.set(Some(input.value()));
            })
        };
        let save = {
            let (close, todo, title) = (close.clone(), Rc::clone(todo), title.trim().to_owned());
            Callback::from(move |event: SubmitEvent| {
                event.prevent_default();
                if !title.is_empty() && title != todo.title {
                    actions::rename(&ctrl, &todo, title.clone(), &shell.notify);
                }
                close.emit(());
            })
        };
        let on_key = {
            let close = close.clone();
            Callback::from(move |event: KeyboardEvent| {
                if event.key() == "Escape" {
                    close.emit(());
                }
            })
        };
        let cancel = close.reform(|_: MouseEvent| ());
        return html! {
            <li {class}>
                <form class="rename" onsubmit={save}>
                    <label for={id.clone()} class="visually-hidden">{ format!("New title for “{}”", todo.title) }</label>
                    <input {id} ref={field} type="text" value={title} {oninput} onkeydown={on_key} />
                    <button type="submit">{ "Save" }</button>
                    <button type="button" class="secondary" onclick={cancel}>{ "Cancel" }</button>
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
                <button type="button" class="quiet" onclick={open_field} ref={rename_button}
                    aria-label={format!("Rename “{}”", todo.title)}>{ "Rename" }</button>
                <button type="button" class="quiet danger" onclick={delete}
                    aria-label={format!("Delete “{}”", todo.title)}>{ "Delete" }</button>
            }
        </li>
    }
}
