//! The correctness partial order drawn as a layered diagram (Paper III, Figures 3.2-3.4).
//!
//! Classes are boxes, one layer per number of tests passed, better layers higher; within
//! a layer, boxes are ordered to reduce crossings (barycentre sweeps, over dummy nodes where
//! an arrow spans several layers), and a layer wider than `MAX_ROW_WIDTH` wraps onto several
//! rows. Covering arrows go from a box's bottom to a lower box's top, routed vertically
//! through a free stretch of every row they cross, so that none crosses a box; each is
//! labelled with the witness test's id and "(+n)", at the first free spot of its slanted
//! stretches, the rows moving apart until all labels fit.
//!
//! [`layout`] computes positions; [`order_svg`] draws them as SVG written directly, for its
//! accessibility (a title, a description, a `<title>` per class and arrow; a viewBox, so that
//! it scales); [`order_table_html`] gives the same order as a table and [`order_dot`] writes it
//! for Graphviz. A box's text is defined once ([`ANSWERS_PER_NODE`]); [`one_line`] puts inputs
//! on one line for labels and terminal columns.

use std::fmt::Write;

use grader::Analysis;

use crate::html::escape_html;

/// Pixels per character of the diagram's text (12 px sans-serif averages under 7).
const CHAR_WIDTH: i32 = 7;
const BOX_HEIGHT: i32 = 40;
/// Vertical distance between rows to begin with: room for the arrows' labels. It grows,
/// up to [`MAX_LAYER_GAP`], until every label finds a free place.
const LAYER_GAP: i32 = 80;
const MAX_LAYER_GAP: i32 = 400;
/// Pixels kept between an arrow passing through a row and the boxes beside it.
const ARROW_CLEARANCE: i32 = 6;
/// Height of an arrow's label box.
const LABEL_HEIGHT: i32 = 14;
/// Where along a slanted stretch a label may sit, the preferred first.
const LABEL_SPOTS: [f64; 9] = [0.5, 0.35, 0.65, 0.2, 0.8, 0.27, 0.73, 0.42, 0.58];
const BOX_GAP: i32 = 30;
const MARGIN: i32 = 20;
/// Widest row of boxes before a layer wraps (pixels).
const MAX_ROW_WIDTH: i32 = 1600;
/// Room a long arrow takes in each layer it passes through.
const DUMMY_WIDTH: i32 = 14;
/// Barycentre sweeps (down then up) to reduce crossings; a few suffice in practice.
const SWEEPS: usize = 8;

/// Where one class's box is.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeBox {
    pub class: String,
    /// First line: the answers (abbreviated); second line: tests passed.
    pub label: [String; 2],
    pub x: i32,
    pub y: i32,
    pub width: i32,
}

impl NodeBox {
    pub fn top(&self) -> (i32, i32) {
        (self.x + self.width / 2, self.y)
    }
    pub fn bottom(&self) -> (i32, i32) {
        (self.x + self.width / 2, self.y + BOX_HEIGHT)
    }
}

/// A covering arrow and its label.
#[derive(Clone, Debug, PartialEq)]
pub struct Arrow {
    /// From the upper box's bottom, down through each row it crosses (vertically, between
    /// boxes), to the lower box's top.
    pub points: Vec<(i32, i32)>,
    /// The witness test's id and "(+n)": a short key; the input is in the arrow's title
    /// and the suite's table.
    pub label: String,
    /// Where the label's centre sits.
    pub label_at: (i32, i32),
    /// False only when no free place was found for the label (it then may overlap).
    pub label_placed: bool,
}

impl Arrow {
    /// The label's box `(left, top, right, bottom)`.
    pub fn label_box(&self) -> (i32, i32, i32, i32) {
        label_rect(&self.label, self.label_at)
    }
}

