//! A plain-text table: a header row, rows of cells, numbers right-aligned.

pub struct Table {
    title: String,
    headers: Vec<String>,
    rows: Vec<Vec<String>>,
    /// Columns to the left of this index are labels (left-aligned); the rest are figures.
    label_columns: usize,
}

impl Table {
    pub fn new(title: impl Into<String>, headers: Vec<String>, label_columns: usize) -> Table {
        Table {
            title: title.into(),
            headers,
            rows: Vec::new(),
            label_columns,
        }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The same table as HTML (figures right-aligned by the report's `n` class).
    pub fn html(&self) -> String {
        use super::markup::escape;
        use std::fmt::Write;
        let mut out = String::new();
        if !self.title.is_empty() {
            let _ = write!(out, "<h4>{}</h4>", escape(&self.title));
        }
        out.push_str("<table><tr>");
        for h in &self.headers {
            let _ = write!(out, "<th>{}</th>", escape(h));
        }
        out.push_str("</tr>");
        for row in &self.rows {
            out.push_str("<tr>");
            for (i, cell) in row.iter().enumerate() {
                let class = if i < self.label_columns {
                    ""
                } else {
                    " class=n"
                };
                let _ = write!(out, "<td{class}>{}</td>", escape(cell));
            }
            out.push_str("</tr>");
        }
        out.push_str("</table>");
        out
    }

    pub fn render(&self) -> String {
        let columns = self.headers.len();
        let mut widths: Vec<usize> = self.headers.iter().map(|h| h.chars().count()).collect();
        for row in &self.rows {
            for (i, cell) in row.iter().enumerate().take(columns) {
                widths[i] = widths[i].max(cell.chars().count());
            }
        }
        let line = |cells: &[String]| -> String {
            let mut out = String::new();
            for (i, width) in widths.iter().enumerate() {
                let cell = cells.get(i).map(String::as_str).unwrap_or("");
                let pad = width - cell.chars().count();
                if i > 0 {
                    out.push_str("  ");
                }
                if i < self.label_columns {
                    out.push_str(cell);
                    out.push_str(&" ".repeat(pad));
                } else {
                    out.push_str(&" ".repeat(pad));
                    out.push_str(cell);
                }
            }
            out.trim_end().to_string()
        };
        let total: usize = widths.iter().sum::<usize>() + 2 * widths.len().saturating_sub(1);
        let mut out = String::new();
        if !self.title.is_empty() {
            out.push_str(&self.title);
            out.push('\n');
        }
        out.push_str(&line(&self.headers));
        out.push('\n');
        out.push_str(&"-".repeat(total));
        out.push('\n');
        for row in &self.rows {
            out.push_str(&line(row));
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligns_labels_left_and_figures_right() {
        let mut t = Table::new("T", vec!["config".into(), "ops/s".into()], 1);
        t.row(vec!["bdb sync".into(), "693".into()]);
        t.row(vec!["ds".into(), "208,139".into()]);
        let text = t.render();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "T");
        assert_eq!(lines[1], "config      ops/s");
        assert_eq!(lines[3], "bdb sync      693");
        assert_eq!(lines[4], "ds        208,139");
    }

    #[test]
    fn html_escapes_cells_and_marks_figures() {
        let mut t = Table::new("T<1>", vec!["config".into(), "ops/s".into()], 1);
        t.row(vec!["a&b".into(), "693".into()]);
        let html = t.html();
        assert!(html.starts_with("<h4>T&lt;1&gt;</h4><table>"), "{html}");
        assert!(
            html.contains("<td>a&amp;b</td><td class=n>693</td>"),
            "{html}"
        );
    }
}
