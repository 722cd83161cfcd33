//! What one run's section shows. A workload says it once, in its folder (`Workload::VIEW`), as a
//! list of parts; the terminal table (`terminal.rs`) and the HTML page (`html/`) both render the
//! list. The report layer names no workload: whoever reads a result file hands it the view.

use super::table::Table;
use crate::results::RunResult;

/// What a run's section shows, in order.
pub trait View: Sync {
    /// The parts of one run's section; `verdicts` are what other runs in the same report say of
    /// its engines and levels (none in the terminal).
    fn parts(&self, run: &RunResult, verdicts: &[Verdict]) -> Vec<Part>;
    /// Whether the derived figures (`result.metrics`) follow as their own table; false where
    /// the view's parts already show them.
    fn derived(&self) -> bool {
        true
    }
    /// A few lines that answer "what did it measure": the report's summary opens with them.
    fn headline(&self, run: &RunResult) -> Vec<String> {
        super::summary::best_per_step(run)
    }
    /// What this run says of other runs' rows: a crash test's verdicts, shown beside the
    /// throughput of the same engine and level.
    fn verdicts(&self, _run: &RunResult) -> Vec<Verdict> {
        Vec::new()
    }
}

/// One piece of a section.
pub enum Part {
    /// Tables, in both: in the terminal one after the other with a blank line between.
    Tables(Vec<Table>),
    /// Text only the terminal prints (where its form differs from the page's).
    Terminal(String),
    /// Markup only the page shows (charts, or a table whose page form differs), and how many
    /// charts it draws.
    Html { markup: String, charts: usize },
}

impl Part {
    pub fn table(t: Table) -> Part {
        Part::Tables(vec![t])
    }

    pub fn html((markup, charts): (String, usize)) -> Part {
        Part::Html { markup, charts }
    }

    /// The part as the terminal prints it ("" for a page-only part).
    pub fn terminal(&self) -> String {
        match self {
            Part::Tables(tables) => {
                let rendered: Vec<String> = tables.iter().map(Table::render).collect();
                rendered.join("\n")
            }
            Part::Terminal(text) => text.clone(),
            Part::Html { .. } => String::new(),
        }
    }

    /// The part as the page shows it, and the charts it draws.
    pub fn page(&self) -> (String, usize) {
        match self {
            Part::Tables(tables) => (tables.iter().map(Table::html).collect(), 0),
            Part::Terminal(_) => (String::new(), 0),
            Part::Html { markup, charts } => (markup.clone(), *charts),
        }
    }
}

/// A verdict one run gives rows of others: the crash test's, for an engine at a level.
pub struct Verdict {
    pub engine: String,
    pub level: String,
    /// What was tested ("process crash", "power loss"): one verdict of each per engine and level.
    pub kind: String,
    pub text: String,
    pub broken: bool,
}

impl Verdict {
    pub fn matches(&self, engine: &str, level: &str) -> bool {
        self.engine == engine && self.level == level
    }
}