impl NodeBox {
    /// The box `(left, top, right, bottom)`.
    pub fn rect(&self) -> (i32, i32, i32, i32) {
        (self.x, self.y, self.x + self.width, self.y + BOX_HEIGHT)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    pub width: i32,
    pub height: i32,
    pub nodes: Vec<NodeBox>,
    pub arrows: Vec<Arrow>,
}

/// Lays the order out: layers by tests passed, crossings reduced, sizes from the labels.
pub fn layout(analysis: &Analysis) -> Layout {
    let order = &analysis.order;
    let total = analysis.scored_tests();
    let mut passed: Vec<usize> = order.classes.iter().map(|c| c.passed).collect();
    passed.sort_unstable_by(|a, b| b.cmp(a));
    passed.dedup();
    let layer_of = |class: usize| passed.iter().position(|&p| p == order.classes[class].passed).unwrap();
    let index_of = |id: &str| order.classes.iter().position(|c| c.id == id).expect("edges join classes");
    let edges: Vec<(usize, usize)> = order.edges.iter().map(|e| (index_of(&e.from), index_of(&e.to))).collect();

    // Sugiyama-style: an arrow spanning several layers passes through a narrow dummy node
    // in each layer between, so that ordering takes it into account and it is drawn around
    // the boxes instead of through them. Nodes 0..classes are the classes.
    let classes = order.classes.len();
    let mut node_layer: Vec<usize> = (0..classes).map(layer_of).collect();
    let mut paths: Vec<Vec<usize>> = Vec::new();
    for &(from, to) in &edges {
        let mut path = vec![from];
        for layer in node_layer[from] + 1..node_layer[to] {
            node_layer.push(layer);
            path.push(node_layer.len() - 1);
        }
        path.push(to);
        paths.push(path);
    }
    let segments: Vec<(usize, usize)> = paths.iter().flat_map(|p| p.windows(2).map(|w| (w[0], w[1]))).collect();

    // Initial order within layers: class order (stable by passed, then first answer).
    let mut layers: Vec<Vec<usize>> = vec![Vec::new(); passed.len()];
    (0..node_layer.len()).for_each(|n| layers[node_layer[n]].push(n));
    for sweep in 0..SWEEPS {
        let downward = sweep % 2 == 0;
        let range: Vec<usize> = if downward { (1..layers.len()).collect() } else { (0..layers.len().saturating_sub(1)).rev().collect() };
        for layer in range {
            let mut position = vec![0.0; node_layer.len()];
            for l in &layers {
                l.iter().enumerate().for_each(|(i, &n)| position[n] = i as f64);
            }
            let mut keyed: Vec<(f64, usize)> = layers[layer]
                .iter()
                .enumerate()
                .map(|(i, &n)| {
                    let neighbours: Vec<f64> = segments
                        .iter()
                        .filter_map(|&(a, b)| match downward {
                            true if b == n => Some(position[a]),
                            false if a == n => Some(position[b]),
                            _ => None,
                        })
                        .collect();
                    let key = if neighbours.is_empty() { i as f64 } else { neighbours.iter().sum::<f64>() / neighbours.len() as f64 };
                    (key, n)
                })
                .collect();
            keyed.sort_by(|a, b| a.0.total_cmp(&b.0));
            layers[layer] = keyed.into_iter().map(|(_, n)| n).collect();
        }
    }

    let labels: Vec<[String; 2]> = order.classes.iter().map(|class| [answers_text(&class.answers), format!("{}/{total} passed", class.passed)]).collect();
    let node_width = |n: usize| match labels.get(n) {
        Some(label) => label.iter().map(|l| l.chars().count() as i32).max().unwrap_or(1) * CHAR_WIDTH + 16,
        None => DUMMY_WIDTH,
    };
    let row_width = |row: &[usize]| row.iter().map(|&n| node_width(n) + BOX_GAP).sum::<i32>() - BOX_GAP;
    // A layer wider than MAX_ROW_WIDTH wraps onto several rows, so that a class of 200
    // answers with many distinct results stays legible instead of shrinking to a line.
    let rows: Vec<Vec<usize>> = layers
        .iter()
        .flat_map(|layer| {
            let mut rows: Vec<Vec<usize>> = vec![Vec::new()];
            for &n in layer {
                let current = rows.last_mut().expect("at least one row");
                if !current.is_empty() && row_width(current) + BOX_GAP + node_width(n) > MAX_ROW_WIDTH {
                    rows.push(vec![n]);
                } else {
                    current.push(n);
                }
            }
            rows
        })
        .collect();
    let width = rows.iter().map(|r| row_width(r)).max().unwrap_or(0) + 2 * MARGIN;
    let mut row_of = vec![0; node_layer.len()];
    let mut column = vec![0; node_layer.len()];
    for (r, row) in rows.iter().enumerate() {
        let mut x = (width - row_width(row)) / 2;
        for &n in row {
            (row_of[n], column[n]) = (r, x);
            x += node_width(n) + BOX_GAP;
        }
    }
    let labels_of_arrows: Vec<String> =
        order.edges.iter().map(|edge| if edge.others > 0 { format!("{} (+{})", edge.witness, edge.others) } else { edge.witness.clone() }).collect();
    // Rows further apart until every label finds a free place (a few tries at most).
    let mut gap = LAYER_GAP;
    loop {
        let y_of = |row: usize| MARGIN + row as i32 * (BOX_HEIGHT + gap);
        let nodes: Vec<NodeBox> = (0..classes)
            .map(|c| NodeBox { class: order.classes[c].id.clone(), label: labels[c].clone(), x: column[c], y: y_of(row_of[c]), width: node_width(c) })
            .collect();
        let arrows = route(&nodes, &edges, &row_of, &y_of, &labels_of_arrows);
        let height = MARGIN * 2 + rows.len() as i32 * (BOX_HEIGHT + gap) - gap;
        let mut layout = Layout { width: width.max(200), height: height.max(BOX_HEIGHT + 2 * MARGIN), nodes, arrows: Vec::new() };
        let placed = place_labels(&layout, arrows, gap);
        if placed.iter().all(|a| a.label_placed) || gap >= MAX_LAYER_GAP {
            layout.arrows = placed;
            fit_labels(&mut layout);
            return layout;
        }
        gap += LAYER_GAP / 2;
    }
}

/// Answers listed by name in one node of a diagram; a larger class shows a count of the
/// rest, so that a class of 200 still fits on a page.
pub const ANSWERS_PER_NODE: usize = 6;

/// A class's answers as a box shows them: the first [`ANSWERS_PER_NODE`], then "+n more".
fn answers_text(answers: &[String]) -> String {
    let mut names: Vec<&str> = answers.iter().take(ANSWERS_PER_NODE).map(String::as_str).collect();
    let more = format!("+{} more", answers.len().saturating_sub(ANSWERS_PER_NODE));
    if answers.len() > ANSWERS_PER_NODE {
        names.push(&more);
    }
    names.join(", ")
}

/// Each covering arrow's path: from the upper box's bottom to the lower box's top, and
/// through every row in between vertically, in a free stretch of that row (between
/// boxes, or beside them) nearest the straight line: so that no arrow crosses a box.
fn route(nodes: &[NodeBox], edges: &[(usize, usize)], row_of: &[usize], y_of: &dyn Fn(usize) -> i32, labels: &[String]) -> Vec<Arrow> {
    let rows = row_of.iter().take(nodes.len()).max().map_or(0, |&r| r + 1);
    // Each row's boxes as x ranges, padded, left to right.
    let mut taken: Vec<Vec<(i32, i32)>> = vec![Vec::new(); rows];
    for (c, node) in nodes.iter().enumerate() {
        taken[row_of[c]].push((node.x - ARROW_CLEARANCE, node.x + node.width + ARROW_CLEARANCE));
    }
    taken.iter_mut().for_each(|row| row.sort_unstable());
    // x positions already used in each row, to set parallel arrows a little apart.
    let mut used: Vec<Vec<i32>> = vec![Vec::new(); rows];
    edges
        .iter()
        .zip(labels)
        .map(|(&(from, to), label)| {
            let (start, end) = (nodes[from].bottom(), nodes[to].top());
            let mut points = vec![start];
            for row in row_of[from] + 1..row_of[to] {
                let top = y_of(row);
                let t = (top + BOX_HEIGHT / 2 - start.1) as f64 / (end.1 - start.1) as f64;
                let ideal = start.0 + ((end.0 - start.0) as f64 * t) as i32;
                let x = free_x(&taken[row], &used[row], ideal);
                used[row].push(x);
                points.push((x, top));
                points.push((x, top + BOX_HEIGHT));
            }
            points.push(end);
            Arrow { points, label: label.clone(), label_at: (0, 0), label_placed: false }
        })
        .collect()
}

/// The x nearest `ideal` outside every range of `taken` (sorted), a few pixels from the
/// x's in `used` where there is room.
fn free_x(taken: &[(i32, i32)], used: &[i32], ideal: i32) -> i32 {
    let outside = |x: i32| taken.iter().all(|&(a, b)| x <= a || x >= b);
    let clear = |x: i32| outside(x) && used.iter().all(|&u| (u - x).abs() >= 4);
    // Candidates: the ideal itself, the edges of every box range, then steps outward.
    let mut candidates: Vec<i32> = vec![ideal];
    candidates.extend(taken.iter().flat_map(|&(a, b)| [a, b]));
    candidates.sort_by_key(|&x| ((x - ideal).abs(), x));
    for &x in &candidates {
        for step in 0..8 {
            for x in [x + 4 * step, x - 4 * step] {
                if clear(x) {
                    return x;
                }
            }
        }
    }
    candidates.into_iter().find(|&x| outside(x)).unwrap_or(ideal)
}

/// The label's box, centred on `at`.
fn label_rect(label: &str, at: (i32, i32)) -> (i32, i32, i32, i32) {
    let half = label_width(label) / 2;
    (at.0 - half, at.1 - LABEL_HEIGHT / 2, at.0 + half, at.1 + LABEL_HEIGHT / 2)
}

/// Whether two rectangles `(left, top, right, bottom)` overlap (touching is apart).
pub fn overlaps(a: (i32, i32, i32, i32), b: (i32, i32, i32, i32)) -> bool {
    a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3
}

/// Puts each arrow's label on one of its slanted stretches between two rows, where it
/// overlaps no other label and no box: the first free place, trying the middle of each
/// stretch first. A label with no free place is left unplaced (`label_placed` false).
fn place_labels(layout: &Layout, arrows: Vec<Arrow>, gap: i32) -> Vec<Arrow> {
    let boxes: Vec<(i32, i32, i32, i32)> = layout.nodes.iter().map(|n| (n.x, n.y, n.x + n.width, n.y + BOX_HEIGHT)).collect();
    let mut placed: Vec<(i32, i32, i32, i32)> = Vec::new();
    arrows
        .into_iter()
        .map(|mut arrow| {
            let stretches: Vec<((i32, i32), (i32, i32))> = arrow.points.windows(2).filter(|w| w[1].1 - w[0].1 >= gap).map(|w| (w[0], w[1])).collect();
            let spots = stretches
                .iter()
                .flat_map(|&(a, b)| LABEL_SPOTS.iter().map(move |&t| (a.0 + ((b.0 - a.0) as f64 * t) as i32, a.1 + ((b.1 - a.1) as f64 * t) as i32)));
            let margin = |(l, t, r, b): (i32, i32, i32, i32)| (l - 2, t - 2, r + 2, b + 2);
            for at in spots {
                let rect = label_rect(&arrow.label, at);
                if !placed.iter().any(|&p| overlaps(margin(rect), p)) && !boxes.iter().any(|&b| overlaps(margin(rect), b)) {
                    placed.push(rect);
                    (arrow.label_at, arrow.label_placed) = (at, true);
                    return arrow;
                }
            }
            let (a, b) = (arrow.points[0], arrow.points[1]);
            arrow.label_at = ((a.0 + b.0) / 2, (a.1 + b.1) / 2);
            arrow
        })
        .collect()
}

/// Pixels a label takes (11 px text averages under 6 per character).
fn label_width(label: &str) -> i32 {
    label.chars().count() as i32 * 6 + 8
}

/// Widens the canvas, and shifts the drawing right, so that no arrow label is cut off.
fn fit_labels(layout: &mut Layout) {
    let extent = |a: &Arrow| (a.label_at.0 - label_width(&a.label) / 2, a.label_at.0 + label_width(&a.label) / 2);
    let left = layout.arrows.iter().map(|a| extent(a).0).min().unwrap_or(0);
    let shift = (MARGIN / 2 - left).max(0);
    for node in &mut layout.nodes {
        node.x += shift;
    }
    for arrow in &mut layout.arrows {
        arrow.points.iter_mut().for_each(|p| p.0 += shift);
        arrow.label_at.0 += shift;
    }
    let right = layout.arrows.iter().map(|a| extent(a).1).max().unwrap_or(0);
    layout.width = (layout.width + shift).max(right + MARGIN / 2);
}

/// `text` on one line, for a label or a terminal column: quoted, with newlines and other
/// control characters escaped (`"a\nb"`), and cut to `max_chars` characters with `…`.
pub fn one_line(text: &str, max_chars: usize) -> String {
    let quoted = format!("{text:?}");
    if quoted.chars().count() <= max_chars {
        return quoted;
    }
    let cut: String = quoted.chars().take(max_chars.saturating_sub(1)).collect();
    format!("{cut}…")
}

/// The diagram as a self-contained SVG document that scales down to its container. It is
/// written here rather than with plotters, which cannot give elements titles: the picture
/// has a title and a description, and each class and each arrow is a group whose `<title>`
/// names it in words (read by screen readers, shown on hover). The same order is a table
/// in [`order_table_html`].
pub fn order_svg(analysis: &Analysis) -> String {
    let layout = layout(analysis);
    let order = &analysis.order;
    let total = analysis.scored_tests();
    let class = |id: &str| order.classes.iter().find(|c| c.id == id).expect("edges join classes");
    let mut svg = String::new();
    writeln!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" style=\"max-width:100%;height:auto\" font-family=\"sans-serif\" aria-labelledby=\"order-title order-desc\">",
        w = layout.width,
        h = layout.height
    )
    .unwrap();
    writeln!(svg, "<title id=\"order-title\">Correctness order of {}</title>", escape_html(&analysis.problem)).unwrap();
    writeln!(
        svg,
        "<desc id=\"order-desc\">{} classes of answers, better ones higher: an arrow goes from a class to one that passes strictly fewer of the {total} tests, labelled with a test that tells them apart. The same order is given as a table.</desc>",
        order.classes.len()
    )
    .unwrap();
    svg.push_str("<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n");
    for (edge, arrow) in order.edges.iter().zip(&layout.arrows) {
        let (upper, lower) = (class(&edge.from), class(&edge.to));
        let input = analysis.suite.iter().find(|t| t.id == edge.witness).map_or(String::new(), |t| one_line(&t.input, 200));
        let more = if edge.others > 0 { format!(", and {} more tests", edge.others) } else { String::new() };
        writeln!(
            svg,
            "<g><title>{} above {}: passes test {} ({}) which the other fails{more}</title>",
            escape_html(&answers_text(&upper.answers)),
            escape_html(&answers_text(&lower.answers)),
            escape_html(&edge.witness),
            escape_html(&input)
        )
        .unwrap();
        let points: String = arrow.points.iter().map(|(x, y)| format!("{x},{y} ")).collect();
        writeln!(svg, "<polyline points=\"{points}\" fill=\"none\" stroke=\"#5a5a5a\"/>").unwrap();
        let (from, to) = (arrow.points[arrow.points.len() - 2], arrow.points[arrow.points.len() - 1]);
        let (dx, dy) = ((to.0 - from.0) as f64, (to.1 - from.1) as f64);
        let length = (dx * dx + dy * dy).sqrt().max(1.0);
        let (ux, uy) = (dx / length, dy / length);
        let back = |side: f64| ((to.0 as f64 - 9.0 * ux + side * 4.0 * uy).round() as i32, (to.1 as f64 - 9.0 * uy - side * 4.0 * ux).round() as i32);
        let ((ax, ay), (bx, by)) = (back(1.0), back(-1.0));
        writeln!(svg, "<polygon points=\"{},{} {ax},{ay} {bx},{by}\" fill=\"#5a5a5a\"/>", to.0, to.1).unwrap();
        let (l, t, r, b) = label_rect(&arrow.label, arrow.label_at);
        writeln!(svg, "<rect x=\"{l}\" y=\"{t}\" width=\"{}\" height=\"{}\" fill=\"#fff\" fill-opacity=\"0.9\"/>", r - l, b - t).unwrap();
        writeln!(
            svg,
            "<text x=\"{}\" y=\"{}\" font-size=\"11\" fill=\"#28287a\" text-anchor=\"middle\" dominant-baseline=\"central\">{}</text></g>",
            arrow.label_at.0,
            arrow.label_at.1,
            escape_html(&arrow.label)
        )
        .unwrap();
    }
    for (node, class) in layout.nodes.iter().zip(&order.classes) {
        writeln!(svg, "<g><title>{}: {} of {total} tests passed</title>", escape_html(&class.answers.join(", ")), class.passed).unwrap();
        writeln!(svg, "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{BOX_HEIGHT}\" fill=\"#ebf2fa\" stroke=\"#3c5a8c\"/>", node.x, node.y, node.width)
            .unwrap();
        let centre = node.x + node.width / 2;
        writeln!(
            svg,
            "<text x=\"{centre}\" y=\"{}\" font-size=\"13\" text-anchor=\"middle\" dominant-baseline=\"central\">{}</text>",
            node.y + 13,
            escape_html(&node.label[0])
        )
        .unwrap();
        writeln!(
            svg,
            "<text x=\"{centre}\" y=\"{}\" font-size=\"11\" fill=\"#505050\" text-anchor=\"middle\" dominant-baseline=\"central\">{}</text></g>",
            node.y + 29,
            escape_html(&node.label[1])
        )
        .unwrap();
    }
    svg.push_str("</svg>\n");
    svg
}

