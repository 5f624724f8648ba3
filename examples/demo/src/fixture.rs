//! The benchmark fixture of `../shared/bench` (see its README), rebuilt in
//! Rust byte for byte: 1,000 projects (3,000 build types, 50 users, nested
//! three levels) and 10,000 todos.

use std::rc::Rc;

use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct User {
    pub id: u64,
    pub login: String,
    pub name: String,
    pub email: String,
}

#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BuildType {
    pub id: String,
    pub internal_id: String,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub paused: bool,
    pub project_id: String,
    #[entity(nested)]
    pub owner: Rc<User>,
}

#[derive(Schema, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BuildTypes {
    #[schema(nested)]
    pub build_type: Vec<Rc<BuildType>>,
}

#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Project {
    pub id: String,
    pub internal_id: String,
    pub name: String,
    pub parent_project_id: String,
    pub archived: bool,
    pub description: String,
    #[entity(nested)]
    pub build_types: BuildTypes,
}

/// The projects response: `{"project": [Project]}`.
#[derive(Schema, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Projects {
    #[schema(nested)]
    pub project: Vec<Rc<Project>>,
}

#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Todo {
    pub user_id: u64,
    pub id: u64,
    pub title: String,
    pub completed: bool,
}

/// The todos response: `[Todo]`.
pub type Todos = Vec<Rc<Todo>>;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fixture {
    pub projects: Projects,
    pub todos: Todos,
}

const WORDS: [&str; 20] = [
    "lorem",
    "ipsum",
    "dolor",
    "sit",
    "amet",
    "consectetur",
    "adipiscing",
    "elit",
    "sed",
    "do",
    "eiusmod",
    "tempor",
    "incididunt",
    "ut",
    "labore",
    "et",
    "dolore",
    "magna",
    "aliqua",
    "enim",
];
const USERS: usize = 50;
const BUILD_TYPE_KINDS: [&str; 3] = ["regular", "composite", "deployment"];

pub fn user(u: usize) -> User {
    User {
        id: u as u64 + 1,
        login: format!("user{}", u + 1),
        name: format!("User {}", u + 1),
        email: format!("user{}@example.com", u + 1),
    }
}

pub fn build_type(i: usize, j: usize) -> BuildType {
    BuildType {
        id: format!("project-{i}_bt{j}"),
        internal_id: format!("bt{}", i * 5 + j),
        name: format!("Build {j} of project {i}"),
        kind: BUILD_TYPE_KINDS[j % 3].to_owned(),
        paused: (i + j).is_multiple_of(4),
        project_id: format!("project-{i}"),
        owner: Rc::new(user((i * 3 + j) % USERS)),
    }
}

pub fn project(i: usize) -> Project {
    Project {
        id: format!("project-{i}"),
        internal_id: format!("project{i}"),
        name: format!("Project {i}"),
        parent_project_id: if i == 0 {
            "_Root".to_owned()
        } else {
            format!("project-{}", (i - 1) / 10)
        },
        archived: i.is_multiple_of(7),
        description: format!("Project {i}: {} {}", WORDS[i % 20], WORDS[(i * 3) % 20]),
        build_types: BuildTypes {
            build_type: (0..i % 5 + 1).map(|j| Rc::new(build_type(i, j))).collect(),
        },
    }
}

pub fn projects(n: usize) -> Projects {
    Projects {
        project: (0..n).map(|i| Rc::new(project(i))).collect(),
    }
}

pub fn todo(i: usize) -> Todo {
    Todo {
        user_id: (i / 100) as u64 + 1,
        id: i as u64 + 1,
        title: format!(
            "{} {} {} {}",
            WORDS[i % 20],
            WORDS[(i * 7) % 20],
            WORDS[(i * 13) % 20],
            i + 1
        ),
        completed: i.is_multiple_of(3),
    }
}

pub fn todos(n: usize) -> Todos {
    (0..n).map(|i| Rc::new(todo(i))).collect()
}

/// The whole fixture, as `fixture.json` holds it.
pub fn fixture() -> Fixture {
    Fixture {
        projects: projects(1000),
        todos: todos(10_000),
    }
}

/// The JSON texts of the projects and the todos responses.
pub fn texts() -> (String, String) {
    let fixture = fixture();
    (
        serde_json::to_string(&fixture.projects).expect("the fixture serializes"),
        serde_json::to_string(&fixture.todos).expect("the fixture serializes"),
    )
}
