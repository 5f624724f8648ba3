//! What the page shows, whichever app shows it: the screens the
//! scenarios switch between, each a detail or some lists (which issues,
//! laid out how, how many rows rendered).

use crate::data::{IssueQuery, IssueState};

/// How a list of issues is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// In the API's order.
    Plain,
    /// Sorted by title.
    Sorted,
    /// Under the state its issues share, with their count.
    OfState(IssueState),
}

/// One list on a screen: which issues, laid out how, and how many of
/// them are rendered (all when `None`; the data holds them all).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListSpec {
    pub query: IssueQuery,
    pub layout: Layout,
    pub rows: Option<usize>,
}

/// What the page shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Screen {
    /// Nothing yet.
    Nothing,
    /// The first `count` issues in the API's order.
    Issues { count: usize, rows: Option<usize> },
    /// The first `count` issues sorted by title.
    Sorted { count: usize, rows: Option<usize> },
    /// Issue `number` alone.
    Detail { number: u64 },
    /// The first `count` open issues beside the first `count` closed ones.
    ByState { count: usize, rows: Option<usize> },
}

impl Screen {
    /// The lists the screen shows, left to right.
    pub fn lists(self) -> Vec<ListSpec> {
        let all = |count| IssueQuery { count, state: None };
        match self {
            Screen::Nothing | Screen::Detail { .. } => Vec::new(),
            Screen::Issues { count, rows } => vec![ListSpec {
                query: all(count),
                layout: Layout::Plain,
                rows,
            }],
            Screen::Sorted { count, rows } => vec![ListSpec {
                query: all(count),
                layout: Layout::Sorted,
                rows,
            }],
            Screen::ByState { count, rows } => [IssueState::Open, IssueState::Closed]
                .into_iter()
                .map(|state| ListSpec {
                    query: IssueQuery {
                        count,
                        state: Some(state),
                    },
                    layout: Layout::OfState(state),
                    rows,
                })
                .collect(),
        }
    }

    /// The issue the screen shows alone, if it does.
    pub fn detail(self) -> Option<u64> {
        match self {
            Screen::Detail { number } => Some(number),
            _ => None,
        }
    }
}