/// The correctness order as a table, for readers who cannot see the diagram: each class
/// (best first) with its answers, tests passed, and the classes directly below it with the
/// test that tells them apart.
pub fn order_table_html(analysis: &Analysis) -> String {
    let order = &analysis.order;
    let total = analysis.scored_tests();
    let mut classes: Vec<&grader::Class> = order.classes.iter().collect();
    classes.sort_by_key(|c| std::cmp::Reverse(c.passed));
    let mut html = String::from(
        "<table class=\"order\"><caption>The correctness order as a table</caption><tr><th>Class</th><th>Answers</th><th>Tests passed</th><th>Classes directly below (a test telling them apart)</th></tr>\n",
    );
    for class in classes {
        let below: Vec<String> = order
            .edges
            .iter()
            .filter(|e| e.from == class.id)
            .map(|e| {
                let below = order.classes.iter().find(|c| c.id == e.to).map_or(String::new(), |c| answers_text(&c.answers));
                format!("{} ({}: {})", escape_html(&e.to), escape_html(&below), escape_html(&e.witness))
            })
            .collect();
        writeln!(
            html,
            "<tr><td>{}</td><td>{}</td><td>{}/{total}</td><td>{}</td></tr>",
            escape_html(&class.id),
            escape_html(&class.answers.join(", ")),
            class.passed,
            if below.is_empty() { "none".to_owned() } else { below.join(", ") }
        )
        .unwrap();
    }
    html.push_str("</table>\n");
    html
}

