//! Rendering a component or a hook natively, for a test: under a
//! provider of the test's controller, through Yew's server rendering,
//! once every read has settled. Each render reads the cache as it is
//! then, so a test renders again after a mutation or a failure to see
//! what a mounted view would show.

use std::cell::RefCell;
use std::rc::Rc;

use yew::functional::{Hook, HookContext};
use yew::prelude::*;
use yew::suspense::SuspensionResult;

use crate::controller::Controller;
use crate::http::Error;
use crate::yew::{BoundaryError, CacheProvider, ErrorBoundary, ServerRender};

/// A failed read a boundary of the test caught.
type Caught = Rc<RefCell<Option<Error>>>;

#[derive(Properties)]
struct RootProps<COMP: BaseComponent> {
    props: COMP::Properties,
    caught: Caught,
}

impl<COMP: BaseComponent> Clone for RootProps<COMP>
where
    COMP::Properties: Clone,
{
    fn clone(&self) -> Self {
        RootProps {
            props: self.props.clone(),
            caught: Rc::clone(&self.caught),
        }
    }
}

impl<COMP: BaseComponent> PartialEq for RootProps<COMP> {
    fn eq(&self, other: &Self) -> bool {
        self.props == other.props && Rc::ptr_eq(&self.caught, &other.caught)
    }
}

/// `COMP` under a provider and a boundary that shows a failed read as
/// `<p role="alert">` with its error's text.
#[component(Root)]
fn root<COMP>(props: &RootProps<COMP>) -> Html
where
    COMP: BaseComponent,
    COMP::Properties: Clone,
{
    let caught = Rc::clone(&props.caught);
    let fallback = Callback::from(move |failed: BoundaryError| {
        let text = failed.error.to_string();
        caught.replace(Some(failed.error));
        html! { <p role="alert">{ text }</p> }
    });
    let component = props.props.clone();
    html! {
        <CacheProvider>
            <ErrorBoundary {fallback}>
                <Suspense>
                    <COMP ..component />
                </Suspense>
            </ErrorBoundary>
        </CacheProvider>
    }
}

/// The HTML of `COMP` with `props`, rendered under a provider of
/// `controller` once every read it makes has settled (fetched through
/// the controller's client, or found in its cache). A read that fails
/// shows as the nearest boundary's fallback; with no boundary of the
/// app's around it, as `<p role="alert">` and the error's text.
///
/// Natively it needs a tokio runtime (the test's `#[tokio::test]`).
///
/// ```
/// use restcache::prelude::*;
/// use restcache::testing::{render, Fixture, MockClient};
/// use restcache::yew::use_suspense;
/// use serde_json::json;
/// use yew::prelude::*;
///
/// #[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
/// struct Todo { id: u64, title: String }
/// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
///
/// #[derive(Properties, Clone, PartialEq)]
/// struct TitleProps { id: u64 }
///
/// #[component]
/// fn Title(props: &TitleProps) -> HtmlResult {
///     let todo = use_suspense(&TodoResource::get(), TodoResourceParams { id: props.id })?;
///     Ok(html! { <h1>{ &todo.title }</h1> })
/// }
///
/// let mock = MockClient::new();
/// mock.answer(Fixture::new(&TodoResource::get(), TodoResourceParams { id: 1 }, json!({"id": 1, "title": "milk"})));
/// let ctrl = mock.controller();
/// # restcache_demo::block_on(async {
/// assert_eq!(render::<Title>(&ctrl, TitleProps { id: 1 }).await?, "<h1>milk</h1>");
/// let failed = render::<Title>(&ctrl, TitleProps { id: 2 }).await?;
/// assert!(failed.starts_with(r#"<p role="alert">GET http://restcache.test/todos/2: HTTP 404"#), "{failed}");
/// # Ok::<(), restcache::http::Error>(()) })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub async fn render<COMP>(controller: &Controller, props: COMP::Properties) -> Result<String, Error>
where
    COMP: BaseComponent,
    COMP::Properties: Clone,
{
    let props = RootProps::<COMP> {
        props,
        caught: Caught::default(),
    };
    ServerRender::<Root<COMP>>::new(controller.clone(), props)
        .hydratable(false)
        .render()
        .await
}