/// The correctness order in Graphviz's DOT language: one box per class (its answers and
/// tests passed), better classes higher, each covering arrow labelled with its witness
/// test's input and "(+n)" for the other distinguishing tests.
pub fn order_dot(analysis: &Analysis) -> String {
    let mut dot = String::new();
    let total = analysis.scored_tests();
    writeln!(dot, "digraph correctness {{").unwrap();
    writeln!(dot, "  label=\"{}: correctness order over {total} tests\";", dot_escape(&analysis.problem)).unwrap();
    writeln!(dot, "  rankdir=TB;\n  node [shape=box, fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\", fontsize=10];").unwrap();
    for class in &analysis.order.classes {
        writeln!(dot, "  {} [label=\"{}\\n{}/{total} passed\"];", class.id, dot_escape(&answers_text(&class.answers)), class.passed).unwrap();
    }
    for edge in &analysis.order.edges {
        let input = analysis.suite.iter().find(|t| t.id == edge.witness).map_or("", |t| t.input.as_str());
        let others = if edge.others > 0 { format!(" (+{})", edge.others) } else { String::new() };
        writeln!(dot, "  {} -> {} [label=\"{}{}\"];", edge.from, edge.to, dot_escape(input), others).unwrap();
    }
    dot.push_str("}\n");
    dot
}

/// `text` inside a DOT string.
fn dot_escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::one_line;

    fn check(text: &str, max_chars: usize, expected: &str) {
        assert_eq!(one_line(text, max_chars), expected, "{text:?} in {max_chars}");
    }

    #[test]
    fn an_input_is_one_quoted_line_cut_to_its_column() {
        check("member 0 []", 40, "\"member 0 []\"");
        check("first line\nsecond\tline\n", 40, "\"first line\\nsecond\\tline\\n\"");
        check("abcdefghij", 8, "\"abcdef…");
        assert_eq!(one_line(&"x\n".repeat(100), 40).chars().count(), 40);
    }
}