/// A hook of the test's, run with the hook context it is given.
type TestHook<T> = Rc<dyn Fn(&mut HookContext) -> SuspensionResult<T>>;

/// Runs a [`TestHook`] as a hook of the probe.
struct Run<T>(TestHook<T>);

impl<T> Hook for Run<T> {
    type Output = SuspensionResult<T>;

    fn run(self, ctx: &mut HookContext) -> Self::Output {
        (self.0)(ctx)
    }
}

#[derive(Properties)]
struct ProbeProps<T: 'static> {
    hook: TestHook<T>,
    output: Rc<RefCell<Option<T>>>,
}

impl<T> PartialEq for ProbeProps<T> {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.hook, &other.hook) && Rc::ptr_eq(&self.output, &other.output)
    }
}

impl<T> Clone for ProbeProps<T> {
    fn clone(&self) -> Self {
        ProbeProps {
            hook: Rc::clone(&self.hook),
            output: Rc::clone(&self.output),
        }
    }
}

/// Hands `hook` to the component macro, which runs each `use_` call's
/// hook in the component's hook context.
fn use_probe<H: Hook>(hook: H) -> H {
    hook
}

/// Runs the test's hook and keeps what it gives once it stops
/// suspending.
#[component(Probe)]
fn probe<T: 'static>(props: &ProbeProps<T>) -> HtmlResult {
    let output = use_probe(Run(Rc::clone(&props.hook)))?;
    props.output.replace(Some(output));
    Ok(Html::default())
}

/// What a suspending hook (`use_suspense` and its family) gives once it
/// stops suspending, run natively in a component under a provider of
/// `controller`; the error of a read that fails. `hook` runs the hook
/// with the context it is given (`Hook::run`), as a component does.
///
/// ```
/// use restcache::prelude::*;
/// use restcache::testing::{render_hook, Fixture, MockClient};
/// use restcache::yew::use_suspense;
/// use yew::functional::{Hook, HookContext};
///
/// #[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
/// struct Todo { id: u64, title: String }
/// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
///
/// let mock = MockClient::new();
/// mock.answer(Fixture::new(&TodoResource::get_list(), (), [Todo { id: 1, title: "milk".into() }]));
/// let ctrl = mock.controller();
/// # restcache_demo::block_on(async {
/// let todos = render_hook(&ctrl, |ctx| use_suspense(&TodoResource::get_list(), ()).run(ctx)).await?;
/// assert_eq!(todos[0].title, "milk");
/// let missing = TodoResourceParams { id: 9 };
/// let failed = render_hook(&ctrl, move |ctx| use_suspense(&TodoResource::get(), missing.clone()).run(ctx)).await;
/// assert_eq!(failed.unwrap_err().status(), Some(404));
/// # Ok::<(), restcache::http::Error>(()) })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub async fn render_hook<T: 'static>(
    controller: &Controller,
    hook: impl Fn(&mut HookContext) -> SuspensionResult<T> + 'static,
) -> Result<T, Error> {
    let output = Rc::new(RefCell::new(None));
    let props = ProbeProps::<T> {
        hook: Rc::new(hook),
        output: Rc::clone(&output),
    };
    let caught = Caught::default();
    let root = RootProps::<Probe<T>> {
        props,
        caught: Rc::clone(&caught),
    };
    ServerRender::<Root<Probe<T>>>::new(controller.clone(), root)
        .hydratable(false)
        .render()
        .await?;
    if let Some(error) = caught.take() {
        return Err(error);
    }
    let value = output.take();
    Ok(value.expect("a render that ends without a failure runs its hook to the end"))
}
